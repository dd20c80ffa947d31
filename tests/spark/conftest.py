"""One Spark session for every test here (local[2], loopback, no UI), started as the report
starts one for a small input (mqpy.spark.session.settings: the JIT's first tier, the serial
collector): every input here is a few megabytes at most, and that driver takes half the CPU
the default one does over this folder's reports (the optimising JIT's compiler threads)."""

from __future__ import annotations

import os

import attrs
import pytest

pyspark = pytest.importorskip("pyspark")

#: the size of input the session is started for: below mqpy.spark.session.SMALL_INPUT_BYTES
INPUT_BYTES = 4 << 20


@pytest.fixture(scope="session")
def spark():
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    from mqpy.spark.session import get_session

    s = get_session("local[2]", shuffle_partitions=2, input_bytes=INPUT_BYTES)
    yield s
    s.stop()


@attrs.frozen
class Built:
    """A report built once for the tests that read it: its folder, tables and Spark jobs."""

    folder: str
    tables: dict
    jobs: frozenset


@pytest.fixture(scope="session")
def short_run_report(spark, tmp_path_factory) -> Built:
    """The six-minute short run's report (tests.spark.test_short_run.short_run), with no
    measured rates: its content, its golden files and its number of Spark jobs are
    checked by three modules, from this one run."""
    from mqpy.spark.capacity import Capacity
    from mqpy.spark.report import run_report
    from mqpy.stats.exporter import write_records
    from tests.spark.test_short_run import short_run

    src = str(tmp_path_factory.mktemp("short"))
    out = str(tmp_path_factory.mktemp("short-report"))
    write_records(src, short_run(), "short")
    tracker = spark.sparkContext.statusTracker()
    before = set(tracker.getJobIdsForGroup(None))
    tables = run_report(spark, src, out, Capacity())
    return Built(out, tables, frozenset(set(tracker.getJobIdsForGroup(None)) - before))
