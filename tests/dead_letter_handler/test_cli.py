"""runmqdlq on the command line: which queue it processes, where the rules come from, and a
rules table with errors processing nothing."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mqpy import config
from mqpy_cli.runmqdlq import EXIT_ERROR, runmqdlq

from .conftest import DLQ, QM, invoke


def depths(dlq) -> tuple[int, int, int]:
    return dlq.depth("Q1"), dlq.depth("Q2"), dlq.depth(DLQ)


def test_command_line_queue_wins_over_inputq(cli):
    """Given `runmqdlq Q1 QMDLQ` and INPUTQ(Q2) in the table, then Q1 is processed.

    spec: operations-dlq-clusters 7.30
    """
    result = invoke(["Q1", QM], "INPUTQ(Q2) WAIT(NO)\nACTION(DISCARD)\n")
    assert result.exit_code == 0, result.output
    assert "INPUTQ(Q1)" in result.output
    assert depths(cli) == (0, 1, 1)


def test_inputq_in_the_table_is_used_without_a_command_line_queue(cli):
    """Given INPUTQ(Q2) INPUTQM(QMDLQ) and no arguments, then Q2 is processed.

    spec: operations-dlq-clusters 7.30
    """
    result = invoke([], f"INPUTQ(Q2) INPUTQM({QM}) WAIT(NO)\nACTION(DISCARD)\n")
    assert result.exit_code == 0, result.output
    assert depths(cli) == (1, 0, 1)


def test_no_arguments_and_no_control_data_process_the_default_qmgrs_deadq(cli):
    """Given the harness's queue manager as the default one, no arguments and no control
    data, then its DEADQ is processed.

    spec: operations-dlq-clusters 7.30
    """
    config.register_qmgr(QM, cli.root, make_default=True)
    # WAIT(NO) must come from somewhere: a table of rules only would wait forever.
    result = invoke([], "WAIT(NO)\nACTION(DISCARD)\n")
    assert result.exit_code == 0, result.output
    assert f"INPUTQ({DLQ})" in result.output
    assert depths(cli) == (1, 1, 0)


def test_blank_command_line_queue_means_deadq_even_with_inputq(cli):
    """Given `runmqdlq ' ' QMDLQ` and INPUTQ(Q2), then the queue manager's DEADQ is processed."""
    result = invoke([" ", QM], "INPUTQ(Q2) WAIT(NO)\nACTION(DISCARD)\n")
    assert result.exit_code == 0, result.output
    assert depths(cli) == (1, 1, 0)


def test_option_forms_and_rules_file(cli, tmp_path):
    """Given -m, -q, -f and --data-path, then the named queue is processed with the file's
    rules."""
    rules = tmp_path / "rules.tbl"
    rules.write_text("WAIT(NO)\nACTION(DISCARD)\n")
    result = invoke(["-m", QM, "-q", "Q2", "-f", str(rules), "--data-path", cli.root], "")
    assert result.exit_code == 0, result.output
    assert depths(cli) == (1, 0, 1)


@pytest.mark.parametrize(
    "rules",
    [
        "INPUTQ(Q1) WAIT(NO)\n",  # only control data
        "WAIT(NO)\nDESTQ(Q1)\n",  # a rule without ACTION
        "WAIT(NO)\nACTION(FWD) FWDQ(' ')\n",
        "WAIT(NO)\nACTION(DISCARD) HEADER(NO)\n",
    ],
    ids=["control-only", "no-action", "blank-fwdq", "header-with-discard"],
)
def test_a_table_with_errors_processes_nothing(cli, rules):
    """Given a rules table with an error, runmqdlq prints the errors and the AMQ8758 count,
    exits 20, and every queue keeps its message.

    spec: operations-dlq-clusters 7.31
    """
    result = invoke(["Q1", QM], rules)
    assert result.exit_code == EXIT_ERROR, result.output
    assert "AMQ8758" in result.output
    assert "AMQ8708" not in result.output
    assert depths(cli) == (1, 1, 1)


def test_unknown_queue_manager_is_reported(cli):
    """Given a queue manager that is not running, runmqdlq says so and exits 20."""
    result = CliRunner().invoke(runmqdlq, ["DLQ", "NOT.THERE"], input="ACTION(DISCARD)\n")
    assert result.exit_code == EXIT_ERROR
    assert "AMQ8146" in result.output


def test_missing_dlq_is_reported(cli):
    """Given a queue name that does not exist, runmqdlq reports the reason and exits 20."""
    result = invoke(["NO.SUCH.DLQ", QM], "WAIT(NO)\nACTION(DISCARD)\n")
    assert result.exit_code == EXIT_ERROR
    assert "2085" in result.output
