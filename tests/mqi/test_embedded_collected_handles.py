"""An embedded application's Queue, Topic or Subscription collected while open: its MQCLOSE
is made by the connection's next call, never by the collector's finalizer. The collector runs
finalizers on whichever thread allocates: the queue manager's own checkpoint thread (holding
the checkpoint mutex, which an MQI call holding the engine lock may be waiting for), or a
thread inside an MQI call; an MQCLOSE made there waited for the engine lock for ever."""

from __future__ import annotations

import gc
import threading

import pytest

import mqpy
from mqpy import CMQC
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown
from tests.support.handles import open_input_count

QUEUE = "COLLECTED.Q"
PROMPTLY = 5.0  #: seconds: a collection that makes no MQI call returns well within this


@pytest.fixture
def qmgr(tmp_path):
    qmgr = EmbeddedQMgr("COLLQM", str(tmp_path))
    qmgr.eng.define("QLOCAL", QUEUE, {})
    yield from ended_at_teardown(qmgr)


def _left_in_a_cycle(qm: mqpy.QueueManager) -> None:
    """An open Queue and Topic that only the cycle collector can free."""
    topic = mqpy.Topic(qm, topic_string="collected/news")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    holder: dict[str, object] = {"queue": mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED),
                                 "topic": topic}
    holder["self"] = holder


def _collected_on_a_thread_while_the_engine_lock_is_held(qmgr: EmbeddedQMgr) -> None:
    """The collector runs on another thread while this one holds the engine lock (as the
    checkpoint thread's collection while an MQI call waits for its checkpoint)."""
    thread = threading.Thread(target=gc.collect, daemon=True)
    with qmgr.eng.lock:
        thread.start()
        thread.join(PROMPTLY)
        stuck = thread.is_alive()
    thread.join()
    assert not stuck, "the collector's MQCLOSE waited for the engine lock"


def test_a_collected_queue_is_closed_by_the_next_call_not_the_collector(qmgr):
    """Given an embedded connection's open Queue and Topic that only the
    cycle collector can free, when the collector frees them on a thread while another holds
    the engine lock, then the collection returns at once, and the connection's next call
    closes the queue's handle."""
    gc.collect()
    gc.disable()  # the collection of this test runs where the test says
    try:
        _left_in_a_cycle(qmgr.qm)
        _collected_on_a_thread_while_the_engine_lock_is_held(qmgr)
    finally:
        gc.enable()
    assert open_input_count(qmgr.qm, QUEUE) == 0


def test_a_queue_freed_by_its_last_reference_is_closed_at_once(qmgr):
    """Given an embedded connection's open Queue, when its last reference goes, then its
    handle is closed at once (pymqi's), before any other call."""
    q = mqpy.Queue(qmgr.qm, QUEUE, CMQC.MQOO_INPUT_SHARED)
    other = qmgr.connect()
    try:
        assert open_input_count(other, QUEUE) == 1
        del q
        assert open_input_count(other, QUEUE) == 0
    finally:
        other.disconnect()


def test_handles_noted_then_disconnected_are_closed_by_mqdisc(qmgr):
    """Given a collected Queue noted by the connection, when the application disconnects
    with no call between, then MQDISC closes it as it closes every handle left open."""
    gc.collect()
    gc.disable()
    try:
        _left_in_a_cycle(qmgr.qm)
        _collected_on_a_thread_while_the_engine_lock_is_held(qmgr)
    finally:
        gc.enable()
    qmgr.qm.disconnect()
    other = qmgr.connect()
    try:
        assert open_input_count(other, QUEUE) == 0
    finally:
        other.disconnect()
