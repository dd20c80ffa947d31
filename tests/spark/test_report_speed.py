"""What makes a small report quick: few Spark jobs, and a session sized to its input.

A short run's report is a few seconds of Spark's fixed costs (the JVM, its JIT, the planning
of each query, a job per action), so the report runs one query per table, reads each record
type once, and starts the driver for a short job when the input is small.
"""

from __future__ import annotations

import pytest

from mqpy.spark import session
from mqpy.spark.inputs import input_bytes
from mqpy.stats.exporter import write_records
from tests.spark.test_short_run import short_run

pytestmark = pytest.mark.system

#: one per table and chart series, the reading of the inputs, and the stages adaptive query
#: execution submits as jobs of their own (the report ran 56 before it was cut down)
MOST_JOBS = 30


def test_a_short_run_is_reported_in_few_spark_jobs(short_run_report):
    """Given the six-minute short run (no channel records), when the report is built, then
    Spark runs at most MOST_JOBS jobs."""
    ran = short_run_report.jobs
    assert len(ran) <= MOST_JOBS, f"{len(ran)} Spark jobs"


def test_a_small_input_starts_the_driver_for_a_short_job():
    """Given an input of a few megabytes, then the session's settings stop the JIT at its
    first tier, use the serial collector and one shuffle partition, and run queries without
    generated code (whole stages or expressions)."""
    conf = session.settings("local[*]", input_bytes=2_000_000)
    assert "-XX:TieredStopAtLevel=1" in conf["spark.driver.extraJavaOptions"]
    assert "-XX:+UseSerialGC" in conf["spark.driver.extraJavaOptions"]
    assert conf["spark.sql.shuffle.partitions"] == "1"
    assert conf["spark.sql.codegen.wholeStage"] == "false"
    assert conf["spark.sql.codegen.factoryMode"] == "NO_CODEGEN"


def test_a_report_on_few_records_runs_its_queries_interpreted(spark):
    """Given a session started for a large input, when a report's queries run on at most
    SMALL_RECORDS records, then they run without generated code; after them the session's
    own values are back."""
    keys = ("spark.sql.codegen.wholeStage", "spark.sql.codegen.factoryMode")
    before = {k: spark.conf.get(k, None) for k in keys}
    for k in keys:
        spark.conf.unset(k)
    try:
        with session.sized_for(spark, session.SMALL_RECORDS):
            assert spark.conf.get("spark.sql.codegen.wholeStage") == "false"
            assert spark.conf.get("spark.sql.codegen.factoryMode") == "NO_CODEGEN"
        assert spark.conf.get("spark.sql.codegen.wholeStage") == "true"
        with session.sized_for(spark, session.SMALL_RECORDS + 1):
            assert spark.conf.get("spark.sql.codegen.wholeStage") == "true"
    finally:
        session.restore_conf(spark, before)


@pytest.mark.parametrize("size", [None, 2 * session.SMALL_INPUT_BYTES])
def test_a_large_or_unknown_input_keeps_the_jit_and_sizes_the_partitions(size):
    """Given an input larger than SMALL_INPUT_BYTES, or of unknown size (a URI), then the
    driver keeps the JVM's JIT and collector, with DEFAULT_PARTITIONS shuffle partitions at
    least; an explicit count wins."""
    conf = session.settings("local[*]", input_bytes=size)
    assert "TieredStopAtLevel" not in conf["spark.driver.extraJavaOptions"]
    assert "UseSerialGC" not in conf["spark.driver.extraJavaOptions"]
    assert int(conf["spark.sql.shuffle.partitions"]) >= session.DEFAULT_PARTITIONS
    given = session.settings("local[*]", input_bytes=size, shuffle_partitions=3)
    assert given["spark.sql.shuffle.partitions"] == "3"


def test_a_large_input_gets_a_driver_heap_above_sparks_default():
    """Given an input of gigabytes, then the local driver's heap is sized above Spark's 1 GB
    default (the aggregations hold a year of intervals per queue); a small one keeps it."""
    big = session.settings("local[*]", input_bytes=20 << 30)
    assert int(big["spark.driver.memory"].rstrip("g")) >= 4
    assert "spark.driver.memory" not in session.settings("local[*]", input_bytes=2_000_000)
    assert "spark.driver.memory" not in session.settings("spark://h:7077", input_bytes=20 << 30)


def test_the_input_size_counts_the_exported_records_only(tmp_path):
    """Given an export with records, the exporter's _state folder and a Parquet copy, then
    its size is that of the *.jsonl record files; a URI's size is unknown."""
    src = tmp_path / "export"
    write_records(str(src), short_run(), "short")
    records = sum(p.stat().st_size for p in src.rglob("*.jsonl"))
    (src / "_state").mkdir()
    (src / "_state" / "x.jsonl").write_text("{}\n" * 1000)
    (src / "_parquet").mkdir()
    (src / "_parquet" / "part.parquet").write_bytes(b"0" * 5000)
    assert input_bytes(str(src)) == records
    assert input_bytes("hdfs://nn:8020/export") is None
