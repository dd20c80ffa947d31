"""Not Authorized events of types 3 and 6 on SYSTEM.ADMIN.QMGR.EVENT while AUTHOREV is
ENABLED: an MQCLOSE that would delete a permanent dynamic queue its handle did not create, by
a user who may not delete it (type 3, MQRQ_CLOSE_NOT_AUTHORIZED), and an MQSUB whose own
destination queue the user may not use (type 6, MQRQ_SUB_DEST_NOT_AUTHORIZED). The refusal
is the engine's, so an embedded connection shows what bindings and client connections get
(a client's event adds its ConnName and channel, as type 2's does)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.engine.authority import AllowAll
from mqpy.errors import MQMIError

from ._support import params, read_events


class _Refusing(AllowAll):
    """Lets everything through but deleting, and the use of EV.SUBDEST."""

    def check_delete(self, user, objtype, name):
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED)

    def check_open(self, user, objtype, name, options, *, alternate_user=None):
        if name == "EV.SUBDEST" and options & CMQC.MQOO_OUTPUT:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED)


@pytest.fixture
def refusing(qmev):
    eng = qmev.eng
    before, eng.authority = eng.authority, _Refusing()
    eng.alter_qmgr({"AUTHOREV": "ENABLED"})
    yield qmev
    eng.authority = before


def _events(qm) -> list[tuple[int, dict]]:
    return [(m.header.Reason, dict(params(m))) for _, m in read_events(qm)]


def _permanent_dynamic(qmev) -> str:
    """A permanent dynamic queue made from a PERMDYN model, its creating handle closed."""
    qmev.eng.define("QMODEL", "EV.PERMDYN.MODEL", {"DEFTYPE": "PERMDYN"}, replace=True)
    od = mqpy.OD(ObjectName=b"EV.PERMDYN.MODEL", DynamicQName=b"EV.PD.*")
    q = mqpy.Queue(qmev.qm, od, CMQC.MQOO_INPUT_SHARED)
    name = od.ObjectName.rstrip(b" \x00").decode()
    q.close()
    return name


# ------------------------------------------------------------------ type 3: MQCLOSE


def test_deleting_another_handles_permanent_dynamic_queue_unauthorised_is_type_3(refusing):
    """Given AUTHOREV(ENABLED), a permanent dynamic queue made by an earlier MQOPEN and a user
    who may not delete it, when another handle's MQCLOSE asks MQCO_DELETE_PURGE, then it fails
    2035, the queue and the handle stay, and a Not Authorized event with
    MQRQ_CLOSE_NOT_AUTHORIZED names the user, the application and the queue."""
    name = _permanent_dynamic(refusing)
    q = mqpy.Queue(refusing.qm, name, CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(MQMIError) as refused:
        q.close(CMQC.MQCO_DELETE_PURGE)
    assert refused.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    assert refusing.eng.lookup("QLOCAL", name) is not None
    got = _events(refusing.qm)
    assert len(got) == 1
    reason, p = got[0]
    assert (reason, p[CMQCFC.MQIACF_REASON_QUALIFIER], p[CMQC.MQCA_Q_NAME]) == \
        (CMQC.MQRC_NOT_AUTHORIZED, CMQCFC.MQRQ_CLOSE_NOT_AUTHORIZED, name)
    assert list(p) == [CMQC.MQCA_Q_MGR_NAME, CMQCFC.MQIACF_REASON_QUALIFIER,
                       CMQCFC.MQCACF_USER_IDENTIFIER, CMQC.MQIA_APPL_TYPE,
                       CMQCFC.MQCACF_APPL_NAME, CMQC.MQCA_Q_NAME]  # IBM's order
    q.close()  # the handle stayed open: an MQCO_NONE close ends it
    refusing.eng.delete("QLOCAL", name)


def test_the_handle_that_created_the_queue_deletes_it_without_an_authority_check(refusing):
    """Given the same refusing user, when the MQOPEN that created a permanent dynamic queue
    closes its handle with MQCO_DELETE, then the queue is deleted and no event is put (IBM
    checks only a handle that did not create it)."""
    refusing.eng.define("QMODEL", "EV.PERMDYN.MODEL", {"DEFTYPE": "PERMDYN"}, replace=True)
    od = mqpy.OD(ObjectName=b"EV.PERMDYN.MODEL", DynamicQName=b"EV.PD.*")
    q = mqpy.Queue(refusing.qm, od, CMQC.MQOO_INPUT_SHARED)
    name = od.ObjectName.rstrip(b" \x00").decode()
    q.close(CMQC.MQCO_DELETE)
    assert refusing.eng.lookup("QLOCAL", name) is None
    assert _events(refusing.qm) == []


def test_no_type_3_event_while_authorev_is_disabled(refusing):
    """Given AUTHOREV(DISABLED), when the refused MQCLOSE above happens, then it still fails
    2035 and no event is put."""
    name = _permanent_dynamic(refusing)
    refusing.eng.alter_qmgr({"AUTHOREV": "DISABLED"})
    q = mqpy.Queue(refusing.qm, name, CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(MQMIError) as refused:
        q.close(CMQC.MQCO_DELETE)
    assert refused.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    q.close()
    refusing.eng.delete("QLOCAL", name)
    assert _events(refusing.qm) == []


# ------------------------------------------------------------------ type 6: MQSUB


def _sub(qm, hobj: int, opts: int) -> None:
    sd = mqpy.SD(Options=opts)
    sd.set_vs("ObjectString", "ev/dest")
    sub = mqpy.Subscription(qm)
    sub.sub(sub_desc=sd, sub_queue=hobj)


def test_a_subscription_to_a_queue_the_user_may_not_put_to_is_type_6(refusing):
    """Given AUTHOREV(ENABLED) and a user who may open EV.SUBDEST for input but not put to
    it, when MQSUB creates a subscription with that handle as its destination, then it fails
    2035 and a Not Authorized event with MQRQ_SUB_DEST_NOT_AUTHORIZED gives the MQSUB's
    options, the topic string, and the destination queue and queue manager."""
    refusing.eng.define("QLOCAL", "EV.SUBDEST", {}, replace=True)
    q = mqpy.Queue(refusing.qm, "EV.SUBDEST", CMQC.MQOO_INPUT_SHARED)
    opts = CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE
    try:
        with pytest.raises(MQMIError) as refused:
            _sub(refusing.qm, q.get_handle(), opts)
    finally:
        q.close()
    assert refused.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    got = _events(refusing.qm)
    assert len(got) == 1
    reason, p = got[0]
    assert (reason, p[CMQCFC.MQIACF_REASON_QUALIFIER], p[CMQCFC.MQIACF_SUB_OPTIONS],
            p[CMQC.MQCA_TOPIC_STRING], p[CMQCFC.MQCACF_DESTINATION],
            p[CMQCFC.MQCACF_DESTINATION_Q_MGR]) == \
        (CMQC.MQRC_NOT_AUTHORIZED, CMQCFC.MQRQ_SUB_DEST_NOT_AUTHORIZED, opts, "ev/dest",
         "EV.SUBDEST", refusing.eng.name)


def test_a_managed_subscription_needs_no_destination_authority(refusing):
    """Given the same user, when MQSUB asks for a managed destination, then the subscription
    is made and no event is put (the queue manager opens a managed queue for it)."""
    opts = CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED
    sd = mqpy.SD(Options=opts)
    sd.set_vs("ObjectString", "ev/dest")
    sub = mqpy.Subscription(refusing.qm)
    sub.sub(sub_desc=sd)
    sub.close()
    assert _events(refusing.qm) == []


def test_with_the_security_policy_a_user_without_dlt_is_refused(qmev):
    """Given the queue manager's security policy (OAM) and AUTHOREV(ENABLED), and carol with
    connect and get but not dlt, when carol's MQCLOSE asks MQCO_DELETE of a permanent dynamic
    queue another handle made, then it fails 2035 with a type 3 event naming carol; the
    owner's own close then deletes it."""
    from mqpy.security.policy import install, set_authority

    eng = qmev.eng
    name = _permanent_dynamic(qmev)
    before = eng.authority
    policy = install(eng, eng.qmdir)
    try:
        policy.users.add("carol", "carol-pw", [])
        set_authority(eng, "qmgr", eng.name, ["+connect"], principal="carol")
        set_authority(eng, "queue", name, ["+get"], principal="carol")
        eng.alter_qmgr({"AUTHOREV": "ENABLED"})
        carol = mqpy.QueueManager(None)
        carol._conn = eng.connect("app", user="carol", password="carol-pw")
        q = mqpy.Queue(carol, name, CMQC.MQOO_INPUT_SHARED)
        with pytest.raises(MQMIError) as refused:
            q.close(CMQC.MQCO_DELETE)
        q.close()
        carol.disconnect()
        mqpy.Queue(qmev.qm, name, CMQC.MQOO_INPUT_SHARED).close(CMQC.MQCO_DELETE)
    finally:
        eng.authority = before
    assert refused.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    assert eng.lookup("QLOCAL", name) is None
    got = _events(qmev.qm)
    assert [(r, p[CMQCFC.MQIACF_REASON_QUALIFIER], p[CMQCFC.MQCACF_USER_IDENTIFIER])
            for r, p in got] == [(CMQC.MQRC_NOT_AUTHORIZED, CMQCFC.MQRQ_CLOSE_NOT_AUTHORIZED,
                                  "carol")]
