"""Resolution for messages arriving over a channel, and reply-to queue aliases.

Arrivals (rule 6): a receiving MCA resolves the header's (queue, queue manager) like an open
that names both, except that remote-queue definitions are never used; queue-manager aliases and
transmission queues are. Tested at the level the MCA uses,
``resolution.resolve(catalog, qmgr, q, qm, arrival=True)``.

Reply-to aliases (rule 4) act at MQPUT time, and only when ReplyToQMgr is blank.
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.engine import resolution

from ._support import drain, get_one, get_xmit, put_to, raises_mq, s


def arrive(q, qname: str, qmname: str) -> resolution.Resolved:
    """What a receiving MCA at ``q`` gets for a header naming ``qname``@``qmname``."""
    eng = q.eng
    with eng.lock:
        return resolution.resolve(eng.catalog, eng.name, qname, qmname, arrival=True)


def where(res: resolution.Resolved) -> tuple[str, str | None, str | None]:
    return res.target.name, res.remote_q, res.remote_qm


# ------------------------------------------------------------------ arrivals

def test_arrival_for_the_local_queue_manager_is_the_local_queue(qmb):
    """Given local QA_norm at QMB, when QA_norm@QMB arrives, then it goes to QA_norm."""
    qmb.define("QLOCAL", "QA_norm")
    res = arrive(qmb, "QA_norm", "QMB")
    assert where(res) == ("QA_norm", None, None) and not res.remote


def test_arrival_through_an_alias_for_this_queue_manager_is_local(qmb):
    """Given QMB holds QREMOTE(QMB_priority) RQMNAME(QMB), when a channel delivers
    QA_norm@QMB_priority, then it lands on the local QA_norm. spec: dqm-intercommunication 9.7;
    aliases-channels-storage 4.5"""
    qmb.define("QLOCAL", "QA_norm")
    qmb.define("QREMOTE", "QMB_priority", RNAME="", RQMNAME="QMB")
    assert where(arrive(qmb, "QA_norm", "QMB_priority")) == ("QA_norm", None, None)


def test_arrival_through_an_old_name_alias_is_local(make_qmgr):
    """Given the receiving QM has alias OLDNAME -> its own name, when Q@OLDNAME arrives, then
    it is delivered locally. spec: aliases-channels-storage 4.5"""
    qm = make_qmgr("NEWNAME")
    qm.define("QLOCAL", "Q")
    qm.define("QREMOTE", "OLDNAME", RNAME="", RQMNAME="NEWNAME")
    assert where(arrive(qm, "Q", "OLDNAME")) == ("Q", None, None)


def test_arrival_for_another_queue_manager_passes_through_its_xmitq(qmb):
    """Given QMB has xmitq QMC, when QB@QMC arrives, then it is put unchanged on xmitq QMC.
    spec: dqm-intercommunication 9.8"""
    qmb.xmitq("QMC")
    assert where(arrive(qmb, "QB", "QMC")) == ("QMC", "QB", "QMC")


def test_arrival_through_a_rerouting_alias_rewrites_the_header(qmb):
    """Given alias QMD_norm -> RQMNAME(QMD) XMITQ(TX1), when QB@QMD_norm arrives, then it goes
    on TX1 with header QB@QMD. spec: dqm-intercommunication 9.9; aliases-channels-storage 4.6"""
    qmb.xmitq("TX1")
    qmb.define("QREMOTE", "QMD_norm", RNAME="", RQMNAME="QMD", XMITQ="TX1")
    assert where(arrive(qmb, "QB", "QMD_norm")) == ("TX1", "QB", "QMD")


def test_arrival_forwarded_by_an_alias_to_another_queue_manager(qmb):
    """Given receiving-side alias X -> QMC and xmitq QMC, when Q@X arrives, then it is
    forwarded on QMC with header Q@QMC. spec: aliases-channels-storage 4.6"""
    qmb.xmitq("QMC")
    qmb.define("QREMOTE", "X", RNAME="", RQMNAME="QMC")
    assert where(arrive(qmb, "Q", "X")) == ("QMC", "Q", "QMC")


def test_arrival_through_an_xmitq_choosing_alias_keeps_the_header(qmb):
    """Given alias QMD_PRIORITY -> XMITQ(QMD_fast) (RQMNAME unchanged), when Q@QMD_PRIORITY
    arrives, then it goes on QMD_fast with the header unchanged. spec:
    dqm-intercommunication 9.10"""
    qmb.xmitq("QMD_fast")
    qmb.define("QREMOTE", "QMD_PRIORITY", RNAME="", RQMNAME="QMD_PRIORITY", XMITQ="QMD_fast")
    assert where(arrive(qmb, "Q", "QMD_PRIORITY")) == ("QMD_fast", "Q", "QMD_PRIORITY")


def test_arrival_ignores_remote_queue_definitions(qmb):
    """Given QREMOTE(QA_norm) RQMNAME(QMC) and xmitq QMC at QMB, when QA_norm@QMB arrives, then
    the remote definition is not used: no queue QA_norm here (2085), nothing to QMC. spec:
    dqm-intercommunication 1 rule 6"""
    qmb.xmitq("QMC")
    qmb.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMC")
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        arrive(qmb, "QA_norm", "QMB")
    # the same name opened by a local application does use it
    eng = qmb.eng
    with eng.lock:
        assert where(resolution.resolve(eng.catalog, "QMB", "QA_norm")) == \
            ("QMC", "QA_norm", "QMC")


def test_arrival_through_an_alias_queue_to_a_local_queue(qmb):
    """Given QALIAS(AQ) TARGET(LQ) at QMB, when AQ@QMB arrives, then it goes to LQ."""
    qmb.define("QLOCAL", "LQ")
    qmb.define("QALIAS", "AQ", TARGET="LQ")
    assert where(arrive(qmb, "AQ", "QMB")) == ("LQ", None, None)


def test_arrival_for_an_unknown_queue_manager_without_route_fails_2087(qm1):
    """Given an intermediate QM with no xmitq, alias or DEFXMITQ for QMX, when a message for
    QMX arrives, then resolution fails with 2087, and the MCA's dead-letter put records that
    reason and the destination. spec: dqm-intercommunication 9.16; dqm-intercommunication 1 rule 7"""
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR) as info:
        arrive(qm1, "Q", "QMX")
    md = mqpy.MD(Format=CMQC.MQFMT_STRING)
    assert qm1.eng.dead_letter(md, b"lost", info.value.reason, "Q", "QMX") is True
    _dmd, raw = get_one(qm1.qm, "DLQ")
    dlh = mqpy.DLH().unpack(raw[:CMQC.MQDLH_LENGTH_1])
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    assert (s(dlh.DestQName), s(dlh.DestQMgrName)) == ("Q", "QMX")


def test_arrival_through_a_self_referencing_alias_does_not_loop(qmb):
    """Given QREMOTE(X) RNAME() RQMNAME(X) and no route to X, when Q@X arrives, then 2087 at
    once. spec: aliases-channels-storage 4.7"""
    qmb.define("QREMOTE", "X", RNAME="", RQMNAME="X")
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
        arrive(qmb, "Q", "X")


def test_arrival_name_longer_than_48_fails_2152(qmb):
    """A header queue name of 49 characters is refused with MQRC_OBJECT_NAME_ERROR."""
    with raises_mq(CMQC.MQRC_OBJECT_NAME_ERROR):
        arrive(qmb, "Q" * 49, "QMB")


# ------------------------------------------------------------------ reply-to queue aliases

def _put_with_reply(q, reply_q: str, reply_qm: str = "") -> mqpy.MD:
    md = mqpy.MD(ReplyToQ=reply_q.encode(), ReplyToQMgr=reply_qm.encode())
    put_to(q.qm, "Q1", md=md)
    got, _ = get_one(q.qm, "Q1")
    return got


def test_reply_to_alias_is_applied_at_put_time(qm1):
    """Given QREMOTE(Answer_alias) RNAME(Answer) RQMNAME(QM1_relief), when a put has
    ReplyToQ=Answer_alias and a blank ReplyToQMgr, then the stored MD holds Answer/QM1_relief.
    spec: dqm-intercommunication 9.12"""
    qm1.define("QREMOTE", "Answer_alias", RNAME="Answer", RQMNAME="QM1_relief")
    got = _put_with_reply(qm1, "Answer_alias")
    assert (s(got.ReplyToQ), s(got.ReplyToQMgr)) == ("Answer", "QM1_relief")


def test_without_reply_alias_the_local_queue_manager_name_is_filled_in(qm1):
    """Given no definition named REPLY.Q and a blank ReplyToQMgr, then the stored MD holds
    REPLY.Q unchanged and ReplyToQMgr = QM1. spec: dqm-intercommunication 9.13"""
    got = _put_with_reply(qm1, "REPLY.Q")
    assert (s(got.ReplyToQ), s(got.ReplyToQMgr)) == ("REPLY.Q", "QM1")


def test_a_local_reply_queue_keeps_its_name(qm1):
    """Given ReplyToQ names a local queue and ReplyToQMgr is blank, then the MD holds that
    queue at QM1."""
    qm1.define("QLOCAL", "MY.REPLY")
    got = _put_with_reply(qm1, "MY.REPLY")
    assert (s(got.ReplyToQ), s(got.ReplyToQMgr)) == ("MY.REPLY", "QM1")


def test_nonblank_reply_to_qmgr_prevents_alias_substitution(qm1):
    """Given QREMOTE(Answer_alias) exists, when a put gives ReplyToQ=Answer_alias and
    ReplyToQMgr=OTHERQM, then both are stored unchanged. spec: dqm-intercommunication 9.14"""
    qm1.define("QREMOTE", "Answer_alias", RNAME="Answer", RQMNAME="QM1_relief")
    got = _put_with_reply(qm1, "Answer_alias", "OTHERQM")
    assert (s(got.ReplyToQ), s(got.ReplyToQMgr)) == ("Answer_alias", "OTHERQM")


def test_xmitq_of_a_reply_alias_is_ignored(qm1):
    """Given a reply alias QREMOTE(RA) RNAME(Answer) RQMNAME(QM9) XMITQ(TXR), when it is used as
    ReplyToQ, then the substitution happens and the XMITQ plays no part (IBM: "ignored if the
    definition is used as a reply-to queue alias"). spec: dqm-intercommunication 9.15"""
    qm1.xmitq("TXR")
    qm1.define("QREMOTE", "RA", RNAME="Answer", RQMNAME="QM9", XMITQ="TXR")
    got = _put_with_reply(qm1, "RA")
    assert (s(got.ReplyToQ), s(got.ReplyToQMgr)) == ("Answer", "QM9")
    assert drain(qm1.qm, "TXR") == []


def test_reply_to_alias_travels_in_the_transmission_header(qm1):
    """Given a reply alias and a put to a remote queue, then the MQMD embedded in the MQXQH
    already carries the substituted reply-to names (resolved once, at the originating QM)."""
    qm1.xmitq("QM2")
    qm1.define("QREMOTE", "Answer_alias", RNAME="Answer", RQMNAME="QM1_relief")
    md = mqpy.MD(ReplyToQ=b"Answer_alias")
    put_to(qm1.qm, "Inquiry", "QM2", md=md)
    _outer, xqh, _ = get_xmit(qm1.qm, "QM2")
    assert (s(xqh.MsgDesc.ReplyToQ), s(xqh.MsgDesc.ReplyToQMgr)) == ("Answer", "QM1_relief")


def test_reply_walk_through_qm1_qm2(make_qmgr):
    """The book's walk-through: at QM1 the app puts Inquiry with ReplyToQ=Answer_alias; at QM2
    the server replies to ReplyToQ@ReplyToQMgr and the reply goes on xmitq QM1_relief with header
    Answer@QM1_relief; back at QM1 the QM alias QM1_relief -> QM1 delivers it to the local
    Answer. spec: dqm-intercommunication 1 (reply-to walk-through), 9.12"""
    qm1, qm2 = make_qmgr("QM1"), make_qmgr("QM2")
    qm1.define("QLOCAL", "Inquiry")
    qm1.define("QLOCAL", "Answer")
    qm1.define("QREMOTE", "Answer_alias", RNAME="Answer", RQMNAME="QM1_relief")
    qm1.define("QREMOTE", "QM1_relief", RNAME="", RQMNAME="QM1")
    qm2.xmitq("QM1_relief")

    put_to(qm1.qm, "Inquiry", md=mqpy.MD(ReplyToQ=b"Answer_alias"))
    request, _ = get_one(qm1.qm, "Inquiry")  # stands in for the channel to QM2
    reply = mqpy.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=request.MsgId)
    put_to(qm2.qm, s(request.ReplyToQ), s(request.ReplyToQMgr), data=b"answer", md=reply)
    _outer, xqh, body = get_xmit(qm2.qm, "QM1_relief")
    assert (s(xqh.RemoteQName), s(xqh.RemoteQMgrName)) == ("Answer", "QM1_relief")
    res = arrive(qm1, s(xqh.RemoteQName), s(xqh.RemoteQMgrName))
    assert where(res) == ("Answer", None, None)
    assert body == b"answer"


@pytest.mark.parametrize("reply_qm", ["", "QM1"])
def test_reply_to_alias_not_consulted_for_local_queue_manager_name(qm1, reply_qm):
    """Given QREMOTE(Answer_alias), when ReplyToQMgr is blank the alias applies; when it is
    the local QM name (nonblank) it does not."""
    qm1.define("QREMOTE", "Answer_alias", RNAME="Answer", RQMNAME="QM1_relief")
    got = _put_with_reply(qm1, "Answer_alias", reply_qm)
    expected = ("Answer", "QM1_relief") if not reply_qm else ("Answer_alias", "QM1")
    assert (s(got.ReplyToQ), s(got.ReplyToQMgr)) == expected
