"""Channel commands: how the queue manager's command server asks a running channel initiator
to start, stop or show a channel, through SYSTEM.CHANNEL.INITQ.

The command server (runmqsc, PCF) cannot start a channel itself: distributed queuing is the
channel initiator's. It puts a small request on the initiation queue (Format
:data:`COMMAND_FORMAT`, a JSON body, an expiry so that a request nobody serves does not linger)
and waits for the reply on a temporary dynamic queue (:func:`send`). The channel initiator
serves the queue and answers with a reply of the same Format. No reply in time means no
channel initiator is running.
"""

from __future__ import annotations

import json

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.mqi import Queue, QueueManager
from mqpy.structs.tables import GMO, MD, OD, PMO

__all__ = ["COMMAND_FORMAT", "INITQ", "REPLY_MODEL", "send"]

#: the channel initiator's initiation queue: trigger messages naming a channel, and commands
INITQ = "SYSTEM.CHANNEL.INITQ"
#: the Format of mqpy's channel command messages (requests and replies) on :data:`INITQ`
COMMAND_FORMAT = b"MQPYCHCM"
#: the model queue of the command server's temporary reply queue
REPLY_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"


def send(qm: QueueManager, request: dict, timeout: float = 15.0) -> dict | None:
    """Send one channel command; the channel initiator's reply, or None if none answered."""
    od = OD(ObjectName=REPLY_MODEL.encode(), DynamicQName=b"AMQ.CHLCMD.*")
    reply_q = Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    try:
        md = MD(Format=COMMAND_FORMAT, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=od.ObjectName,
                Persistence=CMQC.MQPER_NOT_PERSISTENT, Expiry=int(timeout * 10) + 1)
        qm.put1(INITQ, json.dumps(request).encode(), md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        gmo = GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                  WaitInterval=int(timeout * 1000), MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        try:
            data = reply_q.get(None, MD(CorrelId=md.MsgId), gmo)
        except MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        return json.loads(data)
    finally:
        reply_q.close()
