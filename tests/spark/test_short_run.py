"""The report a capacity planner reads after a short run: six minutes of one-minute
intervals in which APP.REQUEST sat at MAXDEPTH and its application got MQRC_Q_FULL (2053),
beside a flat SYSTEM queue, a temporary dynamic queue, a growing reply queue and a channel
that logged AMQ9002I far more often than its errors."""

from __future__ import annotations

import os
import re

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.mqi import attach
from mqpy.spark.capacity import Capacity
from mqpy.spark.report import run_report
from mqpy.stats.collector import emit_now
from mqpy.stats.exporter import Exporter, write_records

pytestmark = pytest.mark.system

T0 = 1764322800.0  # 2025-11-28T09:40:00Z
MINUTE = 60.0
STEPS = 6


def _at(kind: str, i: int, **fields) -> dict:
    return dict({"record_type": kind, "queue_manager": "QM1", "start_ts": T0 + i * MINUTE,
                 "end_ts": T0 + (i + 1) * MINUTE, "msg_id": f"{kind}{i:03d}", "seq": 1},
                **fields)


def _queue(i: int, queue: str, depth: int, limit: int, *, puts: int = 0, gets: int = 0,
           failed: int = 0, qtime_us: int = 0) -> dict:
    return _at("QueueStatistics", i, queue=queue, puts_np=puts, puts_p=0, put1s_np=0,
               put1s_p=0, gets_np=gets, gets_p=0, min_depth=depth // 2, max_depth=depth,
               max_depth_limit=limit, puts_failed=failed, put1s_failed=0,
               avg_q_time_us_np=qtime_us, avg_q_time_us_p=0)


def short_run() -> list[dict]:
    recs = []
    for i in range(STEPS):
        recs += [
            _queue(i, "APP.REQUEST", min(5000, 2000 + 1000 * i), 5000, puts=1000,
                   gets=0, failed=2053 if i >= 3 else 0),
            _queue(i, "APP.REPLY", 100 + 200 * i, 50000, puts=600, gets=400,
                   qtime_us=40_000_000),
            _queue(i, "SYSTEM.ADMIN.STATISTICS.QUEUE", 1, 3000, puts=1, gets=1),
            _queue(i, "AMQ.MQSC.6929A3B2", 2, 5000, puts=2, gets=2),
            _at("MQIStatistics", i, conns=1, discs=1, opens=3, closes=3, puts_np=1600 + 100 * i,
                puts_p=0, put1s_np=0, put1s_p=0, gets_np=400, gets_p=0, browses_np=0,
                browses_p=0, inqs=0, sets=0, commits=0, backouts=0),
            _at("StorageStatistics", i, log_bytes=1000, log_forces=10 + i, log_records=20,
                checkpoints=0, checkpoint_us=0, pageset_reads=0, buffer_hits=10,
                pages_used=10, pages_free=90),
        ]
    errors = [("AMQ9002I", "Channel 'TO.QM2' is starting.")] * 9 + [
        ("AMQ9999E", "Channel 'TO.QM2' to host '127.0.0.1(1415)' ended abnormally.")] * 2 + [
        ("AMQ9209E", "Connection to host '127.0.0.1(1415)' for channel 'TO.QM2' closed.")]
    for k, (amq, text) in enumerate(errors):
        recs.append({"record_type": "ErrorLog", "queue_manager": "QM1",
                     "start_ts": T0 + 20 + k * 25, "key": f"e{k}", "amq_id": amq, "text": text})
    return recs


@pytest.fixture(scope="module")
def built(short_run_report):
    """(tables, report.html text) of the short run, with no measured rates."""
    with open(os.path.join(short_run_report.folder, "report.html"), encoding="utf-8") as f:
        return short_run_report.tables, f.read()


def _section(page: str, ident: str) -> str:
    m = re.search(rf'<section id="{ident}">(.*?)</section>', page, re.S)
    assert m, f"no section {ident}"
    return m.group(1)


def test_the_first_section_says_what_needs_attention(built):
    """Given the short run, when the report is built, then its first section says in
    sentences that APP.REQUEST reached MAXDEPTH 5000 with 2053s, that APP.REPLY grows, and
    that errors were logged; SYSTEM and temporary queues are not named there."""
    _, page = built
    body = page[page.index("<body>"):]
    assert body.index('<section id="attention">') < body.index("<table")
    text = re.sub(r"<[^>]+>", "", _section(page, "attention"))
    assert "APP.REQUEST reached MAXDEPTH 5000" in text
    assert "6159 puts failed" in text and "2053" in text
    assert "APP.REPLY" in text and "grows" in text
    assert "AMQ9999E" in text
    assert "SYSTEM.ADMIN" not in text and "AMQ.MQSC" not in text


def test_queues_that_matter_come_first_and_application_queues_stand_apart(built):
    """Given the short run, then the queue table starts with APP.REQUEST (at MAXDEPTH), then
    APP.REPLY (growing, oldest messages); each queue is classed application, system or
    temporary dynamic, and the application table holds no SYSTEM.* or AMQ.* queue."""
    tables, page = built
    order = [q["queue"] for q in tables["queues"]]
    assert order[:2] == ["APP.REQUEST", "APP.REPLY"]
    kinds = {q["queue"]: q["kind"] for q in tables["queues"]}
    assert kinds == {"APP.REQUEST": "application", "APP.REPLY": "application",
                     "SYSTEM.ADMIN.STATISTICS.QUEUE": "system",
                     "AMQ.MQSC.6929A3B2": "temporary dynamic"}
    req = tables["queues"][0]
    assert (req["puts_failed"], req["depth_hwm"], req["depth_pct"]) == (6159, 5000, 100.0)
    app = _section(page, "queues-application")
    assert "APP.REQUEST" in app and "SYSTEM." not in app and "AMQ.MQSC" not in app
    assert "AMQ.MQSC.6929A3B2" in _section(page, "queues-system")


def test_time_buckets_follow_the_span_so_every_chart_has_a_line(built):
    """Given six minutes of one-minute intervals, then the rate and fsync charts use
    one-minute buckets (six points, a line each), not hourly ones (one point)."""
    tables, page = built
    assert tables["bucket_seconds"] == [{"seconds": 60}]
    for ident in ("rates", "log-chart"):
        chart = _section(page, ident)
        pts = re.findall(r'points="([^"]+)"', chart)
        assert pts and len(pts[0].split()) == STEPS, chart
        assert "not enough data" not in chart


def test_errors_by_severity_over_time_apart_from_informational_messages(built):
    """Given nine AMQ9002I, two AMQ9999E and one AMQ9209E, then the most frequent errors list
    AMQ9999E then AMQ9209E with their text and no informational id; AMQ9002I is counted
    apart; the errors over time are per severity."""
    tables, page = built
    assert [(r["amq_id"], r["severity"], r["count"]) for r in tables["errors_top"]] == [
        ("AMQ9999E", "error", 2), ("AMQ9209E", "error", 1)]
    assert tables["errors_top"][0]["text"].startswith("Channel 'TO.QM2' to host")
    assert [(r["amq_id"], r["count"]) for r in tables["info_top"]] == [("AMQ9002I", 9)]
    sev = {r["severity"] for r in tables["errors_over_time"]}
    assert sev == {"error", "informational"}
    assert sum(r["count"] for r in tables["errors_over_time"]) == 12
    assert "AMQ9002I" not in _section(page, "errors_top")


def test_headroom_without_a_measured_rate_is_unknown(built):
    """Given no benchmark results and no rate option, then headroom and fsync utilisation are
    unknown, and no invented capacity (10,000 / 100,000 msgs/s, 1,000 fsyncs/s) is shown."""
    tables, page = built
    (h,) = tables["headroom"]
    assert h["headroom_x"] is None and h["utilisation_pct"] is None
    assert tables["log"][0]["peak_fsync_utilisation_pct"] is None
    for invented in ("10,000", "100,000", "1,000 ", "defaults"):
        assert invented not in page
    assert "headroom unknown" in page.lower()


def test_a_real_run_names_the_queue_that_hit_maxdepth(spark, tmp_path, monkeypatch):
    """Given a queue manager whose APP.REQUEST (MAXDEPTH 5) was filled and refused a sixth
    put with MQRC_Q_FULL, when its statistics are exported and the report is built, then the
    first section says APP.REQUEST reached MAXDEPTH 5 (QMaxDepth at MAXDEPTH)."""
    root, out, rep = (str(tmp_path / d) for d in ("data", "export", "report"))
    monkeypatch.setenv("MQPY_DATA_PATH", root)
    qm = mqpy.embedded("RUNQM", data_path=root)
    eng = inprocess.running("RUNQM", root)
    try:
        eng.alter_qmgr({"STATMQI": "ON", "STATQ": "ON"})
        eng.define("QLOCAL", "APP.REQUEST", {"MAXDEPTH": 5})
        q = mqpy.Queue(qm, "APP.REQUEST")
        for _ in range(5):
            q.put(b"request")
        with pytest.raises(mqpy.MQMIError) as full:
            q.put(b"one too many")
        assert full.value.reason == CMQC.MQRC_Q_FULL
        emit_now(eng, attach(eng))
        Exporter(qm, out, data_path=root, include_errors=False).run_once()
    finally:
        qm.disconnect()
        inprocess.stop("RUNQM", root)
    run_report(spark, out, rep, Capacity())
    with open(os.path.join(rep, "report.html"), encoding="utf-8") as f:
        text = re.sub(r"<[^>]+>", "", _section(f.read(), "attention"))
    assert text.index("APP.REQUEST reached MAXDEPTH 5 on RUNQM") < text.index("Headroom")


def test_error_log_records_alone_are_bucketed_over_their_own_span(spark, tmp_path):
    """Given only error-log records, spread over two days, when the report is built, then
    the errors over time use 30-minute buckets (two days in at most 120 points) and the
    queue tables are empty."""
    src, out = str(tmp_path / "errors"), str(tmp_path / "report")
    write_records(src, [{"record_type": "ErrorLog", "queue_manager": "QM1",
                         "start_ts": T0 + k * 3600.0, "key": f"e{k}", "amq_id": "AMQ9999E",
                         "text": "Channel program ended abnormally."} for k in range(48)], "e")
    tables = run_report(spark, src, out, Capacity())
    assert tables["bucket_seconds"] == [{"seconds": 1800}]
    assert tables["queues"] == [] and len(tables["errors_over_time"]) == 48
