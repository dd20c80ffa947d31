"""Expiry (an expired message is never returned) and the dead-letter queue (MQDLH + data).

``eng.dead_letter(md, data, reason, dest_q, dest_qm)`` is how the queue manager and its MCAs
dead-letter a message: the DLQ message's MQMD is the original's with Format MQDEAD, and its data
an MQDLH (172 bytes) naming the reason and the destination, then the original data.
"""

from __future__ import annotations

import time

import mqpy
from mqpy import CMQC

from ._support import BROWSE, DLH_LEN, curdepth, drain, get_dlq, get_one, put_to, raises_mq, s


def _put_expiring(qm, qname: str = "Q1", tenths: int = 1, data: bytes = b"soon gone"):
    return put_to(qm, qname, data=data, md=mqpy.MD(Expiry=tenths))


# ------------------------------------------------------------------ expiry

def test_expired_message_is_never_returned_by_get(qm1):
    """Given a message with Expiry 1 (0.1 s) and one without, when 0.15 s pass, then MQGET
    returns only the unexpired one and the expired one is gone from the depth."""
    _put_expiring(qm1.qm)
    put_to(qm1.qm, "Q1", data=b"lasting")
    time.sleep(0.15)
    assert drain(qm1.qm, "Q1") == [b"lasting"]
    assert curdepth(qm1.eng, "Q1") == 0


def test_expired_message_is_never_returned_by_browse(qm1):
    """Given an expired message, when the queue is browsed, then 2033."""
    _put_expiring(qm1.qm)
    time.sleep(0.15)
    q = mqpy.Queue(qm1.qm, "Q1", BROWSE)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    q.close()


def test_expire_scan_removes_expired_messages_without_a_get(qm1):
    """Given two expired messages on two queues and one live one, when expire_scan runs, then
    it reports 2 removed and only the live message is left."""
    qm1.define("QLOCAL", "Q2")
    _put_expiring(qm1.qm, "Q1")
    _put_expiring(qm1.qm, "Q2")
    put_to(qm1.qm, "Q1", data=b"live")
    time.sleep(0.15)
    assert qm1.eng.expire_scan() == 2
    assert curdepth(qm1.eng, "Q1") == 1 and curdepth(qm1.eng, "Q2") == 0
    assert qm1.eng.expire_scan() == 0


def test_unexpired_message_returns_the_remaining_expiry(qm1):
    """Given Expiry 600 (60 s), when the message is got at once, then it is returned with an
    Expiry that has not grown and is still positive."""
    put_to(qm1.qm, "Q1", md=mqpy.MD(Expiry=600))
    md, data = get_one(qm1.qm, "Q1")
    assert data == b"payload" and 0 < md.Expiry <= 600


def test_expiry_applies_on_the_transmission_queue_too(qm1):
    """Given an expiring message for a remote queue, when it expires on the xmitq, then the
    scan removes it from there."""
    qm1.xmitq("QMB")
    put_to(qm1.qm, "QX", "QMB", md=mqpy.MD(Expiry=1))
    time.sleep(0.15)
    assert qm1.eng.expire_scan() == 1
    assert curdepth(qm1.eng, "QMB") == 0


def test_invalid_expiry_fails_2013(qm1):
    """Expiry 0 or a negative value other than MQEI_UNLIMITED is MQRC_EXPIRY_ERROR."""
    for bad in (0, -5):
        with raises_mq(CMQC.MQRC_EXPIRY_ERROR):
            put_to(qm1.qm, "Q1", md=mqpy.MD(Expiry=bad))


# ------------------------------------------------------------------ dead-letter queue

def test_dead_letter_puts_an_mqdlh_and_the_data_on_deadq(qm1):
    """Given DEADQ(DLQ), when the queue manager dead-letters a message for NOSUCH@QMX with
    reason 2085, then DLQ holds MQDLH (172 bytes: 'DLH ', v1, reason, destination, the original
    Encoding/CCSID/Format, a put application) then the data; its MQMD is Format MQDEAD and
    keeps the original MsgId and persistence."""
    md = mqpy.MD(Format=CMQC.MQFMT_STRING, MsgId=b"ORIGINAL".ljust(24, b"\x00"),
                 Persistence=CMQC.MQPER_PERSISTENT, CodedCharSetId=819,
                 Encoding=CMQC.MQENC_NATIVE)
    assert qm1.eng.dead_letter(md, b"undeliverable", CMQC.MQRC_UNKNOWN_OBJECT_NAME,
                               "NOSUCH", "QMX") is True
    dmd, raw = get_one(qm1.qm, "DLQ")
    assert dmd.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    assert dmd.MsgId == md.MsgId
    assert dmd.Persistence == CMQC.MQPER_PERSISTENT
    assert len(raw) == DLH_LEN + len(b"undeliverable")
    dlh = mqpy.DLH().unpack(raw[:DLH_LEN])
    assert dlh.StrucId == b"DLH " and dlh.Version == CMQC.MQDLH_VERSION_1
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert (s(dlh.DestQName), s(dlh.DestQMgrName)) == ("NOSUCH", "QMX")
    assert dlh.Format == CMQC.MQFMT_STRING
    assert dlh.CodedCharSetId == 819 and dlh.Encoding == CMQC.MQENC_NATIVE
    assert s(dlh.PutApplName)
    assert len(s(dlh.PutDate)) == 8 and len(s(dlh.PutTime)) >= 6
    assert raw[DLH_LEN:] == b"undeliverable"


def test_dead_letter_without_deadq_returns_false(make_qmgr):
    """Given no DEADQ, when a message is dead-lettered, then dead_letter returns False and
    nothing is queued anywhere."""
    qm = make_qmgr("NODLQ")
    assert qm.eng.dead_letter(mqpy.MD(), b"x", CMQC.MQRC_Q_FULL, "Q", "NODLQ") is False


def test_dead_letter_to_a_missing_deadq_returns_false(qm1):
    """Given DEADQ naming a queue that does not exist, then dead_letter returns False (the
    caller keeps the message) rather than raising."""
    qm1.eng.alter_qmgr({"DEADQ": "GONE"})
    assert qm1.eng.dead_letter(mqpy.MD(), b"x", CMQC.MQRC_Q_FULL, "Q", "QM1") is False


def test_dead_letter_to_a_full_deadq_returns_false(qm1):
    """Given a DLQ at MAXDEPTH, then dead_letter returns False and the DLQ is unchanged."""
    qm1.eng.alter("QLOCAL", "DLQ", {"MAXDEPTH": 1})
    assert qm1.eng.dead_letter(mqpy.MD(), b"1", CMQC.MQRC_Q_FULL, "Q", "QM1") is True
    assert qm1.eng.dead_letter(mqpy.MD(), b"2", CMQC.MQRC_Q_FULL, "Q", "QM1") is False
    assert curdepth(qm1.eng, "DLQ") == 1


def test_dead_lettered_message_keeps_its_original_format_in_the_header(qm1):
    """Given an xmitq message (Format MQXMIT) dead-lettered, then the MQDLH records MQXMIT as
    the format of what follows it."""
    md = mqpy.MD(Format=CMQC.MQFMT_XMIT_Q_HEADER)
    qm1.eng.dead_letter(md, b"XQH ...", CMQC.MQRC_Q_FULL, "Q", "QMB")
    _dmd, dlh, body = get_dlq(qm1.qm, "DLQ")
    assert dlh.Format == CMQC.MQFMT_XMIT_Q_HEADER and body == b"XQH ..."
