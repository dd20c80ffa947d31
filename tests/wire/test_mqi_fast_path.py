"""The one-segment MQI fast path of SegmentReader / SegmentWriter gives what the general
path gives: the same bytes written, the same events read, the same errors."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqpy.fap import apiheader, flows, tsh
from mqpy.fap.apiheader import MQIReply, MQIRequest
from mqpy.fap.controlflows import Heartbeat, Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import ByteOrder, ControlFlags1, ControlFlags2, SegmentType
from tests.support.segments import _fields, _trickled, _writer

_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_LONG = st.integers(min_value=-(2**31), max_value=2**31 - 1)
_MQI_TYPES = [t for t in SegmentType if t.has_api_header]


@st.composite
def _mqi_events(draw: st.DrawFn) -> MQIRequest | MQIReply:
    segment_type = draw(st.sampled_from(_MQI_TYPES))
    cls = MQIRequest if segment_type < 0x90 else MQIReply
    conv_id = draw(st.none() | st.integers(min_value=0, max_value=2**32 - 1))
    return cls(
        segment_type=segment_type,
        flags=draw(st.sampled_from([ControlFlags1.NONE, ControlFlags1.CONFIRM_REQUEST,
                                    ControlFlags1.ERROR, ControlFlags1.REQUEST_CLOSE])),
        luwid=draw(st.binary(min_size=8, max_size=8)),
        conv_id=conv_id,
        request_id=None if conv_id is None else draw(st.integers(0, 2**32 - 1)),
        comp=draw(_LONG), reason=draw(_LONG),
        hobj=draw(st.integers(min_value=0, max_value=2**32 - 1)),
        body=draw(st.binary(max_size=2000)),
        reply_length=draw(st.none() | st.integers(min_value=0, max_value=2**32 - 1)),
    )


@_SETTINGS
@given(_mqi_events(), st.sampled_from(list(ByteOrder)))
def test_a_one_segment_mqi_flow_is_written_as_the_general_path_writes_it(event, order) -> None:
    """Given any MQI verb or reply that fits one segment, when written, then its bytes are
    those of the general segment builder, and it is one segment with FIRST and LAST."""
    writer = _writer(order)
    raw = writer.send(event)
    assert raw == b"".join(writer._segments(event))
    assert writer.segments(event) == [raw]
    assert raw[(36 if event.conv_id is not None else 28) - 18] & 0x30 == 0x30  # FIRST | LAST


@_SETTINGS
@given(_mqi_events(), st.sampled_from(list(ByteOrder)))
def test_a_one_segment_mqi_flow_is_read_as_the_general_path_reads_it(event, order) -> None:
    """Given any MQI verb or reply as one segment, when fed whole (the fast path) and byte by
    byte (the general path), then both give the event written, and the same partner byte
    order, encoding and CCSID."""
    raw = _writer(order).send(event)
    assert apiheader.parse_mqi_segment(raw, 0, 32766) is not None  # whole: the fast path takes it
    fast, general = SegmentReader(), SegmentReader()
    expected = event if event.reply_length is not None else \
        flows.decode_body(tsh.parse_segment_header(raw), raw[len(raw) - len(event.body) - 16:])
    assert fast.feed(raw) == _trickled(raw, general) == [expected]
    for attribute in ("partner_byte_order", "partner_encoding", "partner_ccsid"):
        assert getattr(fast, attribute) == getattr(general, attribute)
    assert fast.partner_byte_order == order


@_SETTINGS
@given(_mqi_events(), st.sampled_from(list(ByteOrder)))
def test_a_fast_path_event_is_the_event_its_constructor_makes(event, order) -> None:
    """Given any one-segment MQI flow, when the fast path reads it (its events are made
    without running the class's converters again), then every field has the value and the
    type the constructor gives (flags a ControlFlags1 without FIRST or LAST, the verb a
    SegmentType, the LUW id bytes)."""
    raw = _writer(order).send(event)
    (fast,) = SegmentReader().feed(raw)
    rebuilt = attrs.evolve(fast)  # through __init__ and its converters
    assert _fields(fast) == _fields(rebuilt)
    assert type(fast.flags) is ControlFlags1 and not fast.flags & tsh.FIRST_LAST
    assert fast.flags == event.flags and type(fast.segment_type) is SegmentType


def test_mqi_event_makes_what_the_constructor_makes() -> None:
    """Given fields in their converted form, then ``mqi_event`` gives an event equal, field
    by field and type by type, to the class's constructor's (hashable and frozen alike)."""
    made = apiheader.mqi_event(MQIReply, ControlFlags1.ERROR, b"L" * 8, 4, 9,
                          SegmentType.MQGET_REPLY, 2, 2033, 7, b"body", None)
    built = MQIReply(flags=ControlFlags1.ERROR, luwid=b"L" * 8, conv_id=4, request_id=9,
                     segment_type=SegmentType.MQGET_REPLY, comp=2, reason=2033, hobj=7,
                     body=b"body")
    assert made == built and _fields(made) == _fields(built) and hash(made) == hash(built)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        made.comp = 0  # type: ignore[misc]


def _mixed() -> list[tsh.Event]:
    return [
        MQIRequest(segment_type=SegmentType.MQPUT, hobj=5, body=b"a" * 100),
        MQIReply(segment_type=SegmentType.MQPUT_REPLY, comp=1, reason=2049, body=b"b" * 10),
        MQIRequest(segment_type=SegmentType.MQPUT, hobj=5, body=b"long" * 1000),  # split
        Heartbeat(),
        MQIRequest(segment_type=SegmentType.MQGET, conv_id=3, request_id=9, body=b"c" * 50),
        Status(code=0),
        MQIReply(segment_type=SegmentType.MQGET_REPLY, body=b"d" * 900),
    ]


@pytest.mark.parametrize("order", list(ByteOrder))
def test_fast_and_general_flows_in_one_stream_keep_their_order(order: ByteOrder) -> None:
    """Given one-segment MQI flows mixed with a split MQI flow, a heartbeat and a STATUS,
    when fed all at once, byte by byte, or cut at every 700 bytes, then the events are the
    same and in the same order."""
    writer = _writer(order, maximum=1024)
    stream = b"".join(writer.send(e) for e in _mixed())
    whole = SegmentReader(1024).feed(stream)
    cut = SegmentReader(1024)
    chunked = [e for i in range(0, len(stream), 700) for e in cut.feed(stream[i:i + 700])]
    assert [(type(e), e.segment_type) for e in whole] == \
        [(type(e), e.segment_type) for e in _mixed()]
    assert whole == _trickled(stream, SegmentReader(1024)) == chunked
    assert whole[2].body == b"long" * 1000


_GOOD = SegmentWriter().send(MQIRequest(segment_type=SegmentType.MQINQ, body=bytes(8)))


def _bad_order(raw: bytes) -> bytes:
    return raw[:8] + b"\x03" + raw[9:]


def _too_long(raw: bytes) -> bytes:
    return raw[:4] + (40000).to_bytes(4, "big") + raw[8:]


@pytest.mark.parametrize("mangle, code", [
    (_bad_order, StatusCode.PROTOCOL_INVALID_DATA),
    (_too_long, StatusCode.PROTOCOL_LENGTH_ERROR),
    (lambda raw: raw[:4] + (40).to_bytes(4, "big") + raw[8:40], StatusCode.PROTOCOL_LENGTH_ERROR),
    (lambda raw: raw[:9] + b"\x90" + raw[10:], StatusCode.PROTOCOL_SEGMENT_TYPE),
], ids=["byte order 3", "longer than the maximum", "no API header", "type 0x90"])
def test_a_bad_segment_after_a_good_one_fails_as_on_the_general_path(mangle, code) -> None:
    """Given a good one-segment MQI flow followed by a bad one in the same bytes, when fed at
    once, then the reader fails with the status code the general path gives, and stays
    failed."""
    raw = _GOOD + mangle(_GOOD)
    for reader, feed in ((SegmentReader(), lambda r: r.feed(raw)),
                         (SegmentReader(), lambda r: _trickled(raw, r))):
        with pytest.raises(ProtocolError) as info:
            feed(reader)
        assert info.value.status_code == code
        with pytest.raises(ProtocolError):
            reader.feed(_GOOD)


def test_a_one_segment_flow_is_not_taken_whole_inside_a_split_one() -> None:
    """Given the first segment of a split MQPUT, when a one-segment MQI flow (FIRST and LAST)
    arrives before its last segment, then PROTOCOL_SEGMENT_ERROR, as for any FIRST inside a
    split flow."""
    first = SegmentWriter(1024).segments(
        MQIRequest(segment_type=SegmentType.MQPUT, body=bytes(3000)))[0]
    reader = SegmentReader(1024)
    assert reader.feed(first) == [] and reader.reassembling
    with pytest.raises(ProtocolError) as info:
        reader.feed(_GOOD)
    assert info.value.status_code == StatusCode.PROTOCOL_SEGMENT_ERROR


# -- a relayed reply readdressed without being taken apart (the SVRCONN's relay) ----------

def _readdressed_the_general_way(raw: bytes, conv_id: int | None, request_id: int | None,
                                 client: SegmentWriter) -> bytes:
    """What the SVRCONN sent before: the queue manager's bytes read into a reply event,
    a new event for the client's conversation, written by the client's writer."""
    (reply,) = SegmentReader().feed(raw)
    return client.send(apiheader.mqi_event(
        MQIReply, ControlFlags1.NONE, bytes(8), conv_id, request_id, reply.segment_type,
        reply.comp, reply.reason, reply.hobj, reply.body, None))


@_SETTINGS
@given(_mqi_events().filter(lambda e: type(e) is MQIReply),
       st.none() | st.integers(min_value=0, max_value=2**32 - 1),
       st.integers(min_value=0, max_value=2**32 - 1),
       st.sampled_from([ControlFlags2.NONE, *list(ControlFlags2)[:2]]))
def test_a_readdressed_reply_is_the_segment_the_general_path_writes(
        event, conv_id, request_id, flags2) -> None:
    """Given any one-segment MQI reply as the queue manager's socket carries it (TSH,
    little-endian), when it is readdressed for a client's conversation (TSHM with its
    ConvId and RequestId, or TSH), then the bytes are those the general path -- read the
    reply, make the client's event, write it -- gives, and the CompCode is the reply's."""
    raw = _writer(ByteOrder.LITTLE).send(attrs.evolve(event, conv_id=None, request_id=None))
    client = SegmentWriter(byte_order=ByteOrder.LITTLE, flags2=flags2, encoding=546,
                           ccsid=1208)
    got = apiheader.readdressed_mqi_reply(raw, event.segment_type, conv_id,
                                     request_id if conv_id is not None else None,
                                     client.encoding, client.ccsid, client.flags2,
                                     client.max_transmission_size)
    assert got is not None
    assert got[0] == _readdressed_the_general_way(
        raw, conv_id, request_id if conv_id is not None else None, client)
    assert got[1] == event.comp


def test_anything_but_one_whole_little_endian_reply_of_the_type_is_left_alone() -> None:
    """Given bytes that are not exactly one whole one-segment little-endian MQI reply of
    the expected type -- part of one, two at once, a big-endian one, another type, a TSHM,
    one a split flow's first segment, one the client's maximum would have to split --
    when readdressing is tried, then it declines (None) and the general path takes them."""
    reply = MQIReply(segment_type=SegmentType.MQGET_REPLY, body=b"x" * 100)
    raw = _writer(ByteOrder.LITTLE).send(reply)
    args = (1, 2, 273, 1208, 0, 32766)
    T = SegmentType.MQGET_REPLY
    assert apiheader.readdressed_mqi_reply(raw, T, *args) is not None
    assert apiheader.readdressed_mqi_reply(raw[:-1], T, *args) is None
    assert apiheader.readdressed_mqi_reply(raw + raw, T, *args) is None
    assert apiheader.readdressed_mqi_reply(b"", T, *args) is None
    assert apiheader.readdressed_mqi_reply(_writer(ByteOrder.BIG).send(reply), T, *args) is None
    assert apiheader.readdressed_mqi_reply(raw, SegmentType.MQPUT_REPLY, *args) is None
    tshm = _writer(ByteOrder.LITTLE).send(attrs.evolve(reply, conv_id=1, request_id=1))
    assert apiheader.readdressed_mqi_reply(tshm, T, *args) is None
    first_only = raw[:10] + bytes([raw[10] & ~int(ControlFlags1.LAST)]) + raw[11:]
    assert apiheader.readdressed_mqi_reply(first_only, T, *args) is None
    assert apiheader.readdressed_mqi_reply(raw, T, 1, 2, 273, 1208, 0, len(raw) + 7) is None
    assert apiheader.readdressed_mqi_reply(raw, T, 1, 2, 273, 1208, 0, len(raw) + 8) is not None
