"""PCF and MQSC escape requests to the command server, put through one engine connection of
the requesting user (so the MQMD UserIdentifier is the one the queue manager fills in)."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, pcf
from mqpy.cmdserver import COMMAND_QUEUE
from mqpy.structs.tables import CFH, GMO, MD, OD, PMO

REPLY = "CAROL.REPLY"


class Requester:
    """PCF requests put by one engine connection; replies read from REPLY."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.replies = conn.open(OD(ObjectName=REPLY.encode()), CMQC.MQOO_INPUT_SHARED)

    def send(self, command: int, params, pmo: PMO | None = None, md: MD | None = None):
        md = md or MD()
        md.MsgType, md.Format, md.ReplyToQ = (CMQC.MQMT_REQUEST, CMQC.MQFMT_ADMIN,
                                              REPLY.encode())
        data = pcf.build(pcf.PCFMessage(CFH(Command=command), params))
        self.conn.put1(OD(ObjectName=COMMAND_QUEUE.encode()), md, pmo or PMO(), data)
        return md

    def command(self, command: int, params) -> list[pcf.PCFMessage]:
        request = self.send(command, params)
        out = []
        while True:
            md = MD(CorrelId=request.MsgId)
            gmo = GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=20000,
                      MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
            msg = pcf.parse(self.conn.get(self.replies, md, gmo, None))
            out.append(msg)
            if msg.header.Control == CMQCFC.MQCFC_LAST:
                return out

    def mqsc(self, text: str) -> list[pcf.PCFMessage]:
        return self.command(CMQCFC.MQCMD_ESCAPE, [
            pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
            pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, text.encode())])

    def mqsc_text(self, text: str) -> str:
        """An escape request's answer: every block's text, one per line."""
        return "\n".join(m.get(CMQCFC.MQCACF_ESCAPE_TEXT).decode() for m in self.mqsc(text))


def reason(replies: list[pcf.PCFMessage]) -> int:
    return replies[-1].header.Reason


def q_name(name: str) -> pcf.Parameter:
    return pcf.CFST(CMQC.MQCA_Q_NAME, name.encode())
