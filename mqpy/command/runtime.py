"""The PCF commands on what runs rather than what is defined: Start and Stop Channel
Listener (START / STOP LISTENER, run by the channel initiator), Stop Connection (STOP
CONN: the connection ConnectionId names is broken) and Refresh Queue Manager of the
configuration (REFRESH QMGR TYPE(CONFIGEV)), each the processor's command, an MQSCCommand
built from the request's values; the other refresh types are answered as IBM's command
server on Multiplatforms answers a queue manager without a publish/subscribe engine."""

from __future__ import annotations

from functools import partial

import attrs

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.requests import (
    PcfHandler,
    PcfRequest,
    Refused,
    Response,
    optional_name,
    required_name,
)
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
    if refresh_type == CMQCFC.MQRT_CONFIGURATION:
        return _refresh_configuration(req, msg)
    reason = _REFRESH_REFUSED.get(refresh_type)
    if reason is None:
        return [Response([pcf.CFIN(CMQCFC.MQIACF_PARAMETER_ID, CMQCFC.MQIACF_REFRESH_TYPE)],
                         CMQC.MQCC_FAILED, CMQCFC.MQRCCF_PARM_VALUE_ERROR)]
    raise Refused(reason)


#: Refresh Queue Manager's ObjectType -> REFRESH QMGR's OBJECT
_REFRESH_OBJECT = {
    CMQC.MQOT_ALL: "ALL", CMQC.MQOT_Q: "QUEUE", CMQC.MQOT_LOCAL_Q: "QLOCAL",
    CMQC.MQOT_MODEL_Q: "QMODEL", CMQC.MQOT_ALIAS_Q: "QALIAS", CMQC.MQOT_REMOTE_Q: "QREMOTE",
    CMQC.MQOT_CHANNEL: "CHANNEL", CMQC.MQOT_NAMELIST: "NAMELIST",
    CMQC.MQOT_PROCESS: "PROCESS", CMQC.MQOT_AUTH_INFO: "AUTHINFO", CMQC.MQOT_TOPIC: "TOPIC",
    CMQC.MQOT_LISTENER: "LISTENER", CMQC.MQOT_SERVICE: "SERVICE", CMQC.MQOT_Q_MGR: "QMGR",
    CMQC.MQOT_AUTH_REC: "AUTHREC", CMQC.MQOT_CHLAUTH: "CHLAUTH",
    CMQC.MQOT_COMM_INFO: "COMMINFO"}


def _refresh_configuration(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """RefreshType MQRT_CONFIGURATION: REFRESH QMGR TYPE(CONFIGEV) with ObjectType
    (MQIACF_OBJECT_TYPE, default MQOT_ALL), ObjectName (MQCACF_OBJECT_NAME, default ``*``)
    and RefreshInterval (MQIACF_REFRESH_INTERVAL, minutes, default 0: no limit)."""
    word = _REFRESH_OBJECT.get(msg.get(CMQCFC.MQIACF_OBJECT_TYPE, CMQC.MQOT_ALL))
    if word is None:
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_OBJECT_TYPE)
    interval = msg.get(CMQCFC.MQIACF_REFRESH_INTERVAL, 0)
    if not isinstance(interval, int) or not 0 <= interval <= 999_999:
        raise Refused(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_REFRESH_INTERVAL)
    params: dict[str, object] = {"TYPE": "CONFIGEV", "OBJECT": word, "INCLINT": interval,
                                 "NAME": optional_name(msg, CMQCFC.MQCACF_OBJECT_NAME) or "*"}
    # the authority it needs (chg on the queue manager) was checked by refresh_q_mgr
    checked = attrs.evolve(req, who=attrs.evolve(req.who, guard=None))
    return checked.run(MQSCCommand("REFRESH", "QMGR", None, params, frozenset()))


#: command -> handler
RUNTIME: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_START_CHANNEL_LISTENER: partial(listener_control, verb="START"),
    CMQCFC.MQCMD_STOP_CHANNEL_LISTENER: partial(listener_control, verb="STOP"),
    CMQCFC.MQCMD_STOP_CONNECTION: stop_connection,
    CMQCFC.MQCMD_REFRESH_Q_MGR: refresh_q_mgr,
}
