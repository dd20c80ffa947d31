"""MQSC for listeners and services at run time: START/STOP LISTENER and DISPLAY LSSTATUS
(the channel initiator runs the listeners), START/STOP SERVICE and DISPLAY SVSTATUS (this
process runs the services, :mod:`mqpy.services`). A refusal IBM gives only a PCF reason for
is printed as AMQ8101S with the reason in hex."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqpy import CMQC, CMQCFC, services
from mqpy.mqsc.display import format_attrs
from mqpy.mqsc.mapping import STAMPS
from mqpy.mqsc.messages import DISPLAY_HEADERS, message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Handler, Requester
from mqpy.mqsc.selection import generic_match, selected, where_passes

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["COMMANDS", "listener_status_rows", "service_status_rows"]


def listener_control(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """START / STOP LISTENER, run by the channel initiator."""
    lst = proc.engine.lookup("LISTENER", cmd.name)
    if lst is None:
        raise CommandFailed.of(CMQCFC.MQRCCF_OBJECT_NAME_ERROR, "AMQ8147E", cmd.name)
    reply = proc.chinit({"command": f"{cmd.verb}_LISTENER", "channel": cmd.name,
                         "definition": {"LISTENER": cmd.name, **lst.attributes}})
    if not reply.get("ok"):
        raise CommandFailed([str(reply.get("message"))], CMQCFC.MQRCCF_LISTENER_NOT_STARTED)
    return [message("AMQ8021I" if cmd.verb == "START" else "AMQ8706I")]


def listener_status_rows(proc: MQSCProcessor, pattern: str, who: Requester
                         ) -> list[dict[str, object]]:
    """The running listeners' status (the channel initiator's), as MQSC keywords, those
    ``who`` may see; DISPLAY LSSTATUS and PCF's Inquire Listener Status both show these."""
    reply = proc.chinit({"command": "LSSTATUS", "channel": pattern})
    return proc.visible_rows("LISTENER", reply.get("status") or [], who)


def display_lsstatus(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    rows = listener_status_rows(proc, cmd.name or "*", who)
    if not rows:
        raise CommandFailed.of(CMQCFC.MQRCCF_NONE_FOUND, "AMQ8147E", cmd.name)
    lines: list[str] = []
    for row in rows:
        if not where_passes(cmd.where, row):
            continue
        lines.append(message("AMQ8631I"))
        lines.extend(format_attrs(list(row.items())))
    return lines


def service_control(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """START / STOP SERVICE [IGNSTATE(YES)]: the service's start or stop program, run by
    this process; IBM's PCF reasons for what cannot be done."""
    name = str(cmd.name)
    obj = proc.existing("SERVICE", name)
    if obj is None:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
    definition = dict(obj.attributes)
    runner = services.runner_for(proc.engine)
    done = message("AMQ8733I" if cmd.verb == "START" else "AMQ8732I")
    try:
        if cmd.verb == "START":
            runner.start(name, definition)
        else:
            runner.stop(name, definition)
    except services.ServiceError as err:
        already = (CMQCFC.MQRCCF_SERVICE_RUNNING if cmd.verb == "START"
                   else CMQCFC.MQRCCF_SERVICE_STOPPED)
        if err.reason == already and cmd.params.get("IGNSTATE") == "YES":
            return [done]
        if err.detail:
            raise CommandFailed([message("AMQ8934E", name, err.detail)], err.reason) from None
        raise CommandFailed.in_hex(err.reason) from None
    return [done]


def service_status_rows(proc: MQSCProcessor, pattern: str, generic: bool, who: Requester
                        ) -> list[dict[str, object]]:
    """The running server services whose names match, each as DISPLAY SVSTATUS sees it:
    SERVICE, STATUS, PID, STARTDA, STARTTI and the definition's attributes."""
    rows: list[dict[str, object]] = []
    for running in services.runner_for(proc.engine).status():
        if not (generic_match(pattern, running.name) if generic else running.name == pattern):
            continue
        obj = proc.engine.lookup("SERVICE", running.name)
        definition = {k: v for k, v in (obj.attributes if obj is not None else {}).items()
                      if k not in STAMPS}
        date, tod = services.start_stamp(running.started)
        rows.append({"SERVICE": running.name, "STATUS": running.status,
                     "PID": running.pid, "STARTDA": date, "STARTTI": tod, **definition})
    return proc.visible_rows("SERVICE", rows, who)


def display_svstatus(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """DISPLAY SVSTATUS: SERVICE, STATUS and PID always, the rest as asked (ALL, a list, the
    WHERE keyword); only running SERVTYPE(SERVER) services have a status."""
    name = str(cmd.name)
    if not cmd.generic and proc.existing("SERVICE", name) is None:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", name)
    rows = service_status_rows(proc, name, cmd.generic, who)
    if not rows:
        raise CommandFailed.in_hex(CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND)
    lines: list[str] = []
    head = ("SERVICE", "STATUS", "PID")
    for row in rows:  # a WHERE that excludes every row shows nothing, as DISPLAY does
        if not where_passes(cmd.where, row):
            continue
        rest = selected(cmd, row, exclude=head)
        lines.append(message(DISPLAY_HEADERS["SVSTATUS"]))
        lines.extend(format_attrs([(k, row[k]) for k in head] + sorted(rest.items())))
    return lines


#: (verb, object type) -> handler
COMMANDS: dict[tuple[str, str], Handler] = {
    ("START", "LISTENER"): listener_control, ("STOP", "LISTENER"): listener_control,
    ("DISPLAY", "LSSTATUS"): display_lsstatus,
    ("START", "SERVICE"): service_control, ("STOP", "SERVICE"): service_control,
    ("DISPLAY", "SVSTATUS"): display_svstatus,
}
