"""A client's requests read together in two byte orders are each decoded in their own TSH's
(docs/wire.md "Byte order"), on the SVRCONN's every way of serving them: the poller from the
bytes read, and the receiver's way from the segment reader's events."""

from __future__ import annotations

import functools

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.performance_paths.test_client_packed_serving import _request
from tests.robustness.test_svrconn_served_from_bytes_differential import (
    _engine,
    _patch,
    _run,
)
from tests.support.differential import EnginePair

_T = SegmentType
_CONV = 1
_NOT_PERSISTENT = functools.partial(mqpy.MD, Persistence=CMQC.MQPER_NOT_PERSISTENT)


def _big_endian_get(hobj: int, request_id: int) -> bytes:
    """An MQGET as a big-endian client frames it: TSHM, API header and MQMD / MQGMO
    big-endian."""
    event = mqiflows.encode_request(_T.MQGET, [mqpy.MD(), mqpy.GMO(), mqiflows.WHOLE_MESSAGE],
                                    hobj=hobj, byte_order=ByteOrder.BIG, conv_id=_CONV,
                                    request_id=request_id)
    return SegmentWriter(byte_order=ByteOrder.BIG).send(event)


def test_little_endian_puts_then_a_big_endian_get_in_one_read_are_all_served(tmp_path):
    """Given one read holding three little-endian MQPUTs and then a big-endian MQGET, when
    the SVRCONN serves it from its bytes and the receiver's way, then both give the same
    replies, queue and counts: each request read in its own byte order, the get getting
    the first message."""
    def build(h: dict[str, int]) -> list[bytes]:
        puts = [_request(_T.MQPUT, [_NOT_PERSISTENT(), mqpy.PMO(), b"put %d" % n], h["OUT"], n)
                for n in (1, 2, 3)]
        return [b"".join(puts) + _big_endian_get(h["IN"], 4)]

    fast, general = EnginePair(tmp_path, _engine, _run, _patch).once(build)
    assert fast == general
    replies, left = general[0][0], general[0][1]
    assert len(replies) == 4 and not left
    assert b"first" in replies[3]  # (the big-endian get's reply: the message put first)
