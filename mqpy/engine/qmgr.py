"""The queue manager's engine object (:class:`QueueManagerEngine`): create and restart,
shutdown, checkpoints and expiry scans, object definitions, the messages the queue manager puts
itself (reports, trigger messages, dead letters), MQCONN and in-doubt resolution.

One re-entrant lock guards all in-memory state; MQI calls hold it only for in-memory work. The
slow parts happen outside it: forcing the log at commit (so concurrent committers share one
fsync) and waiting for a message. The engine is synchronous and thread-safe. Waiting gets take
an optional *waiter* callback so an event loop (the trio server of the daemon) can wait without
a thread: the engine calls it when a message may have arrived, and the caller retries.

A connection and its calls live beside it, one MQ concept a module: ``connection`` (the
connection and its handle table), ``mqopen`` (MQOPEN, MQCLOSE), ``mqput`` (MQPUT, MQPUT1),
``mqget`` (MQGET), ``uow`` (units of work), ``mqinq`` (MQINQ, MQSET), ``handle`` (an open
handle), ``mqmd`` and ``options`` (what the calls accept), ``fastpath`` (the fast paths'
switch), ``distlist`` (distribution lists), ``stats`` (the counters).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from mqpy import CMQC, amqmsgs, errorlog
from mqpy.engine import instrumentation, reports, resolution, triggers
from mqpy.engine import records as R
from mqpy.engine.authority import AllowAll, Authority
from mqpy.engine.catalog import Catalog
from mqpy.engine.cluster import ClusterDirectory
from mqpy.engine.connection import Connection
from mqpy.engine.datamgr import DataManager, Tuning, UnitOfWork, UowBackedOut
from mqpy.engine.defaultobjects import add_missing_objects
from mqpy.engine.handle import Handle
from mqpy.engine.log import LogConfig, LogDiskFull, LogError, LogFull
from mqpy.engine.mqmd import (
    _NO_ID,
    _NONE24,
    _id24,
    _put_timestamp,
    _transmission_message,
    _trusted,
    entry_from_record,
)
from mqpy.engine.objects import QMGR_DEFAULTS, SYSTEM_OBJECTS, ObjectDef
from mqpy.engine.options import _INPUT_OPTS, _RO_COA, _fail, _strip
from mqpy.engine.pageset import PagesetError, PagesetFull
from mqpy.engine.queues import PUT_PENDING, Entry, MessageQueue, file_room
from mqpy.engine.stats import Statistics
from mqpy.engine.uow import back_out_uow, commit_uow
from mqpy.errors import MQMIError
from mqpy.structs.tables import MD

_CHECKPOINT_RETRY_SECONDS = 5  # after a failed checkpoint, before the next attempt


class QueueManagerEngine:
    """One queue manager's engine; construct with :meth:`create` or :meth:`open`."""

    def __init__(self, qmdir: str, name: str, log_config: LogConfig | None = None,
                 tuning: Tuning | None = None, log_dir: str | None = None) -> None:
        self.qmdir = qmdir
        self.name = name
        self.lock = threading.RLock()
        self.catalog = Catalog()
        self.data = DataManager(qmdir, self.catalog, entry_from_record, log_config, tuning,
                                log_dir)
        self.data.lock = self.lock
        self.data.on_log_full = self._back_out_for_log
        self.data.on_log_failure = self._log_failed
        self.data.on_checkpoint_failure = self._checkpoint_failed
        self.connections: dict[int, Connection] = {}
        self._next_hconn = 1
        self._msgid_base = int(time.time() * 1_000_000)
        self._msgid_prefix: bytes | None = None
        self.quiescing = False
        self.stopped = False
        self.failed: LogError | None = None  # the log write that stopped the queue manager
        self._closed = False
        self._disk_full_reported = 0.0
        self._pageset_error_reported = 0.0
        self._checkpointer: threading.Thread | None = None
        self._expiry_stop = threading.Event()
        self.started_at = time.time()
        self.log_full_backouts = 0
        self.stats = Statistics()
        self.authority: Authority = AllowAll()
        self.stats_expired = 0
        self.expiry_interval = 60.0  # seconds between expiry scans
        self._last_expiry_scan = time.monotonic()
        self.cluster: ClusterDirectory | None = None  # set by mqpy.inprocess.start
        #: the queue manager's PERFMEV is ENABLED: the put and get paths then tell
        #: ``instrumentation`` of depth changes (one attribute check when it is not)
        self.perfm_events = False
        #: an object an MQI call changed or deleted (MQSET, an MQCLOSE that deleted a
        #: permanent dynamic queue): called as ``(conn, call, obj, before)`` after the change
        #: (``before``: the attributes it had). The MQSC layer installs its configuration
        #: events here (``mqpy.mqsc.adminevents.install``); None: no call pays for them.
        self.object_changed: Callable[[Connection, str, ObjectDef, dict], None] | None = None
        #: ``.conn``: the connection whose call defers its log forces on this thread
        #: (mqpy.loopcalls); the queue manager's own puts in that call defer with it.
        self.deferring = threading.local()

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def create(cls, qmdir: str, name: str, *, dead_letter_queue: str = "",
               log_config: LogConfig | None = None, tuning: Tuning | None = None,
               log_dir: str | None = None) -> QueueManagerEngine:
        """Create a queue manager: pagesets, log, and the system and default objects."""
        if os.path.exists(os.path.join(qmdir, "pageset00")):
            raise FileExistsError(qmdir)
        os.makedirs(qmdir, exist_ok=True)
        eng = cls(qmdir, name, log_config, tuning, log_dir)
        with eng.lock:
            eng.data.restart()
            qm = ObjectDef.new("QMGR", name, {"QMNAME": name})
            qm.attributes.update({k: v for k, v in _qmgr_defaults().items()
                                  if k not in qm.attributes})
            eng.catalog.qmgr = qm.attributes
            eng.perfm_events = instrumentation.perfm_enabled(qm.attributes)
            # nothing can connect before crtmqm ends: one log force and one pageset write
            # for all of them, not one each
            with eng.data.objects_together():
                eng.data.log_object("define", qm)
                eng.catalog.install(qm)
                for objtype, oname, attributes in SYSTEM_OBJECTS:
                    eng.define(objtype, oname, attributes)
                if dead_letter_queue:
                    eng.define("QLOCAL", dead_letter_queue, {})
                    eng.alter_qmgr({"DEADQ": dead_letter_queue})
        eng.data.checkpoint()
        eng._start_threads()
        return eng

    @classmethod
    def open(cls, qmdir: str, name: str, log_config: LogConfig | None = None,
             tuning: Tuning | None = None, log_dir: str | None = None) -> QueueManagerEngine:
        """Restart a queue manager from its pagesets and log."""
        if not os.path.exists(os.path.join(qmdir, "pageset00")):
            raise FileNotFoundError(qmdir)
        eng = cls(qmdir, name, log_config, tuning, log_dir)
        with eng.lock:
            eng.data.restart()
            qm = eng.catalog.lookup("QMGR", name)
            if qm is None:
                raise PagesetError(os.path.join(qmdir, "pageset00"),
                                   f"no queue manager object {name}")
            eng.catalog.qmgr = qm.attributes
            eng.perfm_events = instrumentation.perfm_enabled(qm.attributes)
            # temporary dynamic queues do not survive a restart
            for obj in [o for o in eng.catalog.by_type("QLOCAL")
                        if o.attributes.get("DEFTYPE") == "TEMPDYN"]:
                eng._delete_queue_locked(obj, purge=True, force=True)
            # the system objects added since it was made (IBM's migration at strmqm)
            add_missing_objects(eng)
        eng.data.checkpoint()
        eng._start_threads()
        return eng

    def _start_threads(self) -> None:
        self._checkpointer = threading.Thread(target=self._checkpoint_loop,
                                              name=f"checkpoint-{self.name}", daemon=True)
        self._checkpointer.start()

    def _checkpoint_loop(self) -> None:
        """The queue manager's housekeeping thread: checkpoints when wanted, expiry scans.
        It sleeps until a checkpoint is wanted (``close`` wants one too) or the next scan is
        due, so that an idle queue manager's thread does not wake to find nothing to do."""
        while not self.stopped:
            self.data.checkpoint_wanted.wait(
                max(0.0, self._last_expiry_scan + self.expiry_interval - time.monotonic()))
            if self.stopped:
                break
            try:
                if time.monotonic() - self._last_expiry_scan >= self.expiry_interval:
                    self._last_expiry_scan = time.monotonic()
                    self.expire_scan()
                if self.data.checkpoint_wanted.is_set():
                    self.data.checkpoint()
            except Exception as exc:  # noqa: BLE001 - logged; tried again later
                if self.stopped:
                    break
                self._checkpoint_failed(exc)
                for _ in range(_CHECKPOINT_RETRY_SECONDS):  # not in a tight loop
                    if self.stopped:
                        break
                    time.sleep(1.0)

    def _checkpoint_failed(self, exc: Exception) -> None:
        """A checkpoint (or an expiry scan) failed: the pagesets keep their last checkpoint,
        the log keeps everything since (so nothing is lost), and the housekeeping thread tries
        again. A pageset that cannot be written (a full disk) is AMQ7002, once a minute, a
        log segment the disk cannot take AMQ6708 (the same); anything else an FDC."""
        if isinstance(exc, LogDiskFull):  # its record needs a log segment the disk refused
            self._log_failed(exc)  # AMQ6708, once a minute
            return
        errors = os.path.join(self.qmdir, "errors")
        log = errorlog.ErrorLog(errors, qmgr=self.name, program="amqzxma0")
        if isinstance(exc, PagesetError):
            now = time.monotonic()
            if now - self._pageset_error_reported >= 60.0:
                self._pageset_error_reported = now
                log.write(amqmsgs.AMQ7002, inserts={"offset": 0, "path": exc.path,
                                                     "detail": exc.detail})
        else:
            try:
                errorlog.write_fdc(errors, "HL081001", "checkpoint", exc, qmgr=self.name,
                                   errorlog=log)
            except OSError:  # no room even for the FDC: the error log entry says enough
                log.write(amqmsgs.AMQ6119, inserts={"detail": f"checkpoint failed: {exc}"})

    def close(self, *, checkpoint: bool = True) -> None:
        """Shut down: back out open units of work, checkpoint, close files. After a log
        failure nothing more is written: restart backs out what was in flight. A checkpoint
        the pagesets refuse is reported and the shutdown goes on (restart redoes the log)."""
        with self.lock:
            if self._closed:
                return
            self._closed = True
            self.quiescing = True
            failed = self.failed is not None
            for conn in list(self.connections.values()):
                if not failed:
                    conn._disconnect_locked(abnormal=True)
                conn.broken = True
        if checkpoint and not failed:
            try:
                self.data.checkpoint()
            except Exception as exc:  # noqa: BLE001 - the log keeps it all: restart redoes it
                if self.failed is None:  # (a log failure under it was reported already)
                    self._checkpoint_failed(exc)
        self.stopped = True
        self.data.checkpoint_wanted.set()
        if self._checkpointer is not None and self._checkpointer is not threading.current_thread():
            self._checkpointer.join(5)
        with self.lock:
            self.data.close()

    def _log_failed(self, exc: LogError) -> None:
        """The log could not be formatted (a full disk: AMQ6708, the call gets 2102 and the
        queue manager goes on) or written (AMQ6119: the queue manager stops at once, every
        connection gets MQRC_CONNECTION_BROKEN, and nothing more reaches the log or the
        pagesets, so restart recovers exactly what the disk holds)."""
        log = errorlog.ErrorLog(os.path.join(self.qmdir, "errors"), qmgr=self.name,
                                program="amqzxma0")
        if isinstance(exc, LogDiskFull):
            now = time.monotonic()
            if now - self._disk_full_reported >= 60.0:  # once a minute while it lasts
                self._disk_full_reported = now
                log.write(amqmsgs.AMQ6708, inserts={"location": exc.location})
            return
        with self.lock:
            if self.failed is not None:
                return
            self.failed = exc
            self.stopped = True
            for mq in self.catalog.queues.values():
                mq.wake()  # waiting getters see the connection broken
        log.write(amqmsgs.AMQ6119, inserts={"detail": f"{exc} (the queue manager ended)"})

    def quiesce(self) -> None:
        """A controlled end: calls with FAIL_IF_QUIESCING now fail with 2161; waiters wake."""
        with self.lock:
            self.quiescing = True
            for mq in self.catalog.queues.values():
                mq.wake()

    def checkpoint(self) -> None:
        self.data.checkpoint()

    # ------------------------------------------------------------------ storing messages

    def _store(self, conn: Connection | None, base: ObjectDef, mq: MessageQueue,
               md_bytes: bytes, body: bytes, *, priority: int, persistent: bool, msgid: bytes,
               correlid: bytes, expiry: int, report: int, now: float, syncpoint: bool,
               put1: bool = False) -> int | None:
        """Put one message on local queue ``base`` (engine lock held); the LSN to force."""
        a = base.attributes
        length = len(body)
        if length > int(a.get("MAXMSGL", 4194304)):  # type: ignore[arg-type]
            raise _fail(CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
        if mq.count - mq.getting >= int(a.get("MAXDEPTH", 5000)):  # type: ignore[arg-type]
            if self.perfm_events:
                instrumentation.queue_full(self, base, mq)
            raise _fail(CMQC.MQRC_Q_FULL)
        if mq.stored + length > file_room(a.get("MAXFSIZE")):
            raise _fail(CMQC.MQRC_Q_SPACE_NOT_AVAILABLE)
        record = R.encode_message(now, md_bytes, body, flags=R.message_flags(md_bytes))
        expiry_at = now + expiry / 10.0 if expiry > 0 else 0.0
        entry = Entry(self.data.new_seq(), priority, persistent, _id24(msgid),
                      _NONE24 if correlid in _NO_ID else _id24(correlid), expiry_at, length,
                      record, now)
        entry.report = report
        lsn = self._enqueue(conn, base, mq, entry, persistent, syncpoint)
        mq.last_put = now
        p = 1 if persistent else 0
        stats = self.stats
        qs = stats.queue(base.name)
        if conn is None:
            counted: tuple = (stats.mqi, qs)
        else:  # accounting: the same, per connection
            acc = conn.accounting
            counted = (stats.mqi, qs, acc.mqi, acc.queue(base.name))
        for counters in counted:
            (counters.put1s if put1 else counters.puts)[p] += 1
            counters.put_bytes[p] += length
        qs.depth_seen(mq.count - mq.getting)
        if self.perfm_events:
            instrumentation.after_put(self, base, mq)
        return lsn

    def _enqueue(self, conn: Connection | None, base: ObjectDef, mq: MessageQueue,
                 entry: Entry, persistent: bool, syncpoint: bool) -> int | None:
        """Log (if persistent) and queue a new message; the LSN to force, if any."""
        lsn = None
        try:
            if syncpoint:
                assert conn is not None
                uow = conn._uow()
                if persistent:
                    self.data.log_put(uow, mq, entry)
                entry.state, entry.owner = PUT_PENDING, uow
                mq.add(entry)
                uow.puts.append((mq, entry))
                if base.attributes.get("TRIGGER") == "YES":
                    self._trigger_check(base, mq, entry, uow=uow)
            else:
                if persistent:
                    lsn = self.data.log_put1(mq, entry)
                mq.add(entry)
                self._arrived(base, mq, entry)
        except UowBackedOut:
            raise _fail(CMQC.MQRC_BACKED_OUT) from None
        except PagesetFull:
            raise _fail(CMQC.MQRC_STORAGE_MEDIUM_FULL) from None
        except LogError:  # LogFull included
            raise _fail(CMQC.MQRC_RESOURCE_PROBLEM) from None
        return lsn

    def _arrived(self, base: ObjectDef, mq: MessageQueue, entry: Entry, *,
                 committed: bool = False) -> None:
        """A message became available: wake getters, confirm on arrival, and (for a put
        outside syncpoint; a unit of work's puts were judged when put) check triggers."""
        if mq.waiters:
            mq.wake()
        if entry.report & _RO_COA and base.attributes.get("USAGE") != "XMITQ":
            self._report_from_entry("COA", mq, entry)
        if not committed and base.attributes.get("TRIGGER") == "YES":
            self._trigger_check(base, mq, entry)

    def _report_from_entry(self, kind: str, mq: MessageQueue, entry: Entry,
                           feedback: int | None = None) -> None:
        self._report_from_record(kind, self.data.read_record(mq, entry), feedback)

    def _report_from_record(self, kind: str, record: bytes, feedback: int | None = None) -> None:
        _put_time, _bo, md_bytes, body = R.decode_message(record)
        self.report(kind, MD().unpack(md_bytes), body, feedback=feedback)

    def report(self, kind: str, original: MD, data: bytes, *, feedback: int | None = None) -> None:
        """Send the COA/COD/EXPIRATION/EXCEPTION report ``original`` asked for, if any."""
        built = reports.build_report(kind, original, data, feedback=feedback,
                                     qmgr_name=self.name, msgid=self.new_msgid())
        if built is None:
            return
        rmd, body = built
        self._system_put(_strip(original.ReplyToQ), _strip(original.ReplyToQMgr), rmd, body)

    def _system_put(self, qname: str, qmname: str, md: MD, body: bytes, *,
                    dead_letter: bool = True) -> bool:
        """A put by the queue manager itself (reports, trigger messages, dead letters), outside
        syncpoint, context as given; an undeliverable one goes to the dead-letter queue."""
        try:
            res = resolution.resolve(self.catalog, self.name, qname, qmname)
            if res.target.objtype != "QLOCAL":
                raise _fail(CMQC.MQRC_Q_TYPE_ERROR)
            if res.target.attributes.get("PUT") == "DISABLED":
                raise _fail(CMQC.MQRC_PUT_INHIBITED)
            out_md, out = md, body
            if res.remote_qm is not None:
                out_md, out = _transmission_message(md, body, res.remote_q or qname,
                                                    res.remote_qm)
            if _id24(md.MsgId) == _NONE24:
                _trusted(md, {"MsgId": self.new_msgid()})
                out_md.MsgId = md.MsgId
            prio = md.Priority if 0 <= md.Priority <= 9 else 0
            lsn = self._store(None, res.target, self.catalog.queues[res.target.qid],
                              out_md.pack(), out, priority=prio,
                              persistent=md.Persistence == CMQC.MQPER_PERSISTENT,
                              msgid=md.MsgId, correlid=md.CorrelId, expiry=md.Expiry,
                              report=md.Report, now=time.time(), syncpoint=False)
        except MQMIError as e:
            if dead_letter:
                return self.dead_letter(md, body, e.reason, qname, qmname or self.name)
            return False
        if lsn is not None:
            self._force(lsn)
        return True

    def _force(self, lsn: int) -> None:
        """Force the log up to ``lsn`` for a put of the queue manager's own (a report, a
        trigger message, a dead letter); inside an MQI call served from an event loop
        (``deferring``) the force is left to that call, which makes it before it answers."""
        conn = getattr(self.deferring, "conn", None)
        if conn is not None:
            conn.force_log(lsn)
        else:
            self.data.force(lsn)

    def dead_letter(self, md: MD, data: bytes, reason: int, dest_q: str, dest_qm: str) -> bool:
        """Put a message that cannot be delivered on DEADQ behind an MQDLH; False if there is
        no usable dead-letter queue (the caller then keeps or reports the message)."""
        deadq = str(self.catalog.qmgr.get("DEADQ", "") or "").strip()
        if not deadq:
            return False
        date, tod = _put_timestamp(time.time())
        dmd, body = reports.build_dead_letter(md, data, reason, dest_q, dest_qm,
                                              put_appl_name=b"mqpy queue manager",
                                              put_date=date, put_time=tod)
        return self._system_put(deadq, "", dmd, body, dead_letter=False)

    # ------------------------------------------------------------------ triggering

    def _eligible_depth(self, base: ObjectDef, mq: MessageQueue,
                        uow: UnitOfWork | None = None) -> int:
        """Messages that count for triggering: available ones at or above TRIGMPRI, plus, for
        a put in a unit of work, that unit of work's own puts on the queue."""
        floor = int(base.attributes.get("TRIGMPRI", 0))  # type: ignore[arg-type]
        own = sum(1 for q, e in uow.puts if q is mq and e.priority >= floor
                  and e.state == PUT_PENDING) if uow is not None else 0
        if floor <= 0:
            return mq.count - mq.uncommitted + own
        return own + mq.available_at_or_above(floor)

    def _trigger_target(self, base: ObjectDef) -> tuple[ObjectDef | None, bool, ObjectDef | None]:
        """(initiation queue, someone listening on it, process definition) of a queue."""
        a = base.attributes
        initq = self.catalog.queue_def(str(a.get("INITQ", "") or ""))
        listening = False
        if initq is not None and initq.objtype == "QLOCAL":
            imq = self.catalog.queues[initq.qid]
            listening = any(h.options & _INPUT_OPTS for h in self._open_handles(imq))
        proc = self.catalog.lookup("PROCESS", str(a.get("PROCESS", "") or ""))
        return initq, listening, proc

    def _trigger_check(self, base: ObjectDef, mq: MessageQueue, entry: Entry, *,
                       uow: UnitOfWork | None = None) -> None:
        """Judge the trigger conditions for one arriving message; for a put in a unit of work
        the trigger message waits for the unit of work to end (commit or backout, as IBM)."""
        initq, listening, proc = self._trigger_target(base)
        now_ms = time.time() * 1000
        decision = triggers.on_arrival(
            base.attributes, eligible_depth=self._eligible_depth(base, mq, uow),
            priority=entry.priority,
            input_open=any(h.options & _INPUT_OPTS for h in self._open_handles(mq)),
            initq_listening=listening, has_process=proc is not None, now_ms=now_ms,
            last_trigger_ms=mq.last_trigger,
            trigint_ms=int(self.catalog.qmgr.get("TRIGINT", 999999999)))  # type: ignore[arg-type]
        if decision.fire and initq is not None:
            if uow is not None:
                uow.triggers.append((base, mq, initq, proc, decision.switch_off))
                mq.last_trigger = now_ms
            else:
                self._fire_trigger(base, mq, initq, proc, decision.switch_off)

    def _fire_trigger(self, base: ObjectDef, mq: MessageQueue, initq: ObjectDef,
                      proc: ObjectDef | None, switch_off: bool) -> None:
        md, body = reports.build_trigger(base.name, proc.attributes if proc else None,
                                         proc.name if proc else "",
                                         str(base.attributes.get("TRIGDATA", "") or ""))
        mq.last_trigger = time.time() * 1000
        self._system_put(initq.name, "", md, body)
        if switch_off:
            self.alter("QLOCAL", base.name, {"TRIGGER": "NO"})

    def _on_input_open(self, opened: ObjectDef) -> None:
        """An initiation queue was opened for input: trigger queues already waiting on it."""
        for obj in list(self.catalog.objects.values()):
            if obj.objtype != "QLOCAL" or obj.attributes.get("TRIGGER") != "YES":
                continue
            if str(obj.attributes.get("INITQ", "")) != opened.name or obj is opened:
                continue
            mq = self.catalog.queues[obj.qid]
            proc = self.catalog.lookup("PROCESS", str(obj.attributes.get("PROCESS", "") or ""))
            decision = triggers.on_initq_open(
                obj.attributes, eligible_depth=self._eligible_depth(obj, mq),
                input_open=any(h.options & _INPUT_OPTS for h in self._open_handles(mq)),
                has_process=proc is not None)
            if decision.fire:
                self._fire_trigger(obj, mq, opened, proc, decision.switch_off)

    # ------------------------------------------------------------------ expiry

    def expire_scan(self) -> int:
        """Remove every expired message that is not locked; send expiration reports."""
        removed = 0
        lsn = None
        with self.lock:
            now = time.time()
            for mq in list(self.catalog.queues.values()):
                for e in mq.expired_entries(now):
                    done = self._expire_entry(mq, e)
                    if done is not False:
                        lsn = done or lsn
                        removed += 1
        if lsn is not None:
            self.data.force(lsn)
        return removed

    def _expire_entry(self, mq: MessageQueue, entry: Entry) -> int | None | bool:
        """Remove an expired message (its removal logged first) and send its expiration
        report; the LSN to force. False when the log is full: the message stays, to be
        removed by a later get or scan, and no report goes out twice."""
        record = (self.data.read_record(mq, entry) if entry.report & CMQC.MQRO_EXPIRATION
                  else None)
        lsn = None
        if entry.persistent:
            try:
                lsn = self.data.log_get1(mq, entry)
            except LogFull:
                return False
        else:
            entry.record = None
        mq.remove(entry)
        self.stats_expired += 1
        self.stats.mqi.expired += 1
        base = self.catalog.by_qid.get(mq.qid)
        if base is not None:
            self.stats.queue(base.name).expired += 1
        if record is not None:
            self._report_from_record("EXPIRATION", record)
        return lsn

    def _back_out_for_log(self, uow: UnitOfWork) -> None:
        """The log is full and ``uow`` pins it: back it out; its owner's next call says so."""
        for conn in self.connections.values():
            if conn.uow is uow:
                conn.uow = None
                conn.backed_out = True
        back_out_uow(self, uow)
        self.log_full_backouts += 1

    # ------------------------------------------------------------------ objects

    def define(self, objtype: str, name: str, attributes: dict[str, object] | None = None,
               *, like: str | None = None, replace: bool = False) -> ObjectDef:
        """DEFINE an object (logged and forced before it exists)."""
        with self.lock:
            if len(name) > 48 or not name:
                raise _fail(CMQC.MQRC_OBJECT_NAME_ERROR)
            old = self.catalog.lookup(objtype, name)
            if old is not None:
                if not replace or old.objtype != objtype:
                    raise _fail(CMQC.MQRC_OBJECT_ALREADY_EXISTS)
                merged = dict(old.attributes)
                merged.update(attributes or {})
                self.data.log_object("alter", ObjectDef(objtype, name, merged, old.qid))
                # as ALTER does: the same object with a new dictionary, so that handles
                # already open obey the new definition at their next call
                old.attributes = merged
                self.catalog.install(old)
                return old
            base = self.catalog.lookup(objtype, like) if like else None
            obj = ObjectDef.new(objtype, name, attributes, like=base)
            if objtype == "QLOCAL":
                obj.qid = self.catalog.next_qid
                self.catalog.next_qid += 1
            self.data.log_object("define", obj)
            self.catalog.install(obj)
            return obj

    def alter(self, objtype: str, name: str, attributes: dict[str, object]) -> ObjectDef:
        with self.lock:
            obj = self.catalog.lookup(objtype, name)
            if obj is None or obj.objtype != objtype:
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            new = ObjectDef(obj.objtype, obj.name, {**obj.attributes, **attributes}, obj.qid)
            new.attributes["ALTDATE"], new.attributes["ALTTIME"] = time.strftime(
                "%Y-%m-%d"), time.strftime("%H.%M.%S")
            self.data.log_object("alter", new)
            obj.attributes = new.attributes
            if obj.objtype == "QMGR":
                self.perfm_events = instrumentation.perfm_enabled(obj.attributes)
            return obj

    def alter_qmgr(self, attributes: dict[str, object]) -> None:
        with self.lock:
            qm = self.catalog.lookup("QMGR", self.name)
            assert qm is not None
            self.alter("QMGR", self.name, attributes)
            self.catalog.qmgr = qm.attributes

    def delete(self, objtype: str, name: str, *, purge: bool = False) -> None:
        """DELETE an object; a local queue must be closed, not in doubt, and empty unless PURGE."""
        with self.lock:
            obj = self.catalog.lookup(objtype, name)
            if obj is None or obj.objtype != objtype:
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            if obj.objtype == "QLOCAL":
                self._delete_queue_locked(obj, purge=purge)
            else:
                self.data.log_object("delete", obj)
                self.catalog.remove(obj.objtype, obj.name)

    def _delete_queue_locked(self, obj: ObjectDef, *, purge: bool, force: bool = False) -> None:
        """Delete a local queue. ``force`` is the temporary dynamic queue's close: it goes
        whatever is open or uncommitted, and other handles on it then get MQRC_Q_DELETED."""
        mq = self.catalog.queues.get(obj.qid)
        if mq is not None and not force:
            if self._open_handles(mq):
                raise _fail(CMQC.MQRC_OBJECT_IN_USE)
            if mq.uncommitted or (mq.depth and not purge):
                raise _fail(CMQC.MQRC_Q_NOT_EMPTY)
        self.data.log_object("delete", obj)
        if mq is not None:
            self.data.drop_queue(obj, mq)
            for h in self._open_handles(mq):
                h.deleted = True
            mq.clear()
        self.catalog.remove(obj.objtype, obj.name)

    def clear(self, name: str) -> int:
        """CLEAR QLOCAL: remove every message; refused while the queue is open or has
        uncommitted work (IBM's AMQ8148/MQRC_OBJECT_IN_USE). Returns how many went."""
        with self.lock:
            obj = self.catalog.queue_def(name)
            if obj is None or obj.objtype != "QLOCAL":
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            mq = self.catalog.queues[obj.qid]
            if self._open_handles(mq) or mq.uncommitted:
                raise _fail(CMQC.MQRC_OBJECT_IN_USE)
            lsn = None
            gone = list(mq.entries())
            self.stats.mqi.purged += len(gone)
            self.stats.queue(name).purged += len(gone)
            for e in gone:
                mq.remove(e)
                if e.persistent:
                    lsn = self.data.log_get1(mq, e)
                e.record = None
            if gone and self.perfm_events:  # a clear is a get (IBM's service interval)
                instrumentation.after_clear(self, obj, mq, len(gone))
        if lsn is not None:
            self.data.force(lsn)
        return len(gone)

    def _open_handles(self, mq: MessageQueue) -> list[Handle]:
        return [h for c in self.connections.values() for h in c.handles.values() if h.mq is mq]

    def open_handles_by_queue(self) -> dict[int, list[Handle]]:
        """Every open handle by the queue it is open on (``id`` of its MessageQueue): one pass
        over the connections for a status display of many queues, where ``_open_handles``
        per queue would pass over every handle once a queue."""
        index: dict[int, list[Handle]] = {}
        with self.lock:
            for c in self.connections.values():
                for h in c.handles.values():
                    if h.mq is not None:
                        index.setdefault(id(h.mq), []).append(h)
        return index

    def lookup(self, objtype: str, name: str) -> ObjectDef | None:
        with self.lock:
            return self.catalog.lookup(objtype, name)

    def queue_status(self, name: str,
                     index: dict[int, list[Handle]] | None = None) -> dict[str, object]:
        """CURDEPTH, IPPROCS, OPPROCS, UNCOM and the like, for DISPLAY QSTATUS and MQINQ;
        ``index`` (``open_handles_by_queue``) serves a display of many queues."""
        with self.lock:
            obj = self.catalog.queue_def(name)
            if obj is None or obj.objtype != "QLOCAL":
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            mq = self.catalog.queues[obj.qid]
            handles = self._open_handles(mq) if index is None else index.get(id(mq), [])
            return {
                "CURDEPTH": mq.depth,
                "IPPROCS": sum(1 for h in handles if h.options & _INPUT_OPTS),
                "OPPROCS": sum(1 for h in handles if h.options & CMQC.MQOO_OUTPUT),
                "UNCOM": mq.uncommitted,
            }

    # ------------------------------------------------------------------ connections

    def connect(self, appl_name: str | None = None, *, user: str | None = None,
                password: str | None = None, channel: str | None = None,
                asserted: str | None = None, adopted: bool = False,
                conname: str | None = None) -> Connection:
        """MQCONN; ``authority`` may refuse it (2035). The check runs outside the engine
        lock: verifying a password takes tens of milliseconds (scrypt).

        ``user`` alone is an asserted identity; ``user`` with ``password`` is an MQCSP, whose
        user the connection runs as only once authenticated (``Authority.check_connect``),
        else as ``asserted`` (default: this process's user). ``adopted``: the channel
        initiator derived ``asserted`` from the MQCSP, so the password must be right.
        ``channel`` and ``conname``: the SVRCONN and the client's address a channel initiator
        connects for (DISPLAY CONN shows them).

        A connection that names no user, password or channel is made by this process itself
        (the daemon's command server, statistics, an embedded application): it runs as the
        process owner and is trusted as MQ trusts its own components."""
        conn = Connection(self, 0, appl_name, None)
        if user is not None or password is not None or channel is not None \
                or asserted is not None:
            default = conn.user.decode("latin-1").strip()
            try:
                run_as = self.authority.check_connect(
                    default if user is None else user, password,
                    conn.appl_name.decode("latin-1"), channel, asserted=asserted or default,
                    adopted=adopted)
            except MQMIError as err:
                if err.reason == CMQC.MQRC_NOT_AUTHORIZED:
                    conn.channel, conn.conname = channel or "", conname or ""
                    csp = password is not None
                    instrumentation.connect_refused(
                        self, conn, user=(asserted or default) if csp else (user or default),
                        csp_user=user if csp else None)
                raise
            conn.user = run_as[:12].encode("latin-1", "replace")
        conn.channel, conn.conname = channel or "", conname or ""
        with self.lock:
            if self.stopped:
                raise _fail(CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
            if self.quiescing:
                raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
            conn.hconn = self._next_hconn
            self._next_hconn += 1
            hconn = conn.hconn
            self.connections[hconn] = conn
            self.stats.mqi.connects += 1
            return conn

    def new_msgid(self) -> bytes:
        self._msgid_base += 1
        prefix = self._msgid_prefix
        if prefix is None:
            prefix = self._msgid_prefix = b"AMQ " + self.name[:12].ljust(12).encode("latin-1")
        return prefix + self._msgid_base.to_bytes(8, "big")

    # ------------------------------------------------------------------ in-doubt resolution

    def indoubt(self) -> list[bytes]:
        """LUWIDs of prepared units of work awaiting COMMIT or BACKOUT."""
        with self.lock:
            return list(self.data.indoubt)

    def resolve(self, luwid: bytes, commit: bool, *, wait: bool = True) -> None:
        """Commit or back out a prepared unit of work (RESOLVE CHANNEL, channel resync).

        ``wait`` False (a commit only): return without waiting for the log force of the
        commit record; the log's next force covers it. A sending MCA's batch may: its
        prepare was forced, and a commit record lost in a crash leaves the unit of work in
        doubt at restart, where the partner's sync record (which has the batch) resolves it
        to commit again."""
        with self.lock:
            uow = self.data.indoubt.get(luwid)
            if uow is None:
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            lsn = commit_uow(self, uow) if commit else back_out_uow(self, uow)
        if lsn is not None and (wait or not commit):
            self.data.force(lsn)


def _qmgr_defaults() -> dict[str, object]:
    return dict(QMGR_DEFAULTS)
