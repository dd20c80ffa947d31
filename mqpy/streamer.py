"""The queue manager's side of read ahead: a REQUEST_MSGS answered with the messages it asks
for, streamed to the application's side of the connection (``mqpy.readahead``); and the
MQOPEN reply that tells that side the opened object's defaults (``fap.fopa``), so that it
knows at once whether a handle reads ahead and whether a default put is asynchronous.

The application grants a window (REQUEST_MSGS' RqstBytes); the answer is the messages that
may go ahead (``engine.readahead.take``: non-persistent, outside syncpoint), one
ASYNC_MESSAGE segment each, then one NOTIFICATION that ends it and says why
(``fap.asyncflows.Notice``), all in one write. A request with MQGMO_WAIT waits as a waiting
MQGET does (``mqpy.waiting``: no thread held, ended by the application's going).
"""

from __future__ import annotations

import struct
from typing import Any

import attrs
import trio

from mqpy import CMQC, loopcalls, waiting
from mqpy.engine import opendefaults, readahead
from mqpy.errors import MQMIError
from mqpy.fap import asyncflows, fopa, mqiflows
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.asyncflows import Notice
from mqpy.fap.fopa import OpenDefaults
from mqpy.fap.tsh import TSH_LENGTH, ByteOrder, OtherSegment, SegmentType, mq_encoding
from mqpy.structs.tables import GMO, MD

__all__ = ["answer", "engine_open_reply", "is_request", "open_reply"]

#: Room in one segment for a message's MQMD and data after the TSHM and ASYNC_MESSAGE's
#: header (a longer message is got the usual way).
HEAD_ROOM = TSH_LENGTH + 8 + 55 + 3 + 48 + 364


def is_request(event: Any) -> bool:
    """Is ``event`` a REQUEST_MSGS flow (which a session serves as it serves an MQI call)?"""
    return type(event) is OtherSegment and event.segment_type == SegmentType.REQUEST_MSGS


#: the most bytes of messages one REQUEST_MSGS is served, whatever window it asks: a
#: peer's RqstBytes is not a licence to take a whole queue at once under the engine lock
#: (an mqpy client asks 256 KB, mqpy.readahead.WINDOW)
MAX_WINDOW = 1 << 20
#: ASYNC_MESSAGE's MsgIndex is an MQLONG counting from the request's RecvBytes: it wraps
_INDEX_MASK = 0x7FFFFFFF


def served_window(asked: int) -> int:
    """The window a REQUEST_MSGS asking ``asked`` bytes is served: at least one message,
    at most :data:`MAX_WINDOW`."""
    return min(max(1, asked), MAX_WINDOW)


async def answer(conn: Any, event: OtherSegment, limiter: trio.CapacityLimiter,
                 max_transmission: int, order: ByteOrder = ByteOrder.LITTLE,
                 gone: trio.Event | None = None, watch: Any = None,
                 conv_id: int | None = None) -> bytes:
    """The bytes that answer the REQUEST_MSGS ``event`` of the engine connection ``conn``,
    read and answered in ``order`` (a big-endian client's: its MQMDs packed so too)."""
    request = asyncflows.parse_request(event.body, order)
    hobj = request.hobj
    room = max_transmission - HEAD_ROOM
    max_message = room if request.max_msg_length < 0 else min(room, request.max_msg_length)

    async def attempt(waiter: waiting.Waiter | None) -> readahead.Batch | None:
        batch = await loopcalls.engine_call(conn, limiter, readahead.take, conn, hobj,
                                            request.options, served_window(request.window),
                                            max_message, waiter)
        if batch is not None and not batch.messages and not batch.stopped_at_other \
                and batch.reason == CMQC.MQRC_NO_MSG_AVAILABLE and waiter is not None:
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)
        return batch

    try:
        if request.options & CMQC.MQGMO_WAIT and request.wait_interval != 0:
            deadline = waiting.wait_deadline(GMO(WaitInterval=request.wait_interval))
            batch = await waiting.get_with_wait(
                attempt, lambda w: conn.drop_waiter(hobj, w), deadline, gone, watch)
        else:
            batch = await attempt(None)
    except MQMIError as e:
        code = Notice.CLIENT_ASYNC_EMPTY if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE \
            else Notice.CHECK_MSG  # the usual get says what is wrong
        return asyncflows.notification(hobj, code, e.reason, conv_id, order)
    if batch is None:
        return asyncflows.notification(hobj, Notice.STREAMING_FAILURE, CMQC.MQRC_NONE, conv_id,
                                       order)
    out = async_messages(hobj, request.received, batch.resolved_q_name, batch.messages,
                         conv_id, order)
    if batch.stopped_at_other:
        out.append(asyncflows.notification(hobj, Notice.CHECK_MSG, CMQC.MQRC_NONE, conv_id,
                                           order))
    else:
        out.append(asyncflows.notification(hobj, Notice.CLIENT_ASYNC_EMPTY, batch.reason,
                                           conv_id, order))
    return b"".join(out)


#: ASYNC_MESSAGE's header (asyncflows.ASYNC_MESSAGE_HEAD), little-endian
_ASYNC_HEAD = struct.Struct("<5iHH3i16sHB")
assert _ASYNC_HEAD.size == asyncflows.ASYNC_MESSAGE_HEAD.sizeof()
_NO_TOKEN = bytes(16)
_VERSION = 1  # ASYNC_MESSAGE's Version, as asyncflows writes it


def async_messages(hobj: int, first: int, resolved_q_name: bytes,
                   messages: list[tuple[bytes, bytes]], conv_id: int | None = None,
                   order: ByteOrder = ByteOrder.LITTLE) -> list[bytes]:
    """The ASYNC_MESSAGE segments of ``messages`` (MQMD bytes, little-endian, and data) of
    ``hobj``, indexed from ``first``: the segments ``asyncflows.async_message`` makes, their
    fixed parts (the segment header but its length, the resolved queue name) made once for
    them all; the index wraps within an MQLONG (a peer's RecvBytes may be any)."""
    if not messages:
        return []
    if order != ByteOrder.LITTLE:
        return [asyncflows.async_message(
            hobj, index & _INDEX_MASK, resolved_q_name, _md_in(md, order), data, conv_id,
            order) for index, (md, data) in enumerate(messages, first)]
    name = resolved_q_name.rstrip(b" \x00")[:48]
    tail = name + b" " * ((4 - (3 + len(name)) % 4) % 4)  # Status, its length, it: words
    header = asyncflows.readdressed(SegmentType.ASYNC_MESSAGE, b"", conv_id)
    fixed = len(header) + _ASYNC_HEAD.size + len(tail)
    struc, rest = header[:4], header[8:]
    pack, none, name_length = _ASYNC_HEAD.pack, CMQC.MQRC_NONE, len(name)
    out = []
    for index, (md, data) in enumerate(messages, first):
        index &= _INDEX_MASK
        length = fixed + len(md) + len(data)
        out.append(b"".join((struc, length.to_bytes(4, "big"), rest,
                             pack(_VERSION, hobj, index, index, length, 0, 0, none, len(data),
                                  len(data), _NO_TOKEN, 0, name_length), tail, md, data)))
    return out


def _md_in(md: bytes, order: ByteOrder) -> bytes:
    """The little-endian MQMD ``md`` packed in ``order``."""
    return MD.from_bytes(md, CMQC.MQENC_INTEGER_REVERSED).pack(mq_encoding(order))


def open_reply(od: Any, options: int, hobj: int, defaults: OpenDefaults | None,
               fap_level: int = fopa.FAP_LEVEL, order: ByteOrder = ByteOrder.LITTLE
               ) -> MQIReply:
    """The reply to an MQOPEN that opened ``hobj``: its MQOD, the open options, then (at
    ``fap_level`` 9 and later, ``defaults`` known) the FOPA, as IBM's queue manager sends it."""
    reply = mqiflows.encode_reply(SegmentType.MQOPEN, [od], hobj=hobj, byte_order=order)
    return attrs.evolve(reply, body=reply.body + fopa.tail(options, defaults, fap_level,
                                                           order))


def engine_open_reply(conn: Any, od: Any, options: int, hobj: int) -> MQIReply:
    """:func:`open_reply` for the engine connection ``conn`` (the bindings socket's)."""
    return open_reply(od, options, hobj, opendefaults.of_handle(conn, hobj))
