"""The PCF commands on what runs rather than what is defined: Start and Stop Channel
Listener (START / STOP LISTENER, run by the channel initiator), Stop Connection (STOP
CONN: the connection ConnectionId names is broken), each the processor's command, an
MQSCCommand built from the request's values; and Refresh Queue Manager, answered as IBM's
command server on Multiplatforms answers a queue manager without configuration events or
a publish/subscribe engine."""

from __future__ import annotations

from functools import partial

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.requests import PcfHandler, PcfRequest, Refused, Response, required_name
from mqpy.mqsc import queues
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed

__all__ = ["RUNTIME"]


def listener_control(req: PcfRequest, msg: pcf.PCFMessage, verb: str) -> list[Response]:
    """Start / Stop Channel Listener: ListenerName is required on Multiplatforms (the
    transport parameters are z/OS's)."""
    name = required_name(msg, CMQCFC.MQCACH_LISTENER_NAME)
    return req.run(MQSCCommand(verb, "LISTENER", name, {}, frozenset()))


def stop_connection(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Stop Connection: ConnectionId (MQCFBS, MQ_CONNECTION_ID_LENGTH bytes) is required;
    one of another length, or another queue manager's (its first 16 bytes are not this
    queue manager's EXTCONN), is MQRCCF_CONNECTION_ID_ERROR."""
    conn = msg.get(CMQCFC.MQBACF_CONNECTION_ID)
    if conn is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    conn = bytes(conn)
    if len(conn) != CMQC.MQ_CONNECTION_ID_LENGTH \
            or conn[:16] != queues.extconn_of(req.engine.name):
        raise Refused(CMQCFC.MQRCCF_CONNECTION_ID_ERROR)
    return req.run(MQSCCommand("STOP", "CONN", conn[16:].hex().upper(), {}, frozenset()))


#: RefreshType -> the reason mqpy refuses it with (IBM's, on Multiplatforms)
_REFRESH_REFUSED = {
    # Refresh Object configuration events for the objects selected: mqpy emits no
    # configuration events, so it answers as IBM does while CONFIGEV is DISABLED
    CMQCFC.MQRT_CONFIGURATION: CMQCFC.MQRCCF_EVENTS_DISABLED,
    # resynchronising proxy subscriptions needs the publish/subscribe engine, which mqpy
    # does not run: IBM's answer while publish/subscribe is not available
    CMQCFC.MQRT_PROXYSUB: CMQCFC.MQRCCF_PUBSUB_INHIBITED,
}


def refresh_q_mgr(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """Refresh Queue Manager: RefreshType (MQIACF_REFRESH_TYPE) is required
    (MQRCCF_PARM_COUNT_TOO_SMALL without it) and needs chg on the queue manager
    (MQRC_NOT_AUTHORIZED). MQRT_EXPIRY, MQRT_NSPROC and MQRT_EARLY are valid only on
    z/OS, and any other value is none IBM defines: MQRCCF_PARM_VALUE_ERROR, naming the
    parameter (MQIACF_PARAMETER_ID)."""
    refresh_type = msg.get(CMQCFC.MQIACF_REFRESH_TYPE)
    if refresh_type is None:
        raise Refused(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL)
    try:
        req.who.check(MQSCCommand("ALTER", "QMGR", None, {}, frozenset()))
    except CommandFailed as refused:
        raise Refused(refused.reason) from None
    reason = _REFRESH_REFUSED.get(refresh_type)
    if reason is None:
        return [Response([pcf.CFIN(CMQCFC.MQIACF_PARAMETER_ID, CMQCFC.MQIACF_REFRESH_TYPE)],
                         CMQC.MQCC_FAILED, CMQCFC.MQRCCF_PARM_VALUE_ERROR)]
    raise Refused(reason)


#: command -> handler
RUNTIME: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_START_CHANNEL_LISTENER: partial(listener_control, verb="START"),
    CMQCFC.MQCMD_STOP_CHANNEL_LISTENER: partial(listener_control, verb="STOP"),
    CMQCFC.MQCMD_STOP_CONNECTION: stop_connection,
    CMQCFC.MQCMD_REFRESH_Q_MGR: refresh_q_mgr,
}
