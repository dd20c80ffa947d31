"""The one segment of a common MQI flow over a TSHM -- a client's request, the SVRCONN's
reply to an MQPUT or MQGET it serves at once -- packed in one go.

``apiheader._mqi_segment`` makes such a segment in four ``struct`` calls and a join of six
parts, reached through two or three calls (``SegmentWriter.reply``, ``build_mqi_reply`` /
``build_mqi_request``). Here the TSHM's head is one ``struct`` call and its tail with the
API header another (one format, ``_TAILS``, ReplyLength inside it), the body after them:
the same bytes with less on the way. :func:`reply_segment` serves
``mqpy_chinit.svrconn_inline``, :func:`request_segment` ``mqpy.clientcalls``; what they
do not take (no TSHM, a flow longer than a segment, a body of another form) goes the
general way. tests/performance_paths/test_client_one_segment.py holds them byte-equal to
it.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from mqpy.fap import mqiflows
from mqpy.fap.apiheader import API_HEADER_LENGTH, MQIReply, mqi_event
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.mqiparams import struct_order
from mqpy.fap.tsh import (
    FIRST_LAST,
    NO_LUW,
    STRUCTID_TSHM,
    TSHM_HEAD,
    TSHM_LENGTH,
    ByteOrder,
    ControlFlags1,
    SegmentType,
)

__all__ = ["reply_segment", "reply_segments", "request_segment"]

_HEADERS = TSHM_LENGTH + API_HEADER_LENGTH
_FIRST_LAST = int(FIRST_LAST)
_HEAD = TSHM_HEAD.pack
#: by byte order: its number, and the packer of the TSH's tail (Encoding, CCSID, reserved),
#: ReplyLength (big-endian, as bytes) and the API header's CompCode, Reason and Hobj
_TAILS = {order: (int(order), struct.Struct(struct_order(order) + "IH2s4siiI").pack)
          for order in ByteOrder}
_REPLY_TYPES = {verb: int(mqiflows.reply_type(verb))
                for verb in (SegmentType.MQPUT, SegmentType.MQGET)}
_NO_BODY = b""


def _segment(writer: SegmentWriter, segment_type: int, comp: int, reason: int, hobj: int,
             body: bytes, conv_id: int, request_id: int | None) -> bytes | None:
    """TSHM, API header, ``body``: one segment, FIRST and LAST, no LUW, ReplyLength its own
    length, in ``writer``'s byte order, encoding, CCSID and flags; None when it does not
    fit one segment. ``struct.error`` / OverflowError for a number out of its field."""
    total = _HEADERS + len(body)
    if total > writer.max_transmission_size:
        return None
    number, tail = _TAILS[writer.byte_order]
    return _HEAD(STRUCTID_TSHM, total, conv_id, request_id or 0, number, segment_type,
                 _FIRST_LAST, writer.flags2, NO_LUW) \
        + tail(writer.encoding, writer.ccsid, b"\0\0", total.to_bytes(4, "big"), comp, reason,
               hobj) + body


def reply_segment(writer: SegmentWriter, verb: SegmentType, comp: int, reason: int,
                  parts: Sequence[Any], conv_id: int | None,
                  request_id: int | None) -> bytes | None:
    """The segment ``writer.reply(reply type of verb, comp, reason, 0, (body,), conv_id,
    request_id)`` makes of ``body = mqiflows.common_reply_body(verb, parts,
    writer.byte_order)``; None where either would give None, or without a TSHM."""
    if conv_id is None:
        return None
    body = mqiflows.common_reply_body(verb, parts, writer.byte_order)
    if body is None:
        return None
    return _segment(writer, _REPLY_TYPES[verb], comp, reason, 0, body, conv_id, request_id)


def request_segment(writer: SegmentWriter, verb: SegmentType, hobj: int, body: bytes | None,
                    conv_id: int, request_id: int) -> bytes | None:
    """The segment ``apiheader.build_mqi_request(verb, hobj, (body,) or (), conv_id=,
    request_id=, encoding=, ccsid=, flags2=`` the little-endian ``writer``'s ``)`` makes;
    None when it does not fit one segment. ``struct.error`` / OverflowError as there."""
    return _segment(writer, verb, 0, 0, hobj, _NO_BODY if body is None else body, conv_id,
                    request_id)


def reply_segments(writer: SegmentWriter, reply_type: int, body: tuple[bytes, ...],
                   conv_id: int, request_id: int | None) -> list[bytes]:
    """The segments ``writer.segments`` makes of the reply of ``reply_type`` (MQCC_OK, no
    reason, no Hobj, no LUW) whose body is ``body`` joined, to conversation ``conv_id``'s
    request ``request_id``: one segment packed in one go when it fits one."""
    joined = b"".join(body)
    segment = _segment(writer, reply_type, 0, 0, 0, joined, conv_id, request_id)
    if segment is not None:
        return [segment]
    return writer.segments(mqi_event(MQIReply, ControlFlags1.NONE, NO_LUW, conv_id,
                                     request_id, SegmentType(reply_type), 0, 0, 0, joined,
                                     None))
