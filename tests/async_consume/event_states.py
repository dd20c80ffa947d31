"""Connections whose asynchronous consumption is in each state an event can find it in, each
with an event handler that records what it is told (the test_event_handler_* files)."""

from __future__ import annotations

import re
import threading
import time

import mqpy
from mqpy import CMQC
from tests.async_consume.conftest import Recorder

#: the states: registered but never started; started, its consumer waiting; suspended; a
#: consumer's callback running (it returns when the test lets it)
NOT_STARTED, IDLE, SUSPENDED, RUNNING = "not started", "idle", "suspended", "running"
STATES = (NOT_STARTED, IDLE, SUSPENDED, RUNNING)
#: the queue each state's consumer gets from
QUEUES = {NOT_STARTED: "AC.EH1", IDLE: "AC.EH2", SUSPENDED: "AC.EH3", RUNNING: "AC.EH4"}


class Watched:
    """One connection in ``state``: an event handler registered, a consumer on its queue."""

    def __init__(self, qm: mqpy.QueueManager, state: str) -> None:
        self.qm, self.state = qm, state
        self.events = Recorder()
        self.inside = threading.Event()
        self.release = threading.Event()
        #: what the event handler had been told when the running callback returned
        self.told_while_running: list[int] | None = None
        qm.cb(operation=CMQC.MQOP_REGISTER,
              cbd=mqpy.CBD(CallbackType=CMQC.MQCBT_EVENT_HANDLER, CallbackFunction=self.events))
        name = QUEUES[state]
        if state == RUNNING:
            out = mqpy.Queue(qm, name, CMQC.MQOO_OUTPUT)
            out.put(b"held", mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
            out.close()
        q = mqpy.Queue(qm, name, CMQC.MQOO_INPUT_SHARED)
        q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=self._consume),
             gmo=mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                          WaitInterval=CMQC.MQWI_UNLIMITED))
        if state != NOT_STARTED:
            qm.ctl(CMQC.MQOP_START)
        if state == SUSPENDED:
            qm.ctl(CMQC.MQOP_SUSPEND)
        if state == RUNNING:
            assert self.inside.wait(10), "the callback was not called"

    def _consume(self, *, queue_manager, queue, md, gmo, msg, cbc) -> None:
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED and not self.inside.is_set():
            self.inside.set()
            self.release.wait(30)
            self.told_while_running = self.reasons()

    def reasons(self) -> list[int]:
        """The reasons the event handler was called with (MQCBCT_EVENT_CALL), in order."""
        with self.events.lock:
            return [r for t, r, _m in self.events.calls if t == CMQC.MQCBCT_EVENT_CALL]

    def wait_told(self, reason: int, timeout: float = 10) -> list[int]:
        deadline = time.monotonic() + timeout
        while reason not in self.reasons() and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.reasons()

    @property
    def consumption(self) -> str:
        """The state of the connection's asynchronous consumption (asyncconsume's)."""
        return self.qm._consumers.state

    def wait_stopped(self, timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        while self.consumption != "STOPPED" and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.consumption

    def end(self) -> None:
        """Let a running callback return; stop and disconnect, whatever the connection's
        state (a broken one's MQDISC answers 2009)."""
        self.release.set()
        for call in (lambda: self.qm.ctl(CMQC.MQOP_STOP), self.qm.disconnect):
            try:
                call()
            except mqpy.MQMIError:
                pass


def tell_in_every_state(watched: dict[str, Watched], reason: int) -> None:
    """Then: every connection's event handler is told ``reason``, the running one only once
    its callback returned (never beside it)."""
    for state in (NOT_STARTED, IDLE, SUSPENDED):
        assert reason in watched[state].wait_told(reason), state
    running = watched[RUNNING]
    assert reason not in running.reasons(), "told while a consumer's callback ran"
    running.release.set()
    assert reason in running.wait_told(reason), RUNNING
    assert running.told_while_running is not None
    assert reason not in running.told_while_running


def conn_ids(display: str) -> set[str]:
    """The connection identifiers a DISPLAY CONN report lists."""
    return set(re.findall(r"\bCONN\(([0-9A-F]+)\)", display))


#: STOP CONN of a connection that makes no call: the queue manager marks it broken and says
#: so at its next call; an event handler between calls is not told (the daemon neither closes
#: the socket nor sends a notice: mqpy.engine.connection.Connection.stop has no hook for the
#: server serving it)
STOP_CONN_UNTOLD = ("STOP CONN is answered at the connection's next call only: the queue "
                    "manager tells no server of the stop, so nothing reaches a connection "
                    "between calls")
