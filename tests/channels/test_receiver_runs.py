"""How many arrivals a receiving MCA puts in one round trip to its queue manager: with
NPMSPEED(FAST) its non-persistent messages are put as soon as they have arrived (seed 000
§3), and a run carries every message that has arrived by then -- those a read of the
socket, made without waiting, finds behind the last one read -- never one still to come."""

from __future__ import annotations

import collections

import pytest
import trio

from mqpy.fap.controlflows import Ping, Status
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.messagedata import MessageData
from mqpy.fap.statuscodes import StatusCode
from mqpy_chinit.conversation import MAX_TRANSMISSION_SIZE, ChannelEnded, Conversation
from mqpy_chinit.receiver_mca import ReceiverMCA
from mqpy_chinit.states import ChannelStatus
from tests.channels.pairs import _message
from tests.support.loopback import loopback_pair


async def test_flows_on_the_socket_behind_those_read_are_received_without_waiting():
    """Given a conversation that has received a flow, when asked for more without waiting,
    then with nothing sent since it says no; with two flows sent since it says yes and the
    next receives give them in order; with half a flow sent it says no, and the next
    receive gives the flow once the rest has come."""
    async with loopback_pair() as (ours, partner):
        conv = Conversation(ours, ChannelStatus("C", "RCVR"))
        conv.agreed(MAX_TRANSMISSION_SIZE, 0)  # (past its INITIAL_DATA)
        writer = SegmentWriter()
        await partner.send_all(writer.send(Ping(data=b"first")))
        assert (await conv.recv(30)).data == b"first"
        assert not conv.received_more()
        await partner.send_all(writer.send(Ping(data=b"second"))
                               + writer.send(Ping(data=b"third")))
        with trio.fail_after(10):
            while not conv.received_more():
                await trio.sleep(0.01)
        # BUFSRCVD counts transmissions (TSH segments), as IBM's does: three, in two reads
        assert conv.status.buffers_received == 3
        assert [(await conv.recv(30)).data for _ in range(2)] == [b"second", b"third"]
        wire = writer.send(Ping(data=b"f" * 3000))
        await partner.send_all(wire[:1000])
        await trio.sleep(0.05)
        assert not conv.received_more()  # (and what it read is kept)
        await partner.send_all(wire[1000:])
        assert (await conv.recv(30)).data == b"f" * 3000


async def test_the_partners_end_or_a_protocol_error_found_early_ends_the_next_receive():
    """Given a conversation asked for more without waiting, when what it finds is the
    partner's end, then it says no and the next receive ends the channel (AMQ9209E); when
    it is not a segment, it says no and the next receive tells the partner with STATUS and
    ends the channel (AMQ9504E), as a receive that read it would have."""
    async with loopback_pair() as (ours, partner):
        conv = Conversation(ours, ChannelStatus("C", "RCVR"))
        conv.agreed(MAX_TRANSMISSION_SIZE, 0)  # (past its INITIAL_DATA)
        await partner.aclose()
        await trio.sleep(0.05)
        assert not conv.received_more()
        with pytest.raises(ChannelEnded) as ended:
            await conv.recv(30)
        assert ended.value.msgid == "AMQ9209E"
    async with loopback_pair() as (ours, partner):
        conv = Conversation(ours, ChannelStatus("C", "RCVR"))
        conv.agreed(MAX_TRANSMISSION_SIZE, 0)  # (past its INITIAL_DATA)
        await partner.send_all(b"JUNK" + bytes(40))
        await trio.sleep(0.05)
        assert not conv.received_more()
        with pytest.raises(ChannelEnded) as ended:
            await conv.recv(30)
        assert ended.value.msgid == "AMQ9504E"
        with trio.fail_after(10):
            told = await partner.receive_some(1000)
        assert told[9] == 0x05  # STATUS_DATA
        assert conv.status.buffers_received == 1


class _Reads:
    """A partner's flows as the reads that would bring them: ``recv`` gives the events of
    one read after another; ``received_more`` brings in the next read only if it has
    already "arrived" (its number is in ``arrived``). What was answered is kept."""

    def __init__(self, reads: list[list[MessageData]], arrived: set[int]) -> None:
        self.reads = collections.deque(reads)
        self.arrived = arrived
        self.taken = 0  # reads taken
        self.pending: collections.deque = collections.deque()
        self.answers: list = []
        self.stream = None

    async def recv(self, timeout: float | None) -> object:
        await trio.lowlevel.checkpoint()
        if not self.pending:
            self._take()
        return self.pending.popleft()

    def _take(self) -> None:
        if not self.reads:
            self.pending.append(Status(code=StatusCode.USER_CLOSED))
            return
        self.pending.extend(self.reads.popleft())
        self.taken += 1

    def received_more(self) -> bool:
        if not self.pending and self.reads and self.taken in self.arrived:
            self._take()
        return bool(self.pending)

    async def send(self, event: object) -> None:
        self.answers.append(event)


async def _receive(qm2, reads: list[list[MessageData]], arrived: set[int],
                   definition: dict[str, object]) -> list[int]:
    """The sizes of the runs of puts a receiving MCA of QM2 makes for ``reads``."""
    runs: list[int] = []

    class Counted(ReceiverMCA):
        def _put_run(self, qm, evs, record=None):
            put, committed = super()._put_run(qm, evs, record)
            runs.append(len(put))
            return put, committed

    conv = _Reads(reads, arrived)
    rcv = Counted(None, "QM2", qm2.connect, lambda name: None)
    rcv.name, rcv.definition, rcv.partner = "C", definition, "QM1"
    # as the ID exchange agrees it when the partner's NPMSPEED is FAST too
    rcv.fast = definition.get("NPMSPEED", "FAST") == "FAST"
    qm = qm2.connect()
    try:
        await rcv._serve(conv, qm)
    finally:
        qm.disconnect()
    assert conv.answers == [Status(code=0)]
    return runs


@pytest.mark.parametrize("arrived, runs", [({1, 2}, [30]), (set(), [10, 10, 10])])
async def test_fast_arrivals_already_on_the_socket_go_in_one_run(two_qmgrs, arrived, runs):
    """Given an NPMSPEED(FAST) channel whose batch of 30 non-persistent messages comes in
    three reads, when the second and third reads have arrived by the time the first is
    taken, then the receiving MCA puts all 30 in one run; when each comes only after the
    one before was taken, it puts each read's messages as soon as they are in (three
    runs): a fast message is never held back for one still to come. Either way all 30 are
    on TARGET and the batch is confirmed."""
    qm1, qm2 = two_qmgrs
    qm2.define("QLOCAL", "TARGET")
    messages = [_message(n, confirm=n == 30) for n in range(1, 31)]
    reads = [messages[:10], messages[10:20], messages[20:]]
    assert await _receive(qm2, reads, arrived, {"CHLTYPE": "RCVR"}) == runs
    assert sorted(qm2.drain("TARGET")) == sorted(b"%d" % n for n in range(1, 31))


async def test_persistent_arrivals_wait_for_the_batchs_end_whatever_has_arrived(two_qmgrs):
    """Given a batch of 30 persistent messages in three reads, none arrived early, when the
    receiving MCA takes them, then it puts them in one run at the batch's end (under
    syncpoint, nobody could see them before): the reads do not cut the run."""
    qm1, qm2 = two_qmgrs
    qm2.define("QLOCAL", "TARGET")
    messages = [_message(n, confirm=n == 30, persistent=True) for n in range(1, 31)]
    reads = [messages[:10], messages[10:20], messages[20:]]
    assert await _receive(qm2, reads, set(), {"CHLTYPE": "RCVR"}) == [30]
    assert qm2.committed("TARGET") == 30
