"""The name resolution rules at MQOPEN, one test each, as IBM's Intercommunication book gives
them: a remote definition first, then a queue-manager alias, an xmitq named like the queue
manager, the default xmitq; a local object of any type for a bare queue name; both names in the
transmission header."""

from __future__ import annotations

from mqpy import CMQC

from ._support import get_xmit, put_to, raises_mq, s


def _header(qm, xmitq: str) -> tuple[str, str]:
    _outer, xqh, _body = get_xmit(qm, xmitq)
    return s(xqh.RemoteQName), s(xqh.RemoteQMgrName)


def test_given_a_remote_definition_when_opened_with_a_blank_or_local_qm_then_it_decides(qma):
    """Given QREMOTE(QA) RNAME(QX) RQMNAME(QMB) XMITQ(TX), when QA is opened with a blank and
    with the local queue manager's name, then both go on TX for QX@QMB, although an xmitq
    named QMB exists.

    spec: dqm-intercommunication 1 item 1"""
    qma.xmitq("TX")
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA", RNAME="QX", RQMNAME="QMB", XMITQ="TX")
    put_to(qma.qm, "QA")
    put_to(qma.qm, "QA", "QMA")
    assert [_header(qma.qm, "TX"), _header(qma.qm, "TX")] == [("QX", "QMB")] * 2


def test_given_a_remote_qm_name_when_opened_then_alias_then_xmitq_then_default_xmitq(qma):
    """Given Q@QMC with QM alias QMC -> QMD XMITQ(TA), Q@QMB with xmitq QMB, and Q@QMZ with
    only DEFXMITQ(DX), then each goes where the first applicable step says.

    spec: dqm-intercommunication 1 item 2"""
    for name in ("TA", "QMB", "DX"):
        qma.xmitq(name)
    qma.define("QREMOTE", "QMC", RNAME="", RQMNAME="QMD", XMITQ="TA")
    qma.eng.alter_qmgr({"DEFXMITQ": "DX"})
    put_to(qma.qm, "Q", "QMC")
    put_to(qma.qm, "Q", "QMB")
    put_to(qma.qm, "Q", "QMZ")
    assert [_header(qma.qm, x) for x in ("TA", "QMB", "DX")] == [
        ("Q", "QMD"), ("Q", "QMB"), ("Q", "QMZ")]


def test_given_only_a_queue_name_when_opened_then_a_local_object_of_any_type_must_exist(qma):
    """Given a local queue, an alias queue and a remote definition, then each opens by its bare
    name; given no object of that name, then MQOPEN fails with MQRC_UNKNOWN_OBJECT_NAME.

    spec: dqm-intercommunication 1 item 3"""
    qma.xmitq("QMB")
    qma.define("QLOCAL", "QL")
    qma.define("QALIAS", "QAL", TARGET="QL")
    qma.define("QREMOTE", "QR", RNAME="QX", RQMNAME="QMB")
    for name in ("QL", "QAL", "QR"):
        put_to(qma.qm, name)
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        put_to(qma.qm, "NO.SUCH.QUEUE")


def test_given_no_xmitq_on_the_definition_then_the_xmitq_is_named_like_the_qm_else_default(
        qma):
    """Given QREMOTE(QA) RQMNAME(QMB) with no XMITQ and an xmitq QMB, then QMB carries it; given
    QREMOTE(QC) RQMNAME(QMC) and no xmitq QMC, then the default xmitq DX does.

    spec: dqm-intercommunication 1 item 4"""
    qma.xmitq("QMB")
    qma.xmitq("DX")
    qma.eng.alter_qmgr({"DEFXMITQ": "DX"})
    qma.define("QREMOTE", "QA", RNAME="QA", RQMNAME="QMB")
    qma.define("QREMOTE", "QC", RNAME="QC", RQMNAME="QMC")
    put_to(qma.qm, "QA")
    put_to(qma.qm, "QC")
    assert (_header(qma.qm, "QMB"), _header(qma.qm, "DX")) == (("QA", "QMB"), ("QC", "QMC"))


def test_given_a_remote_destination_then_the_header_names_both_queue_and_qm(qma):
    """Given a put to QREMOTE(QA) RNAME(QREAL) RQMNAME(QMB), then the MQXQH holds QREAL and
    QMB, not the definition's name.

    spec: dqm-intercommunication 1 item 5"""
    qma.xmitq("QMB")
    qma.define("QREMOTE", "QA", RNAME="QREAL", RQMNAME="QMB")
    put_to(qma.qm, "QA")
    assert _header(qma.qm, "QMB") == ("QREAL", "QMB")
