"""A control command that works through an MQCONN (the trigger monitor runmqtrm, the
statistics display amqsmon) and names a queue manager that is not available says so as IBM's
commands do: AMQ8146E with the reason on stderr, exit status 20, nothing else done."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mqpy import CMQC
from mqpy_cli.amqsmon import amqsmon
from mqpy_cli.mqconn import RC_NOT_AVAILABLE
from mqpy_cli.runmqtrm import runmqtrm


@pytest.mark.parametrize(("command", "args"), [
    (runmqtrm, ["-m", "NOQM"]),
    (amqsmon, ["-m", "NOQM", "-t", "statistics"]),
], ids=["runmqtrm", "amqsmon"])
def test_given_no_queue_manager_running_when_a_command_connects_then_amq8146e_and_20(
        tmp_path, command, args):
    """Given a data path where queue manager NOQM is not running, when the command names it,
    then stderr has AMQ8146E with reason 2059 (MQRC_Q_MGR_NOT_AVAILABLE) and it exits 20."""
    result = CliRunner().invoke(command, [*args, "--data-path", str(tmp_path)],
                                catch_exceptions=False)
    assert result.exit_code == RC_NOT_AVAILABLE == 20
    assert result.stderr == ("AMQ8146E: IBM MQ queue manager not available. "
                             f"({CMQC.MQRC_Q_MGR_NOT_AVAILABLE})\n")
