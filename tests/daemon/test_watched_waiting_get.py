"""A waiting MQGET's connection is watched: an application that breaks the protocol while
its get waits is dropped at once, as when it is killed."""

from __future__ import annotations

import threading
import time

import mqpy
from mqpy import CMQC, bindings
from mqpy.fap import mqiflows
from mqpy.fap.controlflows import Heartbeat
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import SegmentType
from tests.support.installation import QM

IN = CMQC.MQOO_INPUT_AS_Q_DEF
WAIT_30S = mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=30000)


def _holding(setup: mqpy.QueueManager, text: bytes) -> tuple[mqpy.QueueManager, mqpy.Queue]:
    """A new application that got ``text`` from KILLQ under syncpoint (put by ``setup``),
    and its handle on the empty WAITQ."""
    setup.put1("KILLQ", text)
    app = mqpy.connect(QM)
    q = mqpy.Queue(app, "KILLQ", IN)
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == text
    return app, mqpy.Queue(app, "WAITQ", IN)


def _waiting_get(w: mqpy.Queue) -> bytes:
    """The bytes of an MQGET on ``w`` that waits up to 30 s, as the application sends it."""
    return SegmentWriter(bindings.MAX_TRANSMISSION_SIZE).send(mqiflows.encode_request(
        SegmentType.MQGET, [mqpy.MD(), WAIT_30S, -1], hobj=w._hobj))


def _back(setup: mqpy.QueueManager, text: bytes) -> None:
    """``text`` is on KILLQ again well before any 30 s wait would have ended."""
    back = mqpy.Queue(setup, "KILLQ", IN)
    got = back.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000))
    assert got == text


def test_a_non_mqi_segment_during_a_wait_backs_the_unit_of_work_out_at_once(running):
    """Given an application that got a message under syncpoint and now waits up to 30 s in an
    MQGET on an empty queue, when a well-formed segment that is not an MQI verb (a channel
    heartbeat) arrives on its socket during the wait, then the queue manager ends that
    connection at once, as it does for bytes that are not a TSH: the message it got is back
    well before the wait would have ended."""
    setup = mqpy.connect(QM)
    app, w = _holding(setup, b"held by a broken waiter")
    outcome: list = []

    def wait() -> None:
        try:
            w.get(None, mqpy.MD(), WAIT_30S)
        except mqpy.MQMIError as e:
            outcome.append(e.reason)

    waiter = threading.Thread(target=wait)
    waiter.start()
    try:
        time.sleep(0.3)  # into the wait (the segment is not interleaved with its request)
        conn = app.connection()
        sock = conn._sock
        for segment in SegmentWriter(32768).segments(Heartbeat()):
            sock.sendall(segment)
        _back(setup, b"held by a broken waiter")
    finally:
        waiter.join(40)
        setup.disconnect()
    assert outcome and outcome[0] != CMQC.MQRC_NO_MSG_AVAILABLE


def test_a_non_mqi_segment_sent_with_the_waiting_get_ends_the_connection_too(running):
    """Given an application that got a message under syncpoint, when it writes an MQGET that
    waits up to 30 s and, in the same write, a channel heartbeat (the queue manager reads
    both before the get waits), then the connection is ended at once all the same: the
    message it got is back well before the wait would have ended."""
    setup = mqpy.connect(QM)
    app, w = _holding(setup, b"held by a pipelining waiter")
    sock = app.connection()._sock
    try:
        heartbeat = b"".join(SegmentWriter(32768).segments(Heartbeat()))
        sock.sendall(_waiting_get(w) + heartbeat)
        _back(setup, b"held by a pipelining waiter")
    finally:
        sock.close()
        setup.disconnect()


def test_an_application_gone_during_a_wait_has_nothing_more_served(running):
    """Given an application that got a message under syncpoint, when it writes an MQGET that
    waits, an MQCMIT behind it (not waiting for the get's reply) and then closes its end,
    then the queue manager serves nothing after noticing it has gone but the puts it sent
    (tests/robustness/test_async_put_at_the_end.py): the commit is not made, its unit of
    work is backed out and the message is back."""
    setup = mqpy.connect(QM)
    app, w = _holding(setup, b"not to be committed by the dead")
    sock = app.connection()._sock
    try:
        sock.sendall(_waiting_get(w))
        time.sleep(0.3)  # into the wait: the commit is read by the socket's watcher
        sock.sendall(SegmentWriter(32768).send(mqiflows.encode_request(SegmentType.MQCMIT, [])))
        sock.close()
        _back(setup, b"not to be committed by the dead")
    finally:
        setup.disconnect()
