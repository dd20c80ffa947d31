"""The queue manager's side of asynchronous puts that an application sends in a row over its
bindings socket: each one put straight from the bytes read.

An application putting with MQPMO_ASYNC_RESPONSE sends faster than the queue manager serves
(``mqpy.bindings_calls``), so one read brings many of those MQPUTs. Each is what
:func:`request` finds at its place in the read: one whole little-endian segment (a TSH,
FIRST and LAST), an MQMD and an MQPMO (without records) that mqpy knows, then the message,
its length adding up. It is put from those bytes (``engine.packed.put_async``: the MsgId and
context written into the MQMD's bytes, no MQMD or MQPMO object made) and answered with the
one reply every asynchronous put gets (no structures: nobody reads it). Anything else --
another verb, a synchronous put, a segment that is not whole or not of this form, a call
strmqtrc traces, a put the engine's fast path leaves to the general one -- goes the general
way (``mqpy.bindings_thread``), which gives what this gives
(tests/performance_paths/test_async_put_stream.py holds the two alike).
"""

from __future__ import annotations

import struct

from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import API_HEADER_LENGTH
from mqpy.fap.tsh import FIRST_LAST, TSH_LENGTH, ByteOrder, SegmentType
from mqpy.structs.tables import PMO

__all__ = ["KeptRequest", "put_request", "request", "whole_request"]

_BODY_AT = TSH_LENGTH + API_HEADER_LENGTH
_MQPUT = int(SegmentType.MQPUT)
_WHOLE = int(FIRST_LAST)
_LITTLE = int(ByteOrder.LITTLE)
_RESPONSE = CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNC_RESPONSE
_ASYNC = CMQC.MQPMO_ASYNC_RESPONSE
#: TSH: StructId, length (big-endian), byte order, segment type, flags 1
_TSH_HEAD = struct.Struct(">4sIBBB")
_TYPE_AT = _TSH_HEAD.size - 2  # the TSH's segment type (after StructId, length, byte order)
_HOBJ_AT = TSH_LENGTH + 12  # the API header's Hobj (after ReplyLength, CompCode, Reason)
_LONG = struct.Struct("<i").unpack_from
_PMO_OPTIONS_AT = PMO._layout_.offsets["Options"]
_PMO_RECS_AT = PMO._layout_.offsets["RecsPresent"]
_PMO_V2 = mqiflows.PMO_SIZES[1][2]  # (the Version RecsPresent comes with)
_MD_SIZES, _PMO_SIZES = mqiflows.MD_SIZES, mqiflows.PMO_SIZES
_size_at = mqiflows.size_at


class KeptRequest:
    """Where the last asynchronous MQPUT of the common form a connection sent put things,
    kept while its session is (as ``syncput_stream.KeptPut``): ``front``, its bytes up to
    its MQMD's Version (TSH, API header, the MQMD's StrucId and Version), ``back``, those
    from its MQPMO (at ``pmo_at``) to the message (the MQPMO, the message's length). A
    request with the same bytes there (the MQMD's MsgId and the rest of it may differ: an
    application's each put has its own) and as long is of the common form as that one was,
    read the same: it is not read again."""

    __slots__ = ("back", "front", "hobj", "length", "limit", "msg_at", "options", "pmo_at")

    def __init__(self) -> None:
        self.front = self.back = b"\0"  # (no request has these: a TSH starts "TSH ")
        self.length = self.limit = self.hobj = self.msg_at = self.options = self.pmo_at = 0


_FRONT = _BODY_AT + 8  # (the MQMD's StrucId and Version)


def request(data: bytes, start: int, limit: int, kept: KeptRequest | None = None
            ) -> tuple[int, int, bytes, int, bytes] | None:
    """(its end, Hobj, MQMD bytes, MQPMO Options, message) of the asynchronous MQPUT of the
    common form that starts at ``start`` of ``data``, a segment of at most ``limit`` bytes;
    None for anything else (or a segment not yet whole). ``kept``: the session's
    :class:`KeptRequest`, read and updated."""
    if kept is not None and kept.limit == limit and start + kept.length <= len(data) \
            and data.startswith(kept.front, start) \
            and data.startswith(kept.back, start + kept.pmo_at):
        end = start + kept.length
        return end, kept.hobj, data[start + _BODY_AT:start + kept.pmo_at], kept.options, \
            data[start + kept.msg_at:end]
    # (most requests are no asynchronous put: turned away on their segment type, or a
    # synchronous put on its MQPMO Options, before the whole request is checked)
    if len(data) - start < _BODY_AT or data[start + _TYPE_AT] != _MQPUT:
        return None
    md_size = _size_at(data, start + _BODY_AT, _MD_SIZES)
    options_at = start + _BODY_AT + md_size + _PMO_OPTIONS_AT
    if not md_size or options_at + 4 > len(data) \
            or _LONG(data, options_at)[0] & _RESPONSE != _ASYNC:
        return None
    found = _put_request(data, start, limit, md_size)
    if found is None:
        return None
    end, hobj, md_at, pmo_at, options, at = found
    if kept is not None:
        kept.front, kept.back = data[start:start + _FRONT], data[pmo_at:at + 4]
        kept.length, kept.limit, kept.hobj, kept.options = end - start, limit, hobj, options
        kept.pmo_at, kept.msg_at = pmo_at - start, at + 4 - start
    return end, hobj, data[md_at:pmo_at], options, data[at + 4:end]


def whole_request(data: bytes, start: int, limit: int, segment_type: int) -> int | None:
    """The end of the one whole little-endian segment (a TSH, FIRST and LAST) of a request
    of ``segment_type`` that starts at ``start`` of ``data``, at most ``limit`` bytes long;
    None when there is none there (or it is not yet whole)."""
    if len(data) - start < _BODY_AT or data[start + _TYPE_AT] != segment_type:
        return None
    struc, length, order, found, flags = _TSH_HEAD.unpack_from(data, start)
    end = start + length
    if (found != segment_type or struc != b"TSH " or order != _LITTLE or flags != _WHOLE
            or end > len(data) or length > limit):
        return None
    return end


def put_request(data: bytes, start: int, limit: int
                ) -> tuple[int, int, int, int, int, int] | None:
    """(its end, Hobj, where its MQMD starts, where its MQPMO starts, MQPMO Options, where
    the message's length is) of the MQPUT of the common form (one whole little-endian
    segment, an MQMD and an MQPMO without records that mqpy knows, lengths that add up)
    that starts at ``start`` of ``data``, a segment of at most ``limit`` bytes; None for
    anything else (or a segment not yet whole)."""
    if len(data) - start < _BODY_AT or data[start + _TYPE_AT] != _MQPUT:
        return None
    return _put_request(data, start, limit, _size_at(data, start + _BODY_AT, _MD_SIZES))


def _put_request(data: bytes, start: int, limit: int, md_size: int
                 ) -> tuple[int, int, int, int, int, int] | None:
    """:func:`put_request`'s answer, the MQMD's length (``mqiflows.size_at``) known."""
    end = whole_request(data, start, limit, _MQPUT)
    if end is None:
        return None
    md_at = start + _BODY_AT
    pmo_at = md_at + md_size
    pmo_size = md_size and _size_at(data, pmo_at, _PMO_SIZES)
    at = pmo_at + pmo_size  # the message's length, then the message
    if not pmo_size or at + 4 > end:  # (the structures within the segment: read no further)
        return None
    options = _LONG(data, pmo_at + _PMO_OPTIONS_AT)[0]
    if ((pmo_size >= _PMO_V2 and _LONG(data, pmo_at + _PMO_RECS_AT)[0])
            or _LONG(data, at)[0] != end - at - 4):
        return None
    return end, _LONG(data, start + _HOBJ_AT)[0], md_at, pmo_at, options, at
