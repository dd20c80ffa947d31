"""Capacity reports: what the exported statistics say about headroom, as Spark jobs.

Input is the exporter's layout (``<RecordType>/date=/qmgr=/part-*.jsonl``) read with explicit
schemas, so no inference pass runs and a missing record type is an empty table, not an error.
Every figure is an aggregation executed by Spark; only the small result tables come back to the
driver, which writes them as CSV and renders the HTML. Nothing here assumes local mode.

Definitions (each interval's rate is its count over its own length):
- queue put rate = (puts + put1s) / interval, get rate = gets / interval; peak = max and
  p95 = exact 95th percentile (linear interpolation, Spark's ``percentile``) over intervals;
- depth high-water mark = max QMaxDepth; average time on queue = AverageQueueTime weighted by
  gets;
- depth trend = least-squares line of QMaxDepth against interval start; time to MAXDEPTH =
  (MAXDEPTH - the line's value at the last interval) / slope, when the slope is positive;
- channel batch size = messages / batches, beside BATCHSZ; net time weighted by batches;
- log: bytes and forces (fsyncs) per second, against the disk's measured fsync rate;
- headroom: the busiest hour's persistent and non-persistent message rates against the
  sustainable rates ``make bench`` measured: utilisation = p/P + np/NP, headroom = 1/utilisation.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable
from typing import Any

import attrs
from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from mqpy.spark import html

_D, _L, _S = T.DoubleType(), T.LongType(), T.StringType()


def _schema(*fields: tuple[str, Any]) -> T.StructType:
    common = [("record_type", _S), ("queue_manager", _S), ("start_ts", _D), ("end_ts", _D),
              ("msg_id", _S), ("seq", _L)]
    return T.StructType([T.StructField(n, t, True) for n, t in common + list(fields)])


def _longs(*names: str) -> list[tuple[str, Any]]:
    return [(n, _L) for n in names]


_PAIR = ("puts", "put1s", "gets", "browses", "put_bytes", "get_bytes")
SCHEMAS: dict[str, T.StructType] = {
    "QueueStatistics": _schema(("queue", _S), *_longs(
        *[f"{n}_{p}" for n in _PAIR for p in ("np", "p")], "min_depth", "max_depth",
        "avg_q_time_us_np", "avg_q_time_us_p", "expired", "purged", "max_depth_limit")),
    "MQIStatistics": _schema(*_longs(
        *[f"{n}_{p}" for n in _PAIR for p in ("np", "p")], "conns", "discs", "opens", "closes",
        "inqs", "sets", "commits", "backouts", "expired", "purged")),
    "ChannelStatistics": _schema(("channel", _S), *_longs(
        "msgs", "bytes", "full_batches", "incomplete_batches", "net_time_avg_us", "put_retries",
        "batchsz")),
    "StorageStatistics": _schema(*_longs(
        "log_bytes", "log_records", "log_forces", "checkpoints", "checkpoint_us",
        "pageset_reads", "buffer_hits", "evictions", "pages_used", "pages_free")),
    "ErrorLog": _schema(("amq_id", _S), ("text", _S), ("key", _S)),
}


@attrs.frozen
class Capacity:
    """The machine's sustainable rates, from benchmarks/results.json or given."""

    fsync_per_s: float = 1000.0
    log_bytes_per_s: float | None = None
    persistent_msgs_per_s: float = 10_000.0
    nonpersistent_msgs_per_s: float = 100_000.0
    source: str = "defaults (no benchmark results)"

    @classmethod
    def from_bench(cls, path: str | None, **overrides: Any) -> Capacity:
        """Read ``make bench`` results (scenarios fsync_raw, persistent_8, nonpersistent)."""
        given = {k: v for k, v in overrides.items() if v is not None}
        if not path or not os.path.exists(path):
            return cls(**given)
        with open(path) as f:
            doc = json.load(f)
        res = {r.get("scenario"): r for r in doc.get("results", [])}
        found: dict[str, Any] = {"source": f"benchmark results {path}"}
        raw = res.get("fsync_raw", {})
        if raw.get("fdatasync_per_s_1kb"):
            found["fsync_per_s"] = float(raw["fdatasync_per_s_1kb"])
        if raw.get("msgs_per_s_100_per_fsync"):
            found["log_bytes_per_s"] = float(raw["msgs_per_s_100_per_fsync"]) * 1024
        if res.get("persistent_8", {}).get("msgs_per_s"):
            found["persistent_msgs_per_s"] = float(res["persistent_8"]["msgs_per_s"])
        if res.get("nonpersistent", {}).get("msgs_per_s"):
            found["nonpersistent_msgs_per_s"] = float(res["nonpersistent"]["msgs_per_s"])
        return cls(**{**found, **given})


# ----------------------------------------------------------------------------- loading


def load(spark: SparkSession, root: str, record_type: str) -> DataFrame:
    schema = SCHEMAS[record_type]
    path = os.path.join(root, record_type)
    if not _exists(spark, path):
        return spark.createDataFrame([], schema)
    df = (spark.read.schema(schema).option("recursiveFileLookup", "true")
          .option("pathGlobFilter", "*.jsonl").json(path))
    return df.where(F.col("record_type") == record_type)


def _exists(spark: SparkSession, path: str) -> bool:
    """Through Hadoop's FileSystem, so hdfs:// and s3a:// inputs work as local ones."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    p = jvm.org.apache.hadoop.fs.Path(path)
    return bool(p.getFileSystem(conf).exists(p))


def _dur() -> Any:
    return F.greatest(F.col("end_ts") - F.col("start_ts"), F.lit(1.0))


def _div(a: Any, b: Any) -> Any:
    """a / b, NULL when b is 0 (Spark's ANSI mode would fail the job)."""
    a, b = (F.col(x) if isinstance(x, str) else x for x in (a, b))
    return F.when(b != 0, a / b)


def _n(*cols: str) -> Any:
    return sum((F.coalesce(F.col(c), F.lit(0)) for c in cols), F.lit(0))


# ----------------------------------------------------------------------------- queues


def queue_report(qs: DataFrame, default_maxdepth: int = 5000) -> DataFrame:
    """Per queue: rates, depth high-water mark, time on queue, and time until MAXDEPTH."""
    t0 = qs.agg(F.min("start_ts")).first()[0] or 0.0
    gets = _n("gets_np", "gets_p")
    x = (qs.withColumn("put_rate", _n("puts_np", "puts_p", "put1s_np", "put1s_p") / _dur())
         .withColumn("get_rate", gets / _dur())
         .withColumn("gets", gets)
         .withColumn("qtime_weight", _n("avg_q_time_us_np").cast("double") * _n("gets_np")
                     + _n("avg_q_time_us_p").cast("double") * _n("gets_p"))
         .withColumn("t_h", (F.col("start_ts") - F.lit(t0)) / 3600.0)
         .withColumn("d", F.col("max_depth").cast("double")))
    agg = x.groupBy("queue_manager", "queue").agg(
        F.count("*").alias("intervals"),
        F.max("put_rate").alias("peak_put_rate"),
        F.expr("percentile(put_rate, 0.95)").alias("p95_put_rate"),
        F.max("get_rate").alias("peak_get_rate"),
        F.expr("percentile(get_rate, 0.95)").alias("p95_get_rate"),
        F.max("max_depth").alias("depth_hwm"),
        _div(F.sum("qtime_weight"), F.sum("gets")).alias("avg_time_on_q_us"),
        F.coalesce(F.max("max_depth_limit"), F.lit(default_maxdepth)).alias("maxdepth"),
        _div(F.covar_pop("t_h", "d"), F.var_pop("t_h")).alias("depth_slope_per_h"),
        F.avg("t_h").alias("_mt"), F.avg("d").alias("_md"), F.max("t_h").alias("_lt"),
    )
    trend_now = F.col("_md") + F.col("depth_slope_per_h") * (F.col("_lt") - F.col("_mt"))
    hours = F.when(F.col("depth_slope_per_h") > 0,
                   F.greatest((F.col("maxdepth") - trend_now) / F.col("depth_slope_per_h"),
                              F.lit(0.0)))
    return (agg.withColumn("depth_trend_now", trend_now)
            .withColumn("hours_to_maxdepth", hours)
            .withColumn("days_to_maxdepth", hours / 24.0)
            .drop("_mt", "_md", "_lt")
            .orderBy(F.col("hours_to_maxdepth").asc_nulls_last(), "queue_manager", "queue"))


def depth_series(qs: DataFrame, qmgr: str, queue: str) -> list[tuple[float, float]]:
    rows = (qs.where((F.col("queue_manager") == qmgr) & (F.col("queue") == queue))
            .select("start_ts", "max_depth").orderBy("start_ts").collect())
    return [(r[0], float(r[1] or 0)) for r in rows]


# ----------------------------------------------------------------------------- channels


def channel_report(cs: DataFrame) -> DataFrame:
    """Per channel: messages per second, achieved batch size against BATCHSZ, net time."""
    batches = _n("full_batches", "incomplete_batches")
    x = cs.withColumn("batches", batches).withColumn("dur", _dur()) \
          .withColumn("rate", _n("msgs") / _dur())
    return (x.groupBy("queue_manager", "channel").agg(
        F.sum("msgs").alias("msgs"),
        (F.sum("msgs") / F.sum("dur")).alias("msgs_per_s"),
        F.max("rate").alias("peak_msgs_per_s"),
        (F.sum("bytes") / F.sum("dur")).alias("bytes_per_s"),
        F.sum("batches").alias("batches"),
        _div(F.sum("msgs"), F.sum("batches")).alias("achieved_batch_size"),
        F.max("batchsz").alias("batchsz"),
        (_div(F.sum("full_batches"), F.sum("batches")) * 100).alias("full_batch_pct"),
        _div(F.sum(F.col("net_time_avg_us") * F.col("batches")), F.sum("batches"))
        .alias("net_time_avg_us"),
        F.sum("put_retries").alias("put_retries"),
    ).withColumn("batch_fill_pct", _div("achieved_batch_size", "batchsz") * 100)
        .orderBy("queue_manager", "channel"))


# ----------------------------------------------------------------------------- queue managers

CALLS = {
    "MQCONN": ("conns",), "MQDISC": ("discs",), "MQOPEN": ("opens",), "MQCLOSE": ("closes",),
    "MQPUT": ("puts_np", "puts_p"), "MQPUT1": ("put1s_np", "put1s_p"),
    "MQGET": ("gets_np", "gets_p"), "MQGET(browse)": ("browses_np", "browses_p"),
    "MQINQ": ("inqs",), "MQSET": ("sets",), "MQCMIT": ("commits",), "MQBACK": ("backouts",),
}


def call_mix(ms: DataFrame) -> DataFrame:
    """Per queue manager and MQI call: how many, and the share of all calls."""
    sums = ms.groupBy("queue_manager").agg(
        *[F.sum(_n(*cols)).alias(call) for call, cols in CALLS.items()])
    stack = ", ".join(f"'{c}', `{c}`" for c in CALLS)
    long = sums.select("queue_manager", F.expr(f"stack({len(CALLS)}, {stack}) as (call, count)"))
    w = Window.partitionBy("queue_manager")
    return (long.withColumn("share_pct", _div(F.col("count"), F.sum("count").over(w)) * 100)
            .orderBy("queue_manager", F.desc("count"), "call"))


def log_report(ss: DataFrame, cap: Capacity) -> DataFrame:
    """Per queue manager: log rate against the disk, checkpoints, pagesets, buffer pool."""
    x = ss.withColumn("dur", _dur())
    last = Window.partitionBy("queue_manager").orderBy(F.desc("start_ts"))
    latest = (x.withColumn("_r", F.row_number().over(last)).where("_r = 1")
              .select("queue_manager", "pages_used", "pages_free"))
    agg = x.groupBy("queue_manager").agg(
        F.sum("dur").alias("seconds"),
        (F.sum("log_bytes") / F.sum("dur")).alias("log_bytes_per_s"),
        F.max(F.col("log_bytes") / F.col("dur")).alias("peak_log_bytes_per_s"),
        (F.sum("log_forces") / F.sum("dur")).alias("fsyncs_per_s"),
        F.max(F.col("log_forces") / F.col("dur")).alias("peak_fsyncs_per_s"),
        _div(F.sum("log_records"), F.sum("log_forces")).alias("records_per_fsync"),
        (F.sum("checkpoints") / (F.sum("dur") / 3600)).alias("checkpoints_per_hour"),
        (_div(F.sum("checkpoint_us"), F.sum("checkpoints")) / 1000).alias("avg_checkpoint_ms"),
        (_div(F.sum("buffer_hits"), F.sum("buffer_hits") + F.sum("pageset_reads")) * 100)
        .alias("buffer_hit_pct"),
    )
    out = agg.join(latest, "queue_manager", "left") \
        .withColumn("fsync_capacity_per_s", F.lit(cap.fsync_per_s)) \
        .withColumn("peak_fsync_utilisation_pct",
                    F.col("peak_fsyncs_per_s") / F.lit(cap.fsync_per_s) * 100)
    if cap.log_bytes_per_s:
        out = out.withColumn("peak_log_bandwidth_pct",
                             F.col("peak_log_bytes_per_s") / F.lit(cap.log_bytes_per_s) * 100)
    return out.orderBy("queue_manager")


def error_report(es: DataFrame, top: int = 10) -> tuple[DataFrame, DataFrame]:
    """The most frequent AMQ ids per queue manager, and every id's count per day."""
    w = Window.partitionBy("queue_manager").orderBy(F.desc("count"), "amq_id")
    tops = (es.groupBy("queue_manager", "amq_id").agg(F.count("*").alias("count"),
                                                      F.first("text").alias("text"))
            .withColumn("rank", F.row_number().over(w)).where(F.col("rank") <= top)
            .orderBy("queue_manager", "rank"))
    daily = (es.withColumn("date", F.to_date(F.from_unixtime(F.col("start_ts"))))
             .groupBy("date", "amq_id").agg(F.count("*").alias("count"))
             .orderBy("date", "amq_id"))
    return tops, daily


def hourly(ms: DataFrame) -> DataFrame:
    """Per queue manager and clock hour: persistent and non-persistent message rates."""
    return (ms.withColumn("hour", F.floor(F.col("start_ts") / 3600) * 3600)
            .groupBy("queue_manager", "hour").agg(
                F.sum(_dur()).alias("seconds"),
                F.sum(_n("puts_p", "put1s_p", "gets_p")).alias("p_msgs"),
                F.sum(_n("puts_np", "put1s_np", "gets_np")).alias("np_msgs"),
                F.sum(_n("puts_p", "put1s_p", "puts_np", "put1s_np")).alias("puts"))
            .withColumn("p_rate", F.col("p_msgs") / F.col("seconds"))
            .withColumn("np_rate", F.col("np_msgs") / F.col("seconds"))
            .withColumn("put_rate", F.col("puts") / F.col("seconds")))


def headroom_report(ms: DataFrame, cap: Capacity) -> DataFrame:
    """The busiest hour of each queue manager against the benchmarked sustainable rates."""
    h = hourly(ms).withColumn("utilisation", F.col("p_rate") / F.lit(cap.persistent_msgs_per_s)
                              + F.col("np_rate") / F.lit(cap.nonpersistent_msgs_per_s))
    w = Window.partitionBy("queue_manager").orderBy(F.desc("utilisation"), "hour")
    return (h.withColumn("_r", F.row_number().over(w)).where("_r = 1").drop("_r")
            .withColumn("busiest_hour", F.from_unixtime("hour", "yyyy-MM-dd HH:00"))
            .withColumn("utilisation_pct", F.col("utilisation") * 100)
            .withColumn("headroom_x", _div(F.lit(1.0), F.col("utilisation")))
            .withColumn("sustainable_p_rate", F.lit(cap.persistent_msgs_per_s))
            .withColumn("sustainable_np_rate", F.lit(cap.nonpersistent_msgs_per_s))
            .select("queue_manager", "busiest_hour", "p_rate", "np_rate", "sustainable_p_rate",
                    "sustainable_np_rate", "utilisation_pct", "headroom_x")
            .orderBy("queue_manager"))


def log_hourly(ss: DataFrame) -> DataFrame:
    return (ss.withColumn("hour", F.floor(F.col("start_ts") / 3600) * 3600)
            .groupBy("queue_manager", "hour")
            .agg((F.sum("log_bytes") / F.sum(_dur())).alias("log_bytes_per_s"),
                 (F.sum("log_forces") / F.sum(_dur())).alias("fsyncs_per_s"))
            .orderBy("queue_manager", "hour"))


# ----------------------------------------------------------------------------- the whole report


def rows(df: DataFrame) -> list[dict[str, Any]]:
    return [r.asDict() for r in df.collect()]


def write_csv(path: str, table: list[dict[str, Any]], columns: list[str]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in table:
            w.writerow(["" if r.get(c) is None else
                        (round(r[c], 4) if isinstance(r[c], float) else r[c]) for c in columns])


def run_report(spark: SparkSession, input_dir: str, out_dir: str, cap: Capacity, *,
               default_maxdepth: int = 5000,
               progress: Callable[[str], None] = lambda step: None,
               ) -> dict[str, list[dict[str, Any]]]:
    """Every table and chart series; writes ``<table>.csv`` and ``report.html`` in out_dir.
    ``progress`` is told each step as it starts."""
    progress(f"reading records from {input_dir}")
    qs = load(spark, input_dir, "QueueStatistics").cache()
    ms = load(spark, input_dir, "MQIStatistics").cache()
    cs = load(spark, input_dir, "ChannelStatistics")
    ss = load(spark, input_dir, "StorageStatistics").cache()
    es = load(spark, input_dir, "ErrorLog")
    steps: list[tuple[str, str, Callable[[], DataFrame]]] = [
        ("queues", "queues: rates, depth, time until MAXDEPTH",
         lambda: queue_report(qs, default_maxdepth)),
        ("channels", "channels: throughput and batching", lambda: channel_report(cs)),
        ("call_mix", "MQI call mix", lambda: call_mix(ms)),
        ("log", "log and checkpoints", lambda: log_report(ss, cap)),
        ("headroom", "headroom of the busiest hour", lambda: headroom_report(ms, cap)),
    ]
    tables: dict[str, list[dict[str, Any]]] = {}
    for name, step, build in steps:
        progress(step)
        tables[name] = rows(build())
    progress("AMQ messages")
    tops, daily = error_report(es)
    tables["errors_top"] = rows(tops)
    tables["errors_daily"] = [dict(r, date=str(r["date"])) for r in rows(daily)]
    progress("chart series")
    series: dict[str, Any] = {
        "hourly": rows(hourly(ms).orderBy("queue_manager", "hour")),
        "log_hourly": rows(log_hourly(ss)),
    }
    critical = next((q for q in tables["queues"] if q["hours_to_maxdepth"] is not None),
                    tables["queues"][0] if tables["queues"] else None)
    if critical:
        series["depth"] = {"queue_manager": critical["queue_manager"],
                           "queue": critical["queue"], "maxdepth": critical["maxdepth"],
                           "slope_per_h": critical["depth_slope_per_h"],
                           "points": depth_series(qs, critical["queue_manager"],
                                                  critical["queue"])}
    progress(f"writing {os.path.join(out_dir, 'report.html')}")
    os.makedirs(out_dir, exist_ok=True)
    for name, table in tables.items():
        write_csv(os.path.join(out_dir, f"{name}.csv"), table, html.COLUMNS[name])
    with open(os.path.join(out_dir, "report.html"), "w", encoding="utf-8") as f:
        f.write(html.render(tables, series, cap))
    for df in (qs, ms, ss):
        df.unpersist()
    return tables
