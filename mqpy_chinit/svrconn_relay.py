"""Relayed MQI calls of a SVRCONN conversation served through the queue manager's socket
(``mqpy_chinit.qmconn``, a separate queue-manager process): the calls of a client's message
traffic (MQPUT, MQGET, MQCMIT, MQBACK) pass through as they are, the body the client sent goes
on unchanged and the queue manager's reply comes back unchanged, since both sockets carry the
same bodies; only an MQGET's buffer length may be capped at MAXMSGL. Everything else (MQCONN
and its security, MQOPEN, a body of another byte order or shape) is decoded and called as
before. Once a conversation's call has been relayed, its task waits between calls on the queue
manager's socket: the receiver sends the next relayed call there itself at once, and the reply
wakes the conversation's task, which passes it on (one task wake-up a call, not two); any other
request is queued for the task, whose wait the receiver then cancels, so that calls of a
conversation are still served in the order they came.

A client that half-closes its socket after its last requests (``shutdown(SHUT_WR)``) is sent
the replies still owed to it -- a relayed call's reply still on the queue manager's socket,
the calls queued -- before the instance ends, for HALF_CLOSE_GRACE seconds at most; no MQGET
waits then (``_replies_owed``).

A part of :class:`~mqpy_chinit.svrconn.SvrconnInstance`, which holds the state it uses.
"""

from __future__ import annotations

import struct
import time
from collections.abc import Callable

import trio

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import (
    API_HEADER_LENGTH,
    MQIReply,
    MQIRequest,
    mqi_event,
    readdressed_mqi_reply,
)
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import TSH_LENGTH, TSHM_LENGTH, ByteOrder, ControlFlags1, SegmentType
from mqpy_chinit import svrconn_wake
from mqpy_chinit.svrconn_conversation import SUBSTATES, ClientConversation

_T = SegmentType
_OK, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_FAILED

#: The calls :meth:`SvrconnInstance._relay` passes through without decoding them.
RELAYED = frozenset({_T.MQPUT, _T.MQGET, _T.MQCMIT, _T.MQBACK})


NO_LUW = bytes(8)  # an MQI flow's LUW id: none


#: each relayed verb's reply segment type
REPLY_TYPES = {verb: mqiflows.reply_type(verb) for verb in RELAYED}

_LONG = struct.Struct("<i")
#: an MQGMO's Options and WaitInterval, after its StrucId and Version
_WAIT = struct.Struct("<ii")
_GMO_OPTIONS = 8

#: A client that half-closed its socket is owed the replies to what it sent before: they are
#: sent for this long at most, so that a client that does not read them does not hold the
#: instance (and its relay) for ever
HALF_CLOSE_GRACE = 5.0


class RelayedCalls:
    """A conversation's message traffic relayed to the queue manager's socket."""

    def _relay_body(self, request: MQIRequest, verb: SegmentType, waits: bool = True
                    ) -> tuple[bytes, int | None] | None:
        """What a relayed call sends the queue manager: the client's body (an MQGET's
        buffer length capped at the channel's MAXMSGL, as the decoding path caps it), and
        an MQPUT's message length. None: the body is not of the plain shape relaying needs
        (distribution-list records, longer than MAXMSGL, anything after an MQCMIT or MQBACK
        header), and the call goes the decoding way, which also answers a malformed one.
        ``waits`` False: an MQGET's wait is cut to none (WaitInterval 0)."""
        body = request.body
        data_length = None
        if verb == _T.MQPUT:
            data_length = _put_data_length(body)
            if data_length is None or (self.max_msg_size and data_length > self.max_msg_size):
                return None
        elif verb == _T.MQGET:
            if not _plain_get(body):
                return None
            (buffer_length,) = _LONG.unpack_from(body, len(body) - 4)
            max_length = self._max_length(buffer_length)
            if max_length != buffer_length:
                body = body[:-4] + _LONG.pack(-1 if max_length is None else max_length)
            if not waits:
                body = _without_wait(body)
        elif body:  # MQCMIT, MQBACK: nothing follows the API header
            return None
        return body, data_length

    async def _relay(self, cc: ClientConversation, request: MQIRequest,
                     verb: SegmentType) -> MQIReply | None:
        """An MQPUT, MQGET, MQCMIT or MQBACK passed to the queue manager's socket as the
        client sent it, its reply passed back as the queue manager sent it: both sides
        speak the same bodies (``mqpy.fap.mqiflows``) in the same byte order, and nothing in
        these calls is the channel's to change (``_relay_body``). None: the call goes the
        decoding way. Once a call of a conversation has been relayed its task waits between
        calls on the queue manager's socket, and the receiver relays the next call itself
        (``_start_relay``, ``_finish_relay``)."""
        prepared = self._relay_body(request, verb, not cc.last_read)
        if prepared is None:
            return None
        body, data_length = prepared
        self.status.substate = SUBSTATES[verb]
        try:
            reply = await cc.backend.relay(mqi_event(
                MQIRequest, ControlFlags1.NONE, NO_LUW, None, None, verb, 0, 0, request.hobj,
                body, None))
        except MQMIError:  # MQRC_CONNECTION_BROKEN
            return await self._relay_failed(request, verb)
        finally:
            self.status.substate = "RECEIVE"
        cc.on_qm = cc.backend.usable
        return self._relayed(request, verb, data_length, reply)

    def _start_relay(self, cc: ClientConversation, request: MQIRequest) -> bool:
        """The receiver's half of a relayed call of a conversation whose task waits on the
        queue manager's socket: the request goes there at once, and the reply wakes that
        task (``_finish_relay``), one task wake-up a call. False: not relayed this way (not
        a relayed call or shape, another byte order, the connection busy or gone): the
        request goes to the task as any other."""
        verb = request.segment_type
        if verb not in RELAYED or not self._relayable(request):
            return False
        prepared = self._relay_body(request, verb)
        if prepared is None:
            return False
        body, data_length = prepared
        backend = cc.backend
        if not backend.send_relayed(mqi_event(
                MQIRequest, ControlFlags1.NONE, NO_LUW, None, None, verb, 0, 0, request.hobj,
                body, None)):
            return False
        cc.relayed = (request, verb, data_length)
        self.busy += 1
        self.status.substate = SUBSTATES[verb]
        idle = cc.idle
        if backend.unsent and idle is not None:
            cc.idle = None
            idle.cancel()  # the rest of the request is the task's to write
        return True

    async def _replies_owed(self) -> None:
        """The client half-closed its socket: it sends nothing more, and may read on. Each
        conversation's task sends the replies it owes -- to the requests queued, the call
        in progress, a call relayed whose reply is still on the queue manager's socket --
        and ends; for HALF_CLOSE_GRACE seconds at most, after which the instance ends
        anyway (the conversations' tasks cancelled, their units of work backed out). No
        MQGET waits any more, as when the client's CONN_STATE wakes it: one waiting now, and
        one still queued, ends MQRC_NO_MSG_AVAILABLE rather than take a message that came
        meanwhile for a client that may be gone (the end of what a client sends is also
        what a client that closed its socket whole sends). Conversations ended by END_CONV
        whose tasks still answer what came before it are waited for alike."""
        owed = [*self.conversations.values(), *self.ending.values()]
        for cc in owed:
            cc.requests_ended()
            svrconn_wake.wake(cc)  # a get waiting now ends (MQRC_NO_MSG_AVAILABLE)
        with trio.move_on_after(HALF_CLOSE_GRACE):
            for cc in owed:
                await cc.done.wait()

    async def _serve_relayed(self, cc: ClientConversation) -> None:
        """Between calls of a conversation whose last call was relayed: wait on the queue
        manager's socket, and pass on the replies of the calls the receiver relays
        (``_start_relay``) as they come, until a request is queued for the task (the
        receiver cancels the wait: only while the task waits, so that a reply is never cut
        off half-way). One cancel scope serves the whole run: a scope a call costs about as
        much as the wake-up saved. Readable with no call relayed: the queue manager ended,
        and the connection is dropped (the next call fails 2009)."""
        if cc.last_read:  # nothing more will come to relay: its task ends
            cc.on_qm = False
            return
        backend = cc.backend
        with trio.CancelScope() as scope:
            while True:
                try:
                    cc.idle = scope
                    await backend.wait_readable()
                except (trio.ClosedResourceError, OSError):
                    cc.on_qm = False  # dropped meanwhile: calls go the task's way again
                    return
                finally:
                    cc.idle = None
                if scope.cancel_called or cc.relayed is None:
                    break  # woken for a request as the reply came: the reply is taken outside
                await self._finish_relay(cc)  # not cancelled: cc.idle is None meanwhile
                if cc.queued or not cc.on_qm:
                    return
        if scope.cancelled_caught or scope.cancel_called or cc.relayed is not None:
            return
        await backend.relayed_reply()  # readable, no call in progress: drops the connection
        cc.on_qm = False

    async def _finish_relay(self, cc: ClientConversation) -> None:
        """The task's half of a call ``_start_relay`` relayed: the reply, to the client."""
        assert cc.relayed is not None
        request, verb, data_length = cc.relayed
        segment: bytes | None = None
        try:
            try:
                reply = await cc.backend.relayed_reply(self._readdresser(request, verb))
            finally:
                cc.relayed = None
                self.busy -= 1
                self.last_call = time.monotonic()
                self.status.substate = "RECEIVE"
            assert reply is not None
            if type(reply) is tuple:  # the client's segment, made from the bytes as they came
                segment, comp = reply
                body_at = (TSH_LENGTH if request.conv_id is None else TSHM_LENGTH) \
                    + API_HEADER_LENGTH
                self._count_relayed(verb, data_length, comp,
                                    memoryview(segment)[body_at:] if verb == _T.MQGET else b"")
            else:
                out = self._relayed(request, verb, data_length, reply)
        except MQMIError:  # MQRC_CONNECTION_BROKEN
            cc.on_qm = False
            out = await self._relay_failed(request, verb)
        self.status.msgs += 1
        if segment is not None:
            await self._send_segment(segment)
        else:
            await self._reply(request, out)

    def _relayable(self, request: MQIRequest) -> bool:
        """Whether the client's ``request`` may be relayed as it came: it and what we write
        to the client are little-endian, as the queue manager's socket speaks (a
        big-endian client's calls are decoded, and answered big-endian, ``svrconn_order``)."""
        return request.byte_order == ByteOrder.LITTLE \
            and self.conv.writer.byte_order == ByteOrder.LITTLE

    def _readdresser(self, request: MQIRequest, verb: SegmentType
                     ) -> Callable[[bytes], tuple[bytes, int] | None] | None:
        """What makes the client's segment of a relayed reply straight from the queue
        manager's bytes (``wire.readdressed_mqi_reply``); None when our writer is not
        little-endian, as the queue manager's flows are."""
        writer = self.conv.writer
        if writer.byte_order != ByteOrder.LITTLE:
            return None
        reply_type, conv_id, request_id = REPLY_TYPES[verb], request.conv_id, request.request_id

        def readdress(data: bytes) -> tuple[bytes, int] | None:
            return readdressed_mqi_reply(data, reply_type, conv_id, request_id, writer.encoding,
                                         writer.ccsid, writer.flags2,
                                         writer.max_transmission_size)

        return readdress

    async def _relay_failed(self, request: MQIRequest, verb: SegmentType) -> MQIReply:
        """The queue manager ended a relayed call's connection: it is gone, or this body
        did not decode there (its codec is ours); a malformed flow ends the channel as it
        always has, else the call fails MQRC_CONNECTION_BROKEN."""
        try:
            mqiflows.decode_request(request, ByteOrder.LITTLE)
        except mqiparams.BadStructure:
            pass  # the call's own error, were the queue manager there: it is not
        except ProtocolError as exc:
            await self._malformed_call(verb, exc)
        return mqiflows.encode_reply(verb, comp=_FAILED, reason=CMQC.MQRC_CONNECTION_BROKEN)

    def _relayed(self, request: MQIRequest, verb: SegmentType, data_length: int | None,
                 reply: MQIReply) -> MQIReply:
        """A relayed call's reply for the client, counted in the channel status."""
        self._count_relayed(verb, data_length, reply.comp, reply.body)
        # ReplyLength is the flow's own length: the writer puts the client's (TSH or TSHM)
        return mqi_event(MQIReply, ControlFlags1.NONE, NO_LUW, request.conv_id,
                         request.request_id, reply.segment_type, reply.comp, reply.reason,
                         reply.hobj, reply.body, None)

    def _count_relayed(self, verb: SegmentType, data_length: int | None, comp: int,
                       body: bytes | memoryview) -> None:
        """A relayed call in the channel status: a put's bytes, a got message (``body``:
        the MQGET reply's)."""
        if comp != _FAILED:
            if verb == _T.MQPUT:
                self.status.bytes_received += data_length or 0
            elif verb == _T.MQGET and comp == _OK:
                self.status.message_moved(_got_data_length(body), sent=True, counted=False)


def _put_data_length(body: bytes) -> int | None:
    """An MQPUT body's message length when it is exactly MQMD, MQPMO (no records), length,
    data; else None."""
    md = mqiflows.size_at(body, 0, mqiflows.MD_SIZES)
    pmo = md and mqiflows.size_at(body, md, mqiflows.PMO_SIZES)
    if not pmo or md + pmo + 4 > len(body):
        return None
    (length,) = _LONG.unpack_from(body, md + pmo)
    return length if md + pmo + 4 + length == len(body) else None


def _without_wait(body: bytes) -> bytes:
    """A plain MQGET body (``_plain_get``) whose MQGMO waits, with its WaitInterval 0: the
    get does not wait."""
    gmo_at = mqiflows.size_at(body, 0, mqiflows.MD_SIZES)
    (options, interval) = _WAIT.unpack_from(body, gmo_at + _GMO_OPTIONS)
    if not options & CMQC.MQGMO_WAIT or interval == 0 or (
            interval < 0 and interval != CMQC.MQWI_UNLIMITED):
        return body  # no wait, or the call's own MQRC_WAIT_INTERVAL_ERROR
    at = gmo_at + _GMO_OPTIONS + 4
    return body[:at] + _LONG.pack(0) + body[at + 4:]


def _plain_get(body: bytes) -> bool:
    """Is an MQGET body exactly MQMD, MQGMO, buffer length?"""
    md = mqiflows.size_at(body, 0, mqiflows.MD_SIZES)
    gmo = md and mqiflows.size_at(body, md, mqiflows.GMO_SIZES)
    return bool(gmo) and md + gmo + 4 == len(body)


def _got_data_length(body: bytes) -> int:
    """The message length in an MQGET reply (MQMD, MQGMO, DataLength, length, data)."""
    md = mqiflows.size_at(body, 0, mqiflows.MD_SIZES)
    gmo = md and mqiflows.size_at(body, md, mqiflows.GMO_SIZES)
    if not gmo or md + gmo + 8 > len(body):
        return 0
    return int(_LONG.unpack_from(body, md + gmo + 4)[0])
