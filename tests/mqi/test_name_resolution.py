"""Name resolution at MQOPEN/MQPUT1 inside one queue manager (seed 000 ch. 1, Tables 4/5).

Every vector is set up with definitions only, a message is put, and the message on the
transmission queue is read back as a sending MCA would: its MQXQH names the destination
(queue, queue manager) and embeds the original MQMD; the data follows the 428-byte header.
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._support import IN, OUT, XQH_LEN, drain, get_one, get_xmit, od, put_to, raises_mq, s


def _assert_header(qm, xmitq: str, rq: str, rqm: str, *, sent: mqpy.MD,
                   data: bytes = b"payload") -> mqpy.XQH:
    """The next message on ``xmitq`` is for ``rq``@``rqm`` and carries ``sent`` inside."""
    outer, xqh, body = get_xmit(qm, xmitq)
    assert (s(xqh.RemoteQName), s(xqh.RemoteQMgrName)) == (rq, rqm)
    assert xqh.MsgDesc.MsgId == sent.MsgId
    assert body == data
    assert outer.Persistence == xqh.MsgDesc.Persistence
    return xqh


# ------------------------------------------------------------------ 9.1 - 9.3 (rule 1, 2, 4)

def test_remote_queue_definition_puts_on_the_xmitq_named_like_rqmname(qma):
    """Given QREMOTE(QA_norm) RNAME(QA_norm) RQMNAME(QMB) and xmitq QMB at QMA, when an app opens
    QA_norm and puts, then the message is on QMB behind an MQXQH QA_norm@QMB whose embedded MQMD
    is the one the put returned, followed by the data. spec: dqm-intercommunication 9.1"""
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB")
    md = mqpy.MD(Format=CMQC.MQFMT_STRING, Persistence=CMQC.MQPER_PERSISTENT)
    put_to(qma.qm, "QA_norm", data=b"hello QMB", md=md)
    outer, xqh, body = get_xmit(qma.qm, "QMB")
    assert xqh.StrucId == b"XQH " and xqh.Version == CMQC.MQXQH_VERSION_1
    assert (s(xqh.RemoteQName), s(xqh.RemoteQMgrName)) == ("QA_norm", "QMB")
    inner = xqh.MsgDesc
    assert inner.MsgId == md.MsgId and inner.MsgId.strip(b"\x00")
    assert inner.Format == CMQC.MQFMT_STRING
    assert inner.Persistence == CMQC.MQPER_PERSISTENT
    assert body == b"hello QMB"
    assert outer.Format == CMQC.MQFMT_XMIT_Q_HEADER
    assert outer.Persistence == CMQC.MQPER_PERSISTENT


def test_the_transmission_header_is_428_bytes_with_an_mqmd_v1_inside(qma):
    """Given a put through a remote definition, then the xmitq message is exactly 428 bytes of
    MQXQH (StrucId, Version, RemoteQName, RemoteQMgrName, MQMD v1 'MD  ') plus the data."""
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB")
    put_to(qma.qm, "QA_norm", data=b"x" * 10)
    _md, raw = get_one(qma.qm, "QMB")
    assert len(raw) == XQH_LEN + 10
    assert raw[:4] == b"XQH " and raw[8:56].rstrip() == b"QA_norm"
    assert raw[56:104].rstrip() == b"QMB"
    assert raw[104:108] == b"MD  "
    assert mqpy.XQH().unpack(raw[:XQH_LEN]).MsgDesc.Version == CMQC.MQMD_VERSION_1


def test_remote_definition_defaults_apply_to_the_message(qma):
    """Given QREMOTE(QA_norm) DEFPSIST(YES) DEFPRTY(7) over a NO/0 xmitq, when the app puts with
    persistence and priority 'as queue definition', then the definition it opened decides."""
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB", DEFPSIST="YES",
               DEFPRTY=7)
    put_to(qma.qm, "QA_norm")
    outer, xqh, _ = get_xmit(qma.qm, "QMB")
    assert xqh.MsgDesc.Persistence == CMQC.MQPER_PERSISTENT
    assert xqh.MsgDesc.Priority == 7
    assert outer.Priority == 7


def test_resolved_names_are_the_remote_queue_and_queue_manager(qma):
    """Given a put through QREMOTE(QA_norm) RNAME(QA_real) RQMNAME(QMB), then the PMO's
    ResolvedQName/ResolvedQMgrName name the destination, not the definition or the xmitq."""
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_real", RQMNAME="QMB")
    pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
    put_to(qma.qm, "QA_norm", pmo=pmo)
    assert (s(pmo.ResolvedQName), s(pmo.ResolvedQMgrName)) == ("QA_real", "QMB")


def test_without_xmitq_named_like_rqmname_the_default_xmitq_is_used(qma):
    """Given QREMOTE(QA_norm) RQMNAME(QMB), no xmitq QMB, and DEFXMITQ(DX), when the app puts to
    QA_norm, then the message goes on DX with header QA_norm@QMB. spec:
    dqm-intercommunication 9.2"""
    qma.xmitq("DX")
    qma.eng.alter_qmgr({"DEFXMITQ": "DX"})
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB")
    md = put_to(qma.qm, "QA_norm")
    _assert_header(qma.qm, "DX", "QA_norm", "QMB", sent=md)


def test_explicit_queue_manager_with_default_xmitq(qma):
    """Given DEFXMITQ(DX) and nothing named QMZ, when Q@QMZ is opened, then the message goes
    on DX with header Q@QMZ (rule 2, last step)."""
    qma.xmitq("DX")
    qma.eng.alter_qmgr({"DEFXMITQ": "DX"})
    md = put_to(qma.qm, "Q", "QMZ")
    _assert_header(qma.qm, "DX", "Q", "QMZ", sent=md)


def test_unknown_queue_manager_without_any_route_fails_2087(qma):
    """Given no xmitq QMZ, no QM alias QMZ and no DEFXMITQ, when Q@QMZ is opened, then the open
    fails with MQRC_UNKNOWN_REMOTE_Q_MGR and nothing is queued anywhere. spec:
    dqm-intercommunication 9.3"""
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
        mqpy.Queue(qma.qm, od("Q", "QMZ"), OUT)
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
        qma.qm.put1(od("Q", "QMZ"), b"x")


def test_remote_definition_without_any_xmitq_fails_2087(qma):
    """Given QREMOTE(QA_norm) RQMNAME(QMB), no xmitq QMB and no DEFXMITQ, when QA_norm is opened,
    then MQRC_UNKNOWN_REMOTE_Q_MGR."""
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB")
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
        mqpy.Queue(qma.qm, "QA_norm", OUT)


# ------------------------------------------------------------------ worked vectors: at QMA

def test_at_qma_any_queue_at_qmb_goes_via_xmitq_qmb(qma):
    """At QMA, (any)/QMB -> via QMB with no definition but the xmitq: header names the queue
    the application gave. spec: dqm-intercommunication 1 (Tables 4/5, at QMA)"""
    qma.xmitq("QMB")
    md = put_to(qma.qm, "ANY.QUEUE", "QMB")
    _assert_header(qma.qm, "QMB", "ANY.QUEUE", "QMB", sent=md)


def test_at_qma_alternative_remote_definition_chooses_xmitq_tx1(qma):
    """At QMA, QA_norm/- -> QA_norm@QMB via TX1 when the remote definition names XMITQ(TX1),
    even though an xmitq QMB exists. spec: dqm-intercommunication 1 (Tables 4/5, at QMA)"""
    qma.xmitq("QMB")
    qma.xmitq("TX1")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB", XMITQ="TX1")
    md = put_to(qma.qm, "QA_norm")
    _assert_header(qma.qm, "TX1", "QA_norm", "QMB", sent=md)
    assert drain(qma.qm, "QMB") == []


def test_at_qma_queue_manager_alias_diverts_qb_at_qmc_to_qmd_via_qmb(qma):
    """At QMA, QB/QMC -> QB@QMD via QMB through QREMOTE(QMC) RNAME() RQMNAME(QMD) XMITQ(QMB):
    the header is rewritten to QMD. spec: dqm-intercommunication 1 (Tables 4/5, at QMA)"""
    qma.xmitq("QMB")
    qma.xmitq("QMD")  # must not be used: the alias names its own XMITQ
    qma.define("QREMOTE", "QMC", RNAME="", RQMNAME="QMD", XMITQ="QMB")
    md = put_to(qma.qm, "QB", "QMC")
    _assert_header(qma.qm, "QMB", "QB", "QMD", sent=md)
    assert drain(qma.qm, "QMD") == []


# ------------------------------------------------------------------ worked vectors: at QMB

def test_at_qmb_qa_norm_blank_or_local_queue_manager_is_the_local_queue(qmb):
    """At QMB, QA_norm/- and QA_norm/QMB both resolve to the local QA_norm. spec:
    dqm-intercommunication 1 (Tables 4/5, at QMB)"""
    qmb.define("QLOCAL", "QA_norm")
    put_to(qmb.qm, "QA_norm", data=b"one")
    put_to(qmb.qm, "QA_norm", "QMB", data=b"two")
    assert drain(qmb.qm, "QA_norm") == [b"one", b"two"]


def test_at_qmb_class_of_service_alias_for_itself_is_local(qmb):
    """At QMB, QA_norm/QMB_PRIORITY -> local QA_norm through QREMOTE(QMB_PRIORITY) RNAME()
    RQMNAME(QMB); an XMITQ on such an alias is ignored. spec: dqm-intercommunication 1
    (Tables 4/5, at QMB)"""
    qmb.define("QLOCAL", "QA_norm")
    qmb.xmitq("TXX")
    qmb.define("QREMOTE", "QMB_PRIORITY", RNAME="", RQMNAME="QMB", XMITQ="TXX")
    put_to(qmb.qm, "QA_norm", "QMB_PRIORITY", data=b"prio")
    assert drain(qmb.qm, "QA_norm") == [b"prio"]
    assert drain(qmb.qm, "TXX") == []


def test_at_qmb_any_queue_at_qmc_passes_through_xmitq_qmc(qmb):
    """At QMB, (any)/QMC -> via QMC (pass-through). spec: dqm-intercommunication 1 (at QMB)"""
    qmb.xmitq("QMC")
    md = put_to(qmb.qm, "QB", "QMC")
    _assert_header(qmb.qm, "QMC", "QB", "QMC", sent=md)


def test_at_qmb_qmd_priority_alias_chooses_qmd_fast_and_keeps_the_header(qmb):
    """At QMB, (any)/QMD_PRIORITY -> via QMD_fast with the header unchanged, by
    QREMOTE(QMD_PRIORITY) RNAME() RQMNAME(QMD_PRIORITY) XMITQ(QMD_fast). spec:
    dqm-intercommunication 1 (at QMB); aliases-channels-storage 4.4"""
    qmb.xmitq("QMD_fast")
    qmb.define("QREMOTE", "QMD_PRIORITY", RNAME="", RQMNAME="QMD_PRIORITY", XMITQ="QMD_fast")
    md = put_to(qmb.qm, "QX", "QMD_PRIORITY")
    _assert_header(qmb.qm, "QMD_fast", "QX", "QMD_PRIORITY", sent=md)


def test_at_qmb_small_and_large_queue_manager_aliases_choose_their_xmitqs(qmb):
    """At QMB, (any)/QMC_small -> via TX_small and (any)/QMC_large -> via TX_external (QM
    aliases for QMC); the header names QMC. spec: dqm-intercommunication 1 (at QMB)"""
    qmb.xmitq("TX_small")
    qmb.xmitq("TX_external")
    qmb.define("QREMOTE", "QMC_small", RNAME="", RQMNAME="QMC", XMITQ="TX_small")
    qmb.define("QREMOTE", "QMC_large", RNAME="", RQMNAME="QMC", XMITQ="TX_external")
    small = put_to(qmb.qm, "QB", "QMC_small", data=b"s")
    large = put_to(qmb.qm, "QB", "QMC_large", data=b"L")
    _assert_header(qmb.qm, "TX_small", "QB", "QMC", sent=small, data=b"s")
    _assert_header(qmb.qm, "TX_external", "QB", "QMC", sent=large, data=b"L")


def test_at_qmb_small_and_large_remote_queues_choose_their_xmitqs(qmb):
    """At QMB, QB_small@QMC -> via TX_small and QB_large@QMC -> via TX_large through two
    remote-queue definitions of QB at QMC. spec: dqm-intercommunication 1 (at QMB)"""
    qmb.xmitq("TX_small")
    qmb.xmitq("TX_large")
    qmb.xmitq("QMC")
    qmb.define("QREMOTE", "QB_small", RNAME="QB", RQMNAME="QMC", XMITQ="TX_small")
    qmb.define("QREMOTE", "QB_large", RNAME="QB", RQMNAME="QMC", XMITQ="TX_large")
    small = put_to(qmb.qm, "QB_small", data=b"s")
    large = put_to(qmb.qm, "QB_large", data=b"L")
    _assert_header(qmb.qm, "TX_small", "QB", "QMC", sent=small, data=b"s")
    _assert_header(qmb.qm, "TX_large", "QB", "QMC", sent=large, data=b"L")
    assert drain(qmb.qm, "QMC") == []


def test_at_qmb_flows_are_concentrated_on_tx1(qmb):
    """At QMB, (any)/QME, QA@QMC and QB@QMD all go via TX1 (QM aliases naming XMITQ(TX1));
    each header keeps its own destination. spec: dqm-intercommunication 1 (at QMB)"""
    qmb.xmitq("TX1")
    for qm in ("QME", "QMC", "QMD"):
        qmb.define("QREMOTE", qm, RNAME="", RQMNAME=qm, XMITQ="TX1")
    sent = [put_to(qmb.qm, "ANY", "QME", data=b"1"), put_to(qmb.qm, "QA", "QMC", data=b"2"),
            put_to(qmb.qm, "QB", "QMD", data=b"3")]
    for md, (q, qm, data) in zip(sent, [("ANY", "QME", b"1"), ("QA", "QMC", b"2"),
                                        ("QB", "QMD", b"3")], strict=True):
        _assert_header(qmb.qm, "TX1", q, qm, sent=md, data=data)


def test_at_qmb_qmd_norm_alias_rewrites_the_header_to_qmd(qmb):
    """At QMB, (any)/QMD_norm -> via TX1 with the header rewritten to QMD (the book's text,
    Method 2, over its table). spec: dqm-intercommunication 1 ([!] note)"""
    qmb.xmitq("TX1")
    qmb.define("QREMOTE", "QMD_norm", RNAME="", RQMNAME="QMD", XMITQ="TX1")
    md = put_to(qmb.qm, "QB", "QMD_norm")
    _assert_header(qmb.qm, "TX1", "QB", "QMD", sent=md)


# ------------------------------------------------------------------ 9.4 - 9.6, 9.11

def test_queue_manager_alias_remaps_yourqm_to_realqm(qma):
    """Given QREMOTE(YOURQM) RQMNAME(REALQM) on QMA and xmitq REALQM, when THISQ@YOURQM is put,
    then it is on xmitq REALQM with header THISQ@REALQM. spec: dqm-intercommunication 9.4;
    aliases-channels-storage 4.1 (without clusters)"""
    qma.xmitq("REALQM")
    qma.define("QREMOTE", "YOURQM", RNAME="", RQMNAME="REALQM")
    md = put_to(qma.qm, "THISQ", "YOURQM")
    _assert_header(qma.qm, "REALQM", "THISQ", "REALQM", sent=md)


def test_queue_manager_alias_on_realqm_itself_delivers_locally(make_qmgr):
    """Given the same QREMOTE(YOURQM) RQMNAME(REALQM) on the queue manager REALQM, when
    THISQ@YOURQM is put there, then it lands on the local THISQ. spec:
    dqm-intercommunication 9.5"""
    real = make_qmgr("REALQM")
    real.define("QLOCAL", "THISQ")
    real.define("QREMOTE", "YOURQM", RNAME="", RQMNAME="REALQM")
    put_to(real.qm, "THISQ", "YOURQM", data=b"home")
    assert drain(real.qm, "THISQ") == [b"home"]


def test_queue_manager_alias_only_chooses_the_xmitq(qma):
    """Given QREMOTE(QM3) RNAME() RQMNAME(QM3) XMITQ(QM2), when X@QM3 is put then it goes to
    xmitq QM2 with header X@QM3 unchanged; Y@QM2 also goes to QM2 (header Y@QM2). spec:
    dqm-intercommunication 9.6; aliases-channels-storage 4.4"""
    qma.xmitq("QM2")
    qma.define("QREMOTE", "QM3", RNAME="", RQMNAME="QM3", XMITQ="QM2")
    md1 = put_to(qma.qm, "X", "QM3", data=b"x")
    md2 = put_to(qma.qm, "Y", "QM2", data=b"y")
    _assert_header(qma.qm, "QM2", "X", "QM3", sent=md1, data=b"x")
    _assert_header(qma.qm, "QM2", "Y", "QM2", sent=md2, data=b"y")


def test_explicit_other_queue_manager_bypasses_the_remote_queue_definition(qma):
    """Given QREMOTE(QA_norm) RNAME(QA_real) RQMNAME(QMB) and xmitqs QMB and QMC, when the app
    opens QA_norm@QMC, then the definition is not used: xmitq QMC, header QA_norm@QMC. spec:
    dqm-intercommunication 9.11"""
    qma.xmitq("QMB")
    qma.xmitq("QMC")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_real", RQMNAME="QMB")
    md = put_to(qma.qm, "QA_norm", "QMC")
    _assert_header(qma.qm, "QMC", "QA_norm", "QMC", sent=md)
    assert drain(qma.qm, "QMB") == []


def test_explicit_local_queue_manager_name_still_uses_the_remote_definition(qma):
    """Given QREMOTE(QA_norm) RQMNAME(QMB), when QA_norm@QMA is opened at QMA (its own name),
    then rule 1 applies as for a blank name: xmitq QMB, header QA_norm@QMB."""
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB")
    md = put_to(qma.qm, "QA_norm", "QMA")
    _assert_header(qma.qm, "QMB", "QA_norm", "QMB", sent=md)


def test_alias_queue_over_a_remote_definition_resolves_through_it(qma):
    """Given QALIAS(AQ) TARGET(QA_norm) and QREMOTE(QA_norm) RQMNAME(QMB), when AQ is put to,
    then the message goes on xmitq QMB for QA_norm@QMB."""
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB")
    qma.define("QALIAS", "AQ", TARGET="QA_norm")
    md = put_to(qma.qm, "AQ")
    _assert_header(qma.qm, "QMB", "QA_norm", "QMB", sent=md)


def test_put1_resolves_like_open(qma):
    """Given QREMOTE(QA_norm) RQMNAME(QMB) and xmitq QMB, when MQPUT1 targets QA_norm, then
    the message is on QMB behind the same header as with MQOPEN+MQPUT."""
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB")
    md = mqpy.MD()
    qma.qm.put1(od("QA_norm"), b"payload", md)
    _assert_header(qma.qm, "QMB", "QA_norm", "QMB", sent=md)


def test_remote_destinations_cannot_be_opened_for_input_2045(qma):
    """Given a remote queue definition and an xmitq, when either is opened for input as a
    remote destination, then MQRC_OPTION_NOT_VALID_FOR_TYPE."""
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA_norm", RNAME="QA_norm", RQMNAME="QMB")
    with raises_mq(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE):
        mqpy.Queue(qma.qm, "QA_norm", IN)
    with raises_mq(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE):
        mqpy.Queue(qma.qm, od("Q", "QMB"), IN)


# ------------------------------------------------------------------ aliases do not chain

def test_self_referencing_queue_manager_alias_does_not_loop(qma):
    """Given QREMOTE(QMX) RNAME() RQMNAME(QMX) and no route to QMX, when Q@QMX is opened, then
    it fails with 2087 at once (no loop); with an xmitq QMX it goes there. spec:
    aliases-channels-storage 4.7"""
    qma.define("QREMOTE", "QMX", RNAME="", RQMNAME="QMX")
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
        mqpy.Queue(qma.qm, od("Q", "QMX"), OUT)
    qma.xmitq("QMX.XQ")
    qma.eng.alter("QREMOTE", "QMX", {"XMITQ": "QMX.XQ"})
    md = put_to(qma.qm, "Q", "QMX")
    _assert_header(qma.qm, "QMX.XQ", "Q", "QMX", sent=md)


def test_queue_manager_aliases_do_not_chain(qma):
    """Given QM alias QMX -> QMY, QM alias QMY -> QMZ and an xmitq QMZ, when Q@QMX is opened,
    then the second alias is not applied: the open fails and nothing reaches QMZ. spec:
    aliases-channels-storage 4.7 (R4)"""
    qma.xmitq("QMZ")
    qma.define("QREMOTE", "QMX", RNAME="", RQMNAME="QMY")
    qma.define("QREMOTE", "QMY", RNAME="", RQMNAME="QMZ")
    with pytest.raises(mqpy.MQMIError):
        put_to(qma.qm, "Q", "QMX")
    assert drain(qma.qm, "QMZ") == []


def test_rqmname_naming_a_non_local_queue_fails_2091(qma):
    """Given QM alias QMX -> QMY where QMY is itself a QREMOTE (not a local queue), when Q@QMX
    is opened, then MQRC_XMIT_Q_TYPE_ERROR ("XmitQName is blank, but RemoteQMgrName specifies a
    queue that is not a local queue", IBM reason 2091)."""
    qma.define("QREMOTE", "QMX", RNAME="", RQMNAME="QMY")
    qma.define("QREMOTE", "QMY", RNAME="", RQMNAME="QMZ")
    with raises_mq(CMQC.MQRC_XMIT_Q_TYPE_ERROR):
        mqpy.Queue(qma.qm, od("Q", "QMX"), OUT)


def test_remote_definition_naming_the_local_queue_manager_fails_2087(qma):
    """Given QREMOTE(R) RNAME(Q1) RQMNAME(QMA) at QMA, when R is opened, then IBM fails with
    MQRC_UNKNOWN_REMOTE_Q_MGR ("ObjectName is a local definition of a remote queue for which
    RemoteQMgrName is blank or the local queue manager ... even if XmitQName is not blank")."""
    qma.define("QLOCAL", "Q1")
    qma.define("QREMOTE", "R", RNAME="Q1", RQMNAME="QMA")
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
        mqpy.Queue(qma.qm, "R", OUT)


def test_queue_manager_name_of_a_remote_queue_definition_fails_2087(qma):
    """Given QREMOTE(QMX) RNAME(SOMEQ) RQMNAME(QMB) and DEFXMITQ(DX), when Q@QMX is opened, then
    MQRC_UNKNOWN_REMOTE_Q_MGR ("it should be a queue manager alias definition, but the
    RemoteQName in the definition is not blank")."""
    qma.xmitq("DX")
    qma.eng.alter_qmgr({"DEFXMITQ": "DX"})
    qma.define("QREMOTE", "QMX", RNAME="SOMEQ", RQMNAME="QMB")
    with raises_mq(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
        mqpy.Queue(qma.qm, od("Q", "QMX"), OUT)


# ------------------------------------------------------------------ xmitq errors

def test_xmitq_named_like_the_queue_manager_must_have_usage_xmitq_2092(qma):
    """Given a local queue QMB with USAGE(NORMAL), when Q@QMB is opened, then
    MQRC_XMIT_Q_USAGE_ERROR."""
    qma.define("QLOCAL", "QMB")
    with raises_mq(CMQC.MQRC_XMIT_Q_USAGE_ERROR):
        mqpy.Queue(qma.qm, od("Q", "QMB"), OUT)


def test_explicit_xmitq_must_have_usage_xmitq_2092(qma):
    """Given QREMOTE(R) RQMNAME(QMB) XMITQ(PLAIN) with PLAIN a normal local queue, when R is
    opened, then MQRC_XMIT_Q_USAGE_ERROR."""
    qma.define("QLOCAL", "PLAIN")
    qma.define("QREMOTE", "R", RNAME="Q", RQMNAME="QMB", XMITQ="PLAIN")
    with raises_mq(CMQC.MQRC_XMIT_Q_USAGE_ERROR):
        mqpy.Queue(qma.qm, "R", OUT)


def test_explicit_xmitq_that_is_not_a_local_queue_fails_2091(qma):
    """Given QREMOTE(R) XMITQ(AX) where AX is an alias queue, when R is opened, then
    MQRC_XMIT_Q_TYPE_ERROR."""
    qma.xmitq("REALX")
    qma.define("QALIAS", "AX", TARGET="REALX")
    qma.define("QREMOTE", "R", RNAME="Q", RQMNAME="QMB", XMITQ="AX")
    with raises_mq(CMQC.MQRC_XMIT_Q_TYPE_ERROR):
        mqpy.Queue(qma.qm, "R", OUT)


def test_default_xmitq_must_have_usage_xmitq_2199(qma):
    """Given DEFXMITQ(PLAIN) naming a normal local queue, when Q@QMZ is opened, then
    MQRC_DEF_XMIT_Q_USAGE_ERROR."""
    qma.define("QLOCAL", "PLAIN")
    qma.eng.alter_qmgr({"DEFXMITQ": "PLAIN"})
    with raises_mq(CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR):
        mqpy.Queue(qma.qm, od("Q", "QMZ"), OUT)


def test_default_xmitq_that_is_not_a_local_queue_fails_2198(qma):
    """Given DEFXMITQ(AX) naming an alias queue, when Q@QMZ is opened, then
    MQRC_DEF_XMIT_Q_TYPE_ERROR."""
    qma.xmitq("REALX")
    qma.define("QALIAS", "AX", TARGET="REALX")
    qma.eng.alter_qmgr({"DEFXMITQ": "AX"})
    with raises_mq(CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR):
        mqpy.Queue(qma.qm, od("Q", "QMZ"), OUT)


def test_explicit_xmitq_that_does_not_exist_fails_2196(qma):
    """Given QREMOTE(R) RQMNAME(QMB) XMITQ(NOSUCH), when R is opened, then MQRC_UNKNOWN_XMIT_Q
    ("XmitQName ... is not blank and not the name of a locally-defined queue")."""
    qma.define("QREMOTE", "R", RNAME="Q", RQMNAME="QMB", XMITQ="NOSUCH")
    with raises_mq(CMQC.MQRC_UNKNOWN_XMIT_Q):
        mqpy.Queue(qma.qm, "R", OUT)


def test_default_xmitq_that_does_not_exist_fails_2197(qma):
    """Given DEFXMITQ(NOSUCH), when Q@QMZ is opened, then MQRC_UNKNOWN_DEF_XMIT_Q."""
    qma.eng.alter_qmgr({"DEFXMITQ": "NOSUCH"})
    with raises_mq(CMQC.MQRC_UNKNOWN_DEF_XMIT_Q):
        mqpy.Queue(qma.qm, od("Q", "QMZ"), OUT)
