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

The usual MQPUT and MQGET go there at once from ``put`` and ``get`` (as
``bindings_calls.TemplatedCalls``'), without the packed calls' layers on the way, and are
made from what the call before left, as a bindings connection's
(``mqpy.bindings_templates``): the request's segment kept per object handle and sent again
when the MQMD's and MQPMO / MQGMO's fields are those it was packed from -- its RequestId
made the call's, an MQPUT's lengths (the TSHM's, ReplyLength, the message's) made its
message's -- and the reply read against the last one of its verb
(tests/performance_paths/test_client_templates.py and test_app_client_direct_calls.py hold
them to the general path).
"""

from __future__ import annotations

import struct
import time
from typing import Any

from mqpy import CMQC, bindings_templates
from mqpy.bindings_calls import PACKED_LIMIT, PackedCalls
from mqpy.bindings_templates import Templates
from mqpy.clientinstance import ChannelInstance, InstanceLost
from mqpy.engine import fastpath
from mqpy.errors import MQMIError
from mqpy.fap import mqicalls, mqiflows
from mqpy.fap.apiheader import API_HEADER_LENGTH, MQIReply, mqi_event
from mqpy.fap.mqicalls import MQIVerbs, failure, get_done, put_done
from mqpy.fap.onesegment import request_segment
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import TSHM_LENGTH, ByteOrder, ControlFlags1, SegmentType
from mqpy.structs.tables import GMO, MD, PMO

__all__ = ["PackedClientCalls"]

_T = SegmentType
_FAILED = CMQC.MQCC_FAILED
_REPLY_TYPES = {verb: int(mqiflows.reply_type(verb))
                for verb in (_T.MQPUT, _T.MQGET, _T.MQCMIT)}
_NO_LUW = bytes(8)
_PUT = _T.MQPUT
#: a kept request's fields a call patches (4 bytes each, big-endian but the last): an
#: MQPUT's TSHM length, RequestId, ReplyLength and message length; an MQGET's RequestId
_PUT_CUTS = (4, 12, TSHM_LENGTH, -4)
_GET_CUTS = (12,)
_HEADERS = TSHM_LENGTH + API_HEADER_LENGTH
_OK = CMQC.MQCC_OK
_GET = _T.MQGET
_RESPONSE_OPTIONS = CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNC_RESPONSE
_WHOLE_MESSAGE = mqiflows.WHOLE_MESSAGE
_LITTLE = ByteOrder.LITTLE
_monotonic = time.monotonic
_Decoded = mqiflows.Decoded
#: a named tuple made from its fields at once (as ``bindings_calls``)
_new_tuple = tuple.__new__


class PackedClientCalls(PackedCalls):
    """MQPUT, MQGET and MQCMIT of a client connection, packed (module docstring): the
    bindings connection's packed calls (``mqpy.bindings_calls``) over a channel instance.
    The connection gives ``_instance``, ``_conv``, ``_lock``, ``_collected``,
    ``_usable_instance``, ``_close_collected``, ``_check_length``, ``_lost`` and
    ``qmgr_name`` (``mqpy.client.ClientConnection``)."""

    _instance: ChannelInstance | None
    _conv: Any
    _collected: Any
    _templates: Templates
    _recon: Any  #: (``ClientConnection``'s: None unless it reconnects)

    def put(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        """PackedCalls.put; the usual synchronous MQPUT made at once (:meth:`_templated_call`)
        without the layers on the way, as ``bindings_calls.TemplatedCalls.put``."""
        if type(data) is bytes:
            self._check_length(data)  # type: ignore[attr-defined] - (as MQIVerbs.put)
            if type(md) is MD and type(pmo) is PMO \
                    and not pmo.__dict__["Options"] & _RESPONSE_OPTIONS \
                    and hobj not in self._async_default and self._packable():
                structures = (md, pmo)
                reply = self._templated_call(_PUT, hobj, md, pmo, data, len(data), structures)
                if reply is None:  # (not of the common form: as PackedCalls.put)
                    return MQIVerbs.put(self, hobj, md, pmo, data)
                values = reply.values
                if reply.comp == _OK and values is not None and values[0] is md \
                        and values[1] is pmo:
                    return 0  # (put_done's answer: the reply read into the caller's)
                return put_done(md, pmo, reply)
        return super().put(hobj, md, pmo, data)

    def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        """PackedCalls.get; the usual MQGET made at once, as :meth:`put`."""
        if type(md) is MD and type(gmo) is GMO and (max_length is None or max_length >= 0) \
                and self._packable():
            reply = self._templated_call(_GET, hobj, md, gmo, b"", _WHOLE_MESSAGE
                                         if max_length is None else max_length, ())
            if reply is None:  # (as PackedCalls.get)
                return MQIVerbs.get(self, hobj, md, gmo, max_length)
            values = reply.values
            if reply.comp == _OK and values[0] is md and values[1] is gmo:
                return values[3]  # (get_done's answer: the reply read into the caller's)
            return get_done(md, gmo, reply)
        return super().get(hobj, md, gmo, max_length)

    def _put_async_packed(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        """An asynchronous MQPUT takes the general path here: the replies to asynchronous
        puts are read by the channel instance's reader, not dropped by the caller."""
        return super(PackedCalls, self).put(hobj, md, pmo, data)

    def _packable(self) -> bool:
        """The usual call may be packed: fast paths on, nothing traced, a channel instance
        whose flows are little-endian TSHM segments, a connection that does not reconnect
        (a reconnectable one's calls take the general path, where
        ``ClientConnection._exchange`` follows them across a reconnection)."""
        instance = self._instance
        tracer = mqicalls.TRACER
        return instance is not None and instance.sharing > 0 and self._recon is None \
            and fastpath.ENABLED \
            and instance.writer.byte_order is _LITTLE \
            and (_monotonic() < tracer.untraced_until
                 or tracer.spec_for(self.qmgr_name) is None)

    def _packed_put(self, hobj: int, md: MD, pmo: PMO, data: bytes
                    ) -> mqiflows.Decoded | None:
        return self._templated_call(_PUT, hobj, md, pmo, data, len(data), (md, pmo))

    def _packed_get(self, hobj: int, md: MD, gmo: GMO, buffer_length: int
                    ) -> mqiflows.Decoded | None:
        return self._templated_call(_T.MQGET, hobj, md, gmo, b"", buffer_length, ())

    def _templated_call(self, verb: SegmentType, hobj: int, md: MD, opts: Any, data: bytes,
                        extra: int, into: tuple[Any, ...]) -> mqiflows.Decoded | None:
        """The usual MQPUT (``data``, ``extra`` its length) or MQGET (``extra`` its
        BufferLength) on ``hobj`` made from the request kept for it when ``md`` and
        ``opts`` have the fields it was packed from, else packed (and kept); its reply
        read against the last (module docstring), as :meth:`_packed_call` gives it. None,
        nothing sent, when it is not of the common form."""
        templates = self._templates
        kept = templates.kept(verb, hobj, md, opts)
        body = None
        if kept is None or (extra != kept.extra and (
                verb is not _PUT or len(kept.prefix) + extra > PACKED_LIMIT + _HEADERS)):
            body = mqiflows.common_request_body(verb, [md, opts, data if verb is _PUT else extra])
            if body is None or len(body) > PACKED_LIMIT:
                return None
        if self._collected:
            self._close_collected()  # type: ignore[attr-defined]
        with self._lock:
            instance = self._usable_instance()  # type: ignore[attr-defined]
            conv = self._conv
            request_id = next(conv.request_ids)
            writer = instance.writer
            if body is None:
                request = _from_kept(kept, request_id, data, writer.max_transmission_size)
                if request is None:
                    body = mqiflows.common_request_body(
                        verb, [md, opts, data if verb is _PUT else extra])
            if body is not None:
                request, whole = _request(instance, verb, hobj, body, conv.conv_id, request_id)
                if whole:
                    templates.keep_request(verb, hobj, md, opts, extra,
                                           request[:len(request) - len(data)],
                                           _PUT_CUTS if verb is _PUT else _GET_CUTS, _HEADERS)
            try:
                reply = instance.exchange(conv, request, _REPLY_TYPES[verb])
                decoded = None
                if type(reply) is tuple and reply[1] != _FAILED:
                    # (Templates.reply, its usual case written out)
                    kept_reply = templates.replies.get(verb)
                    values = None if kept_reply is None \
                        else bindings_templates.read_against(kept_reply, reply[4], (md, opts))
                    decoded = templates.reply(verb, *reply[1:], (md, opts)) if values is None \
                        else _new_tuple(_Decoded, (verb, reply[1], reply[2], reply[3], values))
                if decoded is None:
                    decoded = _decoded(verb, reply, (md, opts))
            except (OSError, ValueError, ProtocolError, InstanceLost):
                self._lost()  # type: ignore[attr-defined]
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
        if decoded.comp == _FAILED:
            raise failure(decoded, into)
        return decoded

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
            request, _ = _request(instance, verb, hobj, body or b"", conv.conv_id,
                                  next(conv.request_ids))
            decoded = self._answer(instance, conv, verb, request, targets)
        if decoded.comp == _FAILED:
            raise failure(decoded, into)
        return decoded

    def _answer(self, instance: ChannelInstance, conv: Any, verb: SegmentType,
                request: bytes, targets: tuple[Any, ...], templates: Templates | None = None
                ) -> mqiflows.Decoded:
        """``request`` sent on ``conv`` (lock held) and its reply decoded into ``targets``
        unless it failed (read against the last of ``templates``, when given); the
        connection lost (2009) when the socket is."""
        try:
            reply = instance.exchange(conv, request, _REPLY_TYPES[verb])
            decoded = templates.reply(verb, *reply[1:], targets) \
                if templates is not None and type(reply) is tuple and reply[1] != _FAILED \
                else None
            if decoded is None:
                decoded = _decoded(verb, reply, targets)
        except (OSError, ValueError, ProtocolError, InstanceLost):
            self._lost()  # type: ignore[attr-defined]
            raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
        return decoded


def _request(instance: ChannelInstance, verb: SegmentType, hobj: int, body: bytes,
             conv_id: int, request_id: int) -> tuple[bytes, bool]:
    """The request of ``verb`` with ``body``: one segment packed at once (True), or the
    general path's segments (False) when it does not fit one or a value is out of range
    (the event says which)."""
    try:
        request = request_segment(instance.writer, verb, hobj, body, conv_id, request_id)
        if request is not None:
            return request, True
    except (struct.error, OverflowError):
        pass
    return instance.frame(verb, body, hobj, conv_id, request_id), False


def _from_kept(kept: Any, request_id: int, data: bytes, max_size: int) -> bytes | None:
    """The request of ``kept`` (``Templates.kept``, cut at _PUT_CUTS or _GET_CUTS) whose
    RequestId is ``request_id`` and, an MQPUT's, whose message is ``data``; None when it
    does not fit one segment of ``max_size`` bytes (or the RequestId its field)."""
    parts = kept.parts
    try:
        rid = request_id.to_bytes(4, "big")
    except OverflowError:
        return None
    if len(parts) == 2:
        return b"".join((parts[0], rid, parts[1]))
    n = len(data)
    total = len(kept.prefix) + n
    if total > max_size:
        return None
    length = total.to_bytes(4, "big")
    return b"".join((parts[0], length, parts[1], rid, parts[2], length, parts[3],
                     n.to_bytes(4, "little"), data))


def _decoded(verb: SegmentType, reply: Any, targets: tuple[Any, ...]) -> mqiflows.Decoded:
    """The reply ``ChannelInstance.exchange`` gave (its fields, little-endian, or an event
    whose body is in its TSH's byte order) decoded as ``mqiflows.decode_reply`` decodes it,
    into ``targets`` unless it failed."""
    if type(reply) is tuple:
        segment_type, comp, reason, hobj, body = reply
        into = targets if comp != _FAILED else ()
        decoded = mqiflows.common_reply(verb, comp, reason, hobj, body, into)
        if decoded is not None:
            return decoded
        reply = mqi_event(MQIReply, ControlFlags1.NONE, _NO_LUW, None, None,
                          _T(segment_type), comp, reason, hobj, body, None)
    return mqiflows.decode_reply(reply, reply.byte_order,
                                 into=targets if reply.comp != _FAILED else ())
