"""The web server as an MQI application: a connection to a queue manager of the
installation made with the caller's identity, and PCF requests to its command server with
the replies read from a dynamic queue of the connection's own. Blocking calls: the web
server runs them in worker threads."""

from __future__ import annotations

import contextlib

import mqpy
from mqpy import CMQC, CMQCFC, config, pcf
from mqpy.structs.tables import CFH, GMO, MD, OD, PMO
from mqpy_cli.web.errors import RestError, from_reason

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
REPLY_MODEL = "SYSTEM.DEFAULT.MODEL.QUEUE"
#: how long a command server has to answer (ms)
REPLY_WAIT = 15000


def connect(qmgr: str, data_path: str, user: str | None = None,
            password: str | None = None) -> mqpy.QueueManager:
    """MQCONN (bindings) to ``qmgr`` as ``user`` (an MQCSP), or as the server's own user;
    RestError 404 (MQWB0009E) when the queue manager is not there or not running, 403
    when the user is refused. A name that is not one of the installation's queue managers
    is 404 with reason 2058 before anything is tried."""
    if qmgr not in config.list_qmgrs(data_path):
        raise RestError(404, "MQWB0009E", qmgr, reason=CMQC.MQRC_Q_MGR_NAME_ERROR)
    qm = mqpy.QueueManager(None)
    try:
        qm.connect(qmgr, data_path=data_path, user=user, password=password)
    except mqpy.MQMIError as e:
        if e.reason == CMQC.MQRC_NOT_AUTHORIZED:
            raise RestError(403, "MQWB0103E", reason=e.reason) from None
        raise RestError(404 if e.reason != CMQC.MQRC_Q_MGR_NOT_AVAILABLE else 503,
                        "MQWB0009E", qmgr, reason=e.reason) from None
    return qm


class CommandServer:
    """PCF requests put to the command queue; every reply (failures too) read back from the
    connection's own reply queue, read ahead (a late reply to an earlier request is passed
    over by its CorrelId)."""

    def __init__(self, qm: mqpy.QueueManager, wait: int = REPLY_WAIT) -> None:
        self.qm = qm
        self.wait = wait  #: ms a reply may take
        od = OD(ObjectName=REPLY_MODEL.encode(), DynamicQName=b"MQWEB.*")
        try:
            self.replies = mqpy.Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE
                                      | CMQC.MQOO_READ_AHEAD)
        except mqpy.MQMIError as e:
            raise from_reason(e.reason, REPLY_MODEL) from None
        self.reply_q = od.ObjectName

    def ask(self, command: int, params: list) -> list[pcf.PCFMessage]:
        """Every response to one request, in order (the last has MQCFC_LAST)."""
        md = MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN, ReplyToQ=self.reply_q,
                Persistence=CMQC.MQPER_NOT_PERSISTENT,
                Report=CMQC.MQRO_PASS_DISCARD_AND_EXPIRY | CMQC.MQRO_DISCARD_MSG,
                Expiry=self.wait // 100)
        data = pcf.build(pcf.PCFMessage(CFH(Command=command), params))
        try:
            self.qm.put1(COMMAND_QUEUE, data, md, PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
            out = []
            while True:
                gmo = GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
                          | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=self.wait,
                          MatchOptions=CMQC.MQMO_NONE, Version=CMQC.MQGMO_VERSION_2)
                got = MD()
                reply = self.replies.get(None, got, gmo)
                if got.CorrelId != md.MsgId:
                    continue  # a late reply to an earlier request that gave up waiting
                msg = pcf.parse(reply)
                out.append(msg)
                if msg.header.Control == CMQCFC.MQCFC_LAST:
                    return out
        except mqpy.MQMIError as e:
            raise from_reason(e.reason, COMMAND_QUEUE) from None

    def run(self, command: int, params: list, name: str = "") -> list[pcf.PCFMessage]:
        """The responses of a request that worked; RestError for the first that failed."""
        responses = self.ask(command, params)
        for msg in responses:
            if msg.header.CompCode == CMQC.MQCC_FAILED:
                raise from_reason(msg.header.Reason, name)
        return responses

    def close(self) -> None:
        with contextlib.suppress(mqpy.MQMIError):
            self.replies.close(CMQC.MQCO_DELETE_PURGE)


def mqsc(server: CommandServer, text: str) -> list[tuple[int, int, list[str]]]:
    """MQSC text run by the command server (MQCMD_ESCAPE): (CompCode, Reason, lines) per
    AMQ message of runmqsc's answer."""
    responses = server.ask(CMQCFC.MQCMD_ESCAPE, [
        pcf.CFIN(CMQCFC.MQIACF_ESCAPE_TYPE, CMQCFC.MQET_MQSC),
        pcf.CFST(CMQCFC.MQCACF_ESCAPE_TEXT, text.encode("latin-1", "replace"))])
    out = []
    for msg in responses:
        block = msg.get(CMQCFC.MQCACF_ESCAPE_TEXT, b"")
        text_out = block.decode("latin-1") if isinstance(block, bytes) else str(block)
        out.append((msg.header.CompCode, msg.header.Reason,
                    [line for line in text_out.split("\n") if line.strip()]))
    return out


def quoted(value: object) -> str:
    """A value as MQSC text: quoted, quotes doubled, so that nothing a caller sends can end
    the value and start another keyword or command."""
    return "'" + str(value).replace("'", "''") + "'"
