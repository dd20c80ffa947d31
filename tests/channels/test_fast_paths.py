"""The channel initiator's fast paths keep what the slow ones did: a conversation's events
already read come out in order, stay cancellable and still let other tasks run; a sending
MCA's run of transmission-queue gets kept packed gives the messages and MQMDs the decoded
gets gave; a receiving MCA's packed run of puts delivers what the verbs layer's puts
delivered."""

from __future__ import annotations

import pytest
import trio

import mqpy
from mqpy import CMQC, syncrecord
from mqpy.bindings import BindingsConnection
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.controlflows import Heartbeat, Ping, Status
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.messagedata import MessageData
from mqpy.fap.mqicalls import run_in_order
from mqpy.fap.tsh import ByteOrder
from mqpy.structs.tables import XQH
from mqpy_chinit import batchcalls, syncq
from mqpy_chinit.conversation import (
    MAX_TRANSMISSION_SIZE,
    PENDING_YIELD,
    ChannelEnded,
    Conversation,
)
from mqpy_chinit.monitor import ChannelMonitor
from mqpy_chinit.receiver_mca import ReceiverMCA
from mqpy_chinit.sender_batch import InFlight
from mqpy_chinit.sender_mca import SenderMCA
from mqpy_chinit.states import ChannelStatus
from tests.support.loopback import loopback_pair


def _messages(count: int) -> bytes:
    writer = SegmentWriter()
    return b"".join(writer.send(Ping(data=n.to_bytes(4, "big"))) for n in range(1, count + 1))


async def test_events_already_read_come_in_order_yield_now_and_then_and_stay_cancellable():
    """Given a batch's messages read in one go, when the receiving side takes them one by
    one, then they come in order, other tasks run at least every PENDING_YIELD events (a
    trip through the scheduler is not made for each one, but never skipped for long), and a
    cancelled scope stops the taking at once."""
    count = 5 * PENDING_YIELD
    async with loopback_pair() as (ours, partner):
        conv = Conversation(ours, ChannelStatus("C", "RCVR"))
        conv.agreed(MAX_TRANSMISSION_SIZE, 0)  # (past its INITIAL_DATA)
        await partner.send_all(_messages(count))
        first = await conv.recv(30)
        while len(conv.pending) < count - 1:  # the rest of the batch is in
            conv.pending.extend(conv.reader.feed(await ours.receive_some(65536)))
        ticks = 0
        seen_between: list[int] = []

        async def other_task() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await trio.lowlevel.checkpoint()

        got = [first]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(other_task)
            await trio.lowlevel.checkpoint()
            for _ in range(2 * PENDING_YIELD):
                before = ticks
                got.append(await conv.recv(30))
                seen_between.append(ticks - before)
            nursery.cancel_scope.cancel()
        assert [int.from_bytes(e.data, 'big') for e in got] == list(range(1, 2 * PENDING_YIELD + 2))
        # some takes let the other task run, but not every one
        assert 0 < sum(1 for n in seen_between if n) < len(seen_between)
        with trio.CancelScope() as scope:
            scope.cancel()
            await conv.recv(30)  # raises Cancelled: the event stays
        assert scope.cancelled_caught
        rest = [await conv.recv(30) for _ in range(count - len(got))]
        assert [int.from_bytes(e.data, 'big') for e in got + rest] == list(range(1, count + 1))
        assert not conv.pending
        await partner.send_all(SegmentWriter().send(Heartbeat()))
        assert isinstance(await conv.recv(30), Heartbeat)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    """QM1 started by strmqm (no channel initiator), its test queues defined, once for the
    module: each test leaves the queues it uses as it found them, empty; the tests connect
    to it over its bindings socket."""
    from tests.support.installation import Installation

    inst = Installation(str(tmp_path_factory.mktemp("fast_paths")))
    with pytest.MonkeyPatch.context() as patched:
        patched.setenv("MQPY_DATA_PATH", inst.root)
        inst.create("QM1")
        inst.start("QM1")
        try:
            yield inst
        finally:
            inst.kill_all()


def _put_some(qm: mqpy.QueueManager, count: int) -> list[bytes]:
    q = mqpy.Queue(qm, "Q1", CMQC.MQOO_OUTPUT)
    bodies = [bytes([n]) * (100 + n) for n in range(count)]
    for n, body in enumerate(bodies):
        q.put(body, mqpy.MD(Persistence=n % 2, Format=CMQC.MQFMT_STRING,
                            CorrelId=bytes([n]) * 24), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    q.close()
    return bodies


def test_a_run_of_gets_kept_packed_gives_what_decoded_gets_give(daemon):
    """Given messages on a queue, when a sending MCA's run of gets takes them over the
    bindings socket with their MQMDs kept packed, then each comes with its data and an MQMD
    that decodes to exactly the MQMD a decoded get fills in (PutDate and PutTime read from
    the packed bytes too); BATCHLIM's limit stops the run after the message that reaches
    it, an empty queue ends it, and the gets are in the unit of work as any get."""
    qm = mqpy.connect("QM1")
    try:
        handle = qm.connection()
        assert type(handle) is BindingsConnection  # the path under test
        bodies = _put_some(qm, 6)
        xq = mqpy.Queue(qm, "Q1", CMQC.MQOO_INPUT_EXCLUSIVE)
        # the decoded gets, as verbs.run_in_order makes them, then backed out
        mds = [mqpy.MD() for _ in bodies]
        gmo = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING)
        decoded = run_in_order(handle, [("get", (xq.get_handle(), md, gmo, 1 << 20))
                                        for md in mds])
        assert decoded == bodies
        qm.backout()
        gets = batchcalls.XmitqGets(xq.get_handle(), mqiparams.Packed.of(mqpy.MD()),
                                  mqiparams.Packed.of(gmo))
        first = gets.run(handle, 2, 150)  # 100 + 101 bytes: the second reaches the limit
        rest = gets.run(handle, 10, 0)
        assert gets.run(handle, 3, 0) == []  # none left
        got = first + rest
        assert len(first) == 2
        assert [data for _md, data in got] == bodies
        for (md, _data), want in zip(got, mds, strict=True):
            assert type(md) is mqiparams.Packed
            fields = dict(batchcalls.unpacked(md).__dict__)
            assert fields.pop("BackoutCount") == want.BackoutCount + 1  # got before: backed out
            assert fields == {k: v for k, v in want.__dict__.items() if k != "BackoutCount"}
            assert batchcalls.put_stamp(md) == (want.PutDate, want.PutTime)
        qm.backout()  # the gets were under syncpoint: all back
        again = gets.run(handle, 10, 0)
        assert [data for _md, data in again] == bodies
        qm.commit()
        assert gets.run(handle, 1, 0) == []
        xq.close()
    finally:
        qm.disconnect()


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class _AnsweredPartner:
    """A conversation whose partner has answered the batch in flight: the STATUS is on the
    socket (``arrived``), and reading it happens ``late`` seconds on (the sending MCA was
    busy with the next batch)."""

    def __init__(self, clock: _Clock, late: float) -> None:
        self.clock, self.late = clock, late

    def arrived(self) -> bool:
        return True

    async def recv(self, timeout: float | None) -> Status:
        self.clock.now += self.late
        return Status(code=0)


async def test_pipelined_nettime_is_the_partners_answer_time_not_when_it_was_read():
    """Given PipeLineLength 2 and MONCHL(HIGH) (NETTIME: the round trip at batch confirm,
    aliases-channels-storage "Monitor fields"), a batch
    whose confirm request went at t and whose STATUS was on the socket 4 ms later, when the
    sending MCA reads it only 500 ms after that (it was getting and sending the next
    batch), then NETTIME is 4 ms, not 504; a batch whose answer had not come before it was
    read is timed to the read."""
    clock = _Clock()
    status = ChannelStatus("C", "SDR")
    status.monitor = ChannelMonitor(level="HIGH")
    mca = SenderMCA("C", {}, "QM1", lambda: None, status, pipeline=2)
    mca.clock = clock
    partner = _AnsweredPartner(clock, late=0.5)
    mca.batches.inflight = InFlight(b"key", bytes(8), 50, 50, clock())
    clock.now += 0.004
    mca._note_answer(partner)  # after the next batch's gets: the answer is there
    clock.now += 0.1
    mca._note_answer(partner)  # seen again later: the first sighting counts
    flight = await mca._confirmation(partner, None)
    assert flight.last_seq == 50
    assert status.net_time_us == 4000
    mca.batches.inflight = InFlight(b"key2", bytes(8), 100, 50, clock())
    await mca._confirmation(_AnsweredPartner(clock, late=0.02), None)  # not seen before
    assert status.net_time_us == 20000
    assert status.monitor.nettime.samples == 2


async def test_what_arrived_asks_without_waiting_is_received_as_a_read_would_have():
    """Given a conversation asked whether its partner has sent anything (without waiting),
    then nothing sent is no; a flow sent is yes, and the next receive gives that flow whole
    (bytes read early and the rest read later); the partner's end, seen early, ends the
    next receive as a read would (AMQ9209E)."""
    async with loopback_pair() as (ours, partner):
        conv = Conversation(ours, ChannelStatus("C", "SDR"))
        conv.agreed(MAX_TRANSMISSION_SIZE, 0)  # (past its INITIAL_DATA)
        assert not conv.arrived()
        wire = SegmentWriter().send(Ping(data=b"p" * 5000))
        await partner.send_all(wire[:100])
        with trio.fail_after(10):
            while not conv.arrived():
                await trio.sleep(0.01)
        assert conv.arrived()  # asked again: still yes, nothing lost
        await partner.send_all(wire[100:])
        assert (await conv.recv(30)).data == b"p" * 5000
        assert not conv.arrived()
        await partner.aclose()
        with trio.fail_after(10):
            while not conv.arrived():
                await trio.sleep(0.01)
        with pytest.raises(ChannelEnded) as ended:
            await conv.recv(30)
        assert ended.value.msgid == "AMQ9209E"


def _made_arrivals(qmgr: str) -> list[MessageData]:
    """Arrivals for Q1 and Q3 at ``qmgr`` whose MQMDs set every field a sender's can carry
    (context, report options, expiry, priority, feedback, encoding, CCSID ...), persistent
    and not, little- and big-endian; the fourth for Q2."""
    out = []
    for n in range(6):
        md = mqpy.MD(MsgId=bytes([n + 1]) * 24, CorrelId=bytes([n + 7]) * 24,
                     Persistence=n % 2, Priority=n, Expiry=100000 + n,
                     Report=CMQC.MQRO_EXCEPTION if n == 2 else CMQC.MQRO_NONE,
                     Feedback=n, Encoding=546 if n % 3 else 273, CodedCharSetId=819 + n,
                     Format=CMQC.MQFMT_STRING if n % 2 else CMQC.MQFMT_NONE,
                     MsgType=CMQC.MQMT_DATAGRAM, ReplyToQ=b"REPLY.Q%d" % n,
                     ReplyToQMgr=b"QMX", UserIdentifier=b"user%d" % n,
                     AccountingToken=bytes([n]) * 32, ApplIdentityData=b"ident%d" % n,
                     PutApplType=CMQC.MQAT_UNIX, PutApplName=b"sender app %d" % n,
                     PutDate=b"2026112%d" % n, PutTime=b"1234560%d" % n,
                     ApplOriginData=b"orig")
        queue = b"Q2" if n == 3 else (b"Q1" if n % 2 == 0 else b"Q3")
        xqh = XQH(RemoteQName=queue, RemoteQMgrName=qmgr.encode(), MsgDesc=md)
        order = ByteOrder.BIG if n == 4 else ByteOrder.LITTLE
        out.append(MessageData.from_xqh(n + 1, xqh, b"body %d " % n * (50 + n),
                                        byte_order=order))
    return out


def _unexpired(md: mqpy.MD) -> bytes:
    """``md``'s bytes, its Expiry (tenths of a second left, counting down while the message
    waits: by how much depends on the machine's load) checked to be running and then left
    out of the comparison."""
    assert 0 < md.Expiry <= 100005
    copy = mqpy.MD().unpack(md.pack())
    copy.Expiry = CMQC.MQEI_UNLIMITED
    return copy.pack()


def _arrived(qm: mqpy.QueueManager) -> dict[str, list[tuple[bytes, bytes]]]:
    """Every message on Q1, Q2 and Q3 got (committed): its MQMD's bytes and its data."""
    out = {}
    for name in ("Q1", "Q2", "Q3"):
        q = mqpy.Queue(qm, name, CMQC.MQOO_INPUT_AS_Q_DEF)
        got = []
        while True:
            md = mqpy.MD()
            try:
                data = q.get(None, md)
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                break
            got.append((_unexpired(md), data))
        q.close()
        out[name] = got
    qm.commit()
    return out


def test_a_receivers_packed_puts_deliver_what_the_verbs_path_delivers(daemon, monkeypatch):
    """Given arrivals whose MQMDs set every field (some big-endian, some persistent), when
    a receiving MCA puts them over the bindings socket as one packed SPI RUN_QUIET
    (batchcalls.run_quiet) and then, once more, through the verbs layer (run_in_order),
    then the same messages arrive, each MQMD byte for byte the same and the sender's (its
    context kept); a put that fails (Q2 put-inhibited) stops both runs at the same
    message; and the run that ends a batch replaces the sync record and commits it, in
    the fast path as in the other."""
    qm = mqpy.connect("QM1")
    try:
        handle = qm.connection()
        assert type(handle) is BindingsConnection  # the path under test
        evs = _made_arrivals("QM1")
        q2 = mqpy.Queue(qm, "Q2", CMQC.MQOO_SET)
        rcv = ReceiverMCA(None, "QM1", lambda: qm, lambda name: None)
        rcv.name, rcv.partner = "C", "QMX"
        rcv.syncq = syncq.ChannelSyncQ(qm)
        rcv.syncq.replace_in_uow(syncrecord.SyncRecord("C", "R", 0, bytes(8), "QMX"))
        qm.commit()
        calls = []

        def verbs_path(handle, steps, commit=False):
            calls.append(len(steps))
            return run_in_order(handle, steps), False  # the caller commits

        arrived = []
        for path in ("packed", "verbs"):
            if path == "verbs":
                monkeypatch.setattr(batchcalls, "run_quiet", verbs_path)
            # a batch of three, its sync record replaced and committed in the same call
            put, committed = rcv._put_run(qm, evs[:3], rcv._record(3, b"1" * 8))
            assert put == [len(ev.data) for ev in evs[:3]] and committed
            # Q2 refuses puts: the run stops at once, nothing of it done
            q2.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
            put, committed = rcv._put_run(qm, evs[3:], rcv._record(6, b"2" * 8))
            assert put == [] and not committed
            qm.backout()
            # Q2 takes them: the record, lost track of, goes by the full search
            q2.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
            put, committed = rcv._put_run(qm, evs[3:], rcv._record(6, b"2" * 8))
            assert put == [len(ev.data) for ev in evs[3:]] and not committed
            rcv.syncq.replace_in_uow(rcv._record(6, b"2" * 8))
            qm.commit()
            rec = syncrecord.read(qm, "C", "R", "QMX")
            assert (rec.seq, rec.luwid) == (6, b"2" * 8)
            arrived.append(_arrived(qm))
            rcv._close_handles(qm)
        assert calls  # the second time round did go through the verbs layer
        packed, verbs = arrived
        assert packed == verbs
        # each MQMD as the sender set it (the highest priority first)
        for name, sent in (("Q1", (4, 2, 0)), ("Q2", (3,)), ("Q3", (5, 1))):
            assert packed[name] == [(_unexpired(evs[n].md), evs[n].data) for n in sent]
        q2.close()
    finally:
        qm.disconnect()


def test_a_bindings_resolve_may_commit_without_waiting_for_the_force(daemon):
    """Given two units of work prepared (in doubt) over the bindings socket, when one is
    committed with BindingsConnection.resolve(wait=False) (a pipelined sending MCA's
    settle before more work) and the other backed out, then the first's message is there,
    the second's is not, and nothing is left in doubt."""
    qm = mqpy.connect("QM1")
    try:
        handle = qm.connection()
        q = mqpy.Queue(qm, "Q4", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        for body, luwid in ((b"kept", b"K" * 8), (b"gone", b"G" * 8)):
            q.put(body, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
                  mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            handle.prepare(luwid)
        assert sorted(handle.indoubt()) == [b"G" * 8, b"K" * 8]
        handle.resolve(b"K" * 8, True, wait=False)
        handle.resolve(b"G" * 8, False)
        assert handle.indoubt() == []
        assert q.get() == b"kept"
        with pytest.raises(mqpy.MQMIError) as none:
            q.get()
        assert none.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        q.close()
    finally:
        qm.disconnect()


@pytest.mark.parametrize("data", [b"", b"one message", b"x" * 70000])
def test_an_arrivals_put_packed_by_hand_is_the_flow_the_general_packer_makes(data):
    """Given an arrival whose MQMD and MQPMO are packed little-endian, when the receiving
    MCA packs its MQPUT request by hand (batchcalls._put_flow), then the bytes are those of
    mqiflows's general packer and segment writer; an MQMD packed big-endian, or one that is
    an object, is left to the general way (None)."""
    md = mqpy.MD(Persistence=1, Format=CMQC.MQFMT_STRING, UserIdentifier=b"someone")
    packed_md = mqiparams.Packed.of(md)
    pmo = mqiparams.Packed.of(mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    general = mqiflows.pack_flows([mqiflows.encode_request(
        mqiflows.SegmentType.MQPUT, [packed_md, pmo, data], hobj=17)])
    assert batchcalls._put_flow(17, packed_md, pmo, data) == general
    big = mqiparams.Packed(mqpy.MD, md.pack(CMQC.MQENC_INTEGER_NORMAL), ByteOrder.BIG)
    assert batchcalls._put_flow(17, big, pmo, data) is None
    assert batchcalls._put_flow(17, md, pmo, data) is None
