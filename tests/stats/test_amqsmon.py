"""amqsmon: IBM's layout for statistics and accounting messages."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from mqpy import config
from mqpy.stats.collector import STATISTICS_QUEUE, emit_now
from mqpy_cli.amqsmon import amqsmon
from tests.stats._support import FIXTURE

from ._support import put


def test_prints_ibm_fixture_in_amqsmon_layout():
    """Given IBM's queue statistics message in a file, then amqsmon -f prints its header,
    16 numbered QueueStatistics groups and their counters as IBM's sample does."""
    if not os.path.exists(FIXTURE):
        pytest.skip("shared fixtures absent")
    out = CliRunner().invoke(amqsmon, ["-f", FIXTURE]).output
    lines = out.splitlines()
    assert lines[:8] == ["MonitoringType: QueueStatistics", "QueueManager: 'mq_mgr1'",
                         "IntervalStartDate: '2020-06-15'", "IntervalStartTime: '10.41.58'",
                         "IntervalEndDate: '2020-06-15'", "IntervalEndTime: '10.42.28'",
                         "CommandLevel: 911", "ObjectCount: 16"]
    assert lines[8:13] == ["QueueStatistics: 0", "  QueueName: 'SYSTEM.ADMIN.COMMAND.QUEUE'",
                           "  CreateDate: '2020-06-15'", "  CreateTime: '10.09.36'",
                           "  QueueType: Local"]
    assert "  PutCount: [14, 0]" in lines
    assert "  PutBytes: [1056, 0]" in lines
    assert "QueueStatistics: 15" in lines
    assert out.endswith("\n\n")


def test_reads_and_removes_statistics_from_the_queue(qmgr, monkeypatch):
    """Given a queue statistics message for Q1 on the statistics queue, when amqsmon -t
    statistics -q Q1 runs, then it prints Q1's group and the queue is empty afterwards."""
    name, root, qm, eng = qmgr
    monkeypatch.setenv(config.ENV_DATA_PATH, root)
    eng.define("QLOCAL", "Q1", {})
    put(qm, "Q1", 10, 8, True)
    emit_now(eng, qm)
    result = CliRunner().invoke(amqsmon, ["-m", name, "-t", "statistics", "-q", "Q1"])
    assert result.exit_code == 0, result.output
    assert "MonitoringType: QueueStatistics" in result.output
    assert f"QueueManager: '{name}'" in result.output
    assert "  QueueName: 'Q1'" in result.output
    assert "  PutCount: [0, 10]" in result.output
    assert "MonitoringType: MQIStatistics" not in result.output
    assert eng.queue_status(STATISTICS_QUEUE)["CURDEPTH"] == 0


def test_browse_leaves_messages_and_shows_storage_group(qmgr, monkeypatch):
    """Given an MQI statistics message, when amqsmon -a -b runs, then it prints the MQI record
    with mqpy's StorageStatistics group and leaves the message on the queue."""
    name, root, qm, eng = qmgr
    monkeypatch.setenv(config.ENV_DATA_PATH, root)
    emit_now(eng, qm)
    result = CliRunner().invoke(amqsmon, ["-m", name, "-t", "statistics", "-a", "-b"])
    assert result.exit_code == 0, result.output
    assert "MonitoringType: MQIStatistics" in result.output
    assert "StorageStatistics: 0" in result.output
    assert "  LogBytes: " in result.output
    assert eng.queue_status(STATISTICS_QUEUE)["CURDEPTH"] >= 1
