"""The MQI flows' segments: the API header and the MQIRequest / MQIReply events it heads.

Owns the 16-byte API header after the TSH of segment types 0x81-0x9F, the two events, and
the one-segment fast path every MQI call and reply takes (``parse_mqi_segment``,
``build_mqi_request``, ``build_mqi_reply``, ``readdressed_mqi_reply`` ...). What the bodies
hold, verb by verb, is ``mqpy.fap.mqiflows``.
"""

from __future__ import annotations

import struct
from typing import Any, TypeVar

import attrs
import construct as cs

from mqpy.fap.tsh import (
    BYTE_ORDERS,
    EVENT_FLAGS1,
    FIRST_LAST,
    NO_LUW,
    OUR_CCSID,
    OUR_ENCODING,
    S32,
    STRUCTID_TSH,
    STRUCTID_TSHM,
    TSH_HEAD,
    TSH_LENGTH,
    TSH_TAIL,
    TSHM_HEAD,
    TSHM_LENGTH,
    U32,
    ByteOrder,
    ControlFlags1,
    Event,
    SegmentType,
)

__all__ = [
    "API_HEADER",
    "API_HEADER_LENGTH",
    "API_TAIL",
    "MQIReply",
    "MQIRequest",
    "build_mqi_reply",
    "build_mqi_request",
    "build_mqi_segment",
    "mqi_event",
    "parse_mqi_segment",
    "readdressed_mqi_reply",
]

API_HEADER_LENGTH = 16  #: after the TSH of segment types 0x81-0x9F

#: The API header after the TSH of segment types 0x81-0x9F (16 bytes).
API_HEADER = cs.Struct(
    "ReplyLength" / cs.Int32ub,  # 0   always BE
    "CompCode" / S32,  # 4
    "Reason" / S32,  # 8
    "ObjectHandle" / U32,  # 12
)

#: The API header after its big-endian ReplyLength, with ``struct``, by byte order
#: (CompCode, Reason, ObjectHandle): field for field API_HEADER (tests/wire/test_structures.py).
API_TAIL = {ByteOrder.LITTLE: struct.Struct("<iiI"), ByteOrder.BIG: struct.Struct(">iiI")}


def _mqi_type(low: int, high: int) -> Any:
    def convert(value: int) -> SegmentType:
        segment_type = value if type(value) is SegmentType else SegmentType(value)
        if not low <= segment_type <= high:
            raise ValueError(f"{segment_type.name} is not in 0x{low:02X}-0x{high:02X}")
        return segment_type

    return convert


@attrs.frozen(kw_only=True)
class MQIRequest(Event):
    """A client's MQI verb (0x81-0x8F): the API header then an opaque, verb-specific body."""

    segment_type: SegmentType = attrs.field(converter=_mqi_type(0x81, 0x8F))
    comp: int = 0
    reason: int = 0
    hobj: int = 0
    body: bytes = b""
    reply_length: int | None = None  #: None: the writer puts the flow's total length
    #: the byte order of the integers of ``body`` and the API header: the TSH's it came
    #: with (a split flow's FIRST segment's); not compared: the same call either way
    byte_order: ByteOrder = attrs.field(default=ByteOrder.LITTLE, eq=False, repr=False)


@attrs.frozen(kw_only=True)
class MQIReply(Event):
    """The reply to an MQI verb (0x91-0x9F) with MQCC / MQRC in the API header."""

    segment_type: SegmentType = attrs.field(converter=_mqi_type(0x91, 0x9F))
    comp: int = 0
    reason: int = 0
    hobj: int = 0
    body: bytes = b""
    reply_length: int | None = None
    #: as MQIRequest's: the byte order of the TSH it came with
    byte_order: ByteOrder = attrs.field(default=ByteOrder.LITTLE, eq=False, repr=False)


_FIRST_LAST = int(FIRST_LAST)
_MQI = TypeVar("_MQI", MQIRequest, MQIReply)
#: (segment type, event class) of the MQI verbs and replies, by segment type number.
_MQI_KINDS = {int(t): (t, MQIRequest if t < 0x90 else MQIReply)
              for t in SegmentType if t.has_api_header}


_new = object.__new__
_set = object.__setattr__


def mqi_event(cls: type[_MQI], flags: ControlFlags1, luwid: bytes, conv_id: int | None,
              request_id: int | None, segment_type: SegmentType, comp: int, reason: int,
              hobj: int, body: bytes, reply_length: int | None,
              byte_order: ByteOrder = ByteOrder.LITTLE) -> _MQI:
    """An MQIRequest / MQIReply from fields already in the form its converters give (flags
    a ``ControlFlags1`` without FIRST or LAST, an 8-byte ``luwid``, a ``SegmentType`` of the
    class's range, ``body``'s ``byte_order`` a ``ByteOrder``): the event its constructor
    would make, without calling the converters
    again -- four events go through the channel initiator for every relayed MQI call.
    (tests/wire/test_mqi_fast_path.py holds these events to the constructor's, field by
    field and type by type.)"""
    event = _new(cls)
    _set(event, "flags", flags)
    _set(event, "luwid", luwid)
    _set(event, "conv_id", conv_id)
    _set(event, "request_id", request_id)
    _set(event, "segment_type", segment_type)
    _set(event, "comp", comp)
    _set(event, "reason", reason)
    _set(event, "hobj", hobj)
    _set(event, "body", body)
    _set(event, "reply_length", reply_length)
    _set(event, "byte_order", byte_order)
    return event


def parse_mqi_segment(data: bytes, pos: int, limit: int) -> tuple[Any, ...] | None:
    """The whole one-segment MQI flow (TSH or TSHM, FIRST and LAST) at ``data[pos:]``:
    ``(event, segment length, byte order, encoding, ccsid)``, decoded from the fixed layouts
    in one go -- or None for anything else (another segment type, part of a split flow, a
    segment not all there, or not valid), which ``parse_segment_header`` and
    ``decode_body`` then take, with their errors. What it accepts, they decode alike
    (tests/wire/test_framing.py holds the two to the same events)."""
    avail = len(data) - pos
    if avail < TSH_LENGTH + API_HEADER_LENGTH:
        return None
    struct_id = data[pos:pos + 4]
    if struct_id == STRUCTID_TSH:
        _, length, order, segment_type, flags1, _, luwid = \
            TSH_HEAD.unpack_from(data, pos)
        conv_id = request_id = None
        header_length = TSH_LENGTH
    elif struct_id == STRUCTID_TSHM:
        if avail < TSHM_LENGTH + API_HEADER_LENGTH:
            return None
        (_, length, conv_id, request_id, order, segment_type, flags1, _,
         luwid) = TSHM_HEAD.unpack_from(data, pos)
        header_length = TSHM_LENGTH
    else:
        return None
    kind = _MQI_KINDS.get(segment_type)
    byte_order = BYTE_ORDERS.get(order)
    if (kind is None or byte_order is None or flags1 & _FIRST_LAST != _FIRST_LAST
            or not header_length + API_HEADER_LENGTH <= length <= min(avail, limit)):
        return None
    encoding, ccsid, _ = TSH_TAIL[byte_order].unpack_from(data, pos + header_length - 8)
    at = pos + header_length
    comp, reason, hobj = API_TAIL[byte_order].unpack_from(data, at + 4)
    segment_type, cls = kind
    # flags1 is a byte and luwid 8 bytes off the struct: what the converters would give
    event = mqi_event(cls, EVENT_FLAGS1[flags1], luwid, conv_id, request_id, segment_type,
                      comp, reason, hobj, data[at + API_HEADER_LENGTH:pos + length],
                      int.from_bytes(data[at:at + 4], "big"), byte_order)
    return event, length, byte_order, encoding, ccsid


def one_mqi_flow(data: bytes) -> tuple[int, int, int, int, bytes] | None:
    """(segment type, CompCode, Reason, Hobj, body) of ``data`` when it is exactly one whole
    one-segment little-endian MQI flow with a TSH -- the fields :func:`parse_mqi_segment`
    gives its event -- or None for anything else (a bindings call read in one go, on either
    end of the socket: ``mqpy.bindings_calls``, ``mqpy.bindings_thread``)."""
    if (len(data) < TSH_LENGTH + API_HEADER_LENGTH or data[:4] != STRUCTID_TSH
            or int.from_bytes(data[4:8], "big") != len(data) or data[8] != ByteOrder.LITTLE
            or data[10] & _FIRST_LAST != _FIRST_LAST or data[9] not in _MQI_KINDS):
        return None
    comp, reason, hobj = _LITTLE_API_TAIL(data, TSH_LENGTH + 4)
    return data[9], comp, reason, hobj, data[TSH_LENGTH + API_HEADER_LENGTH:]


_LITTLE_API_TAIL = API_TAIL[ByteOrder.LITTLE].unpack_from


def build_mqi_reply(segment_type: int, comp: int, reason: int, hobj: int,
                    body: tuple[bytes, ...], byte_order: ByteOrder, encoding: int, ccsid: int,
                    flags2: int, conv_id: int | None, request_id: int | None) -> bytes:
    """An MQI reply whose body is ``body`` joined, as one segment (TSH, or TSHM with
    ``conv_id``; FIRST and LAST, no LUW, ReplyLength its own length): the bytes a
    ``SegmentWriter`` of ``byte_order`` / ``encoding`` / ``ccsid`` / ``flags2`` makes of
    ``mqiflows.encode_reply``'s event readdressed to the request, without the event (the
    SVRCONN's replies to the calls it serves at once). The caller knows it fits."""
    return _mqi_segment(byte_order, segment_type, _FIRST_LAST, flags2, NO_LUW, conv_id,
                        request_id, encoding, ccsid, None, comp, reason, hobj, body)


def build_mqi_segment(event: MQIRequest | MQIReply, byte_order: ByteOrder, encoding: int,
                      ccsid: int, flags2: int) -> bytes:
    """An MQI flow as one segment, FIRST and LAST (the caller knows it fits): the bytes
    ``build_segment_header`` and ``encode_body`` make, without their generality."""
    return _mqi_segment(byte_order, event.segment_type, int(event.flags) | _FIRST_LAST, flags2,
                        event.luwid, event.conv_id, event.request_id, encoding, ccsid,
                        event.reply_length, event.comp, event.reason, event.hobj,
                        (event.body,))


def build_mqi_request(segment_type: SegmentType, hobj: int, body: tuple[bytes, ...], *,
                      conv_id: int | None = None, request_id: int | None = None,
                      encoding: int = OUR_ENCODING, ccsid: int = OUR_CCSID,
                      flags2: int = 0) -> bytes:
    """An MQI request whose body is ``body`` joined, as one little-endian segment (TSH, or
    TSHM with ``conv_id``; FIRST and LAST, no LUW, ReplyLength its own length): the bytes a
    little-endian ``SegmentWriter`` makes of ``mqiflows.encode_request``'s event, without
    the event (a receiving MCA's puts, packed by hand: mqpy_chinit.batchcalls; a client's
    every call: mqpy.client). ``struct.error`` / OverflowError for a number that does not
    fit its field."""
    return _mqi_segment(ByteOrder.LITTLE, segment_type, _FIRST_LAST, flags2, NO_LUW, conv_id,
                        request_id, encoding, ccsid, None, 0, 0, hobj, body)


def _mqi_segment(byte_order: ByteOrder, segment_type: int, flags1: int, flags2: int,
                 luwid: bytes, conv_id: int | None, request_id: int | None, encoding: int,
                 ccsid: int, reply_length: int | None, comp: int, reason: int, hobj: int,
                 body: tuple[bytes, ...]) -> bytes:
    """The one packer of a one-segment MQI flow: TSH or TSHM, then the API header, then the
    body's parts (``reply_length`` None: the segment's own length)."""
    total = (TSH_LENGTH if conv_id is None else TSHM_LENGTH) + API_HEADER_LENGTH \
        + (len(body[0]) if len(body) == 1 else sum(map(len, body)))
    order = int(byte_order)  # (an IntEnum hashes and converts through Python code)
    if conv_id is None:
        head = _TSH_HEAD_PACK(STRUCTID_TSH, total, order, segment_type, flags1, flags2, luwid)
    else:
        head = _TSHM_HEAD_PACK(STRUCTID_TSHM, total, conv_id, request_id or 0, order,
                               segment_type, flags1, flags2, luwid)
    tail, api = _TAILS[order]
    return b"".join((head, tail(encoding, ccsid, b"\0\0"),
                     (total if reply_length is None else reply_length).to_bytes(4, "big"),
                     api(comp, reason, hobj), *body))


_TSH_HEAD_PACK = TSH_HEAD.pack
_TSHM_HEAD_PACK = TSHM_HEAD.pack
#: by the byte order's number: its TSH tail's and API header tail's packers
_TAILS = {int(order): (TSH_TAIL[order].pack, API_TAIL[order].pack)
          for order in (ByteOrder.LITTLE, ByteOrder.BIG)}


def readdressed_mqi_reply(data: bytes, segment_type: int, conv_id: int | None,
                          request_id: int | None, encoding: int, ccsid: int, flags2: int,
                          limit: int) -> tuple[bytes, int] | None:
    """A relayed MQI reply passed on without being taken apart: ``data`` -- what one read
    of the queue manager's socket gave -- when it is exactly one whole one-segment flow of
    ``segment_type`` with a little-endian TSH, becomes the segment a little-endian
    ``SegmentWriter`` (``encoding``, ``ccsid``, ``flags2``) makes of its reply event
    readdressed to the client: TSHM with ``conv_id`` and ``request_id`` (TSH when
    ``conv_id`` is None), no LUW, no flags but FIRST and LAST, ReplyLength its own length;
    API header codes and body as they came. Returns (segment, CompCode), or None for
    anything else (more or less than one such segment, another type or byte order, longer
    than ``limit``), which the caller then takes the general way. (tests/wire/
    test_mqi_fast_path.py holds it to parse_mqi_segment, mqi_event and build_mqi_segment.)"""
    length = len(data)
    if (length < TSH_LENGTH + API_HEADER_LENGTH or data[:4] != STRUCTID_TSH
            or int.from_bytes(data[4:8], "big") != length or data[8] != ByteOrder.LITTLE
            or data[9] != segment_type or data[10] & _FIRST_LAST != _FIRST_LAST):
        return None
    at = TSH_LENGTH + 4  # CompCode, Reason, Hobj and the body: in little-endian order already
    total = (TSH_LENGTH if conv_id is None else TSHM_LENGTH) + length - TSH_LENGTH
    if total > limit:
        return None
    if conv_id is None:
        head = TSH_HEAD.pack(STRUCTID_TSH, total, ByteOrder.LITTLE, segment_type,
                                      _FIRST_LAST, flags2, NO_LUW)
    else:
        head = TSHM_HEAD.pack(STRUCTID_TSHM, total, conv_id, request_id or 0,
                                       ByteOrder.LITTLE, segment_type, _FIRST_LAST, flags2,
                                       NO_LUW)
    with memoryview(data) as view:
        segment = b"".join((head, TSH_TAIL[ByteOrder.LITTLE].pack(encoding, ccsid,
                                                                         b"\0\0"),
                            total.to_bytes(4, "big"), view[at:]))
    return segment, int.from_bytes(data[at:at + 4], "little", signed=True)
