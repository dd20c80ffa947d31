"""runmqsc -c: an administrator on another machine runs MQSC through a SVRCONN channel named
by MQSERVER, as IBM's runmqsc does in client mode."""

from __future__ import annotations

from click.testing import CliRunner

from mqpy.cmdserver import start_command_server, stop_command_server
from mqpy_cli.runmqsc import runmqsc

from .conftest import CHANNEL, QMGR, QUEUE


def test_given_mqserver_when_runmqsc_c_then_the_commands_run_through_the_channel(
        env, monkeypatch):
    start_command_server(QMGR, env.root)
    try:
        monkeypatch.setenv("MQSERVER", f"{CHANNEL}/TCP/{env.conn_info}")
        result = CliRunner().invoke(runmqsc, ["-c", QMGR],
                                    input=f"DISPLAY QLOCAL({QUEUE}) CURDEPTH\n")
    finally:
        stop_command_server(QMGR, env.root)
    assert result.exit_code == 0, result.output
    assert f"Starting MQSC for queue manager {QMGR}." in result.output
    assert f"QUEUE({QUEUE})" in result.output and "CURDEPTH(0)" in result.output


def test_given_no_client_configuration_when_runmqsc_c_then_amq8146e_and_20(env):
    result = CliRunner().invoke(runmqsc, ["-c", QMGR], input="DISPLAY QMGR\n")
    assert result.exit_code == 20
    assert "AMQ8146E: IBM MQ queue manager not available." in result.output
