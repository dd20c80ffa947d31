"""MQCTL STOP, SUSPEND and MQDISC while the dispatcher waits for a message: they return as
soon as the consumer's current callback has returned (IBM), the dispatcher woken, not after
the rest of its wait. Behaviour with a generous bound, not a benchmark."""

from __future__ import annotations

import statistics
import time

import pytest

import mqpy
from mqpy import CMQC
from tests.async_consume.conftest import Recorder, put
from tests.client.conftest import env  # noqa: F401 - a fixture: a client connection

pytestmark = pytest.mark.system  # the bindings connections' queue manager: strmqm

#: seconds: far below the dispatcher's longest wait for a message (200 ms)
PROMPT = 0.1
RUNS = 5


def waiting_consumer(qm: mqpy.QueueManager, queue: str = "AC.Q1",
                     options: int = CMQC.MQOO_INPUT_SHARED) -> tuple[mqpy.Queue, Recorder]:
    """A consumer registered on an empty queue, waiting without limit."""
    q = mqpy.Queue(qm, queue, options)
    recorder = Recorder()
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=recorder),
         gmo=mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                      WaitInterval=CMQC.MQWI_UNLIMITED))
    return q, recorder


def timed(call) -> float:  # noqa: ANN001 - a callable of no argument
    t0 = time.monotonic()
    call()
    return time.monotonic() - t0


def stop_times(qm: mqpy.QueueManager, operation: int) -> list[float]:
    """How long MQCTL ``operation`` took, then the next call of the connection, with the
    dispatcher waiting in its get each time."""
    times = []
    for _ in range(RUNS):
        qm.ctl(CMQC.MQOP_START)
        time.sleep(0.05)  # the dispatcher is in its get by now
        took = timed(lambda: qm.ctl(operation))
        took += timed(lambda: qm.inquire(CMQC.MQCA_Q_MGR_NAME))  # the connection is free
        if operation == CMQC.MQOP_SUSPEND:
            qm.ctl(CMQC.MQOP_STOP)
        times.append(took)
    return times


def assert_prompt(times: list[float]) -> None:
    assert statistics.median(times) < PROMPT, [round(t * 1000, 1) for t in times]


def test_stop_and_suspend_return_promptly_while_the_dispatcher_waits(qm):
    """Given a started consumer waiting on an empty queue, when another thread issues
    MQOP_STOP (or MQOP_SUSPEND) and then any call, then both return well within the
    dispatcher's wait slice; messages put afterwards are still consumed once, in order."""
    _q, recorder = waiting_consumer(qm)
    assert_prompt(stop_times(qm, CMQC.MQOP_STOP))
    assert_prompt(stop_times(qm, CMQC.MQOP_SUSPEND))
    put(qm, "AC.Q1", [b"m%d" % i for i in range(20)])
    qm.ctl(CMQC.MQOP_START)
    assert recorder.wait_for(20) == [b"m%d" % i for i in range(20)]
    qm.ctl(CMQC.MQOP_STOP)


def test_disconnect_returns_promptly_with_consumers_started(qm):
    """Given a started consumer waiting on an empty queue, when the application disconnects
    (MQDISC stops consumption first), then MQDISC returns promptly."""
    waiting_consumer(qm)
    qm.ctl(CMQC.MQOP_START)
    time.sleep(0.05)
    assert timed(qm.disconnect) < PROMPT


def test_stop_returns_promptly_over_a_client_connection(env):  # noqa: F811
    """Given a client connection's consumer waiting on an empty queue, when another thread
    issues MQOP_STOP (or SUSPEND) and then any call, then both return promptly, and MQDISC
    with consumers started returns promptly too."""
    qm = env.client()
    _q, recorder = waiting_consumer(qm, "APP.Q")
    assert_prompt(stop_times(qm, CMQC.MQOP_STOP))
    assert_prompt(stop_times(qm, CMQC.MQOP_SUSPEND))
    put(qm, "APP.Q", [b"c%d" % i for i in range(5)])
    qm.ctl(CMQC.MQOP_START)
    assert recorder.wait_for(5) == [b"c%d" % i for i in range(5)]
    assert timed(qm.disconnect) < PROMPT
