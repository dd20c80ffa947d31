"""Queue objects seen through the MQI: deletion rules, model and dynamic queues, aliases."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._support import IN, OUT, drain, get, put, raises_mq

MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"


def _open_model(qm, dyn: str = "APP.REPLY.*", opts: int = IN | OUT,
                model: str = MODEL) -> tuple[mqpy.Queue, str]:
    od = mqpy.OD(ObjectName=model.encode(), DynamicQName=dyn.encode())
    q = mqpy.Queue(qm, od, opts)
    return q, od.ObjectName.rstrip(b" \x00").decode()


# ------------------------------------------------------------------ deletion

def test_delete_of_a_queue_with_an_open_handle_fails_2042(qmgr):
    """Given Q1 open for output, when DELETE QLOCAL(Q1), then MQRC_OBJECT_IN_USE and the queue
    still works; after close the delete succeeds. spec: aliases-channels-storage 4.44"""
    qmgr.define("Q1")
    q = mqpy.Queue(qmgr.qm, "Q1", OUT)
    with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
        qmgr.eng.delete("QLOCAL", "Q1")
    q.put(b"still here")
    q.close()
    qmgr.eng.delete("QLOCAL", "Q1", purge=True)
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        mqpy.Queue(qmgr.qm, "Q1", OUT)


def test_delete_of_a_queue_with_messages_fails_2055_unless_purge(qmgr):
    """Given Q1 holding a message and no open handle, when DELETE without PURGE, then
    MQRC_Q_NOT_EMPTY; with PURGE it is deleted."""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"x", persistent=True)
    with raises_mq(CMQC.MQRC_Q_NOT_EMPTY):
        qmgr.eng.delete("QLOCAL", "Q1")
    qmgr.eng.delete("QLOCAL", "Q1", purge=True)
    assert qmgr.eng.lookup("QLOCAL", "Q1") is None


def test_delete_of_a_queue_with_uncommitted_messages_fails_2055_even_with_purge(qmgr):
    """Given Q1 has an uncommitted put and no open handle, when DELETE QLOCAL(Q1) PURGE, then
    it fails with MQRC_Q_NOT_EMPTY (IBM: "also returned from a command to clear or delete ...
    a queue, if the queue contains uncommitted messages"). spec:
    aliases-channels-storage 4.44"""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"x", syncpoint=True)
    with raises_mq(CMQC.MQRC_Q_NOT_EMPTY):
        qmgr.eng.delete("QLOCAL", "Q1", purge=True)


def test_delete_of_a_queue_with_uncommitted_messages_is_refused(qmgr):
    """Given Q1 has an uncommitted put and no open handle, when DELETE QLOCAL(Q1) PURGE, then
    the delete is refused, the queue survives and the put can still be committed.
    spec: aliases-channels-storage 4.44"""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"x", syncpoint=True)
    with pytest.raises(mqpy.MQMIError):
        qmgr.eng.delete("QLOCAL", "Q1", purge=True)
    qmgr.qm.commit()
    assert drain(qmgr.qm, "Q1") == [b"x"]


# ------------------------------------------------------------------ model queues

def test_model_queue_open_creates_a_named_temporary_dynamic_queue(qmgr):
    """Given DynamicQName APP.REPLY.*, when the model queue is opened, then OD.ObjectName is a
    new local queue whose name starts APP.REPLY. and is unique per open, and messages can be
    put to it and got from it by that name."""
    q1, name1 = _open_model(qmgr.qm)
    q2, name2 = _open_model(qmgr.qm)
    assert name1.startswith("APP.REPLY.") and len(name1) > len("APP.REPLY.")
    assert "*" not in name1 and len(name1) <= 48
    assert name1 != name2
    obj = qmgr.eng.lookup("QLOCAL", name1)
    assert obj is not None and obj.attributes["DEFTYPE"] == "TEMPDYN"
    put(qmgr.qm, name1, b"reply")
    assert q1.get(None, mqpy.MD(), mqpy.GMO()) == b"reply"


def test_model_queue_open_with_a_full_dynamic_name_uses_it(qmgr):
    """Given DynamicQName MY.OWN.NAME (no asterisk), when the model is opened, then the
    dynamic queue has exactly that name; a second open with the same name fails 2100."""
    _q, name = _open_model(qmgr.qm, "MY.OWN.NAME")
    assert name == "MY.OWN.NAME"
    with raises_mq(CMQC.MQRC_OBJECT_ALREADY_EXISTS):
        _open_model(qmgr.connect(), "MY.OWN.NAME")


def test_temporary_dynamic_queue_is_deleted_at_close_with_its_messages(qmgr):
    """Given a temporary dynamic queue holding messages, when its creating handle closes, then
    the queue no longer exists."""
    q, name = _open_model(qmgr.qm)
    put(qmgr.qm, name, b"lost")
    q.close()
    assert qmgr.eng.lookup("QLOCAL", name) is None
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        mqpy.Queue(qmgr.qm, name, OUT)


def test_temporary_dynamic_queue_is_deleted_at_disconnect(qmgr):
    """Given a connection that created a temporary dynamic queue, when it disconnects without
    closing, then the queue is gone."""
    b = qmgr.connect()
    _q, name = _open_model(b)
    b.disconnect()
    assert qmgr.eng.lookup("QLOCAL", name) is None


def test_temporary_dynamic_queue_does_not_survive_a_restart(qmgr):
    """Given a temporary dynamic queue still open at a clean stop, when the queue manager is
    started again, then the queue does not exist."""
    _q, name = _open_model(qmgr.qm)
    qm = qmgr.restart()
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        mqpy.Queue(qm, name, OUT)


def test_temporary_dynamic_queue_is_deleted_even_with_uncommitted_work(qmgr):
    """Given a temporary dynamic queue with an uncommitted put on it, when its creating handle
    closes, then MQCLOSE succeeds and the queue is deleted (IBM: "This is true even if there
    are uncommitted MQGET, MQPUT, or MQPUT1 calls outstanding against the queue")."""
    q, name = _open_model(qmgr.qm)
    q.put(b"pending", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    q.close()
    assert qmgr.eng.lookup("QLOCAL", name) is None


def test_temporary_dynamic_queue_goes_when_its_creator_closes_despite_other_openers(qmgr):
    """Given a temporary dynamic queue also opened for output by another connection, when the
    creating handle closes, then the queue is deleted and the other handle's next put fails
    with MQRC_Q_DELETED (2052)."""
    q, name = _open_model(qmgr.qm)
    other = mqpy.Queue(qmgr.connect(), name, OUT)
    q.close()
    assert qmgr.eng.lookup("QLOCAL", name) is None
    with raises_mq(CMQC.MQRC_Q_DELETED):
        other.put(b"x")


def _permdyn(qmgr) -> tuple[mqpy.Queue, str]:
    qmgr.define("PERM.MODEL", {"DEFTYPE": "PERMDYN"}, objtype="QMODEL")
    return _open_model(qmgr.qm, "PERM.*", model="PERM.MODEL")


def test_permanent_dynamic_queue_survives_close_and_restart(qmgr):
    """Given a model with DEFTYPE(PERMDYN), when the dynamic queue gets a persistent message
    and is closed normally, then it stays, and after a restart it still holds the message."""
    q, name = _permdyn(qmgr)
    q.put(b"kept", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    q.close()
    assert qmgr.eng.lookup("QLOCAL", name).attributes["DEFTYPE"] == "PERMDYN"
    qm = qmgr.restart()
    assert get(qm, name)[0] == b"kept"


def test_close_delete_purge_by_the_creator_removes_a_permanent_dynamic_queue(qmgr):
    """Given a permanent dynamic queue holding a message, when its creating handle closes with
    MQCO_DELETE_PURGE, then the queue is gone."""
    q, name = _permdyn(qmgr)
    q.put(b"purged")
    q.close(CMQC.MQCO_DELETE_PURGE)
    assert qmgr.eng.lookup("QLOCAL", name) is None


def test_failed_close_delete_leaves_the_handle_open(qmgr):
    """Given a permanent dynamic queue holding a message, when its creator closes with
    MQCO_DELETE, then MQRC_Q_NOT_EMPTY and the handle is still open (pymqi resets its handle
    only when MQCLOSE succeeds), so MQCO_DELETE_PURGE on the same Queue then deletes it."""
    q, name = _permdyn(qmgr)
    q.put(b"x")
    with raises_mq(CMQC.MQRC_Q_NOT_EMPTY):
        q.close(CMQC.MQCO_DELETE)
    q.close(CMQC.MQCO_DELETE_PURGE)
    assert qmgr.eng.lookup("QLOCAL", name) is None


def test_close_delete_of_a_reopened_permanent_dynamic_queue_deletes_it(qmgr):
    """Given an empty permanent dynamic queue reopened by name after a restart, when closed
    with MQCO_DELETE, then it is deleted (IBM: MQCO_DELETE deletes a permanent dynamic queue
    with no messages and no uncommitted work, whichever handle closes it)."""
    q, name = _permdyn(qmgr)
    q.close()
    qm = qmgr.restart()
    mqpy.Queue(qm, name, IN).close(CMQC.MQCO_DELETE)
    assert qmgr.eng.lookup("QLOCAL", name) is None


# ------------------------------------------------------------------ aliases

def test_alias_queue_resolves_to_its_target(qmgr):
    """Given QA an alias of Q1, when a message is put to QA, then it is got from Q1, and the
    put's ResolvedQName names Q1."""
    qmgr.define("Q1")
    qmgr.define("QA", {"TARGET": "Q1"}, objtype="QALIAS")
    pmo = mqpy.PMO()
    mqpy.Queue(qmgr.qm, "QA", OUT).put(b"aliased", mqpy.MD(), pmo)
    assert pmo.ResolvedQName.rstrip(b" \x00") == b"Q1"
    assert get(qmgr.qm, "Q1")[0] == b"aliased"
    put(qmgr.qm, "Q1", b"direct")
    assert get(qmgr.qm, "QA")[0] == b"direct"


def test_alias_put_inhibited_does_not_inhibit_its_target(qmgr):
    """Given QA with PUT(DISABLED) aliasing Q1, when put through QA, then 2051; putting to Q1
    directly works."""
    qmgr.define("Q1")
    qmgr.define("QA", {"TARGET": "Q1", "PUT": "DISABLED"}, objtype="QALIAS")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        put(qmgr.qm, "QA", b"x")
    put(qmgr.qm, "Q1", b"x")


def test_alias_with_an_unknown_target_fails_2082(qmgr):
    """Given QA an alias of a queue that does not exist, when opened, then
    MQRC_UNKNOWN_ALIAS_BASE_Q."""
    qmgr.define("QA", {"TARGET": "NOT.THERE"}, objtype="QALIAS")
    with raises_mq(CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q):
        mqpy.Queue(qmgr.qm, "QA", OUT)
