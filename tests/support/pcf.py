"""A PCF administration client, as an operator's tool is: requests put to the command queue,
replies got from a dynamic queue of its own; and one request handed straight to a command
server (``_ask``), for its (CompCode, Reason)."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, CMQCFC, pcf
from mqpy.structs.tables import CFH, GMO, MD, OD


class Admin:
    """A PCF admin client: requests to the command queue, replies on a dynamic queue."""

    def __init__(self, qm):
        self.qm = qm
        od = OD(ObjectName=b"SYSTEM.COMMAND.REPLY.MODEL", DynamicQName=b"TEST.PCF.*")
        self.replies = mqpy.Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
        self.reply_q = od.ObjectName

    def send(self, data: bytes, *, fmt=CMQC.MQFMT_ADMIN, report=0, correl=b""):
        md = MD(MsgType=CMQC.MQMT_REQUEST, Format=fmt, ReplyToQ=self.reply_q,
                Report=report, CorrelId=correl)
        self.qm.put1("SYSTEM.ADMIN.COMMAND.QUEUE", data, md)
        return md

    def collect(self, request_md, *, match=None):
        out = []
        while True:
            md = MD(CorrelId=match if match is not None else request_md.MsgId)
            gmo = GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10000,
                      MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
            data = self.replies.get(None, md, gmo)
            assert md.MsgType == CMQC.MQMT_REPLY
            assert md.Format == CMQC.MQFMT_ADMIN
            msg = pcf.parse(data)
            out.append(msg)
            if msg.header.Control == CMQCFC.MQCFC_LAST:
                return out

    def command(self, command: int, params):
        md = self.send(pcf.build(pcf.PCFMessage(CFH(Command=command), params)))
        return self.collect(md)


def _ask(server, command: int, params: list) -> tuple[int, int]:
    """The (CompCode, Reason) of the last reply to one request."""
    data = pcf.build(pcf.PCFMessage(CFH(Command=command), params))
    replies = server.handle(MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN), data)
    server.qm.backout()
    last = pcf.parse(replies[-1][1]).header
    return last.CompCode, last.Reason
