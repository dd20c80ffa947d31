"""runmqsc's report around the commands: the echo with command numbers, continuation and
comment lines under ``       :``, the closing summary, and the exit codes 0 / 10 / 20. The
commands run wherever ``run`` sends them (the command server, or a processor in process)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from mqpy.mqsc.lexer import scan_lines
from mqpy.mqsc.messages import MQSCError, summary_lines
from mqpy.mqsc.parser import MQSCCommand, parse_command
from mqpy.mqsc.results import Result
from mqpy.version import VRMF

__all__ = ["BANNER", "EXIT_FAILED", "EXIT_OK", "EXIT_SOME_FAILED", "END_VERBS", "run_transcript",
           "transcript_head"]

#: runmqsc's exit codes (IBM: 0 all processed, 10 some failed, 20 error, nothing run).
EXIT_OK = 0
EXIT_SOME_FAILED = 10
EXIT_FAILED = 20

#: The first line of runmqsc's report. IBM prints its product id and copyright here
#: ("5724-H72 (C) Copyright IBM Corp. ..."); mqpy is not IBM's product, so it names itself
#: in the same place and keeps the layout that follows.
BANNER = f"mqpy runmqsc V{VRMF} (MQSC command processor)"

#: the verbs that end a script
END_VERBS = ("END", "EXIT", "QUIT")


def transcript_head(qmgr_name: str) -> list[str]:
    """The lines runmqsc prints before the first command."""
    return [BANNER, f"Starting MQSC for queue manager {qmgr_name}.", "", ""]


_ECHO_CONT = "       : "


def run_transcript(
    source: str | Iterable[str],
    run: Callable[[MQSCCommand], Result],
    *,
    verify_only: bool = False,
    echo: bool = True,
    emit: Callable[[str], None] | None = None,
) -> tuple[list[str], int]:
    """runmqsc's report for ``source`` after the heading, and the exit code.

    Each command is echoed as ``     1 : DEFINE QLOCAL(Q1)`` (continuation lines, comments and
    blank lines as ``       : ...``), then its response; END (or EXIT/QUIT) stops reading
    and is numbered but not counted; the summary says how many commands were read, how many
    had syntax errors and how many failed. ``verify_only`` (``runmqsc -v``) runs nothing and
    leaves the last summary line out. ``emit`` receives each line as it is produced.
    """
    out: list[str] = []

    def say(line: str) -> None:
        out.append(line)
        if emit is not None:
            emit(line)

    number = read = syntax = failed = 0
    for item in scan_lines(source):
        if item.kind != "command":
            if echo:
                say(_ECHO_CONT + item.text)
            continue
        number += 1
        if echo:
            say(f"{number:6d} : {item.raw_lines[0]}")
            for raw in item.raw_lines[1:]:
                say(_ECHO_CONT + raw)
        parsed = parse_command(item.text, item.line_no)
        if isinstance(parsed, MQSCCommand) and parsed.verb in END_VERBS:
            break
        read += 1
        if isinstance(parsed, MQSCError):
            syntax += 1
            for line in parsed.lines():
                say(line)
            continue
        if verify_only:
            continue
        result = run(parsed)
        for line in result.lines:
            say(line)
        if not result.ok:
            failed += 1
    summary = summary_lines(read, syntax, failed)
    if read == 0:
        summary[0] = "No MQSC commands read."
    for line in summary[:2] if verify_only else summary:
        say(line)
    return out, EXIT_OK if not (syntax or failed) else EXIT_SOME_FAILED
