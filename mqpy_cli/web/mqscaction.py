"""POST /admin/action/qmgr/{qmgr}/mqsc: ``runCommand`` (MQSC text in, runmqsc's lines out)
and ``runCommandJSON`` (command, qualifier, name, parameters, responseParameters in; the
answers as JSON objects of attributes), run by the command server (MQCMD_ESCAPE). In
runCommandJSON every value the caller sends is quoted and every keyword checked, so that no
value can become MQSC of its own."""

from __future__ import annotations

import re

from mqpy import CMQC
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.mqconn import CommandServer, mqsc, quoted

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
#: an attribute's keyword in a DISPLAY answer
_KEYWORD = re.compile(r"\s*([A-Z][A-Z0-9]*)")
#: runmqsc's words for read-only commands: what MQWebAdminRO may run
READ_ONLY = ("DISPLAY", "DIS", "PING")


def _overall(responses: list[dict]) -> dict:
    worst = max((r["completionCode"] for r in responses), default=0)
    reason = next((r["reasonCode"] for r in responses if r["reasonCode"]), 0)
    return {"commandResponse": responses, "overallCompletionCode": worst,
            "overallReasonCode": reason}


def run_command(server: CommandServer, command: str) -> dict:
    """runCommand: each AMQ message of the answer as ``text`` lines."""
    return _overall([{"completionCode": comp, "reasonCode": reason, "text": lines}
                     for comp, reason, lines in mqsc(server, command)])


def _word(value: object, what: str) -> str:
    if not isinstance(value, str) or not _WORD.match(value):
        raise RestError(400, "MQWB0302E", what, value)
    return value.upper()


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return ",".join(quoted(v) for v in value)
    return quoted(value)


def mqsc_text(body: dict) -> str:
    """A runCommandJSON body as one MQSC command, values quoted, keywords checked."""
    parts = [_word(body.get("command"), "command")]
    if body.get("qualifier") is not None:
        qualifier = _word(body["qualifier"], "qualifier")
        name = body.get("name")
        parts.append(f"{qualifier}({quoted(name)})" if name is not None else qualifier)
    params = body.get("parameters") or {}
    if not isinstance(params, dict):
        raise RestError(400, "MQWB2004E")
    for key, value in params.items():
        parts.append(f"{_word(key, 'parameters')}({_value(value)})")
    wanted = body.get("responseParameters") or []
    if not isinstance(wanted, list):
        raise RestError(400, "MQWB2004E")
    parts.extend(_word(w, "responseParameters") for w in wanted)
    return " ".join(parts)


def _number(text: str) -> object:
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def _value_end(line: str, start: int) -> int:
    """The index of the ``)`` that closes the value opened before ``start``: a quoted value
    ends at its closing quote (quotes doubled inside); an unquoted one at the bracket that
    balances it (CONNAME(host(1414))), a lone quote in it being an ordinary character
    (TOPICSTR(it's))."""
    if line.startswith("'", start):
        i = start + 1
        while i < len(line):
            if line[i] == "'" and line.startswith("''", i):
                i += 2
            elif line[i] == "'" and line.startswith("')", i):
                return i + 1
            else:
                i += 1
    depth, i = 0, start
    while i < len(line):
        if line[i] == "(":
            depth += 1
        elif line[i] == ")":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return len(line)


def pairs(line: str) -> list[tuple[str, str]]:
    """A DISPLAY answer line's ATTRIBUTE(value) pairs (a keyword alone: value "")."""
    out, i = [], 0
    while i < len(line):
        m = _KEYWORD.match(line, i)
        if m is None:  # not an attribute's keyword: passed over
            i += 1
            continue
        key, i = m.group(1), m.end()
        if line.startswith("(", i):
            end = _value_end(line, i + 1)
            out.append((key, line[i + 1:end]))
            i = end + 1
        else:
            out.append((key, ""))
    return out


def attributes_of(lines: list[str]) -> dict:
    """A DISPLAY answer's ATTRIBUTE(value) pairs as {attribute: value} (lower-case names,
    whole numbers as numbers)."""
    out: dict = {}
    for line in lines:
        if line.startswith("AMQ"):
            continue
        for key, value in pairs(line):
            if value.startswith("'") and value.endswith("'") and len(value) >= 2:
                value = value[1:-1].replace("''", "'")
            out[key.lower()] = _number(value.strip())
    return out


def run_command_json(server: CommandServer, body: dict) -> dict:
    """runCommandJSON: the answers' attributes as ``parameters``; a failure's lines as
    ``message``."""
    responses = []
    for comp, reason, lines in mqsc(server, mqsc_text(body)):
        entry: dict = {"completionCode": comp, "reasonCode": reason}
        if comp != CMQC.MQCC_OK:
            entry["message"] = lines
        elif any(not line.startswith("AMQ") for line in lines):
            entry["parameters"] = attributes_of(lines)
        else:
            entry["message"] = lines
        responses.append(entry)
    return _overall(responses)


def is_read_only(body: dict) -> bool:
    """Whether an mqsc action only displays (MQWebAdminRO may run it)."""
    if body.get("type") == "runCommandJSON":
        text = str(body.get("command", ""))
    else:
        text = str((body.get("parameters") or {}).get("command", ""))
    first = text.strip().split(None, 1)[0].upper() if text.strip() else ""
    return first in READ_ONLY and "\n" not in text.strip() and ";" not in text


def action(server: CommandServer, body: object) -> dict:
    """The action's answer; RestError 400 for a body IBM would not take."""
    if not isinstance(body, dict) or body.get("type") not in ("runCommand", "runCommandJSON"):
        raise RestError(400, "MQWB2004E")
    if body["type"] == "runCommand":
        command = (body.get("parameters") or {}).get("command")
        if not isinstance(command, str) or not command.strip():
            raise RestError(400, "MQWB2004E")
        return run_command(server, command)
    return run_command_json(server, body)

