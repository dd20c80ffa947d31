"""`mqpy report` and `mqpy generate` as a capacity planner meets them: what goes in, what
comes out, and what is said while Spark works."""

from __future__ import annotations

import io
import json
import os
import sys
import time

import pytest
from click.testing import CliRunner

from mqpy.spark.inputs import Progress, bench_path
from mqpy.stats.exporter import write_records
from mqpy.stats.generator import generate
from mqpy_cli.statscmd import cli


def _report(*args: str):
    t = time.monotonic()
    result = CliRunner().invoke(cli, ["report", *args])
    return result, time.monotonic() - t


def test_given_a_missing_input_when_reporting_then_an_error_names_it_at_once(tmp_path):
    """Given an --input that does not exist, when `mqpy report` runs, then it ends non-zero
    at once (no Spark start) with a message naming the folder."""
    missing = str(tmp_path / "nosuchdir") + "/"
    result, took = _report("--input", missing, "--out", str(tmp_path / "rep"))
    assert result.exit_code != 0
    assert "nosuchdir" in result.output and "does not exist" in result.output
    assert took < 5 and not os.path.exists(tmp_path / "rep")


def test_given_a_file_as_input_then_the_error_says_it_is_not_a_folder(tmp_path):
    """Given --input naming a file, when `mqpy report` runs, then it ends non-zero at once
    saying the input is a file, not the exporter's output folder."""
    f = tmp_path / "records.jsonl"
    f.write_text("{}\n")
    result, took = _report("--input", str(f), "--out", str(tmp_path / "rep"))
    assert result.exit_code != 0 and "is a file" in result.output and took < 5


def test_given_an_input_without_records_when_reporting_then_an_error_says_so(tmp_path):
    """Given an empty folder (or one holding only the exporter's state files), when
    `mqpy report` runs, then it ends non-zero at once saying no exported records were found."""
    empty = tmp_path / "empty"
    (empty / "_state" / "QM1").mkdir(parents=True)
    (empty / "_state" / "QM1" / "errors.json").write_text("{}")
    result, took = _report("--input", str(empty), "--out", str(tmp_path / "rep"))
    assert result.exit_code != 0
    assert "no exported records" in result.output and str(empty) in result.output
    assert took < 5


def test_given_no_pyspark_when_reporting_then_the_message_says_how_to_install_it(
        tmp_path, monkeypatch):
    """Given pyspark not installed, when `mqpy report` runs, then it ends non-zero with the
    extra to install, not an ImportError traceback."""
    src = str(tmp_path / "gen")
    generate(src, days=1, qmgrs=1, queues=1, interval=3600)
    monkeypatch.setitem(sys.modules, "pyspark", None)
    result, _ = _report("--input", src, "--out", str(tmp_path / "rep"))
    assert result.exit_code != 0
    assert "pip install 'mqpy[spark]'" in result.output
    assert not isinstance(result.exception, ImportError)


def test_given_a_bench_file_that_is_absent_then_the_error_names_the_path_tried(
        tmp_path, monkeypatch):
    """Given --bench naming a file that is not there, when `mqpy report` runs, then it ends
    non-zero naming the absolute path it tried (relative paths are taken from the current
    folder)."""
    src = str(tmp_path / "gen")
    generate(src, days=1, qmgrs=1, queues=1, interval=3600)
    monkeypatch.chdir(tmp_path)
    result, took = _report("--input", src, "--out", "rep", "--bench", "bench/results.json")
    assert result.exit_code != 0
    assert str(tmp_path / "bench" / "results.json") in result.output
    assert took < 5


def test_given_a_bench_file_in_the_current_folder_then_its_rates_are_used(tmp_path,
                                                                           monkeypatch):
    """Given --bench results.json relative to the current folder, then the report's capacity
    comes from that file (resolved against the current folder)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results.json").write_text(json.dumps({"results": []}))
    assert bench_path("results.json") == str(tmp_path / "results.json")


@pytest.mark.system
def test_given_records_when_reporting_then_progress_lines_are_written(spark, tmp_path):
    """Given a day of generated records, when `mqpy report` runs without a terminal, then
    it writes one plain progress line per step (reading, each table, writing) before the
    summary."""
    src = str(tmp_path / "gen")
    generate(src, days=1, qmgrs=1, queues=2, interval=3600)
    result, _ = _report("--input", src, "--out", str(tmp_path / "rep"), "--master", "local[2]",
                        "--no-parquet")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    progress = [ln for ln in lines if ln.startswith("mqpy report: ")]
    assert len(progress) >= 5, lines
    assert any("reading" in ln for ln in progress) and any("queues" in ln for ln in progress)
    assert "\r" not in result.output
    assert lines[-1].startswith("report written to")


def test_given_a_terminal_then_progress_rewrites_one_line_and_ends_it():
    """Given a terminal, when the report moves through its steps, then each step rewrites
    the same line (carriage return) and the line is ended once at the end."""
    out = io.StringIO()
    p = Progress(out, tty=True)
    p("reading records")
    p("queues")
    p.done()
    text = out.getvalue()
    assert text.count("\r") == 2 and text.count("\n") == 1 and text.endswith("s)\n")
    assert "mqpy report: queues" in text


@pytest.mark.system
def test_given_files_that_hold_no_statistics_then_the_report_is_an_error(spark, tmp_path):
    """Given an input whose only JSON Lines hold records the report does not read (a message
    the exporter could not parse), when `mqpy report` runs, then it ends non-zero saying no
    statistics or error-log records were found, and writes no report."""
    src = str(tmp_path / "odd")
    write_records(src, [{"record_type": "Unparsed", "queue_manager": "QM1",
                         "start_ts": 1764322800.0, "msg_id": "00", "seq": 0}], "odd")
    result, _ = _report("--input", src, "--out", str(tmp_path / "rep"), "--master", "local[2]",
                        "--no-parquet")
    assert result.exit_code != 0
    assert "no statistics or error-log records" in result.output
    assert not os.path.exists(tmp_path / "rep" / "report.html")
