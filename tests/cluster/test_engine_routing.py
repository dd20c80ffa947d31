"""The engine's side of clusters, in one process: what MQOPEN/MQPUT/MQPUT1 do with a name the
cluster knows (mqpy.engine.cluster), given a cluster cache as the repository manager writes it.
"""

from __future__ import annotations

import json

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy_chinit.cluster.directory import Cache, cache_path, instance_to_dict, write_cache
from mqpy_chinit.cluster.workload import QueueInstance

SCTQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"
SCCQ = "SYSTEM.CLUSTER.COMMAND.QUEUE"


def _instance(qmgr: str, defpsist: bool = True, **kw) -> dict:
    return instance_to_dict(QueueInstance(queue=kw.pop("queue", "INVQ"), qmgr=qmgr,
                                          qmid=f"{qmgr}_id", cluster="INV",
                                          channel=f"TO.{qmgr}", **kw),
                            defpsist=defpsist, defprty=3)


@pytest.fixture
def qm1(tmp_path):
    root = str(tmp_path / "QM1")
    inprocess.create("QM1", root, dead_letter_queue="SYSTEM.DEAD.LETTER.QUEUE")
    eng = inprocess.start("QM1", root)

    def cache(**queues: list[dict]) -> None:
        write_cache(cache_path(eng.qmdir), Cache(
            qmgr="QM1", clusters=["INV"], queues=queues,
            qmgrs={"QM2": {"channel": "TO.QM2", "qmid": "QM2_id"},
                   "QM3": {"channel": "TO.QM3", "qmid": "QM3_id"}}))

    eng.test_cache = cache
    yield eng
    inprocess.stop_all()


def _connect(eng) -> mqpy.QueueManager:
    return mqpy.embedded("QM1", data_path=eng.qmdir.rsplit("/qmgrs/", 1)[0], create=False)


def _sctq(eng) -> list[tuple[str, str, str, mqpy.MD]]:
    """(channel of the CorrelId, XQH queue, XQH queue manager, inner MQMD) of each message."""
    qm = _connect(eng)
    out = []
    try:
        q = mqpy.Queue(qm, SCTQ, CMQC.MQOO_INPUT_AS_Q_DEF)
        while True:
            md = mqpy.MD()
            try:
                data = q.get(None, md)
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            xqh = mqpy.XQH().unpack(data)
            out.append((md.CorrelId.rstrip(b" ").decode(),
                        xqh.RemoteQName.rstrip(b" \x00").decode(),
                        xqh.RemoteQMgrName.rstrip(b" \x00").decode(), xqh.MsgDesc))
    finally:
        qm.disconnect()


def test_not_fixed_puts_go_round_robin_on_the_cluster_xmitq_keyed_by_channel(qm1):
    """Given a cluster queue INVQ with instances on QM2 and QM3 and none here, when an
    application opens INVQ with MQOO_BIND_NOT_FIXED and puts 4 messages, then 4 messages wait
    on SYSTEM.CLUSTER.TRANSMIT.QUEUE, 2 with CorrelId TO.QM2, 2 with TO.QM3, each with an
    MQXQH naming INVQ and no queue manager (unbound: it may be re-routed if its channel
    fails).  spec: operations-dlq-clusters 7.22; operations-dlq-clusters 7.28; dqm-intercommunication 5"""
    qm1.test_cache(INVQ=[_instance("QM2"), _instance("QM3")])
    qm = _connect(qm1)
    q = mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
    for i in range(4):
        q.put(b"m%d" % i)
    qm.disconnect()
    got = sorted((c, rq, rqm) for c, rq, rqm, _ in _sctq(qm1))
    assert got == [("TO.QM2", "INVQ", "")] * 2 + [("TO.QM3", "INVQ", "")] * 2


def test_bind_on_open_keeps_one_instance_per_handle(qm1):
    """Given two instances, when a handle opened with MQOO_BIND_ON_OPEN puts 3 messages, then
    all 3 go to one queue manager; BIND_AS_Q_DEF follows the queue's DEFBIND(NOTFIXED).
    spec: operations-dlq-clusters 7.22"""
    notfixed = CMQC.MQBND_BIND_NOT_FIXED
    qm1.test_cache(INVQ=[_instance("QM2", defbind=notfixed), _instance("QM3", defbind=notfixed)])
    qm = _connect(qm1)
    q = mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_ON_OPEN)
    for i in range(3):
        q.put(b"m%d" % i)
    q.close()
    assert len({c for c, *_ in _sctq(qm1)}) == 1
    q = mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT)  # MQOO_BIND_AS_Q_DEF: NOTFIXED
    for i in range(2):
        q.put(b"m%d" % i)
    qm.disconnect()
    assert len({c for c, *_ in _sctq(qm1)}) == 2


def test_put_inhibited_everywhere(qm1):
    """Given every instance put-disabled and none here, when MQOPEN uses BIND_ON_OPEN, then
    it fails MQRC_CLUSTER_PUT_INHIBITED (2268); with BIND_NOT_FIXED MQOPEN works and MQPUT
    fails MQRC_PUT_INHIBITED (2051); MQPUT1 fails too.  spec: operations-dlq-clusters 7.21"""
    qm1.test_cache(INVQ=[_instance("QM2", put_enabled=False),
                         _instance("QM3", put_enabled=False)])
    qm = _connect(qm1)
    with pytest.raises(mqpy.MQMIError) as e:
        mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_ON_OPEN)
    assert e.value.reason == CMQC.MQRC_CLUSTER_PUT_INHIBITED
    q = mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
    with pytest.raises(mqpy.MQMIError) as e:
        q.put(b"x")
    assert e.value.reason == CMQC.MQRC_PUT_INHIBITED
    with pytest.raises(mqpy.MQMIError) as e:
        qm.put1("INVQ", b"x")
    assert e.value.reason in (CMQC.MQRC_CLUSTER_PUT_INHIBITED, CMQC.MQRC_PUT_INHIBITED)
    qm.disconnect()
    assert _sctq(qm1) == []


def test_put_disabled_instance_is_avoided(qm1):
    """Given INVQ put-disabled on QM2 and enabled on QM3, when 3 messages are put with
    BIND_NOT_FIXED, then all go to QM3.  spec: operations-dlq-clusters 4 (put-disabled)"""
    qm1.test_cache(INVQ=[_instance("QM2", put_enabled=False), _instance("QM3")])
    qm = _connect(qm1)
    for i in range(3):
        qm.put1("INVQ", b"m%d" % i)
    qm.disconnect()
    assert {c for c, *_ in _sctq(qm1)} == {"TO.QM3"}


def test_named_queue_manager_bypasses_balancing_and_defaults_come_from_the_record(qm1):
    """Given two instances, when MQPUT1 names INVQ at QM3 in the MQOD, then the message goes
    to TO.QM3 whatever the round robin says; a put with MQPER_PERSISTENCE_AS_Q_DEF takes
    DEFPSIST from the cluster queue record, not from the transmission queue.
    spec: operations-dlq-clusters 4 (a QM name in the MQOD bypasses balancing)"""
    qm1.test_cache(INVQ=[_instance("QM2", defpsist=False), _instance("QM3", defpsist=False)])
    qm = _connect(qm1)
    for _ in range(3):
        qm.put1(mqpy.OD(ObjectName=b"INVQ", ObjectQMgrName=b"QM3"), b"x")
    qm.put1("INVQ", b"y", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENCE_AS_Q_DEF))
    qm.disconnect()
    got = _sctq(qm1)
    named = [g for g in got if g[3].Priority == 0]
    assert [(c, rqm) for c, _, rqm, _ in named] == [("TO.QM3", "QM3")] * 3
    balanced = [g[3] for g in got if g[3].Priority == 3]  # DEFPRTY(3) of the record
    assert len(balanced) == 1 and balanced[0].Persistence == CMQC.MQPER_NOT_PERSISTENT


def test_local_queue_manager_alias_remaps_into_the_cluster(qm1):
    """Given QM1 (not CLUSQM) with DEFINE QREMOTE(YORK) RNAME(' ') RQMNAME(QM3), when an
    application puts to Q at queue manager YORK, then the message waits on the cluster
    transmission queue with a header naming QM3, on channel TO.QM3.
    spec: aliases-channels-storage 1 use 1; aliases-channels-storage 4.1"""
    qm1.test_cache()
    qm1.define("QREMOTE", "YORK", {"RNAME": "", "RQMNAME": "QM3"})
    qm = _connect(qm1)
    qm.put1(mqpy.OD(ObjectName=b"Q", ObjectQMgrName=b"YORK"), b"x")
    qm.disconnect()
    assert [(c, rq, rqm) for c, rq, rqm, _ in _sctq(qm1)] == [("TO.QM3", "Q", "QM3")]


def test_unknown_name_asks_the_repository_manager(qm1):
    """Given a member of a cluster that knows no INVQ, when MQOPEN names INVQ, then it fails
    MQRC_UNKNOWN_OBJECT_NAME (2085) and a request naming INVQ is put on
    SYSTEM.CLUSTER.COMMAND.QUEUE for the repository manager (it subscribes at the full
    repositories, and a retry finds the queue); a queue manager in no cluster asks nothing.
    spec: operations-dlq-clusters 4 (2085: retry a put)"""
    qm1.test_cache()
    qm = _connect(qm1)
    with pytest.raises(mqpy.MQMIError) as e:
        qm.put1("INVQ", b"x")
    assert e.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    q = mqpy.Queue(qm, SCCQ, CMQC.MQOO_INPUT_AS_Q_DEF)
    md = mqpy.MD()
    assert json.loads(q.get(None, md)) == {"request": "WANT", "queue": "INVQ"}
    assert md.Format.rstrip() == b"MQPYCLRQ"
    q.close()
    write_cache(cache_path(qm1.qmdir), Cache(qmgr="QM1"))  # in no cluster
    with pytest.raises(mqpy.MQMIError) as e:
        qm.put1("OTHERQ", b"x")
    assert e.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert qm1.queue_status(SCCQ)["CURDEPTH"] == 0
    with pytest.raises(mqpy.MQMIError) as e:
        mqpy.Queue(qm, "INVQ", CMQC.MQOO_INPUT_AS_Q_DEF)
    assert e.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    qm.disconnect()


def test_a_stale_local_instance_in_the_cache_is_not_chosen(qm1):
    """Given a cache that still lists a local instance of INVQ (just deleted here: the cache
    lags) and one on QM2, when INVQ is put to with BIND_NOT_FIXED, then every message goes to
    QM2 and none fails.  spec: operations-dlq-clusters 7.22"""
    local_instance = instance_to_dict(QueueInstance("INVQ", "QM1", "QM1_id", "INV", "",
                                                    local=True))
    qm1.test_cache(INVQ=[local_instance, _instance("QM2")])
    qm = _connect(qm1)
    q = mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
    for i in range(3):
        q.put(b"m%d" % i)
    qm.disconnect()
    assert {c for c, *_ in _sctq(qm1)} == {"TO.QM2"}


def test_a_put_disabled_local_instance_gives_way_to_a_remote_one(qm1):
    """Given INVQ defined here with CLUSTER(INV) and PUT(DISABLED), and an enabled instance
    on QM2, when an application puts to INVQ, then the message goes to QM2 (IBM: the local
    instance is preferred only when it is put-enabled); with no other instance the put
    fails MQRC_PUT_INHIBITED (2051).  spec: operations-dlq-clusters 4 (put-disabled)"""
    qm1.define("QLOCAL", "INVQ", {"CLUSTER": "INV", "PUT": "DISABLED"})
    qm1.test_cache(INVQ=[_instance("QM1", local=True, put_enabled=False),
                         _instance("QM2")])
    qm = _connect(qm1)
    try:
        qm.put1("INVQ", b"elsewhere")
        q = mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
        q.put(b"elsewhere too")
        q.close()
        assert [(c, rq) for c, rq, *_ in _sctq(qm1)] == [("TO.QM2", "INVQ")] * 2
        qm1.test_cache(INVQ=[_instance("QM1", local=True, put_enabled=False)])
        with pytest.raises(mqpy.MQMIError) as e:
            qm.put1("INVQ", b"nowhere")
        assert e.value.reason == CMQC.MQRC_PUT_INHIBITED
    finally:
        qm.disconnect()


def _depth(eng, queue: str) -> int:
    qm = _connect(eng)
    try:
        return mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        qm.disconnect()


@pytest.mark.parametrize("queue_useq, qmgr_useq", [("ANY", "LOCAL"), ("QMGR", "ANY")])
def test_clwluseq_any_makes_the_local_instance_compete(qm1, queue_useq, qmgr_useq):
    """Given INVQ defined here with CLUSTER(INV) and an instance on QM2, and CLWLUSEQ(ANY)
    on the queue (or QMGR there and ANY on the queue manager), when an application puts 4
    messages with BIND_NOT_FIXED, then the local queue and QM2 get 2 each (round robin);
    with BIND_ON_OPEN two handles are bound one to each.
    spec: aliases-channels-storage 1 use 5; aliases-channels-storage 4.9"""
    qm1.alter_qmgr({"CLWLUSEQ": qmgr_useq})
    qm1.define("QLOCAL", "INVQ", {"CLUSTER": "INV", "CLWLUSEQ": queue_useq})
    qm1.test_cache(INVQ=[_instance("QM1", local=True, clwluseq=queue_useq),
                         _instance("QM2")])
    qm = _connect(qm1)
    try:
        q = mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
        for i in range(4):
            q.put(b"m%d" % i)
        q.close()
        assert _depth(qm1, "INVQ") == 2
        assert [c for c, *_ in _sctq(qm1)] == ["TO.QM2"] * 2
        for _ in range(2):
            q = mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_ON_OPEN)
            q.put(b"bound")
            q.put(b"bound again")
            q.close()
        assert _depth(qm1, "INVQ") == 4
        assert [(c, rqm) for c, _, rqm, _ in _sctq(qm1)] == [("TO.QM2", "QM2")] * 2
    finally:
        qm.disconnect()


def test_clwluseq_local_and_cluster_channel_puts_take_the_local_instance(qm1):
    """Given INVQ here with CLUSTER(INV) and an instance on QM2, when CLWLUSEQ is LOCAL
    (IBM's default, through QMGR), then every put goes to the local queue; and when it is
    ANY but the put comes from a cluster-receiver MCA (put by a cluster channel), the
    local queue gets it too, so a message never goes back into the cluster.
    spec: aliases-channels-storage 4.9"""
    from mqpy.engine.cluster import CLUSTER_RECEIVER_APPL

    qm1.define("QLOCAL", "INVQ", {"CLUSTER": "INV"})
    qm1.test_cache(INVQ=[_instance("QM1", local=True), _instance("QM2")])
    qm = _connect(qm1)
    try:
        for i in range(3):
            qm.put1("INVQ", b"m%d" % i)
    finally:
        qm.disconnect()
    qm1.alter("QLOCAL", "INVQ", {"CLWLUSEQ": "ANY"})
    mca = mqpy.QueueManager(None)
    mca._conn = qm1.connect(CLUSTER_RECEIVER_APPL)
    mca._name = "QM1"
    try:
        for i in range(3):
            mca.put1("INVQ", b"arrived %d" % i)
    finally:
        mca.disconnect()
    assert _depth(qm1, "INVQ") == 6
    assert _sctq(qm1) == []


def test_a_queue_manager_alias_with_blank_rqmname_means_any_instance(qm1):
    """Given on gateway QM1 IBM's DEFINE QREMOTE(ANY.CLUSTER) RNAME(' ') RQMNAME(' ') and
    INVQ on QM2 and QM3 only, when a message for INVQ at ANY.CLUSTER is put (as a receiver
    from outside the cluster puts it), then it is balanced over the cluster's instances,
    unbound (no queue manager in its MQXQH).  spec: aliases-channels-storage 1 use 5"""
    qm1.define("QREMOTE", "ANY.CLUSTER", {"RNAME": "", "RQMNAME": ""})
    not_fixed = CMQC.MQBND_BIND_NOT_FIXED  # DEFBIND(NOTFIXED), as in IBM's example
    qm1.test_cache(INVQ=[_instance("QM2", defbind=not_fixed),
                         _instance("QM3", defbind=not_fixed)])
    qm = _connect(qm1)
    try:
        for i in range(2):
            qm.put1(mqpy.OD(ObjectName=b"INVQ", ObjectQMgrName=b"ANY.CLUSTER"), b"m%d" % i)
    finally:
        qm.disconnect()
    assert sorted((c, rq, rqm) for c, rq, rqm, _ in _sctq(qm1)) == [
        ("TO.QM2", "INVQ", ""), ("TO.QM3", "INVQ", "")]


def test_a_remote_queue_definition_reaches_a_cluster_queue_manager(qm1):
    """Given QREMOTE(TOQM2) RNAME(INVQ) RQMNAME(QM2) with no XMITQ, no transmission queue
    named QM2 and no DEFXMITQ, and QM2 a cluster queue manager, when an application puts
    to TOQM2, then the message goes on the cluster transmission queue for QM2 (IBM: RQMNAME
    may be a cluster queue manager), not MQRC_UNKNOWN_REMOTE_Q_MGR; a QREMOTE naming a
    queue manager the cluster does not know still fails 2087.
    spec: operations-dlq-clusters 4, aliases-channels-storage 1"""
    qm1.define("QREMOTE", "TOQM2", {"RNAME": "INVQ", "RQMNAME": "QM2"})
    qm1.define("QREMOTE", "TOQM9", {"RNAME": "INVQ", "RQMNAME": "QM9"})
    qm1.test_cache()
    qm = _connect(qm1)
    try:
        qm.put1("TOQM2", b"to QM2")
        with pytest.raises(mqpy.MQMIError) as e:
            qm.put1("TOQM9", b"nowhere")
        assert e.value.reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    finally:
        qm.disconnect()
    assert [(c, rq, rqm) for c, rq, rqm, _ in _sctq(qm1)] == [("TO.QM2", "INVQ", "QM2")]


def test_an_alias_of_a_cluster_queue_hosted_elsewhere_opens(qm1):
    """Given QALIAS(MYINV) TARGET(INVQ) DEFBIND(NOTFIXED) DEFPRTY(7) here and INVQ a
    cluster queue on QM2 and QM3 only, when an application opens MYINV for output and puts
    twice, then the puts are balanced over both instances, unbound, with the alias's
    DEFPRTY (IBM: an alias's target may be a cluster queue), instead of
    MQRC_UNKNOWN_ALIAS_BASE_Q; an alias of a name nobody knows still fails 2082.
    spec: operations-dlq-clusters 4 (clustered aliases, DEFBIND)"""
    qm1.define("QALIAS", "MYINV", {"TARGET": "INVQ", "DEFBIND": "NOTFIXED", "DEFPRTY": 7})
    qm1.define("QALIAS", "NOBODY", {"TARGET": "NOSUCHQ"})
    qm1.test_cache(INVQ=[_instance("QM2"), _instance("QM3")])
    qm = _connect(qm1)
    try:
        q = mqpy.Queue(qm, "MYINV", CMQC.MQOO_OUTPUT)
        q.put(b"one")
        q.put(b"two")
        q.close()
        with pytest.raises(mqpy.MQMIError) as e:
            qm.put1("NOBODY", b"nowhere")
        assert e.value.reason == CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q
    finally:
        qm.disconnect()
    got = _sctq(qm1)
    assert sorted((c, rq, rqm) for c, rq, rqm, _ in got) == [
        ("TO.QM2", "INVQ", ""), ("TO.QM3", "INVQ", "")]
    assert {md.Priority for *_, md in got} == {7}


def test_a_competing_local_instance_put_inhibited_later_is_avoided(qm1):
    """Given INVQ here with CLUSTER(INV) CLWLUSEQ(ANY) and an instance on QM2, and a handle
    opened with BIND_NOT_FIXED whose last put went to the local queue, when the local
    queue is then PUT(DISABLED) (and the cache says so), then the next puts go to QM2
    rather than failing 2051.  spec: operations-dlq-clusters 4 (put-disabled)"""
    qm1.define("QLOCAL", "INVQ", {"CLUSTER": "INV", "CLWLUSEQ": "ANY"})
    qm1.test_cache(INVQ=[_instance("QM1", local=True, clwluseq="ANY"), _instance("QM2")])
    qm = _connect(qm1)
    try:
        q = mqpy.Queue(qm, "INVQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
        for i in range(3):
            q.put(b"m%d" % i)  # local, QM2, local: the last choice is the local queue
        qm1.alter("QLOCAL", "INVQ", {"PUT": "DISABLED"})
        qm1.test_cache(INVQ=[_instance("QM1", local=True, clwluseq="ANY", put_enabled=False),
                             _instance("QM2")])
        for i in range(2):
            q.put(b"after %d" % i)
        q.close()
    finally:
        qm.disconnect()
    assert _depth(qm1, "INVQ") == 2
    assert [c for c, *_ in _sctq(qm1)] == ["TO.QM2"] * 3


def test_an_alternate_user_is_judged_on_a_competing_local_instance(qm1):
    """Given security on, INVQ here with CLUSTER(INV) CLWLUSEQ(ANY) and an instance on QM2,
    carol with +altusr and +put on INVQ, and dave with +put on the cluster transmission
    queue only, when carol opens INVQ for output as alternate user dave, then 2035: the
    local instance the workload may choose is judged for dave, not for carol alone.
    spec: aliases-channels-storage 1 use 5"""
    from mqpy.security.policy import install, set_authority
    from mqpy.security.users import UserFile, users_path

    qm1.define("QLOCAL", "INVQ", {"CLUSTER": "INV", "CLWLUSEQ": "ANY"})
    qm1.test_cache(INVQ=[_instance("QM1", local=True, clwluseq="ANY"), _instance("QM2")])
    install(qm1, qm1.qmdir)
    users = UserFile(users_path(qm1.qmdir))
    users.add("carol", "carol-pw", [])
    users.add("dave", "dave-pw", [])
    set_authority(qm1, "qmgr", "QM1", ["+connect", "+altusr"], principal="carol")
    for who in ("carol", "dave"):
        set_authority(qm1, "queue", SCTQ, ["+put"], principal=who)
    set_authority(qm1, "queue", "INVQ", ["+put"], principal="carol")
    conn = qm1.connect("app", user="carol", password="carol-pw")
    od = mqpy.OD(ObjectName=b"INVQ", AlternateUserId=b"dave")
    with pytest.raises(mqpy.MQMIError) as exc:
        conn.open(od, CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED
                  | CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
    assert exc.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    set_authority(qm1, "queue", "INVQ", ["+put"], principal="dave")
    conn.close(conn.open(od, CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED
                         | CMQC.MQOO_ALTERNATE_USER_AUTHORITY), 0)


def test_a_local_instance_opened_through_an_alias_competes_under_clwluseq_any(qm1):
    """Given INVQ defined here with CLUSTER(INV) and CLWLUSEQ(ANY), an instance on QM2, and a
    QALIAS ORDERS whose TARGET is INVQ, when an application puts 4 messages to ORDERS with
    BIND_NOT_FIXED, then the workload choice is made for INVQ as if it had been opened by
    name: the local queue and QM2 get 2 each, and the message for QM2 names INVQ.
    spec: aliases-channels-storage 1 use 5"""
    qm1.define("QLOCAL", "INVQ", {"CLUSTER": "INV", "CLWLUSEQ": "ANY"})
    qm1.define("QALIAS", "ORDERS", {"TARGET": "INVQ"})
    qm1.test_cache(INVQ=[_instance("QM1", local=True, clwluseq="ANY"), _instance("QM2")])
    qm = _connect(qm1)
    try:
        q = mqpy.Queue(qm, "ORDERS", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
        for i in range(4):
            q.put(b"m%d" % i)
        q.close()
        assert _depth(qm1, "INVQ") == 2
        assert [(c, rq) for c, rq, *_ in _sctq(qm1)] == [("TO.QM2", "INVQ")] * 2
    finally:
        qm.disconnect()
