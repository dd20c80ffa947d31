"""The report's content does not depend on how Spark computes it: for fixed inputs, every CSV
table and report.html equal the files in ``golden/`` byte for byte.

The golden files were written by the report as it was before its Spark jobs were cut down
(fewer actions, inputs read once, small-input settings), from the inputs below; a change that
alters a figure, an order or a chart shows here as a file that differs.
"""

from __future__ import annotations

import os

import pytest

from mqpy.spark.capacity import Capacity
from mqpy.spark.report import run_report
from mqpy.stats.exporter import write_records
from mqpy.stats.generator import generate
from tests.spark.test_short_run import T0, short_run

pytestmark = pytest.mark.system

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
MEASURED = Capacity(fsync_per_s=400.0, log_bytes_per_s=4e6, persistent_msgs_per_s=900.0,
                    nonpersistent_msgs_per_s=20000.0, source="given as options")


def _short(src: str) -> Capacity:
    write_records(src, short_run(), "short")
    return Capacity()


def _generated(src: str) -> Capacity:
    generate(src, days=1, qmgrs=2, queues=3, seed=11, interval=3600)
    return MEASURED


def _errors_only(src: str) -> Capacity:
    write_records(src, [{"record_type": "ErrorLog", "queue_manager": "QM1",
                         "start_ts": T0 + k * 3600.0, "key": f"e{k}",
                         "amq_id": ("AMQ9999E", "AMQ9002I", "AMQ7469W")[k % 3],
                         "text": f"text {k % 3}"} for k in range(30)], "e")
    return Capacity()


#: case -> writes its input below a folder and gives the capacity the report weighs it against
CASES = {"short_run": _short, "generated": _generated, "errors_only": _errors_only}


def build(spark, case: str, root: str, store: str | None = None) -> str:
    """The case's report in ``root``/report; returns that folder."""
    src, out = os.path.join(root, "input"), os.path.join(root, "report")
    cap = CASES[case](src)
    run_report(spark, src, out, cap, store=store)
    return out


def _files(folder: str) -> dict[str, bytes]:
    found = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            found[name] = f.read()
    return found


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_table_and_the_page_equal_the_golden_files(spark, tmp_path, case, request):
    """Given a fixed input (a short run, a generated day, error-log records alone), when the
    report is built, then each CSV table and report.html equal the golden files. (The short
    run's report is the one tests/spark/conftest.py builds for every module that reads it,
    from the same input and capacity as _short.)"""
    folder = request.getfixturevalue("short_run_report").folder if case == "short_run" \
        else build(spark, case, str(tmp_path))
    made = _files(folder)
    golden = _files(os.path.join(GOLDEN, case))
    assert sorted(made) == sorted(golden)
    for name in golden:
        assert made[name] == golden[name], f"{case}/{name} differs from the golden file"


def test_the_parquet_copy_gives_the_golden_files_too(spark, tmp_path):
    """Given the generated day, when the report reads it through its Parquet copy (first run,
    converting, then again with nothing new), then the files equal the golden ones."""
    store = str(tmp_path / "store")
    golden = _files(os.path.join(GOLDEN, "generated"))
    for again in ("first", "second"):
        out = build(spark, "generated", str(tmp_path / again), store=store)
        assert _files(out) == golden, again
