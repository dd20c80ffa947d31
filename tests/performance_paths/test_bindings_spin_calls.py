"""Both ends of a bindings connection spin briefly before they block (``mqpy.spinwait``): the
application for the reply of an MQPUT, an MQGET without MQGMO_WAIT or an MQCMIT, the queue
manager's busy thread for the next request. The calls are answered alike with spinning on
and off; an MQGET that may wait is not spun for; an idle connection burns no CPU."""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator

import pytest

import mqpy
from mqpy import CMQC, bindings, spinwait
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.errors import MQMIError
from tests.support.bindings_server import serving


@pytest.fixture
def engine(tmp_path) -> Iterator[tuple[QueueManagerEngine, str]]:
    """QM with local queues Q1..Q4, served in this process: (engine, data path)."""
    eng = QueueManagerEngine.create(os.path.join(tmp_path, "qmgrs", "QM"), "QM")
    for i in range(1, 5):
        eng.define("QLOCAL", f"Q{i}", {})
    try:
        with serving(eng):
            yield eng, str(tmp_path)
    finally:
        eng.close()


@pytest.fixture(autouse=True)
def calm(monkeypatch) -> None:
    """Waits spin here however busy the machine running the tests is."""
    monkeypatch.setattr(spinwait, "PRESSURE", spinwait.CpuPressure("/nonexistent/pressure"))


@pytest.fixture
def spins(monkeypatch) -> list[str]:
    """The names of the threads whose waits spun, one a spin."""
    names: list[str] = []
    real = spinwait.spin_recv

    def recording(*args, **kwargs):
        names.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(spinwait, "spin_recv", recording)
    return names


@contextlib.contextmanager
def _queue(root: str, name: str) -> Iterator[tuple[mqpy.QueueManager, mqpy.Queue]]:
    conn = bindings.connect("QM", root)
    qm = mqpy.QueueManager(None)
    qm._conn = conn
    try:
        q = mqpy.Queue(qm, name, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        yield qm, q
        q.close()
    finally:
        conn.disconnect()


def _calls(root: str, name: str, count: int) -> None:
    """Non-persistent puts then gets, persistent ones with commits: each message as put."""
    with _queue(root, name) as (qm, q):
        for i in range(count):
            q.put(b"%s-%d" % (name.encode(), i))
        for i in range(count):
            assert q.get(None, mqpy.MD(), mqpy.GMO()) == b"%s-%d" % (name.encode(), i)
        for i in range(count // 4):
            q.put(b"p%d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
                  mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            qm.commit()
            assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"p%d" % i
            qm.commit()
        with pytest.raises(MQMIError) as empty:
            q.get(None, mqpy.MD(), mqpy.GMO())
        assert empty.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE


@pytest.mark.parametrize("budget_us", [0, 50, 5000])
def test_given_a_spin_budget_when_an_application_calls_in_a_loop_then_every_call_is_answered(
        engine, spins, monkeypatch, budget_us):
    """Given spinning off, on, or on with a budget far longer than any reply, when an
    application puts, gets and commits in a loop, then every answer and message is the same,
    and the waits spun exactly when spinning is on, at both ends."""
    eng, root = engine
    monkeypatch.setattr(spinwait, "SPIN_US", budget_us)
    _calls(root, "Q1", 200)
    assert eng.queue_status("Q1")["CURDEPTH"] == 0
    if budget_us:
        me = threading.current_thread().name
        assert me in spins and set(spins) - {me}  # the application's and the queue manager's
    else:
        assert not spins


def test_given_spinning_on_when_several_applications_call_at_once_then_all_are_answered(
        engine, monkeypatch):
    """Given four applications calling at once (one queue manager thread spinning at a
    time), then each gets its own messages back."""
    eng, root = engine
    monkeypatch.setattr(spinwait, "SPIN_US", 50)
    faults: list[BaseException] = []

    def app(name: str) -> None:
        try:
            _calls(root, name, 150)
        except BaseException as exc:  # noqa: BLE001 - reported below
            faults.append(exc)

    threads = [threading.Thread(target=app, args=(f"Q{i}",)) for i in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads), "an application's calls were not all answered"
    assert not faults
    assert all(eng.queue_status(f"Q{i}")["CURDEPTH"] == 0 for i in range(1, 5))
    assert not spinwait.SPINNER.locked()


def test_given_an_mqget_that_may_wait_then_the_application_does_not_spin_for_its_reply(
        engine, spins, monkeypatch):
    """Given spinning on with a budget longer than the wait, when the application gets with
    MQGMO_WAIT (a message there, then none), then it blocks for the replies at once."""
    _, root = engine
    monkeypatch.setattr(spinwait, "SPIN_US", 5000)
    with _queue(root, "Q1") as (_, q):
        q.put(b"first")  # spins
        me = threading.current_thread().name
        before = spins.count(me)
        started = time.monotonic()
        assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT,
                                               WaitInterval=200)) == b"first"
        with pytest.raises(MQMIError) as waited:
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=200))
        assert waited.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        assert time.monotonic() - started >= 0.15
        assert spins.count(me) == before


def test_given_spinning_on_when_a_connection_goes_idle_then_it_burns_no_cpu(
        engine, monkeypatch):
    """Given an application that called in a loop (served by a spinning thread), when it
    then calls nothing for a second, then the queue manager (in this process) and the
    application use almost no CPU meanwhile."""
    _, root = engine
    monkeypatch.setattr(spinwait, "SPIN_US", 50)
    with _queue(root, "Q1") as (_, q):
        for _ in range(300):
            q.put(b"busy")
        time.sleep(0.2)  # the busy thread hands the connection back (HOT_WAIT_S)
        cpu = time.process_time()
        time.sleep(1.0)
        assert time.process_time() - cpu < 0.05
        q.put(b"after")
        assert q.get(None, mqpy.MD(), mqpy.GMO()) == b"busy"
