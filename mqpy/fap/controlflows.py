"""The channel control flows: STATUS, RESET, RESYNC, PING and HEARTBEAT.

Owns their body layouts, their events, their body codecs, and the one-segment fast path of
the value-less STATUS that answers every batch (``parse_status_segment`` /
``build_status_segment``).
"""

from __future__ import annotations

import struct
from typing import Any

import attrs
import construct as cs
from construct import this

from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import (
    BYTE_ORDERS,
    EVENT_FLAGS1,
    FIRST_LAST,
    STRUCTID_TSH,
    TSH_HEAD,
    TSH_LENGTH,
    TSH_TAIL,
    U32,
    ByteOrder,
    Event,
    SegmentType,
    parse_layout,
)

__all__ = [
    "PING",
    "RESET",
    "RESET_FAST",
    "RESYNC",
    "STATUS",
    "STATUS_FAST",
    "Heartbeat",
    "Ping",
    "Reset",
    "Resync",
    "Status",
    "build_status_segment",
    "decode_ping",
    "decode_reset",
    "decode_status",
    "parse_status_segment",
]

#: STATUS_DATA body: Length is 8 (no value) or 12.
STATUS = cs.Struct(
    "Length" / U32,  # 0
    "Code" / U32,  # 4
    "Value" / cs.If(this.Length >= 12, U32),  # 8
)

#: RESET_DATA body (8 bytes).
RESET = cs.Struct(
    "Length" / U32,  # 0
    "SeqNum" / U32,  # 4
)

#: RESYNC_DATA body. Wireshark does not dissect it; mqpy uses RESET's shape and carries the
#: in-doubt batch's LUW id in the TSH's LUWId field, where every segment already has room.
RESYNC = RESET


class _CompiledOnFirstUse:
    """``layout.compile()``, made when first parsed or built with: construct writes and
    compiles Python source for it, which a process that never sends a STATUS or a RESET
    (an application, most of the time) need not pay for at its start. Its ``parse`` and
    ``build`` are then attributes of this object, looked up as the compiled layout's were."""

    def __init__(self, layout: cs.Construct) -> None:
        self._layout = layout

    def __getattr__(self, name: str) -> Any:
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self._compiled = self._layout.compile()
            self.parse, self.build = compiled.parse, compiled.build
        return getattr(compiled, name)


# The layouts every batch crosses, compiled by construct into Python source: the same
# declarations (above, the one definition), parsed and built several times faster.
STATUS_FAST = _CompiledOnFirstUse(STATUS)
RESET_FAST = _CompiledOnFirstUse(RESET)

#: PING_DATA body: Length counts itself and the buffer that the partner echoes back.
PING = cs.Struct(
    "Length" / U32,  # 0
    "Buffer" / cs.Bytes(lambda ctx: max(ctx.Length - 4, 0)),  # 4
)


def _status_code(value: int) -> StatusCode | int:
    """Known codes become StatusCode; an unknown one is still a well-formed STATUS."""
    try:
        return StatusCode(value)
    except ValueError:
        return int(value)


@attrs.frozen(kw_only=True)
class Status(Event):
    """STATUS_DATA: ``code`` 0 answers a confirm request; others report an error."""

    segment_type = SegmentType.STATUS_DATA

    code: StatusCode | int = attrs.field(converter=_status_code)
    value: int | None = None


@attrs.frozen(kw_only=True)
class Heartbeat(Event):
    """HEARTBEAT: a bare TSH. packet-mq.c dissects no body for type 0x09; any bytes a partner
    adds are kept in ``data``. mqpy marks a heartbeat that wants an answer with
    CONFIRM_REQUEST in ``flags`` and answers without it.
    """

    segment_type = SegmentType.HEARTBEAT

    data: bytes = b""


@attrs.frozen(kw_only=True)
class Reset(Event):
    """RESET_DATA: the partner's next message sequence number is ``seqnum`` + 1."""

    segment_type = SegmentType.RESET_DATA

    seqnum: int


@attrs.frozen(kw_only=True)
class Resync(Event):
    """RESYNC_DATA: an in-doubt sender's last sequence number; its LUW id is ``luwid``."""

    segment_type = SegmentType.RESYNC_DATA

    seqnum: int


@attrs.frozen(kw_only=True)
class Ping(Event):
    """PING_DATA: ``data`` goes to the partner and must come back unchanged."""

    segment_type = SegmentType.PING_DATA

    data: bytes = b""


_FIRST_LAST = int(FIRST_LAST)
#: by the byte order's number: its TSH tail's packer
_TSH_TAIL_PACK = {int(order): TSH_TAIL[order].pack
                  for order in (ByteOrder.LITTLE, ByteOrder.BIG)}
_STATUS_DATA = int(SegmentType.STATUS_DATA)
#: a STATUS body without a value: Length (8) and Code, in the segment's byte order
_STATUS_BODY = {int(order): struct.Struct("<II" if order == ByteOrder.LITTLE else ">II")
                for order in (ByteOrder.LITTLE, ByteOrder.BIG)}


def build_status_segment(event: Status, byte_order: ByteOrder, encoding: int, ccsid: int,
                         flags2: int) -> bytes | None:
    """A STATUS without a value (plain TSH) as one segment, FIRST and LAST: the bytes
    ``build_segment_header`` and ``encode_body`` make, in one join -- a receiving MCA
    answers every batch with one. None when a number does not fit its field (the general
    path says so)."""
    order = int(byte_order)
    try:
        head = TSH_HEAD.pack(STRUCTID_TSH, TSH_LENGTH + 8, order, _STATUS_DATA,
                                      int(event.flags) | _FIRST_LAST, flags2, event.luwid)
        body = _STATUS_BODY[order].pack(8, event.code)
    except struct.error:
        return None
    return b"".join((head, _TSH_TAIL_PACK[order](encoding, ccsid, b"\0\0"), body))


def parse_status_segment(data: bytes, pos: int, limit: int) -> tuple[Any, ...] | None:
    """The STATUS without a value (plain TSH, an 8-byte body whose Length is 8) at
    ``data[pos:]``: ``(event, segment length, byte order, encoding, ccsid)`` -- a sending
    MCA reads one for every batch -- or None for anything else, which
    ``parse_segment_header`` and ``decode_body`` then take, with their errors. What it
    accepts, they decode alike (tests/channels/test_status_fast_path.py)."""
    if len(data) - pos < TSH_LENGTH + 8 or data[pos:pos + 4] != STRUCTID_TSH:
        return None
    _, length, order, segment_type, flags1, _, luwid = TSH_HEAD.unpack_from(data, pos)
    byte_order = BYTE_ORDERS.get(order)
    if (segment_type != _STATUS_DATA or byte_order is None or length != TSH_LENGTH + 8
            or length > limit):
        return None
    encoding, ccsid, _ = TSH_TAIL[byte_order].unpack_from(data, pos + TSH_LENGTH - 8)
    body_length, code = _STATUS_BODY[order].unpack_from(data, pos + TSH_LENGTH)
    if body_length != 8:
        return None
    event = Status(flags=EVENT_FLAGS1[flags1], luwid=luwid, code=code)
    return event, length, byte_order, encoding, ccsid


def _announced_length(body: bytes, little: bool, shortest: int, what: str) -> int:
    """The Length a body starts with, checked: at least ``shortest``, at most the body."""
    if len(body) < shortest:
        raise ProtocolError(StatusCode.PROTOCOL_LENGTH_ERROR,
                            f"{what} shorter than {shortest} bytes")
    length = int.from_bytes(body[:4], "little" if little else "big")
    if length < shortest or length > len(body):
        raise ProtocolError(
            StatusCode.PROTOCOL_LENGTH_ERROR,
            f"{what} length {length} with {len(body)} bytes present",
        )
    return length


def decode_status(body: bytes, little: bool, common: dict[str, Any]) -> Status:
    """A STATUS_DATA flow's body: Length 8 (no value) or 12, and the code."""
    _announced_length(body, little, 8, "STATUS")
    parsed = parse_layout(STATUS_FAST, bytes(body), StatusCode.PROTOCOL_LENGTH_ERROR, "STATUS",
                          little)
    return Status(**common, code=parsed.Code, value=parsed.Value)


def decode_reset(segment_type: SegmentType, body: bytes, little: bool,
                 common: dict[str, Any]) -> Reset | Resync:
    """A RESET_DATA or RESYNC_DATA flow's body: Length and a sequence number."""
    if len(body) < 8:
        raise ProtocolError(
            StatusCode.PROTOCOL_LENGTH_ERROR, f"{segment_type.name} shorter than 8 bytes"
        )
    parsed = parse_layout(RESET, bytes(body[:8]), StatusCode.PROTOCOL_LENGTH_ERROR, "RESET",
                          little)
    cls = Reset if segment_type == SegmentType.RESET_DATA else Resync
    return cls(**common, seqnum=parsed.SeqNum)


def decode_ping(body: bytes, little: bool, common: dict[str, Any]) -> Ping:
    """A PING_DATA flow's body: Length, then the buffer to echo."""
    length = _announced_length(body, little, 4, "PING")
    return Ping(**common, data=bytes(body[4:length]))
