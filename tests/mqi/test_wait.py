"""MQGMO_WAIT: waiters are woken by committed arrivals, and time out after WaitInterval."""

from __future__ import annotations

import threading
import time

import mqpy
from mqpy import CMQC

from ._support import IN, put, raises_mq


def _waiting_get(qm, interval_ms: int, result: dict) -> threading.Thread:
    def run():
        q = mqpy.Queue(qm, "Q1", IN)
        start = time.monotonic()
        try:
            result["data"] = q.get(None, mqpy.MD(), mqpy.GMO(
                Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=interval_ms))
        except mqpy.MQMIError as e:
            result["error"] = e
        result["elapsed"] = time.monotonic() - start

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_put_from_another_connection_wakes_the_waiter_at_once(qmgr):
    """Given a get waiting up to 10 s on an empty queue, when another connection puts after
    0.2 s, then the waiter returns the message long before the interval ends."""
    qmgr.define("Q1")
    result: dict = {}
    t = _waiting_get(qmgr.qm, 10_000, result)
    time.sleep(0.2)
    put(qmgr.connect(), "Q1", b"wake up")
    t.join(5)
    assert result.get("data") == b"wake up", result
    assert 0.15 <= result["elapsed"] < 2.0


def test_waiter_times_out_with_2033_after_the_wait_interval(qmgr):
    """Given an empty queue, when a get waits with WaitInterval 300 ms, then it fails with
    MQRC_NO_MSG_AVAILABLE after about 300 ms."""
    qmgr.define("Q1")
    q = mqpy.Queue(qmgr.qm, "Q1", IN)
    start = time.monotonic()
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=300))
    assert 0.28 <= time.monotonic() - start < 1.5


def test_uncommitted_put_does_not_satisfy_a_waiter_but_its_commit_does(qmgr):
    """Given a get waiting up to 5 s, when another connection puts under syncpoint at 0.1 s
    and commits at 0.6 s, then the waiter returns the message only after the commit."""
    qmgr.define("Q1")
    b = qmgr.connect()
    result: dict = {}
    t = _waiting_get(qmgr.qm, 5_000, result)
    time.sleep(0.1)
    put(b, "Q1", b"later", syncpoint=True)
    time.sleep(0.5)
    assert t.is_alive(), result
    b.commit()
    t.join(5)
    assert result.get("data") == b"later", result
    assert 0.55 <= result["elapsed"] < 2.5


def test_waiter_on_an_uncommitted_put_alone_times_out(qmgr):
    """Given another connection's uncommitted put, when a get waits 300 ms, then 2033."""
    qmgr.define("Q1")
    put(qmgr.connect(), "Q1", b"never committed", syncpoint=True)
    q = mqpy.Queue(qmgr.qm, "Q1", IN)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=300))


def test_backout_of_a_get_wakes_a_waiter(qmgr):
    """Given A holds the only message by a syncpoint get and B waits, when A backs out, then
    B receives the message."""
    qmgr.define("Q1")
    a = qmgr.connect()
    put(a, "Q1", b"returned")
    mqpy.Queue(a, "Q1", IN).get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    result: dict = {}
    t = _waiting_get(qmgr.qm, 5_000, result)
    time.sleep(0.2)
    a.backout()
    t.join(5)
    assert result.get("data") == b"returned", result
    assert result["elapsed"] < 2.0


def test_wait_interval_below_zero_other_than_unlimited_is_rejected(qmgr):
    """Given WaitInterval -5, when MQGET with MQGMO_WAIT, then MQRC_WAIT_INTERVAL_ERROR."""
    qmgr.define("Q1")
    q = mqpy.Queue(qmgr.qm, "Q1", IN)
    with raises_mq(CMQC.MQRC_WAIT_INTERVAL_ERROR):
        q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=-5))
