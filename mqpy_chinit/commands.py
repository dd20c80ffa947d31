"""Channel commands to a running channel initiator, through SYSTEM.CHANNEL.INITQ.

The command server (runmqsc, PCF) cannot start a channel itself: distributed queuing is the
channel initiator's. It puts a small request on the initiation queue (Format ``MQPYCHCM``,
a JSON body, an expiry so that a request nobody serves does not linger) and waits for the
reply on a temporary dynamic queue. No reply in time means no channel initiator is running.
"""

from __future__ import annotations

import json

import mqpy
from mqpy import CMQC
from mqpy_chinit.chinit import COMMAND_FORMAT, INITQ

REPLY_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"


def send(qm: mqpy.QueueManager, request: dict, timeout: float = 15.0) -> dict | None:
    """Send one channel command; the channel initiator's reply, or None if none answered."""
    od = mqpy.OD(ObjectName=REPLY_MODEL.encode(), DynamicQName=b"AMQ.CHLCMD.*")
    reply_q = mqpy.Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    try:
        md = mqpy.MD(Format=COMMAND_FORMAT, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=od.ObjectName,
                     Persistence=CMQC.MQPER_NOT_PERSISTENT, Expiry=int(timeout * 10) + 1)
        qm.put1(INITQ, json.dumps(request).encode(), md,
                mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                       WaitInterval=int(timeout * 1000),
                       MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        try:
            data = reply_q.get(None, mqpy.MD(CorrelId=md.MsgId), gmo)
        except mqpy.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        return json.loads(data)
    finally:
        reply_q.close()
