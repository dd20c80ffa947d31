"""The web server's questions to a command server: the replies come back on the
connection's own reply queue, read ahead (many replies a round trip to the queue manager,
not one each), and a late reply to an earlier question that gave up is passed over."""

from __future__ import annotations

from mqpy import CMQC, CMQCFC, pcf
from mqpy.structs.tables import CFH, MD, PMO
from mqpy_cli.web.mqconn import CommandServer
from tests.support.web import QM


def _connect(web):  # noqa: ANN001, ANN202
    from mqpy_cli.web.mqconn import connect

    return connect(QM, web.root)


def test_a_late_reply_to_an_earlier_request_is_passed_over(web):
    """Given a reply to another request waiting on the reply queue (its CorrelId is not
    this request's MsgId), when a command is asked, then the answer is this command's only
    and the stray reply is consumed, not returned."""
    web.site.mqsc("DEFINE QLOCAL(APP.REPLIES.ONE)\n")
    qm = _connect(web)
    try:
        server = CommandServer(qm)
        stray = pcf.build(pcf.PCFMessage(CFH(Type=CMQCFC.MQCFT_RESPONSE,
                                             Command=CMQCFC.MQCMD_INQUIRE_Q_MGR), []))
        qm.put1(server.reply_q, stray, MD(CorrelId=b"earlier".ljust(24, b"\0"),
                                          Format=CMQC.MQFMT_ADMIN),
                PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        answers = server.run(CMQCFC.MQCMD_INQUIRE_Q,
                             [pcf.CFST(CMQC.MQCA_Q_NAME, b"APP.REPLIES.ONE")])
        assert [m.header.Command for m in answers] == [CMQCFC.MQCMD_INQUIRE_Q]
        assert answers[0].get(CMQC.MQCA_Q_NAME).rstrip() == b"APP.REPLIES.ONE"
        server.close()
    finally:
        qm.disconnect()


def test_many_replies_take_few_round_trips(web, monkeypatch):
    """Given 200 queues, when their status is asked (200 replies), then the replies are
    read ahead: fewer than 50 exchanges with the queue manager, not one MQGET each."""
    web.site.mqsc("".join(f"DEFINE QLOCAL(APP.REPLIES.{i:03d})\n" for i in range(200)))
    qm = _connect(web)
    try:
        server = CommandServer(qm)
        conn = qm._conn
        exchanges = []
        real = type(conn)._exchange

        def counted(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
            exchanges.append(1)
            return real(self, *args, **kwargs)

        monkeypatch.setattr(type(conn), "_exchange", counted)
        answers = server.run(CMQCFC.MQCMD_INQUIRE_Q_STATUS,
                             [pcf.CFST(CMQC.MQCA_Q_NAME, b"APP.REPLIES.*")])
        monkeypatch.undo()
        assert len(answers) >= 200
        assert len(exchanges) < 50, len(exchanges)
        server.close()
    finally:
        qm.disconnect()
