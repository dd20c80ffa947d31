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
Accounting needs per-connection counters: a connection carrying an ``accounting`` attribute
shaped like :class:`mqpy.engine.stats.Statistics` is reported; others are not.
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
from mqpy.stats.records import (
    ConnectionInfo,
    QueueInfo,
    StorageInterval,
    accounting_mqi,
    accounting_q,
    mqi_statistics,
    queue_statistics,
)
from mqpy.structs.tables import MD, OD, PMO

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine

STATISTICS_QUEUE = "SYSTEM.ADMIN.STATISTICS.QUEUE"
ACCOUNTING_QUEUE = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"

# Messages of ended intervals that could not be put yet (queue full, put-inhibited, deleted)
# wait for the next interval, oldest first; past this many the oldest are dropped (and
# counted), so a statistics queue nobody empties cannot grow the queue manager's memory.
PENDING_LIMIT = 1000

#: the queue-manager attributes whose change wakes the statistics task
INTERVALS = frozenset({"STATINT", "ACCTINT"})


def _on(value: object) -> bool:
    return str(value).upper() == "ON"


def queue_enabled(queue_attr: object, qmgr_attr: object) -> bool:
    """A queue's STATQ / ACCTQ: ON or OFF decide; QMGR defers to the queue manager's."""
    q = str(queue_attr or "QMGR").upper()
    if str(qmgr_attr).upper() == "NONE":
        return False
    return q == "ON" or (q == "QMGR" and _on(qmgr_attr))


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
        obj = self.engine.catalog.queue_def(name)
        if obj is None:
            return None
        a = obj.attributes
        depth = 0
        mq = self.engine.catalog.queues.get(obj.qid) if obj.objtype == "QLOCAL" else None
        if mq is not None:
            depth = mq.depth
        info = QueueInfo(name=name, qtype=obj.objtype, deftype=str(a.get("DEFTYPE", "PREDEFINED")),
                         crdate=str(a.get("CRDATE", "")), crtime=str(a.get("CRTIME", "")))
        return info, depth, a

    # -- building -----------------------------------------------------------------------
    def collect(self, now: float | None = None, *, statistics: bool = True,
                accounting: bool = True) -> list[tuple[str, PCFMessage]]:
        """End the interval: (queue, message) pairs for what STATMQI/STATQ/ACCT* ask for.
        Statistics (every STATINT) and accounting (every ACCTINT) can be ended separately."""
        end = time.time() if now is None else now
        eng = self.engine
        with eng.lock:
            qmgr_attrs = dict(eng.catalog.qmgr)
            if not statistics:
                return self._accounting(qmgr_attrs, end) if accounting else []
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
            acct_msgs = self._accounting(qmgr_attrs, end) if accounting else []
        start = done.interval_start
        out: list[tuple[str, PCFMessage]] = []
        if _on(qmgr_attrs.get("STATMQI")):
            msg = mqi_statistics(eng.name, done.mqi, start, end,
                                 conns_max=len(eng.connections), storage=storage)
            out.append((STATISTICS_QUEUE, msg))
        if queues:
            out += [(STATISTICS_QUEUE, m) for m in queue_statistics(eng.name, queues, start, end)]
        return out + acct_msgs

    def _accounting(self, qmgr_attrs: dict, end: float) -> list[tuple[str, PCFMessage]]:
        mqi_on, q_on = _on(qmgr_attrs.get("ACCTMQI")), str(qmgr_attrs.get("ACCTQ", "OFF"))
        out: list[tuple[str, PCFMessage]] = []
        if not mqi_on and q_on.upper() != "ON":
            return out
        for conn in list(self.engine.connections.values()):
            acct = getattr(conn, "accounting", None)
            if acct is None:
                continue
            done = acct.take()
            info = ConnectionInfo(
                connection_id=conn.hconn.to_bytes(8, "big").rjust(24, b"\0"),
                appl_name=bytes(conn.appl_name).decode("latin-1"),
                user=bytes(conn.user).decode("latin-1"), conn_time=conn.connected_at)
            start = max(done.interval_start, conn.connected_at)
            if mqi_on:
                out.append((ACCOUNTING_QUEUE, accounting_mqi(self.engine.name, info, done.mqi,
                                                              start, end)))
            qs = []
            for name, counters in sorted(done.queues.items()):
                found = self._queue_info(name)
                if found and queue_enabled(found[2].get("ACCTQ"), q_on):
                    qs.append((found[0], counters))
            if qs:
                out += [(ACCOUNTING_QUEUE, m)
                        for m in accounting_q(self.engine.name, info, qs, start, end)]
        return out

    # -- putting ------------------------------------------------------------------------
    def emit(self, now: float | None = None, *, statistics: bool = True,
             accounting: bool = True, qm: QueueManager | None = None) -> int:
        """Collect and put (through ``qm``, default the collector's own connection);
        returns the number of messages put. One interval ends at a time: the statistics
        task's and a RESET QMGR's never interleave.

        The interval's counters are reset when they are collected, so a message that cannot
        be put (MQMIError, raised to the caller) is kept, with those after it, and put first
        at the next interval: its counts are reported late, not lost."""
        with self._emitting:
            self._pending.extend(self.collect(now, statistics=statistics,
                                              accounting=accounting))
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
    last interval (IBM writes statistics at a controlled shutdown too)."""
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
            acct_due = due("ACCTINT", collector.accounting_began)
            # sleep to the earlier end; a changed STATINT or ACCTINT, or the stop, wakes it
            # (a RESET QMGR moves the beginning later: the wake at the old end looks again)
            collector.wake.wait(max(0.0, min(stat_due, acct_due) - time.monotonic()))
            collector.wake.clear()
            collector.wakes += 1
            if stopping.is_set():
                break
            now = time.monotonic()
            due_stat = now >= due("STATINT", collector.statistics_began)
            due_acct = now >= due("ACCTINT", collector.accounting_began)
            if not (due_stat or due_acct):
                continue
            try:
                collector.emit(statistics=due_stat, accounting=due_acct)
            except MQMIError as exc:  # queue full, quiescing: put at the next interval
                collector.last_error = exc

    thread = threading.Thread(target=run, name=f"mqpy-stats-{engine.name}", daemon=True)
    thread.start()

    def stop() -> None:
        stopping.set()
        collector.wake.set()
        thread.join()
        if not engine.stopped:
            try:
                collector.emit()
            except MQMIError as exc:
                collector.last_error = exc

    return stop
