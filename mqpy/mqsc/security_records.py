"""MQSC for security: SET/DISPLAY CHLAUTH, SET/DISPLAY/DELETE AUTHREC (the records are
:mod:`mqpy.security`'s) and REFRESH SECURITY."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mqpy import CMQC, CMQCFC
from mqpy.errors import MQMIError
from mqpy.mqsc.display import format_attrs
from mqpy.mqsc.messages import AMQ8560I_SECURITY, message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Handler, Requester, not_supported
from mqpy.security import policy

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["BY_OBJECT", "COMMANDS"]

#: security refusals that have a message of their own: reason -> message id (the address
#: errors name the address the command gave)
_SECURITY_MESSAGES = {CMQC.MQRC_UNKNOWN_ENTITY: "AMQ7026E",
                      CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND: "AMQ8884E",
                      CMQCFC.MQRCCF_IPADDR_ERROR: "AMQ8897E",
                      CMQCFC.MQRCCF_IPADDR_RANGE_ERROR: "AMQ8898E"}


def records(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """Any verb on CHLAUTH or AUTHREC; a refusal of the records' own is its AMQ message."""
    handler = _RECORDS.get((cmd.verb, cmd.objtype or ""))
    if handler is None:
        raise not_supported()
    try:
        return handler(proc, cmd)
    except MQMIError as err:
        msgid = _SECURITY_MESSAGES.get(err.reason)
        if msgid is not None:
            raise CommandFailed.of(err.reason, msgid, getattr(err, "address", "")) from None
        raise CommandFailed.in_hex(err.reason) from None


def _set_chlauth(proc: MQSCProcessor, cmd: MQSCCommand) -> list[str]:
    return [policy.set_chlauth(proc.engine, cmd.name, cmd.params)]


def _display_chlauth(proc: MQSCProcessor, cmd: MQSCCommand) -> list[str]:
    found = policy.display_chlauth(proc.engine, cmd.name or "*", cmd.params)
    if isinstance(found, str):
        return [found]
    if not found:
        raise CommandFailed.of(CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND, "AMQ8884E")
    lines: list[str] = []
    for record in found:
        lines.append(message("AMQ8878I"))
        lines.extend(format_attrs(list(record.items())))
    return lines


def _set_authrec(proc: MQSCProcessor, cmd: MQSCCommand) -> list[str]:
    policy.set_authrec(proc.engine, cmd.params)
    return [message("AMQ8862I")]


def _delete_authrec(proc: MQSCProcessor, cmd: MQSCCommand) -> list[str]:
    if not policy.delete_authrec(proc.engine, cmd.params):
        raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_NAME_ERROR, "AMQ8147E",
                               cmd.params.get("PROFILE", ""))
    return [message("AMQ8863I")]


def _display_authrec(proc: MQSCProcessor, cmd: MQSCCommand) -> list[str]:
    """DISPLAY AUTHREC [PROFILE()] [OBJTYPE()] [PRINCIPAL()|GROUP()]: the stored records,
    PROFILE compared exactly (MATCH(PROFILE), IBM's default)."""
    p = cmd.params
    want_type = str(p.get("OBJTYPE") or "").lower()
    lines: list[str] = []
    for r in sorted(policy.authority_records(proc.engine),
                    key=lambda r: (r.objtype, r.profile, r.entity_type, r.entity)):
        if want_type and r.objtype != want_type:
            continue
        if p.get("PROFILE") and r.objtype != "qmgr" and r.profile != p["PROFILE"]:
            continue
        if p.get("PRINCIPAL") and (r.entity_type, r.entity) != ("principal", p["PRINCIPAL"]):
            continue
        if p.get("GROUP") and (r.entity_type, r.entity) != ("group", p["GROUP"]):
            continue
        lines.append(message("AMQ8864I"))
        lines.extend(format_attrs([
            ("PROFILE", r.profile), ("ENTITY", r.entity),
            ("ENTTYPE", r.entity_type.upper()), ("OBJTYPE", r.objtype.upper()),
            ("AUTHLIST", ",".join(r.attributes()["AUTHLIST"]) or "NONE")]))
    if not lines:
        # no PROFILE: the records asked for were "all", as DISPLAY QUEUE(*) names them
        raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_NAME_ERROR, "AMQ8147E",
                               str(p.get("PROFILE") or "*"))
    return lines


def refresh_security(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """REFRESH SECURITY [TYPE(AUTHSERV|CONNAUTH|SSL|ALL)] (default AUTHSERV).

    Authority records, AUTHINFO objects and the user file are read when they are used, so
    AUTHSERV and CONNAUTH have no cache to drop. SSL (and ALL) asks the channel initiator to
    drop its TLS contexts and restart its running TLS channels; with no channel initiator
    running nothing holds a key repository, and the command succeeds as it is."""
    kind = str(cmd.params.get("TYPE") or "AUTHSERV")
    if kind in ("SSL", "ALL"):
        try:
            reply = proc.chinit({"command": "REFRESH_SSL"})
        except CommandFailed as failed:
            if failed.reason != CMQCFC.MQRCCF_NO_CHANNEL_INITIATOR:
                raise
            reply = {"ok": True}
        if not reply.get("ok"):
            raise CommandFailed([str(reply.get("message") or "")],
                                CMQCFC.MQRCCF_COMMAND_FAILED)
    return [AMQ8560I_SECURITY]


_RECORDS: dict[tuple[str, str], Callable[[MQSCProcessor, MQSCCommand], list[str]]] = {
    ("SET", "CHLAUTH"): _set_chlauth, ("DISPLAY", "CHLAUTH"): _display_chlauth,
    ("SET", "AUTHREC"): _set_authrec, ("DISPLAY", "AUTHREC"): _display_authrec,
    ("DELETE", "AUTHREC"): _delete_authrec,
}

#: (verb, object type) -> handler
COMMANDS: dict[tuple[str, str], Handler] = {("REFRESH", "SECURITY"): refresh_security}
#: object type -> the handler of any verb on it
BY_OBJECT: dict[str, Handler] = {"CHLAUTH": records, "AUTHREC": records}
