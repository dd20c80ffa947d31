"""The one segment of a common MQPUT or MQGET reply, packed in one go.

A SVRCONN answers the calls it serves at once (``mqpy_chinit.svrconn_inline``) with the
segment ``SegmentWriter.reply`` makes of ``mqiflows.common_reply_body``'s body: TSHM, API
header, then the body. :func:`reply_segment` gives the same bytes with less on the way: the
TSHM's head in one ``struct`` call, its tail with the API header in another (one format,
``_TAILS``, the ReplyLength inside it), the body after them, without the three calls
through the writer. A reply of a conversation without a TSHM (SHARECNV(0)), or one that
does not fit one segment, or a body not of the common form takes the writer's way (None).
tests/performance_paths/test_client_reply_segments.py holds the two alike.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from mqpy.fap import mqiflows
from mqpy.fap.apiheader import API_HEADER_LENGTH
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.mqiparams import struct_order
from mqpy.fap.tsh import (
    FIRST_LAST,
    NO_LUW,
    STRUCTID_TSHM,
    TSHM_HEAD,
    TSHM_LENGTH,
    ByteOrder,
    SegmentType,
)

__all__ = ["reply_segment"]

_HEADERS = TSHM_LENGTH + API_HEADER_LENGTH
_FIRST_LAST = int(FIRST_LAST)
_HEAD = TSHM_HEAD.pack
#: by byte order: its number, and the packer of the TSH's tail (Encoding, CCSID, reserved),
#: ReplyLength (big-endian, as bytes) and the API header's CompCode, Reason and Hobj
_TAILS = {order: (int(order), struct.Struct(struct_order(order) + "IH2s4siiI").pack)
          for order in ByteOrder}
_REPLY_TYPES = {verb: int(mqiflows.reply_type(verb))
                for verb in (SegmentType.MQPUT, SegmentType.MQGET)}


def reply_segment(writer: SegmentWriter, verb: SegmentType, comp: int, reason: int,
                  parts: Sequence[Any], conv_id: int | None,
                  request_id: int | None) -> bytes | None:
    """The segment ``writer.reply(reply type of verb, comp, reason, 0, (body,), conv_id,
    request_id)`` makes of ``body = mqiflows.common_reply_body(verb, parts,
    writer.byte_order)``; None where either would give None, or without a TSHM."""
    if conv_id is None:
        return None
    order = writer.byte_order
    body = mqiflows.common_reply_body(verb, parts, order)
    if body is None:
        return None
    total = _HEADERS + len(body)
    if total > writer.max_transmission_size:
        return None
    number, tail = _TAILS[order]
    return _HEAD(STRUCTID_TSHM, total, conv_id, request_id or 0, number, _REPLY_TYPES[verb],
                 _FIRST_LAST, writer.flags2, NO_LUW) \
        + tail(writer.encoding, writer.ccsid, b"\0\0", total.to_bytes(4, "big"),
                        comp, reason, 0) + body
