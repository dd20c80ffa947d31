"""Capacity reports: what the exported statistics say about headroom, as Spark jobs.

Input is the exporter's layout (``<RecordType>/date=/qmgr=/part-*.jsonl``) read with explicit
schemas, so no inference pass runs and a missing record type is an empty table, not an error.
Every figure is an aggregation executed by Spark; only the small result tables come back to the
driver, which writes them as CSV and renders the HTML. Nothing here assumes local mode.

Definitions (each interval's rate is its count over its own length):
- queue put rate = (puts + put1s) / interval, get rate = gets / interval; peak = max and
  p95 = exact 95th percentile (linear interpolation, Spark's ``percentile``) over intervals,
  or, above EXACT_P95_INTERVALS intervals per queue, Spark's ``percentile_approx`` (rank
  within 1/P95_ACCURACY), whose memory is bounded;
- depth high-water mark = max QMaxDepth; average time on queue = AverageQueueTime weighted by
  gets;
- depth trend = least-squares line of QMaxDepth against interval start; time to MAXDEPTH =
  (MAXDEPTH - the line's value at the last interval) / slope, when the slope is positive;
- channel batch size = messages / batches, beside BATCHSZ; net time weighted by batches;
- log: bytes and forces (fsyncs) per second, against the disk's measured fsync rate;
- headroom: the busiest hour's persistent and non-persistent message rates against the
  sustainable rates ``make bench`` measured: utilisation = p/P + np/NP, headroom = 1/utilisation,
  unknown when a rate with traffic was not measured;
- charts: time buckets from BUCKETS, the shortest no shorter than one interval that draws at
  most 120 points over the data's span; queues ordered by what needs attention (at MAXDEPTH,
  failed puts, above 80 %, growing, oldest messages), application before SYSTEM.* and AMQ.*;
- AMQ messages by severity (the id's last letter), informational ones ranked apart.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Callable
from typing import Any

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

from mqpy.spark import columnar, html, session
from mqpy.spark.capacity import Capacity
from mqpy.spark.inputs import ReportInputError

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
        "avg_q_time_us_np", "avg_q_time_us_p", "expired", "purged", "max_depth_limit",
        "puts_failed", "put1s_failed")),
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


#: time-bucket lengths a chart may use, seconds to weeks
BUCKETS = (10, 30, 60, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 7 * 86400)
SEVERITY = {"I": "informational", "W": "warning", "E": "error", "S": "severe"}
#: above this many intervals per queue (69 days at STATINT 600) p95 is estimated: the exact
#: percentile holds every interval's rate of every queue in memory (a year of 10,000 queues
#: at STATINT 600 is 525 million)
EXACT_P95_INTERVALS = 10_000
P95_ACCURACY = 10_000
#: QMaxDepth at or above this share of MAXDEPTH is "approaching"
APPROACH_PCT = 80.0


# ----------------------------------------------------------------------------- loading


def load(spark: SparkSession, root: str, record_type: str, store: str | None = None,
         ) -> DataFrame:
    """One record type: from the columnar copy in ``store`` when given (brought up to date by
    :func:`columnar.refresh` first), else from the exporter's JSON Lines below ``root``."""
    schema = SCHEMAS[record_type]
    if store is not None:
        df = columnar.read(spark, store, record_type, schema)
        return empty(spark, schema) if df is None else df
    path = os.path.join(root, record_type)
    if not _exists(spark, path):
        return empty(spark, schema)
    df = (spark.read.schema(schema).option("recursiveFileLookup", "true")
          .option("pathGlobFilter", "*.jsonl").json(path))
    return df.where(F.col("record_type") == record_type)


def empty(spark: SparkSession, schema: T.StructType) -> DataFrame:
    """No records, with the schema: planned by Spark alone, so no job and no Python worker
    runs for it (``createDataFrame([])`` would start Python workers for its partitions)."""
    return spark.range(0).select(*[F.lit(None).cast(f.dataType).alias(f.name)
                                   for f in schema.fields])


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


def _measured(rate: float | None) -> Any:
    """A measured rate as a column; NULL (unknown) when nobody measured it."""
    return F.lit(rate).cast("double")


def _n(*cols: str) -> Any:
    return sum((F.coalesce(F.col(c), F.lit(0)) for c in cols), F.lit(0))


# ----------------------------------------------------------------------------- queues


def _p95(column: str, exact: bool) -> Any:
    if exact:
        return F.expr(f"percentile({column}, 0.95)")
    return F.expr(f"percentile_approx({column}, 0.95, {P95_ACCURACY})")


def queue_report(qs: DataFrame, default_maxdepth: int = 5000, t0: float | None = None,
                 intervals: float | None = None) -> DataFrame:
    """Per queue: rates, depth high-water mark, time on queue, and time until MAXDEPTH.
    ``t0``: the first record's start (a job of its own finds it when not given);
    ``intervals``: about how many each queue has (p95 exact when unknown)."""
    exact = intervals is None or intervals <= EXACT_P95_INTERVALS
    if t0 is None:
        t0 = qs.agg(F.min("start_ts")).first()[0]
    gets = _n("gets_np", "gets_p")
    x = qs.withColumns({
        "put_rate": _n("puts_np", "puts_p", "put1s_np", "put1s_p") / _dur(),
        "get_rate": gets / _dur(),
        "gets": gets,
        "qtime_weight": _n("avg_q_time_us_np").cast("double") * _n("gets_np")
        + _n("avg_q_time_us_p").cast("double") * _n("gets_p"),
        "t_h": (F.col("start_ts") - F.lit(t0 or 0.0)) / 3600.0,
        "d": F.col("max_depth").cast("double")})
    agg = x.groupBy("queue_manager", "queue").agg(
        F.count("*").alias("intervals"),
        F.max("put_rate").alias("peak_put_rate"),
        _p95("put_rate", exact).alias("p95_put_rate"),
        F.max("get_rate").alias("peak_get_rate"),
        _p95("get_rate", exact).alias("p95_get_rate"),
        F.max("max_depth").alias("depth_hwm"),
        F.sum(_n("puts_failed", "put1s_failed")).alias("puts_failed"),
        _div(F.sum("qtime_weight"), F.sum("gets")).alias("avg_time_on_q_us"),
        F.coalesce(F.max("max_depth_limit"), F.lit(default_maxdepth)).alias("maxdepth"),
        _div(F.covar_pop("t_h", "d"), F.var_pop("t_h")).alias("depth_slope_per_h"),
        F.avg("t_h").alias("_mt"), F.avg("d").alias("_md"), F.max("t_h").alias("_lt"),
    )
    trend_now = F.col("_md") + F.col("depth_slope_per_h") * (F.col("_lt") - F.col("_mt"))
    hours = F.when(F.col("depth_slope_per_h") > 0,
                   F.greatest((F.col("maxdepth") - trend_now) / F.col("depth_slope_per_h"),
                              F.lit(0.0)))
    q = F.col("queue")
    kind = (F.when(q.startswith("SYSTEM."), "system")
            .when(q.startswith("AMQ."), "temporary dynamic").otherwise("application"))
    out = agg.withColumns({
        "depth_trend_now": trend_now, "hours_to_maxdepth": hours,
        "days_to_maxdepth": hours / 24.0, "kind": kind,
        "depth_pct": F.col("depth_hwm") / F.col("maxdepth") * 100.0}).drop("_mt", "_md", "_lt")
    # what matters first: at MAXDEPTH, failed puts, approaching it, growing, oldest messages
    attention = (F.when(F.col("depth_hwm") >= F.col("maxdepth"), 0)
                 .when(F.col("puts_failed") > 0, 1)
                 .when(F.col("depth_pct") >= APPROACH_PCT, 2)
                 .when(F.col("hours_to_maxdepth").isNotNull(), 3).otherwise(4))
    return (out.withColumn("attention", attention)
            .orderBy(F.when(F.col("kind") == "application", 0).otherwise(1), "attention",
                     F.col("hours_to_maxdepth").asc_nulls_last(),
                     F.col("avg_time_on_q_us").desc_nulls_last(), "queue_manager", "queue"))


def depth_series(qs: DataFrame, queues: list[tuple[str, str]],
                 ) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """(start, QMaxDepth) of each (queue manager, queue), in one query (none for none)."""
    if not queues:
        return {}
    wanted = F.lit(False)
    for qmgr, queue in queues:
        wanted = wanted | ((F.col("queue_manager") == qmgr) & (F.col("queue") == queue))
    found: dict[tuple[str, str], list[tuple[float, float]]] = {q: [] for q in queues}
    for r in (qs.where(wanted).select("queue_manager", "queue", "start_ts", "max_depth")
              .orderBy("queue_manager", "queue", "start_ts").collect()):
        found[(r[0], r[1])].append((r[2], float(r[3] or 0)))
    return found


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
        .withColumn("fsync_capacity_per_s", _measured(cap.fsync_per_s)) \
        .withColumn("peak_fsync_utilisation_pct",
                    _div("peak_fsyncs_per_s", _measured(cap.fsync_per_s)) * 100)
    if cap.log_bytes_per_s:
        out = out.withColumn("peak_log_bandwidth_pct",
                             F.col("peak_log_bytes_per_s") / F.lit(cap.log_bytes_per_s) * 100)
    return out.orderBy("queue_manager")


def _severity() -> Any:
    """AMQnnnnX's last letter: I informational, W warning, E error, S severe."""
    last = F.substring(F.col("amq_id"), -1, 1)
    expr = F.lit("unknown")
    for letter, name in SEVERITY.items():
        expr = F.when(last == letter, name).otherwise(expr)
    return expr


def error_report(es: DataFrame, bucket: int = 86400, top: int = 10,
                 ) -> tuple[DataFrame, DataFrame, DataFrame]:
    """The most frequent warning, error and severe AMQ ids per queue manager with their text;
    the most frequent informational ones apart; and every id's count per time bucket."""
    x = es.withColumn("severity", _severity())
    w = Window.partitionBy("queue_manager").orderBy(F.desc("count"), "amq_id")

    def ranked(df: DataFrame) -> DataFrame:
        return (df.groupBy("queue_manager", "amq_id", "severity")
                .agg(F.count("*").alias("count"), F.first("text").alias("text"))
                .withColumn("rank", F.row_number().over(w)).where(F.col("rank") <= top)
                .orderBy("queue_manager", "rank"))

    info = F.col("severity") == SEVERITY["I"]
    over_time = (x.withColumn("t", F.floor(F.col("start_ts") / bucket) * bucket)
                 .groupBy("t", "severity", "amq_id")
                 .agg(F.count("*").alias("count"), F.first("text").alias("text"))
                 .orderBy("t", "severity", "amq_id"))
    return ranked(x.where(~info)), ranked(x.where(info)), over_time


def extents(*dfs: DataFrame) -> list[tuple[Any, Any, Any, int]]:
    """Per frame, in one query: (first start, last end, median interval length, records); a
    record without an end, an error-log entry, ends where it starts; Nones and 0 for a frame
    without records."""
    both = None
    for i, df in enumerate(dfs):
        one = df.select(F.lit(i).alias("_frame"), "start_ts", "end_ts")
        both = one if both is None else both.unionByName(one)
    found = {r[0]: tuple(r[1:]) for r in both.groupBy("_frame").agg(
        F.min("start_ts"), F.max(F.coalesce("end_ts", "start_ts")),
        F.expr("percentile_approx(end_ts - start_ts, 0.5)"), F.count("*")).collect()}
    return [found.get(i, (None, None, None, 0)) for i in range(len(dfs))]


def span(*dfs: DataFrame, known: list[tuple[Any, ...]] | None = None,
         ) -> tuple[float, float] | None:
    """(seconds from the first record's start to the last one's end, the median interval
    length) over the records; None when there are none. ``known``: the frames'
    :func:`extents`, when already found."""
    first, last, lengths = None, None, []
    for r in known if known is not None else extents(*dfs):
        if r[0] is None:
            continue
        first = r[0] if first is None else min(first, r[0])
        last = r[1] if last is None else max(last, r[1])
        if r[2] is not None:
            lengths.append(r[2])
    if first is None:
        return None
    median = sorted(lengths)[len(lengths) // 2] if lengths else 0.0
    return float(last - first), float(median)


def bucket_seconds(span_s: float, interval_s: float, points: int = 120) -> int:
    """The shortest bucket of BUCKETS that is no shorter than one statistics interval and
    draws at most ``points`` points over the span."""
    want = max(span_s / points, interval_s)
    return next((b for b in BUCKETS if b >= want), BUCKETS[-1])


def rates(ms: DataFrame, bucket: int = 3600) -> DataFrame:
    """Per queue manager and time bucket (``t``, its start): persistent and non-persistent
    message rates."""
    return (ms.withColumn("t", F.floor(F.col("start_ts") / bucket) * bucket)
            .groupBy("queue_manager", "t").agg(
                F.sum(_dur()).alias("seconds"),
                F.sum(_n("puts_p", "put1s_p", "gets_p")).alias("p_msgs"),
                F.sum(_n("puts_np", "put1s_np", "gets_np")).alias("np_msgs"),
                F.sum(_n("puts_p", "put1s_p", "puts_np", "put1s_np")).alias("puts"))
            .withColumn("p_rate", F.col("p_msgs") / F.col("seconds"))
            .withColumn("np_rate", F.col("np_msgs") / F.col("seconds"))
            .withColumn("put_rate", F.col("puts") / F.col("seconds")))


def _share(rate: str, sustainable: float | None) -> Any:
    """rate / sustainable; 0 when there is no such traffic, unknown when nobody measured
    the sustainable rate of traffic there was."""
    if sustainable:
        return F.col(rate) / F.lit(sustainable)
    return F.when(F.col(rate) == 0, F.lit(0.0))


def headroom_report(ms: DataFrame, cap: Capacity) -> DataFrame:
    """The busiest hour of each queue manager against the measured sustainable rates."""
    h = (rates(ms).withColumn("_load", F.col("p_rate") + F.col("np_rate"))
         .withColumn("utilisation", _share("p_rate", cap.persistent_msgs_per_s)
                     + _share("np_rate", cap.nonpersistent_msgs_per_s)))
    w = Window.partitionBy("queue_manager").orderBy(F.desc_nulls_last("utilisation"),
                                                    F.desc("_load"), "t")
    return (h.withColumn("_r", F.row_number().over(w)).where("_r = 1").drop("_r")
            .withColumn("busiest_hour", F.from_unixtime("t", "yyyy-MM-dd HH:00"))
            .withColumn("utilisation_pct", F.col("utilisation") * 100)
            .withColumn("headroom_x", _div(F.lit(1.0), F.col("utilisation")))
            .withColumn("sustainable_p_rate", _measured(cap.persistent_msgs_per_s))
            .withColumn("sustainable_np_rate", _measured(cap.nonpersistent_msgs_per_s))
            .select("queue_manager", "busiest_hour", "p_rate", "np_rate", "sustainable_p_rate",
                    "sustainable_np_rate", "utilisation_pct", "headroom_x")
            .orderBy("queue_manager"))


def log_rates(ss: DataFrame, bucket: int = 3600) -> DataFrame:
    """Per queue manager and time bucket: log bytes and forces per second, checkpoints taken
    and their average length."""
    return (ss.withColumn("t", F.floor(F.col("start_ts") / bucket) * bucket)
            .groupBy("queue_manager", "t")
            .agg((F.sum("log_bytes") / F.sum(_dur())).alias("log_bytes_per_s"),
                 (F.sum("log_forces") / F.sum(_dur())).alias("fsyncs_per_s"),
                 F.sum(_n("checkpoints")).alias("checkpoints"),
                 (_div(F.sum("checkpoint_us"), F.sum("checkpoints")) / 1000)
                 .alias("avg_checkpoint_ms"))
            .orderBy("queue_manager", "t"))


def channel_rates(cs: DataFrame, bucket: int = 3600) -> DataFrame:
    """Per channel and time bucket: messages per second, batch fill (achieved batch size as a
    share of BATCHSZ) and MRRTY put retries."""
    batches = _n("full_batches", "incomplete_batches")
    return (cs.withColumn("t", F.floor(F.col("start_ts") / bucket) * bucket)
            .groupBy("queue_manager", "channel", "t")
            .agg((F.sum(_n("msgs")) / F.sum(_dur())).alias("msgs_per_s"),
                 (_div(F.sum(_n("msgs")), F.sum(batches)) / F.max("batchsz") * 100)
                 .alias("batch_fill_pct"),
                 F.sum(_n("put_retries")).alias("put_retries"))
            .orderBy("queue_manager", "channel", "t"))


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


def _depth_charts(qs: DataFrame, queues: list[dict[str, Any]], most: int = 3,
                  ) -> list[dict[str, Any]]:
    """The depth series of the application queues that need attention (at most ``most``),
    or of the first queue when none does."""
    app = [q for q in queues if q["kind"] == "application"]
    chosen = [q for q in app if q["attention"] < 4][:most] or (app or queues)[:1]
    series = depth_series(qs, [(q["queue_manager"], q["queue"]) for q in chosen])
    return [{"queue_manager": q["queue_manager"], "queue": q["queue"],
             "maxdepth": q["maxdepth"], "slope_per_h": q["depth_slope_per_h"],
             "points": series[(q["queue_manager"], q["queue"])]} for q in chosen]


def run_report(spark: SparkSession, input_dir: str, out_dir: str, cap: Capacity, *,
               default_maxdepth: int = 5000, store: str | None = None,
               progress: Callable[[str], None] = lambda step: None,
               ) -> dict[str, list[dict[str, Any]]]:
    """Every table and chart series; writes ``<table>.csv`` and ``report.html`` in out_dir.
    With ``store``, the records are read from the columnar copy there, brought up to date
    first. ``progress`` is told each step as it starts; ReportInputError when nothing is there
    to report on."""
    if store is not None:
        progress(f"bringing the Parquet copy in {store} up to date")
        changed = sum(columnar.refresh(spark, input_dir, store, SCHEMAS).values())
        progress(f"reading records from {store} ({changed} partitions converted or removed)")
    else:
        progress(f"reading records from {input_dir}")
    # JSON Lines are parsed once and kept; the Parquet copy is read again by each figure,
    # its columns only, which costs less than keeping every record in the JVM's memory
    frames = [load(spark, input_dir, t, store) for t in SCHEMAS]
    if store is None:
        frames = [df.cache() for df in frames]
    try:
        found = extents(*frames)
        spanned = span(known=[found[i] for i in (0, 1, 3, 4)])  # channels' records do not count
        if spanned is None:
            raise ReportInputError(f"no statistics or error-log records in {input_dir}")
        with session.sized_for(spark, sum(f[3] for f in found)):
            tables, series = _figures(frames, bucket_seconds(*spanned), cap, progress,
                                      default_maxdepth=default_maxdepth, t0=found[0][0],
                                      intervals=spanned[0] / spanned[1] if spanned[1] else None)
    finally:
        for df in frames:
            df.unpersist()
    progress(f"writing {os.path.join(out_dir, 'report.html')}")
    os.makedirs(out_dir, exist_ok=True)
    for name, columns in html.COLUMNS.items():
        write_csv(os.path.join(out_dir, f"{name}.csv"), tables[name], columns)
    with open(os.path.join(out_dir, "report.html"), "w", encoding="utf-8") as f:
        f.write(html.render(tables, series, cap))
    return tables


def _figures(frames: list[DataFrame], bucket: int, cap: Capacity,
             progress: Callable[[str], None], *, default_maxdepth: int, t0: float | None,
             intervals: float | None = None) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """The tables and the charts' series from the five record types: one query each."""
    qs, ms, cs, ss, es = frames
    steps: list[tuple[str, str, Callable[[], DataFrame]]] = [
        ("queues", "queues: rates, depth, time until MAXDEPTH",
         lambda: queue_report(qs, default_maxdepth, t0=t0, intervals=intervals)),
        ("channels", "channels: throughput and batching", lambda: channel_report(cs)),
        ("call_mix", "MQI call mix", lambda: call_mix(ms)),
        ("log", "log and checkpoints", lambda: log_report(ss, cap)),
        ("headroom", "headroom of the busiest hour", lambda: headroom_report(ms, cap)),
    ]
    tables: dict[str, list[dict[str, Any]]] = {"bucket_seconds": [{"seconds": bucket}]}
    for name, step, build in steps:
        progress(step)
        tables[name] = rows(build())
    progress("AMQ messages by severity")
    for name, df in zip(("errors_top", "info_top", "errors_over_time"),
                        error_report(es, bucket), strict=True):
        tables[name] = rows(df)
    progress(f"chart series ({html.bucket_label(bucket)} buckets)")
    series: dict[str, Any] = {
        "rates": rows(rates(ms, bucket).orderBy("queue_manager", "t")),
        "log_rates": rows(log_rates(ss, bucket)),
        "channel_rates": rows(channel_rates(cs, bucket)),
        "depth": _depth_charts(qs, tables["queues"]),
    }
    return tables, series
