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

import collections
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import outcome
import trio

from mqpy import CMQC, waiting
from mqpy.engine import propdelivery
from mqpy.errors import MQMIError
from mqpy.fap.mqicalls import AsyncMQIVerbs

__all__ = ["INLINE_DATA_LIMIT", "EngineVerbs", "ThreadVerbs", "defer", "engine_call", "force",
           "mqi_port", "send_all", "undefer"]

#: A put whose message is longer than this goes to a worker thread whole: copying and
#: logging tens of megabytes would stall every other conversation of the loop.
INLINE_DATA_LIMIT = 256 * 1024
#: A loop's log-writer thread ends after this many seconds without a force (started again
#: by the next one).
WRITER_IDLE_S = 10.0
#: Longest single MQGET wait of a blocking connection on a worker thread, so that a
#: conversation that ends is not held up by a thread it cannot cancel.
WAIT_SLICE_MS = 1000

T = TypeVar("T")


async def engine_call(conn: Any, limiter: trio.CapacityLimiter,
                      fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` (a method of the engine ``Connection`` ``conn``) in the event loop; then,
    if it logged persistent work, the force on a worker thread under ``limiter``, whether the
    call succeeded or failed (a failed get may have expired messages it had to log)."""
    defer(conn)
    try:
        return fn(*args)
    finally:
        lsn = undefer(conn)
        if lsn:
            await force(conn, lsn, limiter)


def defer(conn: Any) -> None:
    """From here on the log forces of ``conn``'s calls (an engine ``Connection``) are left
    to the caller: :func:`undefer` says up to where, :func:`force` makes it durable."""
    conn.deferred_lsn = 0
    conn.engine.deferring.conn = conn  # the queue manager's own puts in the call (reports)


def undefer(conn: Any) -> int:
    """The end of :func:`defer`: the LSN the calls since need forced before they are
    answered (0: none)."""
    conn.engine.deferring.conn = None
    lsn, conn.deferred_lsn = conn.deferred_lsn, None
    return lsn or 0


async def force(conn: Any, lsn: int, limiter: trio.CapacityLimiter) -> None:
    """The log of ``conn``'s queue manager durable up to ``lsn``, forced on this loop's
    log-writer thread (shared with its other calls waiting for one: :class:`LoopForcer`).
    ``limiter`` is not taken: that thread is the loop's own, apart from the workers'."""
    await _forcer(conn.engine.data).force(lsn, limiter)


class LoopForcer:
    """The log forces of one event loop's calls, made on its log-writer thread a group at a
    time (:class:`LogWriter`).

    The log already shares one fdatasync among the threads that wait for it; this shares
    the thread as well. The first call to need a force takes a worker thread for the highest
    LSN asked for so far; calls that need one meanwhile queue, and when the thread comes
    back the first of them takes the next one for all of the queue. So a loop serving many
    committers pays one thread hand-over per fdatasync, not one per call.
    """

    def __init__(self, data: Any) -> None:
        self.data = data
        self.busy = False  # the writer thread is forcing for this loop
        self.queue: list[_Wait] = []
        self.writer: LogWriter | None = None

    async def force(self, lsn: int, limiter: trio.CapacityLimiter) -> None:
        if self.data.log.flushed_lsn >= lsn:
            return
        if self.busy:
            me = _Wait(lsn)
            self.queue.append(me)
            try:
                await me.done.wait()  # durable, failed, or this call's turn to take the thread
            except BaseException:  # cancelled: leave the queue, or pass the turn on
                if me in self.queue:
                    self.queue.remove(me)
                elif me.lead:
                    self._hand_over()
                raise
            if me.error is not None:
                raise me.error
            if not me.lead:
                return
        self.busy = True
        group, self.queue = self.queue, []
        target = max([lsn, *(w.lsn for w in group)])
        error: BaseException | None = None
        try:
            # shielded: the group's force is made even if this caller is being cancelled
            with trio.CancelScope(shield=True):
                if self.writer is None:
                    self.writer = LogWriter(trio.lowlevel.current_trio_token())
                await self.writer.run(self.data.force, target)
        except BaseException as exc:
            error = exc
            raise
        finally:
            for w in group:
                w.error = error
                w.done.set()
            self._hand_over()

    def _hand_over(self) -> None:
        """The thread is back: the first call that queued meanwhile takes the next one."""
        if self.queue:
            heir = self.queue.pop(0)
            heir.lead = True
            heir.done.set()
        else:
            self.busy = False


class LogWriter:
    """One long-lived thread making an event loop's log forces, one at a time: cheaper to
    hand a force to than a worker thread of ``trio.to_thread`` (no capacity limiter, no
    context copy, no thread cache). It ends after WRITER_IDLE_S seconds without work and
    starts again with the next."""

    def __init__(self, token: trio.lowlevel.TrioToken) -> None:
        self.token = token
        self.jobs: collections.deque[tuple[Callable[..., Any], tuple, Any]] = \
            collections.deque()
        self.wake = threading.Semaphore(0)
        self.lock = threading.Lock()  # the thread's start and end against new jobs
        self.thread: threading.Thread | None = None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the writer thread; not cancellable (the caller shields it)."""
        task = trio.lowlevel.current_task()
        with self.lock:
            self.jobs.append((fn, args, task))
            if self.thread is None:
                self.thread = threading.Thread(target=self._serve, name="mqpy-log-writer",
                                               daemon=True)
                self.thread.start()
        self.wake.release()
        return await trio.lowlevel.wait_task_rescheduled(
            lambda _: trio.lowlevel.Abort.FAILED)

    def _serve(self) -> None:
        while True:
            if not self.wake.acquire(timeout=WRITER_IDLE_S):
                with self.lock:
                    if not self.jobs:
                        self.thread = None
                        return
                continue
            fn, args, task = self.jobs.popleft()
            result = outcome.capture(fn, *args)
            try:
                self.token.run_sync_soon(trio.lowlevel.reschedule, task, result)
            except trio.RunFinishedError:  # the loop has ended: nobody waits any more
                with self.lock:
                    self.thread = None
                return


class _Wait:
    __slots__ = ("done", "error", "lead", "lsn")

    def __init__(self, lsn: int) -> None:
        self.lsn = lsn
        self.done = trio.Event()
        self.lead = False
        self.error: BaseException | None = None


_FORCERS: trio.lowlevel.RunVar[dict[int, LoopForcer]] = trio.lowlevel.RunVar("mqpy_forcers")


def _forcer(data: Any) -> LoopForcer:
    """This event loop's forcer for the queue manager whose data manager is ``data``."""
    try:
        forcers = _FORCERS.get()
    except LookupError:
        forcers = {}
        _FORCERS.set(forcers)
    forcer = forcers.get(id(data))
    if forcer is None or forcer.data is not data:
        forcer = forcers[id(data)] = LoopForcer(data)
    return forcer


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

    async def set_many(self, hobj: int,
                       settings: Sequence[tuple[int, int | bytes | str]]) -> None:
        await self._thread(self.conn.set_many, hobj, settings)

    async def disconnect(self) -> None:
        await self._thread(self.conn.disconnect)

    async def stat(self, status_type: int, sts: Any = None) -> Any:
        return await self._thread(self.conn.stat, status_type, sts)

    def abend(self) -> None:
        self.conn.abend()


class EngineVerbs(_Threaded):
    """An engine ``Connection``'s MQI for trio: puts, MQPUT1s, gets, commits, backouts and
    inquiries in the loop (their forces on a thread); opens, closes, MQSET, MQDISC and long
    puts on threads. A waiting MQGET holds no thread (``mqpy.waiting``) and ends with
    MQRC_CONNECTION_BROKEN when ``gone`` is set (the application went)."""

    def __init__(self, conn: Any, limiter: trio.CapacityLimiter,
                 gone: trio.Event | None = None,
                 watch: Callable[[], Any] | None = None) -> None:
        super().__init__(conn, limiter)
        self.gone = gone
        self.watch = watch  # run while a get waits: sets ``gone`` when the application goes

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
            judged = None  # a message's properties are read on a worker thread, unlocked
            while True:
                try:
                    return await engine_call(conn, self.limiter, conn.get_unread, hobj, md,
                                             gmo, max_length, waiter, judged)
                except propdelivery.Unread as unread:
                    judged = await trio.to_thread.run_sync(unread.judge,
                                                           limiter=self.limiter)

        if not gmo.Options & CMQC.MQGMO_WAIT:
            return await attempt(None)
        return await waiting.get_with_wait(attempt, lambda w: conn.drop_waiter(hobj, w),
                                           waiting.wait_deadline(gmo), self.gone, self.watch)

    async def commit(self) -> None:
        await engine_call(self.conn, self.limiter, self.conn.commit)

    async def backout(self) -> None:
        await engine_call(self.conn, self.limiter, self.conn.backout)

    async def resolve(self, luwid: bytes, commit: bool, *, wait: bool = True) -> None:
        """Resolve an in-doubt unit of work: in the loop when it need not wait for its log
        force (``wait`` False, a commit), else on a worker thread (the force)."""
        if wait or not commit:
            await self._thread(self.conn.resolve, luwid, commit)
        else:
            await engine_call(self.conn, self.limiter, self.conn.resolve, luwid, True, False)

    async def inquire(self, hobj: int, selector: int) -> int | bytes:
        return self.conn.inquire(hobj, selector)

    async def inquire_qmgr(self, selector: int) -> int | bytes:
        return self.conn.inquire_qmgr(selector)

    async def inquire_all(self, hobj: int, selectors: Sequence[int]) -> list[int | bytes]:
        return self.conn.inquire_all(hobj, selectors)

    async def stat(self, status_type: int, sts: Any = None) -> Any:
        return self.conn.stat(status_type, sts)  # memory only: in the loop


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

    async def inquire_all(self, hobj: int, selectors: Sequence[int]) -> list[int | bytes]:
        return await self._thread(self.conn.inquire_all, hobj, selectors)


def mqi_port(handle: Any, limiter: trio.CapacityLimiter,
             gone: trio.Event | None = None) -> Any:
    """One async MQI over ``handle``: an engine Connection, an async connection, or a blocking
    one (``QueueManager.connection()`` of a bindings or client connection)."""
    if isinstance(handle, AsyncMQIVerbs):
        return handle
    if hasattr(handle, "deferred_lsn"):
        return EngineVerbs(handle, limiter, gone)
    return ThreadVerbs(handle, limiter)


async def send_all(sock: Any, data: bytes) -> None:
    """Write ``data`` whole on a non-blocking socket: at once when the socket's buffer takes
    it (no trip through the scheduler, as trio's ``send_all`` would make), else as it drains.
    OSError once the other end has gone."""
    try:
        sent = sock.send(data)
    except BlockingIOError:
        sent = 0
    if sent == len(data):
        return
    with memoryview(data) as view:
        while sent < len(view):
            await trio.lowlevel.wait_writable(sock)
            try:
                sent += sock.send(view[sent:])
            except BlockingIOError:
                pass
