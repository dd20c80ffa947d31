"""MQSC for clusters: DISPLAY CLUSQMGR / QCLUSTER, SUSPEND and RESUME QMGR, REFRESH and RESET
CLUSTER. The repository is the repository manager's, in the channel initiator: each command
is sent to it. The DISPLAY rows (:data:`ROWS`) are what both the DISPLAY layout and PCF's
Inquire Cluster Queue Manager / Inquire Queue answer from."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

from mqpy import CMQC, CMQCFC
from mqpy.mqsc.display import format_attrs
from mqpy.mqsc.messages import message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Handler, Requester
from mqpy.mqsc.selection import where_passes

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["COMMANDS", "ROWS", "display"]

_Rows = list[dict[str, object]]


def _answered(reply: dict) -> dict:
    """The repository manager's reply, or its refusal as AMQ8101S and its message."""
    if not reply.get("ok"):
        reason = int(reply.get("reason") or CMQCFC.MQRCCF_COMMAND_FAILED)
        raise CommandFailed([message("AMQ8101S", f"{reason:X}"),
                             str(reply.get("message") or "")], reason)
    return reply


def _rows(proc: MQSCProcessor, cmd: MQSCCommand, command: str) -> _Rows:
    reply = _answered(proc.chinit({"command": command, "name": cmd.name or "*",
                                   "cluster": str(cmd.params.get("CLUSTER") or "")}))
    return list(reply.get("rows") or [])


def clusqmgr_rows(proc: MQSCProcessor, cmd: MQSCCommand) -> _Rows:
    """DISPLAY CLUSQMGR's rows: one per member and cluster."""
    return _rows(proc, cmd, "CLUSTER_CLUSQMGR")


def qcluster_rows(proc: MQSCProcessor, cmd: MQSCCommand) -> _Rows:
    """DISPLAY QCLUSTER's rows: one per cluster queue instance the repository knows."""
    return [{**row, "TYPE": "QCLUSTER"} for row in _rows(proc, cmd, "CLUSTER_QCLUSTER")]


def tcluster_rows(proc: MQSCProcessor, cmd: MQSCCommand) -> _Rows:
    """DISPLAY TCLUSTER's rows: one per cluster topic the repository knows."""
    return _rows(proc, cmd, "CLUSTER_TCLUSTER")


#: object type -> its DISPLAY rows (a row: MQSC keyword -> value)
ROWS: dict[str, Callable[[MQSCProcessor, MQSCCommand], _Rows]] = {
    "CLUSQMGR": clusqmgr_rows, "QCLUSTER": qcluster_rows, "TCLUSTER": tcluster_rows}
#: DISPLAY TCLUSTER: the items always shown, and the answer's message
_TCLUSTER = (["TOPIC", "TYPE"], "AMQ8633I")


def display(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """DISPLAY CLUSQMGR / QCLUSTER in IBM's layout: the name items, then what was asked."""
    clusqmgr = cmd.objtype == "CLUSQMGR"
    rows = ROWS[str(cmd.objtype)](proc, cmd)
    head = ["CLUSQMGR", "CHANNEL", "CLUSTER"] if clusqmgr else \
        ["QUEUE", "TYPE", "CLUSQMGR", "CLUSTER"]
    if cmd.objtype == "TCLUSTER":
        head = _TCLUSTER[0]
    everything = "ALL" in cmd.flags
    wanted = list(cmd.display_attrs)
    if cmd.where is not None:
        wanted.append(cmd.where.keyword)
    lines: list[str] = []
    for row in rows:
        if not where_passes(cmd.where, row):
            continue
        rest = sorted(k for k in row if k not in head and k != "EXPIRES"
                      and (everything or k in wanted))
        lines.append(message(_TCLUSTER[1] if cmd.objtype == "TCLUSTER" else
                             "AMQ8441I" if clusqmgr else "AMQ8409I"))
        lines.extend(format_attrs([(k, row.get(k, "")) for k in head + rest]))
    if not lines:
        raise CommandFailed.of(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "AMQ8147E", cmd.name)
    return lines


def _request(cmd: MQSCCommand, cluster: str) -> tuple[dict[str, object], str]:
    """The repository manager's request for a cluster command, and its answer's id."""
    verb, params = cmd.verb, cmd.params
    if verb == "SUSPEND":
        return {"cluster": cluster, "command": "CLUSTER_SUSPEND",
                "force": params.get("MODE") == "FORCE"}, "AMQ8559I"
    if verb == "RESUME":
        return {"cluster": cluster, "command": "CLUSTER_RESUME"}, "AMQ8560I"
    if verb == "REFRESH":
        return {"cluster": cluster, "command": "CLUSTER_REFRESH",
                "repos": params.get("REPOS") == "YES"}, "AMQ8598I"
    return {"cluster": cluster, "command": "CLUSTER_RESET",
            "qmname": str(params.get("QMNAME") or ""), "qmid": str(params.get("QMID") or ""),
            "queues": params.get("QUEUES") == "YES"}, "AMQ8599I"


def control(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """SUSPEND / RESUME QMGR CLUSTER() or CLUSNL() (each cluster the namelist names),
    REFRESH CLUSTER, RESET CLUSTER."""
    params = cmd.params
    cluster = str(params.get("CLUSTER") or cmd.name or "")
    if cmd.objtype == "QMGR" and not cluster and params.get("CLUSNL"):
        nl = proc.engine.lookup("NAMELIST", str(params["CLUSNL"]))
        names = list(nl.attributes.get("NAMES") or []) if nl is not None else []
        lines: list[str] = []
        for name in names:
            lines = control(proc, attrs.evolve(cmd, params={**params, "CLUSNL": "",
                                                            "CLUSTER": name}), who)
        return lines or [message("AMQ8559I" if cmd.verb == "SUSPEND" else "AMQ8560I")]
    request, done = _request(cmd, cluster)
    _answered(proc.chinit(request))
    return [message(done)]


#: (verb, object type) -> handler
COMMANDS: dict[tuple[str, str], Handler] = {
    ("DISPLAY", "CLUSQMGR"): display, ("DISPLAY", "QCLUSTER"): display,
    ("DISPLAY", "TCLUSTER"): display,
    ("REFRESH", "CLUSTER"): control, ("RESET", "CLUSTER"): control,
    ("SUSPEND", "QMGR"): control, ("RESUME", "QMGR"): control,
}
