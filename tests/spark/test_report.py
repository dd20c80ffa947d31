"""Capacity report figures on small hand-made data, checked against hand computation."""

from __future__ import annotations

import json
import os

import pytest

from mqpy.spark import report
from mqpy.spark.capacity import Capacity
from mqpy.spark.report import (
    call_mix,
    channel_rates,
    channel_report,
    error_report,
    headroom_report,
    load,
    log_rates,
    log_report,
    queue_report,
    run_report,
)
from mqpy.stats.exporter import write_records
from mqpy.stats.generator import generate

pytestmark = pytest.mark.system

T0 = 1704067200.0  # 2024-01-01T00:00:00Z
HALF_HOUR = 1800.0


def _common(qmgr: str, i: int, kind: str) -> dict:
    return {"record_type": kind, "queue_manager": qmgr, "start_ts": T0 + i * HALF_HOUR,
            "end_ts": T0 + (i + 1) * HALF_HOUR, "msg_id": f"{kind}{i:04d}", "seq": 1}


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("records"))
    recs = []
    put_rates = [1, 2, 3, 5, 4]
    for i, rate in enumerate(put_rates):
        recs.append(dict(_common("QM1", i, "QueueStatistics"), queue="Q1",
                         puts_np=int(rate * HALF_HOUR) - 100, puts_p=0, put1s_np=0, put1s_p=100,
                         gets_np=int(rate * HALF_HOUR) // 2, gets_p=int(rate * HALF_HOUR) // 2,
                         avg_q_time_us_np=1000, avg_q_time_us_p=3000,
                         min_depth=0, max_depth=100 + 50 * i, max_depth_limit=1000))
        # a queue whose depth falls: no projection
        recs.append(dict(_common("QM1", i, "QueueStatistics"), queue="Q2", puts_np=0, puts_p=0,
                         gets_np=0, gets_p=0, min_depth=0, max_depth=500 - 10 * i))
    recs.append(dict(_common("QM1", 0, "ChannelStatistics"), channel="TO.QM2", msgs=100,
                     bytes=1000, full_batches=1, incomplete_batches=1, net_time_avg_us=100,
                     put_retries=0, batchsz=100))
    recs.append(dict(_common("QM1", 1, "ChannelStatistics"), channel="TO.QM2", msgs=300,
                     bytes=3000, full_batches=3, incomplete_batches=1, net_time_avg_us=400,
                     put_retries=2, batchsz=100))
    # two MQI intervals in hour 0 and one in hour 1 (the busiest)
    for i, (np_, p) in enumerate([(1800, 0), (3600, 1800), (0, 36000)]):
        recs.append(dict(_common("QM1", i, "MQIStatistics"), conns=2, discs=2, opens=4,
                         closes=4, puts_np=np_, puts_p=p, put1s_np=0, put1s_p=0, gets_np=0,
                         gets_p=0, browses_np=0, browses_p=0, inqs=0, sets=0, commits=10,
                         backouts=0))
    for i, (lb, forces, recsn) in enumerate([(1_800_000, 900, 9000), (3_600_000, 3600, 18000)]):
        recs.append(dict(_common("QM1", i, "StorageStatistics"), log_bytes=lb,
                         log_forces=forces, log_records=recsn, checkpoints=1,
                         checkpoint_us=50_000 * (i + 1), pageset_reads=10, buffer_hits=90,
                         pages_used=100 + i, pages_free=900 - i))
    for k, amq in enumerate(["AMQ9999E"] * 3 + ["AMQ9209E"] * 2 + ["AMQ7469I"]):
        recs.append({"record_type": "ErrorLog", "queue_manager": "QM1",
                     "start_ts": T0 + k * 40000, "key": f"k{k}", "amq_id": amq, "text": amq})
    write_records(root, recs, "hand")
    return root


def _one(rows, **match):
    found = [r for r in rows if all(r[k] == v for k, v in match.items())]
    assert len(found) == 1, found
    return found[0]


def test_queue_rates_hwm_and_projection(spark, data):
    """Given put rates 1,2,3,5,4 msgs/s over five half-hours and QMaxDepth rising 50 per
    half-hour from 100 with MAXDEPTH 1000, then peak 5, p95 4.8, HWM 300, slope 100/h and
    7 hours to MAXDEPTH; a queue whose depth falls has no projection."""
    rows = [r.asDict() for r in queue_report(load(spark, data, "QueueStatistics")).collect()]
    q1 = _one(rows, queue="Q1")
    assert q1["peak_put_rate"] == pytest.approx(5.0)
    assert q1["p95_put_rate"] == pytest.approx(4.8)  # 4 + 0.8 * (5 - 4)
    assert q1["peak_get_rate"] == pytest.approx(5.0)
    assert q1["depth_hwm"] == 300
    assert q1["avg_time_on_q_us"] == pytest.approx(2000.0)  # equal np and p gets
    assert q1["depth_slope_per_h"] == pytest.approx(100.0)
    assert q1["depth_trend_now"] == pytest.approx(300.0)
    assert q1["hours_to_maxdepth"] == pytest.approx(7.0)
    q2 = _one(rows, queue="Q2")
    assert q2["hours_to_maxdepth"] is None and q2["maxdepth"] == 5000



def test_a_year_of_intervals_per_queue_gets_a_bounded_p95(spark, data):
    """Given more intervals per queue than EXACT_P95_INTERVALS (a year at STATINT 600 is
    52,560: the exact percentile would hold every one of 10,000 queues' rates in memory), when
    the queue table is planned, then p95 is the bounded-memory estimate, which on these five
    rates is the 5th of 1,2,3,4,5 (5.0, against the exact 4.8); below the bound it is exact."""
    qs = load(spark, data, "QueueStatistics")
    many = report.EXACT_P95_INTERVALS + 1
    approx = [r.asDict() for r in queue_report(qs, intervals=many).collect()]
    assert "percentile_approx" in queue_report(qs, intervals=many)._jdf.queryExecution() \
        .toString()
    assert _one(approx, queue="Q1")["p95_put_rate"] == pytest.approx(5.0)
    exact = [r.asDict() for r in queue_report(qs, intervals=many - 1).collect()]
    assert _one(exact, queue="Q1")["p95_put_rate"] == pytest.approx(4.8)

def test_channel_batching(spark, data):
    """Given 400 messages in 6 batches (4 full) over an hour with BATCHSZ 100, then achieved
    batch size 66.7, fill 66.7 %, 400/3600 msgs/s, net time weighted by batches 300 us."""
    (ch,) = [r.asDict() for r in channel_report(load(spark, data, "ChannelStatistics")).collect()]
    assert ch["achieved_batch_size"] == pytest.approx(400 / 6)
    assert ch["batch_fill_pct"] == pytest.approx(400 / 6)
    assert ch["msgs_per_s"] == pytest.approx(400 / 3600)
    assert ch["peak_msgs_per_s"] == pytest.approx(300 / 1800)
    assert ch["full_batch_pct"] == pytest.approx(400 / 6)
    assert ch["net_time_avg_us"] == pytest.approx((100 * 2 + 400 * 4) / 6)


def test_channel_and_checkpoint_series_for_the_charts(spark, data):
    """Given a channel's two half-hours (100 messages in 2 batches, then 300 in 4 with 2
    retries; BATCHSZ 100) and a checkpoint in each (50 and 100 ms), when the charts' series are
    built with half-hour buckets, then the channel draws 100/1800 then 300/1800 msgs/s, batch
    fill 50 % then 75 %, retries 0 then 2, and the log one checkpoint a bucket of 50 then
    100 ms."""
    ch = [r.asDict() for r in channel_rates(load(spark, data, "ChannelStatistics"),
                                            1800).collect()]
    assert [r["msgs_per_s"] for r in ch] == pytest.approx([100 / 1800, 300 / 1800])
    assert [r["batch_fill_pct"] for r in ch] == pytest.approx([50.0, 75.0])
    assert [r["put_retries"] for r in ch] == [0, 2]
    lg = [r.asDict() for r in log_rates(load(spark, data, "StorageStatistics"), 1800).collect()]
    assert [r["checkpoints"] for r in lg] == [1, 1]
    assert [r["avg_checkpoint_ms"] for r in lg] == pytest.approx([50.0, 100.0])


def test_mqi_call_mix(spark, data):
    """Given three MQI intervals, then the call mix counts and shares are the sums."""
    rows = [r.asDict() for r in call_mix(load(spark, data, "MQIStatistics")).collect()]
    counts = {r["call"]: r["count"] for r in rows}
    assert counts["MQPUT"] == 1800 + 3600 + 1800 + 36000
    assert counts["MQCONN"] == 6 and counts["MQOPEN"] == 12 and counts["MQCMIT"] == 30
    total = sum(counts.values())
    assert _one(rows, call="MQPUT")["share_pct"] == pytest.approx(43200 / total * 100)
    assert rows[0]["call"] == "MQPUT"


def test_log_against_fsync_capacity(spark, data):
    """Given log forces of 900 and 3600 per half-hour and a disk of 10 fsyncs/s, then peak
    2 fsyncs/s is 20 % of capacity, 6 records per fsync and 2 checkpoints per hour."""
    cap = Capacity(fsync_per_s=10.0)
    (lg,) = [r.asDict() for r in log_report(load(spark, data, "StorageStatistics"), cap)
             .collect()]
    assert lg["log_bytes_per_s"] == pytest.approx(5_400_000 / 3600)
    assert lg["peak_fsyncs_per_s"] == pytest.approx(2.0)
    assert lg["peak_fsync_utilisation_pct"] == pytest.approx(20.0)
    assert lg["records_per_fsync"] == pytest.approx(27000 / 4500)
    assert lg["checkpoints_per_hour"] == pytest.approx(2.0)
    assert lg["avg_checkpoint_ms"] == pytest.approx(75.0)
    assert lg["buffer_hit_pct"] == pytest.approx(90.0)
    assert (lg["pages_used"], lg["pages_free"]) == (101, 899)


def test_headroom_of_the_busiest_hour(spark, data):
    """Given hour 1 carrying 36000 persistent puts in 1800 s (20/s) and sustainable rates of
    100 persistent and 1000 non-persistent msgs/s, then the busiest hour is 01:00 at 20 %
    utilisation, headroom 5x."""
    cap = Capacity(persistent_msgs_per_s=100.0, nonpersistent_msgs_per_s=1000.0)
    (h,) = [r.asDict() for r in headroom_report(load(spark, data, "MQIStatistics"), cap)
            .collect()]
    assert h["busiest_hour"] == "2024-01-01 01:00"
    assert h["p_rate"] == pytest.approx(20.0)
    assert h["utilisation_pct"] == pytest.approx(20.0)
    assert h["headroom_x"] == pytest.approx(5.0)


def test_top_error_ids(spark, data):
    """Given AMQ9999E three times, AMQ9209E twice and AMQ7469I once, then the errors rank
    AMQ9999E, AMQ9209E and the informational AMQ7469I ranks apart; per day they count 6."""
    tops, info, daily = error_report(load(spark, data, "ErrorLog"))
    assert [(r["amq_id"], r["count"]) for r in tops.collect()] == [
        ("AMQ9999E", 3), ("AMQ9209E", 2)]
    assert [(r["amq_id"], r["count"]) for r in info.collect()] == [("AMQ7469I", 1)]
    assert sum(r["count"] for r in daily.collect()) == 6


def test_capacity_from_bench_results(tmp_path):
    """Given benchmarks/results.json with fsync_raw, persistent_8 and nonpersistent, then the
    sustainable rates come from it and an explicit override wins."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"results": [
        {"scenario": "fsync_raw", "fdatasync_per_s_1kb": 512.0,
         "msgs_per_s_100_per_fsync": 20000.0},
        {"scenario": "persistent_8", "msgs_per_s": 4000.0},
        {"scenario": "nonpersistent", "msgs_per_s": 60000.0}]}))
    cap = Capacity.from_bench(str(path), nonpersistent_msgs_per_s=1.0)
    assert (cap.fsync_per_s, cap.log_bytes_per_s, cap.persistent_msgs_per_s,
            cap.nonpersistent_msgs_per_s) == (512.0, 20000.0 * 1024, 4000.0, 1.0)
    absent = Capacity.from_bench(str(tmp_path / "absent.json"))
    assert absent.source == "not measured" and absent.persistent_msgs_per_s is None


def test_html_report_from_generated_data(spark, tmp_path):
    """Given two days of generated data, when the whole report runs, then report.html holds
    the tables and inline SVG charts with nothing fetched from the network, and each table is
    also a CSV."""
    src, out = str(tmp_path / "gen"), str(tmp_path / "report")
    generate(src, days=2, qmgrs=2, queues=3, seed=3)
    tables = run_report(spark, src, out, Capacity())
    with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
        page = f.read()
    assert page.count("<svg") >= 4
    for name in ("queues", "channels", "call_mix", "log", "headroom", "errors_top"):
        assert f'data-table="{name}"' in page
        assert os.path.exists(os.path.join(out, f"{name}.csv"))
    assert "APP.Q1" in page and "QM2.TO.QM1" in page
    for chart in ("Channel messages per second", "Batch fill", "Message retries (MRRTY)",
                  "Checkpoints per"):
        assert f'aria-label="{chart}' in page, chart
    assert "<script" not in page and "https://" not in page and "<link" not in page
    assert len(tables["queues"]) == 6
    with open(os.path.join(out, "queues.csv")) as f:
        assert len(f.read().splitlines()) == 7
