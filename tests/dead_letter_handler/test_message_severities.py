"""Every line runmqdlq prints with an AMQ id carries IBM's severity letter after it
(AMQ8708I: ..., AMQ8758E: ...), as monitoring scripts match them."""

from __future__ import annotations

import re

from click.testing import CliRunner

from mqpy_cli.runmqdlq import runmqdlq

from .conftest import DLQ, QM, invoke

_AMQ_ID = re.compile(r"\bAMQ\d{4}[A-Z]?:")


def _ids(output: str) -> list[str]:
    return [m.group(0)[:-1] for m in _AMQ_ID.finditer(output)]


def test_given_a_dead_letter_when_runmqdlq_runs_then_its_start_and_end_lines_say_AMQ8708I_AMQ8709I(
        cli):
    result = invoke([DLQ, QM], "WAIT(NO)\nACTION(DISCARD)\n")
    assert result.exit_code == 0, result.output
    assert f"AMQ8708I: Dead-letter queue handler started to process INPUTQ({DLQ})." \
        in result.output
    assert "AMQ8709I: Dead-letter queue handler ending." in result.output
    assert all(len(i) == 8 for i in _ids(result.output)), result.output


def test_given_a_table_with_errors_when_runmqdlq_reads_it_then_each_error_id_ends_in_E(
        cli):
    result = invoke([DLQ, QM], "ACTION(FW*)\nDESTQ(X) DESTQ(Y) ACTION(DISCARD)\n")
    ids = _ids(result.output)
    assert ids and all(i.endswith("E") for i in ids), result.output
    assert "AMQ8758E: 2 errors detected in input to runmqdlq." in result.output


def test_given_no_queue_manager_when_runmqdlq_connects_then_it_prints_AMQ8146E(cli):
    result = CliRunner().invoke(runmqdlq, ["DLQ", "NOT.THERE"], input="ACTION(DISCARD)\n")
    assert "AMQ8146E: IBM MQ queue manager not available." in result.output


def test_given_a_missing_dead_letter_queue_when_runmqdlq_opens_it_then_its_id_has_a_severity(
        cli):
    result = invoke(["NO.SUCH.DLQ", QM], "ACTION(DISCARD)\n")
    ids = _ids(result.output)
    assert ids and all(len(i) == 8 for i in ids), result.output
