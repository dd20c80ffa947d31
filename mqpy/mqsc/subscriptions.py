"""DEFINE, ALTER, DELETE and DISPLAY SUB: administrative subscriptions (``mqpy.pubsub.admin``
does the work), and DISPLAY TPSTATUS, SBSTATUS and PUBSUB (``mqpy.pubsub.status``); this
module answers with IBM's messages and DISPLAY layout."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqpy import CMQC
from mqpy.mqsc.display import format_attrs
from mqpy.mqsc.mapping import display_items, to_stored
from mqpy.mqsc.messages import message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Handler, Requester
from mqpy.mqsc.selection import selected, where_passes
from mqpy.pubsub import admin, status

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["COMMANDS"]

CREATED, CHANGED, DELETED = "AMQ8094I", "AMQ8095I", "AMQ8093I"
#: IBM's heading of DISPLAY SUB (its id is the in-doubt resolution's in messages.RESPONSES)
SHOWN = "AMQ8096I: IBM MQ subscription inquired."


def _refused(err: admin.AdminRefused, name: str) -> CommandFailed:
    if err.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME:
        return CommandFailed.of(err.reason, "AMQ8147E", name)
    return CommandFailed.in_hex(err.reason)


def define(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    name = str(cmd.name or "")
    try:
        admin.define(proc.engine, name, {**to_stored(cmd.params, cmd.flags),
                                         "LIKE": cmd.params.get("LIKE", "")})
    except admin.AdminRefused as err:
        raise _refused(err, name) from None
    return [message(CREATED)]


def alter(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    name = str(cmd.name or "")
    params = to_stored(cmd.params, cmd.flags)
    try:
        admin.alter(proc.engine, name, str(params.pop("SUBID", "") or ""), params)
    except admin.AdminRefused as err:
        raise _refused(err, name) from None
    return [message(CHANGED)]


def delete(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    name = str(cmd.name or "")
    try:
        admin.delete(proc.engine, name, str(cmd.params.get("SUBID") or ""))
    except admin.AdminRefused as err:
        raise _refused(err, name) from None
    return [message(DELETED)]


def display(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """DISPLAY SUB: SUB and SUBID, then what was asked."""
    name = str(cmd.name or "*")
    found = admin.rows(proc.engine, name, cmd.generic or name == "*")
    if "SUBID" in cmd.params:
        found = [r for r in found if r["SUBID"] == cmd.params["SUBID"]]
    found = [r for r in found if admin.subtype_shown(r, cmd.params.get("SUBTYPE"))]
    if not found:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
    return _shown(cmd, found, SHOWN, ("SUBID", "SUB"))


def _shown(cmd: MQSCCommand, rows: list[dict[str, object]], heading: str,
           head: tuple[str, ...]) -> list[str]:
    """Rows as DISPLAY lays them out: the heading (a message id, or its line), ``head``
    always, then what was asked."""
    lines: list[str] = []
    for row in rows:
        if not where_passes(cmd.where, row):
            continue
        rest = selected(cmd, row, exclude=set(head))
        lines.append(heading if ":" in heading else message(heading))
        lines.extend(format_attrs([(k, row[k]) for k in head if k in row]
                                  + display_items(rest)))
    return lines


def display_tpstatus(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """DISPLAY TPSTATUS(topic string) TYPE(TOPIC|SUB|PUB)."""
    kind = str(cmd.params.get("TYPE", "TOPIC"))
    rows = status.tpstatus_rows(proc.engine, str(cmd.name or ""), kind)
    head = ("TOPICSTR",) if kind == "TOPIC" else ("TOPICSTR", "SUBID" if kind == "SUB"
                                                   else "ACTCONN")
    return _shown(cmd, rows, "AMQ8754I", head)


def display_sbstatus(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """DISPLAY SBSTATUS(name)."""
    name = str(cmd.name or "*")
    rows = status.sbstatus_rows(proc.engine, name, cmd.generic or name == "*")
    if "SUBID" in cmd.params:
        rows = [r for r in rows if r["SUBID"] == cmd.params["SUBID"]]
    rows = [r for r in rows if admin.subtype_shown(r, cmd.params.get("SUBTYPE"))]
    if not rows:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
    return _shown(cmd, rows, "AMQ8099I", ("SUB", "SUBID"))


def display_pubsub(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """DISPLAY PUBSUB: the local queue manager's publish/subscribe engine."""
    return _shown(cmd, status.pubsub_rows(proc.engine), "AMQ8723I", ("QMNAME", "TYPE"))


#: (verb, object type) -> handler
COMMANDS: dict[tuple[str, str], Handler] = {
    ("DEFINE", "SUB"): define, ("ALTER", "SUB"): alter, ("DELETE", "SUB"): delete,
    ("DISPLAY", "SUB"): display, ("DISPLAY", "TPSTATUS"): display_tpstatus,
    ("DISPLAY", "SBSTATUS"): display_sbstatus, ("DISPLAY", "PUBSUB"): display_pubsub,
}
