"""Report messages the queue manager makes: COA at arrival, COD at delivery, expiration.

A report goes to ReplyToQ at ReplyToQMgr through name resolution, is MsgType MQMT_REPORT with
the kind's feedback, carries none / the first 100 bytes / all of the data as asked, and by
default has a new MsgId and the original MsgId as CorrelId.
"""

from __future__ import annotations

import time

import pytest

import mqpy
from mqpy import CMQC

from ._support import IN, drain, get_dlq, get_one, get_xmit, put_to, s

DATA = bytes(range(256)) * 2  # 512 bytes, so "with data" visibly cuts at 100


def _send(qm1, report: int, *, data: bytes = DATA, reply_q: str = "RQ", reply_qm: str = "",
          **md_fields) -> mqpy.MD:
    md = mqpy.MD(Report=report, ReplyToQ=reply_q.encode(), ReplyToQMgr=reply_qm.encode(),
                 Format=CMQC.MQFMT_STRING, **md_fields)
    return put_to(qm1.qm, "Q1", data=data, md=md)


@pytest.fixture
def rq(qm1):
    qm1.define("QLOCAL", "RQ")
    return qm1


# ------------------------------------------------------------------ COA

def test_coa_report_arrives_when_the_message_is_put(rq):
    """Given MQRO_COA and ReplyToQ RQ, when the message is put on Q1, then RQ holds a report:
    MsgType REPORT, Feedback MQFB_COA, a new MsgId, CorrelId = the original MsgId, no data."""
    sent = _send(rq, CMQC.MQRO_COA)
    md, data = get_one(rq.qm, "RQ")
    assert md.MsgType == CMQC.MQMT_REPORT
    assert md.Feedback == CMQC.MQFB_COA
    assert md.CorrelId == sent.MsgId
    assert md.MsgId != sent.MsgId and md.MsgId.strip(b"\x00")
    assert data == b""
    assert s(md.ReplyToQMgr) == "QM1"
    assert drain(rq.qm, "Q1") == [DATA]  # the original is untouched


@pytest.mark.parametrize(("option", "expected"), [
    (CMQC.MQRO_COA, b""),
    (CMQC.MQRO_COA_WITH_DATA, DATA[:100]),
    (CMQC.MQRO_COA_WITH_FULL_DATA, DATA),
])
def test_coa_report_data(rq, option, expected):
    """COA plain carries no data, _WITH_DATA the first 100 bytes, _WITH_FULL_DATA all of it;
    a report with data keeps the original Format."""
    _send(rq, option)
    md, data = get_one(rq.qm, "RQ")
    assert data == expected
    if expected:
        assert md.Format == CMQC.MQFMT_STRING


def test_report_keeps_persistence_and_priority_of_the_original(rq):
    """Given a persistent priority-6 message asking COA, then the report is persistent, 6."""
    _send(rq, CMQC.MQRO_COA, Persistence=CMQC.MQPER_PERSISTENT, Priority=6)
    md, _ = get_one(rq.qm, "RQ")
    assert (md.Persistence, md.Priority) == (CMQC.MQPER_PERSISTENT, 6)


def test_pass_msg_id_and_pass_correl_id(rq):
    """Given MQRO_PASS_MSG_ID | MQRO_PASS_CORREL_ID, then the report's MsgId is the original
    MsgId and its CorrelId the original CorrelId."""
    sent = _send(rq, CMQC.MQRO_COA | CMQC.MQRO_PASS_MSG_ID | CMQC.MQRO_PASS_CORREL_ID,
                 MsgId=b"M" * 24, CorrelId=b"C" * 24)
    md, _ = get_one(rq.qm, "RQ")
    assert md.MsgId == sent.MsgId == b"M" * 24
    assert md.CorrelId == b"C" * 24


def test_pass_msg_id_alone_copies_msg_id_to_correl_id(rq):
    """Given MQRO_PASS_MSG_ID without PASS_CORREL_ID, then MsgId is passed and CorrelId is the
    original MsgId (MQRO_COPY_MSG_ID_TO_CORREL_ID, the default)."""
    _send(rq, CMQC.MQRO_COA | CMQC.MQRO_PASS_MSG_ID, MsgId=b"M" * 24, CorrelId=b"C" * 24)
    md, _ = get_one(rq.qm, "RQ")
    assert md.MsgId == b"M" * 24 and md.CorrelId == b"M" * 24


def test_no_coa_for_a_message_put_on_a_transmission_queue(rq):
    """Given a put for a remote queue asking COA, then no COA is made here: the message has not
    arrived at its destination, only at the xmitq."""
    rq.xmitq("QMB")
    put_to(rq.qm, "QX", "QMB", md=mqpy.MD(Report=CMQC.MQRO_COA, ReplyToQ=b"RQ"))
    assert drain(rq.qm, "RQ") == []
    _outer, xqh, _ = get_xmit(rq.qm, "QMB")
    assert xqh.MsgDesc.Report & CMQC.MQRO_COA


# ------------------------------------------------------------------ COD

def test_cod_report_when_the_message_is_got(rq):
    """Given MQRO_COD, then nothing is sent at put; when the message is got (no syncpoint)
    RQ receives Feedback MQFB_COD, CorrelId = the original MsgId."""
    sent = _send(rq, CMQC.MQRO_COD)
    assert drain(rq.qm, "RQ") == []
    get_one(rq.qm, "Q1")
    md, data = get_one(rq.qm, "RQ")
    assert (md.MsgType, md.Feedback) == (CMQC.MQMT_REPORT, CMQC.MQFB_COD)
    assert md.CorrelId == sent.MsgId and data == b""


def test_cod_report_when_the_getter_wants_no_mqmd_back(rq):
    """Given MQRO_COD, when the message is got with pymqi's ``q.get()`` (no MQMD passed, so
    none is filled in), then the COD report is still sent, from the message's own MQMD."""
    sent = _send(rq, CMQC.MQRO_COD_WITH_DATA)
    assert mqpy.Queue(rq.qm, "Q1", IN).get() == DATA
    md, data = get_one(rq.qm, "RQ")
    assert (md.Feedback, md.CorrelId, data) == (CMQC.MQFB_COD, sent.MsgId, DATA[:100])


@pytest.mark.parametrize(("option", "expected"), [
    (CMQC.MQRO_COD_WITH_DATA, DATA[:100]),
    (CMQC.MQRO_COD_WITH_FULL_DATA, DATA),
])
def test_cod_report_data(rq, option, expected):
    """COD _WITH_DATA carries the first 100 bytes, _WITH_FULL_DATA all of the message."""
    _send(rq, option)
    get_one(rq.qm, "Q1")
    _md, data = get_one(rq.qm, "RQ")
    assert data == expected


def test_cod_under_syncpoint_waits_for_commit(rq):
    """Given MQRO_COD, when the message is got under syncpoint, then no report until commit;
    a backed-out get sends none, the committed get sends one."""
    _send(rq, CMQC.MQRO_COD)
    q = mqpy.Queue(rq.qm, "Q1", IN)
    q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    assert drain(rq.qm, "RQ") == []
    rq.qm.backout()
    assert drain(rq.qm, "RQ") == []
    q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    rq.qm.commit()
    q.close()
    md, _ = get_one(rq.qm, "RQ")
    assert md.Feedback == CMQC.MQFB_COD


def test_browse_sends_no_cod(rq):
    """Given MQRO_COD, when the message is only browsed, then no report."""
    _send(rq, CMQC.MQRO_COD)
    q = mqpy.Queue(rq.qm, "Q1", CMQC.MQOO_BROWSE)
    q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    q.close()
    assert drain(rq.qm, "RQ") == []


# ------------------------------------------------------------------ routing of reports

def test_report_for_a_remote_reply_queue_goes_on_the_xmitq(qm1):
    """Given ReplyToQ RQ at ReplyToQMgr QMR and an xmitq QMR, when COA is due, then the report
    is on xmitq QMR behind an MQXQH RQ@QMR whose MQMD is MsgType REPORT, Feedback COA."""
    qm1.xmitq("QMR")
    sent = _send(qm1, CMQC.MQRO_COA, reply_qm="QMR")
    _outer, xqh, body = get_xmit(qm1.qm, "QMR")
    assert (s(xqh.RemoteQName), s(xqh.RemoteQMgrName)) == ("RQ", "QMR")
    assert xqh.MsgDesc.MsgType == CMQC.MQMT_REPORT
    assert xqh.MsgDesc.Feedback == CMQC.MQFB_COA
    assert xqh.MsgDesc.CorrelId == sent.MsgId
    assert body == b""


def test_report_through_a_reply_alias_reaches_its_target(qm1):
    """Given reply alias QREMOTE(RA) RNAME(RQ) RQMNAME(QMR) and xmitq QMR, when COA is due for a
    message whose ReplyToQ was RA, then the report goes on QMR for RQ@QMR."""
    qm1.xmitq("QMR")
    qm1.define("QREMOTE", "RA", RNAME="RQ", RQMNAME="QMR")
    _send(qm1, CMQC.MQRO_COA, reply_q="RA")
    _outer, xqh, _ = get_xmit(qm1.qm, "QMR")
    assert (s(xqh.RemoteQName), s(xqh.RemoteQMgrName)) == ("RQ", "QMR")


def test_report_for_an_undeliverable_reply_queue_goes_to_the_dlq(qm1):
    """Given ReplyToQ NO.SUCH.Q (not defined), when COA is due, then the report is put on the
    DLQ behind an MQDLH naming NO.SUCH.Q@QM1 with reason 2085; the original put succeeds."""
    _send(qm1, CMQC.MQRO_COA, reply_q="NO.SUCH.Q")
    md, dlh, body = get_dlq(qm1.qm, "DLQ")
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert (s(dlh.DestQName), s(dlh.DestQMgrName)) == ("NO.SUCH.Q", "QM1")
    assert md.MsgType == CMQC.MQMT_REPORT and md.Feedback == CMQC.MQFB_COA
    assert body == b""
    assert drain(qm1.qm, "Q1") == [DATA]


def test_report_for_a_put_inhibited_reply_queue_goes_to_the_dlq(rq):
    """Given RQ is PUT(DISABLED), when COA is due, then the report is dead-lettered with 2051."""
    rq.eng.alter("QLOCAL", "RQ", {"PUT": "DISABLED"})
    _send(rq, CMQC.MQRO_COA)
    _md, dlh, _ = get_dlq(rq.qm, "DLQ")
    assert dlh.Reason == CMQC.MQRC_PUT_INHIBITED
    assert s(dlh.DestQName) == "RQ"


# ------------------------------------------------------------------ expiration reports

def _expired_send(rq, report: int, data: bytes = DATA) -> mqpy.MD:
    sent = _send(rq, report, data=data, Expiry=1)  # a tenth of a second
    time.sleep(0.15)
    return sent


def test_expiration_report_by_the_expiry_scan(rq):
    """Given an expired message asking MQRO_EXPIRATION, when expire_scan runs, then it removes
    the message and RQ gets Feedback MQFB_EXPIRATION, CorrelId = original MsgId, no data."""
    sent = _expired_send(rq, CMQC.MQRO_EXPIRATION)
    assert rq.eng.expire_scan() == 1
    md, data = get_one(rq.qm, "RQ")
    assert (md.MsgType, md.Feedback) == (CMQC.MQMT_REPORT, CMQC.MQFB_EXPIRATION)
    assert md.CorrelId == sent.MsgId and data == b""
    assert drain(rq.qm, "Q1") == []


@pytest.mark.parametrize(("option", "expected"), [
    (CMQC.MQRO_EXPIRATION_WITH_DATA, DATA[:100]),
    (CMQC.MQRO_EXPIRATION_WITH_FULL_DATA, DATA),
])
def test_expiration_report_data(rq, option, expected):
    """EXPIRATION _WITH_DATA carries the first 100 bytes, _WITH_FULL_DATA all of it."""
    _expired_send(rq, option)
    rq.eng.expire_scan()
    _md, data = get_one(rq.qm, "RQ")
    assert data == expected


def test_expiration_report_when_a_get_finds_the_message_expired(rq):
    """Given an expired message asking MQRO_EXPIRATION, when an MQGET reaches it, then the get
    gets nothing (2033), the message is removed and the report is sent."""
    _expired_send(rq, CMQC.MQRO_EXPIRATION)
    assert drain(rq.qm, "Q1") == []
    md, _ = get_one(rq.qm, "RQ")
    assert md.Feedback == CMQC.MQFB_EXPIRATION
    assert rq.eng.expire_scan() == 0


def test_no_expiration_report_unless_asked(rq):
    """Given an expired message without MQRO_EXPIRATION, then the scan removes it silently."""
    _expired_send(rq, CMQC.MQRO_NONE)
    assert rq.eng.expire_scan() == 1
    assert drain(rq.qm, "RQ") == []
