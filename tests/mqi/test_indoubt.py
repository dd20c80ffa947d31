"""Prepared (in-doubt) units of work: locked until resolved, kept across a restart."""

from __future__ import annotations

import pytest

import mqpy

from ._support import depth, drain, get, put

LUWID = b"LUWID001"



def _prepare(qmgr) -> None:
    """B gets OLD and puts NEW under syncpoint, then prepares under LUWID001 (like a
    receiving MCA at the end of a batch) and disconnects."""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"OLD", persistent=True)
    put(qmgr.qm, "Q1", b"OTHER", persistent=True)
    b = qmgr.connect()
    assert get(b, "Q1", syncpoint=True)[0] == b"OLD"
    put(b, "Q1", b"NEW", persistent=True, syncpoint=True)
    b.connection().prepare(LUWID)
    b.disconnect()


def test_prepared_work_stays_locked_and_invisible(qmgr):
    """Given a prepared unit of work that got OLD and put NEW, when others get from the queue
    (even after the preparing connection has gone), then they see neither OLD nor NEW, and
    the unit of work is listed in doubt."""
    _prepare(qmgr)
    assert qmgr.eng.indoubt() == [LUWID]
    assert drain(qmgr.qm, "Q1") == [b"OTHER"]


def test_in_doubt_work_survives_a_restart(qmgr):
    """Given a prepared unit of work, when the queue manager is stopped and started, then it is
    still in doubt and its messages are still invisible."""
    _prepare(qmgr)
    qm = qmgr.restart()
    assert qmgr.eng.indoubt() == [LUWID]
    assert drain(qm, "Q1") == [b"OTHER"]


def test_resolve_commit_after_restart_finishes_the_unit_of_work(qmgr):
    """Given a prepared unit of work carried over a restart, when it is resolved with commit,
    then NEW is available, OLD is gone for good, and nothing is in doubt (also after another
    restart)."""
    _prepare(qmgr)
    qmgr.restart()
    qmgr.eng.resolve(LUWID, commit=True)
    assert qmgr.eng.indoubt() == []
    qm = qmgr.restart()
    assert qmgr.eng.indoubt() == []
    assert drain(qm, "Q1") == [b"OTHER", b"NEW"]


def test_resolve_backout_returns_the_got_message_and_drops_the_put(qmgr):
    """Given a prepared unit of work, when it is resolved with backout, then OLD is back in its
    place with BackoutCount 1 and NEW never appears (also after a restart)."""
    _prepare(qmgr)
    qmgr.eng.resolve(LUWID, commit=False)
    assert qmgr.eng.indoubt() == []
    qm = qmgr.restart()
    data, md = get(qm, "Q1")
    assert (data, md.BackoutCount) == (b"OLD", 1)
    assert drain(qm, "Q1") == [b"OTHER"]


def test_resolve_of_an_unknown_luwid_fails(qmgr):
    """Given no unit of work in doubt, when RESOLVE is asked for an unknown LUWID, then it
    fails with an MQ error and changes nothing."""
    qmgr.define("Q1")
    with pytest.raises(mqpy.MQMIError):
        qmgr.eng.resolve(b"NOSUCHID", commit=True)


def test_queue_with_in_doubt_work_cannot_be_deleted(qmgr):
    """Given a queue touched by an in-doubt unit of work and no open handle, when DELETE
    QLOCAL PURGE, then it fails and the queue is still there.
    spec: aliases-channels-storage 4.44"""
    _prepare(qmgr)
    with pytest.raises(mqpy.MQMIError):
        qmgr.eng.delete("QLOCAL", "Q1", purge=True)
    assert qmgr.eng.lookup("QLOCAL", "Q1") is not None
    assert depth(qmgr.qm, "Q1") >= 1


def test_every_put_of_an_in_doubt_unit_of_work_survives_a_restart(qmgr):
    """Given a unit of work of two persistent puts, prepared, when the queue manager restarts
    and the unit of work is resolved with commit, then both messages are on the queue."""
    qmgr.define("Q1")
    put(qmgr.qm, "Q1", b"NEW1", persistent=True, syncpoint=True)
    put(qmgr.qm, "Q1", b"NEW2", persistent=True, syncpoint=True)
    qmgr.qm.connection().prepare(LUWID)
    qm = qmgr.restart()
    qmgr.eng.resolve(LUWID, commit=True)
    assert drain(qm, "Q1") == [b"NEW1", b"NEW2"]
