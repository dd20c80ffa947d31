"""The bindings listener decodes each request in its own TSH's byte order (docs/wire.md
"Byte order"), whatever the segments read with it or before it say: a request event by
itself, and each flow of an SPI RUN."""

from __future__ import annotations

import trio

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.channels.test_run_replies import SYNCPOINT, session  # noqa: F401 - a fixture

_T = SegmentType
_BIG, _LITTLE = ByteOrder.BIG, ByteOrder.LITTLE


def _get_flow(hobj: int, order: ByteOrder) -> bytes:
    """An MQGET of the whole message under syncpoint, framed in ``order``."""
    event = mqiflows.encode_request(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=SYNCPOINT),
                                               mqiflows.WHOLE_MESSAGE], hobj=hobj,
                                    byte_order=order)
    return SegmentWriter(byte_order=order).send(event)


def _input(session) -> int:  # noqa: F811 - the fixture's value
    return session.conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_INPUT_AS_Q_DEF)


def test_a_big_endian_get_read_after_a_little_endian_segment_is_served(session):  # noqa: F811
    """Given a big-endian MQGET read in the same read as a little-endian one before it, when
    the listener serves it, then it is decoded big-endian and gets the first message
    (of the highest priority)."""
    hobj = _input(session)
    events = SegmentReader().feed(_get_flow(hobj, _BIG) + _get_flow(hobj, _LITTLE))
    assert session.reader.feed(_get_flow(hobj, _LITTLE)[:8]) == []  # (the last TSH: little)
    reply = trio.run(session._dispatch, events[0])
    assert reply.comp == CMQC.MQCC_OK, reply
    assert mqiflows.decode_reply(reply).values[0].MsgId == bytes([3]) * 24  # (by priority)


def test_an_spi_run_of_gets_in_two_byte_orders_gets_each_message(session):  # noqa: F811
    """Given an SPI RUN (its own flow little-endian) of a big-endian MQGET then a
    little-endian one, when the listener serves it, then each get is decoded in its own
    byte order and gets the next message (by priority)."""
    hobj = _input(session)
    flows = _get_flow(hobj, _BIG) + _get_flow(hobj, _LITTLE)
    request = mqiflows.encode_request(_T.SPI, [mqiflows.SpiVerb.RUN, flows, 1 << 20])
    reply = trio.run(session._dispatch, request)
    replies = SegmentReader().feed(b"".join(mqiflows.decode_reply(reply).values[0]))
    assert [r.comp for r in replies] == [CMQC.MQCC_OK] * 2, replies
    assert [mqiflows.decode_reply(r).values[0].MsgId for r in replies] == [
        bytes([3]) * 24, bytes([6]) * 24]  # (the two of the highest priority)
