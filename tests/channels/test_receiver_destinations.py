"""Where a receiving MCA's arrivals go, and through what: a batch's arrivals for a local
queue are MQPUTs through one handle, opened by the first batch that puts there and kept
open while the batches after it do (IBM's receiving MCAs keep their destination queues
open between batches); any
other destination (an alias, a remote-queue definition, a model, a name that cannot be
opened) goes as before, by MQPUT1 after the rule-6 check. Driven without a network, as
tests/channels/test_receiver_puts.py does (seed 000 §1 "rule 6"; IBM: PUTAUT)."""

from __future__ import annotations

import pytest
import trio

import mqpy
from mqpy import CMQC
from mqpy.fap.messagedata import MessageData
from mqpy_chinit.receiver_mca import ReceiverMCA
from mqpy_chinit.states import ChannelState
from tests.channels.pairs import _arrivals, listening, put_held, started
from tests.support.waiting import wait_until

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def _dead_letters(qm2) -> list[tuple[int, bytes]]:
    """(Reason, DestQName) of each message on QM2's dead-letter queue."""
    out = []
    for body in qm2.drain(DLQ):
        dlh = mqpy.DLH().unpack(body)
        out.append((dlh.Reason, dlh.DestQName.rstrip(b" \x00")))
    return out


def _with_context(ev: MessageData, **fields: bytes) -> MessageData:
    """``ev`` with MQMD context fields as the sender set them."""
    xqh = ev.transmission_header
    for name, value in fields.items():
        setattr(xqh.MsgDesc, name, value)
    return MessageData.from_xqh(ev.seqnum, xqh, ev.data)


async def _receive(qm2, pending, rcv: ReceiverMCA | None = None):
    """The batch put and committed, the MCA and its connection still there (handles open)."""
    rcv = rcv or ReceiverMCA(None, "QM2", qm2.connect, lambda name: None)
    rcv.definition = {"MRRTY": 0}
    conn = qm2.connect()
    await put_held(rcv, conn, pending)
    conn.commit()
    return rcv, conn


async def test_a_batch_for_a_local_queue_is_put_through_one_handle_held_for_the_batch(
        two_qmgrs):
    """Given five arrivals for local queue T1, when the receiver puts the batch, then T1
    holds them in order with the sender's context, one output handle is open on T1 until
    the batch's handles are closed, and then T1 can be deleted (nothing holds it)."""
    qm1, qm2 = two_qmgrs
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    qm2.define("QLOCAL", "T1")
    for i in range(5):
        qm1.put("T1", b"m%d" % i, qmgr="QM2")
    pending = [_with_context(ev, ApplIdentityData=b"from-qm1") for ev in _arrivals(qm1)]
    rcv, conn = await _receive(qm2, pending)
    try:
        assert qm2.engine.queue_status("T1")["OPPROCS"] == 1
        rcv._close_handles(conn)
        assert qm2.engine.queue_status("T1")["OPPROCS"] == 0
    finally:
        conn.disconnect()
    got = mqpy.Queue(qm2.connect(), "T1", CMQC.MQOO_INPUT_AS_Q_DEF)
    for i in range(5):
        md = mqpy.MD()
        assert got.get(None, md) == b"m%d" % i
        assert md.ApplIdentityData.rstrip() == b"from-qm1"
        assert md.PutApplName.strip() != b""
    got.close()
    qm2.engine.delete("QLOCAL", "T1")


async def test_other_destinations_keep_their_meaning_in_one_batch(two_qmgrs):
    """Given one batch for T1, an alias A1 of T2, a remote-queue definition R1 named like the
    destination, a model queue M1 (PERMDYN) and T1 again, when the receiver puts it, then
    T1 and T2 hold their messages, R1's goes to the dead-letter queue with 2085 (rule 6:
    an arrival never uses a remote-queue definition, the transmission queue stays empty),
    M1's with the reason an MQPUT1 to a model gets, and no dynamic queue is left behind.
    spec: dqm-intercommunication 9.29"""
    qm1, qm2 = two_qmgrs
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    for q in ("T1", "T2"):
        qm2.define("QLOCAL", q)
    qm2.define("QALIAS", "A1", TARGET="T2")
    qm2.define("QLOCAL", "QM3", USAGE="XMITQ")
    qm2.define("QREMOTE", "R1", RNAME="T9", RQMNAME="QM3", XMITQ="QM3")
    qm2.define("QMODEL", "M1", DEFTYPE="PERMDYN")
    for q, body in (("T1", b"one"), ("A1", b"alias"), ("R1", b"remote"), ("M1", b"model"),
                    ("T1", b"two")):
        qm1.put(q, body, qmgr="QM2")
    queues_before = {o.name for o in qm2.engine.catalog.by_type("QLOCAL")}
    rcv, conn = await _receive(qm2, _arrivals(qm1))
    rcv._close_handles(conn)
    conn.disconnect()
    assert qm2.drain("T1") == [b"one", b"two"]
    assert qm2.drain("T2") == [b"alias"]
    assert qm2.depth("QM3") == 0
    dead = _dead_letters(qm2)
    assert dead[0] == (CMQC.MQRC_UNKNOWN_OBJECT_NAME, b"R1")
    assert dead[1][1] == b"M1" and dead[1][0] == CMQC.MQRC_Q_TYPE_ERROR
    assert len(dead) == 2
    assert {o.name for o in qm2.engine.catalog.by_type("QLOCAL")} == queues_before


async def test_each_put_user_gets_its_own_handle(two_qmgrs):
    """Given QM2 with security on and a receiving channel with PUTAUT(CTX), when one batch
    holds arrivals for T1 from alice (+put on T1), mallory (none), then alice again, then
    alice's two are on T1 and mallory's is dead-lettered with 2035: the handle alice's
    puts use is never used for mallory's. (IBM: PUTAUT)"""
    from mqpy.security.policy import install, set_authority
    from mqpy.security.users import UserFile, users_path
    from mqpy_chinit.putaut import PutAuthority

    qm1, qm2 = two_qmgrs
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    qm2.define("QLOCAL", "T1")
    install(qm2.engine, qm2.engine.qmdir)
    users = UserFile(users_path(qm2.engine.qmdir))
    for who in ("alice", "mallory"):
        users.add(who, None, ["apps"])
    set_authority(qm2.engine, "queue", "T1", ["+put"], principal="alice")
    senders = (("alice", b"a1"), ("mallory", b"m1"), ("alice", b"a2"))
    for _, body in senders:
        qm1.put("T1", body, qmgr="QM2")
    pending = [_with_context(ev, UserIdentifier=who.encode())
               for ev, (who, _) in zip(_arrivals(qm1), senders, strict=True)]
    rcv = ReceiverMCA(None, "QM2", qm2.connect, lambda name: None)
    rcv.put_authority = PutAuthority("CTX", "")
    rcv, conn = await _receive(qm2, pending, rcv)
    rcv._close_handles(conn)
    conn.disconnect()
    assert qm2.drain("T1") == [b"a1", b"a2"]
    assert _dead_letters(qm2) == [(CMQC.MQRC_NOT_AUTHORIZED, b"T1")]


async def test_more_put_users_than_handles_still_arrive_in_order(two_qmgrs):
    """Given PUTAUT(CTX) and one batch for T1 from twelve users, each with +put on T1, more
    than the receiver opens handles for in a batch, then all twelve messages are on T1 in
    the order they were sent (the users beyond the handles go by MQPUT1)."""
    from mqpy.security.policy import install, set_authority
    from mqpy.security.users import UserFile, users_path
    from mqpy_chinit.putaut import PutAuthority
    from mqpy_chinit.receiver_mca import BATCH_HANDLES

    qm1, qm2 = two_qmgrs
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    qm2.define("QLOCAL", "T1")
    install(qm2.engine, qm2.engine.qmdir)
    users = UserFile(users_path(qm2.engine.qmdir))
    senders = [f"user{i}" for i in range(BATCH_HANDLES + 4)]
    for who in senders:
        users.add(who, None, ["apps"])
    set_authority(qm2.engine, "queue", "T1", ["+put"], group="apps")
    for who in senders:
        qm1.put("T1", who.encode(), qmgr="QM2")
    pending = [_with_context(ev, UserIdentifier=who.encode())
               for ev, who in zip(_arrivals(qm1), senders, strict=True)]
    rcv = ReceiverMCA(None, "QM2", qm2.connect, lambda name: None)
    rcv.put_authority = PutAuthority("CTX", "")
    rcv, conn = await _receive(qm2, pending, rcv)
    assert len(rcv._handles) == BATCH_HANDLES
    rcv._close_handles(conn)
    conn.disconnect()
    assert qm2.drain("T1") == [who.encode() for who in senders]


async def test_a_destination_stays_open_while_batches_use_it(two_qmgrs):
    """Given a channel QM1.TO.QM2 (BATCHSZ 5, HBINT 5 at both ends) moving ten messages for
    TARGET, when their two batches are committed, then the receiver still holds TARGET open
    for output (OPPROCS 1), so DELETE QLOCAL(TARGET) is refused with MQRC_OBJECT_IN_USE, as
    IBM's receiving MCAs keep their destination queues open between batches (reason 2042);
    a batch for T2 alone closes TARGET's handle after its commit; and once the channel
    idles (its heartbeat) no destination is held open, so T2 can be deleted."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c2 = await listening(nursery, qm2)
        qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
        qm1.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="SDR", XMITQ="QM2", BATCHSZ=5, HBINT=5,
                   CONNAME=f"127.0.0.1({c2.ports[0]})")
        qm2.define("CHANNEL", "QM1.TO.QM2", CHLTYPE="RCVR", HBINT=5)
        for q in ("TARGET", "T2"):
            qm2.define("QLOCAL", q)
        for i in range(10):
            qm1.put("TARGET", b"m%d" % i, qmgr="QM2")
        c1 = await started(nursery, qm1, "QM1.TO.QM2")
        st1 = c1.status_of("QM1.TO.QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 10 and st1.last_seqno == 10)
        # (the next heartbeat is five seconds away)
        assert qm2.engine.queue_status("TARGET")["OPPROCS"] == 1
        with pytest.raises(mqpy.MQMIError) as refused:
            qm2.engine.delete("QLOCAL", "TARGET", purge=True)
        assert refused.value.reason == CMQC.MQRC_OBJECT_IN_USE
        for i in range(5):
            qm1.put("T2", b"t%d" % i, qmgr="QM2")
        await wait_until(lambda: qm2.committed("T2") == 5
                         and qm2.engine.queue_status("TARGET")["OPPROCS"] == 0)
        assert qm2.engine.queue_status("T2")["OPPROCS"] == 1
        await wait_until(lambda: qm2.engine.queue_status("T2")["OPPROCS"] == 0, 30)
        assert st1.state is ChannelState.RUNNING
        nursery.cancel_scope.cancel()
    qm2.engine.delete("QLOCAL", "T2", purge=True)
    assert qm2.drain("TARGET") == [b"m%d" % i for i in range(10)]
