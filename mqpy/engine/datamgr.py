"""Data, buffer and recovery management: what reaches the log, what reaches the pagesets, restart.

The message manager tells this module what a unit of work did (``log_put``, ``log_get``, ``commit``
...); this module decides what is logged, keeps the *dirty set* (committed changes not yet on a
pageset), writes the dirty set at checkpoints, evicts message bodies that are safely on a pageset
when the buffer pool is over budget, and rebuilds everything at restart.

Rules kept here (seed 004, DESIGN.md "Storage"):
- Write-ahead: a pageset is written only after the log covering the change has been forced.
- No-force: commit forces the log once and writes no page; a message put and got between two
  checkpoints never reaches LMDB (its insert and delete cancel in the dirty set).
- A checkpoint every LOGLOAD records, at log segment switch, when the buffer pool must steal,
  and at shutdown. Restart redoes from the oldest LSN a checkpoint still needs, so restart time is
  bounded by LOGLOAD, not by queue depth.
- Redo is idempotent: a put inserts a key if absent, a get deletes it, a backout sets absolute
  backout counts. Replaying a record whose effect is already on the pageset changes nothing.

All methods except :meth:`checkpoint`, :meth:`force` and :meth:`close` run under the engine lock,
which the caller holds.
"""

from __future__ import annotations

import collections
import contextlib
import os
import struct
import threading
import time
from collections.abc import Callable, Iterator

import attrs

from mqpy import CMQC
from mqpy.engine import records as R
from mqpy.engine.catalog import Catalog
from mqpy.engine.log import (
    HEADER_SIZE,
    LogConfig,
    LogDiskFull,
    LogError,
    LogFull,
    LogNoSpace,
    LogWriteError,
)
from mqpy.engine.objects import ObjectDef, namespace
from mqpy.engine.pageset import INDEX_SIZE, Pageset, PagesetError, pack_index
from mqpy.engine.queues import AVAILABLE, GET_PENDING, PUT_PENDING, Entry, MessageQueue
from mqpy.engine.records import RecordType
from mqpy.engine.recoverylog import RecoveryLog
from mqpy.errors import MQMIError
from mqpy.qmstanzas import Tuning as Tuning

#: how many checkpoints LOGUTIL looks back over
RESTART_LOG_HISTORY = 10

_COUNT = struct.Struct("<IQI")  # (qid, seq, backout count) in a BACKOUT record
_COMMIT, _BACKOUT, _CHECKPOINT = RecordType.COMMIT, RecordType.BACKOUT, RecordType.CHECKPOINT
#: how long a force whose write found the disk full tries again (every _SPACE_RETRY seconds)
#: before its caller is told the outcome is unknown (the records are still written, first,
#: by the next write that finds space)
SPACE_WAIT = 10.0
_SPACE_RETRY = 0.1
#: the buffer pool's list of resident bodies is rebuilt without the entries already got
#: whenever it has grown this many entries beyond twice what it held after the last rebuild
RESIDENT_SLACK = 1024


class UowBackedOut(Exception):
    """The caller's own unit of work was backed out to free log space (MQRC_BACKED_OUT)."""


@attrs.define(eq=False)
class UnitOfWork:
    """What one unit of work has done; in doubt once prepared."""

    uow_id: int
    puts: list[tuple[MessageQueue, Entry]] = attrs.Factory(list)
    gets: list[tuple[MessageQueue, Entry]] = attrs.Factory(list)
    first_lsn: int | None = None  # of its first log record, if it has logged anything
    luwid: bytes | None = None  # set when prepared (in doubt)
    # trigger messages its puts caused, made available when it commits *or* backs out
    triggers: list = attrs.Factory(list)
    # log kept formatted for its backout record's counts (RecoveryLog.reserve_more)
    backout_room: int = 0
    # what else it changed, each told how it ended: fn(True) at commit, fn(False) at backout
    # (a retained publication put under syncpoint)
    outcomes: list = attrs.Factory(list)

    @property
    def logged(self) -> bool:
        return self.first_lsn is not None


@attrs.define
class DataStats:
    checkpoints: int = 0
    checkpoint_seconds: float = 0.0
    pageset_reads: int = 0
    body_hits: int = 0
    evictions: int = 0


MakeEntry = Callable[[int, bytes], Entry]


class DataManager:
    def __init__(self, qmdir: str, catalog: Catalog, make_entry: MakeEntry,
                 log_config: LogConfig | None = None, tuning: Tuning | None = None,
                 log_dir: str | None = None) -> None:
        self.qmdir = qmdir
        self.catalog = catalog
        self.make_entry = make_entry
        self.tuning = tuning or Tuning()
        self.log = RecoveryLog(log_dir or os.path.join(qmdir, "log"), log_config)
        self.log.may_hold = self._may_hold
        self.pagesets: dict[int, Pageset] = {}
        self._dirty: dict[int, dict[bytes, tuple]] = {}
        # the dirty set of a checkpoint that could not be written: the next one writes it
        self._unwritten: dict[int, dict[bytes, tuple]] | None = None
        self._resident: collections.deque[tuple[Entry, MessageQueue]] = collections.deque()
        self.resident_bytes = 0
        self._resident_limit = RESIDENT_SLACK  # (the list's length that rebuilds it)
        self.records_since_checkpoint = 0
        self._switch_lsn = 0  # an append ending at or beyond this LSN starts a new segment
        self.active: dict[int, UnitOfWork] = {}  # uow id -> unit of work with log records
        self.indoubt: dict[bytes, UnitOfWork] = {}  # LUWID -> prepared unit of work
        self.next_seq = 1
        self.next_uow = 1
        self._ckpt_mutex = threading.Lock()
        self.closed = False  # close(): no checkpoint after it
        #: object changes logged in ``objects_together``, written at its end (end LSN, op,
        #: payload each); None outside it
        self._objects_held: list[tuple[int, str, dict]] | None = None
        self.checkpoint_wanted = threading.Event()
        #: the log restart needed (bytes) just before each of the last checkpoints released
        #: some: DISPLAY QMSTATUS's LOGUTIL, how well the workload fits the primary log
        self.restart_log_history: collections.deque[int] = collections.deque(
            maxlen=RESTART_LOG_HISTORY)
        self.stats = DataStats()
        self.lock: threading.RLock | None = None  # the engine lock, set by the engine
        # set by the engine: back out this unit of work to free log space
        self.on_log_full: Callable[[UnitOfWork], None] | None = None
        # set by the engine: the log could not be formatted (disk full) or written
        self.on_log_failure: Callable[[LogError], None] | None = None
        # set by the engine: a checkpoint could not be written to the pagesets
        self.on_checkpoint_failure: Callable[[Exception], None] | None = None

    # ------------------------------------------------------------------ pagesets

    def pageset(self, psid: int) -> Pageset:
        ps = self.pagesets.get(psid)
        if ps is None:
            ps = self.pagesets[psid] = Pageset(self.qmdir, psid)
        return ps

    def _existing_psids(self) -> list[int]:
        out = []
        for name in os.listdir(self.qmdir):
            if name.startswith("pageset") and name[7:].isdigit():
                out.append(int(name[7:]))
        return sorted(out)

    # ------------------------------------------------------------------ ids

    def new_seq(self) -> int:
        seq = self.next_seq
        self.next_seq += 1
        return seq

    def new_uow(self) -> UnitOfWork:
        uow = UnitOfWork(self.next_uow)
        self.next_uow += 1
        return uow

    # ------------------------------------------------------------------ logging (engine lock held)

    def _append(self, rtype: RecordType, payload: bytes, uow: UnitOfWork | None = None, *,
                prefix: bytes = b"", reserve: int = 0) -> int:
        """Append one record (``prefix`` and ``reserve``: as RecoveryLog.append)."""
        # identity, not ``in``: an IntEnum member hashes through a Python-level __hash__
        reserved = rtype is _COMMIT or rtype is _BACKOUT or rtype is _CHECKPOINT
        try:
            end = self.log.append(rtype, payload, reserved=reserved, prefix=prefix,
                                  reserve=reserve)
        except LogWriteError as exc:
            raise self._broken(exc) from exc
        except LogFull:
            # Free segments by checkpointing. If a long-running unit of work still pins the
            # log, the queue manager backs it out, oldest first, as IBM MQ does with circular
            # logging (AMQ7469); its owner sees MQRC_BACKED_OUT. Units of work in doubt are
            # never touched: if they alone fill the log the caller gets MQRC_RESOURCE_PROBLEM.
            if self._checkpoint_frees():
                self._checkpoint_for_space()
            while True:
                try:
                    end = self.log.append(rtype, payload, reserved=reserved, prefix=prefix,
                                          reserve=reserve)
                    break
                except LogFull as exc:
                    victim = self._oldest_inflight()
                    if victim is None or self.on_log_full is None or not self._pins(victim):
                        if isinstance(exc, LogDiskFull) and self.on_log_failure is not None:
                            self.on_log_failure(exc)  # AMQ6708; the caller gets 2102
                        raise
                    self.on_log_full(victim)
                    self._checkpoint_for_space()
                    if victim is uow:
                        raise UowBackedOut(uow.uow_id) from None
        self.records_since_checkpoint += 1
        if self.records_since_checkpoint >= self.tuning.LogLoad or end >= self._switch_lsn:
            # LOGLOAD records, or the log moved into a new segment: a checkpoint lets the
            # segments behind it be reused (and entering the last one still allowed is a switch)
            seg = self.log.segment_size
            self._switch_lsn = (end // seg + 1) * seg
            self.checkpoint_wanted.set()
        return end

    def _checkpoint_for_space(self) -> None:
        """A checkpoint to free log space; if the pagesets cannot take it (a full disk), the
        log stays full for this call (MQRC_RESOURCE_PROBLEM), not a pageset error."""
        try:
            self.checkpoint()
        except (PagesetError, LogDiskFull) as exc:
            if self.on_checkpoint_failure is not None:
                self.on_checkpoint_failure(exc)  # AMQ7002, or AMQ6708 for the log's disk
            if isinstance(exc, LogDiskFull):
                raise
            raise LogFull(f"active log full: the checkpoint to free it failed ({exc})") from exc

    def _checkpoint_frees(self) -> bool:
        """Would a checkpoint now move the redo point into a later segment? If not it frees
        nothing, and a caller retrying against a full log (or disk) would only fill the log
        with checkpoint records until some unit of work pinned it and was backed out."""
        seg = self.log.segment_size
        firsts = [u.first_lsn for u in self.active.values() if u.first_lsn is not None]
        return min([self.log.end_lsn, *firsts]) // seg > self.log.release_lsn // seg

    def _pins(self, victim: UnitOfWork) -> bool:
        """Would backing out ``victim`` (the oldest in flight) free a segment? Not if it began
        in the segment being written: then every later unit of work did too, and the redo
        point cannot leave that segment (a full disk, or a record too big for the log)."""
        seg = self.log.segment_size
        return victim.first_lsn // seg < self.log.end_lsn // seg

    def _oldest_inflight(self) -> UnitOfWork | None:
        live = [u for u in self.active.values() if u.luwid is None and u.first_lsn is not None]
        return min(live, key=lambda u: u.first_lsn) if live else None

    def log_put(self, uow: UnitOfWork, mq: MessageQueue, entry: Entry) -> int:
        # R.put_payload, without joining the key to the message record first
        key = R.uow_key(uow.uow_id, mq.qid, entry.seq)
        end = self._append(RecordType.PUT, entry.record, uow, prefix=key)
        if uow.first_lsn is None:
            self._uow_logged(uow, end - HEADER_SIZE - len(key) - len(entry.record))
        return end

    def log_get(self, uow: UnitOfWork, mq: MessageQueue, entry: Entry) -> int:
        # room for this message's count in a backout record, kept from the get's record on
        # (the log reserves it with the append, before its space checks)
        payload = R.get_payload(uow.uow_id, mq.qid, entry.seq)
        end = self._append(RecordType.GET, payload, uow, reserve=_COUNT.size)
        uow.backout_room += _COUNT.size
        if uow.first_lsn is None:
            self._uow_logged(uow, end - HEADER_SIZE - len(payload))
        return end

    def _uow_logged(self, uow: UnitOfWork, first_lsn: int) -> None:
        """The unit of work's first record: restart must redo from its *start*."""
        uow.first_lsn = first_lsn
        self.active[uow.uow_id] = uow

    def log_put1(self, mq: MessageQueue, entry: Entry) -> int:
        end = self._append(RecordType.PUT1, R.put1_payload(mq.qid, entry.seq, entry.record))
        self.committed_put(mq, entry)
        return end

    def log_get1(self, mq: MessageQueue, entry: Entry) -> int:
        end = self._append(RecordType.GET1, R.get1_payload(mq.qid, entry.seq))
        self.committed_get(mq, entry)
        return end

    def log_commit(self, uow: UnitOfWork) -> int:
        # the unit of work ends with its record: its backout reserve is free (the log
        # gives it back with the append)
        end = self._append(RecordType.COMMIT, R.uow_payload(uow.uow_id),
                           reserve=-uow.backout_room)
        uow.backout_room = 0
        self.active.pop(uow.uow_id, None)
        if uow.luwid is not None:
            self.indoubt.pop(uow.luwid, None)
        return end

    def log_backout(self, uow: UnitOfWork, counts: list[tuple[int, int, int]]) -> int:
        extra = b"".join(_COUNT.pack(*c) for c in counts)
        end = self._append(RecordType.BACKOUT, R.uow_payload(uow.uow_id, extra),
                           reserve=-uow.backout_room)
        uow.backout_room = 0
        self.active.pop(uow.uow_id, None)
        if uow.luwid is not None:
            self.indoubt.pop(uow.luwid, None)
        return end

    def log_prepare(self, uow: UnitOfWork, luwid: bytes) -> int:
        if uow.first_lsn is None:
            # Nothing persistent yet: still record the prepare so the LUWID survives restart.
            uow.first_lsn = self.log.end_lsn
            self.active[uow.uow_id] = uow
        end = self._append(RecordType.PREPARE, R.uow_payload(uow.uow_id, luwid))
        uow.luwid = luwid
        self.indoubt[luwid] = uow
        return end

    def log_object(self, op: str, obj: ObjectDef) -> None:
        """Log an object change, force it, then write it through to pageset 0 (in
        ``objects_together``: at the end of the block)."""
        payload = obj.to_json() if op != "delete" else {"objtype": obj.objtype, "name": obj.name}
        end = self._append(RecordType.OBJECT, R.object_payload(op, obj.objtype, obj.name, payload))
        if self._objects_held is not None:
            self._objects_held.append((end, op, payload))
            return
        self.force(end)
        self._store_object(op, payload)

    @contextlib.contextmanager
    def objects_together(self) -> Iterator[None]:
        """The object changes logged in this block (a queue manager being created, its
        system objects defined: nothing can see them before it ends) forced with one force
        of the log at its end, then written to pageset 0 in one transaction, rather than a
        force and a transaction each. The write-ahead rule holds: the log is forced before
        the pageset is written. If the block raises, nothing is written to pageset 0 (the
        log has the records: a restart redoes them)."""
        assert self._objects_held is None, "objects_together does not nest"
        held: list[tuple[int, str, dict]] = []
        self._objects_held = held
        try:
            yield
        finally:
            self._objects_held = None
        if held:
            self.force(held[-1][0])
            self.pageset(0).store_objects([
                (namespace(payload["objtype"]), payload["name"],
                 payload if op != "delete" else None) for _, op, payload in held])

    def _store_object(self, op: str, payload: dict) -> None:
        key_type = namespace(payload["objtype"])
        self.pageset(0).store_object(key_type, payload["name"],
                                     payload if op != "delete" else None)

    def force(self, lsn: int) -> None:
        """Force the log up to ``lsn``. If the log cannot be written the queue manager stops
        (``on_log_failure``) and the caller gets MQRC_CONNECTION_BROKEN: whether its work
        reached the disk is for restart to say, as when a queue manager ends under a call.
        A write that found the disk full is tried again for SPACE_WAIT seconds (AMQ6708 is
        logged): once there is space the call completes; if there is none by then the
        caller gets MQRC_CONNECTION_BROKEN (its work is done in the queue manager and reaches
        the disk with the next write that finds space; a restart before that backs it out)
        and the queue manager goes on."""
        deadline = None
        while True:
            try:
                self.log.force(lsn)
                return
            except LogWriteError as exc:
                raise self._broken(exc) from exc
            except LogNoSpace as exc:
                now = time.monotonic()
                if deadline is None:
                    deadline = now + SPACE_WAIT
                    if self.on_log_failure is not None:
                        self.on_log_failure(exc)  # AMQ6708, once a minute
                if now >= deadline:
                    raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from exc
                time.sleep(_SPACE_RETRY)

    def _may_hold(self) -> bool:
        """May a log force of this thread wait for the last round's forcers (the log's
        ``may_hold``)? Not with the engine lock held (an object definition, a report put
        inside a commit): they need that lock to come back."""
        lock = self.lock
        return lock is None or not lock._is_owned()  # type: ignore[attr-defined]

    def _broken(self, exc: LogWriteError) -> MQMIError:
        if self.on_log_failure is not None:
            self.on_log_failure(exc)
        return MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_CONNECTION_BROKEN)

    # ------------------------------------------------------------------ dirty set

    def _key(self, mq: MessageQueue, entry: Entry) -> tuple[dict[bytes, tuple], bytes]:
        return self._dirty.setdefault(mq.psid, {}), R.msg_key(mq.qid, entry.seq)

    def committed_put(self, mq: MessageQueue, entry: Entry) -> None:
        if not entry.persistent:
            return
        dirty, key = self._key(mq, entry)
        dirty[key] = ("P", entry)
        if entry.record is not None:
            self.resident_bytes += len(entry.record)
            self._resident.append((entry, mq))
            if len(self._resident) > self._resident_limit:
                self._forget_got()
        if self.resident_bytes > self.tuning.BufferPoolBytes \
                and not self.checkpoint_wanted.is_set():  # (set() takes a lock each time)
            self.checkpoint_wanted.set()

    def _forget_got(self) -> None:
        """Rebuild the list of resident bodies without the entries got since: eviction
        drops those only from its head, so one message that stays on a queue (parked,
        dead-lettered, never read) kept every later entry in it, one per persistent message
        ever put, while the queues drained and the pool never filled."""
        self._resident = collections.deque(
            item for item in self._resident if item[0].record is not None)
        self._resident_limit = 2 * len(self._resident) + RESIDENT_SLACK

    def committed_get(self, mq: MessageQueue, entry: Entry) -> None:
        if not entry.persistent:
            return
        dirty, key = self._key(mq, entry)
        if entry.on_pageset:
            dirty[key] = ("D",)
        else:
            dirty.pop(key, None)
        if entry.record is not None:
            self.resident_bytes -= len(entry.record)
            entry.record = None

    def backout_count_changed(self, mq: MessageQueue, entry: Entry) -> None:
        if not entry.persistent:
            return
        dirty, key = self._key(mq, entry)
        if dirty.get(key, ("",))[0] != "P":
            dirty[key] = ("B", entry)

    def read_record(self, mq: MessageQueue, entry: Entry) -> bytes:
        """The stored message of an entry, from memory or (evicted) from its pageset."""
        if entry.record is not None:
            self.stats.body_hits += 1
            return entry.record
        self.stats.pageset_reads += 1
        rec = self.pageset(mq.psid).read_message(R.msg_key(mq.qid, entry.seq))
        if rec is None:
            raise LookupError(f"message {mq.qid}/{entry.seq} missing from pageset {mq.psid}")
        return rec

    # ------------------------------------------------------------------ checkpoint

    @staticmethod
    def _index_of(entry: Entry) -> bytes:
        return pack_index(entry.priority, entry.backout_count, entry.length, entry.expiry_at,
                          entry.msgid, entry.correlid)

    def checkpoint(self) -> None:
        """Write the dirty set to the pagesets (after forcing the log) and move the redo point.

        Lock order: the checkpoint mutex is only ever taken while holding the engine lock, and
        whoever holds the mutex never waits for the engine lock. So a thread inside an MQI call
        (engine lock held) may checkpoint synchronously while the checkpoint thread runs. A
        log that fails under the checkpoint is reported (``on_log_failure``, which takes the
        engine lock) only once the mutex is released.
        """
        assert self.lock is not None
        started = time.perf_counter()
        with self.lock:
            self._ckpt_mutex.acquire()
            if self.closed:  # the housekeeping thread, late: the queue manager has ended
                self._ckpt_mutex.release()
                return
            try:
                self.checkpoint_wanted.clear()
                taken, work, meta, redo, lsn = self._snapshot()
            except LogWriteError as exc:
                self._ckpt_mutex.release()
                raise self._broken(exc) from exc
            except BaseException:
                self._ckpt_mutex.release()
                raise
        broken: LogWriteError | None = None
        try:
            self.log.force(lsn)  # the write-ahead rule
            for psid, (puts, deletes, updates) in work.items():
                self.pageset(psid).apply(puts, deletes, updates, {})
            self.pageset(0).apply([], [], [], meta)
            self.restart_log_history.append(lsn - self.log.release_lsn)
            self.log.release(redo)
        except BaseException as exc:
            # Nothing is released, so the log still holds all of it; the next checkpoint
            # writes these changes with its own (under the mutex, so none can come between).
            self._unwritten = taken
            self.checkpoint_wanted.set()
            if not isinstance(exc, LogWriteError):
                raise
            broken = exc
        finally:
            self._ckpt_mutex.release()
        if broken is not None:
            raise self._broken(broken) from broken
        with self.lock:
            self._evict()
        self.stats.checkpoints += 1
        self.stats.checkpoint_seconds += time.perf_counter() - started

    def _snapshot(self) -> tuple[dict, dict, dict[str, int], int, int]:
        """Take the dirty set (with what a failed checkpoint left unwritten) and the redo
        point, and log the checkpoint (engine lock and checkpoint mutex held). The checkpoint
        record is appended first: if the log refuses it (full, or a full disk cannot format
        the segment it needs) nothing has been taken, and the next checkpoint writes it all."""
        end = self.log.end_lsn
        firsts = [u.first_lsn for u in self.active.values() if u.first_lsn is not None]
        redo = min([end, *firsts])
        if self._unwritten is None:
            lsn = self.log.append(RecordType.CHECKPOINT,
                                  R.checkpoint_payload(redo, self.next_seq, self.next_uow),
                                  reserved=True)
        else:
            # A retry while the pagesets refuse writes: restart takes the redo point from
            # pageset 0, not from this record, so one per retry would only use up the log
            # that commit and backout records are kept room for.
            lsn = end
        snapshot, self._dirty = self._dirty, {}
        if self._unwritten is not None:
            for psid, older in self._unwritten.items():
                ops = snapshot.setdefault(psid, {})
                for key, op in older.items():
                    newer = ops.get(key)
                    # a later get (D) or put supersedes; a later backout count (B) does not
                    # supersede a put the pageset never had: the put writes the current entry
                    if newer is None or (op[0] == "P" and newer[0] == "B"):
                        ops[key] = op
            self._unwritten = None
        work = {}
        for psid, ops in snapshot.items():
            puts, deletes, updates = [], [], []
            for key, op in ops.items():
                if op[0] == "P":
                    op[1].on_pageset = True
                    puts.append((key, op[1].record, self._index_of(op[1])))
                elif op[0] == "D":
                    deletes.append(key)
                else:
                    updates.append((key, self._index_of(op[1])))
            work[psid] = (puts, deletes, updates)
        meta = {"redo_lsn": redo, "next_seq": self.next_seq, "next_uow": self.next_uow,
                "next_qid": self.catalog.next_qid}
        self.records_since_checkpoint = 0
        return snapshot, work, meta, redo, lsn

    def _evict(self) -> None:
        """Drop bodies that are safely on a pageset until the buffer pool is within budget;
        a committed message left without its body goes cold (no Python object, queues.py)."""
        budget = self.tuning.BufferPoolBytes // 2
        # While a failed checkpoint's changes are unwritten, ``on_pageset`` of their puts is
        # set (so that a get records the delete) though no pageset has them: keep every body
        # until the next checkpoint has written them.
        while self.resident_bytes > budget and self._resident and self._unwritten is None:
            entry, mq = self._resident[0]
            if entry.record is None:
                self._resident.popleft()
                continue
            if not entry.on_pageset:
                break
            self._resident.popleft()
            self.resident_bytes -= len(entry.record)
            entry.record = None
            self.stats.evictions += 1
            mq.freeze(entry)
        # forget entries already got, so the deque does not grow without bound
        while self._resident and self._resident[0][0].record is None:
            self._resident.popleft()

    # ------------------------------------------------------------------ restart

    def restart(self) -> list[UnitOfWork]:
        """Rebuild the catalog and queues from pagesets and log; return in-doubt units of work.

        Raises LogCorrupt / PagesetError when committed data cannot be trusted.
        """
        assert self.lock is not None
        meta = self._load_pagesets()
        pending = self._replay_log(meta.get("redo_lsn", 0))
        indoubt = []
        for uow_id, st in sorted(pending.items()):
            uow = UnitOfWork(uow_id, first_lsn=st["first"])
            if st["luwid"] is None:
                self._undo_in_flight(uow, st)
            else:
                indoubt.append(self._restore_in_doubt(uow, st))
        seg = self.log.segment_size
        self._switch_lsn = (self.log.end_lsn // seg + 1) * seg
        return indoubt

    def _load_pagesets(self) -> dict:
        """The catalog and the queues as of the last checkpoint (pageset 0's objects and
        counters, every message pageset's index); index entries of queues that no longer
        exist are deleted at the next checkpoint. Pageset 0's meta record."""
        cat = self.catalog
        ps0 = self.pageset(0)
        meta = ps0.read_meta()
        for d in ps0.load_objects():
            cat.install(ObjectDef.from_json(d))
        cat.next_qid = max(cat.next_qid, meta.get("next_qid", 1))
        self.next_seq = max(self.next_seq, meta.get("next_seq", 1))
        self.next_uow = max(self.next_uow, meta.get("next_uow", 1))
        for psid in self._existing_psids():
            if psid == 0:
                continue
            ps = self.pageset(psid)
            stale = []
            split, queues = R.split_msg_key, cat.queues
            last_qid, mq = None, None
            for key, raw in ps.iter_index():
                qid, seq = split(key)
                if qid != last_qid:
                    last_qid, mq = qid, queues.get(qid)
                if mq is None:
                    stale.append(key)
                    continue
                if len(raw) != INDEX_SIZE:
                    raise PagesetError(ps.path, f"index entry {key.hex()} is {len(raw)} bytes")
                mq.load(seq, raw)
            if stale:
                self._dirty.setdefault(psid, {}).update({k: ("D",) for k in stale})
        for mq in cat.queues.values():
            mq.loaded()
            self.next_seq = max(self.next_seq, mq.max_seq() + 1)
        return meta

    def _replay_log(self, redo: int) -> dict[int, dict]:
        """Redo the log from ``redo``: work outside units of work and committed units of
        work applied, backed-out ones dropped. The units of work still open at its end (in
        flight, or prepared: with a LUWID), by id: their puts, gets and first LSN."""
        self.log.open_at(redo)
        pending: dict[int, dict] = {}

        def uow_state(uow_id: int, lsn: int) -> dict:
            self.next_uow = max(self.next_uow, uow_id + 1)
            return pending.setdefault(uow_id, {"puts": [], "gets": [], "luwid": None,
                                               "first": lsn})

        for rec in self.log.scan(redo):
            d = R.decode(rec.rtype, rec.payload)
            rt = d.rtype
            if rt is RecordType.PUT:
                uow_state(d.uow, rec.lsn)["puts"].append((d.qid, d.seq, d.record))
                self.next_seq = max(self.next_seq, d.seq + 1)
            elif rt is RecordType.GET:
                uow_state(d.uow, rec.lsn)["gets"].append((d.qid, d.seq))
            elif rt is RecordType.PUT1:
                self._redo_insert(d.qid, d.seq, d.record)
                self.next_seq = max(self.next_seq, d.seq + 1)
            elif rt is RecordType.GET1:
                self._redo_delete(d.qid, d.seq)
            elif rt is RecordType.COMMIT:
                st = pending.pop(d.uow, None)
                if st is not None:
                    for qid, seq, record in st["puts"]:
                        self._redo_insert(qid, seq, record)
                    for qid, seq in st["gets"]:
                        self._redo_delete(qid, seq)
            elif rt is RecordType.BACKOUT:
                pending.pop(d.uow, None)
                self._redo_counts(d.extra)
            elif rt is RecordType.PREPARE:
                uow_state(d.uow, rec.lsn)["luwid"] = bytes(d.extra)
            elif rt is RecordType.OBJECT:
                self._redo_object(d.obj)
            self.records_since_checkpoint += 1
        return pending

    def _undo_in_flight(self, uow: UnitOfWork, st: dict) -> None:
        """A unit of work in flight at the crash: undone. Its puts vanish; its gets come
        back with their backout count one higher, and a backout record says so."""
        cat = self.catalog
        counts = []
        for qid, seq in st["gets"]:
            mq = cat.queues.get(qid)
            e = mq.get(seq) if mq is not None else None
            if e is not None:
                e.backout_count += 1
                mq.touch(e)
                counts.append((qid, seq, e.backout_count))
                self.backout_count_changed(mq, e)
        self.log_backout(uow, counts)

    def _restore_in_doubt(self, uow: UnitOfWork, st: dict) -> UnitOfWork:
        """A prepared unit of work: in doubt again, its puts pending and its gets held,
        until RESOLVE commits or backs it out."""
        cat = self.catalog
        uow.luwid = st["luwid"]
        for qid, seq, record in st["puts"]:
            mq = cat.queues.get(qid)
            if mq is None or mq.get(seq) is not None:
                continue
            e = self.make_entry(seq, record)
            e.state, e.owner = PUT_PENDING, uow
            mq.add(e)
            uow.puts.append((mq, e))
        for qid, seq in st["gets"]:
            mq = cat.queues.get(qid)
            e = mq.get(seq) if mq is not None else None
            if e is not None and e.state == AVAILABLE:
                mq.set_state(e, GET_PENDING, uow)
                uow.gets.append((mq, e))
        uow.backout_room = _COUNT.size * len(uow.gets)  # (RESOLVE may back out)
        self.log.reserve_more(uow.backout_room)
        self.active[uow.uow_id] = uow
        self.indoubt[uow.luwid] = uow
        return uow

    def _redo_insert(self, qid: int, seq: int, record: bytes) -> None:
        mq = self.catalog.queues.get(qid)
        if mq is None or mq.get(seq) is not None:
            return
        e = self.make_entry(seq, record)
        mq.add(e)
        self.committed_put(mq, e)

    def _redo_delete(self, qid: int, seq: int) -> None:
        mq = self.catalog.queues.get(qid)
        e = mq.get(seq) if mq is not None else None
        if e is not None:
            mq.remove(e)
            self.committed_get(mq, e)

    def _redo_counts(self, extra: bytes | None) -> None:
        for off in range(0, len(extra or b""), _COUNT.size):
            qid, seq, count = _COUNT.unpack_from(extra, off)
            mq = self.catalog.queues.get(qid)
            e = mq.get(seq) if mq is not None else None
            if e is not None:
                e.backout_count = count
                mq.touch(e)
                self.backout_count_changed(mq, e)

    def _redo_object(self, rec: dict) -> None:
        op, payload = rec["op"], rec["attrs"]
        if op == "delete":
            obj = self.catalog.lookup(payload["objtype"], payload["name"])
            if obj is not None:
                self.drop_queue(obj, self.catalog.queues.get(obj.qid))
                self.catalog.remove(obj.objtype, obj.name)
        else:
            self.catalog.install(ObjectDef.from_json(payload))
        self._store_object(op, payload)

    def drop_queue(self, obj: ObjectDef, mq: MessageQueue | None = None) -> None:
        """A deleted local queue's persistent messages leave its pageset at the next checkpoint."""
        if mq is None:
            return
        dirty = self._dirty.setdefault(mq.psid, {})
        for e in mq.entries():
            key = R.msg_key(mq.qid, e.seq)
            if e.on_pageset:
                dirty[key] = ("D",)
            else:
                dirty.pop(key, None)

    def close(self) -> None:
        """Close the log and the pagesets, once no checkpoint is writing them: the
        housekeeping thread's may still be (close() waits for that thread a while only), and
        an LMDB environment closed under a write transaction is not to be had. Taken with
        the engine lock held, as checkpoint() takes the mutex."""
        with self._ckpt_mutex:
            self.closed = True
            self.log.close()
            for ps in self.pagesets.values():
                ps.close()
            self.pagesets.clear()
