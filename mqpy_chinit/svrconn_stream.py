"""Read ahead on a SVRCONN conversation: a client's REQUEST_MSGS answered with its messages
streamed (``mqpy.streamer``) by the queue manager's engine in this process
(MQIBindType=FASTPATH), or passed to the queue manager's socket and its answer passed back to
the client (relayed, MQIBindType=STANDARD: the daemon streams to the channel initiator as to
any bindings application). A big-endian client is answered big-endian (``svrconn_order``):
the relayed answer converted, its MQMDs too.

A REQUEST_MSGS goes through the conversation's task like a call (``SvrconnInstance._route``),
so that it is answered in order with the conversation's calls.
"""

from __future__ import annotations

from typing import Any

import attrs

from mqpy import CMQC, loopcalls, streamer
from mqpy.engine import opendefaults
from mqpy.errors import MQMIError
from mqpy.fap import asyncflows
from mqpy.fap.asyncflows import Notice
from mqpy.fap.fopa import OpenDefaults
from mqpy.fap.tsh import ByteOrder, OtherSegment
from mqpy_chinit.qmconn import QMConnection

__all__ = ["answer", "in_order", "open_defaults", "route"]


def _hobj(event: OtherSegment, order: ByteOrder = ByteOrder.LITTLE) -> int:
    """The Hobj of a REQUEST_MSGS body of ``order`` (0 when too short to hold one)."""
    side = "little" if order == ByteOrder.LITTLE else "big"
    return int.from_bytes(event.body[4:8], side) if len(event.body) >= 8 else 0


def _refusal(instance: Any, event: OtherSegment, reason: int) -> bytes:
    """The NOTIFICATION telling the client that read ahead is not in effect for the handle
    of its REQUEST_MSGS ``event`` (``reason``: why), in the byte order we write."""
    read, written = _orders(instance, event)
    return asyncflows.notification(_hobj(event, read), Notice.STREAMING_FAILURE, reason,
                                   event.conv_id, written)


def _orders(instance: Any, event: OtherSegment) -> tuple[ByteOrder, ByteOrder]:
    """The byte order of the client's ``event`` (its own TSH's), and of what we write to
    it."""
    return event.byte_order, instance.conv.writer.byte_order


async def route(instance: Any, event: OtherSegment) -> None:
    """The REQUEST_MSGS ``event`` to its conversation's task; a conversation that is not
    connected is told at once that read ahead is not in effect (MQRC_HCONN_ERROR).
    ProtocolError, before anything is routed, for a body shorter than REQUEST_MSGS' fixed
    part: the instance refuses it as any malformed flow (AMQ9504E, STATUS)."""
    asyncflows.parse_request(event.body, event.byte_order)
    key = event.conv_id if instance.sharing else None
    cc = instance.conversations.get(key)
    if cc is None or cc.backend is None:
        await instance._send_segment(_refusal(instance, event, CMQC.MQRC_HCONN_ERROR))
        return
    await instance._route(event)


async def answer(instance: Any, cc: Any, event: OtherSegment) -> None:
    """Answer the REQUEST_MSGS ``event`` of conversation ``cc`` (its task calls this). A
    fault behind it fails that request only, as a fault behind an MQI call fails the call
    (2195): logged AMQ9999E, the client told that read ahead is not in effect
    (MQRC_UNEXPECTED_ERROR), and its usual get says what is wrong. A conversation whose
    MQDISC came before the request is not connected: MQRC_HCONN_ERROR, as :func:`route`."""
    if cc.backend is None:
        await instance._send_segment(_refusal(instance, event, CMQC.MQRC_HCONN_ERROR))
        return
    try:
        data = await _answered(instance, cc.backend, event)
    except Exception as exc:  # noqa: BLE001 - a fault behind read ahead: that request fails
        instance.log("AMQ9999E", f"Channel '{instance.name}': unexpected error in "
                     f"REQUEST_MSGS: {exc!r}.")
        data = _refusal(instance, event, CMQC.MQRC_UNEXPECTED_ERROR)
    await instance._send_segment(data)


async def _answered(instance: Any, backend: Any, event: OtherSegment) -> bytes:
    """The bytes that answer the REQUEST_MSGS ``event`` of the MQI ``backend``."""
    conv = instance.conv
    order, written = _orders(instance, event)
    if order != written:  # (a client that changed its byte order)
        return _refusal(instance, event, CMQC.MQRC_NONE)  # plain gets
    if isinstance(backend, loopcalls.EngineVerbs):  # the engine in this process: stream
        return await streamer.answer(
            backend.conn, event, instance.registry.limiter, conv.reader.max_transmission_size,
            order, watch=backend.watch, conv_id=event.conv_id)
    if isinstance(backend, QMConnection):
        return await _relayed(backend, event, conv.reader.max_transmission_size, order)
    return _refusal(instance, event, CMQC.MQRC_NONE)  # plain gets


async def _relayed(backend: QMConnection, event: OtherSegment, max_transmission: int,
                   order: ByteOrder = ByteOrder.LITTLE) -> bytes:
    """A client's REQUEST_MSGS passed to the queue manager's socket, which answers it as
    for a bindings application (``streamer.answer``: ASYNC_MESSAGEs then the NOTIFICATION
    that ends them), and that answer readdressed to the client's conversation. The
    messages are capped at what one of the client's segments holds (a longer one is the
    usual get's, CHECK_MSG). The connection's own rule holds: cut off half-way, it is
    dropped, and the client's next call fails MQRC_CONNECTION_BROKEN. A big-endian client's
    request is passed on little-endian, as the socket speaks, and the answer converted to
    its byte order (``in_order``)."""
    request = asyncflows.parse_request(event.body, order)
    room = max_transmission - streamer.HEAD_ROOM
    cap = room if request.max_msg_length < 0 else min(room, request.max_msg_length)
    forwarded = asyncflows.message_request(attrs.evolve(request, max_msg_length=cap))
    try:
        segments = await backend.request_msgs(forwarded)
    except MQMIError as e:  # MQRC_CONNECTION_BROKEN: the client's next call says so
        return asyncflows.notification(request.hobj, Notice.STREAMING_FAILURE, e.reason,
                                       event.conv_id, order)
    if order != ByteOrder.LITTLE:
        return b"".join(in_order(s, event.conv_id, order) for s in segments)
    return b"".join(asyncflows.readdressed(s.segment_type, s.body, event.conv_id)
                    for s in segments)


def in_order(segment: OtherSegment, conv_id: int | None, order: ByteOrder) -> bytes:
    """A little-endian ASYNC_MESSAGE or NOTIFICATION of the queue manager's socket as a
    segment of conversation ``conv_id`` in ``order``, its MQMD converted too."""
    return asyncflows.readdressed(segment.segment_type, asyncflows.reordered(
        segment.segment_type, segment.body, ByteOrder.LITTLE, order), conv_id, order)


def open_defaults(backend: Any, hobj: int) -> OpenDefaults | None:
    """The defaults of the object a conversation's MQI ``backend`` opened as ``hobj``, for
    its MQOPEN reply's FOPA: the engine's object here (FASTPATH), else what the queue
    manager's own MQOPEN reply carried (relayed)."""
    if isinstance(backend, loopcalls.EngineVerbs):
        return opendefaults.of_handle(backend.conn, hobj)
    return getattr(backend, "opened_defaults", {}).get(hobj)
