"""A whole flow's body and its event, for every segment type: ``encode_body`` / ``decode_body``.

A flow is what one or more segments carry between a FIRST and a LAST; ``mqpy.fap.framing``
splits and reassembles it, this module turns its body into the event of its segment type
(``tsh``, ``initialdata``, ``messagedata``, ``controlflows``, ``apiheader`` own each) and back.
"""

from __future__ import annotations

import struct
from typing import Any

from mqpy.fap.apiheader import API_HEADER_LENGTH, API_TAIL, MQIReply, MQIRequest
from mqpy.fap.controlflows import (
    PING,
    RESET_FAST,
    STATUS_FAST,
    Heartbeat,
    Ping,
    Reset,
    Resync,
    Status,
    decode_ping,
    decode_reset,
    decode_status,
)
from mqpy.fap.initialdata import InitialData, decode_initial_data, encode_initial_data
from mqpy.fap.messagedata import MSH_STRUCT, STRUCTID_MSH, MessageData, decode_message_data
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import (
    BYTE_ORDERS,
    SEGMENT_TYPES,
    ByteOrder,
    Event,
    OtherSegment,
    SegmentHeader,
    SegmentType,
)

__all__ = ["decode_body", "encode_body"]


def encode_body(event: Event, byte_order: ByteOrder) -> tuple[bytes, bytes]:
    """Return ``(prefix, payload)`` for ``event``.

    ``prefix`` goes once, in the first segment only (API header, MSH); ``payload`` is what a
    long flow spreads over several segments. Short segment types have everything in payload.
    """
    little = byte_order == ByteOrder.LITTLE
    if isinstance(event, InitialData):
        return b"", encode_initial_data(event, little)
    if isinstance(event, MessageData):
        # The TSH's byte order governs the MQXQH's integers too (packet-mq.c reads them so).
        event = event.in_byte_order(byte_order)
        payload = event.xqh + event.data
        try:
            msh = MSH_STRUCT[BYTE_ORDERS[byte_order]].pack(
                STRUCTID_MSH, event.seqnum, len(payload), 0, len(payload))
        except struct.error as exc:
            raise ValueError(f"MSH: {exc}") from None
        return msh, payload
    if isinstance(event, Status):
        if event.value is None:
            return b"", STATUS_FAST.build(dict(Length=8, Code=int(event.code), Value=None),
                                          little=little)
        return b"", STATUS_FAST.build(
            dict(Length=12, Code=int(event.code), Value=event.value), little=little
        )
    if isinstance(event, (Reset, Resync)):
        return b"", RESET_FAST.build(dict(Length=8, SeqNum=event.seqnum), little=little)
    if isinstance(event, Ping):
        return b"", PING.build(dict(Length=4 + len(event.data), Buffer=event.data), little=little)
    if isinstance(event, Heartbeat):
        return b"", event.data
    if isinstance(event, (MQIRequest, MQIReply)):
        # ReplyLength is filled in by the writer, which knows the flow's total length.
        api = (event.reply_length or 0).to_bytes(4, "big") + API_TAIL[
            ByteOrder.LITTLE if little else ByteOrder.BIG].pack(event.comp, event.reason,
                                                                event.hobj)
        return api, event.body
    if isinstance(event, OtherSegment):
        return b"", event.body
    raise TypeError(f"not a wire event: {event!r}")


def decode_body(header: SegmentHeader, body: bytes) -> Event:
    """Decode a *complete* flow: ``body`` is everything after the TSH, reassembled.

    Raises ``ProtocolError`` (never anything else) for a truncated or inconsistent structure.
    """
    segment_type = SEGMENT_TYPES.get(header.segment_type)
    if segment_type is None:
        raise ProtocolError(
            StatusCode.PROTOCOL_SEGMENT_TYPE, f"unknown segment type 0x{header.segment_type:02X}"
        )
    little = header.byte_order == ByteOrder.LITTLE
    common: dict[str, Any] = dict(
        flags=header.flags1,
        luwid=header.luwid,
        conv_id=header.conv_id,
        request_id=header.request_id,
    )

    if segment_type == SegmentType.INITIAL_DATA:
        return decode_initial_data(body, little, common)
    if segment_type == SegmentType.MESSAGE_DATA:
        return decode_message_data(header, body, common)
    if segment_type == SegmentType.STATUS_DATA:
        return decode_status(body, little, common)
    if segment_type in (SegmentType.RESET_DATA, SegmentType.RESYNC_DATA):
        return decode_reset(segment_type, body, little, common)
    if segment_type == SegmentType.PING_DATA:
        return decode_ping(body, little, common)
    if segment_type == SegmentType.HEARTBEAT:
        return Heartbeat(**common, data=bytes(body))

    if segment_type.has_api_header:
        if len(body) < API_HEADER_LENGTH:
            raise ProtocolError(
                StatusCode.PROTOCOL_LENGTH_ERROR, f"{segment_type.name} without its API header"
            )
        comp, reason, hobj = API_TAIL[header.byte_order].unpack_from(body, 4)
        cls = MQIRequest if segment_type < 0x90 else MQIReply
        return cls(
            **common,
            segment_type=segment_type,
            comp=comp,
            reason=reason,
            hobj=hobj,
            body=bytes(body[API_HEADER_LENGTH:]),
            reply_length=int.from_bytes(body[:4], "big"),
            byte_order=header.byte_order,
        )

    return OtherSegment(**common, segment_type=segment_type, body=bytes(body),
                        byte_order=header.byte_order)
