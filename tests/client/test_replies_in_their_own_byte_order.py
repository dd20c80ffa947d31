"""A client reads each MQI reply in its own TSH's byte order (docs/wire.md "Byte order"),
not in that of the last segment its reader took."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, clientcalls
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import ByteOrder, SegmentType

_T = SegmentType


def _reply(order: ByteOrder, msg_id: bytes) -> bytes:
    """An MQPUT's reply (the MQMD and MQPMO filled in) as a queue manager of ``order``
    frames it."""
    event = mqiflows.encode_reply(_T.MQPUT, [mqpy.MD(MsgId=msg_id), mqpy.PMO()],
                                  byte_order=order)
    return SegmentWriter(byte_order=order).send(event)


def test_a_big_endian_reply_read_with_a_little_endian_one_after_it_is_read_big_endian():
    """Given a big-endian MQPUT reply and a little-endian one after it in one read, when the
    client decodes each, then each MQMD comes out whole (its own byte order)."""
    events = SegmentReader().feed(_reply(ByteOrder.BIG, b"B" * 24)
                                  + _reply(ByteOrder.LITTLE, b"L" * 24))
    decoded = [clientcalls._decoded(_T.MQPUT, event, ()) for event in events]
    assert [d.comp for d in decoded] == [CMQC.MQCC_OK] * 2
    assert [d.values[0].MsgId for d in decoded] == [b"B" * 24, b"L" * 24]
