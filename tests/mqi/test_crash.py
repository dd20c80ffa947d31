"""Crash recovery: the queue manager's process is killed (SIGKILL) and started again.

Each test stops the queue manager in this process, runs the work in a child process that
then kills itself with SIGKILL (no shutdown, no checkpoint, no atexit), and restarts the queue
manager here. What MQCMIT (or a persistent put outside syncpoint) acknowledged must be there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from ._support import drain, get

pytestmark = pytest.mark.system

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_PRELUDE = """
import os, signal
import mqpy
from mqpy import CMQC, inprocess
qm = mqpy.embedded("QM1", data_path={root!r}, create=False)
eng = inprocess.running("QM1", {root!r})
q = mqpy.Queue(qm, "Q1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
def P(): return mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
SP = CMQC.MQPMO_SYNCPOINT
def put(data, opts=CMQC.MQPMO_NO_SYNCPOINT): q.put(data, P(), mqpy.PMO(Options=opts))
def get(opts=CMQC.MQGMO_NO_SYNCPOINT): return q.get(None, mqpy.MD(), mqpy.GMO(Options=opts))
"""


def crash_after(qmgr, body: str) -> None:
    """Run ``body`` against the stopped queue manager in a child process, then SIGKILL it."""
    qmgr.stop()
    script = (_PRELUDE.format(root=qmgr.root) + textwrap.dedent(body)
              + "\nos.kill(os.getpid(), signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=_REPO, capture_output=True,
                          timeout=60)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()


@pytest.fixture
def q1(qmgr):
    qmgr.define("Q1")
    return qmgr


def test_committed_persistent_messages_survive_kill_9(q1):
    """Given persistent messages committed outside and inside units of work, some before a
    checkpoint and some after it (pages unflushed), when the process is killed, then after
    restart all are there in order (redo from the log). spec: aliases-channels-storage 4.35"""
    crash_after(q1, """
        put(b"a")
        put(b"b", SP); put(b"c", SP); qm.commit()
        eng.data.checkpoint()
        put(b"d")
        put(b"e", SP); put(b"f", SP); qm.commit()
    """)
    qm = q1.start()
    assert drain(qm, "Q1") == [b"a", b"b", b"c", b"d", b"e", b"f"]


def test_committed_gets_stay_got_after_kill_9(q1):
    """Given messages on the pageset, some got outside syncpoint and some in a committed unit of
    work, when the process is killed, then after restart only the others remain."""
    crash_after(q1, """
        for m in (b"1", b"2", b"3", b"4"): put(m)
        eng.data.checkpoint()
        get()
        get(CMQC.MQGMO_SYNCPOINT); qm.commit()
    """)
    qm = q1.start()
    assert drain(qm, "Q1") == [b"3", b"4"]


def test_in_flight_work_is_undone_after_kill_9(q1):
    """Given an uncommitted persistent put and an uncommitted get of a committed message at the
    moment of the kill, when restarted, then the put is absent and the got message is back.
    spec: aliases-channels-storage 4.36"""
    crash_after(q1, """
        put(b"committed")
        assert get(CMQC.MQGMO_SYNCPOINT) == b"committed"
        put(b"in flight", SP)
        put(b"x", SP)  # more log traffic in the same unit of work
        put(b"forced")  # forces the log past the in-flight records
    """)
    qm = q1.start()
    assert drain(qm, "Q1") == [b"committed", b"forced"]


def test_unit_of_work_spanning_a_checkpoint_survives_kill_9_whole(q1):
    """Given a unit of work whose first persistent put precedes a checkpoint and whose commit
    follows it, when the process is killed after MQCMIT returned, then after restart both
    messages are there: the checkpoint's redo point must cover the whole unit of work."""
    crash_after(q1, """
        put(b"first", SP)
        eng.data.checkpoint()
        put(b"second", SP)
        qm.commit()
    """)
    qm = q1.start()
    assert drain(qm, "Q1") == [b"first", b"second"]


def test_backout_count_survives_kill_9_once_later_work_is_forced(q1):
    """Given a message got under syncpoint and backed out, followed by a forced persistent put,
    when the process is killed, then after restart the message shows BackoutCount 1."""
    crash_after(q1, """
        put(b"poison")
        get(CMQC.MQGMO_SYNCPOINT); qm.backout()
        put(b"later")
    """)
    qm = q1.start()
    data, md = get(qm, "Q1")
    assert (data, md.BackoutCount) == (b"poison", 1)


def test_backout_count_survives_kill_9_right_after_mqback(q1):
    """Given a message got under syncpoint and backed out, when the process is killed right
    after MQBACK returned, then after restart the message shows BackoutCount 1 (IBM on
    distributed platforms: "The backout count always survives restarts of the queue
    manager")."""
    crash_after(q1, """
        put(b"poison")
        get(CMQC.MQGMO_SYNCPOINT); qm.backout()
    """)
    qm = q1.start()
    data, md = get(qm, "Q1")
    assert (data, md.BackoutCount) == (b"poison", 1)


def test_nonpersistent_messages_are_gone_after_kill_9(q1):
    """Given non-persistent and persistent messages, when the process is killed, then after
    restart only the persistent ones remain. spec: aliases-channels-storage 4.37"""
    crash_after(q1, """
        q.put(b"np", mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
        put(b"p")
    """)
    qm = q1.start()
    assert drain(qm, "Q1") == [b"p"]


def test_in_doubt_unit_of_work_survives_kill_9(q1):
    """Given a prepared unit of work with one persistent put preceded by a forced put that
    opened the unit of work on another queue, when the process is killed, then after restart
    the unit of work is in doubt and resolving it with commit makes the message available."""
    q1.define("Q2")
    crash_after(q1, """
        mqpy.Queue(qm, "Q2", CMQC.MQOO_OUTPUT).put(b"opener", P(), mqpy.PMO(Options=SP))
        put(b"prepared", SP)
        qm.connection().prepare(b"LUW-CRASH")
    """)
    qm = q1.start()
    assert q1.eng.indoubt() == [b"LUW-CRASH"]
    assert drain(qm, "Q1") == []
    q1.eng.resolve(b"LUW-CRASH", commit=True)
    assert drain(qm, "Q1") == [b"prepared"]
