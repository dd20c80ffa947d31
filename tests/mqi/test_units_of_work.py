"""How units of work end: commit, backout, normal and abnormal end, MQPUT1."""

from __future__ import annotations

import mqpy
from mqpy import CMQC

from ._support import depth, drain, get, put, raises_mq


def test_normal_disconnect_commits_the_open_unit_of_work(qmgr):
    """Given B has put one message and got another under syncpoint, when B disconnects
    normally, then the put is visible and the got message is gone.
    spec: aliases-channels-storage 4.46"""
    qmgr.define("Q1")
    b = qmgr.connect()
    put(b, "Q1", b"old", persistent=True)
    put(b, "Q1", b"new", persistent=True, syncpoint=True)
    assert get(b, "Q1", syncpoint=True)[0] == b"old"
    b.disconnect()
    assert drain(qmgr.qm, "Q1") == [b"new"]


def test_abnormal_end_backs_out_the_open_unit_of_work(qmgr):
    """Given B has put one message and got another under syncpoint, when B's connection ends
    abnormally, then the put is gone and the got message is back with BackoutCount 1.
    spec: aliases-channels-storage 4.46"""
    qmgr.define("Q1")
    b = qmgr.connect()
    put(b, "Q1", b"old", persistent=True)
    put(b, "Q1", b"new", persistent=True, syncpoint=True)
    get(b, "Q1", syncpoint=True)
    b.connection().abend()
    data, md = get(qmgr.qm, "Q1")
    assert (data, md.BackoutCount) == (b"old", 1)
    assert drain(qmgr.qm, "Q1") == []


def test_abnormal_end_closes_handles_and_releases_exclusive_input(qmgr):
    """Given B holds Q1 INPUT_EXCLUSIVE, when B ends abnormally, then another connection can
    open Q1 for exclusive input."""
    qmgr.define("Q1")
    b = qmgr.connect()
    mqpy.Queue(b, "Q1", CMQC.MQOO_INPUT_EXCLUSIVE)
    b.connection().abend()
    mqpy.Queue(qmgr.qm, "Q1", CMQC.MQOO_INPUT_EXCLUSIVE).close()


def test_context_manager_exit_with_an_exception_backs_out(qmgr):
    """Given a `with QueueManager` block that puts under syncpoint then raises, when the block
    exits, then the put is backed out and the connection is closed."""
    qmgr.define("Q1")
    b = qmgr.connect()
    try:
        with b:
            put(b, "Q1", b"doomed", syncpoint=True)
            raise RuntimeError("application failure")
    except RuntimeError:
        pass
    assert not b.is_connected
    assert drain(qmgr.qm, "Q1") == []


def test_commit_and_backout_without_work_are_harmless(qm):
    """Given no unit of work, when MQCMIT then MQBACK, then both complete without error."""
    qm.commit()
    qm.backout()
    put(qm, "Q1", b"x")
    assert depth(qm, "Q1") == 1


def test_put1_puts_one_message_and_leaves_no_handle_open(qm):
    """Given MQPUT1 to Q1, then the message is there, the MD carries its new MsgId, and
    OPPROCS is 0 afterwards."""
    md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
    qm.put1("Q1", b"single", md)
    assert md.MsgId != CMQC.MQMI_NONE
    data, got = get(qm, "Q1")
    assert (data, got.MsgId) == (b"single", md.MsgId)
    q = mqpy.Queue(qm, "Q1", CMQC.MQOO_INQUIRE)
    assert q.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT) == 0


def test_put1_under_syncpoint_joins_the_unit_of_work(qmgr):
    """Given MQPUT1 with MQPMO_SYNCPOINT, when the connection backs out, then the message is
    gone; repeated and committed, it is there."""
    qmgr.define("Q1")
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    qmgr.qm.put1("Q1", b"one", mqpy.MD(), pmo)
    qmgr.qm.backout()
    assert drain(qmgr.qm, "Q1") == []
    qmgr.qm.put1("Q1", b"two", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qmgr.qm.commit()
    assert drain(qmgr.connect(), "Q1") == [b"two"]


def test_put1_to_an_unknown_queue_fails_2085(qm):
    """Given no queue NOPE, when MQPUT1, then MQRC_UNKNOWN_OBJECT_NAME."""
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        qm.put1("NOPE", b"x")


def test_put_and_get_in_one_unit_of_work_then_commit_leaves_nothing(qm):
    """Given a put and a get of the same message in one unit of work, when committed, then the
    queue is empty."""
    put(qm, "Q1", b"p", syncpoint=True, persistent=True)
    get(qm, "Q1", syncpoint=True)
    qm.commit()
    assert depth(qm, "Q1") == 0 and drain(qm, "Q1") == []


def test_put_and_get_in_one_unit_of_work_then_backout_leaves_nothing(qm):
    """Given a put and a get of the same message in one unit of work, when backed out, then
    the put never happened: the queue is empty and nobody can get the message."""
    put(qm, "Q1", b"p", syncpoint=True, persistent=False)
    get(qm, "Q1", syncpoint=True)
    qm.backout()
    assert drain(qm, "Q1") == []
    assert depth(qm, "Q1") == 0
