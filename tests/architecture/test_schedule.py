"""The suite's schedule names files that exist (tests/support/schedule.py)."""

from __future__ import annotations

import os

from tests.support.schedule import LONGEST, work_unit

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_every_file_scheduled_first_exists():
    missing = [p for p in LONGEST if not os.path.isfile(os.path.join(ROOT, p))]
    assert missing == []


def test_no_file_is_scheduled_twice():
    assert len(set(LONGEST)) == len(LONGEST)


def test_the_spark_files_are_one_work_unit_and_other_files_one_each():
    """Given tests of two Spark files and of two other files, then the Spark ones go to one
    worker together (one Spark session), each other file to a worker of its own."""
    assert work_unit("tests/spark/test_report.py::test_mqi_call_mix") == \
        work_unit("tests/spark/test_cli.py::test_export_then_generate[x]")
    assert work_unit("tests/web/test_health.py::test_a") == "tests/web/test_health.py"
    assert work_unit("tests/web/test_health.py::test_a") != \
        work_unit("tests/web/test_metrics.py::test_a")
