"""The calls every message makes over a client connection -- MQPUT, MQGET, MQCMIT -- framed
and read in one go on the application's side.

``mqpy.fap.mqicalls.MQIVerbs`` makes every call the same general way: the trace asked,
the request's body and segment made by ``ChannelInstance.frame``, the reply read as an event
and decoded by ``mqiflows.decode_reply``. :class:`PackedClientCalls` gives a client
connection's usual MQPUT, MQGET and MQCMIT the same bytes with less on the way, as
``mqpy.bindings_calls`` does a bindings connection's: the request's segment packed at once
(the body by ``mqpy.fap.fusedbodies``, the TSHM and API header by
``mqpy.fap.onesegment.request_segment``), the reply taken from the one read that brings
it when it is exactly one whole segment (``ChannelInstance.exchange``) and decoded straight
into the caller's MQMD and MQPMO / MQGMO (``PackedCalls``' put, get and commit, over this
transport). Anything else -- a call traced by strmqtrc, an asynchronous put, structures of
another class, a big-endian channel, a channel without conversations (SHARECNV(0)), replies
of asynchronous puts or read ahead's flows in the way -- takes the general path, whose
bytes and answers these are (tests/client/test_packed_calls.py holds the two alike).
"""

from __future__ import annotations

import struct
from typing import Any

from mqpy import CMQC
from mqpy.bindings_calls import PackedCalls
from mqpy.clientinstance import ChannelInstance, InstanceLost
from mqpy.engine import fastpath
from mqpy.errors import MQMIError
from mqpy.fap import mqicalls, mqiflows
from mqpy.fap.apiheader import MQIReply, mqi_event
from mqpy.fap.mqicalls import failure
from mqpy.fap.onesegment import request_segment
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import ByteOrder, ControlFlags1, SegmentType

__all__ = ["PackedClientCalls"]

_T = SegmentType
_FAILED = CMQC.MQCC_FAILED
_REPLY_TYPES = {verb: int(mqiflows.reply_type(verb))
                for verb in (_T.MQPUT, _T.MQGET, _T.MQCMIT)}
_NO_LUW = bytes(8)


class PackedClientCalls(PackedCalls):
    """MQPUT, MQGET and MQCMIT of a client connection, packed (module docstring): the
    bindings connection's packed calls (``mqpy.bindings_calls``) over a channel instance.
    The connection gives ``_instance``, ``_conv``, ``_lock``, ``_collected``,
    ``_usable_instance``, ``_close_collected``, ``_check_length``, ``_lost`` and
    ``qmgr_name`` (``mqpy.client.ClientConnection``)."""

    _instance: ChannelInstance | None
    _conv: Any
    _collected: Any

    def put(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        if type(data) is bytes:
            self._check_length(data)  # type: ignore[attr-defined] - (as MQIVerbs.put)
        return super().put(hobj, md, pmo, data)

    def _put_async_packed(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        """An asynchronous MQPUT takes the general path here: the replies to asynchronous
        puts are read by the channel instance's reader, not dropped by the caller."""
        return super(PackedCalls, self).put(hobj, md, pmo, data)

    def _packable(self) -> bool:
        """The usual call may be packed: fast paths on, nothing traced, a channel instance
        whose flows are little-endian TSHM segments."""
        instance = self._instance
        return instance is not None and instance.tshm and fastpath.ENABLED \
            and instance.writer.byte_order is ByteOrder.LITTLE \
            and mqicalls.TRACER.spec_for(self.qmgr_name) is None

    def _packed_call(self, verb: SegmentType, hobj: int, body: bytes | None,
                     into: tuple[Any, ...], targets: tuple[Any, ...]) -> mqiflows.Decoded:
        """Send the request of ``verb`` with ``body`` (None: empty) as one segment (as the
        general path's segments when it does not fit one) and return its decoded reply as
        ``ClientConnection._exchange`` does: MQMIError on MQCC_FAILED (a failed reply's
        structures, if any, copied ``into`` the caller's), a reply that did not fail decoded
        into ``targets``."""
        if self._collected:
            self._close_collected()  # type: ignore[attr-defined]
        with self._lock:
            instance = self._usable_instance()  # type: ignore[attr-defined]
            conv = self._conv
            writer = instance.writer
            request_id = next(conv.request_ids)
            try:
                request = request_segment(writer, verb, hobj, body, conv.conv_id, request_id)
                if request is None:
                    raise OverflowError  # segments of the general path's
            except (struct.error, OverflowError):  # (a value out of range: the event says)
                request = instance.frame(verb, body or b"", hobj, conv.conv_id, request_id)
            try:
                reply = instance.exchange(conv, request, _REPLY_TYPES[verb])
                decoded = _decoded(verb, reply, targets,
                                   instance.reader.partner_byte_order or ByteOrder.LITTLE)
            except (OSError, ValueError, ProtocolError, InstanceLost):
                self._lost()  # type: ignore[attr-defined]
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
        if decoded.comp == _FAILED:
            raise failure(decoded, into)
        return decoded


def _decoded(verb: SegmentType, reply: Any, targets: tuple[Any, ...],
             byte_order: ByteOrder = ByteOrder.LITTLE) -> mqiflows.Decoded:
    """The reply ``ChannelInstance.exchange`` gave (its fields, little-endian, or an event
    whose body is in ``byte_order``) decoded as ``mqiflows.decode_reply`` decodes it, into
    ``targets`` unless it failed."""
    if type(reply) is tuple:
        segment_type, comp, reason, hobj, body = reply
        into = targets if comp != _FAILED else ()
        decoded = mqiflows.common_reply(verb, comp, reason, hobj, body, into)
        if decoded is not None:
            return decoded
        reply = mqi_event(MQIReply, ControlFlags1.NONE, _NO_LUW, None, None,
                          _T(segment_type), comp, reason, hobj, body, None)
        byte_order = ByteOrder.LITTLE
    return mqiflows.decode_reply(reply, byte_order,
                                 into=targets if reply.comp != _FAILED else ())
