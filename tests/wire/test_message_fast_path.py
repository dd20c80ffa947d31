"""The one-segment MESSAGE_DATA fast path of SegmentReader / SegmentWriter gives what the
general path gives: the same bytes written, the same events read, the same errors."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mqpy
from mqpy.fap import controlflows, messagedata, tsh
from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH, MessageData
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import ByteOrder, ControlFlags1, SegmentType
from mqpy_chinit.sender_mca import SenderMCA
from tests.support.segments import _fields, _trickled, _writer

_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _xqh(order: ByteOrder, persistence: int = 1) -> bytes:
    xqh = mqpy.XQH(RemoteQName=b"TARGET", RemoteQMgrName=b"QM2")
    xqh.MsgDesc.Persistence = persistence
    return xqh.pack(tsh.mq_encoding(order))


@st.composite
def _messages(draw: st.DrawFn) -> MessageData:
    order = draw(st.sampled_from(list(ByteOrder)))
    return MessageData(
        seqnum=draw(st.integers(min_value=0, max_value=2**32 - 1)),
        xqh=_xqh(order, draw(st.sampled_from([0, 1]))),
        data=draw(st.binary(max_size=3000)),
        byte_order=order,
        flags=draw(st.sampled_from([ControlFlags1.NONE, ControlFlags1.CONFIRM_REQUEST,
                                    ControlFlags1.CONFIRM_REQUEST | ControlFlags1.REQUEST_CLOSE,
                                    ControlFlags1.ERROR])),
        luwid=draw(st.binary(min_size=8, max_size=8)),
    )


@_SETTINGS
@given(_messages())
def test_a_one_segment_message_is_written_as_the_general_path_writes_it(event) -> None:
    """Given any message that fits one segment, when written in its own byte order, then its
    bytes are those of the general segment builder: one segment with FIRST and LAST."""
    writer = _writer(event.byte_order)
    raw = writer.send(event)
    assert raw == b"".join(writer._segments(event))
    assert writer.segments(event) == [raw] and writer.send_counted(event) == (raw, 1)
    assert raw[10] & 0x30 == 0x30  # FIRST | LAST


@_SETTINGS
@given(_messages())
def test_a_one_segment_message_is_read_as_the_general_path_reads_it(event) -> None:
    """Given any message as one segment, when fed whole (the fast path) and byte by byte
    (the general path), then both give the event written, field by field and type by type
    (as its constructor makes it), and the same partner byte order, encoding and CCSID."""
    raw = _writer(event.byte_order).send(event)
    assert messagedata.parse_message_segment(raw, 0, 32766) is not None  # the fast path takes it
    fast, general = SegmentReader(), SegmentReader()
    (got,) = fast.feed(raw)
    assert [got] == _trickled(raw, general) == [event]
    assert _fields(got) == _fields(event) == _fields(attrs.evolve(got))
    for attribute in ("partner_byte_order", "partner_encoding", "partner_ccsid"):
        assert getattr(fast, attribute) == getattr(general, attribute)


def test_a_message_in_another_byte_order_is_written_the_general_way() -> None:
    """Given a message whose MQXQH is big-endian, when a little-endian writer sends it, then
    the MQXQH is re-packed little-endian, as the general path always did."""
    event = MessageData(seqnum=3, xqh=_xqh(ByteOrder.BIG), data=b"d", byte_order=ByteOrder.BIG)
    raw = _writer(ByteOrder.LITTLE).send(event)
    (got,) = SegmentReader().feed(raw)
    assert got == event.in_byte_order(ByteOrder.LITTLE)


def test_the_sending_mcas_message_is_the_constructors() -> None:
    """Given a transmission-queue message, when the sending MCA makes its MESSAGE_DATA (with
    and without the batch's LUWID), then the event equals the constructor's field by field;
    a message too short for an MQXQH is refused by the constructor, as before."""
    got = _xqh(ByteOrder.LITTLE) + b"payload"
    for confirm, luwid in ((False, None), (True, b"L" * 8)):
        made = SenderMCA._message(7, got, confirm=confirm, luwid=luwid)
        built = MessageData(seqnum=7, xqh=got[:XQH_WITH_MD_LENGTH], data=b"payload",
                            flags=ControlFlags1.CONFIRM_REQUEST if confirm
                            else ControlFlags1.NONE, **({"luwid": luwid} if luwid else {}))
        assert _fields(made) == _fields(built) and hash(made) == hash(built)
    with pytest.raises(ValueError):
        SenderMCA._message(7, b"short", confirm=False)


def _stream(order: ByteOrder) -> tuple[list[tsh.Event], bytes]:
    events: list[tsh.Event] = [
        MessageData(seqnum=1, xqh=_xqh(order), data=b"a" * 700, byte_order=order),
        MQIRequest(segment_type=SegmentType.MQPUT, hobj=5, body=b"b" * 100, reply_length=144),
        MessageData(seqnum=2, xqh=_xqh(order), data=b"long" * 600, byte_order=order),  # split
        controlflows.Heartbeat(),
        MessageData(seqnum=3, xqh=_xqh(order), data=b"c" * 10, byte_order=order,
                    flags=ControlFlags1.CONFIRM_REQUEST, luwid=b"LUW12345"),
        Status(code=0),
        MessageData(seqnum=4, xqh=_xqh(order), data=b"", byte_order=order),
    ]
    writer = _writer(order, maximum=1024)
    return events, b"".join(writer.send(e) for e in events)


@pytest.mark.parametrize("order", list(ByteOrder))
@pytest.mark.parametrize("cut", [None, 1, 7, 300, 700, 1100, 2500])
def test_messages_mixed_with_other_flows_keep_their_order_however_the_reads_fall(
        order: ByteOrder, cut: int | None) -> None:
    """Given one-segment messages mixed with a split message, an MQI flow, a heartbeat and a
    STATUS, when the stream is fed whole, or cut every ``cut`` bytes (a segment begun in one
    read and ended in a later one), then the events are those written, in order."""
    events, stream = _stream(order)
    reader = SegmentReader(1024)
    step = cut or len(stream)
    got = [e for i in range(0, len(stream), step) for e in reader.feed(stream[i:i + step])]
    assert got == events
    assert reader.buffered == 0 and not reader.reassembling


@pytest.mark.parametrize("damage, code", [
    ("msh", StatusCode.PROTOCOL_MSH_ERROR),
    ("msg_length", StatusCode.MESSAGE_LENGTH_ERROR),
    ("xqh", StatusCode.PROTOCOL_MSH_ERROR),
    ("too_big", StatusCode.MESSAGE_LENGTH_ERROR),
])
def test_a_malformed_one_segment_message_gets_the_general_paths_error(damage, code) -> None:
    """Given a one-segment message with a bad MSH, an MSH length that is not the segment's,
    no MQXQH, or more data than the channel's maximum message length, when fed whole after
    a good message in the same read, then the reader raises the status code the general
    path gives for it, and stays broken."""
    order = ByteOrder.LITTLE
    writer = _writer(order)
    good = writer.send(MessageData(seqnum=1, xqh=_xqh(order), data=b"ok", byte_order=order))
    raw = bytearray(writer.send(MessageData(seqnum=2, xqh=_xqh(order), data=b"x" * 200,
                                            byte_order=order)))
    if damage == "msh":
        raw[28:32] = b"MSX "
    elif damage == "msg_length":
        raw[44:48] = (1000).to_bytes(4, "little")
    elif damage == "xqh":
        raw[48:52] = b"XQX "
    reader = SegmentReader(32766, max_msg_size=100 if damage == "too_big" else 0)
    with pytest.raises(ProtocolError) as caught:
        reader.feed(good + bytes(raw))
    assert caught.value.status_code == code
    with pytest.raises(ProtocolError):
        reader.feed(good)
