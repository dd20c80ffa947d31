"""The generator at capacity-planning scale (Spark writes the records): the same report
whether it writes the exporter's JSON Lines or the report's Parquet copy, one file per
partition, depths within MAXDEPTH. Under `make soak`: Spark jobs of their own."""

from __future__ import annotations

import os

import pytest
from pyspark.sql import DataFrame

from mqpy.spark import generator
from mqpy.spark.capacity import Capacity
from mqpy.spark.report import SCHEMAS, run_report

from .test_columnar import _same

#: Spark writes and reads a few thousand records several times: a minute on a busy machine
pytestmark = [pytest.mark.system, pytest.mark.soak, pytest.mark.timeout(1200)]

SIZE = {"days": 1, "qmgrs": 2, "queues": 3, "interval": 3600, "seed": 4}


@pytest.fixture(scope="module")
def both(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("gen")
    n_json = generator.generate(spark, str(root / "export"), fmt="jsonl", **SIZE)
    n_parquet = generator.generate(spark, str(root / "store"), fmt="parquet", **SIZE)
    os.makedirs(root / "empty")
    return root, n_json, n_parquet


def test_given_either_format_then_the_report_is_the_same(spark, both, monkeypatch):
    """Given the same size and seed written as JSON Lines and as the Parquet copy, when the
    report reads each (the export through a fresh copy, the copy as it is), then every
    table is the same and the record counts are equal; and reading the copy caches no
    records in the JVM's memory (each figure reads the columns it needs)."""
    root, n_json, n_parquet = both
    cap = Capacity.from_bench(None)
    a = run_report(spark, str(root / "export"), str(root / "a"), cap,
                   store=str(root / "converted"))
    cached: list[DataFrame] = []
    monkeypatch.setattr(type(spark.range(0)), "cache", lambda df: cached.append(df) or df)
    b = run_report(spark, str(root / "empty"), str(root / "b"), cap, store=str(root / "store"))
    assert cached == []
    assert n_json == n_parquet
    assert _same(a, b)
    per_interval = SIZE["qmgrs"] * 24 * SIZE["days"]
    assert n_json == per_interval * (SIZE["queues"] + 3) + sum(
        r["count"] for r in a["errors_over_time"])


def test_each_partition_is_one_file_named_as_the_exporter_names_them(both):
    """Given the generated JSON Lines, then each date and queue manager of each record type
    is one *.jsonl file, and Spark's checksum files are gone."""
    root = both[0]
    for record_type in SCHEMAS:
        base = root / "export" / record_type
        parts = [p for p in base.glob("date=*/qmgr=*") if p.is_dir()]
        assert parts, record_type
        for p in parts:
            assert [f.suffix for f in p.iterdir()] == [".jsonl"], p


def test_depths_stay_within_maxdepth_and_the_first_queue_grows(spark, both):
    """Given the generated queues, then no QMaxDepth exceeds MAXDEPTH and the first queue of
    each queue manager ends deeper than it started."""
    qs: DataFrame = spark.read.parquet(str(both[0] / "store" / "QueueStatistics"))
    assert qs.where("max_depth > max_depth_limit").count() == 0
    first = qs.where("queue = 'APP.Q1'").groupBy("queue_manager").agg(
        {"max_depth": "max", "min_depth": "min"}).collect()
    assert len(first) == SIZE["qmgrs"]
    assert all(r["max(max_depth)"] > r["min(min_depth)"] for r in first)
