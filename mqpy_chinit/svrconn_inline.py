"""MQI calls a SVRCONN serves at once in its receiver: a client's message traffic with the
queue manager in this process (an MQPUT, an MQGET without wait, of the common form) never
waits, so the receiver makes such a call itself when the conversation's task has nothing to
do, and answers it: no hand-over, no wake-up of the task. A call that logged persistent work
is answered only after its log force, made by the conversation's task (``Answer``), so that
nothing is acknowledged before it is durable; calls queued for the task are never overtaken.

A part of :class:`~mqpy_chinit.svrconn.SvrconnInstance`, which holds the state it uses.
"""

from __future__ import annotations

import time
from typing import Any

import attrs

from mqpy import CMQC, loopcalls
from mqpy.engine import propdelivery
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply, MQIRequest, mqi_event
from mqpy.fap.onesegment import reply_segment
from mqpy.fap.tsh import SegmentType
from mqpy_chinit.svrconn_conversation import SUBSTATES, ClientConversation
from mqpy_chinit.svrconn_relay import REPLY_TYPES

_T = SegmentType
_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED
#: an MQGET that must read properties (a delivery's, a selector's): not in the receiver
_UNREAD = (_OK, 0, None)


@attrs.frozen
class Answer:
    """A call the receiver made at once (``_serve_now``) whose log force is due before it
    is answered: for the conversation's task, in its requests' order."""

    request: MQIRequest
    values: tuple[Any, ...]
    outcome: tuple[int, int, Any]  # as SvrconnInstance._call_now gives it
    lsn: int
    #: the reply's segments made already (``svrconn_packed``), sent and counted (a
    #: message of ``moved`` bytes) once forced; None: made from ``values`` and ``outcome``
    segments: list[bytes] | None = None
    moved: int = 0


def _decoded(request: MQIRequest, values: tuple[Any, ...]) -> mqiflows.Decoded:
    """What ``mqiflows.decode_request`` gives for ``request``, whose ``values`` are read."""
    return mqiflows.Decoded(request.segment_type, request.comp, request.reason, request.hobj,
                            values)



class CallsServedAtOnce:
    """The receiver's own MQPUT and MQGET without wait."""

    def _serve_now(self, request: MQIRequest) -> list[bytes] | None:
        """An MQPUT or MQGET without wait of the common form, on a conversation whose
        queue manager is in this process and whose task has nothing to do, served here in
        the receiver, in one go: decoded, called, its reply made and counted (the
        conversation's task would do the same, a hand-over and a wake-up later). Returns
        the reply's segments; none when the call logged persistent work whose force is due
        before it is answered (the task then forces and answers, :meth:`_answer`); None
        for anything else, which takes the task's way (:meth:`_route`) unchanged."""
        verb = request.segment_type
        if verb is not _T.MQPUT and verb is not _T.MQGET:
            return None
        cc = self.conversations.get(request.conv_id if self.sharing else None)
        if cc is None or cc.queued or cc.calling or type(cc.backend) is not loopcalls.EngineVerbs:
            return None
        values = mqiflows.common_request(verb, request.body, request.byte_order)
        if values is None:
            return None
        if verb is _T.MQPUT:
            data = values[2]
            if len(data) > loopcalls.INLINE_DATA_LIMIT or (
                    self.max_msg_size and len(data) > self.max_msg_size):
                return None  # a long put goes to a thread; one beyond MAXMSGL fails 2010
        elif values[1].Options & CMQC.MQGMO_WAIT:
            return None
        conn = cc.backend.conn
        loopcalls.defer(conn)
        try:
            outcome = self._call_now(verb, request, values, conn)
        finally:
            lsn = loopcalls.undefer(conn)
        if outcome is _UNREAD:  # the task's way: read on a worker thread (nothing changed)
            return None
        self.last_call = time.monotonic()
        if lsn:
            cc.queued += 1
            cc.send.send_nowait(Answer(request, values, outcome, lsn))  # (it was empty)
            return []
        return self._answered(request, values, outcome)

    def _call_now(self, verb: SegmentType, request: MQIRequest, values: tuple[Any, ...],
                  conn: Any) -> tuple[int, int, Any]:
        """The engine's call for :meth:`_serve_now`: (CompCode, Reason, the message an
        MQGET got) when it did not fail, else (CompCode, Reason, its reply)."""
        try:
            if verb is _T.MQPUT:
                md, pmo, data = values
                warning = conn.put(request.hobj, md, pmo, data)
                return (_WARNING if warning else _OK), warning, None
            md, gmo, buffer_length = values
            return _OK, 0, conn.get_unread(request.hobj, md, gmo,
                                           self._max_length(buffer_length))
        except propdelivery.Unread:
            return _UNREAD
        except MQMIError as e:
            order = self._reply_order()
            reply = mqiflows.truncation_reply(values[0], values[1], e, order) \
                if verb is _T.MQGET else None
            if reply is None:
                reply = mqiflows.failure_reply(verb, _decoded(request, values), e.comp,
                                               e.reason, order)
            return e.comp, e.reason, reply
        except Exception as exc:  # noqa: BLE001 - a fault behind the MQI: as _dispatch says
            return _FAILED, CMQC.MQRC_UNEXPECTED_ERROR, self._unexpected(verb, exc)

    def _answered(self, request: MQIRequest, values: tuple[Any, ...],
                  outcome: tuple[int, int, Any]) -> list[bytes]:
        """The reply segments of a call served at once, counted in the channel status as
        the task counts its calls (``_put``, ``_get``, ``_serve_conversation``)."""
        comp, reason, out = outcome
        verb = request.segment_type
        if type(out) is MQIReply:  # it failed (or a truncated get): nothing moved
            self.status.msgs += 1
            reply = out
        else:
            if verb is _T.MQPUT:
                self._counted(verb, len(values[2]))
                parts: tuple[Any, ...] = (values[0], values[1])
            else:
                self._counted(verb, len(out))
                parts = (values[0], values[1], len(out), out)
            writer = self.conv.writer
            segment = reply_segment(writer, verb, comp, reason, parts, request.conv_id,
                                    request.request_id)
            if segment is not None:
                return [segment]
            order = writer.byte_order  # the replies' bodies are in the TSH's
            body = mqiflows.common_reply_body(verb, parts, order)
            if body is not None:
                segment = self.conv.writer.reply(REPLY_TYPES[verb], comp, reason, 0, (body,),
                                                 request.conv_id, request.request_id)
                if segment is not None:
                    return [segment]
            try:
                reply = mqiflows.encode_reply(verb, parts, comp=comp, reason=reason,
                                              byte_order=order)
            except Exception as exc:  # noqa: BLE001 - as _dispatch says of its handlers'
                reply = self._unexpected(verb, exc)
        return self._framed(request, reply)

    def _framed(self, request: MQIRequest, reply: MQIReply) -> list[bytes]:
        """The segments of ``reply`` to ``request``."""
        return self.conv.writer.segments(mqi_event(
            MQIReply, reply.flags, reply.luwid, request.conv_id, request.request_id,
            reply.segment_type, reply.comp, reply.reason, reply.hobj, reply.body,
            reply.reply_length))

    def _counted(self, verb: SegmentType, nbytes: int) -> None:
        """An MQPUT or MQGET that moved a message of ``nbytes`` counted in the channel
        status, as the task counts its calls: MSGS (each MQI call once) and the bytes."""
        status = self.status
        if verb is _T.MQPUT:
            status.msgs += 1
            status.bytes_received += nbytes
        else:
            status.message_moved(nbytes, sent=True)

    async def _answer(self, cc: ClientConversation, answer: Answer) -> None:
        """A call :meth:`_serve_now` made whose log force is due: forced (on a worker
        thread, with the other calls of this loop waiting for one), then answered; a force
        that fails fails the call, as it fails a call made by :meth:`_dispatch`."""
        request, values = answer.request, answer.values
        verb = request.segment_type
        self.busy += 1
        self.status.substate = SUBSTATES[verb]
        outcome = answer.outcome
        segments = answer.segments
        try:
            await loopcalls.force(cc.backend.conn, answer.lsn, self.registry.limiter)
        except MQMIError as e:
            segments = None
            outcome = (e.comp, e.reason, mqiflows.failure_reply(
                verb, _decoded(request, values), e.comp, e.reason, self._reply_order()))
        except Exception as exc:  # noqa: BLE001 - as _dispatch says
            segments = None
            outcome = (_FAILED, CMQC.MQRC_UNEXPECTED_ERROR, self._unexpected(verb, exc))
        finally:
            self.busy -= 1
            self.last_call = time.monotonic()
            self.status.substate = "RECEIVE"
        if answer.segments is None:
            segments = self._answered(request, values, outcome)
        elif segments is None:  # made already, but the force failed: the failure's reply
            self.status.msgs += 1
            segments = self._framed(request, outcome[2])
        else:
            self._counted(verb, answer.moved)
        await self._send_replies(segments)
