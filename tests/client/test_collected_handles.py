"""A client's Queue collected while open: its MQCLOSE is made by the connection's next call,
never by the garbage collector's finalizer, which runs on whichever thread allocates at the
time (the thread of the event loop that serves the channel, or an application thread inside
a call on the same connection) and must not wait there for an answer."""

from __future__ import annotations

import gc
import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from tests.client.conftest import CHANNEL, QUEUE, wait_for

#: a collection that makes no call returns well within this (seconds)
PROMPTLY = 5.0


@pytest.fixture
def only_the_tests_objects_collected():
    """What the process held before the test (a whole suite's collected tests, what earlier
    tests left: a few hundred thousand objects) frozen out of the collector's reach while the
    test runs, so that its collections look at what it made. A full collection holds the
    interpreter for all of the process's threads: about 0.2 s of CPU, more than a second on a
    loaded machine, and with both ends of an HBINT(1) channel in this process (a 2 s receive
    timeout) one or two of them broke it (2009) before the behaviour under test was reached."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _left_in_a_cycle(qm: mqpy.QueueManager) -> None:
    """An open Queue of ``qm`` that only the cycle collector can free (as a test's
    ``pytest.raises`` traceback keeps its frame's locals)."""
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED)
    holder: dict[str, object] = {"queue": queue}
    holder["self"] = holder


def _in_thread(fn) -> float | None:  # noqa: ANN001 - a callable of no argument
    """Run ``fn`` on a thread; its seconds, or None when it has not returned promptly."""
    t0 = time.monotonic()
    thread = threading.Thread(target=fn, daemon=True)
    thread.start()
    thread.join(PROMPTLY)
    return None if thread.is_alive() else time.monotonic() - t0


def test_collected_on_the_serving_event_loop_does_not_block_it(
        env, only_the_tests_objects_collected):
    """Given a client's open Queue left in a reference cycle, when the collector runs on the
    thread of the event loop that serves the channel (it allocates too), then the collection
    returns at once, the connection still works (MQDISC answered) and the next call closes
    the handle (IPPROCS back to 0). HBINT(1): a collection that waited there for its MQCLOSE's
    answer would end in 2 s (the receive timeout), the channel broken."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", HBINT=1)
    qm = env.client(HeartbeatInterval=1)
    other = env.client(HeartbeatInterval=1)  # on the same channel instance
    _left_in_a_cycle(other)
    assert env.engine.queue_status(QUEUE)["IPPROCS"] == 1
    took = _in_thread(lambda: env.chinit.run_sync(gc.collect))
    assert took is not None, "the collector waited on the event loop that must answer it"
    other.inquire(CMQC.MQCA_Q_MGR_NAME)  # the next call of that connection closes it
    assert wait_for(lambda: env.engine.queue_status(QUEUE)["IPPROCS"] == 0)
    qm.disconnect()
    other.disconnect()


def test_collected_during_a_call_on_the_same_connection(env):
    """Given a client's open Queue left in a reference cycle, when the collector runs in the
    application's thread while that thread is inside a call on the same connection (its
    lock held), then the call completes, and the handle is closed by the call after it."""
    qm = env.client()
    gc.collect()
    _left_in_a_cycle(qm)
    assert env.engine.queue_status(QUEUE)["IPPROCS"] == 1
    conn = qm.connection()
    instance = conn._instance
    frame = instance.frame
    collected = []

    def frame_then_collect(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - frame's
        if not collected:
            collected.append(gc.collect())
        return frame(*args, **kwargs)

    instance.frame = frame_then_collect
    took = _in_thread(lambda: qm.inquire(CMQC.MQCA_Q_MGR_NAME))
    assert took is not None, "the collector's MQCLOSE waited for the lock of its own call"
    qm.inquire(CMQC.MQCA_Q_MGR_NAME)
    assert wait_for(lambda: env.engine.queue_status(QUEUE)["IPPROCS"] == 0)
    qm.disconnect()


def test_a_queue_let_go_by_its_last_reference_is_closed_at_once(env):
    """Given a client's open Queue, when the application lets go of its last reference
    (``del``, no collector involved), then it is closed at once, as pymqi's: an exclusive
    open by another connection succeeds without any further call of the first."""
    qm, other = env.client(), env.client()
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_EXCLUSIVE)
    assert env.engine.queue_status(QUEUE)["IPPROCS"] == 1
    del queue
    assert env.engine.queue_status(QUEUE)["IPPROCS"] == 0
    mqpy.Queue(other, QUEUE, CMQC.MQOO_INPUT_EXCLUSIVE).close()
    qm.disconnect()
    other.disconnect()
