"""MESSAGE_DATA: one transmission-queue message, in as many segments as it takes.

Owns the message segment header (MSH) on the first segment, the MQXQH and MQMD v1 sizes a
message starts with, the MessageData event, and the one-segment fast path every message of
a channel takes (``parse_message_segment`` / ``build_message_segment``).
"""

from __future__ import annotations

import struct
from typing import Any

import attrs
import construct as cs

from mqpy import CMQC
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
    ControlFlags1,
    Event,
    SegmentHeader,
    SegmentType,
    mq_encoding,
)
from mqpy.structs.tables import XQH

__all__ = [
    "MD_PERSISTENCE_AT",
    "MQMD_V1_LENGTH",
    "MSH",
    "MSH_LENGTH",
    "MSH_STRUCT",
    "STRUCTID_MD",
    "STRUCTID_MSH",
    "STRUCTID_XQH",
    "XQH_LENGTH",
    "XQH_WITH_MD_LENGTH",
    "MessageData",
    "build_message_segment",
    "decode_message_data",
    "message_event",
    "parse_message_segment",
]

MSH_LENGTH = 20  #: message segment header, first segment of MESSAGE_DATA only
XQH_LENGTH = 104  #: MQXQH up to, not including, its embedded MQMD
MQMD_V1_LENGTH = 324
XQH_WITH_MD_LENGTH = XQH_LENGTH + MQMD_V1_LENGTH  #: the whole MQXQH (428)
#: Where the embedded MQMD's Persistence (an MQLONG) sits in the MQXQH
MD_PERSISTENCE_AT = XQH_LENGTH + 44

STRUCTID_MSH = b"MSH "
STRUCTID_XQH = b"XQH "
STRUCTID_MD = b"MD  "

#: Message segment header: first segment of MESSAGE_DATA (20 bytes).
MSH = cs.Struct(
    "StructId" / cs.Const(STRUCTID_MSH),  # 0
    "SeqNum" / U32,  # 4   channel sequence number of this message
    "DataLength" / U32,  # 8   tshark "Buf len."; mqpy writes the transmission-message length
    "Unknown1" / U32,  # 12  meaning unpublished; mqpy writes 0
    "MsgLength" / U32,  # 16  length of XQH + MD + data (the payload after the MSH)
)

#: The MSH with ``struct``, by byte order (StructId, SeqNum, DataLength, Unknown1, MsgLength):
#: every message of a channel crosses it (tests/wire/test_structures.py holds it to MSH).
MSH_STRUCT = {ByteOrder.LITTLE: struct.Struct("<4sIIII"), ByteOrder.BIG: struct.Struct(">4sIIII")}


@attrs.frozen(kw_only=True)
class MessageData(Event):
    """MESSAGE_DATA: one transmission-queue message, however many segments carried it.

    ``xqh`` is the whole MQXQH (104 bytes + the embedded MQMD v1: 428 bytes) exactly as on
    the wire, its integers in ``byte_order``; ``data`` is the application data. Kept as bytes
    so the event stays immutable and a relayed message is forwarded bit for bit;
    ``transmission_header`` and ``md`` decode it with ``mqpy.structs.tables`` (which owns MQXQH
    and MQMD), ``from_xqh`` builds an event from an ``XQH``.
    """

    segment_type = SegmentType.MESSAGE_DATA

    seqnum: int
    xqh: bytes = attrs.field(converter=bytes)
    data: bytes = attrs.field(default=b"", converter=bytes)
    byte_order: ByteOrder = attrs.field(default=ByteOrder.LITTLE, converter=ByteOrder)

    @xqh.validator
    def _check_xqh(self, attribute: Any, value: bytes) -> None:
        if len(value) != XQH_WITH_MD_LENGTH:
            raise ValueError(f"an MQXQH is {XQH_WITH_MD_LENGTH} bytes, not {len(value)}")

    @classmethod
    def from_xqh(
        cls,
        seqnum: int,
        xqh: Any,
        data: bytes = b"",
        *,
        byte_order: ByteOrder = ByteOrder.LITTLE,
        **common: Any,
    ) -> MessageData:
        """Pack ``xqh`` (a ``mqpy.structs.tables.XQH``) in ``byte_order`` into an event."""
        return cls(
            seqnum=seqnum,
            xqh=xqh.pack(mq_encoding(byte_order)),
            data=data,
            byte_order=byte_order,
            **common,
        )

    @property
    def transmission_header(self) -> Any:
        """A fresh ``mqpy.structs.tables.XQH`` decoded from ``xqh`` (MsgDesc is its MQMD)."""
        return XQH.from_bytes(self.xqh, mq_encoding(self.byte_order))

    @property
    def md(self) -> Any:
        """The message's own MQMD (v1), the one embedded in the MQXQH."""
        return self.transmission_header.MsgDesc

    @property
    def persistent(self) -> bool:
        """Is the message persistent? Read in place, without decoding the MQXQH (a receiving
        MCA asks it of every arrival): its Persistence's bytes are MQPER_PERSISTENT's."""
        return self.xqh[MD_PERSISTENCE_AT:MD_PERSISTENCE_AT + 4] == _PERSISTENT[
            self.byte_order]

    def in_byte_order(self, byte_order: ByteOrder) -> MessageData:
        """The same message with its MQXQH integers re-packed in ``byte_order``."""
        if byte_order == self.byte_order:
            return self
        return attrs.evolve(
            self,
            xqh=self.transmission_header.pack(mq_encoding(byte_order)),
            byte_order=byte_order,
        )


#: MQPER_PERSISTENT as an MQMD's Persistence holds it, by byte order
_PERSISTENT = {order: CMQC.MQPER_PERSISTENT.to_bytes(
    4, "little" if order == ByteOrder.LITTLE else "big", signed=True) for order in ByteOrder}


_FIRST_LAST = int(FIRST_LAST)
_new = object.__new__
_set = object.__setattr__
_MESSAGE_DATA = int(SegmentType.MESSAGE_DATA)
#: the shortest one-segment MESSAGE_DATA: TSH, MSH and an MQXQH with its MQMD, no data
_MESSAGE_MIN = TSH_LENGTH + MSH_LENGTH + XQH_WITH_MD_LENGTH


def message_event(flags: ControlFlags1, luwid: bytes, seqnum: int, xqh: bytes, data: bytes,
                  byte_order: ByteOrder) -> MessageData:
    """A MessageData (plain TSH: no ``conv_id``) from fields already in the form its
    converters give (``flags`` a ControlFlags1 without FIRST or LAST, an 8-byte ``luwid``,
    ``xqh`` bytes of the MQXQH's length, ``data`` bytes, a ByteOrder): the event its
    constructor would make, without its converters and validator -- a sending MCA makes
    one and a receiving MCA reads one for every message. (tests/wire/
    test_message_fast_path.py holds these to the constructor's, field by field.)"""
    event = _new(MessageData)
    _set(event, "flags", flags)
    _set(event, "luwid", luwid)
    _set(event, "conv_id", None)
    _set(event, "request_id", None)
    _set(event, "seqnum", seqnum)
    _set(event, "xqh", xqh)
    _set(event, "data", data)
    _set(event, "byte_order", byte_order)
    return event


def parse_message_segment(data: bytes, pos: int, limit: int, max_msg_size: int = 0
                          ) -> tuple[Any, ...] | None:
    """The whole one-segment MESSAGE_DATA (plain TSH, FIRST and LAST) at ``data[pos:]``:
    ``(event, segment length, byte order, encoding, ccsid)`` read from the fixed layouts
    in one go -- or None for anything else (another segment type, part of a split flow, a
    segment not all there, a message above ``max_msg_size``, or anything not valid), which
    ``parse_segment_header`` and ``decode_body`` then take, with their errors. What it
    accepts, they decode alike (tests/wire/test_message_fast_path.py)."""
    avail = len(data) - pos
    if avail < _MESSAGE_MIN or data[pos:pos + 4] != STRUCTID_TSH:
        return None
    _, length, order, segment_type, flags1, _, luwid = TSH_HEAD.unpack_from(data, pos)
    byte_order = BYTE_ORDERS.get(order)
    if (segment_type != _MESSAGE_DATA or byte_order is None
            or flags1 & _FIRST_LAST != _FIRST_LAST
            or not _MESSAGE_MIN <= length <= min(avail, limit)):
        return None
    encoding, ccsid, _ = TSH_TAIL[byte_order].unpack_from(data, pos + TSH_LENGTH - 8)
    at = pos + TSH_LENGTH
    struct_id, seqnum, _, _, msg_length = MSH_STRUCT[byte_order].unpack_from(data, at)
    at += MSH_LENGTH
    md_at = at + XQH_LENGTH
    if (struct_id != STRUCTID_MSH or msg_length != length - TSH_LENGTH - MSH_LENGTH
            or (max_msg_size and msg_length > max_msg_size + XQH_WITH_MD_LENGTH)
            or data[at:at + 4] != STRUCTID_XQH or data[md_at:md_at + 4] != STRUCTID_MD):
        return None
    end = at + XQH_WITH_MD_LENGTH
    event = message_event(EVENT_FLAGS1[flags1], luwid, seqnum, data[at:end],
                          data[end:pos + length], byte_order)
    return event, length, byte_order, encoding, ccsid


def build_message_segment(event: MessageData, byte_order: ByteOrder, encoding: int,
                          ccsid: int, flags2: int) -> bytes | None:
    """A MessageData in ``byte_order`` (plain TSH) as one segment, FIRST and LAST (the
    caller knows it fits): the bytes ``build_segment_header`` and ``encode_body`` make,
    in one join; None when a number does not fit its field (the general path says so)."""
    length = len(event.xqh) + len(event.data)
    try:
        head = TSH_HEAD.pack(STRUCTID_TSH, TSH_LENGTH + MSH_LENGTH + length,
                                      byte_order, _MESSAGE_DATA, int(event.flags) | _FIRST_LAST,
                                      flags2, event.luwid)
        msh = MSH_STRUCT[byte_order].pack(STRUCTID_MSH, event.seqnum, length, 0, length)
    except struct.error:
        return None
    return b"".join((head, TSH_TAIL[byte_order].pack(encoding, ccsid, b"\0\0"), msh,
                     event.xqh, event.data))


def decode_message_data(header: SegmentHeader, body: bytes, common: dict[str, Any]) -> MessageData:
    """A MESSAGE_DATA flow's body: an MSH whose MsgLength is what followed, and a message
    that starts with an MQXQH and its MQMD."""
    if len(body) < MSH_LENGTH or bytes(body[:4]) != STRUCTID_MSH:
        raise ProtocolError(StatusCode.PROTOCOL_MSH_ERROR, "MESSAGE_DATA without an MSH")
    _, seqnum, _, _, msg_length = MSH_STRUCT[header.byte_order].unpack_from(body)
    payload = bytes(body[MSH_LENGTH:])
    if msg_length != len(payload):
        raise ProtocolError(
            StatusCode.MESSAGE_LENGTH_ERROR,
            f"MSH announces {msg_length} bytes, the segments carried {len(payload)}",
        )
    if len(payload) < XQH_WITH_MD_LENGTH:
        raise ProtocolError(
            StatusCode.PROTOCOL_MSH_ERROR, f"message of {len(payload)} bytes has no MQXQH"
        )
    if payload[:4] != STRUCTID_XQH or payload[XQH_LENGTH : XQH_LENGTH + 4] != STRUCTID_MD:
        raise ProtocolError(
            StatusCode.PROTOCOL_MSH_ERROR, "message does not start with an MQXQH and MQMD"
        )
    return MessageData(
        **common,
        seqnum=seqnum,
        xqh=payload[:XQH_WITH_MD_LENGTH],
        data=payload[XQH_WITH_MD_LENGTH:],
        byte_order=header.byte_order,
    )
