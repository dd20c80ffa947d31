"""A busy bindings connection served by a thread of its own: no trip through the event loop
for each call.

While an application keeps calling (its next request within HOT_WAIT_S of the last reply),
its MQPUTs, MQGETs without MQGMO_WAIT, MQCMITs, MQBACKs and MQINQs are served on a worker
thread with plain blocking socket calls and the engine ``Connection``'s own methods (their
log forces made on that thread, before the reply). Any other request, a connection quiet for
HOT_WAIT_S, an application that has gone or broken the protocol: back to the session's task
in the event loop (``mqpy.bindings_listener``), which serves it as before. At most
HOT_THREADS connections are served so at once; the others stay in the loop.
"""

from __future__ import annotations

import select
import time
from typing import Any

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import MQIReply, MQIRequest
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import SegmentType
from mqpy.trace import TRACER

__all__ = ["GONE", "HOT_THREADS", "HOT_WAIT_S", "SPELL_S", "THREAD_VERBS", "serve_while_busy"]

#: How long the thread waits for the next request before handing the connection back.
HOT_WAIT_S = 0.002
#: Connections served by a thread of their own at once (the others: in the event loop).
HOT_THREADS = 8
#: The longest a thread serves a connection before handing it back, for the loop to see
#: whether the session is cancelled (the queue manager ending), then take it again.
SPELL_S = 0.05

_T = SegmentType
_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED
THREAD_VERBS = frozenset({_T.MQPUT, _T.MQGET, _T.MQCMIT, _T.MQBACK, _T.MQINQ})


#: The application closed its end, or a send failed: the session ends.
GONE = object()


def serve_while_busy(session: Any) -> object:
    """Serve ``session``'s calls (a ``bindings_listener._Session`` with an engine connection)
    on this thread while they come quickly and are of THREAD_VERBS, for SPELL_S at most. Returns
    None when the connection went quiet, a request for the loop is first in
    ``session.received`` or the spell is over; bytes: the rest of a reply the socket did not
    take, for the loop to send; GONE when the application has gone; a ProtocolError when
    what it sent breaks the protocol."""
    until = time.monotonic() + SPELL_S
    sock = session.sock
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    wait_ms = max(1, int(HOT_WAIT_S * 1000))
    received = session.received
    while True:
        if not received:
            if time.monotonic() >= until or not poller.poll(wait_ms):
                return None
            try:
                data = sock.recv(1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                return GONE
            if not data:
                return GONE
            try:
                received.extend(session.reader.feed(data))
            except ProtocolError as exc:
                return exc
            if not received:
                continue  # the start of a long request
        request = received[0]
        if type(request) is not MQIRequest or request.segment_type not in THREAD_VERBS:
            return None  # for the loop, which says what is wrong with it if anything
        try:
            decoded = session._decode(request)
        except (mqiparams.BadStructure, ProtocolError):
            return None  # the loop answers the refusal, or ends the connection as it says
        if decoded.verb == _T.MQGET and decoded.values[1].Options & CMQC.MQGMO_WAIT:
            return None  # a waiting get holds no thread: the loop's
        received.popleft()
        reply = _serve(session, decoded)
        rest = _send(sock, session.writer.send(reply))
        if rest is not None:
            return rest
        session.replied_at = time.monotonic()


def _serve(session: Any, d: mqiflows.Decoded) -> MQIReply:
    """One call on the engine connection, as ``_Session._serve`` makes it in the loop."""
    call = TRACER.begin(session.engine.name, d.verb.name, d.hobj, d.values, "lqmflows")
    try:
        reply = _call(session.conn, d)
    except MQMIError as e:
        reply = mqiflows.failure_reply(d.verb, d, e.comp, e.reason)
    except Exception as exc:  # noqa: BLE001 - an engine fault: FDC, the call fails 2195
        session.server.on_unexpected(exc)
        reply = mqiflows.encode_reply(d.verb, comp=_FAILED, reason=CMQC.MQRC_UNEXPECTED_ERROR)
    if call is not None:
        call.end(reply)
    return reply


def _call(conn: Any, d: mqiflows.Decoded) -> MQIReply:
    verb = d.verb
    if verb == _T.MQPUT:
        md, pmo, data = d.values
        warning = conn.put(d.hobj, md, pmo, data)
        return mqiflows.encode_reply(verb, [md, pmo], comp=_WARNING if warning else _OK,
                                     reason=warning)
    if verb == _T.MQGET:
        md, gmo, buffer_length = d.values
        try:
            data = conn.get(d.hobj, md, gmo, mqiflows.max_length(buffer_length))
        except MQMIError as e:
            reply = mqiflows.truncation_reply(md, gmo, e)
            if reply is None:
                raise
            return reply
        return mqiflows.encode_reply(verb, [md, gmo, len(data), data])
    if verb == _T.MQCMIT:
        conn.commit()
        return mqiflows.encode_reply(verb, [])
    if verb == _T.MQBACK:
        conn.backout()
        return mqiflows.encode_reply(verb, [])
    (selectors,) = d.values
    if d.hobj == 0:
        return mqiflows.encode_reply(verb, [[conn.inquire_qmgr(s) for s in selectors]])
    return mqiflows.encode_reply(verb, [[conn.inquire(d.hobj, s) for s in selectors]])


def _send(sock: Any, data: bytes) -> object:
    """Write ``data`` on the non-blocking socket: None once all of it is sent; what it did
    not take (for the loop, which can wait for it cancellably); GONE when the application
    has gone."""
    try:
        sent = sock.send(data)
    except BlockingIOError:
        return data
    except OSError:
        return GONE
    return None if sent == len(data) else data[sent:]
