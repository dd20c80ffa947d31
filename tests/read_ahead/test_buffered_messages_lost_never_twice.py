"""Messages read ahead and not consumed are non-persistent and lost when the handle is
closed, the connection ends or the application is killed (IBM's DEFREADA(YES) note); none is
ever delivered twice, and persistent messages are never among them."""

from __future__ import annotations

import os
import signal

import pytest

import mqpy
from mqpy import CMQC
from tests.read_ahead.conftest import NP, RA, P, depth, drain, fill
from tests.support.installation import client


def test_closing_the_handle_loses_the_buffered_messages(qm):
    """Given ten non-persistent messages streamed to a read-ahead handle that got one,
    when the handle is closed, then the queue is empty: the nine were lost, not put back."""
    fill(qm, "RA.CLOSE", [b"c%d" % i for i in range(10)])
    q = mqpy.Queue(qm, "RA.CLOSE", RA)
    assert q.get(None) == b"c0"
    q.close()
    assert drain(qm, "RA.CLOSE") == []


def test_close_quiesce_with_buffered_messages_is_2458_and_the_handle_stays_open(qm):
    """Given a read-ahead handle with buffered messages, when it is closed with
    MQCO_QUIESCE, then the close is MQCC_WARNING MQRC_READ_AHEAD_MSGS (2458) and the handle
    still gets the rest; once they are got, MQCO_QUIESCE closes it."""
    fill(qm, "RA.CLOSE", [b"q%d" % i for i in range(4)])
    q = mqpy.Queue(qm, "RA.CLOSE", RA)
    assert q.get(None) == b"q0"
    with pytest.raises(mqpy.MQMIError) as e:
        q.close(CMQC.MQCO_QUIESCE)
    assert (e.value.comp, e.value.reason) == (CMQC.MQCC_WARNING, CMQC.MQRC_READ_AHEAD_MSGS)
    assert [q.get(None) for _ in range(3)] == [b"q1", b"q2", b"q3"]
    q.close(CMQC.MQCO_QUIESCE)


def test_disconnecting_loses_the_buffered_messages(qm, running):
    """Given messages streamed to a read-ahead handle, when the application disconnects
    without getting them, then they are gone from the queue and its buffer alike."""
    fill(qm, "RA.CLOSE", [b"d%d" % i for i in range(5)])
    q = mqpy.Queue(qm, "RA.CLOSE", RA)
    assert q.get(None) == b"d0"
    qm.disconnect()
    other = mqpy.QueueManager(None)
    other.connect("QM1", data_path=running.root)
    try:
        assert drain(other, "RA.CLOSE") == []
    finally:
        other.disconnect()


_KILLED = """
import sys, time, mqpy
from mqpy import CMQC
qm = mqpy.QueueManager(None)
qm.connect("QM1")
q = mqpy.Queue(qm, "RA.KILL", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD)
for _ in range(3):
    print(q.get(None).decode(), flush=True)
time.sleep(60)
"""


def test_a_killed_application_loses_only_non_persistent_messages_and_none_twice(qm, running):
    """Given 20 non-persistent then 5 persistent messages, when an application reading
    ahead gets three and is killed (SIGKILL), then every message is got at most once (by it
    or afterwards), the persistent ones are all still there, and the non-persistent ones it
    had buffered are lost."""
    nonpersistent = [b"k%02d" % i for i in range(20)]
    persistent = [b"P%d" % i for i in range(5)]
    fill(qm, "RA.KILL", nonpersistent + persistent, [NP] * 20 + [P] * 5)
    proc = client(running, _KILLED)
    try:
        seen = [proc.stdout.readline().strip().encode() for _ in range(3)]
        assert seen == nonpersistent[:3], proc.stderr.read() if proc.poll() is not None else ""
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    rest = drain(qm, "RA.KILL")
    assert len(set(seen + rest)) == len(seen + rest)  # nothing twice
    assert rest[-5:] == persistent and set(rest) <= set(nonpersistent + persistent)
    assert len(rest) < 22  # the buffered non-persistent ones were lost
    assert depth(qm, "RA.KILL") == 0
