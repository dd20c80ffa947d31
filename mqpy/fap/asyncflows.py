"""The flows that stream messages to the application's side of a connection: REQUEST_MSGS
(0x0E), ASYNC_MESSAGE (0x0D) and NOTIFICATION (0x0F), laid out as Wireshark's packet-mq.c
reads them (no API header: the body follows the TSH).

- REQUEST_MSGS, application to queue manager: "send me up to ``RqstBytes`` of messages of
  handle ``Hobj``", with the MQGET options and wait interval they are got with (a credit the
  application grants; read ahead's window).
- ASYNC_MESSAGE, queue manager to application: one message of that handle, its MQMD and data
  after a short header (its index, lengths, the resolved queue name).
- NOTIFICATION, queue manager to application: the end of the answer to a REQUEST_MSGS, with
  why it ended (:class:`Notice`), or news of the connection (the queue manager quiescing).

Each layout is declared once in construct, with the ``struct`` the hot path uses derived from
it and held to the same size. Builders return whole segments; parsers take a segment's body.
Nothing here touches a socket or the queue manager.
"""

from __future__ import annotations

import enum
import struct

import attrs
import construct as cs

from mqpy import CMQC
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import (
    FIRST_LAST,
    OUR_ENCODING,
    S32,
    TSH_LENGTH,
    U16,
    ByteOrder,
    SegmentType,
    build_segment_header,
    mq_encoding,
)
from mqpy.structs.fields import StructError
from mqpy.structs.tables import MD

__all__ = [
    "ASYNC_MESSAGE_HEAD",
    "NOTIFICATION",
    "REQUEST_MSGS",
    "AsyncMessage",
    "MessageRequest",
    "Notice",
    "Notification",
    "async_message",
    "message_request",
    "notification",
    "parse_async_message",
    "parse_notification",
    "parse_request",
    "readdressed",
    "reordered",
]


class Notice(enum.IntEnum):
    """NOTIFICATION codes (packet-mq.c's MQ_NC_*), those mqpy sends."""

    GET_INHIBITED = 1
    QM_QUIESCING = 7
    #: the next message is not one to send ahead (persistent, too long ...): get it the usual way
    CHECK_MSG = 11
    #: read ahead is not in effect for the handle (Value: why, MQRC_NONE when not asked for)
    STREAMING_FAILURE = 14
    #: the answer to a REQUEST_MSGS is complete (Value: MQRC_NONE when its credit was used
    #: up, MQRC_NO_MSG_AVAILABLE when no more message is there now)
    CLIENT_ASYNC_EMPTY = 15


#: REQUEST_MSGS without selection (MQ_REQUEST_MSG_SIZE_V1_NO_SELECTION).
REQUEST_MSGS = cs.Struct(
    "Version" / S32,  # 0
    "Hobj" / S32,  # 4
    "RecvBytes" / S32,  # 8   bytes the application has taken since its last request
    "RqstBytes" / S32,  # 12  bytes it asks for: the window
    "MaxMsgLen" / S32,  # 16
    "GetMsgOptions" / S32,  # 20
    "WaitInterval" / S32,  # 24
    "QueueStatus" / S32,  # 28
    "RequestFlags" / S32,  # 32
    "GlobalMsgIndex" / S32,  # 36
)
#: ASYNC_MESSAGE's header on the first segment of a message, up to the resolved queue name.
ASYNC_MESSAGE_HEAD = cs.Struct(
    "Version" / S32,  # 0
    "Hobj" / S32,  # 4
    "MsgIndex" / S32,  # 8
    "GlobalMsgIndex" / S32,  # 12
    "SegmentLength" / S32,  # 16
    "SegmentIndex" / U16,  # 20
    "SelectionIndex" / U16,  # 22
    "ReasonCode" / S32,  # 24
    "TotalMsgLength" / S32,  # 28
    "ActualMsgLength" / S32,  # 32
    "MsgToken" / cs.Bytes(16),  # 36
    "Status" / U16,  # 52
    "ResolvedQNameLength" / cs.Int8ub,  # 54, then the name and padding to 4 bytes
)
NOTIFICATION = cs.Struct(
    "Version" / S32,  # 0
    "Hobj" / S32,  # 4
    "Code" / S32,  # 8
    "Value" / S32,  # 12
)

_REQUEST = {ByteOrder.LITTLE: struct.Struct("<10i"), ByteOrder.BIG: struct.Struct(">10i")}
_ASYNC = {ByteOrder.LITTLE: struct.Struct("<5iHH3i16sHB"),
          ByteOrder.BIG: struct.Struct(">5iHH3i16sHB")}
_NOTIFY = {ByteOrder.LITTLE: struct.Struct("<4i"), ByteOrder.BIG: struct.Struct(">4i")}
assert _REQUEST[ByteOrder.LITTLE].size == REQUEST_MSGS.sizeof()
assert _ASYNC[ByteOrder.LITTLE].size == ASYNC_MESSAGE_HEAD.sizeof() == 55
assert _NOTIFY[ByteOrder.LITTLE].size == NOTIFICATION.sizeof()

_VERSION = 1
_NO_TOKEN = bytes(16)
_LE = ByteOrder.LITTLE
#: the TSH's Encoding of a flow in each byte order (integers, decimals and floats alike)
_ENCODINGS = {_LE: OUR_ENCODING, ByteOrder.BIG: CMQC.MQENC_INTEGER_NORMAL
              | CMQC.MQENC_DECIMAL_NORMAL | CMQC.MQENC_FLOAT_IEEE_NORMAL}


@attrs.frozen
class MessageRequest:
    """A REQUEST_MSGS: up to ``window`` bytes of messages of ``hobj``, got with ``options``."""

    hobj: int
    window: int
    options: int
    wait_interval: int
    received: int = 0
    max_msg_length: int = -1


@attrs.frozen
class AsyncMessage:
    """An ASYNC_MESSAGE: one message of ``hobj``; ``md`` its MQMD's bytes, ``data`` its data."""

    hobj: int
    index: int
    resolved_q_name: str
    md: bytes
    data: bytes
    reason: int = CMQC.MQRC_NONE


@attrs.frozen
class Notification:
    """A NOTIFICATION about ``hobj`` (0: the connection)."""

    hobj: int
    code: int
    value: int


def _segment(segment_type: SegmentType, body: bytes, conv_id: int | None,
             order: ByteOrder = _LE) -> bytes:
    length = (TSH_LENGTH if conv_id is None else TSH_LENGTH + 8) + len(body)
    return build_segment_header(segment_type, length, flags1=FIRST_LAST, conv_id=conv_id,
                                request_id=None if conv_id is None else 0, byte_order=order,
                                encoding=_ENCODINGS[order]) + body


def readdressed(segment_type: SegmentType, body: bytes, conv_id: int | None,
                order: ByteOrder = _LE) -> bytes:
    """A stream flow's ``body`` (ASYNC_MESSAGE, NOTIFICATION) in ``order`` as a whole
    segment of another conversation: the relay passes the queue manager's flows on to its
    client."""
    return _segment(segment_type, body, conv_id, order)


def message_request(request: MessageRequest, conv_id: int | None = None,
                    order: ByteOrder = _LE) -> bytes:
    """A REQUEST_MSGS segment, in ``order``."""
    body = _REQUEST[order].pack(_VERSION, request.hobj, request.received, request.window,
                                request.max_msg_length, request.options,
                                request.wait_interval, 0, 0, 0)
    return _segment(SegmentType.REQUEST_MSGS, body, conv_id, order)


def _padding(name_length: int) -> int:
    """Blanks after the resolved queue name: Status, its length and it fill whole words."""
    return (4 - (3 + name_length) % 4) % 4


def _name_field(name: bytes) -> bytes:
    return name + b" " * _padding(len(name))


def async_message(hobj: int, index: int, resolved_q_name: bytes, md: bytes, data: bytes,
                  conv_id: int | None = None, order: ByteOrder = _LE) -> bytes:
    """An ASYNC_MESSAGE segment carrying a whole message, in ``order`` (``md`` packed so)."""
    name = resolved_q_name.rstrip(b" \x00")[:48]
    tail = _name_field(name)
    body_length = _ASYNC[order].size + len(tail) + len(md) + len(data)
    seg_length = (TSH_LENGTH if conv_id is None else TSH_LENGTH + 8) + body_length
    head = _ASYNC[order].pack(_VERSION, hobj, index, index, seg_length, 0, 0, CMQC.MQRC_NONE,
                              len(data), len(data), _NO_TOKEN, 0, len(name))
    return _segment(SegmentType.ASYNC_MESSAGE, b"".join((head, tail, md, data)), conv_id,
                    order)


def notification(hobj: int, code: Notice, value: int = 0, conv_id: int | None = None,
                 order: ByteOrder = _LE) -> bytes:
    """A NOTIFICATION segment, in ``order``."""
    return _segment(SegmentType.NOTIFICATION,
                    _NOTIFY[order].pack(_VERSION, hobj, int(code), value), conv_id, order)


_LAYOUTS = {SegmentType.REQUEST_MSGS: _REQUEST, SegmentType.ASYNC_MESSAGE: _ASYNC,
            SegmentType.NOTIFICATION: _NOTIFY}


def reordered(segment_type: SegmentType, body: bytes, source: ByteOrder, target: ByteOrder
              ) -> bytes:
    """The body of a REQUEST_MSGS, ASYNC_MESSAGE or NOTIFICATION whose integers are in
    ``source`` byte order with them in ``target``'s, an ASYNC_MESSAGE's MQMD too (its
    fields, lengths and data unchanged): what one side of a connection, which speaks one
    byte order, makes of the other's. ProtocolError when the body is not one."""
    if source == target:
        return body
    layout = _LAYOUTS[SegmentType(segment_type)]
    if len(body) < layout[source].size:
        raise _invalid(f"{SegmentType(segment_type).name}: shorter than its fixed part")
    head = layout[target].pack(*layout[source].unpack_from(body))
    if segment_type != SegmentType.ASYNC_MESSAGE:
        return head + body[len(head):]
    at = md_offset(body, source)
    try:
        md = MD.from_bytes(body[at:], mq_encoding(source))
    except StructError:
        raise _invalid("ASYNC_MESSAGE: no MQMD where its header says") from None
    end = at + md.packed_size()
    return b"".join((head, body[len(head):at], md.pack(mq_encoding(target)), body[end:]))


def _invalid(what: str) -> ProtocolError:
    return ProtocolError(StatusCode.PROTOCOL_INVALID_DATA, what)


def parse_request(body: bytes, order: ByteOrder = _LE) -> MessageRequest:
    """A REQUEST_MSGS body (ProtocolError when it is too short)."""
    layout = _REQUEST[order]
    if len(body) < layout.size:
        raise _invalid("REQUEST_MSGS: shorter than its fixed part")
    (_v, hobj, received, window, max_len, options, wait, _status, _flags,
     _index) = layout.unpack_from(body)
    return MessageRequest(hobj, window, options, wait, received, max_len)


def parse_async_message(body: bytes, md_length: int, order: ByteOrder = _LE) -> AsyncMessage:
    """An ASYNC_MESSAGE body whose MQMD is ``md_length`` bytes (read from its StrucId and
    Version by the caller, ``mqiflows.size_at``); ProtocolError when it is inconsistent."""
    layout = _ASYNC[order]
    if len(body) < layout.size:
        raise _invalid("ASYNC_MESSAGE: shorter than its header")
    (_v, hobj, index, _glb, _seg, _segi, _sel, reason, _total, actual, _token, _status,
     name_length) = layout.unpack_from(body)
    at = layout.size
    name = body[at:at + name_length]
    at += name_length + _padding(name_length)
    md = body[at:at + md_length]
    data = body[at + md_length:]
    if len(md) != md_length or len(data) != actual:
        raise _invalid("ASYNC_MESSAGE: lengths do not match its message")
    return AsyncMessage(hobj, index, name.decode("latin-1"), bytes(md), bytes(data), reason)


def md_offset(body: bytes, order: ByteOrder = _LE) -> int:
    """Where the MQMD starts in an ASYNC_MESSAGE body."""
    size = _ASYNC[order].size
    if len(body) < size:
        raise _invalid("ASYNC_MESSAGE: shorter than its header")
    name_length = body[size - 1]
    return size + name_length + _padding(name_length)


def parse_notification(body: bytes, order: ByteOrder = _LE) -> Notification:
    """A NOTIFICATION body."""
    layout = _NOTIFY[order]
    if len(body) < layout.size:
        raise _invalid("NOTIFICATION: shorter than 16 bytes")
    _v, hobj, code, value = layout.unpack_from(body)
    return Notification(hobj, code, value)
