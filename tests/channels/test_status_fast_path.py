"""A STATUS written in one go (wire.build_status_segment, a receiving MCA's answer to every
batch) is the segment the general path writes, byte for byte: what tshark and any partner
read is unchanged."""

from __future__ import annotations

import pytest

from mqpy.fap.controlflows import Status, build_status_segment, parse_status_segment
from mqpy.fap.flows import decode_body
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ByteOrder, ControlFlags1, ControlFlags2, parse_segment_header

STATUSES = [
    Status(code=0),
    Status(code=StatusCode.USER_CLOSED, flags=ControlFlags1.CLOSE_CHANNEL),
    Status(code=StatusCode.MSG_SEQUENCE_ERROR, flags=ControlFlags1.ERROR,
           luwid=b"12345678"),
    Status(code=0xFFFFFFFF),
]


@pytest.mark.parametrize("byte_order", list(ByteOrder))
@pytest.mark.parametrize("status", STATUSES)
def test_a_status_written_in_one_go_is_the_general_paths_segment(status, byte_order):
    """Given a STATUS without a value, when a writer of either byte order (and TSH flags2)
    writes it, then the bytes are those of the general path (header, then the construct
    layout), and a reader gives back the same event."""
    writer = SegmentWriter(byte_order=byte_order, flags2=ControlFlags2.CSH)
    assert [writer._one_segment(status)] == writer._segments(status)  # in one go: the same
    assert writer.segments(status) == writer._segments(status)
    assert SegmentReader().feed(writer.send(status)) == [status]


def test_a_status_the_one_go_cannot_write_goes_the_general_way():
    """Given a STATUS with a value, or with a code beyond 32 bits, then the one-go writer
    declines (None) and the general path writes it (or says what is wrong)."""
    writer = SegmentWriter()
    with_value = Status(code=5, value=7)
    assert writer._one_segment(with_value) is None
    assert SegmentReader().feed(writer.send(with_value)) == [with_value]
    assert build_status_segment(Status(code=1 << 32), ByteOrder.LITTLE, 546, 819, 0) is None


@pytest.mark.parametrize("byte_order", list(ByteOrder))
@pytest.mark.parametrize("status", STATUSES)
def test_a_status_read_in_one_go_is_the_general_paths_event(status, byte_order):
    """Given a STATUS without a value in either byte order, when it is read in one go
    (wire.parse_status_segment, a sending MCA's every batch's answer), then the event, its
    length and the partner's byte order, encoding and CCSID are what the general path
    (parse_segment_header, decode_body) gives; a reader gives the same."""
    segment = SegmentWriter(byte_order=byte_order, encoding=273, ccsid=1208).send(status)
    header = parse_segment_header(segment)
    general = decode_body(header, segment[header.header_length:])
    flow = parse_status_segment(b"junk" + segment, 4, 32766)
    assert flow == (general, len(segment), byte_order, 273, 1208)
    assert type(flow[0].code) is type(general.code)
    reader = SegmentReader()
    assert reader.feed(segment + segment[:10]) == [general]
    assert reader.partner_byte_order == byte_order


def test_a_status_the_one_go_cannot_read_goes_the_general_way():
    """Given a STATUS with a value, one whose segment carries more bytes than its Length,
    or one beyond the maximum transmission size, then the one-go reader declines (None) and
    the general path reads it (or refuses it) as before."""
    writer = SegmentWriter()
    with_value = writer.send(Status(code=5, value=7))
    assert parse_status_segment(with_value, 0, 32766) is None
    assert SegmentReader().feed(with_value) == [Status(code=5, value=7)]
    plain = writer.send(Status(code=0))
    longer = plain[:4] + (len(plain) + 4).to_bytes(4, "big") + plain[8:] + bytes(4)
    assert parse_status_segment(longer, 0, 32766) is None
    assert SegmentReader().feed(longer) == [Status(code=0)]
    assert parse_status_segment(plain, 0, len(plain) - 1) is None
