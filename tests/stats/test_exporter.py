"""The exporter: JSON Lines partitioned by date and queue manager, each record exactly once."""

from __future__ import annotations

import glob
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine.stats import QueueCounters
from mqpy.errorlog import ErrorLog, read_entries
from mqpy.pcf import CFGR, build
from mqpy.stats import records as R
from mqpy.stats.collector import STATISTICS_QUEUE, emit_now
from mqpy.stats.exporter import Exporter
from tests.support.waiting import came_true

from ._support import put


def _written(out: str) -> int:
    """The bytes of the export's files so far."""
    return sum(os.path.getsize(path)
               for path in glob.glob(os.path.join(out, "**", "*.jsonl"), recursive=True))


def _records(out: str) -> list[dict]:
    recs = []
    for path in glob.glob(os.path.join(out, "**", "*.jsonl"), recursive=True):
        with open(path) as f:
            recs += [json.loads(line) for line in f]
    return recs


def test_export_writes_partitioned_json_lines_once(qmgr, tmp_path):
    """Given a statistics interval and error-log entries, when the exporter runs twice, then
    records land under <type>/date=/qmgr=/ once, the queue is drained, and the second run
    exports nothing."""
    name, root, qm, eng = qmgr
    eng.define("QLOCAL", "Q1", {"MAXDEPTH": 1234})
    put(qm, "Q1", 7, 50, True)
    emit_now(eng, qm)
    errors = os.path.join(root, "qmgrs", name, "errors")
    ErrorLog(errors, qmgr=name).write_event("AMQ9999E", "Channel program ended abnormally.")
    out = str(tmp_path / "export")
    ex = Exporter(qm, out, data_path=root)
    r1 = ex.run_once()
    assert r1.messages == 2
    assert r1.error_entries == len(read_entries(errors)) >= 1
    recs = _records(out)
    kinds = sorted({r["record_type"] for r in recs})
    assert kinds == ["ErrorLog", "MQIStatistics", "QueueStatistics", "StorageStatistics"]
    (q1,) = [r for r in recs if r.get("queue") == "Q1"]
    assert (q1["puts_p"], q1["max_depth_limit"]) == (7, 1234)
    assert os.path.isdir(os.path.join(out, "QueueStatistics"))
    paths = glob.glob(os.path.join(out, "QueueStatistics", "date=*", f"qmgr={name}",
                                   "part-*.jsonl"))
    assert len(paths) == 1
    assert eng.queue_status(STATISTICS_QUEUE)["CURDEPTH"] == 0
    r2 = ex.run_once()
    assert (r2.messages, r2.error_entries) == (0, 0)
    ErrorLog(errors, qmgr=name).write_event("AMQ9209E", "Connection to host closed.")
    assert ex.run_once().error_entries == 1
    amq = [r["amq_id"] for r in _records(out) if r["record_type"] == "ErrorLog"]
    assert amq.count("AMQ9999E") == 1 and amq.count("AMQ9209E") == 1


def test_unreadable_message_is_exported_raw_not_lost(qmgr, tmp_path):
    """Given a message that is not PCF on the statistics queue, then it is exported as an
    Unparsed record with its bytes, and the queue is drained."""
    _, root, qm, eng = qmgr
    qm.put1(STATISTICS_QUEUE, b"not pcf")
    out = str(tmp_path / "export")
    Exporter(qm, out, data_path=root, include_errors=False).run_once()
    (rec,) = _records(out)
    assert rec["record_type"] == "Unparsed" and bytes.fromhex(rec["data_hex"]) == b"not pcf"


CHILD = """
import sys, mqpy
from mqpy.stats.exporter import Exporter
qm = mqpy.embedded(sys.argv[1], data_path=sys.argv[2])
print("ready", flush=True)
Exporter(qm, sys.argv[3], data_path=sys.argv[2], batch_size=int(sys.argv[4]),
         include_errors=False).run_once()
print("done", flush=True)
"""


def _statistics_messages(name: str, n: int, groups: int) -> Iterator[bytes]:
    """The bytes of ``n`` MQCMD_STATISTICS_Q messages of ``groups`` queue groups each, one
    interval a second. Their queue groups are the same in every message: built once (most of
    a message's building), after each message's own header and interval; the first and the
    last message are checked to be what ``pcf.build`` makes of them."""
    queues = [(R.QueueInfo(f"APP.Q{i}"), QueueCounters(puts=[i, n]), i) for i in range(groups)]
    same_groups = b""
    for i in range(n):
        (msg,) = R.queue_statistics(name, queues, 1700000000 + i, 1700000060 + i)
        own = [p for p in msg.params if not isinstance(p, CFGR)]
        if not same_groups:
            same_groups = b"".join(p.pack() for group in msg.params if isinstance(group, CFGR)
                                   for p in (group, *group.Parameters))
        header = msg.header.copy()
        header.ParameterCount = len(msg.params)
        data = header.pack() + b"".join(p.pack() for p in own) + same_groups
        if i in (0, n - 1):
            assert data == build(msg)
        yield data


def _backlog(name: str, root: str, n: int, groups: int) -> None:
    qm = mqpy.embedded(name, data_path=root)
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    for i, data in enumerate(_statistics_messages(name, n, groups)):
        qm.put1(STATISTICS_QUEUE, data, mqpy.MD(Format=CMQC.MQFMT_ADMIN), pmo)
        if i % 100 == 99:
            qm.commit()
    qm.commit()
    qm.disconnect()
    inprocess.stop(name, root)


def test_sigkill_at_random_moments_neither_loses_nor_duplicates(tmp_path):
    """Given 1500 statistics messages (5 queue groups each), when an exporter process is
    SIGKILLed at random moments five times (the first one after it has written records, so
    that one kill at least comes in the middle of an export however slow the machine is) and
    then allowed to finish, then every record is in the output exactly once (the exporter's
    exactly-once rule)."""
    name, root, out = "KILLQM", str(tmp_path / "data"), str(tmp_path / "out")
    n, groups = 1500, 5
    _backlog(name, root, n, groups)
    rng = random.Random(8)
    killed_mid_export = 0
    for attempt in range(5):
        child = subprocess.Popen([sys.executable, "-c", CHILD, name, root, out, "40"],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "ready"
        if attempt == 0:
            assert came_true(lambda child=child: _written(out) or child.poll() is not None, 60)
        time.sleep(rng.uniform(0.05, 0.8))
        child.send_signal(signal.SIGKILL)
        child.wait()
        if 0 < len(_records(out)) < n * groups:
            killed_mid_export += 1
    final = subprocess.run([sys.executable, "-c", CHILD, name, root, out, "40"],
                           capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    assert killed_mid_export >= 1
    recs = _records(out)
    keys = [(r["msg_id"], r["seq"]) for r in recs]
    assert len(keys) == len(set(keys)), "a record was exported twice"
    assert len({r["msg_id"] for r in recs}) == n
    assert len(recs) == n * groups
    eng = inprocess.start(name, root)
    try:
        assert eng.queue_status(STATISTICS_QUEUE)["CURDEPTH"] == 0
    finally:
        inprocess.stop(name, root)
