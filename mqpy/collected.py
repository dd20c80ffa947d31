"""Object handles whose ``mqpy.Queue`` was collected while open, closed later.

pymqi's Queue closes its handle when it is collected (``mqpy.mqi.Queue.__del__``). The
collector runs a finalizer on whichever thread allocates at the time: an application thread
inside another call on the same connection (holding that connection's locks), or, in a
process that also serves the channel, the thread of the event loop that would answer the
MQCLOSE, or, in a process with a queue manager of its own, its checkpoint thread (holding the
checkpoint mutex an MQI call may be waiting for). A finalizer that made the call there waited
for ever (or until the heartbeat's receive timeout broke the channel). A connection with this mixin only notes the handle there
(no lock, no I/O) and closes it before its next call; MQDISC closes what is left, as the
queue manager closes a disconnecting application's handles. A Queue freed by its last
reference going (``del queue``, a function returning) is not the collector's: it is closed
at once, as pymqi's, by the thread that let it go.

An object that made its own connection (pymqi's ``PCFExecute("QM1")``) ends it when it is
collected: no later call of that connection will come, so its MQCLOSEs and MQDISC are made by
the *ender*, one thread of mqpy's started when such an object connects. It holds no lock of
any connection and serves no channel, so it waits for the answer as any application thread
does; the finalizer only hands the connection over (``SimpleQueue.put``, safe there).
"""

from __future__ import annotations

import atexit
import gc
import os
import queue
import sys
import threading
import traceback
from collections import deque

from mqpy import CMQC
from mqpy.errors import MQMIError, PYIFError

__all__ = ["ClosedLater", "closed_by_finalizer", "collecting", "ended_later", "ender_running",
           "start_ender"]

_phase = threading.local()  #: ``active`` while this thread runs a collection


def _on_collection(phase: str, _info: dict[str, int]) -> None:
    _phase.active = phase == "start"


gc.callbacks.append(_on_collection)


def collecting() -> bool:
    """Whether this thread is running the cycle collector (its finalizers run inside)."""
    return getattr(_phase, "active", False)


class ClosedLater:
    """The handles to close before the connection's next call (``close``: the MQI's)."""

    _collected: deque[tuple[int, int]]

    def close_collected(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        """A finalizer's MQCLOSE of ``hobj``: inside a collection noted, made before the
        next call (a deque's append takes no lock another thread of this connection might
        hold); otherwise made now (the last reference went in the application's code)."""
        if not collecting():
            self.close(hobj, options)  # type: ignore[attr-defined] - the MQI's
            return
        self._collected.append((hobj, options))

    def _close_collected(self) -> None:
        """The noted MQCLOSEs, made now by the calling thread (a failure is not its call's:
        a broken connection fails that call itself)."""
        collected = self._collected
        while collected:
            try:
                hobj, options = collected.popleft()
            except IndexError:  # another thread took the last
                return
            try:
                self.close(hobj, options)  # type: ignore[attr-defined] - the MQI's
            except MQMIError:
                pass

    def _forget_collected(self) -> None:
        """MQDISC closes the handles still open: none of the noted ones is sent."""
        self._collected.clear()


def closed_by_finalizer(conn: object, hobj: int, options: int = CMQC.MQCO_NONE) -> bool:
    """A finalizer's MQCLOSE of ``hobj`` handed to ``conn`` when it closes collected handles
    itself (``ClosedLater``: client, bindings and the engine's own connections): True then;
    False for a connection that has no such thing, which the caller closes."""
    later = getattr(conn, "close_collected", None)
    if later is None:
        return False
    later(hobj, options)
    return True


# -- connections of collected objects that made them ------------------------------------

#: what the ender is to do: (the connection, the handles to close before its MQDISC)
_to_end: queue.SimpleQueue[tuple[object, tuple[int, ...]] | None] = queue.SimpleQueue()
#: how long the exit waits for the ender to finish what it was handed
ENDER_EXIT_WAIT_S = 5.0
_ender: list[threading.Thread] = []  #: the ender, once started in this process
_ender_lock = threading.Lock()


def ender_running() -> bool:
    """Whether the ender runs (a finalizer inside a collection may hand it a connection)."""
    return bool(_ender and _ender[0].is_alive())


def start_ender() -> None:
    """Start the ender unless it runs: called by an object that makes its own connection,
    when it makes it (never from a finalizer: starting a thread takes locks)."""
    if _ender and _ender[0].is_alive():
        return
    with _ender_lock:
        if not (_ender and _ender[0].is_alive()):
            thread = threading.Thread(target=_end_connections, name="mqpy-collected-ender",
                                      daemon=True)
            thread.start()
            _ender[:] = [thread]


def _forget_ender() -> None:
    """A forked child has no ender (the thread stayed in the parent), and none of the
    connections handed to it: they are the parent's, whose ender ends them."""
    _ender.clear()
    while True:
        try:
            _to_end.get_nowait()
        except queue.Empty:
            return


os.register_at_fork(after_in_child=_forget_ender)


def ended_later(conn: object, hobjs: tuple[int, ...] = ()) -> None:
    """A finalizer's end of its own connection ``conn``: MQCLOSE of ``hobjs``, then MQDISC,
    made by the ender (started by :func:`start_ender`); without one (never started), or
    while the interpreter finalizes (its daemon threads no longer run), made now."""
    if _ender and _ender[0].is_alive() and not sys.is_finalizing():
        _to_end.put((conn, hobjs))
        return
    _end(conn, hobjs)


def _end_connections() -> None:
    while (item := _to_end.get()) is not None:
        try:
            _end(*item)
        except Exception:  # never the ender's end: the next ones would be ended by finalizers
            traceback.print_exc()
        del item  # the connection not kept until the next one comes


def _end_the_rest() -> None:
    """At exit (daemon threads still run then): the ender finishes what it was handed, then
    what is left is ended here, so that each MQDISC commits as pymqi's would at exit, rather
    than the queue manager backing the units of work out when the process's sockets close."""
    if _ender and _ender[0].is_alive():
        _to_end.put(None)
        _ender[0].join(ENDER_EXIT_WAIT_S)
    while True:
        try:
            item = _to_end.get_nowait()
        except queue.Empty:
            return
        if item is not None:
            _end(*item)


atexit.register(_end_the_rest)


def _end(conn: object, hobjs: tuple[int, ...]) -> None:
    """MQCLOSE of each handle, then MQDISC; a failure (the connection already broken, which
    ended it) is nobody's to hear."""
    try:
        for hobj in hobjs:
            try:
                conn.close(hobj)  # type: ignore[attr-defined] - the MQI's
            except MQMIError:
                pass
        conn.disconnect()  # type: ignore[attr-defined] - the MQI's
    except (MQMIError, PYIFError, OSError):
        pass
