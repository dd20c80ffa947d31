"""The receiving MCA's puts (plain arrivals, MQDH messages, exception reports) and the
authority PUTAUT gives them, driven without a network: the transmission-queue messages of
QM1 handed to a ReceiverMCA of QM2 as if they had arrived in one batch (seed 000, "Sending
messages to a distribution list"; IBM's PUTAUT)."""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy.fap.messagedata import MessageData
from mqpy_chinit.receiver_mca import ReceiverMCA
from tests.channels.pairs import _arrivals, put_held

TARGETS = ("T1", "T2", "T3")


def _given_a_plain_then_a_list_message(qm1, qm2) -> list[MessageData]:
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ", DISTL="YES")
    for t in TARGETS:
        qm2.define("QLOCAL", t)
    qm1.put("T1", b"plain", qmgr="QM2")
    conn = qm1.connect()
    try:
        conn.put1([("T2", "QM2"), ("T3", "QM2")], b"listed",
                  mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    finally:
        conn.disconnect()
    pending = _arrivals(qm1)
    assert [ev.transmission_header.MsgDesc.Format for ev in pending] == [
        CMQC.MQFMT_NONE, CMQC.MQFMT_DIST_HEADER]
    return pending


async def test_a_plain_arrival_ahead_of_an_mqdh_message_is_put(two_qmgrs):
    """Given a batch holding a plain message for T1 and then an MQDH message for T2 and T3,
    when the receiving MCA puts the batch and commits, then T1 holds the plain message and
    T2 and T3 the list's: no arrival ahead of a list message is lost.
    spec: dqm-intercommunication 9.48"""
    qm1, qm2 = two_qmgrs
    pending = _given_a_plain_then_a_list_message(qm1, qm2)
    rcv = ReceiverMCA(None, "QM2", qm2.connect, lambda name: None)
    conn = qm2.connect()
    try:
        await put_held(rcv, conn, pending)
        conn.commit()
    finally:
        conn.disconnect()
    assert qm2.drain("T1") == [b"plain"]
    assert qm2.drain("T2") == [b"listed"]
    assert qm2.drain("T3") == [b"listed"]


async def test_an_mqdh_message_is_put_with_the_authority_putaut_names(two_qmgrs):
    """Given QM2 with security on and a receiving channel with PUTAUT(CTX), when a plain
    message and an MQDH message for T2 and T3 arrive whose MQMD UserIdentifier is mallory
    (no authority at QM2), then neither reaches its queues: each destination goes to the
    dead-letter queue with reason 2035, as the plain message does. The list's put is judged
    for the context user, not made with the channel initiator's own authority.
    spec: dqm-intercommunication 9.48 (IBM: PUTAUT, "User IDs used by the channel initiator")"""
    from mqpy.security.policy import install
    from mqpy_chinit.putaut import PutAuthority

    qm1, qm2 = two_qmgrs
    pending = _given_a_plain_then_a_list_message(qm1, qm2)
    install(qm2.engine, qm2.engine.qmdir)
    for i, ev in enumerate(pending):
        xqh = ev.transmission_header
        xqh.MsgDesc.UserIdentifier = b"mallory"
        pending[i] = MessageData.from_xqh(ev.seqnum, xqh, ev.data)
    rcv = ReceiverMCA(None, "QM2", qm2.connect, lambda name: None)
    rcv.put_authority = PutAuthority("CTX", "")
    conn = qm2.connect()
    try:
        await put_held(rcv, conn, pending)
        conn.commit()
    finally:
        conn.disconnect()
    assert [qm2.depth(t) for t in TARGETS] == [0, 0, 0]
    assert qm2.depth("SYSTEM.DEAD.LETTER.QUEUE") == 3


async def test_an_exception_report_is_put_with_the_authority_putaut_names(two_qmgrs):
    """Given QM2 with security on and a receiving channel with PUTAUT(CTX), when a message
    from mallory (no authority at QM2) for T1 arrives asking for an exception report with
    full data and MQRO_DISCARD_MSG, its reply-to queue being T2 at QM2, then the report is
    not put to T2 (mallory may not put there either) and the message goes to the
    dead-letter queue instead: the report is no way round the put authority.
    spec: dqm-intercommunication 9.27 (IBM: PUTAUT)"""
    from mqpy.security.policy import install
    from mqpy_chinit.putaut import PutAuthority

    qm1, qm2 = two_qmgrs
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    for t in TARGETS:
        qm2.define("QLOCAL", t)
    qm1.put("T1", b"smuggled", qmgr="QM2",
            Report=CMQC.MQRO_EXCEPTION_WITH_FULL_DATA | CMQC.MQRO_DISCARD_MSG,
            ReplyToQ=b"T2", ReplyToQMgr=b"QM2")
    [ev] = _arrivals(qm1)
    install(qm2.engine, qm2.engine.qmdir)
    xqh = ev.transmission_header
    xqh.MsgDesc.UserIdentifier = b"mallory"
    rcv = ReceiverMCA(None, "QM2", qm2.connect, lambda name: None)
    rcv.definition = {"MRRTY": 0}
    rcv.put_authority = PutAuthority("CTX", "")
    conn = qm2.connect()
    try:
        await put_held(rcv, conn, [MessageData.from_xqh(ev.seqnum, xqh, ev.data)])
        conn.commit()
    finally:
        conn.disconnect()
    assert [qm2.depth(t) for t in TARGETS] == [0, 0, 0]
    assert qm2.depth("SYSTEM.DEAD.LETTER.QUEUE") == 1
