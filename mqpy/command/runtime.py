"""The PCF commands on what runs rather than what is defined: Start and Stop Channel
Listener (START / STOP LISTENER, run by the channel initiator) and Stop Connection (STOP
CONN: the connection ConnectionId names is broken). Each is the processor's command, an
MQSCCommand built from the request's values."""

from __future__ import annotations

from functools import partial

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.requests import PcfHandler, PcfRequest, Refused, Response, required_name
from mqpy.mqsc import queues
from mqpy.mqsc.parser import MQSCCommand

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


#: command -> handler
RUNTIME: dict[int, PcfHandler] = {
    CMQCFC.MQCMD_START_CHANNEL_LISTENER: partial(listener_control, verb="START"),
    CMQCFC.MQCMD_STOP_CHANNEL_LISTENER: partial(listener_control, verb="STOP"),
    CMQCFC.MQCMD_STOP_CONNECTION: stop_connection,
}
