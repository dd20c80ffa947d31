"""``mqrc``: what a reason code, an AMQ message or an MQ symbol means (IBM's utility).

    mqrc 2085                   mqrc 0x825          mqrc MQRC_Q_FULL      mqrc AMQ8147
    mqrc -r 2085 -s MQRC_Q_FULL -m AMQ7017          mqrc -R -f 2030 -l 2040

A reason code prints as IBM's mqrc prints it, ``      2085  0x00000825  MQRC_UNKNOWN_OBJECT_NAME``
(MQRC_ and PCF MQRCCF_ names, mqpy.constants); a symbol of any family prints with its value
(an integer in the same layout, ``        16  0x00000010  MQOO_OUTPUT``; a character constant
as ``MQFMT_ADMIN = 'MQADMIN '``), and ``-s`` takes symbols only;
an AMQ message prints its text and, unless ``-b``, its explanation and action as mqpy's error
log and MQSC catalogues hold them (inserts shown as ``<name>``). Numbers are decimal, or hex
after ``0x``. Exit status 0 when every argument was found, 1 otherwise (each one not found
is named on stderr).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import click

from mqpy import amqmsgs, constants, errorlog
from mqpy.mqsc.messages import RESPONSES
from mqpy_cli.usage import MSG_BAD_ARGUMENT

_AMQ = re.compile(r"^AMQ(\d{4})[A-Z]?$", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def reason_line(reason: int) -> str | None:
    """IBM's layout of one reason code; None when it has no MQRC_/MQRCCF_ name."""
    name = constants.lookup("MQRC_", reason) or constants.lookup("MQRCCF_", reason)
    return None if name is None else _code_line(reason, name)


def _code_line(value: int, name: str) -> str:
    return f"{value:>10}  0x{value & 0xFFFFFFFF:08x}  {name}"


def symbol_line(symbol: str) -> str | None:
    """A symbol's value (a reason code in its reason-code layout); None if unknown."""
    try:
        value = constants.value_of(symbol)
    except KeyError:
        return None
    name = symbol.strip().upper()
    if isinstance(value, bytes):  # a character constant (MQFMT_ADMIN): its MQ characters
        return f"{name} = '{value.decode('latin-1')}'"
    return _code_line(value, name)


def _catalogue() -> Iterator[tuple[str, str, str, str]]:
    """(id, text, explanation, action) of every AMQ message mqpy writes from a catalogue."""
    for module in (amqmsgs, errorlog):
        for value in vars(module).values():
            if isinstance(value, amqmsgs.AMQMessage):
                yield value.msgid, value.text, value.explanation, value.action
    for msgid, text in RESPONSES.items():  # runmqsc's answers (MESSAGES included)
        yield msgid, text, "", ""


def amq_lines(number: str, brief: bool = False) -> list[str]:
    """The lines for AMQ message ``number`` (``AMQ8147`` or ``AMQ8147E``); [] if unknown."""
    match = _AMQ.match(number.strip())
    if match is None:
        return []
    wanted = "AMQ" + match.group(1)
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for msgid, text, explanation, action in _catalogue():
        if msgid[:7] != wanted or (msgid, text) in seen:
            continue
        seen.add((msgid, text))
        if out:
            out.append("")
        out.append(f"{msgid}: {_inserts(text)}")
        if not brief and explanation:
            out += ["", "EXPLANATION:", _inserts(explanation), "ACTION:", _inserts(action)]
    return out


def _inserts(text: str) -> str:
    """``{qmgr}`` shown as ``<qmgr>``; MQSC's positional ``{0}`` as ``<insert>``."""
    def shown(m: re.Match[str]) -> str:
        name = m.group(1)
        return "<insert>" if name.isdigit() else f"<{name}>"
    return _PLACEHOLDER.sub(shown, text)


def _number(text: str) -> int | None:
    try:
        return int(text, 16) if text.lower().startswith("0x") else int(text)
    except ValueError:
        return None


def _all_reasons(first: int | None, last: int | None) -> list[str]:
    codes = sorted({v for prefix in ("MQRC_", "MQRCCF_")
                    for v in constants.names(prefix).values() if isinstance(v, int)})
    return [line for code in codes
            if (first is None or code >= first) and (last is None or code <= last)
            and (line := reason_line(code)) is not None]


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-b", "brief", is_flag=True, help="Messages without their explanation.")
@click.option("-r", "reasons", multiple=True, help="A reason code to display.")
@click.option("-s", "symbols", multiple=True, help="A symbol to display.")
@click.option("-m", "amqs", multiple=True, help="An AMQ message to display.")
@click.option("-R", "all_reasons", is_flag=True, help="Every reason code (-f/-l: a range).")
@click.option("-f", "first", default=None, help="First number of a range.")
@click.option("-l", "last", default=None, help="Last number of a range.")
@click.option("-a", "all_severities", is_flag=True, hidden=True)  # IBM's; nothing to try here
@click.argument("args", nargs=-1)
def mqrc(brief: bool, reasons: tuple[str, ...], symbols: tuple[str, ...],
         amqs: tuple[str, ...], all_reasons: bool, first: str | None, last: str | None,
         all_severities: bool, args: tuple[str, ...]) -> None:
    """Display what reason codes, AMQ messages and MQ symbols mean."""
    missing: list[str] = []
    blocks: list[list[str]] = []
    if all_reasons:
        lo = _number(first) if first is not None else None
        hi = _number(last) if last is not None else None
        if (first is not None and lo is None) or (last is not None and hi is None):
            click.echo(MSG_BAD_ARGUMENT.format(arg=first if lo is None else last,
                                               command="mqrc"), err=True)
            sys.exit(2)
        blocks.append(_all_reasons(lo, hi))
    items = ([("r", r) for r in reasons] + [("s", s) for s in symbols]
             + [("m", m) for m in amqs] + [("", a) for a in args])
    if not items and not all_reasons:
        click.echo(click.get_current_context().get_help())
        sys.exit(2)
    for kind, item in items:
        found: list[str] = []
        number = _number(item) if kind in ("", "r") else None
        if number is not None:
            line = reason_line(number)
            found = [line] if line else []
        elif kind in ("", "m") and _AMQ.match(item.strip()):
            found = amq_lines(item, brief)
        elif kind in ("", "s"):
            line = symbol_line(item)
            found = [line] if line else []
        if found:
            blocks.append(found)
        else:
            missing.append(item)
    for block in blocks:
        click.echo("")
        for line in block:
            click.echo(line)
    if blocks:
        click.echo("")
    for item in missing:
        click.echo(f"mqrc: '{item}' is not a reason code, AMQ message or symbol known here.",
                   err=True)
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    mqrc()
