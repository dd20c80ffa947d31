"""Client calls served at once by the SVRCONN's receiver (mqpy_chinit/svrconn_inline.py,
``_serve_now``): an MQPUT or MQGET without wait, on a conversation whose queue manager is in
the channel initiator's process, is made where it is read instead of by the conversation's
task. What the client sees and what the channel status counts stay those of every call
(the same MQI semantics as bindings, DISPLAY CHSTATUS; a persistent message
acknowledged is durable)."""

from __future__ import annotations

import attrs
import trio

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.controlflows import Heartbeat, Ping
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import SegmentType
from mqpy_chinit.conversation import PENDING_YIELD, Conversation
from mqpy_chinit.states import ChannelStatus
from tests.client.conftest import QMGR, QUEUE
from tests.support.loopback import loopback_pair
from tests.support.raw_sessions import _RawClient

_T = SegmentType


@attrs.define(eq=False)
class _Steps(trio.abc.Instrument):
    """Counts the times one task gave the scheduler a turn (each step it ends)."""

    task: trio.lowlevel.Task
    ended: int = 0

    def after_task_step(self, task: trio.lowlevel.Task) -> None:
        if task is self.task:
            self.ended += 1


def test_status_counts_the_calls_and_the_bytes_of_calls_served_at_once(env):
    """Given a client connection, when it puts two messages, gets them and fails a get,
    then CHSTATUS counts every call (MSGS) and, in BYTSRCVD and BYTSSENT, every byte of
    the conversation (IBM: control information included), so more than the put data and
    the got data, as for calls its task makes."""
    qm = env.client()
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    queue.put(b"a" * 300)
    queue.put(b"b" * 700)
    assert queue.get() == b"a" * 300
    assert queue.get() == b"b" * 700
    try:
        queue.get()
        raise AssertionError("a get of an empty queue completed")
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    [status] = env.chinit.svrconn_statuses()
    assert status["MSGS"] == 7  # MQCONN, MQOPEN, two puts, three gets
    assert status["BYTSRCVD"] > 1000
    assert status["BYTSSENT"] > 1000
    queue.close()
    qm.disconnect()


def test_a_persistent_put_is_answered_once_its_log_record_is_forced(env):
    """Given a client connection, when a persistent put outside syncpoint returns, then
    the queue manager's log is on disk up to its end: the call served at once left its
    force to the conversation's task, which made it before answering."""
    qm = env.client()
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    log = env.engine.data.log
    for i in range(3):
        queue.put(b"kept %d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
        assert log.flushed_lsn >= log.end_lsn
        got = queue.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        assert got == b"kept %d" % i
        assert log.flushed_lsn >= log.end_lsn
    queue.close()
    qm.disconnect()


class _Pipelining(_RawClient):
    """A client that writes several requests, of its conversations 1 and 2, at once."""

    def __init__(self, port: int) -> None:
        super().__init__(port)
        self.request_ids = {1: 0, 2: 0}

    def flow_of(self, conv_id: int, verb: SegmentType, values, hobj: int = 0) -> bytes:
        self.request_ids[conv_id] += 1
        request = mqiflows.encode_request(verb, values, hobj=hobj)
        return self.writer.send(attrs.evolve(request, conv_id=conv_id,
                                             request_id=self.request_ids[conv_id]))

    def replies(self, count: int) -> list:
        events: list = []
        while len(events) < count:
            data = self.sock.recv(65536)
            assert data, "the channel initiator closed the connection"
            events += self.reader.feed(data)
        assert len(events) == count
        return events

    def open_queue(self, conv_id: int) -> int:
        self.sock.sendall(self.flow_of(conv_id, _T.MQCONN, [(QMGR, "pipelining"), None]))
        assert self.replies(1)[0].comp == CMQC.MQCC_OK
        self.sock.sendall(self.flow_of(conv_id, _T.MQOPEN, [
            mqpy.OD(ObjectName=QUEUE), CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF
            | CMQC.MQOO_INQUIRE]))
        [opened] = self.replies(1)
        assert opened.comp == CMQC.MQCC_OK
        return opened.hobj


def _get(client: _Pipelining, conv_id: int, hobj: int) -> bytes:
    return client.flow_of(conv_id, _T.MQGET, [mqpy.MD(), mqpy.GMO(), -1], hobj=hobj)


def _put(client: _Pipelining, conv_id: int, hobj: int, data: bytes) -> bytes:
    return client.flow_of(conv_id, _T.MQPUT, [mqpy.MD(), mqpy.PMO(), data], hobj=hobj)


def _data(reply: MQIReply) -> bytes:
    return mqiflows.decode_reply(reply).values[3]


def test_requests_read_at_once_are_each_answered_to_their_conversation(env):
    """Given two conversations of one socket, when the client writes a put of each and
    then a get of each in one write, then four replies come, each with its request's
    ConvId and RequestId, and each get has the message its conversation put first."""
    client = _Pipelining(env.chinit.port)
    h1, h2 = client.open_queue(1), client.open_queue(2)
    client.sock.sendall(_put(client, 1, h1, b"one") + _put(client, 2, h2, b"two")
                        + _get(client, 1, h1) + _get(client, 2, h2))
    replies = client.replies(4)
    assert [(r.conv_id, r.request_id, r.segment_type) for r in replies] == [
        (1, 3, _T.MQPUT_REPLY), (2, 3, _T.MQPUT_REPLY),
        (1, 4, _T.MQGET_REPLY), (2, 4, _T.MQGET_REPLY)]
    assert all(r.comp == CMQC.MQCC_OK for r in replies)
    assert [_data(r) for r in replies[2:]] == [b"one", b"two"]


def test_a_call_served_at_once_never_overtakes_one_its_conversation_has_queued(env):
    """Given a conversation, when the client writes an MQINQ (made by the conversation's
    task) and right behind it a put and a get (which could be served at once), then the
    replies come in the order of the requests: the queue depth inquired is that before
    the put."""
    client = _Pipelining(env.chinit.port)
    hobj = client.open_queue(1)
    inquire = client.flow_of(1, _T.MQINQ, [[CMQC.MQIA_CURRENT_Q_DEPTH]], hobj=hobj)
    client.sock.sendall(inquire + _put(client, 1, hobj, b"later") + _get(client, 1, hobj))
    inquired, put, got = client.replies(3)
    assert [r.segment_type for r in (inquired, put, got)] == [
        _T.MQINQ_REPLY, _T.MQPUT_REPLY, _T.MQGET_REPLY]
    assert [r.request_id for r in (inquired, put, got)] == [3, 4, 5]
    assert mqiflows.decode_reply(inquired).values[0] == [0]
    assert _data(got) == b"later"


async def test_the_receiver_reads_what_is_in_at_once_and_still_lets_others_run():
    """Given a SVRCONN's conversation whose partner's flows are in before each read, when
    the receiver takes them (``Conversation.take``), then each comes in order, read at once
    rather than waited for: it gives the scheduler a turn every PENDING_YIELD reads (a
    late segment aside) rather than at each, as a wait would; a cancelled scope stops a
    take before it reads, and what was not read comes with the next."""
    async with loopback_pair() as (ours, partner):
        conv = Conversation(ours, ChannelStatus("APP.SVRCONN", "SVRCONN"))
        writer = SegmentWriter()
        steps = _Steps(trio.lowlevel.current_task())
        trio.lowlevel.add_instrument(steps)
        got: list[int] = []
        yielded: list[int] = []  # the times a take gave the scheduler a turn
        try:
            for n in range(3 * PENDING_YIELD):
                await partner.send_all(writer.send(Ping(data=n.to_bytes(4, "big"))))
                await trio.sleep(0.001)  # in the socket before the take
                before = steps.ended
                got += [int.from_bytes(e.data, "big") for e in await conv.take()]
                yielded.append(steps.ended - before)
        finally:
            trio.lowlevel.remove_instrument(steps)
        assert got == list(range(3 * PENDING_YIELD))
        # a wait would give the scheduler a turn at each take; reads at once, every
        # PENDING_YIELD-th time
        assert 0 < sum(1 for n in yielded if n) <= len(yielded) // 4
        await partner.send_all(writer.send(Heartbeat()))
        with trio.CancelScope() as scope:
            scope.cancel()
            await conv.take()
        assert scope.cancelled_caught
        assert [type(e) for e in await conv.take()] == [Heartbeat]
