"""Objects a new queue manager has, IBM's defaults, MQINQ/MQSET by selector, MQPUT1, dynamic
queues, and the put/get inhibit and MAXDEPTH/MAXMSGL limits."""

from __future__ import annotations

import mqpy
from mqpy import CMQC

from ._support import IN, INQ, OUT, curdepth, drain, get_one, od, put, raises_mq

SYSTEM_QUEUES = [
    ("QLOCAL", "SYSTEM.DEFAULT.LOCAL.QUEUE"), ("QMODEL", "SYSTEM.DEFAULT.MODEL.QUEUE"),
    ("QALIAS", "SYSTEM.DEFAULT.ALIAS.QUEUE"), ("QREMOTE", "SYSTEM.DEFAULT.REMOTE.QUEUE"),
    ("PROCESS", "SYSTEM.DEFAULT.PROCESS"), ("QLOCAL", "SYSTEM.CHANNEL.INITQ"),
    ("QLOCAL", "SYSTEM.CHANNEL.SYNCQ"), ("QLOCAL", "SYSTEM.ADMIN.COMMAND.QUEUE"),
    ("QLOCAL", "SYSTEM.ADMIN.STATISTICS.QUEUE"), ("QLOCAL", "SYSTEM.ADMIN.ACCOUNTING.QUEUE"),
    ("QLOCAL", "SYSTEM.CLUSTER.TRANSMIT.QUEUE"), ("QLOCAL", "SYSTEM.CLUSTER.COMMAND.QUEUE"),
    ("QLOCAL", "SYSTEM.CLUSTER.REPOSITORY.QUEUE"),
]


# ------------------------------------------------------------------ system objects, defaults

def test_system_and_default_objects_exist_after_creation(make_qmgr):
    """Given a newly created queue manager, then the system and default objects exist with
    their types, and SYSTEM.CLUSTER.TRANSMIT.QUEUE is a transmission queue."""
    eng = make_qmgr("NEWQM").eng
    for objtype, name in SYSTEM_QUEUES:
        assert eng.lookup(objtype, name) is not None, name
    xq = eng.lookup("QLOCAL", "SYSTEM.CLUSTER.TRANSMIT.QUEUE")
    assert xq.attributes["USAGE"] == "XMITQ"


def test_queue_manager_attributes_through_mqinq(qm1):
    """Given QM1 with DEADQ(DLQ), then MQINQ on the queue manager answers its name, DEADQ,
    a blank DEFXMITQ, MAXMSGL 4194304 and TRIGINT 999999999 (IBM's defaults)."""
    qm = qm1.qm
    assert qm.inquire(CMQC.MQCA_Q_MGR_NAME).rstrip() == b"QM1"
    assert qm.inquire(CMQC.MQCA_DEAD_LETTER_Q_NAME).rstrip() == b"DLQ"
    assert qm.inquire(CMQC.MQCA_DEF_XMIT_Q_NAME).strip() == b""
    assert qm.inquire(CMQC.MQIA_MAX_MSG_LENGTH) == 4194304
    assert qm.inquire(CMQC.MQIA_TRIGGER_INTERVAL) == 999999999


def test_local_queue_defaults_are_ibms(qm1):
    """Given DEFINE QLOCAL(Q1) with no attributes, then MQINQ answers IBM's defaults: MAXDEPTH
    5000, MAXMSGL 4194304, not persistent, priority 0, put/get allowed, shareable, shared
    input, priority delivery, normal usage, trigger off, FIRST, TRIGDPTH 1, TRIGMPRI 0."""
    q = mqpy.Queue(qm1.qm, "Q1", INQ)
    expected = {
        CMQC.MQIA_MAX_Q_DEPTH: 5000, CMQC.MQIA_MAX_MSG_LENGTH: 4194304,
        CMQC.MQIA_DEF_PERSISTENCE: CMQC.MQPER_NOT_PERSISTENT, CMQC.MQIA_DEF_PRIORITY: 0,
        CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_ALLOWED, CMQC.MQIA_INHIBIT_GET: CMQC.MQQA_GET_ALLOWED,
        CMQC.MQIA_SHAREABILITY: CMQC.MQQA_SHAREABLE,
        CMQC.MQIA_DEF_INPUT_OPEN_OPTION: CMQC.MQOO_INPUT_SHARED,
        CMQC.MQIA_MSG_DELIVERY_SEQUENCE: CMQC.MQMDS_PRIORITY, CMQC.MQIA_USAGE: CMQC.MQUS_NORMAL,
        CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQTC_OFF, CMQC.MQIA_TRIGGER_TYPE: CMQC.MQTT_FIRST,
        CMQC.MQIA_TRIGGER_DEPTH: 1, CMQC.MQIA_TRIGGER_MSG_PRIORITY: 0,
        CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQIA_CURRENT_Q_DEPTH: 0,
    }
    got = {sel: q.inquire(sel) for sel in expected}
    q.close()
    assert got == expected


def test_predefined_local_queue_has_definition_type_predefined(qm1):
    """Given DEFINE QLOCAL(Q1), then MQINQ(MQIA_DEFINITION_TYPE) is MQQDT_PREDEFINED."""
    q = mqpy.Queue(qm1.qm, "Q1", INQ)
    try:
        assert q.inquire(CMQC.MQIA_DEFINITION_TYPE) == CMQC.MQQDT_PREDEFINED
    finally:
        q.close()


def test_inquire_on_alias_and_remote_definitions_answers_their_own_attributes(qm1):
    """Given QALIAS(AQ) TARGET(Q1) and QREMOTE(R) RNAME(RQ) RQMNAME(QMB) XMITQ(QMB), when each is
    opened for inquire, then the alias answers its type and base queue, the remote definition
    its RNAME/RQMNAME/XMITQ."""
    qm1.xmitq("QMB")
    qm1.define("QALIAS", "AQ", TARGET="Q1")
    qm1.define("QREMOTE", "R", RNAME="RQ", RQMNAME="QMB", XMITQ="QMB")
    a = mqpy.Queue(qm1.qm, "AQ", INQ)
    assert a.inquire(CMQC.MQIA_Q_TYPE) == CMQC.MQQT_ALIAS
    assert a.inquire(CMQC.MQCA_BASE_Q_NAME).rstrip() == b"Q1"
    a.close()
    r = mqpy.Queue(qm1.qm, "R", INQ)
    assert r.inquire(CMQC.MQIA_Q_TYPE) == CMQC.MQQT_REMOTE
    assert [r.inquire(sel).rstrip() for sel in (CMQC.MQCA_REMOTE_Q_NAME,
            CMQC.MQCA_REMOTE_Q_MGR_NAME, CMQC.MQCA_XMIT_Q_NAME)] == [b"RQ", b"QMB", b"QMB"]
    r.close()


def test_mqset_of_a_selector_ibm_does_not_allow_fails_2067(qm1):
    """Given Q1 open for set, when MQSET targets MQIA_MAX_Q_DEPTH (not settable by MQSET), then
    MQRC_SELECTOR_ERROR and MAXDEPTH is unchanged."""
    q = mqpy.Queue(qm1.qm, "Q1", CMQC.MQOO_SET | INQ)
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        q.set(CMQC.MQIA_MAX_Q_DEPTH, 10)
    assert q.inquire(CMQC.MQIA_MAX_Q_DEPTH) == 5000
    q.close()


def test_process_namelist_and_storage_class_definitions(qm1):
    """Given DEFINE PROCESS / NAMELIST / STGCLASS, then each is found with its attributes and
    IBM's defaults for the rest; they live in their own namespaces, apart from queues."""
    eng = qm1.eng
    eng.define("PROCESS", "Q1", {"APPLICID": "/bin/app"})  # same name as queue Q1: allowed
    eng.define("NAMELIST", "NL1", {"NAMES": ["A", "B"]})
    eng.define("STGCLASS", "SC1", {"PSID": 1})
    proc = eng.lookup("PROCESS", "Q1").attributes
    assert proc["APPLICID"] == "/bin/app" and proc["APPLTYPE"] == "UNIX"
    assert eng.lookup("NAMELIST", "NL1").attributes["NAMES"] == ["A", "B"]
    assert eng.lookup("STGCLASS", "SC1").attributes["PSID"] == 1
    assert eng.lookup("QLOCAL", "Q1") is not None


def test_queue_types_share_one_namespace(qm1):
    """Given local queue Q1, when QALIAS(Q1) is defined, then MQRC_OBJECT_ALREADY_EXISTS."""
    with raises_mq(CMQC.MQRC_OBJECT_ALREADY_EXISTS):
        qm1.eng.define("QALIAS", "Q1", {"TARGET": "DLQ"})


# ------------------------------------------------------------------ MQPUT1, dynamic queues

def test_put1_to_a_local_queue_and_through_an_alias(qm1):
    """MQPUT1 to Q1 and to QALIAS(AQ) TARGET(Q1) both land on Q1 with their MsgIds filled."""
    qm1.define("QALIAS", "AQ", TARGET="Q1")
    md1, md2 = mqpy.MD(), mqpy.MD()
    qm1.qm.put1("Q1", b"direct", md1)
    qm1.qm.put1("AQ", b"alias", md2)
    assert md1.MsgId.strip(b"\x00") and md1.MsgId != md2.MsgId
    assert drain(qm1.qm, "Q1") == [b"direct", b"alias"]


def _open_model(qm, model: str, opts: int = IN | OUT) -> tuple[mqpy.Queue, str]:
    d = mqpy.OD(ObjectName=model.encode(), DynamicQName=b"DYN.*")
    q = mqpy.Queue(qm, d, opts)
    return q, d.ObjectName.rstrip(b" \x00").decode()


def test_temporary_dynamic_queue_goes_at_close(qm1):
    """Given SYSTEM.DEFAULT.MODEL.QUEUE (TEMPDYN), when it is opened, then a DYN.* local queue of
    DEFTYPE TEMPDYN exists until the creating handle closes."""
    q, name = _open_model(qm1.qm, "SYSTEM.DEFAULT.MODEL.QUEUE")
    assert name.startswith("DYN.")
    assert qm1.eng.lookup("QLOCAL", name).attributes["DEFTYPE"] == "TEMPDYN"
    q.put(b"x")
    q.close()
    assert qm1.eng.lookup("QLOCAL", name) is None


def test_permanent_dynamic_queue_survives_close(qm1):
    """Given a model with DEFTYPE(PERMDYN), when it is opened and closed, then the dynamic queue
    and its messages remain; MQCO_DELETE_PURGE on a later handle removes it."""
    qm1.define("QMODEL", "PERM.MODEL", DEFTYPE="PERMDYN")
    q, name = _open_model(qm1.qm, "PERM.MODEL")
    q.put(b"kept", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    q.close()
    assert qm1.eng.lookup("QLOCAL", name).attributes["DEFTYPE"] == "PERMDYN"
    again = mqpy.Queue(qm1.qm, name, IN)
    assert again.get() == b"kept"
    again.close(CMQC.MQCO_DELETE_PURGE)
    assert qm1.eng.lookup("QLOCAL", name) is None


def test_persistent_message_on_a_temporary_dynamic_queue_fails_2048(qm1):
    """Given a temporary dynamic queue, when a persistent message is put to it, then
    MQRC_PERSISTENT_NOT_ALLOWED (temporary dynamic queues cannot hold persistent messages)."""
    q, _name = _open_model(qm1.qm, "SYSTEM.DEFAULT.MODEL.QUEUE")
    try:
        with raises_mq(CMQC.MQRC_PERSISTENT_NOT_ALLOWED):
            q.put(b"x", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    finally:
        q.close()


# ------------------------------------------------------------------ inhibit and limits

def test_put_inhibited_queue_refuses_puts_2051(qm1):
    """Given Q1 PUT(DISABLED), when MQPUT or MQPUT1 targets it, then MQRC_PUT_INHIBITED; after
    MQSET(MQIA_INHIBIT_PUT, ALLOWED) the put works."""
    qm1.eng.alter("QLOCAL", "Q1", {"PUT": "DISABLED"})
    q = mqpy.Queue(qm1.qm, "Q1", OUT | CMQC.MQOO_SET)
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        q.put(b"x")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        qm1.qm.put1("Q1", b"x")
    q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
    q.put(b"ok")
    q.close()
    assert drain(qm1.qm, "Q1") == [b"ok"]


def test_put_inhibited_alias_refuses_while_its_target_accepts(qm1):
    """Given QALIAS(AQ) TARGET(Q1) PUT(DISABLED), then puts through AQ fail 2051, direct puts to
    Q1 work."""
    qm1.define("QALIAS", "AQ", TARGET="Q1", PUT="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        put(qm1.qm, "AQ", b"x")
    put(qm1.qm, "Q1", b"direct")
    assert drain(qm1.qm, "Q1") == [b"direct"]


def test_put_inhibited_xmitq_refuses_remote_puts_2051(qm1):
    """Given xmitq QMB PUT(DISABLED), when a message for Q@QMB is put, then 2051."""
    qm1.xmitq("QMB", PUT="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        qm1.qm.put1(od("Q", "QMB"), b"x")


def test_get_inhibited_queue_refuses_gets_2016(qm1):
    """Given a message on Q1, when MQSET(MQIA_INHIBIT_GET, INHIBITED), then MQGET fails with
    MQRC_GET_INHIBITED and the message stays; re-allowing lets it be got."""
    put(qm1.qm, "Q1", b"held")
    q = mqpy.Queue(qm1.qm, "Q1", IN | CMQC.MQOO_SET)
    q.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_INHIBITED)
    with raises_mq(CMQC.MQRC_GET_INHIBITED):
        q.get()
    assert curdepth(qm1.eng, "Q1") == 1
    q.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_ALLOWED)
    assert q.get() == b"held"
    q.close()


def test_full_queue_refuses_puts_2053_counting_uncommitted_messages(qm1):
    """Given Q1 MAXDEPTH(2), when one committed and one uncommitted message are on it, then a
    third put fails with MQRC_Q_FULL; after a get there is room again."""
    qm1.eng.alter("QLOCAL", "Q1", {"MAXDEPTH": 2})
    put(qm1.qm, "Q1", b"1")
    put(qm1.qm, "Q1", b"2", syncpoint=True)
    with raises_mq(CMQC.MQRC_Q_FULL):
        put(qm1.qm, "Q1", b"3")
    qm1.qm.commit()
    get_one(qm1.qm, "Q1")
    put(qm1.qm, "Q1", b"3")
    assert curdepth(qm1.eng, "Q1") == 2


def test_full_xmitq_refuses_remote_puts_2053(qm1):
    """Given xmitq QMB MAXDEPTH(1) holding one message, when another is put for Q@QMB, then
    MQRC_Q_FULL."""
    qm1.xmitq("QMB", MAXDEPTH=1)
    qm1.qm.put1(od("Q", "QMB"), b"1")
    with raises_mq(CMQC.MQRC_Q_FULL):
        qm1.qm.put1(od("Q", "QMB"), b"2")


def test_message_longer_than_maxmsgl(qm1):
    """Given Q1 MAXMSGL(10), then an 11-byte put fails 2030 (MSG_TOO_BIG_FOR_Q); given QMGR
    MAXMSGL(20), a 21-byte put fails 2031 (MSG_TOO_BIG_FOR_Q_MGR)."""
    qm1.eng.alter("QLOCAL", "Q1", {"MAXMSGL": 10})
    put(qm1.qm, "Q1", b"x" * 10)
    with raises_mq(CMQC.MQRC_MSG_TOO_BIG_FOR_Q):
        put(qm1.qm, "Q1", b"x" * 11)
    qm1.eng.alter_qmgr({"MAXMSGL": 20})
    with raises_mq(CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR):
        put(qm1.qm, "DLQ", b"x" * 21)
