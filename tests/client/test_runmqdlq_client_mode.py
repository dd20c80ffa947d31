"""runmqdlq -c: the dead-letter queue handler run on another machine, connected through a
SVRCONN channel named by MQSERVER (IBM MQ 9.2.3's runmqdlq -c)."""

from __future__ import annotations

from click.testing import CliRunner

from mqpy_cli.runmqdlq import EXIT_ERROR, runmqdlq

from .conftest import CHANNEL, QMGR


def test_given_mqserver_when_runmqdlq_c_then_it_processes_the_dlq_through_the_channel(
        env, monkeypatch):
    monkeypatch.setenv("MQSERVER", f"{CHANNEL}/TCP/{env.conn_info}")
    result = CliRunner().invoke(runmqdlq, ["-c", "SYSTEM.DEAD.LETTER.QUEUE", QMGR],
                                input="WAIT(NO)\nACTION(DISCARD)\n")
    assert result.exit_code == 0, result.output
    assert "AMQ8708I: Dead-letter queue handler started to process " \
        "INPUTQ(SYSTEM.DEAD.LETTER.QUEUE)." in result.output
    assert "AMQ8709I: Dead-letter queue handler ending." in result.output


def test_given_the_queue_named_twice_when_runmqdlq_then_usage_and_20(env):
    result = CliRunner().invoke(runmqdlq, ["-q", "DLQ", "DLQ"], input="ACTION(DISCARD)\n")
    assert result.exit_code == EXIT_ERROR
    assert "Usage: runmqdlq [-c]" in result.output
