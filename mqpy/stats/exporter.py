"""The exporter: statistics, accounting and error logs into files Spark reads natively.

Format: **JSON Lines**, one flat record per line (see ``records.to_records``). Spark reads it
with no extra library; Parquet would need pyarrow (or a JVM) in every exporter's environment,
and an exporter runs from cron beside a queue manager. Layout, partitioned by the interval's
UTC date and the queue manager::

    OUT/<RecordType>/date=YYYY-MM-DD/qmgr=<QM>/part-<first MsgId>.jsonl
    OUT/ErrorLog/date=YYYY-MM-DD/qmgr=<QM>/part-err-<first key>.jsonl

Exactly once, even under SIGKILL at any instant. A batch is got under syncpoint; before the
gets are committed, (1) a manifest naming every MsgId of the batch is written, then (2) each
data file, each one atomically (write a dot-file, fsync, rename, fsync the directory). Files
are named by the batch's first MsgId. If the exporter dies before MQCMIT the messages return to
the head of the queue, so the next run's first batch starts with the same MsgId: it reads the
manifest, gets at least every message it names, and rewrites the same files — a superset of the
old content, never a second copy. If it dies after MQCMIT the files are complete and the
messages are gone. Error-log entries have no queue; a state file holding the key of the last
entry exported plays the part of the commit, and the same naming rule makes a re-run idempotent.
Files whose names start with '.' or '_' (temporary files, manifests, state) are ignored by Spark.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import threading
from collections.abc import Iterable
from typing import Any

import attrs

from mqpy import CMQC, config, errorlog, filemodes
from mqpy.errors import MQMIError
from mqpy.mqi import Queue, QueueManager
from mqpy.pcf import parse
from mqpy.stats.collector import ACCOUNTING_QUEUE, STATISTICS_QUEUE
from mqpy.stats.records import ERRORS, to_records
from mqpy.structs.tables import GMO, MD

__all__ = ["ExportResult", "Exporter", "write_records", "partition_path"]


@attrs.define
class ExportResult:
    messages: int = 0
    records: int = 0
    error_entries: int = 0
    files: int = 0


# ----------------------------------------------------------------------------- durable files


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _makedirs(path: str) -> None:
    """mkdir -p, with each new directory's parent fsynced so the name survives a crash."""
    path = os.path.abspath(path)  # a relative path's dirname ends at "", never a directory
    if os.path.isdir(path):
        return
    parent = os.path.dirname(path)
    _makedirs(parent)
    try:
        os.mkdir(path, filemodes.DIR_MODE)
    except FileExistsError:
        return
    _fsync_dir(parent)


def atomic_write(path: str, data: bytes) -> None:
    """Write ``path`` so that a crash leaves either the old file or the whole new one."""
    d, name = os.path.split(os.path.abspath(path))
    _makedirs(d)
    tmp = os.path.join(d, f".{name}.{os.getpid()}.tmp")
    with filemodes.open_file(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(d)


def partition_path(out: str, record_type: str, qmgr: str, ts: float) -> str:
    date = _dt.datetime.fromtimestamp(ts, _dt.UTC).strftime("%Y-%m-%d")
    return os.path.join(out, record_type, f"date={date}", f"qmgr={config.qmgr_dirname(qmgr)}")


def _jsonl(records: Iterable[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r, sort_keys=True, separators=(",", ":")).encode() + b"\n"
                    for r in records)


def write_records(out: str, records: list[dict[str, Any]], name: str) -> list[str]:
    """Write records into their partitions as ``part-<name>.jsonl``; returns the paths."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        d = partition_path(out, r["record_type"], r["queue_manager"], r.get("start_ts") or r["ts"])
        groups.setdefault(d, []).append(r)
    paths = []
    for d, recs in sorted(groups.items()):
        path = os.path.join(d, f"part-{name}.jsonl")
        atomic_write(path, _jsonl(recs))
        paths.append(path)
    return paths


# ----------------------------------------------------------------------------- exporter


class Exporter:
    """Drains SYSTEM.ADMIN.STATISTICS.QUEUE and SYSTEM.ADMIN.ACCOUNTING.QUEUE, and the AMQERR
    logs, of one queue manager into ``out``."""

    def __init__(self, qm: QueueManager, out: str, *, errors_dir: str | None = None,
                 data_path: str | None = None, batch_size: int = 200,
                 queues: tuple[str, ...] = (STATISTICS_QUEUE, ACCOUNTING_QUEUE),
                 include_errors: bool = True) -> None:
        self.qm = qm
        self.qmgr = qm.get_name()
        self.out = os.path.abspath(out)
        self.batch_size = batch_size
        self.queues = queues
        self.errors_dir = errors_dir or os.path.join(config.qmgr_dir(self.qmgr, data_path),
                                                     "errors")
        self.include_errors = include_errors
        self._maxdepth: dict[str, int | None] = {}

    # -- queues ---------------------------------------------------------------------------
    def _manifest_path(self, first: bytes) -> str:
        return os.path.join(self.out, "_batches", config.qmgr_dirname(self.qmgr),
                            f"{first.hex()}.json")

    def _get(self, q: Queue) -> tuple[bytes, bytes] | None:
        md = MD()
        gmo = GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT
                  | CMQC.MQGMO_FAIL_IF_QUIESCING)
        try:
            data = q.get(None, md, gmo)
        except MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        return bytes(md.MsgId), data

    def _max_depth(self, queue: str) -> int | None:
        if queue not in self._maxdepth:
            try:
                with Queue(self.qm, queue, CMQC.MQOO_INQUIRE) as q:
                    self._maxdepth[queue] = int(q.inquire(CMQC.MQIA_MAX_Q_DEPTH))
            except MQMIError:
                self._maxdepth[queue] = None
        return self._maxdepth[queue]

    def _records(self, msg_id: bytes, data: bytes) -> list[dict[str, Any]]:
        try:
            recs = to_records(parse(data), msg_id)
        except Exception as exc:  # noqa: BLE001 - a message we cannot read is exported raw
            return [{"record_type": "Unparsed", "queue_manager": self.qmgr,
                     "start_ts": _dt.datetime.now(_dt.UTC).timestamp(), "msg_id": msg_id.hex(),
                     "seq": 0, "error": str(exc), "data_hex": data[:4096].hex()}]
        for r in recs:
            if r["record_type"] == "QueueStatistics" and "queue" in r:
                r["max_depth_limit"] = self._max_depth(r["queue"])
        return recs

    def export_batch(self, q: Queue) -> tuple[int, int, int]:
        """One batch: get, write, commit. Returns (messages, records, files)."""
        got: list[tuple[bytes, bytes]] = []
        while len(got) < self.batch_size:
            m = self._get(q)
            if m is None:
                break
            got.append(m)
        if not got:
            return 0, 0, 0
        manifest = self._manifest_path(got[0][0])
        if os.path.exists(manifest):
            # a batch we wrote before a crash: take at least every message it held
            with open(manifest) as f:
                wanted = set(json.load(f)["msg_ids"])
            have = {m.hex() for m, _ in got}
            while wanted - have:
                m = self._get(q)
                if m is None:
                    break
                got.append(m)
                have.add(m[0].hex())
        atomic_write(manifest, json.dumps({"msg_ids": [m.hex() for m, _ in got]}).encode())
        records = [r for mid, data in got for r in self._records(mid, data)]
        paths = write_records(self.out, records, got[0][0].hex())
        self.qm.commit()
        os.unlink(manifest)
        return len(got), len(records), len(paths)

    def drain(self, queue: str, result: ExportResult) -> None:
        with Queue(self.qm, queue, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING) as q:
            while True:
                n, r, f = self.export_batch(q)
                result.messages += n
                result.records += r
                result.files += f
                if n < self.batch_size:
                    break

    # -- error logs -----------------------------------------------------------------------
    def _state_path(self) -> str:
        return os.path.join(self.out, "_state", config.qmgr_dirname(self.qmgr), "errors.json")

    def export_errors(self, result: ExportResult) -> None:
        entries = errorlog.read_entries(self.errors_dir)
        keyed = _keys(entries)
        state = self._state_path()
        last_key, last_ts = None, None
        if os.path.exists(state):
            with open(state) as f:
                st = json.load(f)
            last_key, last_ts = st.get("last_key"), st.get("last_ts")
        start = 0
        if last_key is not None:
            idx = next((i for i, (k, _) in enumerate(keyed) if k == last_key), None)
            if idx is not None:
                start = idx + 1
            else:  # rotated away: everything newer than what we exported
                start = next((i for i, (_, e) in enumerate(keyed)
                              if e.timestamp.timestamp() > last_ts), len(keyed))
        new = keyed[start:]
        if not new:
            return
        records = [_error_record(self.qmgr, k, e) for k, e in new]
        result.files += len(write_records(self.out, records, f"err-{new[0][0]}"))
        result.error_entries += len(new)
        atomic_write(state, json.dumps({"last_key": new[-1][0],
                                        "last_ts": new[-1][1].timestamp.timestamp()}).encode())

    # -- running --------------------------------------------------------------------------
    def run_once(self) -> ExportResult:
        """Drain the queues and the new error-log entries once (what cron runs)."""
        result = ExportResult()
        self._maxdepth.clear()
        for queue in self.queues:
            self.drain(queue, result)
        if self.include_errors:
            self.export_errors(result)
        return result

    def run_forever(self, stop: threading.Event, interval: float = 60.0) -> None:
        """What a service runs: ``run_once`` every ``interval`` seconds until ``stop`` is set."""
        while True:
            self.run_once()
            if stop.wait(interval):
                return


def _keys(entries: list[errorlog.LogEntry]) -> list[tuple[str, errorlog.LogEntry]]:
    """A stable key per entry: its content, and which repetition of that content it is."""
    seen: dict[str, int] = {}
    out = []
    for e in entries:
        ident = f"{e.timestamp.isoformat()}|{e.pid}|{e.tid}|{e.msgid}|{e.text}"
        n = seen.get(ident, 0)
        seen[ident] = n + 1
        out.append((hashlib.sha1(f"{ident}|{n}".encode()).hexdigest()[:24], e))
    return out


def _error_record(qmgr: str, key: str, e: errorlog.LogEntry) -> dict[str, Any]:
    ts = e.timestamp
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=_dt.UTC)
    return {"record_type": ERRORS, "queue_manager": qmgr, "start_ts": ts.timestamp(),
            "key": key, "amq_id": e.msgid, "text": e.text, "pid": e.pid, "tid": e.tid,
            "program": e.program, "user": e.user, "host": e.host}
