"""runmqsc's report layout, summaries and exit codes."""

from __future__ import annotations

import re

from mqpy.mqsc.transcript import BANNER

SCRIPT = """\
* create, show, change and remove a queue
DEFINE QLOCAL(PAY.IN) DESCR('Payments') +
       MAXDEPTH(100)
DISPLAY QLOCAL(PAY.IN) MAXDEPTH DESCR
ALTER QLOCAL(PAY.IN) MAXDEPTH(200) NOTRIGGER
DISPLAY QLOCAL(PAY.IN) MAXDEPTH TRIGGER

DELETE QLOCAL(PAY.IN)
END
DEFINE QLOCAL(NEVER.READ)
"""

EXPECTED = [
    BANNER,
    "Starting MQSC for queue manager QM1.",
    "",
    "",
    "       : * create, show, change and remove a queue",
    "     1 : DEFINE QLOCAL(PAY.IN) DESCR('Payments') +",
    "       :        MAXDEPTH(100)",
    "AMQ8006I: IBM MQ queue created.",
    "     2 : DISPLAY QLOCAL(PAY.IN) MAXDEPTH DESCR",
    "AMQ8409I: Display Queue details.",
    "   QUEUE(PAY.IN)                           TYPE(QLOCAL)",
    "   DESCR(Payments)                         MAXDEPTH(100)",
    "     3 : ALTER QLOCAL(PAY.IN) MAXDEPTH(200) NOTRIGGER",
    "AMQ8008I: IBM MQ queue changed.",
    "     4 : DISPLAY QLOCAL(PAY.IN) MAXDEPTH TRIGGER",
    "AMQ8409I: Display Queue details.",
    "   QUEUE(PAY.IN)                           TYPE(QLOCAL)",
    "   MAXDEPTH(200)                           NOTRIGGER",
    "       : ",
    "     5 : DELETE QLOCAL(PAY.IN)",
    "AMQ8007I: IBM MQ queue deleted.",
    "     6 : END",
    "5 MQSC commands read.",
    "No commands have a syntax error.",
    "All valid MQSC commands were processed.",
]


def test_define_display_alter_delete_transcript_matches_ibm_layout(proc):
    """Given a DEFINE/DISPLAY/ALTER/DELETE script with a comment, a continuation, a blank
    line and END, when run, then the report matches runmqsc's layout line by line, END is
    numbered but not counted, and nothing after END is read."""
    lines, code = proc.run_script(SCRIPT)
    assert lines == EXPECTED
    assert code == 0
    assert proc.engine.lookup("QLOCAL", "NEVER.READ") is None


def test_failed_command_gives_exit_10_and_counts(proc):
    """Given a script with one failing and one good command, then the summary says one
    could not be processed and the exit code is 10."""
    lines, code = proc.run_script("DELETE QLOCAL(NOPE)\nDEFINE QLOCAL(OK1)\n")
    assert lines[-3:] == ["2 MQSC commands read.", "No commands have a syntax error.",
                          "One valid MQSC command could not be processed."]
    assert code == 10


def test_syntax_error_is_reported_and_script_goes_on(proc):
    """Given a syntax error followed by a good command, then AMQ8405I is printed, the good
    command still runs, and the exit code is 10."""
    lines, code = proc.run_script("DEFINE QLOCAL(A) BOGUS(1)\nDEFINE QLOCAL(B)\n")
    assert any(line.startswith("AMQ8405I: Syntax error") for line in lines)
    assert "AMQ8006I: IBM MQ queue created." in lines
    assert lines[-2:] == ["One command has a syntax error.",
                          "All valid MQSC commands were processed."]
    assert code == 10
    assert proc.engine.lookup("QLOCAL", "B") is not None
    assert proc.engine.lookup("QLOCAL", "A") is None


def test_verify_only_runs_nothing(proc):
    """Given -v, when a script is verified, then commands are echoed, nothing is created,
    and the summary has no 'processed' line; a syntax error still gives exit 10."""
    lines, code = proc.run_script("DEFINE QLOCAL(V1)\n", verify_only=True)
    assert proc.engine.lookup("QLOCAL", "V1") is None
    assert lines[4:] == ["     1 : DEFINE QLOCAL(V1)", "One MQSC command read.",
                         "No commands have a syntax error."]
    assert code == 0
    _, code = proc.run_script("DEFINE QLOCAL(V1) NOPE\n", verify_only=True)
    assert code == 10


def test_no_echo_prints_only_responses(proc):
    """Given -e, then no command or comment line is echoed."""
    lines, _ = proc.run_script("* c\nDEFINE QLOCAL(E1)\n", echo=False)
    assert not any(re.match(r"^\s+\d* : ", line) for line in lines)
    assert "AMQ8006I: IBM MQ queue created." in lines


def test_empty_input_says_no_commands_read(proc):
    lines, code = proc.run_script("")
    assert lines[-3] == "No MQSC commands read."
    assert code == 0
