"""Engine MQI calls from a trio event loop: the work in the loop, the log force on a thread.

Most MQI calls only touch memory: a non-persistent put or get, a put or get under syncpoint,
a commit of non-persistent work. Sending each to a worker thread costs more than the call
(two thread hand-overs and a wake-up of the loop), so the bindings server and the SVRCONN
run them in the event loop. What may block is the log force of persistent work (an
fdatasync): the engine connection *defers* it (``Connection.deferred_lsn``) and
:func:`engine_call` makes the log durable on a worker thread before the caller answers, so
the durability contract is unchanged: nothing is acknowledged before it is on disk.

:func:`mqi_port` gives trio code one async MQI whatever it holds: an engine ``Connection``
(:class:`EngineVerbs`), an async connection (``mqpy_chinit.qmconn``, as it is), or any
blocking one (:class:`ThreadVerbs`, every call on a worker thread).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import trio

from mqpy import CMQC, waiting
from mqpy.errors import MQMIError
from mqpy.verbs import AsyncMQIVerbs

__all__ = ["INLINE_DATA_LIMIT", "EngineVerbs", "ThreadVerbs", "engine_call", "mqi_port"]

#: A put whose message is longer than this goes to a worker thread whole: copying and
#: logging tens of megabytes would stall every other conversation of the loop.
INLINE_DATA_LIMIT = 256 * 1024
#: Longest single MQGET wait of a blocking connection on a worker thread, so that a
#: conversation that ends is not held up by a thread it cannot cancel.
WAIT_SLICE_MS = 1000

T = TypeVar("T")


async def engine_call(conn: Any, limiter: trio.CapacityLimiter,
                      fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` (a method of the engine ``Connection`` ``conn``) in the event loop; then,
    if it logged persistent work, the force on a worker thread under ``limiter``, whether the
    call succeeded or failed (a failed get may have expired messages it had to log)."""
    conn.deferred_lsn = 0
    deferring = conn.engine.deferring  # the queue manager's own puts in the call (reports)
    deferring.conn = conn
    try:
        return fn(*args)
    finally:
        deferring.conn = None
        lsn, conn.deferred_lsn = conn.deferred_lsn, None
        if lsn:
            await trio.to_thread.run_sync(conn.engine.data.force, lsn, limiter=limiter)


class _Threaded:
    def __init__(self, conn: Any, limiter: trio.CapacityLimiter) -> None:
        self.conn = conn
        self.limiter = limiter

    async def _thread(self, fn: Callable[..., T], *args: Any) -> T:
        return await trio.to_thread.run_sync(fn, *args, limiter=self.limiter)

    async def open(self, od: Any, options: int) -> int:
        return await self._thread(self.conn.open, od, options)

    async def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        await self._thread(self.conn.close, hobj, options)

    async def put1(self, od: Any, md: Any, pmo: Any, data: bytes) -> int:
        return await self._thread(self.conn.put1, od, md, pmo, data)

    async def set(self, hobj: int, selector: int, value: int | bytes | str) -> None:
        await self._thread(self.conn.set, hobj, selector, value)

    async def disconnect(self) -> None:
        await self._thread(self.conn.disconnect)

    def abend(self) -> None:
        self.conn.abend()


class EngineVerbs(_Threaded):
    """An engine ``Connection``'s MQI for trio: puts, MQPUT1s, gets, commits, backouts and
    inquiries in the loop (their forces on a thread); opens, closes, MQSET, MQDISC and long
    puts on threads. A waiting MQGET holds no thread (``mqpy.waiting``) and ends with
    MQRC_CONNECTION_BROKEN when ``gone`` is set (the application went)."""

    def __init__(self, conn: Any, limiter: trio.CapacityLimiter,
                 gone: trio.Event | None = None) -> None:
        super().__init__(conn, limiter)
        self.gone = gone

    async def put(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        if len(data) > INLINE_DATA_LIMIT:
            return await self._thread(self.conn.put, hobj, md, pmo, data)
        return await engine_call(self.conn, self.limiter, self.conn.put, hobj, md, pmo, data)

    async def put1(self, od: Any, md: Any, pmo: Any, data: bytes) -> int:
        """MQPUT1 in the loop (a receiving MCA puts every arrival so) unless its message is
        long: it never defines a queue (a model queue is 2057 for MQPUT1, as IBM has it)."""
        if len(data) > INLINE_DATA_LIMIT:
            return await self._thread(self.conn.put1, od, md, pmo, data)
        return await engine_call(self.conn, self.limiter, self.conn.put1, od, md, pmo, data)

    async def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        conn = self.conn

        async def attempt(waiter: waiting.Waiter | None) -> bytes:
            return await engine_call(conn, self.limiter, conn.get, hobj, md, gmo, max_length,
                                     waiter)

        if not gmo.Options & CMQC.MQGMO_WAIT:
            return await attempt(None)
        return await waiting.get_with_wait(attempt, lambda w: conn._drop_waiter(hobj, w),
                                           waiting.wait_deadline(gmo), self.gone)

    async def commit(self) -> None:
        await engine_call(self.conn, self.limiter, self.conn.commit)

    async def backout(self) -> None:
        await engine_call(self.conn, self.limiter, self.conn.backout)

    async def inquire(self, hobj: int, selector: int) -> int | bytes:
        return self.conn.inquire(hobj, selector)

    async def inquire_qmgr(self, selector: int) -> int | bytes:
        return self.conn.inquire_qmgr(selector)


class ThreadVerbs(_Threaded):
    """Any blocking MQI connection for trio: every call on a worker thread; a waiting MQGET
    in slices of WAIT_SLICE_MS, so that cancelling it never waits for a long wait."""

    async def put(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        return await self._thread(self.conn.put, hobj, md, pmo, data)

    async def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        if not gmo.Options & CMQC.MQGMO_WAIT:
            return await self._thread(self.conn.get, hobj, md, gmo, max_length)
        deadline = waiting.wait_deadline(gmo)
        interval = gmo.WaitInterval
        try:
            while True:
                left = deadline - trio.current_time()
                gmo.WaitInterval = max(0, min(WAIT_SLICE_MS, int(left * 1000)))
                try:
                    return await self._thread(self.conn.get, hobj, md, gmo, max_length)
                except MQMIError as e:
                    if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE or \
                            trio.current_time() >= deadline:
                        raise
        finally:
            gmo.WaitInterval = interval

    async def commit(self) -> None:
        await self._thread(self.conn.commit)

    async def backout(self) -> None:
        await self._thread(self.conn.backout)

    async def inquire(self, hobj: int, selector: int) -> int | bytes:
        return await self._thread(self.conn.inquire, hobj, selector)

    async def inquire_qmgr(self, selector: int) -> int | bytes:
        return await self._thread(self.conn.inquire_qmgr, selector)


def mqi_port(handle: Any, limiter: trio.CapacityLimiter,
             gone: trio.Event | None = None) -> Any:
    """One async MQI over ``handle``: an engine Connection, an async connection, or a blocking
    one (``QueueManager.get_handle()`` of a bindings or client connection)."""
    if isinstance(handle, AsyncMQIVerbs):
        return handle
    if hasattr(handle, "deferred_lsn"):
        return EngineVerbs(handle, limiter, gone)
    return ThreadVerbs(handle, limiter)
