"""Reset Queue Statistics (MQCMD_RESET_Q_STATS, Multiplatforms' PCF form of z/OS's RESET
QSTATS): for each local queue a name (generic with a trailing ``*``) names, the counts the
engine keeps since the last reset or since the queue manager started
(:func:`mqpy.engine.stats.reset_queue_statistics`), which start again. The requester needs
dsp and chg on each queue; the queue manager's PERFMEV must be ENABLED."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command.requests import PcfHandler, PcfRequest, Refused, Response, required_name
from mqpy.engine.stats import reset_queue_statistics
from mqpy.mqsc import queue_manager
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import CommandFailed

__all__ = ["STATISTICS"]


def _authorized(req: PcfRequest, name: str) -> bool:
    """The requester holds dsp and chg on the queue (judged as DISPLAY and ALTER of it)."""
    try:
        for verb in ("DISPLAY", "ALTER"):
            req.who.check(MQSCCommand(verb, "QLOCAL", name, {}, frozenset()))
    except CommandFailed:
        return False
    return True


def _response(name: str, counts: tuple[int, int, int, int]) -> Response:
    high, enq, deq, since = counts
    return Response([pcf.CFST(CMQC.MQCA_Q_NAME, name.ljust(CMQC.MQ_Q_NAME_LENGTH).encode()),
                     pcf.CFIN(CMQC.MQIA_TIME_SINCE_RESET, since),
                     pcf.CFIN(CMQC.MQIA_HIGH_Q_DEPTH, high),
                     pcf.CFIN(CMQC.MQIA_MSG_ENQ_COUNT, enq),
                     pcf.CFIN(CMQC.MQIA_MSG_DEQ_COUNT, deq)])


def reset_q_stats(req: PcfRequest, msg: pcf.PCFMessage) -> list[Response]:
    """One response per local queue named: QName, TimeSinceReset, HighQDepth, MsgEnqCount,
    MsgDeqCount. PERFMEV DISABLED: MQRCCF_EVENTS_DISABLED; a queue of another type named
    specifically: MQRCCF_Q_WRONG_TYPE; no such queue: MQRC_UNKNOWN_OBJECT_NAME; a queue
    named specifically without dsp and chg on it: MQRC_NOT_AUTHORIZED (a generic name
    leaves such queues out)."""
    name = required_name(msg, CMQC.MQCA_Q_NAME)
    if str(queue_manager.qmgr_view(req.processor).get("PERFMEV", "")).upper() != "ENABLED":
        raise Refused(CMQCFC.MQRCCF_EVENTS_DISABLED)
    generic = name.endswith("*")
    if not generic:
        defined = req.engine.lookup("QUEUE", name)
        if defined is None:
            raise Refused(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        if defined.objtype != "QLOCAL":
            raise Refused(CMQCFC.MQRCCF_Q_WRONG_TYPE)
        if not _authorized(req, name):
            raise Refused(CMQC.MQRC_NOT_AUTHORIZED)
    out = []
    for obj in req.objects(("QLOCAL",), name):
        if generic and not _authorized(req, obj.name):
            continue
        counts = reset_queue_statistics(req.engine, obj.name)
        if counts is not None:
            out.append(_response(obj.name, counts))
    if not out:
        raise Refused(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    return out


#: command -> handler
STATISTICS: dict[int, PcfHandler] = {CMQCFC.MQCMD_RESET_Q_STATS: reset_q_stats}
