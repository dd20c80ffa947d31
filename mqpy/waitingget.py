"""An MQGET that waits (MQGMO_WAIT), made so that another thread can end its wait at once: the
connection's get of a program that must obey a stop while it waits for a message (a sending
channel's MCA on its transmission queue, the dead-letter queue handler's browse).

:meth:`WaitingGets.wake` ends the get waiting on the connection as one whose WaitInterval
passed (MQRC_NO_MSG_AVAILABLE), by the means the connection has:

- a bindings or client connection: its ``wake_waiting_get``, the CONN_STATE flow
  (``mqpy.connstate``) that the queue manager's side honours while the get waits there;
- a connection to the engine of this process (embedded): the get is made with a waiter of its
  own (the engine's get never blocks then), which a message's arrival, the queue manager's
  quiescing or end, and the wake set.

A wake that comes when no get waits does nothing, and so does one that reaches the queue
manager before the get's request (the queue manager drops it): the waker repeats it while the
get it means to end has not ended (``mqpy_chinit.chlstop``, ``mqpy.dlq.handler``). Nothing is
ever put on the queue to wake a get: a message there would be seen, and could fire triggers.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.mqi import Queue, QueueManager

__all__ = ["WaitingGets"]

_NO_MSG = CMQC.MQRC_NO_MSG_AVAILABLE


class WaitingGets:
    """The waiting gets of one connection (one at a time, from one thread at a time), and
    the wake that ends the one under way from any other thread."""

    def __init__(self, qm: QueueManager) -> None:
        conn = qm.connection()
        self._conn = conn
        #: the connection's own wake (bindings, client), or None
        self._wake_flow = getattr(conn, "wake_waiting_get", None)
        #: the engine's connection, in this process: its get takes a waiter
        self._engine = self._wake_flow is None and hasattr(conn, "drop_waiter")
        self._waiting = False  # a get is under way (set before, cleared after it)
        self._woken = False  # the engine's get under way was woken
        self._event: threading.Event | None = None  # the engine's get's waiter

    def get(self, queue: Queue, md: Any, gmo: Any, max_length: int | None = None) -> bytes:
        """MQGET on ``queue`` (open on this connection) as ``queue.get(max_length, md, gmo)``,
        its wait ended early by :meth:`wake` (MQRC_NO_MSG_AVAILABLE)."""
        if self._engine and gmo is not None and gmo.Options & CMQC.MQGMO_WAIT:
            return self._engine_get(queue.get_handle(), md, gmo, max_length)
        self._waiting = True
        try:
            return queue.get(max_length, md, gmo)
        finally:
            self._waiting = False

    def wake(self) -> None:
        """End the get under way, if one is (any thread but the getter's; never a signal
        handler's: the bindings wake takes a lock the getter may hold)."""
        if self._engine:
            event = self._event
            if event is not None:
                self._woken = True
                event.set()
        elif self._waiting and self._wake_flow is not None:
            self._wake_flow()

    def _engine_get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        """The engine's get with a waiter of its own: tried, waited for (a message's arrival,
        the queue manager quiescing or ending, or :meth:`wake` sets the waiter), tried again,
        until the WaitInterval has passed (as the engine's own waiting get does)."""
        conn = self._conn
        interval = gmo.WaitInterval
        deadline = None if interval == CMQC.MQWI_UNLIMITED else time.monotonic() + interval / 1000
        event = threading.Event()
        self._woken = False
        self._event = event
        try:
            while True:
                event.clear()
                try:
                    return conn.get(hobj, md, gmo, max_length, event.set)
                except MQMIError as e:
                    if e.reason != _NO_MSG:
                        raise
                left = None if deadline is None else deadline - time.monotonic()
                if self._woken or (left is not None and left <= 0):
                    raise MQMIError(CMQC.MQCC_FAILED, _NO_MSG)
                event.wait(left)
                conn.drop_waiter(hobj, event.set)
                if self._woken:
                    raise MQMIError(CMQC.MQCC_FAILED, _NO_MSG)
                if conn.engine.quiescing and gmo.Options & CMQC.MQGMO_FAIL_IF_QUIESCING:
                    raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_QUIESCING)
        finally:
            self._event = None
            conn.drop_waiter(hobj, event.set)
