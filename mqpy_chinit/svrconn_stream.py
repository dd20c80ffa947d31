"""Read ahead on a SVRCONN conversation: a client's REQUEST_MSGS answered with its messages
streamed (``mqpy.streamer``) when the conversation's MQI is the queue manager's engine in this
process (MQIBindType=FASTPATH); a conversation relayed to the queue manager's socket answers
that read ahead is not in effect (a NOTIFICATION), and the client gets with plain MQGETs.

A REQUEST_MSGS goes through the conversation's task like a call (``SvrconnInstance._route``),
so that it is answered in order with the conversation's calls.
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC, loopcalls, streamer
from mqpy.engine import opendefaults
from mqpy.fap import asyncflows
from mqpy.fap.asyncflows import Notice
from mqpy.fap.fopa import OpenDefaults
from mqpy.fap.tsh import ByteOrder, OtherSegment

__all__ = ["answer", "open_defaults", "route"]


def _hobj(event: OtherSegment) -> int:
    return int.from_bytes(event.body[4:8], "little") if len(event.body) >= 8 else 0


async def route(instance: Any, event: OtherSegment) -> None:
    """The REQUEST_MSGS ``event`` to its conversation's task; a conversation that is not
    connected is told at once that read ahead is not in effect (MQRC_HCONN_ERROR)."""
    key = event.conv_id if instance.sharing else None
    cc = instance.conversations.get(key)
    if cc is None or cc.backend is None:
        await instance._send_segment(asyncflows.notification(
            _hobj(event), Notice.STREAMING_FAILURE, CMQC.MQRC_HCONN_ERROR, event.conv_id))
        return
    await instance._route(event)


async def answer(instance: Any, cc: Any, event: OtherSegment) -> None:
    """Answer the REQUEST_MSGS ``event`` of conversation ``cc`` (its task calls this)."""
    backend = cc.backend
    if isinstance(backend, loopcalls.EngineVerbs):  # the engine in this process: stream
        conv = instance.conv
        data = await streamer.answer(
            backend.conn, event, instance.registry.limiter, conv.reader.max_transmission_size,
            conv.reader.partner_byte_order or ByteOrder.LITTLE, conv_id=event.conv_id)
    else:  # relayed to the queue manager's socket: plain gets
        data = asyncflows.notification(_hobj(event), Notice.STREAMING_FAILURE, CMQC.MQRC_NONE,
                                       event.conv_id)
    await instance._send_segment(data)


def open_defaults(backend: Any, hobj: int) -> OpenDefaults | None:
    """The defaults of the object a conversation's MQI ``backend`` opened as ``hobj``, for
    its MQOPEN reply's FOPA: the engine's object here (FASTPATH), else what the queue
    manager's own MQOPEN reply carried (relayed)."""
    if isinstance(backend, loopcalls.EngineVerbs):
        return opendefaults.of_handle(backend.conn, hobj)
    return getattr(backend, "opened_defaults", {}).get(hobj)
