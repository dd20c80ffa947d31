"""The segment reader holds a bounded number of bytes whatever a partner sends: before
INITIAL_DATA is agreed only one-segment flows of an ID's size, afterwards no flow of any
type beyond the agreed message size plus headers, and never more than ``max_pending``
bytes of unfinished flows together (a partner cannot open one per conversation id)."""

from __future__ import annotations

import pytest

from mqpy.fap import apiheader, tsh
from mqpy.fap.framing import (
    FLOW_HEADROOM,
    INITIAL_SEGMENT_SIZE,
    MAX_MSG_LENGTH,
    SegmentReader,
    SegmentWriter,
)
from mqpy.fap.initialdata import InitialData
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import ByteOrder, ControlFlags1, SegmentType

FIRST, LAST = ControlFlags1.FIRST, ControlFlags1.LAST


def _segment(segment_type: int, body: bytes, flags: ControlFlags1,
             conv_id: int | None = None) -> bytes:
    length = (tsh.TSH_LENGTH if conv_id is None else tsh.TSHM_LENGTH) + len(body)
    return tsh.build_segment_header(segment_type, length, flags1=flags,
                                     byte_order=ByteOrder.LITTLE, conv_id=conv_id,
                                     request_id=0 if conv_id is not None else None) + body


def _api(reply_length: int = 0) -> bytes:
    return reply_length.to_bytes(4, "big") + bytes(12)


def _msh(msg_length: int) -> bytes:
    le = lambda n: n.to_bytes(4, "little")  # noqa: E731
    return b"MSH " + le(1) + le(msg_length) + le(0) + le(msg_length)


def _endless(reader: SegmentReader, first: bytes, chunk: int, rounds: int,
             segment_type: int = SegmentType.MQPUT, conv_id: int | None = None) -> None:
    """Feed ``first`` then continuation segments that never end (LAST never comes)."""
    reader.feed(_segment(segment_type, first, FIRST, conv_id))
    for _ in range(rounds):
        reader.feed(_segment(segment_type, bytes(chunk), ControlFlags1.NONE, conv_id))


def test_before_negotiation_a_split_flow_is_refused_at_its_first_segment() -> None:
    """Given a reader before INITIAL_DATA, when a segment marked FIRST (not LAST) comes,
    then it is a protocol error at once and nothing is held."""
    reader = SegmentReader.before_negotiation()
    with pytest.raises(ProtocolError) as err:
        reader.feed(_segment(SegmentType.MQPUT, _api() + bytes(100), FIRST))
    assert err.value.status_code == StatusCode.PROTOCOL_SEGMENT_ERROR
    assert "before the channel's INITIAL_DATA" in str(err.value)
    assert reader.pending == 0
    with pytest.raises(ProtocolError):  # and it stays broken
        reader.feed(b"TSH ")


def test_before_negotiation_a_segment_longer_than_an_id_is_refused_from_its_header() -> None:
    """Given a reader before INITIAL_DATA, when a TSH announces a segment longer than
    INITIAL_SEGMENT_SIZE, then it is refused from its first 8 bytes, nothing buffered
    beyond them."""
    reader = SegmentReader.before_negotiation()
    header = _segment(SegmentType.INITIAL_DATA, bytes(INITIAL_SEGMENT_SIZE), FIRST | LAST)[:8]
    with pytest.raises(ProtocolError) as err:
        reader.feed(header)
    assert err.value.status_code == StatusCode.PROTOCOL_LENGTH_ERROR
    assert reader.buffered <= 8


def test_before_negotiation_an_id_of_the_largest_documented_size_is_taken() -> None:
    """Given a reader before INITIAL_DATA, when a FAP 13 ID comes in a TSHM, then it is read."""
    reader = SegmentReader.before_negotiation()
    data = SegmentWriter().send(InitialData(fap_level=13, channel_name="APP.SVRCONN",
                                            conv_id=0, request_id=0))
    assert len(data) <= INITIAL_SEGMENT_SIZE
    [event] = reader.feed(data)
    assert isinstance(event, InitialData) and event.channel_name.strip() == "APP.SVRCONN"


@pytest.mark.parametrize("segment_type", [SegmentType.MQPUT, SegmentType.MQCONN,
                                          SegmentType.SPI, SegmentType.MQGET_REPLY])
def test_after_negotiation_no_flow_type_grows_past_the_agreed_size(segment_type) -> None:
    """Given a reader with an agreed message size of 64 KB, when a split flow of any MQI
    type never ends, then it is refused once it passes that size plus headers, having
    held no more than that."""
    reader = SegmentReader(32766, 65536)
    with pytest.raises(ProtocolError) as err:
        _endless(reader, _api() + bytes(1000), 32000, 100, segment_type)
    assert err.value.status_code == StatusCode.MESSAGE_LENGTH_ERROR
    assert reader.pending <= 65536 + FLOW_HEADROOM


def test_no_agreed_size_is_bounded_by_ibms_largest_message() -> None:
    """Given a reader with no message size agreed (0), then a flow's bound is IBM's largest
    MAXMSGL (100 MB) plus headers, and a message announcing more is refused up front."""
    reader = SegmentReader(32766, 0)
    assert reader.flow_limit == MAX_MSG_LENGTH + FLOW_HEADROOM
    with pytest.raises(ProtocolError) as err:
        reader.feed(_segment(SegmentType.MESSAGE_DATA, _msh(2**31) + bytes(100), FIRST))
    assert err.value.status_code == StatusCode.MESSAGE_LENGTH_ERROR


def test_a_message_cannot_grow_past_the_length_its_msh_announced() -> None:
    """Given a split MESSAGE_DATA announcing 1000 bytes, when more follows without LAST,
    then it is refused as soon as it passes 1000."""
    reader = SegmentReader(32766, 0)
    with pytest.raises(ProtocolError) as err:
        _endless(reader, _msh(1000) + bytes(500), 600, 5, SegmentType.MESSAGE_DATA)
    assert err.value.status_code == StatusCode.MESSAGE_LENGTH_ERROR
    assert reader.pending <= 1020


def test_unfinished_flows_of_many_conversations_are_bounded_together() -> None:
    """Given ``max_pending`` of 64 KB, when every conversation id of a TSHM stream starts a
    split flow and none ends, then the reader refuses the one that passes 64 KB in all."""
    reader = SegmentReader(32766, 4 * 1024 * 1024, max_pending=65536)
    with pytest.raises(ProtocolError) as err:
        for conv_id in range(1, 100):
            reader.feed(_segment(SegmentType.MQPUT, _api() + bytes(10000), FIRST, conv_id))
    assert err.value.status_code == StatusCode.MESSAGE_LENGTH_ERROR
    assert reader.pending <= 65536


def test_a_finished_flow_gives_its_bytes_back() -> None:
    """Given flows that do end, then what they held is released: many in a row pass."""
    reader = SegmentReader(1024, 0, max_pending=4096)
    writer = SegmentWriter(1024)
    request = apiheader.MQIRequest(segment_type=SegmentType.MQPUT, body=bytes(3000))
    for _ in range(20):
        [event] = reader.feed(writer.send(request))
        assert event.body == request.body
    assert reader.pending == 0
