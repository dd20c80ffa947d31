"""A conversation over a plain TCP socket, driven by the conversation itself
(mqpy_chinit/conversation.py): the same events, errors, timeouts and counters as over trio's
stream methods, which a TLS stream (and any stream not a plain socket) still uses.

Each test runs the conversation on one end of a real loopback TCP connection and plays the
partner on the other end with raw bytes."""

from __future__ import annotations

import json
import os
import socket

import pytest
import trio
import trio.testing

from mqpy import trace
from mqpy.fap.apiheader import MQIReply, MQIRequest
from mqpy.fap.controlflows import Heartbeat, Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ControlFlags1, SegmentType
from mqpy_chinit.conversation import MAX_TRANSMISSION_SIZE, ChannelEnded, Conversation
from mqpy_chinit.states import ChannelStatus
from mqpy_chinit.tlsstream import Prefixed
from tests.support.loopback import loopback_pair

_PUT = SegmentType.MQPUT


def _conversation(stream: trio.abc.Stream) -> Conversation:
    """A conversation past its INITIAL_DATA exchange (the largest sizes agreed)."""
    conv = Conversation(stream, ChannelStatus("C", "SVRCONN"))
    conv.agreed(MAX_TRANSMISSION_SIZE, 0)
    return conv


async def _read_events(stream: trio.SocketStream, count: int) -> list:
    reader = SegmentReader()
    events: list = []
    with trio.fail_after(30):  # a flow cut short fails here rather than hanging
        while len(events) < count:
            data = await stream.receive_some(65536)
            assert data, "the conversation closed before its events were all sent"
            events += reader.feed(data)
    return events


async def test_plain_tcp_is_driven_on_the_socket_and_tls_is_not():
    """Given a plain TCP stream, bare or with bytes already read (Prefixed), then the
    conversation drives its socket; given any other stream (TLS, a memory stream), then it
    keeps the stream's methods."""
    async with loopback_pair() as (ours, _partner):
        assert _conversation(ours).sock is not None
        assert _conversation(Prefixed(ours, b"TSH")).sock is not None
    left, _right = trio.testing.memory_stream_pair()
    assert _conversation(left).sock is None


async def test_one_segment_requests_in_any_chunks_come_out_whole():
    """Given one-segment MQI requests sent a byte at a time and then several in one write,
    then each comes out once, whole, in order, and every read counts a buffer received."""
    requests = [MQIRequest(segment_type=_PUT, hobj=n, body=bytes([n]) * 1024, conv_id=1,
                           request_id=n) for n in range(1, 4)]
    wire = [SegmentWriter().send(r) for r in requests]
    async with loopback_pair() as (ours, partner):
        conv = _conversation(ours)
        for byte in wire[0]:
            await partner.send_all(bytes([byte]))
        first = await conv.recv(None)
        await partner.send_all(wire[1] + wire[2])
        got = [first, await conv.recv(None), await conv.recv(None)]
    assert [(e.hobj, e.body, e.request_id) for e in got] == \
        [(r.hobj, r.body, r.request_id) for r in requests]
    assert conv.status.buffers_received >= 2


async def test_a_multi_segment_flow_both_ways_through_a_small_socket_buffer():
    """Given a reply of 512 KB (16 segments of the 32 KB maximum) and socket buffers far
    smaller, when the conversation sends it while the partner reads slowly, then it all
    arrives (the send waited for room and went on where it stopped), as one flow; and the
    same flow sent back arrives as one request."""
    body = bytes(range(256)) * 2048
    reply = MQIReply(segment_type=SegmentType.MQGET_REPLY, body=body, conv_id=3,
                     request_id=7)
    async with loopback_pair() as (ours, partner):
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
        partner.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        conv = _conversation(ours)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(conv.send, reply)
            (got,) = await _read_events(partner, 1)
        assert (got.body, got.conv_id, got.request_id) == (body, 3, 7)
        assert conv.status.buffers_sent == len(SegmentWriter().segments(reply)) > 1
        request = MQIRequest(segment_type=_PUT, body=body, conv_id=3, request_id=8)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(partner.send_all, SegmentWriter().send(request))
            back = await conv.recv(30)
    assert (back.segment_type, back.body, back.request_id) == (_PUT, body, 8)


async def test_bytes_already_read_come_first():
    """Given a Prefixed stream (the listener read the first bytes to tell TLS from plain),
    then those bytes are taken before the socket's, and a flow split between them is
    whole."""
    wire = SegmentWriter().send(MQIRequest(segment_type=_PUT, body=b"x" * 3000))
    async with loopback_pair() as (ours, partner):
        conv = _conversation(Prefixed(ours, wire[:100]))
        await partner.send_all(wire[100:])
        event = await conv.recv(None)
    assert event.body == b"x" * 3000


@pytest.mark.parametrize("garbage, code", [
    (b"GARBAGE!" + bytes(40), StatusCode.PROTOCOL_SEGMENT_ERROR),
    (b"TSHM" + (1 << 20).to_bytes(4, "big") + bytes(40), StatusCode.PROTOCOL_LENGTH_ERROR),
])
async def test_a_malformed_or_oversized_frame_is_answered_and_ends_the_conversation(
        garbage, code):
    """Given bytes that are not a TSH, or a segment longer than the maximum transmission
    size, then the partner gets STATUS (ERROR) with the protocol error's code and the
    conversation ends with AMQ9504E carrying that code."""
    async with loopback_pair() as (ours, partner):
        conv = _conversation(ours)
        await partner.send_all(garbage)
        with pytest.raises(ChannelEnded) as ended, trio.fail_after(30):
            await conv.recv(None)
        (status,) = await _read_events(partner, 1)
    assert (ended.value.msgid, ended.value.status_code) == ("AMQ9504E", code)
    assert isinstance(status, Status) and status.code == code
    assert status.flags & ControlFlags1.ERROR


async def test_a_partner_closing_mid_frame_ends_the_conversation():
    """Given half a segment and then the partner's close, then the conversation ends with
    AMQ9209E (connection closed), not a hang and not a half event."""
    wire = SegmentWriter().send(MQIRequest(segment_type=_PUT, body=b"y" * 500))
    async with loopback_pair() as (ours, partner):
        conv = _conversation(ours)
        await partner.send_all(wire[:200])
        await partner.aclose()
        with pytest.raises(ChannelEnded) as ended, trio.fail_after(30):  # not a hang
            await conv.recv(None)
    assert ended.value.msgid == "AMQ9209E"


async def test_a_receive_timeout_still_fires_and_a_late_flow_is_still_read():
    """Given nothing from the partner, then a receive with a timeout ends with AMQ9259E;
    a flow that comes afterwards is read by the next receive."""
    async with loopback_pair() as (ours, partner):
        conv = _conversation(ours)
        with pytest.raises(ChannelEnded) as ended:
            await conv.recv(0.05)
        assert ended.value.msgid == "AMQ9259E"
        await partner.send_all(SegmentWriter().send(Heartbeat()))
        assert isinstance(await conv.recv(5), Heartbeat)


async def test_a_receive_without_timeout_is_still_cancellable():
    """Given a receive waiting with no timeout, when its scope is cancelled (STOP CHANNEL,
    an instance ending), then it stops waiting."""
    async with loopback_pair() as (ours, _partner):
        conv = _conversation(ours)
        with trio.move_on_after(0.05) as scope:
            await conv.recv(None)
    assert scope.cancelled_caught


async def test_closing_the_stream_under_a_waiting_receive_ends_it():
    """Given a receive waiting on the socket, when another task closes the stream, then the
    receive ends with AMQ9208E rather than waiting forever; a send afterwards ends with
    AMQ9206E."""
    async with loopback_pair() as (ours, _partner):
        conv = _conversation(ours)
        async with trio.open_nursery() as nursery:
            async def close_soon() -> None:
                await trio.testing.wait_all_tasks_blocked()
                await conv.stream.aclose()
            nursery.start_soon(close_soon)
            with pytest.raises(ChannelEnded) as received, trio.fail_after(30):  # not a hang
                await conv.recv(None)
        with pytest.raises(ChannelEnded) as sent:
            await conv.send(Heartbeat())
    assert received.value.msgid == "AMQ9208E"
    assert sent.value.msgid == "AMQ9206E"


async def test_a_send_to_a_partner_that_reset_ends_with_amq9206():
    """Given a partner that closed with a reset, then sending ends the conversation with
    AMQ9206E (the socket's error in its text), not a traceback."""
    async with loopback_pair() as (ours, partner):
        conv = _conversation(ours)
        partner.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
        await partner.aclose()
        with pytest.raises(ChannelEnded) as ended:  # the first send may still be taken
            for _ in range(100):
                await conv.send(Heartbeat())
                await trio.sleep(0.01)
    assert ended.value.msgid == "AMQ9206E"
    assert "broken" in ended.value.text


async def test_sends_are_counted_and_received_in_order():
    """Given events sent one by one and as a batch, then the partner reads them in order
    and each segment counts one buffer sent."""
    events = [Heartbeat(), MQIReply(segment_type=SegmentType.MQPUT_REPLY, body=b"a"),
              Status(code=StatusCode.USER_CLOSED)]
    async with loopback_pair() as (ours, partner):
        conv = _conversation(ours)
        await conv.send(events[0])
        await conv.send_many(events[1:])
        got = await _read_events(partner, 3)
    assert [type(e) for e in got] == [Heartbeat, MQIReply, Status]
    assert conv.status.buffers_sent == 3


async def test_strmqtrc_comms_records_a_channel_initiators_flows(tmp_path, monkeypatch):
    """Given strmqtrc -m QM1 -t comms and a channel initiator of QM1, when a conversation
    sends a heartbeat and the partner receives it, then the process's AMQ<pid>.TRC has the
    flow sent and the flow received, with the channel's name and the bytes, and dspmqtrc
    shows them; traced for another queue manager, nothing is written."""

    monkeypatch.setenv("MQPY_DATA_PATH", str(tmp_path))
    tracer = trace.Tracer()
    tracer.process_qmgr = "QM1"
    monkeypatch.setattr("mqpy_chinit.conversation.TRACER", tracer)
    path = tmp_path / "trace" / f"AMQ{os.getpid()}.TRC"
    trace.start(trace.TraceSpec(qmgr="QM2", types=("comms",)))
    left, right = trio.testing.memory_stream_pair()
    a = Conversation(left, ChannelStatus("TO.QM2", "SDR"))
    b = Conversation(right, ChannelStatus("TO.QM2", "RCVR"))
    b.agreed(MAX_TRANSMISSION_SIZE, 0)
    await a.send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST))
    await b.recv(5)
    assert not path.exists()
    trace.start(trace.TraceSpec(qmgr="QM1", types=("comms",)))
    tracer.look_again()  # look at the control file again now
    await a.send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST))
    await b.recv(5)
    records = [json.loads(line) for line in path.read_text().splitlines()][1:]
    assert [(r["k"], r["fn"], r["channel"]) for r in records] == [
        (">", "Heartbeat", "TO.QM2"), ("<", "Heartbeat", "TO.QM2")]
    assert records[0]["bytes"] == records[1]["bytes"] > 0
    shown = "\n".join(trace.format_records(path.read_text().splitlines()))
    assert ">> Heartbeat sent on channel TO.QM2" in shown
    assert "<< Heartbeat received on channel TO.QM2" in shown
