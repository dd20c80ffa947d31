"""The statistics task: every STATINT seconds, the interval's figures become PCF messages.

Reads the engine's counters (``engine.stats``, the log's and data manager's cumulative counters,
the pagesets' pages) and puts IBM's statistics messages on SYSTEM.ADMIN.STATISTICS.QUEUE, and
accounting messages on SYSTEM.ADMIN.ACCOUNTING.QUEUE, through an ordinary MQI connection: the
queue manager's own MQPUT1s, outside syncpoint, persistent as the queues' DEFPSIST says.

Honours ALTER QMGR STATMQI, STATQ (with each queue's STATQ: ON, OFF or QMGR), STATINT, ACCTMQI,
ACCTQ and ACCTINT. The task sleeps until the earlier interval's end; ALTER QMGR STATINT or
ACCTINT wakes it (:func:`intervals_changed`), and the new value applies to the interval in
progress: it ends that long after it began (at once if that is past).
RESET QMGR TYPE(STATISTICS) ends the statistics interval now and a new one begins.
Accounting is per connection (``mqpy.stats.connaccounting``): the task writes a connection's
intermediate record once ACCTINT has passed since its MQCONN or its previous record, and wakes
for the earliest such; the connection's last record is written as it ends, by the engine, so
the task never sees a connection twice. The task's own connection is not reported.
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
    connection_messages,
    on,
    period_start,
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

#: the queue-manager attributes whose change wakes the statistics task
INTERVALS = frozenset({"STATINT", "ACCTINT"})


_on = on


def _acctint(qmgr_attrs: dict) -> float:
    try:
        return max(1.0, float(qmgr_attrs.get("ACCTINT", 1800)))
    except (TypeError, ValueError):
        return 1800.0


class StatisticsCollector:
    """Owns the previous storage snapshot, so each interval reports deltas."""

    def __init__(self, engine: QueueManagerEngine, qm: QueueManager) -> None:
        self.engine = engine
        self.qm = qm
        # the engine counts from its start, as does the first statistics interval
        self._storage_prev: tuple[int, ...] = (0,) * 8
        self._acct_start = time.time()
        self.last_error: BaseException | None = None
        self._emitting = threading.Lock()
        self._pending: deque[tuple[str, PCFMessage]] = deque()
        self.dropped = 0  # messages of ended intervals given up (more than PENDING_LIMIT)
        # when the interval in progress began (time.monotonic): it ends STATINT / ACCTINT
        # seconds later, as those are now, so a changed interval applies to it
        self.statistics_began = self.accounting_began = time.monotonic()
        #: set by a change of STATINT or ACCTINT, or the task's stop: the task looks again
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
    def collect(self, now: float | None = None, *, statistics: bool = True,
                accounting: bool = True, due_only: bool = False
                ) -> list[tuple[str, PCFMessage]]:
        """End the interval: (queue, message) pairs for what STATMQI/STATQ/ACCT* ask for.
        Statistics (every STATINT) and accounting (every ACCTINT) can be ended separately;
        ``due_only``: only the connections whose ACCTINT has passed (``_accounting``)."""
        end = time.time() if now is None else now
        eng = self.engine
        with eng.lock:
            qmgr_attrs = dict(eng.catalog.qmgr)
            if not statistics:
                return (self._accounting(qmgr_attrs, end, due_only=due_only) if accounting
                        else [])
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
            acct_msgs = (self._accounting(qmgr_attrs, end, due_only=due_only) if accounting
                         else [])
        start = done.interval_start
        out: list[tuple[str, PCFMessage]] = []
        if _on(qmgr_attrs.get("STATMQI")):
            msg = mqi_statistics(eng.name, done.mqi, start, end,
                                 conns_max=len(eng.connections), storage=storage)
            out.append((STATISTICS_QUEUE, msg))
        if queues:
            out += [(STATISTICS_QUEUE, m) for m in queue_statistics(eng.name, queues, start, end)]
        return out + acct_msgs

    def _accounting(self, qmgr_attrs: dict, end: float, *, due_only: bool = False
                    ) -> list[tuple[str, PCFMessage]]:
        """The accounting messages of the connections' periods ending now: each connection's
        (``connaccounting``), or with ``due_only`` (the ACCTINT task) those connected, or
        last recorded, at least ACCTINT ago."""
        out: list[tuple[str, PCFMessage]] = []
        if not on(qmgr_attrs.get("ACCTMQI")) and not on(qmgr_attrs.get("ACCTQ")):
            return out
        limit = end - _acctint(qmgr_attrs) if due_only else end
        for conn in list(self.engine.connections.values()):
            if period_start(conn) > limit:
                continue
            out += [(ACCOUNTING_QUEUE, m)
                    for m in connection_messages(self.engine, conn, qmgr_attrs, end)]
        return out

    def accounting_remaining(self) -> float:
        """Seconds until the next connection's period reaches ACCTINT (0 or less: it has):
        its first after ACCTINT seconds connected, then each ACCTINT after its last record."""
        eng = self.engine
        with eng.lock:
            qmgr_attrs = eng.catalog.qmgr
            acctint = _acctint(qmgr_attrs)
            if not on(qmgr_attrs.get("ACCTMQI")) and not on(qmgr_attrs.get("ACCTQ")):
                return acctint  # (nothing is counted: look again then)
            starts = [period_start(c) for c in eng.connections.values()]
        wall = time.time()
        return min(starts, default=wall) + acctint - wall

    # -- putting ------------------------------------------------------------------------
    def emit(self, now: float | None = None, *, statistics: bool = True,
             accounting: bool = True, qm: QueueManager | None = None,
             due_only: bool = False) -> int:
        """Collect and put (through ``qm``, default the collector's own connection);
        returns the number of messages put. One interval ends at a time: the statistics
        task's and a RESET QMGR's never interleave.

        The interval's counters are reset when they are collected, so a message that cannot
        be put (MQMIError, raised to the caller) is kept, with those after it, and put first
        at the next interval: its counts are reported late, not lost."""
        with self._emitting:
            self._pending.extend(self.collect(now, statistics=statistics,
                                              accounting=accounting, due_only=due_only))
            began = time.monotonic()
            if statistics:
                self.statistics_began = began
            if accounting:
                self.accounting_began = began
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
    """End the current interval now (RESET QMGR TYPE(STATISTICS)); returns messages put."""
    return _collector(engine, qm).emit()


def emit_statistics_now(engine: QueueManagerEngine, qm: QueueManager) -> int:
    """RESET QMGR TYPE(STATISTICS): end the statistics interval now (accounting keeps its
    own); returns messages put. The collector is the statistics task's, so the two never
    report the same counts."""
    collector = _collectors.get(id(engine))
    if collector is None or collector.engine is not engine:
        collector = _collector(engine, qm)  # no statistics task yet
    return collector.emit(statistics=True, accounting=False, qm=qm)


def intervals_changed(engine: QueueManagerEngine, changed: object = INTERVALS) -> None:
    """ALTER QMGR changed ``changed`` (attribute names): the statistics task of ``engine``,
    if one runs, reads STATINT and ACCTINT again when one of them is among them."""
    collector = _collectors.get(id(engine))
    if collector is not None and collector.engine is engine and INTERVALS & set(changed):
        collector.wake.set()


def start_statistics(engine: QueueManagerEngine, qm: QueueManager) -> Callable[[], None]:
    """Run the statistics task in a thread; returns ``stop``, which ends it after writing the
    last statistics interval (IBM writes statistics at a controlled shutdown too; accounting
    records are written as the connections end)."""
    collector = _collector(engine, qm)
    stopping = threading.Event()

    def due(key: str, began: float) -> float:
        """When the interval that began at ``began`` ends: STATINT / ACCTINT as it is now."""
        try:
            return began + max(1.0, float(engine.catalog.qmgr.get(key, 1800)))
        except (TypeError, ValueError):
            return began + 1800.0

    def run() -> None:
        while True:
            stat_due = due("STATINT", collector.statistics_began)
            acct_due = time.monotonic() + collector.accounting_remaining()
            # sleep to the earlier end; a changed STATINT or ACCTINT, or the stop, wakes it
            # (a RESET QMGR moves the beginning later: the wake at the old end looks again)
            collector.wake.wait(max(0.0, min(stat_due, acct_due) - time.monotonic()))
            collector.wake.clear()
            collector.wakes += 1
            if stopping.is_set():
                break
            now = time.monotonic()
            due_stat = now >= due("STATINT", collector.statistics_began)
            due_acct = collector.accounting_remaining() <= 0
            if not (due_stat or due_acct):
                continue
            try:
                collector.emit(statistics=due_stat, accounting=due_acct, due_only=True)
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
                collector.emit(accounting=False)
            except MQMIError as exc:
                collector.last_error = exc

    return stop
