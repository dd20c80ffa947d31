"""Asynchronous consume: MQCB registers message consumers and an event handler on a
connection, MQCTL starts, suspends, resumes and stops them; a dispatcher gets each consumer's
messages and calls its function.

Theory of operation. A connection's :class:`Consumers` holds its registrations (one per object
handle, and the event handler) and the state of its asynchronous consumption, moved only by
:data:`TRANSITIONS` (IBM's MQRC_OPERATION_NOT_ALLOWED, 2534, for any other move). While it is
started, a dispatcher -- a thread of its own after MQOP_START, the caller's thread for
MQOP_START_WAIT -- gets messages for the consumers that are not suspended, each with the MQMD
and MQGMO it registered, over the connection's own MQGET (so over bindings a handle opened for
read ahead is served from its buffer: ``mqpy.readahead``), and calls the function with an
MQCBC saying why (MQCBCT_MSG_REMOVED ...). Other threads' MQI calls on the connection are
then MQRC_HCONN_ASYNC_ACTIVE (2500), except MQCTL STOP / SUSPEND / RESUME and MQDISC (which
stops first). STOP, SUSPEND and MQDISC wake a dispatcher waiting for a message
(:meth:`Consumers.wake`: the engine's waiter in this process, else the connection's
``wake_waiting_get``, the flow ``mqpy.connstate`` describes), so they return once the
current callback has returned, as IBM's, not at the end of the dispatcher's wait. The
callbacks themselves may call anything, MQCMIT of a consumer's syncpoint get included.
The event handler is told (MQCBCT_EVENT_CALL) of a queue manager quiescing
(MQRC_CONNECTION_QUIESCING, once: by a consumer's get, by a client's channel, or with none
getting by the queue manager's state, :meth:`Consumers._quiescing_untold`), of a broken
connection (MQRC_CONNECTION_BROKEN, once: by a get, or with none getting by the socket its
partner closed, :meth:`Consumers._ending_untold`; consumption then stopped, an
MQOP_START_WAIT returning with it) and, on a client connection that reconnects, of its
reconnection (MQRC_RECONNECTING, then MQRC_RECONNECTED or MQRC_RECONNECT_FAILED, consumption
then stopped, told at once on the reconnecting thread). It is told whatever the state of
consumption, as IBM's: started or suspended, by the dispatcher between gets and never
beside a consumer's callback (an event found meanwhile waits in ``pending`` until it
returns); stopped (never started, or stopped since), by a watcher thread of the connection
that looks every WAIT_SLICE_MS while an event handler is registered. A consumer whose
WaitInterval passes with no message is called with MQRC_NO_MSG_AVAILABLE.

The functions are called as IBM's ``ibmmq`` package calls them:
``fn(queue_manager=..., queue=..., md=..., gmo=..., msg=..., cbc=...)``. A function that
raises has its error written to stderr with its traceback, and consumption goes on with the
next message (the consumer stays registered), as with ``ibmmq``, whose proxy callback lets a
Python error go the same way while MQ's dispatcher goes on; a message it was given outside
syncpoint is gone, as after any call of it.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from typing import Any

import attrs

from mqpy import CMQC, config, qmstatus
from mqpy.errors import MQMIError
from mqpy.properties.calls import handle_getter, wants_handle
from mqpy.structs.tables import GMO, MD, OD

__all__ = ["CBC", "CBD", "CTLO", "STARTED", "STOPPED", "SUSPENDED", "TRANSITIONS",
           "Consumers", "consumers_of"]

_FAILED, _WARNING = CMQC.MQCC_FAILED, CMQC.MQCC_WARNING


def _fail(reason: int) -> MQMIError:
    return MQMIError(_FAILED, reason)


@attrs.define
class CBD:
    """MQCBD: what MQCB registers (the function is a Python callable)."""

    CallbackType: int = CMQC.MQCBT_MESSAGE_CONSUMER
    Options: int = CMQC.MQCBDO_NONE
    CallbackArea: Any = None
    CallbackFunction: Callable[..., Any] | None = None
    CallbackName: bytes = b""
    MaxMsgLength: int = CMQC.MQCBD_FULL_MSG_LENGTH
    StrucId: bytes = CMQC.MQCBD_STRUC_ID
    Version: int = CMQC.MQCBD_VERSION_1


@attrs.define
class CBC:
    """MQCBC: the context a callback is called with."""

    CallType: int = 0
    Hobj: int = CMQC.MQHO_NONE
    CallbackArea: Any = None
    ConnectionArea: Any = None
    CompCode: int = CMQC.MQCC_OK
    Reason: int = CMQC.MQRC_NONE
    State: int = CMQC.MQCS_NONE
    DataLength: int = 0
    BufferLength: int = 0
    Flags: int = CMQC.MQCBCF_NONE
    ReconnectDelay: int = 0
    StrucId: bytes = CMQC.MQCBC_STRUC_ID
    Version: int = CMQC.MQCBC_VERSION_2


@attrs.define
class CTLO:
    """MQCTLO: MQCTL's options."""

    Options: int = CMQC.MQCTLO_NONE
    ConnectionArea: Any = None
    StrucId: bytes = CMQC.MQCTLO_STRUC_ID
    Version: int = CMQC.MQCTLO_VERSION_1


# -- states of a connection's asynchronous consumption, and MQCTL's moves -----------------

STOPPED, STARTED, SUSPENDED = "STOPPED", "STARTED", "SUSPENDED"
_OP = CMQC
#: (state, MQCTL operation) -> the state it moves to; any other pair is 2534.
TRANSITIONS: dict[tuple[str, int], str] = {
    (STOPPED, _OP.MQOP_START): STARTED,
    (STOPPED, _OP.MQOP_START_WAIT): STARTED,
    (STOPPED, _OP.MQOP_STOP): STOPPED,
    (STARTED, _OP.MQOP_START): STARTED,  # from a callback: cancels an MQOP_STOP issued
    (STARTED, _OP.MQOP_STOP): STOPPED,
    (STARTED, _OP.MQOP_SUSPEND): SUSPENDED,
    (STARTED, _OP.MQOP_RESUME): STARTED,
    (SUSPENDED, _OP.MQOP_SUSPEND): SUSPENDED,
    (SUSPENDED, _OP.MQOP_RESUME): STARTED,
    (SUSPENDED, _OP.MQOP_STOP): STOPPED,
}
_CTL_OPERATIONS = frozenset(op for _state, op in TRANSITIONS)
_CB_OPERATIONS = (CMQC.MQOP_REGISTER, CMQC.MQOP_DEREGISTER, CMQC.MQOP_SUSPEND,
                  CMQC.MQOP_RESUME)
_CBDO_KNOWN = (CMQC.MQCBDO_START_CALL | CMQC.MQCBDO_STOP_CALL | CMQC.MQCBDO_REGISTER_CALL
               | CMQC.MQCBDO_DEREGISTER_CALL | CMQC.MQCBDO_FAIL_IF_QUIESCING
               | CMQC.MQCBDO_EVENT_CALL | CMQC.MQCBDO_MC_EVENT_CALL)
_CTLO_KNOWN = CMQC.MQCTLO_THREAD_AFFINITY | CMQC.MQCTLO_FAIL_IF_QUIESCING
#: the queue every queue manager has, opened to ask whether it quiesces
_PROBE = "SYSTEM.DEFAULT.LOCAL.QUEUE"
#: The longest one get of the dispatcher waits (MQCTL STOP / SUSPEND and MQDISC from another
#: thread wake it before: :meth:`Consumers.wake`).
WAIT_SLICE_MS = 200
#: Seconds between wakes of a dispatcher that STOP or MQDISC waits for.
REWAKE_S = 0.05
#: Messages one consumer is given in a row before the dispatcher looks at the next.
BURST = 64
#: The get options whose absence lets a consumer see a quiescing queue manager only through
#: the event handler.
_GMO_WAIT = CMQC.MQGMO_WAIT
#: Reasons after which no get of the connection can succeed: consumption stops.
_ENDING = frozenset({CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_RECONNECT_FAILED,
                     CMQC.MQRC_HCONN_ERROR,
                     CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_Q_MGR_NOT_AVAILABLE})


@attrs.define(eq=False)
class Consumer:
    """One registration: a message consumer of ``hobj``, or the event handler (hobj 0)."""

    cbd: CBD
    hobj: int
    queue: Any  # the mqpy.Queue the function is told of (None for the event handler)
    md: MD
    gmo: GMO
    suspended: bool = False
    started: bool = False  # its MQCBCT_START_CALL was made
    idle_since: float = 0.0  # time.monotonic() of its last message, or of the start
    #: the dispatcher's MQGMOs for it, made from ``gmo``: (their key, at once, waiting)
    gmos: tuple[Any, ...] = (None, None, None)

    @property
    def selects(self) -> bool:
        """Does it get by MsgId or CorrelId?"""
        return bool(bytes(self.md.MsgId).strip(b"\0") or bytes(self.md.CorrelId).strip(b"\0"))


class Consumers:
    """One connection's asynchronous consumption (the ``mqpy.QueueManager`` ``qm``)."""

    def __init__(self, qm: Any) -> None:
        self.qm = qm
        self.state = STOPPED
        self.consumers: dict[int, Consumer] = {}
        self.event_handler: Consumer | None = None
        self.connection_area: Any = None
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.thread: threading.Thread | None = None
        self.dispatcher: int | None = None  # the dispatching thread's ident
        self.stop_asked = False
        self.quiescing_told = False
        #: the event handler was told the connection can make no more calls (2009 ...)
        self.ending_told = False
        #: events for the event handler that the thread which calls the functions delivers
        #: (the dispatcher, else the watcher), so that it is never called beside a consumer
        self.pending: list[tuple[int, int]] = []
        #: the thread that tells the event handler while consumption is stopped
        self.watcher: threading.Thread | None = None
        self.wait_reason = CMQC.MQRC_NONE  # why an MQOP_START_WAIT returns
        #: the dispatcher is in a get that waits on the connection (``wake_waiting_get``)
        self.waiting = False
        #: what wakes the dispatcher's wait on the engine's connection in this process
        self.woken: threading.Event | None = None

    # -- MQCB --------------------------------------------------------------------------

    def cb(self, operation: int, cbd: CBD | None, hobj: int, queue: Any,
           md: MD | None, gmo: GMO | None) -> None:
        """MQCB on object handle ``hobj`` (MQHO_NONE for the event handler)."""
        self.check_caller()
        base = operation & ~(CMQC.MQOP_SUSPEND | CMQC.MQOP_RESUME)
        if operation not in _CB_OPERATIONS and not (
                base == CMQC.MQOP_REGISTER and operation != base
                and operation & (CMQC.MQOP_SUSPEND | CMQC.MQOP_RESUME)
                != CMQC.MQOP_SUSPEND | CMQC.MQOP_RESUME):
            raise _fail(CMQC.MQRC_OPERATION_ERROR)
        with self.lock:
            if base == CMQC.MQOP_REGISTER:
                self._register(cbd, hobj, queue, md, gmo,
                               suspended=bool(operation & CMQC.MQOP_SUSPEND))
            else:
                consumer = self._registered(hobj, cbd)
                if operation == CMQC.MQOP_DEREGISTER:
                    self._deregister(consumer)
                else:
                    consumer.suspended = operation == CMQC.MQOP_SUSPEND
            self.changed.notify_all()

    def _registered(self, hobj: int, cbd: CBD | None) -> Consumer:
        if hobj == CMQC.MQHO_NONE or (cbd is not None
                                      and cbd.CallbackType == CMQC.MQCBT_EVENT_HANDLER):
            consumer = self.event_handler
        else:
            consumer = self.consumers.get(hobj)
        if consumer is None:
            raise _fail(CMQC.MQRC_CALLBACK_NOT_REGISTERED)
        return consumer

    def _register(self, cbd: CBD | None, hobj: int, queue: Any, md: MD | None,
                  gmo: GMO | None, suspended: bool) -> None:
        if cbd is None or not isinstance(cbd, CBD):
            raise _fail(CMQC.MQRC_CBD_ERROR)
        if cbd.Options & ~_CBDO_KNOWN:
            raise _fail(CMQC.MQRC_CBD_OPTIONS_ERROR)
        if not callable(cbd.CallbackFunction):
            raise _fail(CMQC.MQRC_CALLBACK_ROUTINE_ERROR)
        # MQCB's MQCBD, MQMD and MQGMO are input: the registration keeps what they held at
        # the call, and the program may change or reuse its own afterwards (as IBM's
        # ibmmq example reuses one MQCBD for a queue's consumer and the event handler)
        cbd = attrs.evolve(cbd)
        md = md.copy() if md is not None else None
        gmo = gmo.copy() if gmo is not None else None
        if cbd.CallbackType == CMQC.MQCBT_EVENT_HANDLER:
            if hobj != CMQC.MQHO_NONE:
                raise _fail(CMQC.MQRC_HOBJ_ERROR)
            consumer = Consumer(cbd, CMQC.MQHO_NONE, None, MD(), GMO(), suspended)
            self.event_handler = consumer
            self._connection_events(self._connection_event)
            self._watch()
        elif cbd.CallbackType == CMQC.MQCBT_MESSAGE_CONSUMER:
            if hobj == CMQC.MQHO_NONE or queue is None:
                raise _fail(CMQC.MQRC_HOBJ_ERROR)
            if queue._open_opts is not None and not queue._open_opts & (
                    CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED
                    | CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_BROWSE):
                raise _fail(CMQC.MQRC_NOT_OPEN_FOR_INPUT)
            replaced = self.consumers.get(hobj)
            consumer = Consumer(cbd, hobj, queue, md if md is not None else MD(),
                                gmo if gmo is not None else GMO(), suspended,
                                started=replaced.started if replaced else False,
                                idle_since=time.monotonic())
            self.consumers[hobj] = consumer
            if replaced is not None:
                return  # a replacement: no register call (IBM)
        else:
            raise _fail(CMQC.MQRC_CALLBACK_TYPE_ERROR)
        if cbd.Options & CMQC.MQCBDO_REGISTER_CALL:
            self._call(consumer, CMQC.MQCBCT_REGISTER_CALL)

    def _connection_events(self, sink: Callable[[int, int], None] | None) -> None:
        """Have a client connection that reconnects tell ``sink`` ``(reason, comp)`` of
        its reconnection events (MQRC_RECONNECTING, MQRC_RECONNECTED, MQRC_RECONNECT_FAILED:
        ``mqpy.client``), which the event handler is called with."""
        conn = self.qm.__dict__.get("_conn")
        if conn is not None and hasattr(conn, "event_handler"):
            conn.event_handler = sink

    def _connection_event(self, reason: int, comp: int) -> None:
        """An event the connection itself saw (``_connection_events``): a quiescing queue
        manager is told, once, by the thread that calls the functions (after the callback
        running returns); a reconnection's events at once, on the reconnecting thread."""
        if reason != CMQC.MQRC_CONNECTION_QUIESCING:
            self._event(reason, comp)
            return
        with self.lock:
            if not self.quiescing_told:
                self.quiescing_told = True
                self.pending.append((reason, comp))
                self.changed.notify_all()

    def _deregister(self, consumer: Consumer) -> None:
        if consumer is self.event_handler:
            self.event_handler = None
            self._connection_events(None)
        else:
            self.consumers.pop(consumer.hobj, None)
        if consumer.cbd.Options & CMQC.MQCBDO_DEREGISTER_CALL:
            self._call(consumer, CMQC.MQCBCT_DEREGISTER_CALL)

    def closed(self, hobj: int) -> None:
        """The handle was closed: its consumer is deregistered (IBM)."""
        with self.lock:
            consumer = self.consumers.get(hobj)
            if consumer is not None:
                self._deregister(consumer)
                self.changed.notify_all()

    # -- MQCTL -------------------------------------------------------------------------

    def ctl(self, operation: int, ctlo: CTLO | None) -> None:
        """MQCTL."""
        if operation not in _CTL_OPERATIONS:
            raise _fail(CMQC.MQRC_OPERATION_ERROR)
        if ctlo is not None and not isinstance(ctlo, CTLO):
            raise _fail(CMQC.MQRC_CTLO_ERROR)
        if ctlo is not None and ctlo.Options & ~_CTLO_KNOWN:
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        mine = threading.get_ident() == self.dispatcher
        if ctlo is not None and ctlo.Options & CMQC.MQCTLO_FAIL_IF_QUIESCING and not mine \
                and operation in (CMQC.MQOP_START, CMQC.MQOP_START_WAIT) \
                and self.state == STOPPED:
            self._fail_if_quiescing()
        wake = False
        with self.lock:
            moved = TRANSITIONS.get((self.state, operation))
            if moved is None or (operation == CMQC.MQOP_START_WAIT and self.state != STOPPED):
                raise _fail(CMQC.MQRC_OPERATION_NOT_ALLOWED)
            if operation in (CMQC.MQOP_START, CMQC.MQOP_START_WAIT):
                if self.state == STARTED:
                    self.stop_asked = False  # a callback's START cancels its STOP
                    return
                if not mine:
                    self.qm._backend()  # (not connected: MQRC_HCONN_ERROR)
                self.connection_area = ctlo.ConnectionArea if ctlo is not None else None
                self.state = STARTED
                self.stop_asked = False
                if operation == CMQC.MQOP_START:
                    self.thread = threading.Thread(target=self._run_thread,
                                                   name="mqpy-async-consume", daemon=True)
                    self.thread.start()
                    self.dispatcher = self.thread.ident
                    return
            elif operation == CMQC.MQOP_STOP:
                if self.state != STOPPED:
                    self.stop_asked = True
                    self.changed.notify_all()
            else:
                self.state = moved
                self.changed.notify_all()
                wake = not mine and moved == SUSPENDED
        if operation not in (CMQC.MQOP_START_WAIT, CMQC.MQOP_STOP):
            if wake:  # the connection free at once, not after the get's wait (the lock let go)
                self.wake()
            return
        if operation == CMQC.MQOP_START_WAIT:
            self.dispatcher = threading.get_ident()
            self._dispatch()
            if self.wait_reason:
                reason, self.wait_reason = self.wait_reason, CMQC.MQRC_NONE
                raise _fail(reason)
            return
        if operation == CMQC.MQOP_STOP and not mine:
            self.wake()
            self._join()

    def _fail_if_quiescing(self) -> None:
        """MQCTLO_FAIL_IF_QUIESCING: MQRC_Q_MGR_QUIESCING (or the connection's
        MQRC_CONNECTION_QUIESCING) when the queue manager quiesces, asked of it as an MQOPEN
        with MQOO_FAIL_IF_QUIESCING, which says so before it looks for the object; any other
        answer (the queue opened and closed, or refused) means that it does not quiesce."""
        conn = self.qm._backend()
        try:
            hobj = conn.open(OD(ObjectName=_PROBE), CMQC.MQOO_INQUIRE
                             | CMQC.MQOO_FAIL_IF_QUIESCING)
        except MQMIError as e:
            if e.reason in (CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_CONNECTION_QUIESCING):
                raise
            return
        conn.close(hobj)

    def _join(self) -> None:
        """Wait for the dispatcher's thread to end, waking its get again every REWAKE_S
        (a wake written before the get's request reached the queue manager is dropped
        there; one made while the dispatcher is in a callback writes nothing)."""
        thread = self.thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(REWAKE_S)
            while thread.is_alive():
                self.wake()
                thread.join(REWAKE_S)

    def stop_for_disconnect(self) -> None:
        """MQDISC: MQOP_STOP first (IBM)."""
        with self.lock:
            if self.state == STOPPED:
                return
            self.stop_asked = True
            self.changed.notify_all()
        if threading.get_ident() != self.dispatcher:
            self.wake()
            self._join()

    def wake(self) -> None:
        """Wake the dispatcher's get waiting for a message (another thread's STOP, SUSPEND
        or MQDISC, the new state already set): it ends as a wait whose interval passed."""
        woken = self.woken
        if woken is not None:
            woken.set()
        if self.waiting:
            wake = getattr(self.qm._conn, "wake_waiting_get", None)
            if wake is not None:
                wake()

    def check_caller(self) -> None:
        """Another thread's MQI call while consumption is started: MQRC_HCONN_ASYNC_ACTIVE."""
        if self.state == STARTED and threading.get_ident() != self.dispatcher \
                and self.dispatcher is not None:
            raise _fail(CMQC.MQRC_HCONN_ASYNC_ACTIVE)

    # -- the dispatcher ----------------------------------------------------------------

    def _run_thread(self) -> None:
        self.dispatcher = threading.get_ident()
        self._dispatch()

    def _dispatch(self) -> None:
        """Call the consumers until MQOP_STOP (or, for MQOP_START_WAIT, until none is
        active); then their stop calls."""
        try:
            for consumer in list(self.consumers.values()):
                if not consumer.started:
                    consumer.started = True
                    consumer.idle_since = time.monotonic()
                    if consumer.cbd.Options & CMQC.MQCBDO_START_CALL:
                        self._call(consumer, CMQC.MQCBCT_START_CALL)
            while self._turn():
                pass
        finally:
            with self.lock:
                for consumer in list(self.consumers.values()):
                    if consumer.started:
                        consumer.started = False
                        if consumer.cbd.Options & CMQC.MQCBDO_STOP_CALL:
                            self._call(consumer, CMQC.MQCBCT_STOP_CALL)
                self.state = STOPPED
                self.stop_asked = False
                self.dispatcher = None
                self.thread = None
                self.changed.notify_all()
                self._watch()

    def _turn(self) -> bool:
        """One pass over the active consumers; False once consumption ends."""
        if self.pending and not self._tell_pending():
            return False
        with self.lock:
            if self.stop_asked:
                return False
            active = [c for c in self.consumers.values() if not c.suspended] \
                if self.state != SUSPENDED else []
            if not active:
                if self.state != SUSPENDED and self.thread is None:
                    # MQOP_START_WAIT: returns (an implicit STOP)
                    self.wait_reason = CMQC.MQRC_NO_CALLBACKS_ACTIVE
                    return False
                tell = self._untold()
                if tell is None and not self.pending:
                    self.changed.wait(WAIT_SLICE_MS / 1000)
        if not active:
            # (the lock let go: the handler may call MQCTL from another thread)
            return tell is None or self._tell(*tell)
        slice_ms = max(1, WAIT_SLICE_MS // len(active))
        for consumer in active:
            for _ in range(BURST):  # the messages there, then the next consumer
                got = self._consume(consumer, slice_ms)
                if got is None:
                    return False
                if self.pending and not self._tell_pending():
                    return False
                if not got or self.stop_asked or self.state != STARTED or consumer.suspended:
                    break
            if self.stop_asked or self.state != STARTED:
                break
        return True

    def _consume(self, consumer: Consumer, slice_ms: int) -> bool | None:
        """Get one message for ``consumer`` and call it (or tell it why there is none):
        True when it had one, False when not, None when the connection can no longer be
        used. A get that finds one at once does not wait (no waiter is set up for it)."""
        md = MD()
        if consumer.selects:
            md.MsgId, md.CorrelId = consumer.md.MsgId, consumer.md.CorrelId
        key = (slice_ms, self.quiescing_told)
        if consumer.gmos[0] != key:
            consumer.gmos = (key, *_dispatch_gmos(consumer.gmo, slice_ms, self.quiescing_told))
        gmo = consumer.gmos[1]
        max_length = consumer.cbd.MaxMsgLength
        limit = None if max_length == CMQC.MQCBD_FULL_MSG_LENGTH else max_length
        get = self._getter(gmo, self.qm._conn.get)
        try:
            data = get(consumer.hobj, md, gmo, limit)
        except MQMIError as e:
            if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                return self._no_message(consumer, e, md, gmo)
            gmo = consumer.gmos[2]  # none there now: wait a slice for one
            try:
                data = self._waiting_get(consumer, md, gmo, limit)
            except MQMIError as e:
                return self._no_message(consumer, e, md, gmo)
        consumer.idle_since = time.monotonic()
        empty = getattr(self.qm._conn, "read_ahead_empty", None)
        self._call(consumer, _removed(gmo.Options), md=md, gmo=gmo, msg=data,
                   data_length=len(data), flags=CMQC.MQCBCF_READA_BUFFER_EMPTY
                   if empty is not None and empty(consumer.hobj) else CMQC.MQCBCF_NONE)
        return True

    def _getter(self, gmo: GMO, get: Callable[..., bytes]) -> Callable[..., bytes]:
        """``get(hobj, md, gmo, max_length)``, made to fill the MQGMO's message handle with
        the properties when it has one."""
        return handle_getter(self.qm, get) if wants_handle(gmo) else get

    def _quiescing_untold(self) -> bool:
        """With no consumer getting (none active, or the connection suspended), whether the
        event handler is now to be told of a controlled end all the same (once, within a
        slice of its beginning): the engine's state on a connection in this process, the
        queue manager's recorded state (``qm.status``, ``mqpy.qmstatus``) over bindings. A
        client connection is told by its channel (SOCKET_ACTION QM_QUIESCE:
        ``mqpy.client``)."""
        if self.quiescing_told or self.event_handler is None:
            return False
        conn = self.qm.__dict__.get("_conn")
        if conn is None:
            return False
        engine = getattr(conn, "engine", None)
        if engine is not None:
            quiescing = bool(engine.quiescing)
        else:
            qmdir = self._qmdir(conn)
            quiescing = qmdir is not None and qmstatus.quiescing(qmdir)
        if quiescing:
            self.quiescing_told = True
        return quiescing

    def _ending_untold(self) -> bool:
        """With no get of the dispatcher to find it out, whether the event handler is now to
        be told that the connection broke (once): an embedded connection's queue manager
        ended, a bindings or client connection's socket closed by its partner
        (``peer_closed``; a client connection that reconnects is told of its reconnection
        instead)."""
        if self.ending_told or self.event_handler is None:
            return False
        conn = self.qm.__dict__.get("_conn")
        if conn is None:
            return False
        closed = getattr(conn, "peer_closed", None)
        if closed is not None:
            ended = closed()
        else:
            engine = getattr(conn, "engine", None)
            ended = bool(getattr(conn, "broken", False)) \
                or bool(getattr(engine, "stopped", False))
        if ended:
            self.ending_told = True
        return ended

    def _untold(self) -> tuple[int, int] | None:
        """(Lock held.) The event the handler is to be told now and was not, looked for
        between gets: a quiescing queue manager, then a broken connection."""
        if self._quiescing_untold():
            return CMQC.MQRC_CONNECTION_QUIESCING, _WARNING
        if self._ending_untold():
            return CMQC.MQRC_CONNECTION_BROKEN, _FAILED
        return None

    def _tell(self, reason: int, comp: int) -> bool:
        """The event handler told (lock not held); False when consumption is to stop."""
        self._event(reason, comp)
        if reason not in _ENDING:
            return True
        self._ended(reason)
        return False

    def _ended(self, reason: int) -> None:
        """The connection can make no more calls: an MQOP_START_WAIT dispatching returns
        with ``reason`` (consumption stops)."""
        if self.dispatcher is not None and self.thread is None:
            self.wait_reason = reason

    def _tell_pending(self) -> bool:
        """The events queued for the handler told; False when consumption is to stop."""
        with self.lock:
            pending, self.pending = self.pending, []
        going = True
        for reason, comp in pending:
            going = self._tell(reason, comp) and going
        return going

    # -- the watcher: the event handler told while consumption is stopped ----------------

    def _watch(self) -> None:
        """(Lock held.) With an event handler and consumption stopped, a thread that tells
        it of the connection's events (IBM: events are delivered whether the connection is
        started or stopped), until consumption starts (the dispatcher tells it then), the
        handler is deregistered, the connection is disconnected or it was told the
        connection broke."""
        if self.event_handler is None or self.ending_told or self.state != STOPPED:
            return
        watcher = self.watcher
        if watcher is not None and watcher.is_alive():
            return
        self.watcher = threading.Thread(target=_watching, args=(weakref.ref(self),),
                                        name="mqpy-async-events",
                                        daemon=True)
        self.watcher.start()

    def watch_once(self, me: threading.Thread) -> bool | None:
        """One look of the watcher ``me``: None once it is to end, True when it told the
        handler something, False when there was nothing to tell."""
        with self.lock:
            if self.watcher is not me or self.state != STOPPED \
                    or self.event_handler is None \
                    or self.qm.__dict__.get("_conn") is None:
                if self.watcher is me:
                    self.watcher = None
                return None
            tell = None if self.pending else self._untold()
            if tell is None and not self.pending:
                return False
        going = self._tell_pending() if tell is None else self._tell(*tell)
        if going:
            return True
        with self.lock:
            if self.watcher is me:
                self.watcher = None
        return None

    def _qmdir(self, conn: Any) -> str | None:
        """The directory of the queue manager a bindings connection ``conn`` is to (where
        its socket is, else where the data path says); None for any other connection."""
        qmdir = self.__dict__.get("_bindings_qmdir", False)
        if qmdir is not False:
            return qmdir
        sock = getattr(conn, "_sock", None)
        qmdir = None
        if sock is not None and not hasattr(conn, "event_handler") \
                and sock.family == socket.AF_UNIX:
            try:
                path = sock.getpeername()
            except OSError:
                path = ""
            if isinstance(path, str) and path.startswith("/") \
                    and not path.startswith("/proc/"):
                qmdir = os.path.dirname(path)
            else:  # (bound through /proc/self/fd: a path too long for the socket address)
                qmdir = config.qmgr_dir(str(getattr(conn, "qmgr_name", "")).strip())
        self._bindings_qmdir = qmdir
        return qmdir

    def _still_started(self) -> bool:
        return not self.stop_asked and self.state == STARTED

    def _waiting_get(self, consumer: Consumer, md: MD, gmo: GMO, limit: int | None) -> bytes:
        """The dispatcher's get that waits (a slice at most), which :meth:`wake` ends."""
        conn = self.qm._conn
        if hasattr(conn, "drop_waiter"):  # the engine's connection, in this process
            return self._engine_wait(conn, consumer, md, gmo, limit)
        self.waiting = True  # (set before the state is looked at: wake() sees one or the other)
        try:
            if not self._still_started():
                raise _fail(CMQC.MQRC_NO_MSG_AVAILABLE)
            return self._getter(gmo, conn.get)(consumer.hobj, md, gmo, limit)
        finally:
            self.waiting = False

    def _engine_wait(self, conn: Any, consumer: Consumer, md: MD, gmo: GMO,
                     limit: int | None) -> bytes:
        """The waiting get on the engine's connection: its waiter is an Event that a
        message's arrival sets, and :meth:`wake` too."""
        woken = self.woken = threading.Event()
        get = self._getter(gmo, lambda hobj, m, g, n: conn.get(hobj, m, g, n, woken.set))
        deadline = time.monotonic() + gmo.WaitInterval / 1000
        try:
            while self._still_started():
                woken.clear()
                if not self._still_started():  # woken before the clear
                    break
                try:
                    return get(consumer.hobj, md, gmo, limit)
                except MQMIError as e:
                    if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                        raise
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                woken.wait(left)
                conn.drop_waiter(consumer.hobj, woken.set)
                if conn.engine.quiescing and gmo.Options & CMQC.MQGMO_FAIL_IF_QUIESCING:
                    raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
            raise _fail(CMQC.MQRC_NO_MSG_AVAILABLE)
        finally:
            self.woken = None
            conn.drop_waiter(consumer.hobj, woken.set)

    def _no_message(self, consumer: Consumer, e: MQMIError, md: MD, gmo: GMO) -> bool | None:
        reason = e.reason
        if reason in (CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, CMQC.MQRC_TRUNCATED_MSG_FAILED):
            data = getattr(e, "message", b"")
            self._call(consumer, _removed(gmo.Options)
                       if reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
                       else CMQC.MQCBCT_MSG_NOT_REMOVED, md=md, gmo=gmo, msg=data,
                       comp=_WARNING, reason=reason,
                       data_length=getattr(e, "original_length", len(data)))
            return True
        if reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            wait = consumer.gmo.WaitInterval
            if consumer.gmo.Options & _GMO_WAIT and wait != CMQC.MQWI_UNLIMITED \
                    and time.monotonic() - consumer.idle_since >= wait / 1000:
                consumer.idle_since = time.monotonic()
                self._call(consumer, CMQC.MQCBCT_EVENT_CALL, comp=_FAILED, reason=reason)
            return False
        if reason == CMQC.MQRC_Q_MGR_QUIESCING:
            if not self.quiescing_told:
                self.quiescing_told = True
                self._event(CMQC.MQRC_CONNECTION_QUIESCING, _WARNING)
            if consumer.gmo.Options & CMQC.MQGMO_FAIL_IF_QUIESCING \
                    or consumer.cbd.Options & CMQC.MQCBDO_FAIL_IF_QUIESCING:
                consumer.suspended = True
                self._call(consumer, CMQC.MQCBCT_EVENT_CALL, comp=_FAILED, reason=reason,
                           state=CMQC.MQCS_SUSPENDED)
            return True
        if reason in _ENDING:
            with self.lock:
                told, self.ending_told = self.ending_told, True
            if not told:
                self._event(reason, _FAILED)
            self._ended(reason)
            return None
        consumer.suspended = True  # (get inhibited, deleted ...): the application decides
        self._call(consumer, CMQC.MQCBCT_EVENT_CALL, comp=e.comp, reason=reason,
                   state=CMQC.MQCS_SUSPENDED)
        return True

    def _event(self, reason: int, comp: int) -> None:
        handler = self.event_handler
        if handler is not None and not handler.suspended:
            self._call(handler, CMQC.MQCBCT_EVENT_CALL, comp=comp, reason=reason)

    def _call(self, consumer: Consumer, call_type: int, *, md: MD | None = None,
              gmo: GMO | None = None, msg: bytes | None = None, comp: int = CMQC.MQCC_OK,
              reason: int = CMQC.MQRC_NONE, state: int = CMQC.MQCS_NONE,
              data_length: int = 0, flags: int = CMQC.MQCBCF_NONE) -> None:
        cbd = consumer.cbd
        cbc = CBC(CallType=call_type, Hobj=consumer.hobj, CallbackArea=cbd.CallbackArea,
                  ConnectionArea=self.connection_area, CompCode=comp, Reason=reason,
                  State=state, DataLength=data_length, Flags=flags,
                  BufferLength=len(msg) if msg is not None else 0)
        try:
            cbd.CallbackFunction(queue_manager=self.qm, queue=consumer.queue,
                                 md=md if md is not None else MD(),
                                 gmo=gmo if gmo is not None else GMO(), msg=msg, cbc=cbc)
        except Exception:  # the application's error: reported, and the dispatcher goes on
            _report(cbd.CallbackFunction, call_type)


def _report(function: Any, call_type: int) -> None:
    """A function's exception on stderr, as Python reports an unhandled one (IBM's
    ``ibmmq`` proxy callback lets it go the same way, and MQ's dispatcher goes on)."""
    name = getattr(function, "__qualname__", type(function).__name__)
    sys.stderr.write(f"mqpy: the MQCB function {name} raised (call type {call_type}); "
                     "asynchronous consumption goes on:\n")
    traceback.print_exc(file=sys.stderr)


def _removed(options: int) -> int:
    browse = CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT
    return CMQC.MQCBCT_MSG_NOT_REMOVED if options & browse else CMQC.MQCBCT_MSG_REMOVED


def _dispatch_gmos(gmo: GMO, slice_ms: int, quiescing_told: bool) -> tuple[GMO, GMO]:
    """The consumer's MQGMO as the dispatcher gets with it: without waiting, and waiting at
    most ``slice_ms``; with MQGMO_FAIL_IF_QUIESCING until the event handler was told of a
    quiescing queue manager."""
    options = gmo.Options
    if not quiescing_told:
        options |= CMQC.MQGMO_FAIL_IF_QUIESCING
    at_once = gmo.copy()
    at_once.Options = options & ~_GMO_WAIT
    waiting = gmo.copy()
    waiting.Options = options | _GMO_WAIT
    wait = gmo.WaitInterval if options & _GMO_WAIT else CMQC.MQWI_UNLIMITED
    waiting.WaitInterval = slice_ms if wait == CMQC.MQWI_UNLIMITED else min(wait, slice_ms)
    return at_once, waiting


def _watching(ref: weakref.ref[Consumers]) -> None:
    """The watcher's thread: it holds the connection's consumption only while it looks, so
    that a QueueManager the program dropped is still collected (and disconnects)."""
    me = threading.current_thread()
    while True:
        consumers = ref()
        if consumers is None:
            return
        changed = consumers.changed
        told = consumers.watch_once(me)
        del consumers
        if told is None:
            return
        if not told:
            with changed:
                changed.wait(WAIT_SLICE_MS / 1000)


def consumers_of(qm: Any) -> Consumers:
    """The asynchronous consumption of the ``mqpy.QueueManager`` ``qm`` (made once)."""
    consumers = qm.__dict__.get("_consumers")
    if consumers is None:
        consumers = qm._consumers = Consumers(qm)
    return consumers
