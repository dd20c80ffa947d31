"""Each MQI flow the segment reader gives carries the byte order of its own TSH (docs/wire.md
"Byte order"): what decodes its body, whatever byte order the segments read with it say."""

from __future__ import annotations

import mqpy
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import ByteOrder, SegmentType

_T = SegmentType
_LITTLE, _BIG = ByteOrder.LITTLE, ByteOrder.BIG


def _put(order: ByteOrder, data: bytes = b"m", **kw: object) -> MQIRequest:
    return mqiflows.encode_request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(), data], hobj=3,
                                   byte_order=order, **kw)


def _segments(order: ByteOrder, event: MQIRequest, size: int = 32766) -> list[bytes]:
    return SegmentWriter(size, byte_order=order).segments(event)


def test_requests_read_together_in_two_byte_orders_each_carry_their_own():
    """Given one read holding three little-endian MQPUTs and then a big-endian one, when the
    segment reader takes it (one segment each: its fast path), then each event says its own
    TSH's byte order and decodes in it."""
    data = b"".join(_segments(_LITTLE, _put(_LITTLE)) * 3 + _segments(_BIG, _put(_BIG)))
    events = SegmentReader().feed(data)
    assert [e.byte_order for e in events] == [_LITTLE] * 3 + [_BIG]
    for event in events:
        assert mqiflows.decode_request(event, event.byte_order).values[2] == b"m"


def test_a_flow_read_the_general_way_carries_its_own_byte_order():
    """Given a big-endian MQPUT after the beginning of a little-endian one held from an
    earlier read, when the reader takes them the general way, then each event says its own
    byte order."""
    first, second = _segments(_LITTLE, _put(_LITTLE))[0], _segments(_BIG, _put(_BIG))[0]
    reader = SegmentReader()
    assert reader.feed(first[:5]) == []
    events = reader.feed(bytearray(first[5:] + second))
    assert [e.byte_order for e in events] == [_LITTLE, _BIG]


def test_a_split_flow_carries_its_first_segments_byte_order():
    """Given a big-endian MQPUT split in several segments followed by a little-endian one,
    when the reader reassembles it, then the event says big-endian (its FIRST segment's)."""
    split = _segments(_BIG, _put(_BIG, b"x" * 3000, conv_id=1, request_id=1), 1024)
    assert len(split) > 1
    after = _segments(_LITTLE, _put(_LITTLE, conv_id=1, request_id=2))
    events = SegmentReader(1024).feed(b"".join(split + after))
    assert [e.byte_order for e in events] == [_BIG, _LITTLE]
    assert mqiflows.decode_request(events[0], events[0].byte_order).values[2] == b"x" * 3000


def test_events_in_two_byte_orders_compare_as_before():
    """Given the same request read little-endian and big-endian, then the events compare
    equal when their fields are (the byte order is not one of them), as they always did."""
    little = SegmentReader().feed(_segments(_LITTLE, _put(_LITTLE))[0])[0]
    again = SegmentReader().feed(_segments(_LITTLE, _put(_LITTLE))[0])[0]
    big = SegmentReader().feed(_segments(_BIG, _put(_LITTLE))[0])[0]
    assert little == again == big and hash(little) == hash(big)
    assert big.byte_order == _BIG
