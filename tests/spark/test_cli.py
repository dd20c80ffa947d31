"""The `mqpy` command: export from a queue manager, generate, report."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

import mqpy
from mqpy import inprocess
from mqpy.mqi import attach
from mqpy.stats.collector import emit_now
from mqpy_cli.statscmd import cli

pytestmark = pytest.mark.system


def test_export_then_generate_and_report_from_the_command_line(spark, tmp_path, monkeypatch):
    """Given a queue manager with statistics on its queue, when `mqpy export` drains them,
    then JSON Lines partitions appear; when `mqpy generate` and `mqpy report` run, then the
    HTML report and CSV tables are written."""
    root = str(tmp_path / "data")
    monkeypatch.setenv("MQPY_DATA_PATH", root)
    qm = mqpy.embedded("CLIQM", data_path=root)
    eng = inprocess.running("CLIQM", root)
    eng.alter_qmgr({"STATMQI": "ON", "STATQ": "ON"})
    mqpy.Queue(qm, "SYSTEM.DEFAULT.LOCAL.QUEUE").put(b"x")
    emit_now(eng, attach(eng))
    out = str(tmp_path / "export")
    result = CliRunner().invoke(cli, ["export", "-m", "CLIQM", "--out", out, "--no-errors"])
    assert result.exit_code == 0, result.output
    files = [f for _, _, fs in os.walk(out) for f in fs if f.endswith(".jsonl")]
    assert files, result.output
    inprocess.stop_all()

    gen = str(tmp_path / "gen")
    assert CliRunner().invoke(cli, ["generate", "--days", "1", "--qmgrs", "1", "--queues", "2",
                                    "--out", gen]).exit_code == 0
    rep = str(tmp_path / "report")
    result = CliRunner().invoke(cli, ["report", "--input", gen, "--out", rep,
                                      "--master", "local[2]", "--fsync-per-s", "5000"])
    assert result.exit_code == 0, result.output
    produced = os.listdir(rep)
    assert any(f.endswith(".html") for f in produced)
    assert any(f.endswith(".csv") for f in produced) or any(
        os.path.isdir(os.path.join(rep, f)) for f in produced)
