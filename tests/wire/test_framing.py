"""SegmentReader / SegmentWriter: chunking, splitting, reassembly and malformed input."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.controlflows import Heartbeat, Ping, Status
from mqpy.fap.flows import encode_body
from mqpy.fap.framing import SegmentReader, SegmentWriter, split_segments
from mqpy.fap.initialdata import InitialData
from mqpy.fap.messagedata import MessageData
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import (
    ByteOrder,
    ControlFlags1,
    Event,
    SegmentType,
    build_segment_header,
    parse_segment_header,
)

FL = ControlFlags1.FIRST | ControlFlags1.LAST


def _xqh() -> bytes:
    head = b"XQH " + (1).to_bytes(4, "little") + b"TARGET.Q".ljust(48) + b"QM2".ljust(48)
    return head + b"MD  " + (1).to_bytes(4, "little") + bytes(316)


def _segment(segment_type: int, body: bytes, flags: int = FL, order: int = 2) -> bytes:
    header = build_segment_header(
        segment_type, 28 + len(body), flags1=ControlFlags1(flags), byte_order=ByteOrder.LITTLE
    )
    return header[:8] + bytes([order]) + header[9:] + body


def _msh(msg_length: int, seqnum: int = 1) -> bytes:
    le = lambda n: n.to_bytes(4, "little")  # noqa: E731
    return b"MSH " + le(seqnum) + le(msg_length) + le(0) + le(msg_length)


def _conversation() -> list[Event]:
    return [
        InitialData(fap_level=10, channel_name="QM1.TO.QM2", qmgr_name="QM1"),
        MessageData(seqnum=1, xqh=_xqh(), data=b"x" * 5000),
        MessageData(seqnum=2, xqh=_xqh(), data=b"small", flags=ControlFlags1.CONFIRM_REQUEST),
        Status(code=0),
        Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST),
        MQIRequest(segment_type=SegmentType.MQPUT, body=bytes(3000), conv_id=1, request_id=2, reply_length=3052),
    ]


# -- chunking -----------------------------------------------------------------------------


def test_feeding_one_byte_at_a_time_gives_the_same_events_as_feeding_all() -> None:
    """Given a conversation with split messages, when fed byte by byte or all at once, then
    the events are the same and in the same order."""
    writer = SegmentWriter(max_transmission_size=1024)
    stream = b"".join(writer.send(e) for e in _conversation())

    whole = SegmentReader().feed(stream)
    reader = SegmentReader()
    trickled = [event for i in range(len(stream)) for event in reader.feed(stream[i : i + 1])]

    assert whole == trickled == _conversation()
    assert reader.buffered == 0 and not reader.reassembling


def test_reader_waits_for_the_rest_of_a_segment() -> None:
    """Given half a segment, then no event yet; given the rest, then the event."""
    raw = SegmentWriter().send(Status(code=StatusCode.USER_CLOSED))
    reader = SegmentReader()
    assert reader.feed(raw[:20]) == []
    assert reader.feed(raw[20:]) == [Status(code=StatusCode.USER_CLOSED)]


def test_reader_records_the_partners_byte_order_encoding_and_ccsid() -> None:
    """Given a BE segment with Encoding 273 and CCSID 500, then the reader reports them."""
    raw = SegmentWriter(byte_order=ByteOrder.BIG, encoding=273, ccsid=500).send(Heartbeat())
    reader = SegmentReader()
    reader.feed(raw)
    assert (reader.partner_byte_order, reader.partner_encoding, reader.partner_ccsid) == (
        ByteOrder.BIG,
        273,
        500,
    )


# -- splitting and reassembly -------------------------------------------------------------


@pytest.mark.parametrize("order", [ByteOrder.LITTLE, ByteOrder.BIG])
def test_a_1mb_message_is_split_at_32k_and_reassembled(order: ByteOrder) -> None:
    """Given a 1 MB message and a 32 KB maximum transmission size, when written, then every
    segment fits, only the first has FIRST and only the last has LAST; when read back, then
    one MessageData equal to the original. spec: dqm-intercommunication 3 (large messages)."""
    data = bytes(range(256)) * 4096  # 1 MiB
    message = MessageData(seqnum=42, xqh=_xqh(), data=data, flags=ControlFlags1.CONFIRM_REQUEST)
    message = message.in_byte_order(order)
    segments = split_segments(message, 32 * 1024, byte_order=order)

    assert len(segments) == -(-(20 + 428 + len(data)) // (32 * 1024 - 28))
    for index, segment in enumerate(segments):
        header = parse_segment_header(segment)
        assert header.segment_length == len(segment) <= 32 * 1024
        assert header.segment_type == SegmentType.MESSAGE_DATA
        assert bool(header.flags1 & ControlFlags1.FIRST) == (index == 0)
        assert bool(header.flags1 & ControlFlags1.LAST) == (index == len(segments) - 1)
        assert header.flags1 & ControlFlags1.CONFIRM_REQUEST
    assert segments[0][28:32] == b"MSH "
    assert all(s[28:32] != b"MSH " for s in segments[1:])

    reader = SegmentReader(max_transmission_size=32 * 1024)
    events = [e for s in segments for e in reader.feed(s)]
    assert events == [message]


def test_a_message_that_fits_is_one_segment_with_first_and_last() -> None:
    """Given a small message, then one segment with ControlFlags1 FIRST|LAST (0x30)."""
    (segment,) = SegmentWriter().segments(MessageData(seqnum=1, xqh=_xqh(), data=b"hi"))
    assert segment[10] == 0x30
    assert parse_segment_header(segment).segment_length == 28 + 20 + 428 + 2


def test_a_split_mqi_flow_carries_its_api_header_only_in_the_first_segment() -> None:
    """Given an MQPUT larger than the maximum, then the API header leads the first segment
    alone and ReplyLength (BE) is the flow's one-segment length."""
    event = MQIRequest(segment_type=SegmentType.MQPUT, hobj=7, body=b"b" * 3000)
    segments = SegmentWriter(max_transmission_size=1024).segments(event)
    assert len(segments) == 4
    assert int.from_bytes(segments[0][28:32], "big") == 28 + 16 + 3000
    assert all(s[28:44].count(b"b") == 16 for s in segments[1:])
    assert SegmentReader().feed(b"".join(segments))[0].body == event.body


def test_a_segment_type_that_cannot_span_refuses_to_be_split() -> None:
    """Given a PING bigger than the maximum, then the writer refuses rather than split it."""

    with pytest.raises(ValueError, match="cannot be split"):
        SegmentWriter(max_transmission_size=1024).segments(Ping(data=bytes(2000)))


# -- malformed input ----------------------------------------------------------------------

ID_BODY = encode_body(InitialData(fap_level=10, channel_name="C"), ByteOrder.LITTLE)[1]
STATUS_BODY = (12).to_bytes(4, "little") + (1).to_bytes(4, "little") + bytes(4)

MALFORMED = {
    "bad struct id": (b"XSH " + bytes(24), StatusCode.PROTOCOL_SEGMENT_ERROR),
    "EBCDIC TSH": (bytes.fromhex("E3E2C840") + bytes(24), StatusCode.PROTOCOL_SEGMENT_ERROR),
    "length below 28": (b"TSH " + (27).to_bytes(4, "big") + bytes(20), StatusCode.PROTOCOL_LENGTH_ERROR),
    "TSHM length below 36": (b"TSHM" + (30).to_bytes(4, "big") + bytes(30), StatusCode.PROTOCOL_LENGTH_ERROR),
    "length above maximum": (b"TSH " + (40000).to_bytes(4, "big"), StatusCode.PROTOCOL_LENGTH_ERROR),
    "unknown segment type": (_segment(0x10, b""), StatusCode.PROTOCOL_SEGMENT_TYPE),
    "unknown reply type": (_segment(0xC0, b""), StatusCode.PROTOCOL_SEGMENT_TYPE),
    "byte order 3": (_segment(0x09, b"", order=3), StatusCode.PROTOCOL_INVALID_DATA),
    "truncated ID": (_segment(0x01, ID_BODY[:150]), StatusCode.PROTOCOL_ID_ERROR),
    "ID with wrong struct id": (_segment(0x01, b"IX  " + ID_BODY[4:]), StatusCode.PROTOCOL_ID_ERROR),
    "message without MSH": (_segment(0x04, _xqh()), StatusCode.PROTOCOL_MSH_ERROR),
    "MSH length disagrees": (_segment(0x04, _msh(500) + _xqh()), StatusCode.MESSAGE_LENGTH_ERROR),
    "message shorter than XQH": (_segment(0x04, _msh(10) + bytes(10)), StatusCode.PROTOCOL_MSH_ERROR),
    "message without XQH": (_segment(0x04, _msh(428) + bytes(428)), StatusCode.PROTOCOL_MSH_ERROR),
    "truncated STATUS": (_segment(0x05, STATUS_BODY[:6]), StatusCode.PROTOCOL_LENGTH_ERROR),
    "STATUS length beyond segment": (_segment(0x05, STATUS_BODY[:8]), StatusCode.PROTOCOL_LENGTH_ERROR),
    "truncated RESET": (_segment(0x03, bytes(4)), StatusCode.PROTOCOL_LENGTH_ERROR),
    "PING length beyond segment": (_segment(0x07, (99).to_bytes(4, "little")), StatusCode.PROTOCOL_LENGTH_ERROR),
    "MQI without API header": (_segment(0x81, bytes(8)), StatusCode.PROTOCOL_LENGTH_ERROR),
    "continuation without FIRST": (
        _segment(0x04, b"data", flags=ControlFlags1.LAST),
        StatusCode.PROTOCOL_SEGMENT_ERROR,
    ),
    "FIRST inside a split message": (
        _segment(0x04, _msh(1000) + _xqh(), flags=ControlFlags1.FIRST) * 2,
        StatusCode.PROTOCOL_SEGMENT_ERROR,
    ),
    "other type inside a split message": (
        _segment(0x04, _msh(1000) + _xqh(), flags=ControlFlags1.FIRST) + _segment(0x09, b""),
        StatusCode.PROTOCOL_SEGMENT_ERROR,
    ),
    "split message longer than its MSH": (
        _segment(0x04, _msh(430) + _xqh(), flags=ControlFlags1.FIRST)
        + _segment(0x04, b"abc", flags=ControlFlags1.LAST),
        StatusCode.MESSAGE_LENGTH_ERROR,
    ),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_each_malformed_input_maps_to_its_status_code(case: str) -> None:
    """Given a malformed stream, when fed (whole or byte by byte), then ProtocolError with
    the matching MQ_STATUS_ERR_* code, and the reader stays failed."""
    raw, code = MALFORMED[case]
    reader = SegmentReader()
    with pytest.raises(ProtocolError) as whole:
        reader.feed(raw)
    assert whole.value.status_code == code, whole.value.text
    with pytest.raises(ProtocolError):
        reader.feed(SegmentWriter().send(Heartbeat()))

    trickle = SegmentReader()
    with pytest.raises(ProtocolError) as bytewise:
        for i in range(len(raw)):
            trickle.feed(raw[i : i + 1])
    assert bytewise.value.status_code == code


def test_a_message_above_the_negotiated_size_is_refused_from_its_first_segment() -> None:
    """Given max_msg_size 1000, when a 5000-byte message's first segment arrives, then
    MESSAGE_LENGTH_ERROR before the rest is buffered."""
    segments = split_segments(MessageData(seqnum=1, xqh=_xqh(), data=bytes(5000)), 2048)
    reader = SegmentReader(max_msg_size=1000)
    with pytest.raises(ProtocolError) as info:
        reader.feed(segments[0])
    assert info.value.status_code == StatusCode.MESSAGE_LENGTH_ERROR


def test_lowering_the_maximum_after_negotiation_applies_to_the_next_segment() -> None:
    """Given a reader whose maximum is lowered to 1024, then a 2000-byte segment is refused."""
    reader = SegmentReader()
    reader.max_transmission_size = 1024
    raw = SegmentWriter().send(MessageData(seqnum=1, xqh=_xqh(), data=bytes(1600)))
    with pytest.raises(ProtocolError) as info:
        reader.feed(raw)
    assert info.value.status_code == StatusCode.PROTOCOL_LENGTH_ERROR


def test_protocol_error_names_its_status_and_text() -> None:
    """Given a ProtocolError, then str() names the MQ_STATUS_ERR_* and the reason."""
    error = ProtocolError(StatusCode.PROTOCOL_ID_ERROR, "ID too short")
    assert str(error) == "PROTOCOL_ID_ERROR: ID too short"


# -- fuzzing ------------------------------------------------------------------------------

_FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _feed_all(chunks: list[bytes]) -> None:
    reader = SegmentReader(max_transmission_size=4096, max_msg_size=100000)
    try:
        for chunk in chunks:
            reader.feed(chunk)
    except ProtocolError as exc:
        assert isinstance(exc.status_code, StatusCode)


@_FUZZ
@given(st.lists(st.binary(max_size=300), max_size=8))
def test_random_bytes_raise_only_protocol_error(chunks: list[bytes]) -> None:
    """Given arbitrary bytes in arbitrary chunks, then the reader returns events or raises
    ProtocolError, never anything else."""
    _feed_all(chunks)


_TSH_PREFIX = st.sampled_from([b"TSH ", b"TSHC", b"TSHM"])


@_FUZZ
@given(
    _TSH_PREFIX,
    st.integers(min_value=0, max_value=5000),
    st.sampled_from([1, 2, 0, 7]),
    st.sampled_from([int(t) for t in SegmentType] + [0x00, 0x10, 0xFF]),
    st.integers(min_value=0, max_value=255),
    st.binary(max_size=600),
)
def test_plausible_headers_with_random_bodies_raise_only_protocol_error(
    struct_id: bytes, length: int, order: int, segment_type: int, flags: int, rest: bytes
) -> None:
    """Given a TSH-shaped header with random length, order, type, flags and body, then only
    ProtocolError escapes the reader."""
    mpf = 8 if struct_id == b"TSHM" else 0
    header = struct_id + length.to_bytes(4, "big") + bytes(mpf) + bytes([order, segment_type, flags, 0])
    _feed_all([header + bytes(16) + rest])


@_FUZZ
@given(st.data())
def test_corrupting_a_valid_stream_raises_only_protocol_error(data: st.DataObject) -> None:
    """Given a valid conversation with some bytes overwritten, then only ProtocolError."""
    stream = bytearray(b"".join(SegmentWriter(max_transmission_size=1024).send(e) for e in _conversation()))
    for _ in range(data.draw(st.integers(min_value=1, max_value=6))):
        index = data.draw(st.integers(min_value=0, max_value=len(stream) - 1))
        stream[index] = data.draw(st.integers(min_value=0, max_value=255))
    _feed_all([bytes(stream)])
