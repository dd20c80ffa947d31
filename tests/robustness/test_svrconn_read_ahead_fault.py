"""A fault behind read ahead on a SVRCONN conversation (``mqpy_chinit.svrconn_stream``):
the REQUEST_MSGS it struck is answered (NOTIFICATION STREAMING_FAILURE with
MQRC_UNEXPECTED_ERROR, the usual get then says what is wrong) and logged AMQ9999E, as a
fault behind an MQI call fails that call with 2195; the instance and its conversation go
on rather than end with the conversation's task."""

from __future__ import annotations

import types

import trio

from mqpy import CMQC, loopcalls, streamer
from mqpy.fap import asyncflows
from mqpy.fap.asyncflows import MessageRequest, Notice
from mqpy.fap.framing import SegmentReader
from mqpy.fap.tsh import ByteOrder, OtherSegment, SegmentType
from mqpy_chinit import svrconn_stream


class _EngineVerbs(loopcalls.EngineVerbs):
    """An EngineVerbs with nothing behind it."""

    def __init__(self) -> None:
        self.conn = None
        self.watch = None


class _Instance:
    """What ``svrconn_stream.answer`` uses of a SVRCONN instance: what it sends and logs."""

    def __init__(self) -> None:
        reader = types.SimpleNamespace(partner_byte_order=ByteOrder.LITTLE,
                                       max_transmission_size=32766)
        self.conv = types.SimpleNamespace(
            reader=reader, writer=types.SimpleNamespace(byte_order=ByteOrder.LITTLE))
        self.registry = types.SimpleNamespace(limiter=trio.CapacityLimiter(1))
        self.sent: list[bytes] = []
        self.logged: list[tuple[str, str]] = []
        self.name = "APP.SVRCONN"

    async def _send_segment(self, segment: bytes) -> None:
        self.sent.append(segment)

    def log(self, msgid: str, text: str) -> None:
        self.logged.append((msgid, text))


async def test_a_fault_behind_read_ahead_fails_that_request_only(monkeypatch):
    """Given a conversation served by the engine of this process, when answering its
    REQUEST_MSGS raises an unexpected error, then the client is sent a NOTIFICATION
    STREAMING_FAILURE with MQRC_UNEXPECTED_ERROR for that handle on its conversation,
    the log says AMQ9999E, and nothing is raised to end the instance."""
    async def broken(*args, **kwargs):
        raise RuntimeError("a fault behind read ahead")

    monkeypatch.setattr(streamer, "answer", broken)
    instance = _Instance()
    cc = types.SimpleNamespace(backend=_EngineVerbs())
    segment = asyncflows.message_request(MessageRequest(7, 65536, 0, 0), 3)
    [event] = SegmentReader().feed(segment)
    assert isinstance(event, OtherSegment)
    await svrconn_stream.answer(instance, cc, event)
    [sent] = SegmentReader().feed(b"".join(instance.sent))
    assert (sent.segment_type, sent.conv_id) == (SegmentType.NOTIFICATION, 3)
    notice = asyncflows.parse_notification(sent.body)
    assert (notice.hobj, notice.code, notice.value) == (
        7, Notice.STREAMING_FAILURE, CMQC.MQRC_UNEXPECTED_ERROR)
    [(msgid, text)] = instance.logged
    assert msgid == "AMQ9999E" and "a fault behind read ahead" in text
