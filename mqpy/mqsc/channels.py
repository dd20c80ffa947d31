"""MQSC for channels at run time: START, STOP, PING, RESET and RESOLVE CHANNEL (the channel
initiator's, sent to it on SYSTEM.CHANNEL.INITQ), DISPLAY CHSTATUS (current status from the
channel initiator, SAVED status from the queue manager's sync records), START/STOP CHINIT.
With no channel initiator they fail with MQRCCF_NO_CHANNEL_INITIATOR, and DISPLAY CHSTATUS
finds no current status (``AMQ8420I: Channel Status not found.``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqpy import CMQCFC, syncrecord
from mqpy.mqsc.display import format_attrs
from mqpy.mqsc.messages import message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed, Handler, Requester, not_supported
from mqpy.mqsc.selection import generic_match, where_passes

if TYPE_CHECKING:
    from mqpy.mqsc.processor import MQSCProcessor

__all__ = ["COMMANDS", "channel_status_rows"]

#: channel types PING CHANNEL can test (IBM: sender, server, cluster-sender)
_PING_TYPES = ("SDR", "SVR", "CLUSSDR")
_SENDING_TYPES = ("SDR", "SVR", "CLUSSDR")
#: MQI channels: no sequence numbers to RESET
_MQI_TYPES = ("SVRCONN", "CLNTCONN")
#: channel statuses of an MCA at work: RESET and RESOLVE CHANNEL are refused while one is
#: (IBM: "the channel must be inactive"); RETRYING, STOPPED and INACTIVE run no MCA
_IN_USE = frozenset({"STARTING", "BINDING", "INITIALIZING", "RUNNING", "STOPPING",
                     "REQUESTING", "PAUSED", "SWITCHING"})
_CHINIT_VERBS = ("START", "STOP", "PING", "RESET", "RESOLVE")
# DISPLAY CHSTATUS MONITOR: the fields channel monitoring (MONCHL) collects
_MONITOR_FIELDS = ["MONCHL", "XQTIME", "NETTIME", "XBATCHSZ", "EXITTIME", "COMPTIME",
                   "COMPRATE", "XQMSGSA"]


def channel_command(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """START, STOP, PING, RESET, RESOLVE CHANNEL: the channel initiator's."""
    if proc.engine.lookup("CHANNEL", cmd.name) is None:
        if cmd.verb in ("START", "STOP"):  # perhaps an auto-defined cluster sender
            return _auto_channel_control(proc, cmd)
        raise CommandFailed.of(CMQCFC.MQRCCF_CHANNEL_NOT_FOUND, "AMQ8227E", cmd.name)
    verb, name, params = cmd.verb, str(cmd.name), cmd.params
    if verb == "RESOLVE":
        return _resolve(proc, name, str(params.get("ACTION", "")))
    if verb == "RESET":
        if proc.engine.lookup("CHANNEL", name).attributes.get("CHLTYPE") in _MQI_TYPES:
            raise CommandFailed.of(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, "AMQ9502E")
        _refuse_in_use(proc, name)
        return _reset(proc, name, int(params.get("SEQNUM", 1)))  # type: ignore[call-overload]
    handler = {"START": _start, "STOP": _stop, "PING": _ping}.get(verb)
    if handler is None:
        raise not_supported()
    return handler(proc, cmd)


def _refuse_in_use(proc: MQSCProcessor, name: str) -> None:
    """AMQ9514E (MQRCCF_CHANNEL_IN_USE) when an instance of channel ``name`` is at work in
    the channel initiator: its sequence number and its batch are that MCA's until it ends.
    With no channel initiator no channel runs."""
    try:
        reply = proc.chinit({"command": "STATUS", "channel": name})
    except CommandFailed:
        return
    for row in reply.get("status") or []:
        if row.get("CHANNEL") == name and row.get("STATUS") in _IN_USE:
            raise CommandFailed([f"AMQ9514E: Channel '{name}' is in use."],
                                CMQCFC.MQRCCF_CHANNEL_IN_USE)


def _refused_by_chinit(reply: dict, reason: int) -> None:
    if not reply.get("ok"):
        raise CommandFailed([str(reply.get("message"))], reason)


def _start(proc: MQSCProcessor, cmd: MQSCCommand) -> list[str]:
    definition = dict(proc.engine.lookup("CHANNEL", cmd.name).attributes)
    # IGNSTATE(NO), IBM's default: starting a channel that is already running fails
    reply = proc.chinit({"command": "START", "channel": cmd.name, "definition": definition,
                         "ignstate": str(cmd.params.get("IGNSTATE", "NO"))})
    _refused_by_chinit(reply, int(reply.get("reason") or CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE))
    return [message("AMQ8018I", cmd.name)]


def _stop(proc: MQSCProcessor, cmd: MQSCCommand) -> list[str]:
    params = cmd.params
    if (params.get("QMNAME") or params.get("CONNAME")) and params.get("STATUS") == "STOPPED":
        # a channel cannot be stopped for one partner only (IBM's usage note)
        raise CommandFailed.in_hex(CMQCFC.MQRCCF_PARM_CONFLICT)
    found = proc.engine.lookup("CHANNEL", cmd.name)
    if found is not None and found.attributes.get("CHLTYPE") == "CLNTCONN":
        # IBM: STOP CHANNEL "can be issued to a channel of any type except CLNTCONN"
        raise CommandFailed.of(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, "AMQ9502E")
    # STATUS defaults to INACTIVE when QMNAME or CONNAME picks instances (IBM)
    picked = bool(params.get("QMNAME") or params.get("CONNAME"))
    reply = proc.chinit({"command": "STOP", "channel": cmd.name,
                         "mode": str(params.get("MODE", "QUIESCE")),
                         "status": str(params.get("STATUS",
                                                  "INACTIVE" if picked else "STOPPED")),
                         "qmname": str(params.get("QMNAME", "")),
                         "conname": str(params.get("CONNAME", "")),
                         # IGNSTATE(NO), IBM's default: stopping what is already stopped
                         # (or not running, for STATUS(INACTIVE)) fails, AMQ9533E
                         "ignstate": str(params.get("IGNSTATE", "NO")),
                         "chltype": found.attributes.get("CHLTYPE", "")
                         if found is not None else ""})
    _refused_by_chinit(reply, CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE)
    return [message("AMQ8019I", cmd.name)]


def _ping(proc: MQSCProcessor, cmd: MQSCCommand) -> list[str]:
    definition = dict(proc.engine.lookup("CHANNEL", cmd.name).attributes)
    if definition.get("CHLTYPE") not in _PING_TYPES:
        raise CommandFailed.of(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, "AMQ9502E")
    reply = proc.chinit({"command": "PING", "channel": cmd.name, "definition": definition,
                         "datalen": int(cmd.params.get("DATALEN", 16))})  # IBM's default
    # a channel at work is refused as in use (AMQ9514E, MQRCCF_CHANNEL_IN_USE, the reason
    # the channel initiator gave); a ping that was tried and failed is MQRCCF_PING_ERROR
    _refused_by_chinit(reply, int(reply.get("reason") or CMQCFC.MQRCCF_PING_ERROR))
    return [message("AMQ8020I", cmd.name)]


def _auto_channel_control(proc: MQSCProcessor, cmd: MQSCCommand) -> list[str]:
    """START/STOP CHANNEL of an auto-defined cluster sender: the repository manager holds
    its definition (it is not a queue-manager object, as in IBM MQ)."""
    try:
        reply = proc.chinit({"command": cmd.verb, "channel": cmd.name, "auto": True,
                             "mode": str(cmd.params.get("MODE", "QUIESCE")),
                             "status": str(cmd.params.get("STATUS", "STOPPED"))})
    except CommandFailed:
        raise CommandFailed.of(CMQCFC.MQRCCF_CHANNEL_NOT_FOUND, "AMQ8227E",
                               cmd.name) from None
    if not reply.get("ok"):
        text = str(reply.get("message"))
        reason = CMQCFC.MQRCCF_CHANNEL_NOT_FOUND if text.startswith("AMQ8227E") else \
            CMQCFC.MQRCCF_CHANNEL_NOT_ACTIVE
        raise CommandFailed([text], reason)
    return [message("AMQ8018I" if cmd.verb == "START" else "AMQ8019I", cmd.name)]


def _reset(proc: MQSCProcessor, name: str, seqnum: int) -> list[str]:
    """RESET CHANNEL SEQNUM(n): this end's next message is number n (its sync record now
    says n - 1). A sender must not be in doubt; reset the partner end the same way."""
    definition = proc.engine.lookup("CHANNEL", name).attributes
    role = "S" if definition.get("CHLTYPE") in _SENDING_TYPES else "R"
    if role == "S" and any(
            getattr(syncrecord.parse_prepare_key(k), "channel", None) == name
            for k in proc.engine.indoubt()):
        # IBM's MQRCCF_CHANNEL_INDOUBT: "the requested operation cannot complete because
        # the channel is in doubt" (RESOLVE CHANNEL first); no message of its own in runmqsc
        raise CommandFailed.in_hex(CMQCFC.MQRCCF_CHANNEL_INDOUBT)
    with proc.connection() as qm:
        if role == "S":
            old = syncrecord.read(qm, name, role)
            partners = [old.partner_qm if old else ""]
        else:  # a generic receiver: every partner's record, or one for the first partner
            partners = [r.partner_qm for r in syncrecord.read_all(qm)
                        if r.role == "R" and r.channel == name] or [""]
        for partner in partners:
            syncrecord.replace_in_uow(
                qm, syncrecord.SyncRecord(name, role, max(0, seqnum - 1), bytes(8),
                                          partner, reset=role == "S"))
        qm.commit()
    return [message("AMQ8023I", name)]


def _resolve(proc: MQSCProcessor, name: str, action: str) -> list[str]:
    """RESOLVE CHANNEL ACTION(COMMIT|BACKOUT): finish the in-doubt batch of a sending
    channel that is not running (a running one resolves its own at its next flow)."""
    definition = proc.engine.lookup("CHANNEL", name).attributes
    if definition.get("CHLTYPE") not in _SENDING_TYPES:
        raise CommandFailed.of(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR, "AMQ9502E")
    _refuse_in_use(proc, name)
    for key in proc.engine.indoubt():
        parsed = syncrecord.parse_prepare_key(key)
        if parsed is not None and parsed.channel == name:
            proc.engine.resolve(key, action == "COMMIT")
            _enable_xmitq_get(proc, name)
            return [message("AMQ8096I", name)]
    raise CommandFailed([message("AMQ9528E", name)], CMQCFC.MQRCCF_INDOUBT_VALUE_ERROR)


def _enable_xmitq_get(proc: MQSCProcessor, name: str) -> None:
    """A resolved channel's transmission queue is GET(ENABLED) again, if the error stop that
    left the batch in doubt disabled it: its messages can move, by this channel once
    started or by another. Triggering is START CHANNEL's to restore."""
    definition = proc.engine.lookup("CHANNEL", name)
    xmitq = str(definition.attributes.get("XMITQ") or "") if definition else ""
    queue = proc.engine.lookup("QLOCAL", xmitq) if xmitq else None
    if queue is not None and queue.attributes.get("GET") == "DISABLED":
        proc.engine.alter("QLOCAL", xmitq, {"GET": "ENABLED"})


def channel_status_rows(proc: MQSCProcessor, pattern: str, who: Requester, saved: bool = False,
                        conname: str = "", xmitq: str = "") -> list[dict[str, object]]:
    """Channel instances' status (the channel initiator's), or their saved status (the queue
    manager's sync records), as MQSC keywords, those ``who`` may see; DISPLAY CHSTATUS and
    PCF's Inquire Channel Status both show these."""
    if saved:
        rows = _saved_chstatus(proc, pattern)
    else:
        try:
            reply = proc.chinit({"command": "STATUS", "channel": pattern})
        except CommandFailed:
            reply = {}  # no channel initiator: no channel has a status
        # current status is a current channel's: one that is INACTIVE (never started,
        # ended normally, stopped STATUS(INACTIVE)) has none (IBM: AMQ8420I)
        rows = [r for r in reply.get("status") or [] if r.get("STATUS") != "INACTIVE"]
    for key, want in (("CONNAME", conname), ("XMITQ", xmitq)):
        if want:
            rows = [r for r in rows if str(r.get(key, "")) == want]
    return proc.visible_rows("CHANNEL", rows, who)


def display_chstatus(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    saved = "SAVED" in cmd.flags
    rows = channel_status_rows(proc, cmd.name or "*", who, saved,
                               str(cmd.params.get("CONNAME") or ""),
                               str(cmd.params.get("XMITQ") or ""))
    if not rows:
        raise CommandFailed.of(CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND, "AMQ8420I")
    wanted = list(cmd.display_attrs or ())
    if cmd.where is not None:
        wanted.append(cmd.where.keyword)
    if "MONITOR" in cmd.flags or "MONITOR" in wanted:
        wanted += _MONITOR_FIELDS
    # the saved status is the few sync fields: shown whole
    everything = saved or "ALL" in wanted or "ALL" in cmd.flags
    kind = "SAVED" if saved else "CURRENT"
    head = ["CHANNEL", "CHLTYPE", "CONNAME", kind, "RQMNAME", "STATUS", "SUBSTATE", "XMITQ"]
    lines: list[str] = []
    for row in rows:
        if not where_passes(cmd.where, row):
            continue
        row = {**row, kind: None}
        keys = head + sorted(k for k in row if k not in head and (everything or k in wanted))
        lines.append(message("AMQ8417I"))
        lines.extend(format_attrs([(k, row.get(k, "")) for k in keys]))
    return lines


def _saved_chstatus(proc: MQSCProcessor, pattern: str) -> list[dict[str, object]]:
    """DISPLAY CHSTATUS SAVED: what each end hardened at its last batch (its sync record)
    and, at a sender, the batch in doubt: the figures RESOLVE CHANNEL is decided by, read
    from the queue manager so they are there with no channel initiator running."""
    indoubt = {p.channel: p for k in proc.engine.indoubt()
               if (p := syncrecord.parse_prepare_key(k)) is not None}
    with proc.connection() as qm:
        records, states = syncrecord.read_all(qm), syncrecord.read_states(qm)
    # a sender's record is locked by its batch in doubt: the batch's key says what it holds
    records = [r for r in records if not (r.role == "S" and r.channel in indoubt)]
    records += [syncrecord.SyncRecord(p.channel, "S", p.prev_seq, p.prev_luwid, p.partner)
                for p in indoubt.values()]
    rows: list[dict[str, object]] = []
    for rec in records:
        if not generic_match(pattern, rec.channel):
            continue
        obj = proc.engine.lookup("CHANNEL", rec.channel)
        definition = obj.attributes if obj is not None else {}
        doubt = indoubt.get(rec.channel) if rec.role == "S" else None
        cur_seq, cur_luwid = (doubt.seq, doubt.luwid) if doubt else (rec.seq, rec.luwid)
        sender = rec.role == "S"
        rows.append({
            "CHANNEL": rec.channel,
            "CHLTYPE": definition.get("CHLTYPE") or ("SDR" if sender else "RCVR"),
            "CONNAME": definition.get("CONNAME", "") if sender else rec.conname,
            "RQMNAME": rec.partner_qm, "STATUS": states.get(rec.channel, "INACTIVE"),
            "SUBSTATE": "", "XMITQ": definition.get("XMITQ", "") if sender else "",
            "CURLUWID": cur_luwid.hex().upper(), "LSTLUWID": rec.luwid.hex().upper(),
            "CURSEQNO": cur_seq, "LSTSEQNO": rec.seq,
            "CURMSGS": (doubt.seq - doubt.prev_seq) % 999999999 if doubt else 0,
            "INDOUBT": "YES" if doubt else "NO"})
    return rows


def chinit_control(proc: MQSCProcessor, cmd: MQSCCommand, who: Requester) -> list[str]:
    """START / STOP CHINIT: the channel initiator is the daemon's to run."""
    raise proc.no_chinit()


#: (verb, object type) -> handler
COMMANDS: dict[tuple[str, str], Handler] = {
    **{(verb, "CHANNEL"): channel_command for verb in _CHINIT_VERBS},
    ("DISPLAY", "CHSTATUS"): display_chstatus,
    ("START", "CHINIT"): chinit_control, ("STOP", "CHINIT"): chinit_control,
}
