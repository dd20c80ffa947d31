"""The calls every message makes over a bindings socket -- MQPUT, MQGET, MQCMIT -- framed
and read in one go on the application's side.

``mqpy.fap.mqicalls.MQIVerbs`` makes every call the same general way: an exchange, a request
event, a ``SegmentWriter``, then a ``SegmentReader`` fed the reply's bytes and a reply event
decoded. :class:`PackedCalls` gives a bindings connection's usual MQPUT, MQGET and MQCMIT the
same bytes with less on the way: the request's segment packed at once (the body by
``mqpy.fap.fusedbodies``, the TSH and API header by ``apiheader.build_mqi_request``), sent
whole, and the reply read from the one ``recv`` that brings it when it is exactly one whole
segment (``apiheader.one_mqi_flow``) and decoded straight into the caller's MQMD and
MQPMO / MQGMO. An asynchronous put of the common form is packed the same way and sent
without waiting (``mqpy.asyncput``), the replies that have come to such puts read and
dropped every DRAIN_EVERY puts rather than after each (they are short: the queue manager
puts no structures in them). Anything else -- a call traced by strmqtrc, structures of
another class, replies to asynchronous puts or read ahead's flows in the way, a reply that
comes in pieces -- takes the general path, whose bytes and answers these are
(tests/performance_paths/test_packed_calls.py holds the two alike). :class:`TemplatedCalls`,
a bindings connection's, packs the usual MQPUT and MQGET of a handle once for all the calls
with the same structures' fields and reads their replies against the last
(``mqpy.bindings_templates``), and waits for them spinning first (``mqpy.spinwait``: one
:class:`~mqpy.spinwait.SpinWait` per verb, a commit's log force being much longer than a put's
answer; not for an MQGET that may wait).
"""

from __future__ import annotations

import socket
import time
from typing import Any

from mqpy import CMQC, asyncput, bindings_templates
from mqpy.bindings_templates import Templates
from mqpy.engine import fastpath
from mqpy.errors import MQMIError
from mqpy.fap import mqicalls, mqiflows
from mqpy.fap.apiheader import API_HEADER_LENGTH, build_mqi_request, one_mqi_flow
from mqpy.fap.mqicalls import MQIVerbs, failure, get_done, put_done
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import TSH_LENGTH, SegmentType
from mqpy.spinwait import SpinWait
from mqpy.structs.tables import GMO, MD, PMO

__all__ = ["SPUN_VERBS", "PackedCalls", "TemplatedCalls"]

_T = SegmentType
_FAILED = CMQC.MQCC_FAILED
_OK = CMQC.MQCC_OK
_ASYNC = CMQC.MQPMO_ASYNC_RESPONSE
_RESPONSE_OPTIONS = _ASYNC | CMQC.MQPMO_SYNC_RESPONSE
#: Asynchronous puts sent before the replies that have come to them are read and dropped
#: (without waiting): the socket holds far more of those short replies, so the queue
#: manager never waits for room to answer (nor for room for read ahead's flows).
DRAIN_EVERY = 32
#: A request longer than this takes the general path (a long message: its copies cost more
#: than the framing, and its reply may come in pieces anyway).
PACKED_LIMIT = 1 << 15
#: One read of a reply: whatever the queue manager has sent, up to this.
RECEIVE_SIZE = 1 << 16
_REPLY_TYPES = {verb: mqiflows.reply_type(verb) for verb in (_T.MQPUT, _T.MQGET, _T.MQCMIT)}
_NO_BODY: tuple[bytes, ...] = ()
#: A request's TSH and API header, before its body.
_HEADERS = TSH_LENGTH + API_HEADER_LENGTH
#: The longest MQPUT request made from a kept one.
_KEPT_PUT_LIMIT = PACKED_LIMIT + _HEADERS
#: An MQCMIT's request: always these bytes.
_COMMIT = build_mqi_request(_T.MQCMIT, 0, ())
#: The calls whose replies a bindings connection spins for (each its own SpinWait).
SPUN_VERBS = (_T.MQPUT, _T.MQGET, _T.MQCMIT)
_GET_WAITS = CMQC.MQGMO_WAIT
_WHOLE_MESSAGE = mqiflows.WHOLE_MESSAGE
_monotonic = time.monotonic
Decoded = mqiflows.Decoded
#: a named tuple made from its fields at once (``Decoded(...)``'s own ``__new__`` is a
#: Python function of its own)
_new_tuple = tuple.__new__


class PackedCalls(MQIVerbs):
    """MQPUT, MQGET and MQCMIT of a bindings connection, packed (module docstring). The
    connection gives ``_sock``, ``_lock``, ``_flows``, ``_usable_sock``, ``_lost`` and
    ``qmgr_name`` (``mqpy.bindings.BindingsConnection``)."""

    _sock: socket.socket | None
    _lock: Any
    _send_lock: Any  #: held for each write of the socket (BindingsConnection._write)
    _flows: Any
    _collected: Any  #: MQCLOSEs of collected Queues, made before the next call

    def put(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        md = MD() if md is None else md  # (as MQIVerbs.put)
        pmo = PMO() if pmo is None else pmo
        if type(md) is not MD or type(pmo) is not PMO or type(data) is not bytes \
                or not self._packable():
            return super().put(hobj, md, pmo, data)
        response = pmo.__dict__["Options"] & _RESPONSE_OPTIONS
        if response == _ASYNC or (not response and hobj in self._async_default):
            return self._put_async_packed(hobj, md, pmo, data)  # (DEFPRESP(ASYNC): MQIVerbs')
        if response:
            return super().put(hobj, md, pmo, data)
        reply = self._packed_put(hobj, md, pmo, data)
        if reply is None:
            return super().put(hobj, md, pmo, data)
        return put_done(md, pmo, reply)

    def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        md = MD() if md is None else md  # (as MQIVerbs.get)
        gmo = GMO() if gmo is None else gmo
        if type(md) is not MD or type(gmo) is not GMO or not self._packable() \
                or (max_length is not None and max_length < 0):
            return super().get(hobj, md, gmo, max_length)
        buffer_length = mqiflows.WHOLE_MESSAGE if max_length is None else max_length
        reply = self._packed_get(hobj, md, gmo, buffer_length)
        if reply is None:
            return super().get(hobj, md, gmo, max_length)
        return get_done(md, gmo, reply)

    def commit(self) -> None:
        if not self._packable():
            super().commit()
            return
        self._packed_commit()

    def _packed_put(self, hobj: int, md: MD, pmo: PMO, data: bytes
                    ) -> mqiflows.Decoded | None:
        """The usual MQPUT packed and made (its reply); None, nothing sent, when it is
        not of the common form."""
        body = _request_body(_T.MQPUT, [md, pmo, data])
        return None if body is None else \
            self._packed_call(_T.MQPUT, hobj, body, (md, pmo), (md, pmo))

    def _packed_get(self, hobj: int, md: MD, gmo: GMO, buffer_length: int
                    ) -> mqiflows.Decoded | None:
        """The usual MQGET packed and made (its reply); None, nothing sent, when it is
        not of the common form."""
        body = _request_body(_T.MQGET, [md, gmo, buffer_length])
        return None if body is None else self._packed_call(_T.MQGET, hobj, body, (), (md, gmo))

    def _packed_commit(self) -> None:
        self._packed_call(_T.MQCMIT, 0, None, (), ())

    def _put_async_packed(self, hobj: int, md: MD, pmo: PMO, data: bytes) -> int:
        """An asynchronous MQPUT (``MQIVerbs._put_async``'s request), packed and sent; the
        replies come in are dropped every DRAIN_EVERY puts."""
        self._check_length(data)  # type: ignore[attr-defined]
        sent = asyncput.prepare(md, pmo, self.qmgr_name)
        body = _request_body(_T.MQPUT, [md, sent, data])
        if body is None:
            return super().put(hobj, md, sent, data)
        self._send_async(build_mqi_request(_T.MQPUT, hobj, (body,)))
        return 0

    def _send_async(self, request: bytes) -> None:
        """Send an asynchronous MQPUT's ``request``, not waiting for its reply (those come
        in are dropped every DRAIN_EVERY puts)."""
        if self._collected:
            self._close_collected()  # type: ignore[attr-defined] - (mqpy.collected)
        flows = self._flows
        with self._lock:
            sock = self._usable_sock()  # type: ignore[attr-defined]
            try:
                self._write(sock, request)  # type: ignore[attr-defined]
                flows.unanswered += 1
                if flows.unanswered >= DRAIN_EVERY:
                    self._take_replies(sock, wait=False)  # type: ignore[attr-defined]
            except (OSError, ProtocolError, EOFError):
                self._lost()  # type: ignore[attr-defined]
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None

    def _packable(self) -> bool:
        """The usual call may be packed: fast paths on, nothing traced (by the tracer the
        general path's ``MQIVerbs._call`` asks: one clock read while no strmqtrc is in
        effect, its ``untraced_until``)."""
        tracer = mqicalls.TRACER
        return fastpath.ENABLED and (_monotonic() < tracer.untraced_until
                                     or tracer.spec_for(self.qmgr_name) is None)

    def _packed_call(self, verb: SegmentType, hobj: int, body: bytes | None,
                     into: tuple[Any, ...], targets: tuple[Any, ...]) -> mqiflows.Decoded:
        """Send the request of ``verb`` with ``body`` (None: empty) as one segment, and
        return its decoded reply (:meth:`_send_packed`)."""
        request = build_mqi_request(verb, hobj, _NO_BODY if body is None else (body,))
        return self._send_packed(verb, request, into, targets)

    def _send_packed(self, verb: SegmentType, request: bytes, into: tuple[Any, ...],
                     targets: tuple[Any, ...], templates: Templates | None = None,
                     wait: SpinWait | None = None) -> mqiflows.Decoded:
        """Send the request of ``verb`` packed in one segment (``request``), and return
        its decoded reply as ``_exchange`` does: MQMIError on MQCC_FAILED (a failed reply's
        structures, if any, copied ``into`` the caller's), a reply that did not fail
        decoded into ``targets`` (read against the last one of ``templates``'). Its first
        read spins before it blocks by ``wait``, when given."""
        if self._collected:
            self._close_collected()  # type: ignore[attr-defined] - (mqpy.collected)
        flows = self._flows
        with self._lock:
            sock = self._sock
            if sock is None:
                sock = self._usable_sock()  # type: ignore[attr-defined] - (its error)
            try:
                if flows.unanswered:
                    self._take_replies(sock, wait=True)  # type: ignore[attr-defined]
                with self._send_lock:  # (as BindingsConnection._write)
                    sock.sendall(request)
                reply = None
                if not (flows._pending or flows._stream_missing or flows._reader.buffered
                        or flows._reader.reassembling):
                    data = sock.recv(RECEIVE_SIZE) if wait is None \
                        else wait.recv(sock, RECEIVE_SIZE)
                    reply = _one_reply(data, verb, targets, templates)
                    if reply is None:
                        flows.feed(data)
                while reply is None and (reply := flows.reply(targets)) is None:
                    flows.feed(sock.recv(RECEIVE_SIZE))
            except (OSError, ProtocolError, EOFError):
                self._lost()  # type: ignore[attr-defined]
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
        if reply.comp == _FAILED:
            raise failure(reply, into)
        return reply


class TemplatedCalls(PackedCalls):
    """A bindings connection's packed calls made from what the call before left: the
    request kept per object handle, the reply read against the last (``mqpy.
    bindings_templates``; the connection gives ``_templates``)."""

    _templates: Templates
    _waits: dict[SegmentType, SpinWait]  #: how the reply of each of SPUN_VERBS is waited for

    def put(self, hobj: int, md: Any, pmo: Any, data: bytes) -> int:
        """PackedCalls.put; the usual synchronous MQPUT whose request is the kept one (its
        lengths made ``data``'s) made at once, without the layers on the way."""
        if type(md) is MD and type(pmo) is PMO and type(data) is bytes \
                and not pmo.__dict__["Options"] & _RESPONSE_OPTIONS \
                and hobj not in self._async_default and self._packable():
            templates = self._templates
            request = templates.put_request(hobj, md, pmo, data, _KEPT_PUT_LIMIT)
            if request is not None:
                structures = (md, pmo)
                reply = self._send_packed(_T.MQPUT, request, structures, structures,
                                          templates, self._waits[_T.MQPUT])
                values = reply.values
                if reply.comp == _OK and values is not None and values[0] is md \
                        and values[1] is pmo:
                    return 0  # (put_done's answer: the reply read into the caller's)
                return put_done(md, pmo, reply)
        return super().put(hobj, md, pmo, data)

    def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        """PackedCalls.get; the usual MQGET whose request is the kept one made at once,
        without the layers on the way (as :meth:`put`)."""
        if type(md) is MD and type(gmo) is GMO and (max_length is None or max_length >= 0) \
                and self._packable():
            templates = self._templates
            request = templates.request(_T.MQGET, hobj, md, gmo, _WHOLE_MESSAGE
                                        if max_length is None else max_length)
            if request is not None:
                reply = self._send_packed(
                    _T.MQGET, request, (), (md, gmo), templates,
                    None if gmo.Options & _GET_WAITS else self._waits[_T.MQGET])
                values = reply.values
                if reply.comp == _OK and values[0] is md and values[1] is gmo:
                    return values[3]  # (get_done's answer: the reply read into the caller's)
                return get_done(md, gmo, reply)
        return super().get(hobj, md, gmo, max_length)

    def _packed_put(self, hobj: int, md: MD, pmo: PMO, data: bytes
                    ) -> mqiflows.Decoded | None:
        templates = self._templates
        request = templates.put_request(hobj, md, pmo, data, _KEPT_PUT_LIMIT)
        if request is None:
            body = _request_body(_T.MQPUT, [md, pmo, data])
            if body is None:
                return None
            request = build_mqi_request(_T.MQPUT, hobj, (body,))
            templates.keep_request(_T.MQPUT, hobj, md, pmo, len(data),
                                   request[:len(request) - len(data)])
        return self._send_packed(_T.MQPUT, request, (md, pmo), (md, pmo), templates,
                                 self._waits[_T.MQPUT])

    def _packed_get(self, hobj: int, md: MD, gmo: GMO, buffer_length: int
                    ) -> mqiflows.Decoded | None:
        templates = self._templates
        request = templates.request(_T.MQGET, hobj, md, gmo, buffer_length)
        if request is None:
            body = _request_body(_T.MQGET, [md, gmo, buffer_length])
            if body is None:
                return None
            request = build_mqi_request(_T.MQGET, hobj, (body,))
            templates.keep_request(_T.MQGET, hobj, md, gmo, buffer_length, request)
        return self._send_packed(_T.MQGET, request, (), (md, gmo), templates,
                                 None if gmo.Options & _GET_WAITS else self._waits[_T.MQGET])

    def _packed_commit(self) -> None:
        self._send_packed(_T.MQCMIT, _COMMIT, (), (), None, self._waits[_T.MQCMIT])

    def _put_async_packed(self, hobj: int, md: MD, pmo: PMO, data: bytes) -> int:
        """PackedCalls._put_async_packed; the request made from the kept one of ``hobj``
        when ``md`` and ``pmo`` have the fields it was packed from, with the identifiers
        ``asyncput.prepare`` would make (made here as it makes them)."""
        self._check_length(data)  # type: ignore[attr-defined]
        templates = self._templates
        kept = templates.kept_async_put(hobj, md, pmo)
        if kept is None or len(kept.prefix) + len(data) > _KEPT_PUT_LIMIT:
            return self._put_async_keeping(hobj, md, pmo, data)
        made_msg_id, made_correl_id = kept.made
        fields = md.__dict__  # (an MQMD's own __setattr__ stores such an identifier as it is)
        msg_id = correl_id = None
        if made_msg_id:
            msg_id = fields["MsgId"] = asyncput.new_id(self.qmgr_name)
        if made_correl_id:
            correl_id = fields["CorrelId"] = asyncput.new_id(self.qmgr_name)
        self._send_async(kept.request(msg_id, correl_id, data))
        return 0

    def _put_async_keeping(self, hobj: int, md: MD, pmo: PMO, data: bytes) -> int:
        """PackedCalls._put_async_packed, its request kept for the next (with ``md``'s and
        ``pmo``'s fields as given)."""
        given = dict(md.__dict__), dict(pmo.__dict__)
        made = asyncput.ids_made(md, pmo.Options)
        sent = asyncput.prepare(md, pmo, self.qmgr_name)
        body = _request_body(_T.MQPUT, [md, sent, data])
        if body is None:
            return MQIVerbs.put(self, hobj, md, sent, data)
        request = build_mqi_request(_T.MQPUT, hobj, (body,))
        self._templates.keep_async_put(hobj, *given, made, len(data),
                                       request[:len(request) - len(data)])
        self._send_async(request)
        return 0


def _request_body(verb: SegmentType, values: list[Any]) -> bytes | None:
    """The body of ``verb``'s request of the common form (``mqiflows.request_body``'s bytes,
    packed in one go); None for anything else -- which the general path packs, or refuses
    with its reason -- or a request longer than PACKED_LIMIT."""
    body = mqiflows.common_request_body(verb, values)
    return body if body is not None and len(body) <= PACKED_LIMIT else None


def _one_reply(data: bytes, verb: SegmentType, targets: tuple[Any, ...],
               templates: Templates | None = None) -> mqiflows.Decoded | None:
    """``data`` decoded as the reply of ``verb`` when it is exactly that one whole
    little-endian segment of the common form (what a ``SegmentReader``'s event gives,
    decoded as ``Flows.reply`` decodes it; an MQPUT's or MQGET's that did not fail read
    against the last, ``templates``: at once when its headers and length are the last
    one's, which say what they said then); None for anything else, which the general path
    then reads."""
    if templates is not None and targets:
        kept = templates.segments.get(verb)
        if kept is not None:
            values = bindings_templates.read_against(kept[0], data, targets)
            if values is not None:
                return _new_tuple(Decoded, (verb, kept[1], kept[2], kept[3], values))
    flow = one_mqi_flow(data)
    if flow is None or flow[0] != _REPLY_TYPES[verb]:
        return None
    _, comp, reason, hobj, body = flow
    if templates is not None and targets and comp != _FAILED:
        decoded = templates.reply(verb, comp, reason, hobj, body, targets)
        if decoded is not None:
            templates.keep_segment(verb, data, comp, reason, hobj, decoded.values)
        return decoded
    return mqiflows.common_reply(verb, comp, reason, hobj, body,
                                 targets if comp != _FAILED else ())
