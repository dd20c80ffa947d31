"""Statistics counters the engine keeps for IBM's statistics and accounting messages.

The engine increments these under its lock; once per STATINT the statistics task takes a
snapshot and resets them (:meth:`Statistics.take`), and turns it into PCF messages
(MQCMD_STATISTICS_MQI, MQCMD_STATISTICS_Q) on SYSTEM.ADMIN.STATISTICS.QUEUE. Counters are split
[non-persistent, persistent] where IBM's parameters are.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import attrs


@attrs.define(slots=True)
class QueuePerformance:
    """One local queue's counts since its statistics were last reset, or since the queue
    manager started (PCF Reset Queue Statistics; IBM's performance event statistics):
    messages put (MsgEnqCount: uncommitted puts too, not taken back by a backout), messages
    got (MsgDeqCount: non-browse gets, committed or not) and the peak depth (HighQDepth).
    When they were last reset is the :class:`Statistics`' (``reset_at``)."""

    enqueued: int = 0
    dequeued: int = 0
    high_depth: int = 0


def _pair() -> list[int]:
    return [0, 0]


@attrs.define
class QueueCounters:
    """One local queue over one interval (MQCMD_STATISTICS_Q)."""

    puts: list[int] = attrs.Factory(_pair)
    put1s: list[int] = attrs.Factory(_pair)
    put_bytes: list[int] = attrs.Factory(_pair)
    gets: list[int] = attrs.Factory(_pair)
    get_bytes: list[int] = attrs.Factory(_pair)
    browses: list[int] = attrs.Factory(_pair)
    browse_bytes: list[int] = attrs.Factory(_pair)
    put_fails: int = 0
    put1_fails: int = 0
    get_fails: int = 0
    browse_fails: int = 0
    expired: int = 0
    purged: int = 0
    min_depth: int | None = None
    max_depth: int = 0
    time_on_q_total: list[float] = attrs.Factory(lambda: [0.0, 0.0])
    time_on_q_count: list[int] = attrs.Factory(_pair)
    #: the queue's counts since their last reset (the queue manager's counters only)
    performance: QueuePerformance | None = None

    def depth_seen(self, depth: int) -> None:
        """One message put, leaving ``depth`` messages: the interval's depth range, and the
        put in the queue's counts since their last reset."""
        perf = self.performance
        if perf is not None:
            perf.enqueued += 1
            if depth > perf.high_depth:
                perf.high_depth = depth
        if self.min_depth is None or depth < self.min_depth:
            self.min_depth = depth
        if depth > self.max_depth:
            self.max_depth = depth

    def average_time_on_q_us(self) -> list[int]:
        return [int(self.time_on_q_total[i] / self.time_on_q_count[i] * 1e6)
                if self.time_on_q_count[i] else 0 for i in (0, 1)]


@attrs.define
class MQICounters:
    """The queue manager's MQI calls over one interval (MQCMD_STATISTICS_MQI)."""

    connects: int = 0
    connect_fails: int = 0
    disconnects: int = 0
    opens: int = 0
    open_fails: int = 0
    closes: int = 0
    close_fails: int = 0
    inqs: int = 0
    inq_fails: int = 0
    sets: int = 0
    set_fails: int = 0
    puts: list[int] = attrs.Factory(_pair)
    put1s: list[int] = attrs.Factory(_pair)
    put_bytes: list[int] = attrs.Factory(_pair)
    put_fails: int = 0
    gets: list[int] = attrs.Factory(_pair)
    get_bytes: list[int] = attrs.Factory(_pair)
    get_fails: int = 0
    browses: list[int] = attrs.Factory(_pair)
    browse_bytes: list[int] = attrs.Factory(_pair)
    commits: int = 0
    commit_fails: int = 0
    backouts: int = 0
    expired: int = 0
    purged: int = 0
    #: MQSUB: [durable, non-durable] subscriptions made or resumed, and the failed ones
    subs: list[int] = attrs.Factory(_pair)
    sub_fails: int = 0
    subrqs: int = 0
    subrq_fails: int = 0
    stats: int = 0
    stat_fails: int = 0


class HandleCounters:
    """The four sets of counters one MQPUT or MQGET on a handle adds to: the queue manager's
    MQI and queue statistics, then the connection's (accounting), and the local queue
    (``base``) they were taken for. Kept on the handle while they are current: an interval's
    end replaces ``mqi`` and the queue counters at once, so an identity test of the two
    ``mqi`` and of ``base`` tells a stale set."""

    __slots__ = ("qmgr_mqi", "qmgr_queue", "conn_mqi", "conn_queue", "base")

    def __init__(self, qmgr_mqi: MQICounters, qmgr_queue: QueueCounters, conn_mqi: MQICounters,
                 conn_queue: QueueCounters, base: object) -> None:
        self.qmgr_mqi, self.qmgr_queue = qmgr_mqi, qmgr_queue
        self.conn_mqi, self.conn_queue = conn_mqi, conn_queue
        self.base = base


@attrs.define
class Statistics:
    mqi: MQICounters = attrs.Factory(MQICounters)
    queues: dict[str, QueueCounters] = attrs.Factory(dict)
    interval_start: float = attrs.Factory(time.time)
    #: queue name -> its counts since their last reset (they outlive each interval)
    performance: dict[str, QueuePerformance] = attrs.Factory(dict)
    started: float = attrs.Factory(time.time)
    #: queue name -> when its counts were last reset (not there: since ``started``)
    reset_at: dict[str, float] = attrs.Factory(dict)

    def queue(self, name: str) -> QueueCounters:
        q = self.queues.get(name)
        if q is None:
            q = self.queues[name] = QueueCounters(performance=self.queue_performance(name))
        return q

    def queue_performance(self, name: str) -> QueuePerformance:
        """A local queue's counts since their last reset (or since the start)."""
        perf = self.performance.get(name)
        if perf is None:
            perf = self.performance[name] = QueuePerformance()
        return perf

    def reset_queue(self, name: str, now: float, depth: int) -> tuple[int, int, int, int]:
        """A local queue's (HighQDepth, MsgEnqCount, MsgDeqCount, TimeSinceReset in seconds)
        up to ``now``; they start again, the peak from the current ``depth``."""
        perf = self.queue_performance(name)
        since = max(0, int(now - self.reset_at.get(name, self.started)))
        done = (max(perf.high_depth, depth), perf.enqueued, perf.dequeued, since)
        perf.enqueued = perf.dequeued = 0
        perf.high_depth = depth
        self.reset_at[name] = now
        return done

    def take(self) -> Statistics:
        """The counters of the interval just ended; counting starts afresh."""
        done = Statistics(self.mqi, self.queues, self.interval_start, self.performance,
                          self.started, self.reset_at)
        self.mqi = MQICounters()
        self.queues = {}
        self.interval_start = time.time()
        return done


def reset_queue_statistics(engine: Any, name: str) -> tuple[int, int, int, int] | None:
    """Reset Queue Statistics of the local queue ``name``: its (HighQDepth, MsgEnqCount,
    MsgDeqCount, TimeSinceReset) since the last reset, under the engine's lock, counting
    again from now; None if no local queue has that name."""
    with engine.lock:
        obj = engine.catalog.queue_def(name)
        if obj is None or obj.objtype != "QLOCAL":
            return None
        depth = engine.catalog.messages(obj).depth
        return engine.stats.reset_queue(name, time.time(), depth)


#: a deadline that never comes (a connection with no records to write)
NEVER = math.inf


class ConnectionAccounting:
    """The counters of a connection whose accounting messages are written, and when its
    period ends: ``due``, a ``time.monotonic`` deadline, ACCTINT after the period began.

    IBM writes a long-running connection's intermediate record at its first MQI call after
    ACCTINT has passed (an idle connection writes none until then, or until it ends). Each
    call reaches ``mqi`` (to count itself, or to see that its handle's counters are
    current), so the check is there: one clock read and one comparison; the first call past
    ``due`` ends the period (``on_due``: the connection writes the record and the counters
    start again, ``mqi`` and ``queues`` replaced) before it is counted itself. The same
    interface as :class:`Statistics` for the connection's calls (``mqi``, ``queues``,
    ``queue``, ``take``, ``interval_start``); a queue's counts since their reset are the
    queue manager's, not kept here."""

    __slots__ = ("_mqi", "queues", "interval_start", "began", "due", "on_due")

    def __init__(self, mqi: MQICounters, queues: dict[str, QueueCounters],
                 interval_start: float, began: float, acctint: float,
                 on_due: Callable[[], None]) -> None:
        self._mqi = mqi
        self.queues = queues
        self.interval_start = interval_start  # wall clock: the records' IntervalStart
        self.began = began  # time.monotonic when the period began
        self.due = began + acctint
        self.on_due = on_due

    @property
    def mqi(self) -> MQICounters:
        if time.monotonic() >= self.due:
            self.on_due()
        return self._mqi

    def queue(self, name: str) -> QueueCounters:
        q = self.queues.get(name)
        if q is None:
            q = self.queues[name] = QueueCounters()
        return q

    def interval(self, acctint: float) -> None:
        """ACCTINT changed: the period in progress ends ``acctint`` after it began."""
        self.due = self.began + acctint

    def take(self, acctint: float) -> Statistics:
        """The counters of the period just ended; the next begins now, due ``acctint``
        later."""
        done = Statistics(self._mqi, self.queues, self.interval_start)
        self._mqi = MQICounters()
        self.queues = {}
        self.interval_start = time.time()
        self.began = time.monotonic()
        self.due = self.began + acctint
        return done


class WatchedStatistics(Statistics):
    """A connection's counters while none of its records is written yet, because only a
    queue's own ACCTQ(ON) could make one (the queue manager's ACCTQ OFF, ACCTMQI OFF):
    ``watch`` is told the name of each queue the period first counts, and may start the
    connection's accounting then (``mqpy.engine.connection``)."""

    def __init__(self, watch: Callable[[str], None]) -> None:
        super().__init__()
        self.watch = watch

    def queue(self, name: str) -> QueueCounters:
        q = self.queues.get(name)
        if q is None:
            q = self.queues[name] = QueueCounters()
            self.watch(name)
        return q
