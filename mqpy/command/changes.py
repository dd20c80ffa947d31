"""The PCF commands that change something: Create, Change, Copy and Delete Queue and
Channel; Clear Queue; Change Queue Manager; Start, Stop, Ping, Reset and Resolve Channel; Start and Stop Service; Refresh
Security; Reset Queue Manager. Each is the processor's command (an MQSCCommand built from
the request's values, never MQSC text), run for the request's requester."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.requests import (
    QTYPE_TO_OBJ,
    PcfHandler,
    PcfRequest,
    Refused,
    Response,
    name_of,
    required_name,
)
from mqpy.mqsc import pcfmap
from mqpy.mqsc.parser import MQSCCommand, definable_name

__all__ = ["CHANGES", "attributes", "flags", "target"]

_Q = pcfmap.by_parameter(pcfmap.QUEUE)
_CHL = pcfmap.by_parameter(pcfmap.CHANNEL)
_CHL_BY_KW = pcfmap.by_keyword(pcfmap.CHANNEL)
_QMGR = pcfmap.by_parameter(pcfmap.QMGR)
#: queue-manager attributes Change Queue Manager may not set (the queue manager's own)
_QMGR_KEPT = frozenset({"QMNAME", "QMID", "CMDLEVEL", "PLATFORM", "SYNCPT", "VERSION",
                        "COMMANDQ", "MAXPRTY", "DISTL", "CRDATE", "CRTIME", "ALTDATE",
                        "ALTTIME"})
#: parameters that steer a command rather than set an attribute
_CONTROL = {CMQC.MQCA_Q_NAME, CMQC.MQIA_Q_TYPE, CMQCFC.MQIACF_REPLACE, CMQCFC.MQIACF_PURGE,
            CMQCFC.MQCACH_CHANNEL_NAME, CMQCFC.MQIACH_CHANNEL_TYPE, CMQCFC.MQCACF_FROM_Q_NAME,
            CMQCFC.MQCACF_FROM_CHANNEL_NAME, CMQCFC.MQCACF_TO_Q_NAME,
            CMQCFC.MQCACF_TO_CHANNEL_NAME}
#: attributes a request may not set (the queue manager keeps them)
_READ_ONLY = frozenset({"CURDEPTH", "IPPROCS", "OPPROCS", "CRDATE", "CRTIME", "ALTDATE",
                        "ALTTIME"})
_MODE = {CMQCFC.MQMODE_QUIESCE: "QUIESCE", CMQCFC.MQMODE_FORCE: "FORCE",
         CMQCFC.MQMODE_TERMINATE: "TERMINATE"}
_STOP_STATUS = {CMQCFC.MQCHS_STOPPED: "STOPPED", CMQCFC.MQCHS_INACTIVE: "INACTIVE"}


def attributes(msg: pcf.PCFMessage, table: Mapping[int, pcfmap.PcfAttr],
               control: Iterable[int] = _CONTROL,
               read_only: Iterable[str] = _READ_ONLY) -> dict[str, object]:
    """A create or change request's attributes as MQSC keywords and stored values. A
    parameter the object does not have, one the queue manager keeps, or one in the
    wrong structure (an MQCFIN for a string, an MQCFSL for one name) is refused with
    the reason naming the structure it came in (MQRCCF_CFIN_PARM_ID_ERROR...); a word
    with no meaning is MQRCCF_PARM_VALUE_ERROR."""
    out: dict[str, object] = {}
    skip, kept = set(control), set(read_only)
    for p in msg.params:
        if p.Parameter in skip:
            continue
        attr = table.get(p.Parameter)
        if attr is None or attr.keyword in kept or not attr.accepts(p):
            raise Refused(pcfmap.parm_id_error(p), p.Parameter)
        try:
            out[attr.keyword] = attr.from_pcf(p.value)
        except (TypeError, ValueError):
            raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR) from None
    return out


def flags(msg: pcf.PCFMessage) -> frozenset[str]:
    flags = set()
    if msg.get(CMQCFC.MQIACF_REPLACE) == CMQCFC.MQRP_YES:
        flags.add("REPLACE")
    if msg.get(CMQCFC.MQIACF_PURGE) == CMQCFC.MQPO_YES:
        flags.add("PURGE")
    return frozenset(flags)


def target(msg: pcf.PCFMessage, verb: str, name: int, copy_from: int, copy_to: int
           ) -> tuple[str, str, dict[str, object]]:
    """(MQSC verb, object name, LIKE) of a create, change, copy or delete request: a Copy
    is DEFINE of the To name LIKE the From name."""
    if verb == "COPY":
        return "DEFINE", _new_name(required_name(msg, copy_to)), {
            "LIKE": required_name(msg, copy_from)}
    named = required_name(msg, name)
    return verb, _new_name(named) if verb == "DEFINE" else named, {}


def _new_name(name: str) -> str:
    """The name of an object to be made; MQRCCF_OBJECT_NAME_ERROR where MQSC's DEFINE would
    refuse it (``parser.definable_name``)."""
    if not definable_name(name):
        raise Refused(CMQCFC.MQRCCF_OBJECT_NAME_ERROR)
    return name


def change_q(req: PcfRequest, msg: pcf.PCFMessage, verb: str) -> list[Response]:
    """Create / Change / Copy (DEFINE LIKE FromQName as ToQName) / Delete Queue."""
    verb, name, extra = target(msg, verb, CMQC.MQCA_Q_NAME, CMQCFC.MQCACF_FROM_Q_NAME,
                               CMQCFC.MQCACF_TO_Q_NAME)
    qtype = msg.get(CMQC.MQIA_Q_TYPE)
    if qtype is None:
        if verb != "DELETE":
            raise Refused(CMQCFC.MQRCCF_OBJECT_TYPE_MISSING)
        existing = req.engine.lookup("QLOCAL", name)
        if existing is None:
            return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)]
        objtype = existing.objtype
    elif qtype in QTYPE_TO_OBJ:
        objtype = QTYPE_TO_OBJ[qtype]
    else:
        raise Refused(CMQCFC.MQRCCF_Q_TYPE_ERROR)
    params = {} if verb == "DELETE" else {**extra, **attributes(msg, _Q)}
    return req.run(MQSCCommand(verb, objtype, name, params, flags(msg)))


def clear_q(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Clear Queue: CLEAR QLOCAL (a queue open or holding uncommitted messages refuses)."""
    return req.run(MQSCCommand("CLEAR", "QLOCAL", required_name(msg, CMQC.MQCA_Q_NAME), {},
                               frozenset()))


def change_channel(req: PcfRequest, msg: pcf.PCFMessage, verb: str) -> list[Response]:
    """Create / Change / Copy (DEFINE LIKE FromChannelName as ToChannelName) / Delete
    Channel."""
    verb, name, params = target(msg, verb, CMQCFC.MQCACH_CHANNEL_NAME,
                                CMQCFC.MQCACF_FROM_CHANNEL_NAME, CMQCFC.MQCACF_TO_CHANNEL_NAME)
    if verb != "DELETE":
        chltype = msg.get(CMQCFC.MQIACH_CHANNEL_TYPE)
        if chltype is None:
            raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
        try:
            params["CHLTYPE"] = _CHL_BY_KW["CHLTYPE"].from_pcf(chltype)
        except ValueError:
            raise Refused(CMQCFC.MQRCCF_CHANNEL_TYPE_ERROR) from None
        params.update(attributes(msg, _CHL))
    return req.run(MQSCCommand(verb, "CHANNEL", name, params, flags(msg)))


def channel_control(req: PcfRequest, msg: pcf.PCFMessage, verb: str) -> list[Response]:
    name = required_name(msg, CMQCFC.MQCACH_CHANNEL_NAME)
    params: dict[str, object] = {}
    if verb in ("START", "STOP"):
        params["IGNSTATE"] = _ignstate(msg)
    if verb == "STOP":
        params["MODE"] = _MODE.get(msg.get(CMQCFC.MQIACF_MODE, CMQCFC.MQMODE_QUIESCE))
        params["STATUS"] = _STOP_STATUS.get(
            msg.get(CMQCFC.MQIACH_CHANNEL_STATUS, CMQCFC.MQCHS_STOPPED))
        if params["MODE"] is None or params["STATUS"] is None:
            raise Refused(CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
        for parameter, keyword in ((CMQC.MQCA_Q_MGR_NAME, "QMNAME"),
                                   (CMQCFC.MQCACH_CONNECTION_NAME, "CONNAME")):
            if msg.get(parameter) is not None:
                params[keyword] = name_of(msg.get(parameter))
    elif verb == "PING" and msg.get(CMQCFC.MQIACH_DATA_COUNT) is not None:
        params["DATALEN"] = msg.get(CMQCFC.MQIACH_DATA_COUNT)
    elif verb == "RESET":
        params["SEQNUM"] = msg.get(CMQCFC.MQIACH_MSG_SEQUENCE_NUMBER, 1)
    elif verb == "RESOLVE":
        action = {CMQCFC.MQIDO_COMMIT: "COMMIT", CMQCFC.MQIDO_BACKOUT: "BACKOUT"}.get(
            msg.get(CMQCFC.MQIACH_IN_DOUBT))
        if action is None:
            raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL
                          if msg.get(CMQCFC.MQIACH_IN_DOUBT) is None
                          else CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR)
        params["ACTION"] = action
    return req.run(MQSCCommand(verb, "CHANNEL", name, params, frozenset()))


def refresh_security(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """MQCMD_REFRESH_SECURITY: SecurityType AUTHSERV (default), SSL or CONNAUTH, as MQSC
    REFRESH SECURITY TYPE(...) runs it; MQSECTYPE_CLASSES is z/OS's (refused)."""
    kind = {CMQCFC.MQSECTYPE_AUTHSERV: "AUTHSERV", CMQCFC.MQSECTYPE_SSL: "SSL",
            CMQCFC.MQSECTYPE_CONNAUTH: "CONNAUTH"}.get(
        msg.get(CMQCFC.MQIACF_SECURITY_TYPE, CMQCFC.MQSECTYPE_AUTHSERV))
    if kind is None:
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    return req.run(MQSCCommand("REFRESH", "SECURITY", "", {"TYPE": kind}, frozenset()))


def service_control(req: PcfRequest, msg: pcf.PCFMessage, verb: str) -> list[Response]:
    """Start / Stop Service; with IgnoreState MQIS_YES a service already running (or
    already stopped) is no failure."""
    name = required_name(msg, CMQC.MQCA_SERVICE_NAME)
    return req.run(MQSCCommand(verb, "SERVICE", name, {"IGNSTATE": _ignstate(msg)},
                               frozenset()))


def _ignstate(msg: pcf.PCFMessage) -> str:
    """IgnoreState (MQIS_NO, the default, or MQIS_YES) as MQSC's IGNSTATE."""
    ignore = msg.get(CMQCFC.MQIACF_IGNORE_STATE, CMQCFC.MQIS_NO)
    if ignore not in (CMQCFC.MQIS_NO, CMQCFC.MQIS_YES):
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR)
    return "YES" if ignore == CMQCFC.MQIS_YES else "NO"


def reset_q_mgr(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Reset Queue Manager, Action MQACT_COLLECT_STATISTICS: RESET QMGR
    TYPE(STATISTICS); the other actions are not supported (as in MQSC)."""
    action = msg.get(CMQCFC.MQIACF_ACTION)
    if action is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    if action != CMQCFC.MQACT_COLLECT_STATISTICS:
        return [Response([], CMQC.MQCC_FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)]
    return req.run(MQSCCommand("RESET", "QMGR", None, {"TYPE": "STATISTICS"}, frozenset()))


def change_q_mgr(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Change Queue Manager: ALTER QMGR with the attributes translated by
    ``pcfmap.QMGR``; Force (MQIACF_FORCE) is accepted as ALTER QMGR FORCE."""
    params = attributes(msg, _QMGR, {CMQCFC.MQIACF_FORCE}, _QMGR_KEPT)
    force = frozenset({"FORCE"}) if msg.get(CMQCFC.MQIACF_FORCE) == CMQCFC.MQFC_YES \
        else frozenset()
    return req.run(MQSCCommand("ALTER", "QMGR", None, params, force))


#: command -> handler
CHANGES: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_CREATE_Q: partial(change_q, verb="DEFINE"),
    CMQCFC.MQCMD_CHANGE_Q: partial(change_q, verb="ALTER"),
    CMQCFC.MQCMD_DELETE_Q: partial(change_q, verb="DELETE"),
    CMQCFC.MQCMD_COPY_Q: partial(change_q, verb="COPY"),
    CMQCFC.MQCMD_CLEAR_Q: clear_q,
    CMQCFC.MQCMD_RESET_Q_MGR: reset_q_mgr,
    CMQCFC.MQCMD_CHANGE_Q_MGR: change_q_mgr,
    CMQCFC.MQCMD_CREATE_CHANNEL: partial(change_channel, verb="DEFINE"),
    CMQCFC.MQCMD_CHANGE_CHANNEL: partial(change_channel, verb="ALTER"),
    CMQCFC.MQCMD_DELETE_CHANNEL: partial(change_channel, verb="DELETE"),
    CMQCFC.MQCMD_COPY_CHANNEL: partial(change_channel, verb="COPY"),
    CMQCFC.MQCMD_START_CHANNEL: partial(channel_control, verb="START"),
    CMQCFC.MQCMD_STOP_CHANNEL: partial(channel_control, verb="STOP"),
    CMQCFC.MQCMD_PING_CHANNEL: partial(channel_control, verb="PING"),
    CMQCFC.MQCMD_RESET_CHANNEL: partial(channel_control, verb="RESET"),
    CMQCFC.MQCMD_RESOLVE_CHANNEL: partial(channel_control, verb="RESOLVE"),
    CMQCFC.MQCMD_START_SERVICE: partial(service_control, verb="START"),
    CMQCFC.MQCMD_STOP_SERVICE: partial(service_control, verb="STOP"),
    CMQCFC.MQCMD_REFRESH_SECURITY: refresh_security,
}
