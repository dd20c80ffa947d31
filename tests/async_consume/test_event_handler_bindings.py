"""The MQCB event handler of a bindings connection is told, whatever the state of its
asynchronous consumption (registered but never started, started and idle, suspended, a
consumer's callback running), of a controlled end (MQRC_CONNECTION_QUIESCING) and of the
queue manager's process killed (MQRC_CONNECTION_BROKEN, consumption then stopped). One
queue manager for the file: the last test kills it."""

from __future__ import annotations

import os
import signal
import threading

import pytest

import mqpy
from mqpy import CMQC
from tests.async_consume.conftest import Recorder
from tests.async_consume.event_states import (
    NOT_STARTED,
    QUEUES,
    STATES,
    STOP_CONN_UNTOLD,
    Watched,
    conn_ids,
    tell_in_every_state,
)
from tests.support.daemon_pair import mqsc_here
from tests.support.installation import QM, Installation

pytestmark = pytest.mark.system

#: the queue of the consumer that MQOP_START_WAIT dispatches for
WAITED = "AC.EHW"


@pytest.fixture(scope="module")
def install(tmp_path_factory):
    inst = Installation(str(tmp_path_factory.mktemp("cbevent-bindings")))
    inst.create(queues=(*QUEUES.values(), WAITED))
    try:
        inst.start()
        yield inst
    finally:
        inst.kill_all()


@pytest.fixture(scope="module")
def watched(install):
    conns: dict[str, Watched] = {}
    try:
        for state in STATES:
            qm = mqpy.QueueManager(None)
            qm.connect(QM, data_path=install.root)
            conns[state] = Watched(qm, state)
        yield conns
    finally:
        for w in conns.values():
            w.end()


@pytest.mark.xfail(strict=True, reason=STOP_CONN_UNTOLD)
def test_stop_conn_is_told_to_a_connection_between_calls(install):
    """Given a bindings connection with an event handler, its consumption not started,
    when STOP CONN ends it, then its handler is told MQRC_CONNECTION_BROKEN."""
    listing = "DISPLAY CONN(*) TYPE(CONN)\n"
    before = conn_ids(mqsc_here(install, QM, listing).stdout)
    qm = mqpy.QueueManager(None)
    qm.connect(QM, data_path=install.root)
    w = Watched(qm, NOT_STARTED)
    try:
        mine = conn_ids(mqsc_here(install, QM, listing).stdout) \
            & conn_ids(mqsc_here(install, QM, listing).stdout) - before
        assert len(mine) == 1
        assert "AMQ8458I" in mqsc_here(install, QM, f"STOP CONN({mine.pop()})\n").stdout
        assert w.wait_told(CMQC.MQRC_CONNECTION_BROKEN, timeout=2) \
            == [CMQC.MQRC_CONNECTION_BROKEN]
    finally:
        w.end()


class StartWait:
    """A connection whose MQCTL MQOP_START_WAIT runs on a thread of its own."""

    def __init__(self, install: Installation) -> None:
        self.qm = mqpy.QueueManager(None)
        self.qm.connect(QM, data_path=install.root)
        self.events = Recorder()
        self.qm.cb(operation=CMQC.MQOP_REGISTER,
                   cbd=mqpy.CBD(CallbackType=CMQC.MQCBT_EVENT_HANDLER,
                                CallbackFunction=self.events))
        q = mqpy.Queue(self.qm, WAITED, CMQC.MQOO_INPUT_SHARED)
        q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=lambda **kw: None),
             gmo=mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                          WaitInterval=CMQC.MQWI_UNLIMITED))
        self.answer: list[object] = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.qm.ctl(CMQC.MQOP_START_WAIT)
            self.answer.append(CMQC.MQRC_NONE)
        except mqpy.MQMIError as e:
            self.answer.append(e.reason)


@pytest.fixture(scope="module")
def start_wait(install):
    waiting = StartWait(install)
    yield waiting
    waiting.thread.join(5)


def test_a_controlled_end_is_told_in_every_state(install, watched, start_wait):
    """Given bindings connections with an event handler, their consumption registered but
    not started, started, suspended and in a callback, when endmqm -c quiesces the queue
    manager, then each handler is called with MQCBCT_EVENT_CALL and
    MQRC_CONNECTION_QUIESCING (the running one once its callback returned), and the
    consumption of each stays as it was."""
    ended = install.run("endmqm", "-c", QM)
    assert ended.returncode == 0, ended.stderr
    tell_in_every_state(watched, CMQC.MQRC_CONNECTION_QUIESCING)
    assert [w.consumption for w in watched.values()] \
        == ["STOPPED", "STARTED", "SUSPENDED", "STARTED"]
    assert all(w.reasons() == [CMQC.MQRC_CONNECTION_QUIESCING] for w in watched.values())


def test_a_killed_queue_manager_is_told_and_stops_consumption(install, watched, start_wait):
    """Given the same connections, and one whose MQOP_START_WAIT dispatches, when the queue
    manager's process is killed, then each handler is called with MQRC_CONNECTION_BROKEN,
    once, and the consumption of each is STOPPED (a suspended one's too); MQOP_START_WAIT
    returns, failed with MQRC_CONNECTION_BROKEN."""
    for w in watched.values():
        w.release.set()
    os.kill(install.pid(QM), signal.SIGKILL)
    for state, w in watched.items():
        reasons = w.wait_told(CMQC.MQRC_CONNECTION_BROKEN)
        assert reasons[-1:] == [CMQC.MQRC_CONNECTION_BROKEN], state
        assert reasons.count(CMQC.MQRC_CONNECTION_BROKEN) == 1, state
        assert w.wait_stopped() == "STOPPED", state
    start_wait.thread.join(10)
    assert start_wait.answer == [CMQC.MQRC_CONNECTION_BROKEN]
    assert [r for t, r, _m in start_wait.events.calls if t == CMQC.MQCBCT_EVENT_CALL] \
        == [CMQC.MQRC_CONNECTION_QUIESCING, CMQC.MQRC_CONNECTION_BROKEN]
