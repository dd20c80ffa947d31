"""The statistics task: every STATINT seconds, the interval's figures become PCF messages.

Reads the engine's counters (``engine.stats``, the log's and data manager's cumulative counters,
the pagesets' pages) and puts IBM's statistics messages on SYSTEM.ADMIN.STATISTICS.QUEUE
through an ordinary MQI connection: the queue manager's own MQPUT1s, outside syncpoint,
persistent as the queue's DEFPSIST says.

Honours ALTER QMGR STATMQI, STATQ (with each queue's STATQ: ON, OFF or QMGR) and STATINT. The
task sleeps until the interval's end; ALTER QMGR STATINT wakes it (:func:`intervals_changed`),
and the new value applies to the interval in progress: it ends that long after it began (at
once if that is past). RESET QMGR TYPE(STATISTICS) ends the statistics interval now and a new
one begins. Accounting is not the task's: each connection writes its own records, at its first
call after each ACCTINT and as it ends (``mqpy.stats.connaccounting``); ALTER QMGR ACCTINT
applies to their periods in progress the same way (:func:`intervals_changed`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.mqi import QueueManager
from mqpy.pcf import PCFMessage, build
from mqpy.stats.connaccounting import (
    ACCOUNTING_QUEUE,
    interval_changed,
    on,
    queue_enabled,
    queue_info,
)
from mqpy.stats.records import QueueInfo, StorageInterval, mqi_statistics, queue_statistics
from mqpy.structs.tables import MD, OD, PMO

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine

STATISTICS_QUEUE = "SYSTEM.ADMIN.STATISTICS.QUEUE"

# Messages of ended intervals that could not be put yet (queue full, put-inhibited, deleted)
# wait for the next interval, oldest first; past this many the oldest are dropped (and
# counted), so a statistics queue nobody empties cannot grow the queue manager's memory.
PENDING_LIMIT = 1000

#: the queue-manager attributes whose change applies to the intervals in progress
INTERVALS = frozenset({"STATINT", "ACCTINT"})

__all__ = ["ACCOUNTING_QUEUE", "INTERVALS", "STATISTICS_QUEUE", "StatisticsCollector",
           "emit_now", "emit_statistics_now", "intervals_changed", "put_pcf",
           "start_statistics"]

_on = on


class StatisticsCollector:
    """Owns the previous storage snapshot, so each interval reports deltas."""

    def __init__(self, engine: QueueManagerEngine, qm: QueueManager) -> None:
        self.engine = engine
        self.qm = qm
        # the engine counts from its start, as does the first statistics interval
        self._storage_prev: tuple[int, ...] = (0,) * 8
        self.last_error: BaseException | None = None
        self._emitting = threading.Lock()
        self._pending: deque[tuple[str, PCFMessage]] = deque()
        self.dropped = 0  # messages of ended intervals given up (more than PENDING_LIMIT)
        # when the interval in progress began (time.monotonic): it ends STATINT seconds
        # later, as that is now, so a changed interval applies to it
        self.statistics_began = time.monotonic()
        #: set by a change of STATINT, or the task's stop: the task looks again
        self.wake = threading.Event()
        #: the task's wakes (interval ends, changes): what an idle queue manager's statistics
        #: cost, counted for tests
        self.wakes = 0

    # -- reading the engine -----------------------------------------------------------
    def _storage_counters(self) -> tuple[int, ...]:
        log = self.engine.data.log.stats
        ds = self.engine.data.stats
        return (log.bytes, log.records, log.forces, ds.checkpoints,
                int(ds.checkpoint_seconds * 1e6), ds.pageset_reads, ds.body_hits, ds.evictions)

    def storage_interval(self) -> StorageInterval:
        now = self._storage_counters()
        d = [a - b for a, b in zip(now, self._storage_prev, strict=True)]
        self._storage_prev = now
        pagesets = {}
        for psid, ps in sorted(self.engine.data.pagesets.items()):
            try:
                pagesets[psid] = ps.pages_used()
            except Exception:  # noqa: BLE001 - a closed pageset reports nothing, not a failure
                continue
        return StorageInterval(log_bytes=d[0], log_records=d[1], log_forces=d[2],
                               checkpoints=d[3], checkpoint_seconds=d[4] / 1e6,
                               pageset_reads=d[5], buffer_hits=d[6], evictions=d[7],
                               pagesets=pagesets)

    def _queue_info(self, name: str) -> tuple[QueueInfo, int, object] | None:
        return queue_info(self.engine, name)

    # -- building -----------------------------------------------------------------------
    def collect(self, now: float | None = None) -> list[tuple[str, PCFMessage]]:
        """End the statistics interval: (queue, message) pairs for what STATMQI and STATQ
        ask for."""
        end = time.time() if now is None else now
        eng = self.engine
        with eng.lock:
            qmgr_attrs = dict(eng.catalog.qmgr)
            done = eng.stats.take()
            storage = self.storage_interval()
            queues = []
            for name in sorted(done.queues):
                found = self._queue_info(name)
                if found is None:
                    continue
                info, depth, attrs_ = found
                if queue_enabled(attrs_.get("STATQ"), qmgr_attrs.get("STATQ")):
                    queues.append((info, done.queues[name], depth))
        start = done.interval_start
        out: list[tuple[str, PCFMessage]] = []
        if _on(qmgr_attrs.get("STATMQI")):
            msg = mqi_statistics(eng.name, done.mqi, start, end,
                                 conns_max=len(eng.connections), storage=storage)
            out.append((STATISTICS_QUEUE, msg))
        if queues:
            out += [(STATISTICS_QUEUE, m) for m in queue_statistics(eng.name, queues, start, end)]
        return out

    # -- putting ------------------------------------------------------------------------
    def emit(self, now: float | None = None, *, qm: QueueManager | None = None) -> int:
        """Collect and put (through ``qm``, default the collector's own connection);
        returns the number of messages put. One interval ends at a time: the statistics
        task's and a RESET QMGR's never interleave.

        The interval's counters are reset when they are collected, so a message that cannot
        be put (MQMIError, raised to the caller) is kept, with those after it, and put first
        at the next interval: its counts are reported late, not lost."""
        with self._emitting:
            self._pending.extend(self.collect(now))
            self.statistics_began = time.monotonic()
            excess = len(self._pending) - PENDING_LIMIT
            for _ in range(max(0, excess)):
                self._pending.popleft()
                self.dropped += 1
            done = 0
            while self._pending:
                queue, msg = self._pending[0]
                put_pcf(qm or self.qm, queue, msg)
                self._pending.popleft()
                done += 1
        return done


def put_pcf(qm: QueueManager, queue: str, msg: PCFMessage) -> None:
    """MQPUT1 one PCF message, outside syncpoint, Format MQADMIN, as IBM writes them."""
    md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_DATAGRAM)
    pmo = PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_FAIL_IF_QUIESCING)
    qm.put1(OD(ObjectName=queue.encode()), build(msg), md, pmo)


_collectors: dict[int, StatisticsCollector] = {}


def _collector(engine: QueueManagerEngine, qm: QueueManager) -> StatisticsCollector:
    c = _collectors.get(id(engine))
    if c is None or c.engine is not engine:
        c = _collectors[id(engine)] = StatisticsCollector(engine, qm)
    c.qm = qm
    return c


def emit_now(engine: QueueManagerEngine, qm: QueueManager) -> int:
    """End the current statistics interval now; returns messages put."""
    return _collector(engine, qm).emit()


def emit_statistics_now(engine: QueueManagerEngine, qm: QueueManager) -> int:
    """RESET QMGR TYPE(STATISTICS): end the statistics interval now (accounting periods are
    the connections' own); returns messages put. The collector is the statistics task's, so the two never
    report the same counts."""
    collector = _collectors.get(id(engine))
    if collector is None or collector.engine is not engine:
        collector = _collector(engine, qm)  # no statistics task yet
    return collector.emit(qm=qm)


def intervals_changed(engine: QueueManagerEngine, changed: object = INTERVALS) -> None:
    """ALTER QMGR changed ``changed`` (attribute names): the statistics task of ``engine``,
    if one runs, reads STATINT again; the connections' accounting periods in progress end
    the new ACCTINT after they began."""
    changed = set(changed)
    if "ACCTINT" in changed:
        interval_changed(engine)
    collector = _collectors.get(id(engine))
    if collector is not None and collector.engine is engine and "STATINT" in changed:
        collector.wake.set()


def start_statistics(engine: QueueManagerEngine, qm: QueueManager) -> Callable[[], None]:
    """Run the statistics task in a thread; returns ``stop``, which ends it after writing the
    last statistics interval (IBM writes statistics at a controlled shutdown too; accounting
    records are the connections' own)."""
    collector = _collector(engine, qm)
    stopping = threading.Event()

    def due(began: float) -> float:
        """When the interval that began at ``began`` ends: STATINT as it is now."""
        try:
            return began + max(1.0, float(engine.catalog.qmgr.get("STATINT", 1800)))
        except (TypeError, ValueError):
            return began + 1800.0

    def run() -> None:
        while True:
            # sleep to the interval's end; a changed STATINT, or the stop, wakes it (a RESET
            # QMGR moves the beginning later: the wake at the old end looks again)
            collector.wake.wait(max(0.0, due(collector.statistics_began) - time.monotonic()))
            collector.wake.clear()
            collector.wakes += 1
            if stopping.is_set():
                break
            if time.monotonic() < due(collector.statistics_began):
                continue
            try:
                collector.emit()
            except MQMIError as exc:  # queue full, quiescing: put at the next interval
                collector.last_error = exc

    thread = threading.Thread(target=run, name=f"mqpy-stats-{engine.name}", daemon=True)
    thread.start()

    def stop() -> None:
        stopping.set()
        collector.wake.set()
        thread.join()
        if not engine.stopped:
            try:  # (each connection's last accounting record is written as it ends)
                collector.emit()
            except MQMIError as exc:
                collector.last_error = exc

    return stop
