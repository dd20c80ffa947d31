"""Asynchronous MQPUT and MQPUT1 counted by the queue manager and reported by MQSTAT, in every
way an application connects (conftest.MODES)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from .conftest import ASYNC, IN, OUT, drain

pytestmark = pytest.mark.timeout(180)


def _stat(qm: mqpy.QueueManager) -> mqpy.STS:
    return qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)


def _names(sts: mqpy.STS) -> tuple[str, str]:
    return (mqpy.to_string(sts.ObjectName), mqpy.to_string(sts.ResolvedObjectName))


def test_asynchronous_puts_complete_and_are_counted_until_the_next_mqstat(qm):
    """Given a queue, when an application puts five messages with MQPMO_ASYNC_RESPONSE,
    then each put completes with MQCC_OK and the messages are there in order; MQSTAT says
    five successes and no error, and the next MQSTAT counts from zero."""
    q = mqpy.Queue(qm, "AP.Q", OUT)
    for i in range(5):
        q.put(b"m%d" % i, mqpy.MD(), mqpy.PMO(Options=ASYNC))
    sts = _stat(qm)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)
    assert (sts.PutSuccessCount, sts.PutWarningCount, sts.PutFailureCount) == (5, 0, 0)
    assert drain(qm, "AP.Q") == [b"m%d" % i for i in range(5)]
    again = _stat(qm)
    assert (again.PutSuccessCount, again.PutFailureCount) == (0, 0)
    q.close()


def test_the_msgid_generated_for_an_asynchronous_put_is_the_message_s(qm):
    """Given an asynchronous put with MQPMO_NEW_MSG_ID (and another with MsgId MQMI_NONE),
    when the call returns, then the MQMD holds the MsgId the message has on the queue."""
    q = mqpy.Queue(qm, "AP.Q", OUT)
    mds = [mqpy.MD(), mqpy.MD()]
    q.put(b"a", mds[0], mqpy.PMO(Options=ASYNC | CMQC.MQPMO_NEW_MSG_ID))
    q.put(b"b", mds[1], mqpy.PMO(Options=ASYNC))
    assert all(md.MsgId != CMQC.MQMI_NONE for md in mds) and mds[0].MsgId != mds[1].MsgId
    got = mqpy.Queue(qm, "AP.Q", IN)
    for md in mds:
        out = mqpy.MD()
        got.get(None, out, mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        assert out.MsgId == md.MsgId
    got.close()
    q.close()


def test_failed_asynchronous_puts_are_reported_by_mqstat_with_the_first_error(qm):
    """Given a put-inhibited queue and a full one, when asynchronous puts to both fail and
    others succeed, then every call completed with MQCC_OK and MQSTAT gives the counts and
    the first error: MQRC_PUT_INHIBITED on the inhibited queue's name."""
    inhibited = mqpy.Queue(qm, "AP.INHIBITED", OUT)
    full = mqpy.Queue(qm, "AP.FULL", OUT)
    pmo = mqpy.PMO(Options=ASYNC)
    full.put(b"fills it", mqpy.MD(), pmo)
    inhibited.put(b"refused", mqpy.MD(), pmo)
    full.put(b"no room", mqpy.MD(), pmo)
    sts = _stat(qm)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_PUT_INHIBITED)
    assert (sts.PutSuccessCount, sts.PutWarningCount, sts.PutFailureCount) == (1, 0, 2)
    assert _names(sts) == ("AP.INHIBITED", "AP.INHIBITED")
    assert sts.ObjectType == CMQC.MQOT_LOCAL_Q
    full.put(b"still no room", mqpy.MD(), pmo)
    sts = _stat(qm)  # the first error since the last MQSTAT
    assert (sts.Reason, sts.PutFailureCount) == (CMQC.MQRC_Q_FULL, 1)
    assert _names(sts) == ("AP.FULL", "AP.FULL")
    assert drain(qm, "AP.FULL") == [b"fills it"]
    inhibited.close()
    full.close()


def test_an_asynchronous_put1_to_an_unknown_queue_manager_is_reported_by_mqstat(qm):
    """Given no queue manager NOWHERE nor a default transmission queue, when an application
    puts one message there with MQPUT1 and MQPMO_ASYNC_RESPONSE, then the call completes
    with MQCC_OK and MQSTAT reports MQRC_UNKNOWN_REMOTE_Q_MGR on that queue and queue
    manager; an asynchronous MQPUT1 that works is counted."""
    md = mqpy.MD()
    qm.put1(mqpy.OD(ObjectName=b"SOME.Q", ObjectQMgrName=b"NOWHERE"), b"lost", md,
            mqpy.PMO(Options=ASYNC))
    qm.put1("AP.Q", b"one", mqpy.MD(), mqpy.PMO(Options=ASYNC))
    sts = _stat(qm)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)
    assert (sts.PutSuccessCount, sts.PutFailureCount) == (1, 1)
    assert mqpy.to_string(sts.ObjectName) == "SOME.Q"
    assert mqpy.to_string(sts.ObjectQMgrName) == "NOWHERE"
    assert drain(qm, "AP.Q") == [b"one"]


def test_a_failed_asynchronous_put_in_syncpoint_backs_the_unit_of_work_out(qm, connect):
    """Given a unit of work with a message put, when an asynchronous put in syncpoint fails,
    then MQCMIT fails with MQRC_BACKED_OUT and nothing of the unit of work is committed; the
    next unit of work commits as usual."""
    q = mqpy.Queue(qm, "AP.Q", OUT)
    inhibited = mqpy.Queue(qm, "AP.INHIBITED", OUT)
    q.put(b"in the unit of work", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    inhibited.put(b"refused", mqpy.MD(), mqpy.PMO(Options=ASYNC | CMQC.MQPMO_SYNCPOINT))
    with pytest.raises(mqpy.MQMIError) as err:
        qm.commit()
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_BACKED_OUT)
    q.put(b"next", mqpy.MD(), mqpy.PMO(Options=ASYNC | CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    other = connect()
    try:
        assert drain(other, "AP.Q") == [b"next"]
    finally:
        other.disconnect()
    q.close()
    inhibited.close()


def test_asynchronous_puts_in_syncpoint_commit_like_synchronous_ones(qm, connect):
    """Given asynchronous puts in syncpoint, when the application commits, then they are
    there for another connection, in order; before the commit they were not."""
    q = mqpy.Queue(qm, "AP.Q", OUT)
    for i in range(3):
        q.put(b"u%d" % i, mqpy.MD(), mqpy.PMO(Options=ASYNC | CMQC.MQPMO_SYNCPOINT))
    other = connect()
    try:
        assert drain(other, "AP.Q") == []
        qm.commit()
        assert drain(other, "AP.Q") == [b"u0", b"u1", b"u2"]
    finally:
        other.disconnect()
    q.close()


def test_order_is_kept_when_asynchronous_puts_mix_with_synchronous_calls(qm):
    """Given puts alternating between asynchronous and synchronous, with an MQGET and an
    MQINQ among them, when the application reads the queue, then every message is there
    once, in the order put, and each synchronous call saw every asynchronous put before it."""
    q = mqpy.Queue(qm, "AP.Q", OUT | IN | CMQC.MQOO_INQUIRE)
    sync, asynchronous = mqpy.PMO(), mqpy.PMO(Options=ASYNC)
    q.put(b"1", mqpy.MD(), asynchronous)
    q.put(b"2", mqpy.MD(), asynchronous)
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2
    q.put(b"3", mqpy.MD(), sync)
    q.put(b"4", mqpy.MD(), asynchronous)
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)) == b"1"
    for i in range(5, 40):
        q.put(str(i).encode(), mqpy.MD(), asynchronous if i % 3 else sync)
    assert drain(qm, "AP.Q") == [str(i).encode() for i in range(2, 40)]
    assert _stat(qm).PutSuccessCount == 3 + sum(1 for i in range(5, 40) if i % 3)
    q.close()


def test_a_connection_that_ends_with_asynchronous_puts_loses_no_committed_message(connect):
    """Given a connection that puts asynchronously outside syncpoint and in syncpoint, when
    it disconnects at once (MQDISC commits its unit of work), then another connection finds
    every message: none was lost in flight."""
    qm = connect()
    drain(qm, "AP.OTHER")
    q = mqpy.Queue(qm, "AP.OTHER", OUT)
    for i in range(50):
        opts = ASYNC | (CMQC.MQPMO_SYNCPOINT if i % 2 else CMQC.MQPMO_NO_SYNCPOINT)
        q.put(b"%d" % i, mqpy.MD(), mqpy.PMO(Options=opts))
    qm.disconnect()
    other = connect()
    try:
        assert sorted(drain(other, "AP.OTHER"), key=int) == [b"%d" % i for i in range(50)]
    finally:
        other.disconnect()


def test_a_warning_is_counted_and_a_later_failure_replaces_it_as_the_first_error(qm):
    """Given an asynchronous put whose priority is above MAXPRTY (it completes with the
    warning MQRC_PRIORITY_EXCEEDS_MAXIMUM), when MQSTAT is called, then it counts a warning
    and reports it; when a failure follows another such warning, MQSTAT reports the failure."""
    q = mqpy.Queue(qm, "AP.Q", OUT)
    inhibited = mqpy.Queue(qm, "AP.INHIBITED", OUT)
    pmo = mqpy.PMO(Options=ASYNC)
    q.put(b"high", mqpy.MD(Priority=20), pmo)
    sts = _stat(qm)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_WARNING, CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM)
    assert (sts.PutSuccessCount, sts.PutWarningCount, sts.PutFailureCount) == (0, 1, 0)
    assert _names(sts) == ("AP.Q", "AP.Q")
    q.put(b"high again", mqpy.MD(Priority=20), pmo)
    inhibited.put(b"refused", mqpy.MD(), pmo)
    q.put(b"ok", mqpy.MD(), pmo)
    sts = _stat(qm)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_PUT_INHIBITED)
    assert (sts.PutSuccessCount, sts.PutWarningCount, sts.PutFailureCount) == (1, 1, 1)
    assert _names(sts)[0] == "AP.INHIBITED"
    assert drain(qm, "AP.Q") == [b"high", b"high again", b"ok"]
    q.close()
    inhibited.close()
