"""MQSC for the queue manager: ALTER, DISPLAY, PING and RESET QMGR, DISPLAY QMSTATUS. The
views are the ones PCF's Inquire Queue Manager (Status) answer from."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

import mqpy
from mqpy import channelcommands
from mqpy.errorlog import DEFAULT_INSTALLATION
from mqpy.errors import MQMIError
from mqpy.mqsc.display import date_time, format_attrs
from mqpy.mqsc.mapping import EXTRA_DEFAULTS, display_items, display_keywords, to_stored
from mqpy.mqsc.messages import DISPLAY_HEADERS, message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Handler, Requester, not_supported
from mqpy.mqsc.selection import selected
from mqpy.stats.collector import emit_statistics_now, intervals_changed

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["COMMANDS", "qmgr_status_view", "qmgr_view", "qmid_of"]


def qmid_of(name: str, qmgr_attributes: Mapping[str, object]) -> str:
    """IBM's QMID: the name and the creation time (``QM1_2026-11-22_17.36.32``). It must not
    change while the queue manager exists: cluster repositories know a member by it."""
    date = str(qmgr_attributes.get("CRDATE") or "")
    tod = str(qmgr_attributes.get("CRTIME") or "")
    return f"{name}_{date}_{tod}" if date else name


def alter_qmgr(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    changes = to_stored(cmd.params, cmd.flags)
    proc.engine.alter_qmgr(changes)
    if {"REPOS", "REPOSNL", "CLWLUSEQ", "CLWLMRUC"} & set(changes):
        proc.cluster_changed("QMGR")
    # the statistics tasks sleep until their interval's end: a new interval wakes them
    intervals_changed(proc.engine, changes)
    if "STATINT" in changes and proc.engine.queue_status(channelcommands.INITQ)["IPPROCS"]:
        # the channel initiator's channel statistics: told, not waited for (one that is not
        # running reads STATINT when it starts; one not told, at its interval's end)
        try:
            with proc.connection() as qm:
                channelcommands.notify(qm, {"command": "STATISTICS_CHANGED"},
                                       channelcommands.command_key(proc.engine.qmdir))
        except MQMIError:
            pass  # the initiation queue full or put-inhibited: the change is made all the same
    return [message("AMQ8005I")]


def ping_qmgr(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    return [message("AMQ8415I")]


def qmgr_view(proc: MQSCProcessor) -> dict[str, object]:
    """The queue manager's attributes as DISPLAY QMGR shows them (QMNAME apart)."""
    eng = proc.engine
    with eng.lock:
        view = {**EXTRA_DEFAULTS["QMGR"], **eng.catalog.qmgr}
    view["QMID"] = view.get("QMID") or qmid_of(eng.name, view)
    if view.get("CERTLABL") == "ibmwebspheremq":
        view["CERTLABL"] = "ibmwebspheremq" + eng.name.lower()
    shown = display_keywords("QMGR")
    return {k: v for k, v in view.items() if k in shown and k != "QMNAME"}


def display_qmgr(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    rest = selected(cmd, qmgr_view(proc), everything=not cmd.display_attrs)
    return [message(DISPLAY_HEADERS["QMGR"]),
            *format_attrs([("QMNAME", proc.engine.name), *display_items(rest)])]


def qmgr_status_view(proc: MQSCProcessor) -> dict[str, object]:
    """DISPLAY QMSTATUS values (PCF's Inquire Queue Manager Status shows the same).

    CHINIT and CMDSERV are RUNNING while something serves SYSTEM.CHANNEL.INITQ and
    SYSTEM.ADMIN.COMMAND.QUEUE. CURRLOG is the log extent being written and RECLOG the
    oldest one restart still needs; LOGINUSE is the log between them as a percentage of
    the primary log space (above 100: secondary extents are in use). LOGUTIL is the most
    log restart needed now or just before any of the last ten checkpoints, as the same
    percentage. MEDIALOG is blank: there are no media images to recover from."""
    eng = proc.engine
    log = eng.data.log
    seg = log.segment_size
    with eng.lock:
        conns = len(eng.connections)
        quiescing = eng.quiescing
    in_use = log.end_lsn - log.release_lsn
    peak = max([in_use, *eng.data.restart_log_history])
    primary = log.config.LogPrimaryFiles * seg
    startda, startti = date_time(eng.started_at)

    def served(queue: str) -> str:
        try:
            return "RUNNING" if eng.queue_status(queue)["IPPROCS"] else "STOPPED"
        except MQMIError:
            return "STOPPED"

    return {
        "STATUS": "QUIESCING" if quiescing else "RUNNING",
        "CHINIT": served(channelcommands.INITQ),
        "CMDSERV": served("SYSTEM.ADMIN.COMMAND.QUEUE"),
        "CONNS": conns, "STARTDA": startda, "STARTTI": startti,
        "CURRLOG": f"S{log.end_lsn // seg:07d}.LOG",
        "RECLOG": f"S{log.release_lsn // seg:07d}.LOG", "MEDIALOG": "",
        "LOGPATH": log.directory + "/",
        "LOGINUSE": (100 * in_use + primary - 1) // primary if primary else 0,
        "LOGUTIL": (100 * peak + primary - 1) // primary if primary else 0,
        "INSTNAME": DEFAULT_INSTALLATION,
        "INSTPATH": os.path.dirname(os.path.abspath(mqpy.__file__)),
    }  # fmt: skip


def display_qmstatus(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """DISPLAY QMSTATUS: QMNAME and STATUS always, the rest as ALL or a list asks."""
    view = qmgr_status_view(proc)
    rest = selected(cmd, view, exclude=("STATUS",))
    lines = [message(DISPLAY_HEADERS["QMSTATUS"])]
    lines.extend(format_attrs([("QMNAME", proc.engine.name), ("STATUS", view["STATUS"]),
                               *display_items(rest)]))
    return lines


def reset_qmgr(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """RESET QMGR TYPE(STATISTICS): the statistics interval ends now, its records are
    written (those STATMQI and STATQ ask for) and a new one begins, as at STATINT. The
    other types (ADVANCELOG and REDUCELOG for linear logs, PUBSUB) have nothing to act
    on here: MQRC_FUNCTION_NOT_SUPPORTED."""
    if cmd.params.get("TYPE") != "STATISTICS":
        raise not_supported()
    with proc.connection() as qm:
        try:
            emit_statistics_now(proc.engine, qm)
        except MQMIError as err:
            raise CommandFailed.in_hex(err.reason) from None
    if proc.engine.queue_status(channelcommands.INITQ)["IPPROCS"]:
        try:  # the channel initiator's channel statistics end their interval too
            proc.chinit({"command": "RESET_STATISTICS"})
        except CommandFailed:
            pass  # no channel initiator answered: it has no channel statistics to write
    return [message("AMQ8005I")]


#: (verb, object type) -> handler
COMMANDS: dict[tuple[str, str], Handler] = {
    ("ALTER", "QMGR"): alter_qmgr, ("DISPLAY", "QMGR"): display_qmgr,
    ("PING", "QMGR"): ping_qmgr, ("RESET", "QMGR"): reset_qmgr,
    ("DISPLAY", "QMSTATUS"): display_qmstatus,
}
