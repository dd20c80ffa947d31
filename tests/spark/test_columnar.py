"""The report's Parquet copy: the same figures as the JSON Lines export, kept up to date by
converting only the partitions that changed."""

from __future__ import annotations

import math
import os
import shutil

import pytest

from mqpy.spark import columnar
from mqpy.spark.capacity import Capacity
from mqpy.spark.report import SCHEMAS, load, run_report
from mqpy.stats.generator import generate

pytestmark = pytest.mark.system

DAY = 86400.0


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _report(spark, src, out, store=None):
    return run_report(spark, src, str(out), Capacity.from_bench(None), store=store)


def _records(spark, src, store=None) -> dict[str, list[dict]]:
    """Every record of each type as the report reads it (``load``: from the export, or from
    the copy in ``store``), its schema's columns, in one order: what the report's figures are
    made of, so that two equal ones make the same report (as the first test shows for a
    copy made at once) without making it, a dozen Spark jobs each time."""
    out = {}
    for record_type, schema in SCHEMAS.items():
        df = load(spark, src, record_type, store).select(*schema.fieldNames())
        out[record_type] = sorted((row.asDict(recursive=True) for row in df.collect()),
                                  key=repr)
    return out


#: the first test here starts the Spark session too (its setup: a minute on a loaded machine)
#: and makes two whole reports: 300 s (the suite's timeout) was reached at load 25-28
@pytest.mark.timeout(600)
def test_a_report_from_the_parquet_copy_equals_one_from_the_export(spark, tmp_path):
    """Given two days of two queue managers' records, when the report runs once on the export
    and once through its Parquet copy, then every table is the same, and the copy is
    partitioned by date and queue manager as the export is."""
    src = str(tmp_path / "export")
    generate(src, days=2, qmgrs=2, queues=3, seed=5, interval=3600)
    store = columnar.default_store(src)
    direct = _report(spark, src, tmp_path / "direct")
    copied = _report(spark, src, tmp_path / "copied", store=store)
    assert direct.keys() == copied.keys()
    for name in direct:
        assert _same(direct[name], copied[name]), name
    days = sorted(os.listdir(os.path.join(store, "QueueStatistics")))
    assert [d for d in days if d.startswith("date=")] == ["date=2024-01-01", "date=2024-01-02"]
    assert sorted(os.listdir(os.path.join(store, "QueueStatistics", days[0]))) == [
        "qmgr=QM1", "qmgr=QM2"]


def test_later_runs_convert_only_what_changed(spark, tmp_path):
    """Given a copy made from one day of records, when the report runs again with nothing new,
    then no partition is converted; when a second day arrives, only its partitions are; when a
    day leaves the export, its partitions leave the copy; each time the copy holds the records
    the export holds, as the report reads them."""
    src, later = str(tmp_path / "export"), str(tmp_path / "later")
    generate(src, days=1, qmgrs=2, queues=2, seed=7, interval=3600)
    generate(later, days=2, qmgrs=2, queues=2, seed=7, interval=3600)
    store = str(tmp_path / "copy")
    first = columnar.refresh(spark, src, store, SCHEMAS)
    assert first["QueueStatistics"] == 2  # one day, two queue managers
    assert sum(columnar.refresh(spark, src, store, SCHEMAS).values()) == 0

    for record_type in SCHEMAS:  # the second day arrives
        day2 = os.path.join(later, record_type, "date=2024-01-02")
        if os.path.isdir(day2):
            shutil.copytree(day2, os.path.join(src, record_type, "date=2024-01-02"))
    second = columnar.refresh(spark, src, store, SCHEMAS)
    assert second["QueueStatistics"] == 2
    assert _same(_records(spark, src), _records(spark, src, store))

    for record_type in SCHEMAS:  # the first day is removed from the export
        shutil.rmtree(os.path.join(src, record_type, "date=2024-01-01"), ignore_errors=True)
    assert columnar.refresh(spark, src, store, SCHEMAS)["QueueStatistics"] == 2
    assert not os.path.exists(os.path.join(store, "QueueStatistics", "date=2024-01-01"))
    assert _same(_records(spark, src), _records(spark, src, store))


def test_a_damaged_manifest_makes_the_next_run_convert_everything(spark, tmp_path):
    """Given a copy whose manifest was damaged, when the report runs, then every partition is
    converted again rather than trusted."""
    src = str(tmp_path / "export")
    generate(src, days=1, qmgrs=1, queues=1, seed=2, interval=3600)
    store = str(tmp_path / "copy")
    columnar.refresh(spark, src, store, SCHEMAS)
    with open(os.path.join(store, columnar.MANIFEST), "w") as f:
        f.write("{not json")
    assert columnar.refresh(spark, src, store, SCHEMAS)["QueueStatistics"] == 1
