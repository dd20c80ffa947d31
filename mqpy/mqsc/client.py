"""The client side of MQSC through a command server (what runmqsc does, and what the channel
initiator does to read and change its queue manager's definitions): each command goes as an
MQCMD_ESCAPE PCF message to SYSTEM.ADMIN.COMMAND.QUEUE, and its answers come back on a
temporary dynamic queue made from SYSTEM.MQSC.REPLY.QUEUE."""

from __future__ import annotations

import time

from mqpy import CMQC, CMQCFC, pcf
from mqpy.command import COMMAND_QUEUE
from mqpy.errors import MQMIError
from mqpy.mqi import Queue, QueueManager
from mqpy.mqsc.messages import message
from mqpy.mqsc.parser import MQSCCommand
from mqpy.mqsc.results import Result
from mqpy.structs.fields import StructError
from mqpy.structs.tables import CFH, GMO, MD, OD, PMO

__all__ = ["REPLY_MODEL", "MQSCClient"]

REPLY_MODEL = "SYSTEM.MQSC.REPLY.QUEUE"
#: how long to wait for each answer by default (IBM's runmqsc waits for the command server)
WAIT = 60


class MQSCClient:
    """Sends MQSC commands to a command server and collects its MQCMD_ESCAPE answers."""

    def __init__(self, qm: QueueManager, *, remote_qmgr: str = "", wait: float = WAIT
                 ) -> None:
        self.qm = qm
        self.remote_qmgr = remote_qmgr
        self.wait = wait
        od = OD(ObjectName=REPLY_MODEL.encode(), DynamicQName=b"AMQ.MQSC.*")
        self.reply_queue = Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
        self.reply_name = od.ObjectName

    def close(self) -> None:
        try:
            self.reply_queue.close()
        except MQMIError:
            pass

    def execute(self, cmd: MQSCCommand) -> Result:
        """One command through the command server; AMQ8416E if no answer comes in time."""
        request = pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_ESCAPE), [
            pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
            pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, cmd.text.strip().encode("latin-1", "replace")),
        ])
        md = MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN, ReplyToQ=self.reply_name,
                Persistence=CMQC.MQPER_NOT_PERSISTENT)
        od = OD(ObjectName=COMMAND_QUEUE.encode(), ObjectQMgrName=self.remote_qmgr.encode())
        self.qm.put1(od, pcf.build(request), md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        lines: list[str] = []
        ok = True
        deadline = time.monotonic() + self.wait
        while True:
            left = int((deadline - time.monotonic()) * 1000)
            if left <= 0:
                return Result([*lines, message("AMQ8416E")], False)
            reply_md = MD(CorrelId=md.MsgId)
            gmo = GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=left,
                      MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
            try:
                data = self.reply_queue.get(None, reply_md, gmo)
            except MQMIError as err:
                if err.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return Result([*lines, message("AMQ8416E")], False)
                raise
            try:
                reply = pcf.parse(data, reply_md.Encoding)
            except StructError:
                return Result([*lines, message("AMQ8101S", f"{CMQCFC.MQRCCF_COMMAND_FAILED:X}")],
                              False)
            text = reply.get(CMQCFC.MQCACF_ESCAPE_TEXT)
            if text:
                lines.extend(text.decode("latin-1").rstrip("\x00").split("\n"))
            elif reply.header.CompCode != CMQC.MQCC_OK:
                lines.append(message("AMQ8101S", f"{reply.header.Reason:X}"))
            if reply.header.CompCode != CMQC.MQCC_OK:
                ok = False
            if reply.header.Control == CMQCFC.MQCFC_LAST:
                return Result(lines, ok)
