"""A busy bindings connection served by a thread of its own: no trip through the event loop
for each call.

While an application keeps calling (its next request within HOT_WAIT_S of the last reply),
its MQPUTs, MQGETs, MQCMITs, MQBACKs and MQINQs are served on a worker thread with plain
blocking socket calls and the engine ``Connection``'s own methods (their log forces made on
that thread, before the reply). Any other request, a connection quiet for HOT_WAIT_S, an
application that has gone or broken the protocol: back to the session's task in the event
loop (``mqpy.bindings_listener``), which serves it as before. At most HOT_THREADS
connections are served so at once; the others stay in the loop.

An MQGET that waits (MQGMO_WAIT; untraced) waits on the thread too (:func:`_serve_waiting`),
as the loop's waits (``waiting.get_with_wait``): tried at once; when no message is there,
the engine's get registers the session's waiter, which sets an eventfd (:class:`_Waker`)
polled with the application's socket; each wake-up tries the get again (a message, the
queue manager quiescing: 2161 with FAIL_IF_QUIESCING, STOP CONN: 2009). The socket is
watched as the loop's ``_watch`` watches it: the application's end (GONE), a CONN_STATE
flow (2033), a flow that is no MQI call (2009), its requests kept for after the call. The
WaitInterval passing answers 2033; a wait still going after PARK_S is handed to the loop
(:class:`Parked`), which waits the rest holding no thread. The session's task cancelled
(the queue manager ending at once) wakes it unanswered (:func:`cancel`). So a requester's
wait for its reply, and a responder's for its next request, keep the calls around them on
the thread: no trip through the loop after each wait.

A call costs the thread two system calls when it comes soon: the read, which waits in the
kernel (the socket is blocking for the spell, SO_RCVTIMEO bounding the wait by HOT_WAIT_S)
rather than in a poll before it, and the write of the reply. The replies of MQPUT, MQGET and MQCMIT are packed
straight into their segment (``mqiflows.common_reply_body``, ``SegmentWriter.reply``) without
a reply event, unless the call is traced; they are the bytes the event would give
(tests/daemon/test_bindings_busy.py holds them to it). MQPUTs and MQGETs of the common form
go further: served from the bytes read, no MQMD, MQPMO or MQGMO object made
(``asyncput_stream``, ``syncput_stream``, ``syncget_stream``; :meth:`_Pipelined.from_bytes`).
An application calls again and again with the same structures, so what a connection's last
synchronous MQPUT and MQGET were read as is kept while its session is (``syncput_stream.
KeptPut``, ``syncget_stream.KeptGet``: a request with the same bytes is not read again, a
reply's headers are packed once by length), as are its replies without a body (MQCMIT,
MQBACK).

Before that read blocks, the thread tries it without blocking a little while
(``mqpy.spinwait``: a SpinWait kept per connection across its spells, the SPINNER token
held by one thread at a time), so that an application calling in a loop does not wait for
this thread's wake-up.
"""

from __future__ import annotations

import math
import os
import select
import socket
import struct
import time
import weakref
from typing import Any

from mqpy import CMQC, asyncput_stream, bindings_profile, streamer, syncget_stream, syncput_stream
from mqpy.connstate import take_wakes
from mqpy.engine import packed
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import MQIReply, MQIRequest, one_mqi_flow
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.segmentscan import plain_segments
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import TSH_LENGTH, SegmentType
from mqpy.spinwait import SPINNER, SpinWait
from mqpy.trace import TRACER

__all__ = ["GONE", "HELD_DURING_WAIT", "HOT_THREADS", "HOT_WAIT_S", "PARK_S", "SPELL_S",
           "THREAD_VERBS", "Parked", "cancel", "serve_while_busy"]

#: How long the thread waits for the next request before handing the connection back: long
#: enough that an application calling in a loop on a loaded machine (its process waiting
#: its turn for a core for some milliseconds) keeps its thread, rather than paying the
#: loop's trip and a thread hand-off for its next two calls.
HOT_WAIT_S = 0.02
#: Connections served by a thread of their own at once (the others: in the event loop).
HOT_THREADS = 8
#: The longest a thread serves a connection before handing it back, for the loop to see
#: whether the session is cancelled (the queue manager ending), then take it again.
SPELL_S = 0.05

_T = SegmentType
_PUT, _GET = int(_T.MQPUT), int(_T.MQGET)
_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED
_ASYNC_RESPONSE = CMQC.MQPMO_ASYNC_RESPONSE
_WAIT = CMQC.MQGMO_WAIT
_NO_MSG = CMQC.MQRC_NO_MSG_AVAILABLE
THREAD_VERBS = frozenset({_T.MQPUT, _T.MQGET, _T.MQCMIT, _T.MQBACK, _T.MQINQ})
#: One read takes whatever the application has sent, up to this (as the loop's).
RECEIVE_SIZE = 1 << 16
#: The longest a waiting MQGET waits on the thread: a longer wait is handed to the event
#: loop (:class:`Parked`), which holds no thread for it.
PARK_S = 0.25
#: what the queue manager reads of an application's requests while its MQGET waits (kept for
#: after the call) before it reads no more until the call ends
HELD_DURING_WAIT = 1 << 20
#: SO_RCVTIMEO's struct timeval of HOT_WAIT_S.
_WAIT_TIMEVAL = struct.pack("ll", 0, int(HOT_WAIT_S * 1_000_000))


#: The application closed its end, or a send failed: the session ends.
GONE = object()
#: What one read brought from here on is the segment reader's.
_TO_READER: Any = object()
#: How each connection's next request is waited for (kept while its session is).
_WAITS: weakref.WeakKeyDictionary[Any, SpinWait] = weakref.WeakKeyDictionary()
#: How each connection's last synchronous MQPUT and MQGET, and its last asynchronous MQPUT,
#: were read (kept while its session is).
_KEPT: weakref.WeakKeyDictionary[Any, tuple[syncput_stream.KeptPut, syncget_stream.KeptGet,
                                              dict[tuple[int, int, int], bytes],
                                              asyncput_stream.KeptRequest]] \
    = weakref.WeakKeyDictionary()


def serve_while_busy(session: Any) -> object:
    """Serve ``session``'s calls (a ``bindings_listener._Session`` with an engine connection)
    on this thread while they come quickly and are of THREAD_VERBS, for SPELL_S at most. Returns
    None when the connection went quiet, a request for the loop is first in
    ``session.received`` or the spell is over; bytes: the rest of a reply the socket did not
    take, for the loop to send; GONE when the application has gone; a ProtocolError when
    what it sent breaks the protocol."""
    profile = bindings_profile.start()
    try:
        return _serve_spell(session)
    finally:
        bindings_profile.stop(profile)


def _serve_spell(session: Any) -> object:
    """The spell of :func:`serve_while_busy`. What one read brings is taken a whole request
    at a time (:class:`_Pipelined`), and the replies to requests that came together
    (pipelined: asynchronous puts, which nobody waits for) go out together, in one write
    once none of those requests is left to serve: a request that is waited for is the last
    of what came, so its reply never waits for another's."""
    until = time.monotonic() + SPELL_S
    sock = session.sock
    received = session.received
    replies = _Replies(session)
    reader = session.reader
    wait, kept = _kept_for(session)
    pipelined = _Pipelined(kept)
    sock.setblocking(True)  # for the spell: the read waits in the kernel
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, _WAIT_TIMEVAL)
        while True:
            if received:
                if replies.out and type(received[0]) is MQIRequest \
                        and received[0].segment_type == _GET:
                    rest = replies.flush()  # (a get may wait: what came before it goes first)
                    if rest is not None:
                        return pipelined.hand_back(reader, received, rest)
                decoded = _next_for_thread(session, received)
                if decoded is None:  # the rest is the loop's
                    return pipelined.hand_back(reader, received, replies.flush())
            elif pipelined.data:
                if replies.out and pipelined.next_is_get():
                    rest = replies.flush()  # (as above)
                    if rest is not None:
                        return pipelined.hand_back(reader, received, rest)
                decoded = None if pipelined.from_bytes(session, replies) \
                    else pipelined.take(reader, _untraced(session)) or _TO_READER
                if decoded is _TO_READER:  # the rest, from a request the reader must judge
                    try:
                        received.extend(pipelined.to_reader(reader))
                    except ProtocolError as exc:
                        return exc
                    continue
            else:
                if replies.out:
                    rest = replies.flush()
                    if rest is not None:
                        return rest
                    if session.replied_at >= until:  # (the time it was sent)
                        return None
                elif time.monotonic() >= until:
                    return None
                try:
                    data = wait.recv(sock, RECEIVE_SIZE, SPINNER)
                except BlockingIOError:  # SO_RCVTIMEO: quiet for HOT_WAIT_S
                    return None
                except OSError:
                    return GONE
                if not data:
                    return GONE
                try:
                    clean = not reader.buffered and not reader.reassembling
                    rest = data if clean else _rest_after_begun(reader, received, data)
                    if rest and int.from_bytes(rest[4:8], "big") != len(rest) \
                            and not plain_segments(rest, reader.max_transmission_size,
                                                   tail=True):
                        # the reader judges it whole: were it to refuse what follows the
                        # requests at its head, none of them is served (as in the loop)
                        received.extend(reader.feed(rest))
                        rest = b""
                    pipelined.data = rest
                    # (what the reader holds is the same until all of rest is taken)
                    pipelined.clean = clean or (not reader.buffered and not reader.reassembling)
                except ProtocolError as exc:
                    return exc
                continue
            if decoded is not None:
                if decoded.verb == _GET and decoded.values[1].Options & _WAIT:
                    outcome = _serve_waiting(session, decoded, replies, pipelined)
                    if outcome is not None:
                        return outcome
                    if session in _CANCELLED_SESSIONS:
                        return None  # (its get unanswered: the loop's task ends it now)
                    until = time.monotonic() + SPELL_S  # (the wait is not the spell's)
                    continue
                replies.add(_serve(session, decoded, pipelined.bare))
            if replies.size >= REPLY_BATCH:
                rest = replies.flush()
                if rest is not None:  # what is left of the read: for the loop, after it
                    return pipelined.hand_back(reader, received, rest)
    finally:
        sock.setblocking(False)


def _kept_for(session: Any) -> tuple[SpinWait, Any]:
    """How ``session``'s next request is waited for, and what its spells keep (_KEPT)."""
    wait = _WAITS.get(session)
    if wait is None:
        wait = _WAITS[session] = SpinWait()
    kept = _KEPT.get(session)
    if kept is None:
        kept = _KEPT[session] = (syncput_stream.KeptPut(), syncget_stream.KeptGet(), {},
                                 asyncput_stream.KeptRequest())
    return wait, kept


def _rest_after_begun(reader: SegmentReader, received: Any, data: bytes) -> bytes:
    """``data`` just read, less the end of a segment begun in the read before (given to
    ``reader``, its event to ``received``): the whole requests that follow it are then
    taken without the reader (:class:`_Pipelined`). All of it to the reader while a flow of
    several segments is being put together."""
    buffered = reader.buffered
    if not buffered and not reader.reassembling:
        return data
    if 0 < buffered < 8 and not reader.reassembling and len(data) > 8 - buffered:
        received.extend(reader.feed(data[:8 - buffered]))  # (its length is known then)
        data = data[8 - buffered:]
    missing = 0 if reader.reassembling else reader.missing
    if not missing or missing >= len(data):
        received.extend(reader.feed(data))
        return b""
    received.extend(reader.feed(data[:missing]))
    return data[missing:]


#: The most bytes of replies kept back for one write (far below a socket's buffer).
REPLY_BATCH = 1 << 15


class _Replies:
    """Replies waiting for one write."""

    __slots__ = ("out", "session", "size")

    def __init__(self, session: Any) -> None:
        self.session = session
        self.out: list[bytes] = []
        self.size = 0

    def add(self, reply: bytes) -> None:
        self.out.append(reply)
        self.size += len(reply)

    def flush(self) -> object:
        """Write them (:func:`_send`'s answer: None once all went)."""
        if not self.out:
            return None
        data = self.out[0] if len(self.out) == 1 else b"".join(self.out)
        self.out.clear()
        self.size = 0
        rest = _send(self.session.sock, data)
        if rest is None:
            self.session.replied_at = time.monotonic()
        return rest


def _next_for_thread(session: Any, received: Any) -> mqiflows.Decoded | None:
    """The first request received, taken and decoded when this thread serves it; None when
    it is the loop's: not of THREAD_VERBS, a waiting get (which holds no thread), or one the
    loop refuses or ends the connection for."""
    request = received[0]
    if type(request) is not MQIRequest or request.segment_type not in THREAD_VERBS:
        return None  # for the loop, which says what is wrong with it if anything
    try:
        decoded = session._decode(request)
    except (mqiparams.BadStructure, ProtocolError):
        return None  # the loop answers the refusal, or ends the connection so
    if _waits(decoded) and not _untraced(session):
        return None  # (a traced one: the loop's, which traces its wait)
    received.popleft()
    return decoded


class _Pipelined:
    """What one read brought, taken a whole request at a time without the segment reader's
    events while each is one whole little-endian request of the common form
    (:func:`_one_request`), or an MQPUT or MQGET served from its bytes (:meth:`from_bytes`);
    the rest goes to the reader (:meth:`to_reader`)."""

    __slots__ = ("async_reply", "bare", "clean", "data", "kept_async", "kept_get", "kept_put",
                 "offset")

    def __init__(self, kept: tuple[syncput_stream.KeptPut, syncget_stream.KeptGet, dict,
                                   asyncput_stream.KeptRequest]
                 = (None, None, None, None)) -> None:  # type: ignore[assignment]
        self.data = b""
        self.offset = 0
        self.clean = False  # the segment reader holds nothing of what came before ``data``
        self.async_reply = b""  # the reply of every asynchronous put, made once
        # how the last sync put and get were read; replies without a body (:func:`_serve`);
        # how the last asynchronous put was read
        self.kept_put, self.kept_get, self.bare, self.kept_async = kept

    def from_bytes(self, session: Any, replies: _Replies) -> bool:
        """The next request, when it is an MQPUT of the common form, asynchronous
        (``mqpy.asyncput_stream``) or synchronous (``mqpy.syncput_stream``), or an MQGET of
        the common form (``mqpy.syncget_stream``), served from its bytes and its reply added
        to ``replies`` (True); False, nothing done, for anything else or a call traced."""
        data, start = self.data, self.offset
        kind = data[start + 9] if len(data) - start > 9 else 0  # the TSH's segment type
        if (kind != _PUT and kind != _GET) or not self.clean or not _untraced(session):
            return False
        reader = session.reader
        try:
            if kind == _GET:
                served = syncget_stream.serve(session, data, start, self.kept_get)
            else:
                kept_put = self.kept_put
                matched = kept_put is not None and kept_put.matches(data, start)
                found = None if matched else asyncput_stream.request(
                    data, start, reader.max_transmission_size, self.kept_async)
                if found is None:  # a synchronous put
                    served = syncput_stream.serve(session, data, start, kept_put, matched)
                else:
                    end, hobj, md, options, message = found
                    if packed.put_async(session.conn, hobj, md, options, message) \
                            is packed.GENERAL:
                        return False
                    served = end, self.async_reply or self._async_reply(session.writer)
            if served is None:
                return False
            end, reply = served
        except Exception as exc:  # noqa: BLE001 - an engine fault: FDC, as _serve's
            session.server.on_unexpected(exc)
            reply = session.writer.send(_unexpected(_T(kind)))
            end = int.from_bytes(data[start + 4:start + 8], "big") + start
        if end == len(data):
            self.data = b""
            self.offset = 0
        else:
            self.offset = end
        reader.segments += 1
        replies.out.append(reply)
        replies.size += len(reply)
        return True

    def _async_reply(self, writer: SegmentWriter) -> bytes:
        self.async_reply = _packed(writer, _T.MQPUT, [], _OK, 0) or b""
        return self.async_reply

    def next_is_get(self) -> bool:
        """Whether the next request (its TSH read) is an MQGET."""
        data, start = self.data, self.offset
        return len(data) - start > 9 and data[start + 9] == _GET

    def take(self, reader: SegmentReader, waits: bool = True) -> mqiflows.Decoded | None:
        """The next request decoded, or None when it is not whole or not of the common
        form, or is a waiting get and ``waits`` is false (the call traced: the loop's): the
        reader's then, with all after it."""
        data, start = self.data, self.offset
        if len(data) - start < TSH_LENGTH:
            return None
        end = start + int.from_bytes(data[start + 4:start + 8], "big")
        if end > len(data) or end <= start:
            return None
        decoded = _one_request(reader, data if start == 0 and end == len(data)
                               else data[start:end])
        if decoded is None or (not waits and _waits(decoded)):
            return None  # (the reader's, which counts it when it reads it)
        reader.segments += 1
        if end == len(data):
            self.data, self.offset = b"", 0
        else:
            self.offset = end
        return decoded

    def hand_back(self, reader: SegmentReader, received: Any, outcome: object) -> object:
        """``outcome`` for the loop, the rest of the read behind what it has received (a
        ProtocolError instead when the rest breaks the protocol; GONE stays GONE: what the
        application sent before it went is served then, up to such a flow)."""
        if self.data:
            try:
                received.extend(self.to_reader(reader))
            except ProtocolError as exc:
                return outcome if outcome is GONE else exc
        return outcome

    def to_reader(self, reader: SegmentReader) -> list[Any]:
        """The rest fed to ``reader``: its events (ProtocolError as ``reader.feed``)."""
        rest = self.data[self.offset:] if self.offset else self.data
        self.data, self.offset = b"", 0
        return reader.feed(rest) if rest else []


def _untraced(session: Any) -> bool:
    """No strmqtrc traces ``session``'s calls (one clock read while none is in effect:
    the tracer's ``untraced_until``)."""
    return time.monotonic() < TRACER.untraced_until \
        or TRACER.spec_for(session.engine.name) is None


def _waits(d: mqiflows.Decoded) -> bool:
    """An MQGET that may wait (MQGMO_WAIT)."""
    return d.verb == _T.MQGET and bool(d.values[1].Options & CMQC.MQGMO_WAIT)


def _one_request(reader: SegmentReader, data: bytes) -> mqiflows.Decoded | None:
    """``data`` decoded when it is exactly one whole little-endian MQPUT, MQGET, MQCMIT or
    MQBACK request of the common form and ``reader`` holds nothing (what ``reader.feed``
    and ``mqiflows.decode_request`` give it; the caller counts the segment when it takes
    it); None for anything else, which they take."""
    if reader.buffered or reader.reassembling or len(data) > reader.max_transmission_size:
        return None
    flow = one_mqi_flow(data)
    verb = None if flow is None else _ONE_REQUEST_VERBS.get(flow[0])
    if verb is None:
        return None
    _, comp, reason, hobj, body = flow
    if verb in _COMMON_REPLIES:
        values = mqiflows.common_request(verb, body)
        if values is None:
            return None
    elif body:
        return None  # (an MQCMIT or MQBACK has no body: the general path's error)
    else:
        values = ()
    return mqiflows.Decoded(verb, comp, reason, hobj, values)


def _serve(session: Any, d: mqiflows.Decoded,
           bare: dict[tuple[int, int, int], bytes] | None = None) -> bytes:
    """One call on the engine connection, as ``_Session._serve`` makes it in the loop: its
    reply's bytes, packed straight into the segment (:func:`_packed`) unless it is traced.
    ``bare``: the session's replies without a body (an MQCMIT's, an MQBACK's) by segment
    type, CompCode and Reason, packed once."""
    name = session.engine.name
    call = None if TRACER.spec_for(name) is None else \
        TRACER.begin(name, d.verb.name, d.hobj, d.values, "lqmflows")
    try:
        reply = _call(session.conn, d)
        if type(reply) is tuple:
            values, comp, reason = reply
            packed_reply = None if call is not None else \
                _packed(session.writer, d.verb, values, comp, reason) if values or bare is None \
                else _bare(bare, session.writer, d.verb, comp, reason)
            reply = packed_reply or mqiflows.encode_reply(d.verb, values or None, comp=comp,
                                                          reason=reason)
    except MQMIError as e:
        reply = mqiflows.failure_reply(d.verb, d, e.comp, e.reason)
    except Exception as exc:  # noqa: BLE001 - an engine fault: FDC, the call fails 2195
        session.server.on_unexpected(exc)
        reply = _unexpected(d.verb)
    if call is not None:
        call.end(reply)
    return reply if type(reply) is bytes else session.writer.send(reply)


def _bare(bare: dict[tuple[int, int, int], bytes], writer: SegmentWriter, verb: SegmentType,
          comp: int, reason: int) -> bytes | None:
    """``_packed(writer, verb, [], comp, reason)``, kept in ``bare`` (the session's)."""
    key = (verb, comp, reason)
    reply = bare.get(key)
    if reply is None:
        reply = _packed(writer, verb, [], comp, reason)
        if reply is not None and len(bare) < _BARE_KEPT:
            bare[key] = reply
    return reply


#: replies without a body kept for a session (a few verbs, a few outcomes)
_BARE_KEPT = 16


def _unexpected(verb: SegmentType) -> MQIReply:
    """The reply of a call the engine failed in (MQRC_UNEXPECTED_ERROR)."""
    return mqiflows.encode_reply(verb, comp=_FAILED, reason=CMQC.MQRC_UNEXPECTED_ERROR)


def _call(conn: Any, d: mqiflows.Decoded) -> MQIReply | tuple[list[Any], int, int]:
    """The call made: its reply's body values, CompCode and Reason (``encode_reply``'s),
    or the reply itself (a truncated get's)."""
    verb = d.verb
    if verb == _T.MQPUT:
        md, pmo, data = d.values
        warning = conn.put(d.hobj, md, pmo, data)
        if pmo.Options & _ASYNC_RESPONSE:  # nobody reads its reply: no structures in it
            return [], _OK, 0
        return [md, pmo], _WARNING if warning else _OK, warning
    if verb == _T.MQGET:
        md, gmo, buffer_length = d.values
        try:
            data = conn.get(d.hobj, md, gmo, mqiflows.max_length(buffer_length))
        except MQMIError as e:
            reply = mqiflows.truncation_reply(md, gmo, e)
            if reply is None:
                raise
            return reply
        return [md, gmo, len(data), data], _OK, 0
    if verb == _T.MQCMIT:
        conn.commit()
        return [], _OK, 0
    if verb == _T.MQBACK:
        conn.backout()
        return [], _OK, 0
    (selectors,) = d.values
    return [conn.inquire_all(d.hobj, selectors)], _OK, 0


def _packed(writer: SegmentWriter, verb: SegmentType, values: list[Any], comp: int,
            reason: int) -> bytes | None:
    """The bytes ``writer.send`` makes of ``encode_reply(verb, values, comp=, reason=)``,
    packed straight into the segment, for an MQPUT, MQGET or MQCMIT reply of the common form;
    None for anything else."""
    if not values:
        body: bytes | None = b""
    elif verb in _COMMON_REPLIES:
        body = mqiflows.common_reply_body(verb, values)
    else:
        return None
    return None if body is None else \
        writer.reply(_REPLY_TYPES[verb], comp, reason, 0, (body,), None, None)


_COMMON_REPLIES = frozenset({_T.MQPUT, _T.MQGET})
_REPLY_TYPES = {verb: mqiflows.reply_type(verb) for verb in THREAD_VERBS}
#: the requests :func:`_one_request` takes, by segment type number
_ONE_REQUEST_VERBS = {int(verb): verb for verb in (_T.MQPUT, _T.MQGET, _T.MQCMIT, _T.MQBACK)}


def _send(sock: Any, data: bytes) -> object:
    """Write ``data`` without waiting: None once all of it is sent; what the socket did not
    take (for the loop, which can wait for it cancellably); GONE when the application has
    gone."""
    try:
        sent = sock.send(data, socket.MSG_DONTWAIT)
    except BlockingIOError:
        return data
    except OSError:
        return GONE
    return None if sent == len(data) else data[sent:]


# -- a waiting MQGET -----------------------------------------------------------------------


class Parked:
    """A waiting MQGET whose wait on the thread reached PARK_S: the loop waits the rest
    (until ``deadline``, ``time.monotonic()``'s; inf for MQWI_UNLIMITED) and answers it."""

    __slots__ = ("deadline", "decoded")

    def __init__(self, decoded: mqiflows.Decoded, deadline: float) -> None:
        self.decoded, self.deadline = decoded, deadline

    def __repr__(self) -> str:
        return f"Parked({self.decoded.verb.name}, hobj {self.decoded.hobj})"


#: how a wait on the thread ended (:meth:`_Waker.wait`)
_WOKEN, _TIMED_OUT, _WAKE_FLOW, _BROKEN, _CANCELLED = (object() for _ in range(5))


class _Broken(MQMIError):
    """The wait ended because what the application sent breaks the protocol (``error``, a
    ProtocolError, or None for a flow that is no MQI call): MQRC_CONNECTION_BROKEN."""

    def __init__(self, error: ProtocolError | None) -> None:
        super().__init__(_FAILED, CMQC.MQRC_CONNECTION_BROKEN)
        self.error = error


class _Waker:
    """A session's eventfd, which the engine's waiter (:attr:`wake`, called from any
    thread) and :func:`cancel` set, polled with the application's socket while a get waits
    on the thread."""

    __slots__ = ("__weakref__", "both", "fd", "wake", "wake_only")

    def __init__(self, sock: socket.socket) -> None:
        fd = self.fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        write = os.eventfd_write

        def wake() -> None:
            try:
                write(fd, 1)
            except OSError:  # (closed: the session has ended)
                pass

        self.wake = wake
        self.wake_only = select.poll()
        self.wake_only.register(fd, select.POLLIN)
        fileno = getattr(sock, "fileno", None)  # (a stand-in with none is not watched)
        if fileno is None:
            self.both = self.wake_only
        else:
            self.both = select.poll()
            self.both.register(fileno(), select.POLLIN)
            self.both.register(fd, select.POLLIN)
        # the descriptor lives as long as its waiter can be called (the engine may hold it
        # a while): a late call never writes to another file given its number
        weakref.finalize(wake, os.close, fd)

    def wait(self, session: Any, until: float) -> object:
        """Wait until the waiter is called (_WOKEN), ``until`` (``time.monotonic()``'s)
        passes (_TIMED_OUT), or the application's side ends the wait as the loop's watch
        (``bindings_listener._Session._watch``) does: a CONN_STATE flow (_WAKE_FLOW), a flow
        that is no MQI call (_BROKEN), its end (GONE), or what breaks the protocol (that
        ProtocolError); _CANCELLED when the session's task is cancelled (:func:`cancel`).
        Requests it sends meanwhile go to ``session.received``, HELD_DURING_WAIT bytes of
        them at most."""
        sock, reader, received = session.sock, session.reader, session.received
        fd = self.fd
        poll = self.both.poll
        seen = held = 0
        while True:
            left = until - time.monotonic()
            if left <= 0:
                return _TIMED_OUT
            events = poll(math.ceil(left * 1000))
            woken = False
            for ready, _ in events:
                if ready == fd:
                    woken = True
                    continue
                try:
                    data = sock.recv(RECEIVE_SIZE, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    continue
                except OSError:
                    return GONE
                if not data:
                    return GONE
                try:
                    received.extend(reader.feed(data))
                except ProtocolError as exc:
                    return exc
                while seen < len(received):
                    event = received[seen]
                    if not (type(event) is MQIRequest or streamer.is_request(event)):
                        return _WAKE_FLOW if take_wakes(received) else _BROKEN
                    held += len(event.body)
                    seen += 1
                if held + reader.buffered >= HELD_DURING_WAIT:
                    poll = self.wake_only.poll  # nothing more read until the call ends
            if woken:
                try:
                    os.eventfd_read(fd)
                except BlockingIOError:
                    pass
                return _CANCELLED if session in _CANCELLED_SESSIONS else _WOKEN


#: each session's waker (kept while its session is)
_WAKERS: weakref.WeakKeyDictionary[Any, _Waker] = weakref.WeakKeyDictionary()


#: the sessions whose task is being cancelled while a thread serves them (:func:`cancel`)
_CANCELLED_SESSIONS: weakref.WeakSet[Any] = weakref.WeakSet()


def cancel(session: Any) -> None:
    """The session's task is being cancelled (the queue manager ending): a get waiting on
    its thread ends at once, unanswered (the loop's thread, while the spell runs)."""
    _CANCELLED_SESSIONS.add(session)
    waker = _WAKERS.get(session)
    if waker is not None:
        waker.wake()


def _serve_waiting(session: Any, d: mqiflows.Decoded, replies: _Replies,
                   pipelined: _Pipelined) -> object:
    """The waiting MQGET ``d`` served on this thread, as the loop serves it
    (``loopcalls.EngineVerbs.get``, ``waiting.get_with_wait``): tried at once; when no
    message is there, its waiter registered with the engine and the wait made here
    (:meth:`_Waker.wait`), tried again each time the waiter is called, until a message
    comes, the WaitInterval passes (MQRC_NO_MSG_AVAILABLE), or the wait is ended (a
    CONN_STATE flow: 2033; the queue manager quiescing: the engine's get answers 2161 with
    FAIL_IF_QUIESCING; STOP CONN: 2009; the application gone). Its reply sent: None (the
    spell goes on); else the spell's outcome (GONE, the rest of the reply, a ProtocolError,
    a :class:`Parked` wait for the loop, or None once cancelled, unanswered)."""
    received, reader = session.received, session.reader
    if pipelined.data:  # what came after it: the reader's, watched while it waits
        try:
            received.extend(pipelined.to_reader(reader))
        except ProtocolError as exc:
            return exc
    md, gmo, _ = d.values
    broken: ProtocolError | None = None
    try:
        got = _get_waiting(session, d)
        if type(got) is not bytes:
            return None if got is _CANCELLED else got
        reply: Any = _packed(session.writer, _T.MQGET, [md, gmo, len(got), got], _OK, 0) \
            or mqiflows.encode_reply(_T.MQGET, [md, gmo, len(got), got])
    except MQMIError as e:
        if type(e) is _Broken:
            broken = e.error
        reply = mqiflows.truncation_reply(md, gmo, e)
        if reply is None:
            reply = mqiflows.failure_reply(d.verb, d, e.comp, e.reason)
    except Exception as exc:  # noqa: BLE001 - an engine fault: FDC, the call fails 2195
        session.server.on_unexpected(exc)
        reply = _unexpected(d.verb)
    replies.add(reply if type(reply) is bytes else session.writer.send(reply))
    rest = replies.flush()
    if rest is not None:
        return rest
    return broken


def _get_waiting(session: Any, d: mqiflows.Decoded) -> object:
    """The message of the waiting MQGET ``d`` (bytes; MQMIError raised as the loop's get
    raises it), or how its wait ended otherwise (GONE, _CANCELLED, a ProtocolError, a
    :class:`Parked` wait)."""
    md, gmo, buffer_length = d.values
    interval = gmo.WaitInterval
    now = time.monotonic()
    if interval == CMQC.MQWI_UNLIMITED:
        deadline = math.inf
    elif interval < 0:
        raise MQMIError(_FAILED, CMQC.MQRC_WAIT_INTERVAL_ERROR)
    else:
        deadline = now + interval / 1000
    park = now + PARK_S
    conn, hobj = session.conn, d.hobj
    max_length = mqiflows.max_length(buffer_length)
    waker = _WAKERS.get(session)
    if waker is None:
        waker = _WAKERS[session] = _Waker(session.sock)
    wake = waker.wake
    while True:
        if session in _CANCELLED_SESSIONS:
            return _CANCELLED
        try:
            return conn.get(hobj, md, gmo, max_length, wake)
        except MQMIError as e:
            if e.reason != _NO_MSG:
                # (the engine may have registered it before failing: a log force of the
                # expiries it found)
                conn.drop_waiter(hobj, wake)
                raise
        except BaseException:
            conn.drop_waiter(hobj, wake)
            raise
        try:
            ended = waker.wait(session, min(deadline, park))
        finally:
            conn.drop_waiter(hobj, wake)
        if ended is _WOKEN:
            continue
        if ended is _TIMED_OUT:
            if deadline <= park:
                raise MQMIError(_FAILED, _NO_MSG)
            return Parked(d, deadline)
        if ended is _WAKE_FLOW:
            raise MQMIError(_FAILED, _NO_MSG)
        if ended is _BROKEN:
            raise _Broken(None)
        if isinstance(ended, ProtocolError):
            raise _Broken(ended)
        return ended  # GONE, _CANCELLED
