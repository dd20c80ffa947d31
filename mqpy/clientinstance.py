"""A client channel instance: one TCP connection to a SVRCONN, shared by conversations.

Owns the start of an instance (TCP connect, TLS and SSLPEER, the INITIAL_DATA exchange), the
conversations (Hconns) it carries when SHARECNV allows (TSHM ConvId and RequestId), who reads
its socket and who writes it, heartbeats and the receive timeout, and the pool of instances
with room for another conversation. docs/client.md says how the reading role moves.
"""

from __future__ import annotations

import itertools
import os
import queue
import select
import socket
import ssl
import struct
import threading
import time
from typing import Any

import attrs

from mqpy import CMQC, clientsockact
from mqpy.clientchannel import CONNECT_TIMEOUT, ChannelDefinition
from mqpy.errors import MQMIError
from mqpy.fap import asyncflows, sockact, tls, tshc
from mqpy.fap import channeldefs as D
from mqpy.fap.apiheader import (
    API_HEADER_LENGTH,
    API_TAIL,
    MQIReply,
    MQIRequest,
    build_mqi_request,
    mqi_event,
    parse_mqi_segment,
)
from mqpy.fap.controlflows import Heartbeat, Status
from mqpy.fap.framing import DEFAULT_MAX_TRANSMISSION_SIZE, SegmentReader, SegmentWriter
from mqpy.fap.initialdata import OUR_FAP_LEVEL, CapFlags1, InitialData
from mqpy.fap.negotiation import negotiate, reproposal
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import (
    STRUCTID_TSHM,
    TSH_LENGTH,
    TSHM_LENGTH,
    ByteOrder,
    ControlFlags1,
    Event,
    OtherSegment,
    SegmentType,
)
from mqpy.security.chlauth import dn_matches, valid_dn_pattern

__all__ = [
    "ChannelInstance",
    "Conversation",
    "InstanceLost",
    "conversation_on",
    "open_socket",
]

#: What a STATUS refusing the channel start means to the application (IBM's reasons).
_STATUS_REASONS = {
    StatusCode.NO_CHANNEL: CMQC.MQRC_UNKNOWN_CHANNEL_NAME,
    StatusCode.CHANNEL_WRONG_TYPE: CMQC.MQRC_CHANNEL_CONFIG_ERROR,
    StatusCode.CHANNEL_UNAVAILABLE: CMQC.MQRC_CHANNEL_NOT_AVAILABLE,
    StatusCode.QM_UNAVAILABLE: CMQC.MQRC_Q_MGR_NOT_AVAILABLE,
    StatusCode.QM_TERMINATING: CMQC.MQRC_Q_MGR_NOT_AVAILABLE,
    StatusCode.WRAP_VALUE_ERROR: CMQC.MQRC_CHANNEL_CONFIG_ERROR,
    StatusCode.CCSID_NOT_SUPPORTED: CMQC.MQRC_CHANNEL_CONFIG_ERROR,
    StatusCode.ENCODING_INVALID: CMQC.MQRC_CHANNEL_CONFIG_ERROR,
    StatusCode.FAP_LEVEL: CMQC.MQRC_CHANNEL_CONFIG_ERROR,
    StatusCode.NEGOTIATION_FAILED: CMQC.MQRC_CHANNEL_CONFIG_ERROR,
    StatusCode.SECURITY_FAILURE: CMQC.MQRC_NOT_AUTHORIZED,
    # the queue manager refused the TLS session for this channel (AMQ9631E, AMQ9636E ...)
    StatusCode.CIPHER_SPEC: CMQC.MQRC_SSL_INITIALIZATION_ERROR,
    StatusCode.SSL_CLIENT_CERTIFICATE: CMQC.MQRC_SSL_INITIALIZATION_ERROR,
    StatusCode.PEER_NAME: CMQC.MQRC_SSL_PEER_NAME_MISMATCH,
}


def _fail(reason: int) -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, reason)


class Conversation:
    """One Hconn's share of a socket: its ConvId and the queue its replies arrive on (an
    MQI reply, None when the socket is lost, or _TURN: the reading role is now its)."""

    def __init__(self, conv_id: int | None) -> None:
        self.conv_id = conv_id
        self.replies: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.request_ids = itertools.count(1)
        #: replies still to come to requests sent without waiting (asynchronous puts),
        #: dropped as they come, in order before the next call's (role_lock)
        self.unanswered = 0
        #: where read ahead's flows for it go (mqpy.readahead), and whether its thread waits
        #: for them (:meth:`ChannelInstance.pump`)
        self.streamed: Any = None
        self.pumping = False
        #: the queue manager ended it (END_CONV): its calls fail, the instance goes on
        self.ended = False
        #: called with the instance when the instance is lost (a connection that reconnects
        #: starts reconnecting then: ``mqpy.client``)
        self.on_lost: Any = None
        #: called with the instance and whether the queue manager asks its clients to
        #: reconnect (RECONNECT_CLIENTS) when it says it quiesces (``mqpy.client``)
        self.on_quiescing: Any = None


_TURN = object()  #: put in a waiting conversation's queue: it now reads the socket
#: put in a pumping conversation's queue: read ahead's answer it waits for is in
_STREAMED = object()
_STREAM_FLOWS = (SegmentType.ASYNC_MESSAGE, SegmentType.NOTIFICATION)

_LITTLE = ByteOrder.LITTLE
_LITTLE_BYTE = int(ByteOrder.LITTLE)
_FIRST_LAST = int(ControlFlags1.FIRST | ControlFlags1.LAST)
_REPLY_MIN = TSHM_LENGTH + API_HEADER_LENGTH
_LITTLE_API_TAIL = API_TAIL[ByteOrder.LITTLE].unpack_from
#: a TSHM's StrucId, length, ConvId, (RequestId,) byte order, segment type and flags
_REPLY_HEAD = struct.Struct(">4sII4xBBB").unpack_from
_NO_FLAGS = ControlFlags1.NONE
_NO_LUW = bytes(8)


class ChannelInstance:
    """One channel instance: the TCP connection, its negotiated values, who reads it."""

    def __init__(self, sock: socket.socket, definition: ChannelDefinition, agreed: Any,
                 reader: SegmentReader) -> None:
        self.sock = sock
        self.definition = definition
        self.key = pool_key(definition, sock.getpeername())
        self.hbint = agreed.heartbeat_interval
        self.sharing = agreed.conv_per_socket
        self.fap_level = getattr(agreed, "fap_level", 0)  # (a test's may have none)
        self.max_msg_size = agreed.max_msg_size or definition.max_msg_length
        self.reader = reader
        self.reader.max_transmission_size = agreed.max_transmission_size
        self.reader.max_msg_size = self.max_msg_size
        self.reader.max_pending = None  # (a flow may span segments, within max_msg_size)
        self.writer = SegmentWriter(agreed.max_transmission_size)
        self.send_lock = threading.Lock()  # a TLS socket's: its reads and writes take turns
        # a plain socket's writes: flows queued in ``outbox``, written by whichever thread
        # is ``writing`` (``_write``), with no lock held across the system call
        self.outbox: list[bytes] = []
        self.writing = False
        self.outbox_lock = threading.Lock()
        self.state_lock = threading.Lock()
        self.conversations: dict[int | None, Conversation] = {}
        self._conv_ids = itertools.count(1)
        #: the queue manager takes END_CONV (``sockact.takes_end_conv``: set at the start)
        self.ends_conversations = False
        self.broken = False
        self.closing = False
        #: the queue manager said it ends (a STATUS of QM_TERMINATING, or a SOCKET_ACTION
        #: QM_QUIESCE / STOP_QUIESCE): a reconnectable client does not reconnect after it,
        #: as after a plain endmqm (``mqpy.client``); RECONNECT_CLIENTS (endmqm -r) clears it
        self.qmgr_ending = False
        #: the queue manager said it quiesces or asked its clients to reconnect: no new
        #: conversation joins the instance
        self.quiescing = False
        #: the queue manager's QMID, as its INITIAL_DATA said (FAP level 9 on; "": none)
        self.qmid = ""
        self.last_received = time.monotonic()
        self.last_probe = 0.0  # our last heartbeat asking for an answer
        # the reading role: ``reading`` while some thread has it; ``waiters`` are the
        # conversations whose call waits for a reply the reader will hand them
        self.role_lock = threading.Lock()
        self.reading = False
        self.in_calls = 0
        self.waiters: dict[int | None, Conversation] = {}
        self.ended = threading.Event()  # closed or lost: the background thread stops
        # a plain socket is read by a blocking recv that the kernel cuts short after a
        # tick (SO_RCVTIMEO: receives only, so other threads' sendall still block); a TLS
        # socket is waited for by select, as it may hold decrypted bytes select cannot see
        self.plain = not isinstance(sock, ssl.SSLSocket) and _receive_timeout(sock, self._tick())
        self.thread = threading.Thread(target=self._background, daemon=True,
                                       name=f"mqpy-client-{definition.channel}")

    @property
    def tshm(self) -> bool:
        return self.sharing > 0

    def has_room(self) -> bool:
        limit = max(self.sharing, 1)
        return not self.broken and not self.closing and not self.quiescing \
            and len(self.conversations) < limit

    def peer_closed(self) -> bool:
        """Whether the instance is lost or its partner has closed the socket (an end of
        stream waiting to be read), seen without reading: a reconnectable connection's
        call looks before it sends, so that a request is not sent into a socket already
        closed and taken as in flight (``mqpy.client``). A TLS socket is not looked at."""
        if self.broken:
            return True
        if not self.plain:
            return False
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
            if not readable:
                return False
            if self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                return True
        except BlockingIOError:
            return False
        except (OSError, ValueError):
            return True
        return self._read_waiting()

    def _read_waiting(self) -> bool:
        """Flows of the queue manager waiting to be read between calls (the background
        thread waits a tick after a call), read now: a request written into a socket the
        queue manager has closed makes the peer's reset, which drops what it had sent
        before it closed -- its notice that it ends (a SOCKET_ACTION QM_QUIESCE, a STATUS
        QM_TERMINATING), which a reconnectable connection must see. Whether the instance
        is lost or closed by its partner after them."""
        with self.role_lock:
            if self.reading or self.in_calls or self.broken:
                return self.broken  # (another thread reads it)
            self.reading = True
        try:
            for event in self._read():
                self._on_event(event)
            return self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except (OSError, ValueError, ProtocolError, InstanceLost):
            self._lost()
            return True
        finally:
            self._pass_role()

    def open_conversation(self) -> Conversation:
        with self.state_lock:
            conv = Conversation(next(self._conv_ids) if self.tshm else None)
            self.conversations[conv.conv_id] = conv
            return conv

    def end_conversation(self, conv: Conversation) -> bool:
        """Forget ``conv``; True when it was the last one (the socket should close)."""
        with self.state_lock:
            self.conversations.pop(conv.conv_id, None)
            if not self.conversations:
                self.closing = True
                return True
            return False

    def end_conv(self, conv: Conversation, last: bool) -> None:
        """After ``conv``'s MQDISC (``clientsockact.end_conv``)."""
        clientsockact.end_conv(self, conv, last)

    def send(self, event: Event) -> None:
        data = self.writer.send(event)
        if event.conv_id is None and self.tshm:  # the instance's own flow (a heartbeat)
            data = tshc.connection_level(data)
        self._write(data)

    def frame(self, verb: SegmentType, body: bytes, hobj: int, conv_id: int | None,
              request_id: int | None) -> bytes:
        """The bytes of the MQI request ``verb`` with ``body`` (mqiflows.request_body):
        ``writer.send`` of its event (mqiflows.encode_request's), made here without the
        event when it fits one segment."""
        writer = self.writer
        total = (TSH_LENGTH if conv_id is None else TSHM_LENGTH) + API_HEADER_LENGTH + len(body)
        if total <= writer.max_transmission_size and writer.byte_order == _LITTLE:
            try:
                return build_mqi_request(verb, hobj, (body,), conv_id=conv_id,
                                         request_id=request_id, encoding=writer.encoding,
                                         ccsid=writer.ccsid, flags2=writer.flags2)
            except (struct.error, OverflowError):
                pass  # a value out of range: the event says what is wrong
        return writer.send(mqi_event(MQIRequest, _NO_FLAGS, _NO_LUW, conv_id, request_id,
                                     verb, 0, 0, hobj, body, None))

    def _write(self, data: bytes) -> None:
        """``data`` whole on the socket, one thread's flows at a time (never interleaved).

        On a plain socket no lock is held while the bytes go: a thread that finds another
        writing leaves its flow in ``outbox`` for that one to write after its own (in the
        order they came; several in one system call), and returns. Holding a lock across
        ``sendall``, which lets go of the interpreter lock, made the other conversations'
        threads of a shared instance queue on it for every call, each a sleep and a wake-up
        (the 16-client benchmark sharing two instances: 96 -> 84 us of client CPU a round
        trip). A failed write is the writer's: its call fails and the socket is lost, which
        fails every conversation's call (2009), those whose flows were waiting too."""
        if not self.plain:  # TLS: OpenSSL wants reads and writes of a session in turn
            with self.send_lock:
                self.sock.sendall(data)
            return
        lock, outbox = self.outbox_lock, self.outbox
        with lock:
            if self.writing:
                outbox.append(data)
                return
            self.writing = True
        try:
            while True:
                self.sock.sendall(data)
                with lock:
                    if not outbox:
                        self.writing = False
                        return
                    data = outbox[0] if len(outbox) == 1 else b"".join(outbox)
                    outbox.clear()
        except BaseException:
            with lock:
                self.writing = False
            raise

    def close(self) -> None:
        self.closing = True
        self.ended.set()
        _unpool(self)
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def _lost(self) -> None:
        with self.state_lock:
            self.broken = True
            waiting = list(self.conversations.values())
        self.ended.set()
        _unpool(self)
        for conv in waiting:
            conv.replies.put(None)
        try:
            self.sock.close()
        except OSError:
            pass
        for conv in waiting:
            if conv.on_lost is not None:
                conv.on_lost(self)

    # -- reading: the role, the background thread ---------------------------------------

    def _tick(self) -> float | None:
        if self.hbint <= 0:
            return None
        return max(0.2, min(self.hbint / 2, 5.0))

    def call(self, conv: Conversation, data: bytes) -> MQIReply:
        """Send ``data`` (a request of ``conv``: :meth:`frame`) and return its reply. When
        nobody else reads the socket (one conversation, or the others between calls) this
        thread takes the
        reading role, sends, and reads until its reply is in: a sendall and a blocking
        recv, no hand-over. Otherwise the reader hands it the reply, or the role. InstanceLost
        when the socket is lost (or ProtocolError / OSError / ValueError using it: lost
        too)."""
        return self._call(conv, data, None)  # type: ignore[return-value]

    def _call(self, conv: Conversation, data: bytes, reply_type: int | None) -> Any:
        leader = reading = self._join(conv)
        try:
            self._write(data)
            if not leader:
                item = self._wait_turn(conv)
                if item is not _TURN:
                    return item
                reading = True
            if reply_type is None or conv.unanswered:
                return self._read_own(conv.conv_id)
            got = self._receive()
            if got is not None:
                flow = self._one_reply(got, conv.conv_id, reply_type)
                if flow is not None:
                    return flow
            return self._read_own(conv.conv_id, got)
        except ConversationEnded:
            raise
        except (OSError, ValueError, ProtocolError, InstanceLost):
            self._lost()
            raise
        finally:
            self._leave(conv, reading, leader)

    #: (conv, data, reply_type): :meth:`call`, whose reply, when this thread read it alone as
    #: one whole little-endian segment of type ``reply_type`` (the common case), is given as
    #: its fields (segment type, CompCode, Reason, Hobj, body) without an event: the packed
    #: calls' (``mqpy.clientcalls``); otherwise as :meth:`call`, an event. (``_call`` itself:
    #: one frame fewer a call.)
    exchange = _call

    def _join(self, conv: Conversation, pumping: bool = False) -> bool:
        """A call (or a pump) of ``conv`` begins: True when it takes the reading role (nobody
        reads the socket), else False, registered before its request goes so that the
        reader hands it its reply (or the role) however soon it comes."""
        with self.role_lock:
            if self.broken:
                raise InstanceLost()
            if conv.ended:
                raise ConversationEnded()
            self.in_calls += 1
            if not self.reading:
                self.reading = True
                return True
            self.waiters[conv.conv_id] = conv
            conv.pumping = pumping
            return False

    @staticmethod
    def _wait_turn(conv: Conversation) -> Any:
        """What the reader hands a registered ``conv``: its reply, _STREAMED or _TURN (the
        reading role); InstanceLost when the socket was lost."""
        item = conv.replies.get()
        if item is None:
            raise ConversationEnded() if conv.ended else InstanceLost()
        return item

    def _leave(self, conv: Conversation, reading: bool, leader: bool) -> None:
        """The call (or pump) of ``conv`` is over: the role passes on if it had it, else it
        is no longer waiting."""
        with self.role_lock:
            conv.pumping = False
            self.in_calls -= 1
            if reading:
                self._pass_role_locked()
            elif not leader:
                self.waiters.pop(conv.conv_id, None)

    def _one_reply(self, data: bytes, conv_id: int | None, reply_type: int) -> Any:
        """(segment type, CompCode, Reason, Hobj, body) of ``data`` when it is exactly one
        whole one-segment little-endian MQI reply of ``reply_type`` with a TSHM of
        conversation ``conv_id``, nothing buffered before it, from a partner already known to
        be little-endian -- the fields the reader's event would have -- or None for
        anything else, which ``_read_own`` takes (tests/client/test_packed_calls.py holds
        the two alike)."""
        reader = self.reader
        if (conv_id is None or type(data) is not bytes or len(data) < _REPLY_MIN
                or reader.buffered or reader.reassembling
                or reader.partner_byte_order is not _LITTLE):
            return None
        struc, length, cid, order, segment_type, flags1 = _REPLY_HEAD(data)
        if (struc != STRUCTID_TSHM or length != len(data)
                or length > reader.max_transmission_size or cid != conv_id
                or order != _LITTLE_BYTE or segment_type != reply_type
                or flags1 & _FIRST_LAST != _FIRST_LAST):
            return None
        comp, reason, hobj = _LITTLE_API_TAIL(data, TSHM_LENGTH + 4)
        return reply_type, comp, reason, hobj, data[_REPLY_MIN:]

    def send_only(self, conv: Conversation, data: bytes) -> None:
        """Send ``data`` (a request of ``conv``) without waiting for its reply (an
        asynchronous put): the reply is dropped when it comes (``Conversation.unanswered``).
        InstanceLost (or OSError) when the socket is lost."""
        with self.role_lock:
            if self.broken:
                raise InstanceLost()
            conv.unanswered += 1
        try:
            self._write(data)
        except (OSError, ValueError):
            self._lost()
            raise

    def _unanswered(self, conv: Conversation | None) -> bool:
        """A reply to ``conv`` just read: True (and one fewer to come) when it answers a
        request sent without waiting (:meth:`send_only`), to be dropped."""
        if conv is None or not conv.unanswered:
            return False
        with self.role_lock:
            conv.unanswered -= 1
        return True

    def pump(self, conv: Conversation) -> None:
        """Wait until read ahead's flows have come for ``conv`` (or one read of the socket
        has been made by this thread): as :meth:`call` without a request, reading the
        socket itself when nobody else does, else woken by the reader."""
        leader = reading = self._join(conv, pumping=True)
        try:
            if not leader:
                if self._wait_turn(conv) is not _TURN:
                    return  # its flows came (_on_event)
                reading = True
            for event in self._read():
                self._on_event(event)
        except ConversationEnded:
            raise
        except (OSError, ValueError, ProtocolError, InstanceLost):
            self._lost()
            raise
        finally:
            self._leave(conv, reading, leader)

    def _streamed(self, event: Any) -> None:
        """Read ahead's flow to its conversation's buffer; its answer's end wakes the
        conversation if it waits for it (:meth:`pump`)."""
        key = event.conv_id if self.tshm else None
        conv = self.conversations.get(key)
        if conv is None or conv.streamed is None:
            return  # its conversation has gone: the messages are lost
        order = event.byte_order
        if order != _LITTLE:  # a big-endian queue manager's
            event = attrs.evolve(event, body=asyncflows.reordered(
                event.segment_type, event.body, order, _LITTLE))
        conv.streamed(event)
        if event.segment_type == SegmentType.NOTIFICATION:
            with self.role_lock:
                if conv.pumping and self.waiters.pop(key, None) is not None:
                    conv.replies.put(_STREAMED)

    def _read_own(self, conv_id: int | None, data: bytes | None = None) -> MQIReply:
        """Read the socket (this thread has the reading role) until the reply of
        conversation ``conv_id`` is in (``data``: bytes already read); others' replies,
        heartbeats and a STATUS are seen to on the way."""
        tshm = self.tshm
        conv = self.conversations.get(conv_id)
        while True:
            if data is None:
                data = self._receive()
                if data is None:
                    continue
            own = self._sole_reply(data, conv_id)
            if own is not None:  # the common case: just our reply
                data = None
                if self._unanswered(conv):
                    continue  # an asynchronous put's, before ours
                return own
            events, data = self.reader.feed(data), None
            for event in events:
                if own is None and isinstance(event, MQIReply) and \
                        (event.conv_id if tshm else None) == conv_id:
                    if not self._unanswered(conv):
                        own = event
                    continue
                try:
                    self._on_event(event)  # others' replies, heartbeats, a STATUS
                except InstanceLost:
                    if own is None:
                        raise
                    self._lost()  # the channel ended just after answering us
            if own is not None:
                return own
            if conv is not None and conv.ended:
                raise ConversationEnded()

    def _sole_reply(self, data: bytes, conv_id: int | None) -> MQIReply | None:
        """``data`` as the reader takes it when it is exactly one whole one-segment MQI
        reply to conversation ``conv_id`` (nothing buffered before it): its event, read by
        the reader's own one-segment parser without the rest of ``feed``; None for anything
        else, which ``feed`` takes (tests/client/test_framing_fast.py holds the two to the
        same events)."""
        reader = self.reader
        if conv_id is None or type(data) is not bytes or reader.buffered \
                or reader.reassembling:
            return None
        flow = parse_mqi_segment(data, 0, reader.max_transmission_size)
        if flow is None:
            return None
        event, length, byte_order, encoding, ccsid = flow
        if length != len(data) or type(event) is not MQIReply or event.conv_id != conv_id:
            return None
        reader.partner_byte_order = byte_order
        reader.partner_encoding = encoding
        reader.partner_ccsid = ccsid
        return event

    def _pass_role(self) -> None:
        """Give the reading role to a conversation still waiting for its reply, if any."""
        with self.role_lock:
            self._pass_role_locked()

    def _pass_role_locked(self) -> None:
        if self.waiters and not self.broken:
            _, conv = self.waiters.popitem()
            conv.replies.put(_TURN)
        else:
            self.reading = False

    def _read(self) -> list[Event]:
        """One read of the socket (after up to a tick of waiting): its events, maybe none."""
        data = self._receive()
        return [] if data is None else self.reader.feed(data)

    def _receive(self) -> bytes | None:
        """One read of the socket (after up to a tick of waiting): the bytes, or None when a
        tick passed without any. Heartbeats and the receive timeout are seen to when a tick
        passes without a byte (after bytes they are not due: nothing is, for HBINT)."""
        sock = self.sock
        if self.plain:
            try:
                data = sock.recv(1 << 16)  # a tick at most: SO_RCVTIMEO
            except BlockingIOError:
                self._heartbeat_due()
                return None
        else:
            # select, not a socket timeout: a timeout would also cut short other threads'
            # sendall; a TLS socket may hold decrypted bytes select cannot see
            if not (isinstance(sock, ssl.SSLSocket) and sock.pending()):
                readable, _, _ = select.select([sock], [], [], self._tick())
                if not readable:
                    self._heartbeat_due()
                    return None
            data = self._recv()
        if not data:
            raise InstanceLost()
        self.last_received = time.monotonic()
        return data

    def _background(self) -> None:
        """While no call is in progress the socket is read here, as by a receiver thread
        (heartbeats, the receive timeout, a STATUS that ends the channel); while calls are in
        progress their threads read it. If a call started while this thread was reading, it
        waits a tick before it takes the role again, so that a run of calls keeps reading for
        itself; otherwise it reads on at once, so that a heartbeat is answered at once (with
        HBINT(1) the partner's receive timeout is 2 s, and a tick's pause after every read
        made a loaded machine miss it)."""
        tick = self._tick() or 1.0
        try:
            while not self.ended.is_set():
                with self.role_lock:
                    take = not self.reading and not self.in_calls and not self.broken
                    if take:
                        self.reading = True
                if not take:
                    self.ended.wait(tick)
                    continue
                events: list[Event] = []
                try:
                    events = self._read()
                    for event in events:
                        self._on_event(event)
                except (OSError, ValueError, ProtocolError, InstanceLost):
                    if not self.closing or self.conversations:
                        self._lost()  # before the role passes: nobody reads a lost socket
                    raise
                finally:
                    self._pass_role()
                if events and self.in_calls:
                    self.ended.wait(tick)
        except (OSError, ValueError, ProtocolError, InstanceLost):
            pass
        finally:
            if not self.closing or self.conversations:
                self._lost()

    def _recv(self) -> bytes:
        if not isinstance(self.sock, ssl.SSLSocket):
            return self.sock.recv(1 << 16)
        # one TLS session, two threads: reads and writes take turns (OpenSSL's rule)
        with self.send_lock:
            return self.sock.recv(1 << 16)

    def _heartbeat_due(self) -> None:
        now = time.monotonic()
        timeout = D.receive_timeout(self.hbint)
        if timeout is not None and now - self.last_received > timeout:
            raise InstanceLost()
        # a probe once nothing has been heard for HBINT (what we sent does not count), so
        # that the partner has HBINT to answer before our receive timeout
        if now - max(self.last_received, self.last_probe) >= self.hbint:
            self.last_probe = now
            self.send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST, **self._control()))

    def _control(self) -> dict[str, int]:
        """The ids of the instance's own flows: none (a TSH, or a TSHC on an instance that
        shares conversations: ``send``)."""
        return {}

    def _on_event(self, event: Event) -> None:
        if type(event) is OtherSegment and event.segment_type in _STREAM_FLOWS:
            self._streamed(event)
            return
        if isinstance(event, MQIReply):
            key = event.conv_id if self.tshm else None
            conv = self.conversations.get(key)
            if self._unanswered(conv):
                return  # the reply of an asynchronous put
            if conv is not None:
                with self.role_lock:  # with the lock: await_reply looks before it waits
                    self.waiters.pop(key, None)  # it has its reply: the role is not for it
                    conv.replies.put(event)
            return
        if isinstance(event, Heartbeat):
            if event.flags & ControlFlags1.CONFIRM_REQUEST:
                self.send(Heartbeat(**self._control()))
            return
        if isinstance(event, Status):
            if event.code == StatusCode.QM_TERMINATING:
                self.qmgr_ending = True
            raise InstanceLost()  # the queue manager ended the channel (DISCINT, an error, a stop)
        if type(event) is OtherSegment and event.segment_type == SegmentType.SOCKET_ACTION:
            self._note_ending(event)
            clientsockact.on_socket_action(self, event)


    def _note_ending(self, event: OtherSegment) -> None:
        """A SOCKET_ACTION saying the queue manager quiesces (a plain endmqm: reconnectable
        clients do not reconnect) or asking its clients to reconnect (endmqm -r), as a
        controlled end begins or as the queue manager ends: each conversation is told
        (``Conversation.on_quiescing``)."""
        try:
            kind = sockact.parse(event.body, event.byte_order == _LITTLE).type
        except ProtocolError:
            return  # (clientsockact's to answer)
        reconnect = kind == sockact.SocketActionType.RECONNECT_CLIENTS
        if kind in _QUIESCING:
            self.qmgr_ending = True
        elif reconnect:
            self.qmgr_ending = False
        else:
            return
        self.quiescing = True
        with self.state_lock:
            told = list(self.conversations.values())
        for conv in told:
            if conv.on_quiescing is not None:
                conv.on_quiescing(self, reconnect)


_QUIESCING = (sockact.SocketActionType.QM_QUIESCE, sockact.SocketActionType.STOP_QUIESCE)


class InstanceLost(Exception):  # noqa: N818 - an internal signal, not an error for callers
    """The channel instance is over: every conversation on it is broken."""


class ConversationEnded(InstanceLost):
    """The queue manager ended one conversation (END_CONV): its calls fail as broken, the
    instance's other conversations go on."""


_pool: dict[tuple[Any, ...], list[ChannelInstance]] = {}
_pool_lock = threading.Lock()


def pool_key(definition: ChannelDefinition, peer: Any) -> tuple[Any, ...]:
    return (definition.channel, peer[0], peer[1], definition.heartbeat_interval,
            definition.sharing_conversations, definition.max_msg_length,
            definition.ssl_cipher_spec, definition.ssl_peer_name, definition.key_repository)


def _unpool(sock: ChannelInstance) -> None:
    with _pool_lock:
        shared = _pool.get(sock.key)
        if shared is not None and sock in shared:
            shared.remove(sock)


def _receive_timeout(sock: socket.socket, tick: float | None) -> bool:
    """Make a blocking ``recv`` of ``sock`` give up after ``tick`` seconds (SO_RCVTIMEO;
    None: never), so that the reader sees to heartbeats between bytes; False when the
    system does not take it (the reader then waits in select)."""
    seconds = 0.0 if tick is None else tick
    timeval = struct.pack("@ll", int(seconds), int(seconds % 1 * 1_000_000))
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
    except (OSError, struct.error):
        return False
    return True


def _our_id(definition: ChannelDefinition, qmgr: str) -> InitialData:
    return InitialData(
        fap_level=OUR_FAP_LEVEL, channel_name=definition.channel, qmgr_name=qmgr[:48],
        max_msg_batch=1, max_transmission_size=DEFAULT_MAX_TRANSMISSION_SIZE,
        max_msg_size=definition.max_msg_length,
        heartbeat_interval=max(definition.heartbeat_interval, 0),
        conv_per_socket=max(definition.sharing_conversations, 0),
        cap_flags1=CapFlags1.SPLIT_MESSAGE | CapFlags1.MQREQUEST | CapFlags1.RUNTIME,
        process_id=os.getpid() & 0xFFFFFFFF, thread_id=threading.get_ident() & 0xFFFFFFFF,
        product_id="MQPY0100")


def _recv_event(sock: socket.socket, reader: SegmentReader, pending: list[Event]) -> Event:
    while not pending:
        data = sock.recv(1 << 16)
        if not data:
            raise EOFError("the channel closed during its start")
        pending.extend(reader.feed(data))
    return pending.pop(0)


def open_socket(host: str, port: int, definition: ChannelDefinition, qmgr: str) -> ChannelInstance:
    """TCP connect and the INITIAL_DATA exchange: a running channel instance, or MQMIError."""
    try:
        sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
    except OSError:
        raise _fail(CMQC.MQRC_HOST_NOT_AVAILABLE) from None
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if definition.ssl_cipher_spec:
        sock = _start_tls(sock, definition)
    reader = SegmentReader.before_negotiation()  # (the server's ID: one small segment)
    writer = SegmentWriter(DEFAULT_MAX_TRANSMISSION_SIZE)
    pending: list[Event] = []
    ours = _our_id(definition, qmgr)
    try:
        for _ in range(4):
            sock.sendall(writer.send(ours))
            ev = _recv_event(sock, reader, pending)
            if isinstance(ev, Status):
                code = ev.code if isinstance(ev.code, StatusCode) else None
                raise _fail(_STATUS_REASONS.get(code, CMQC.MQRC_CONNECTION_BROKEN))
            if not isinstance(ev, InitialData):
                raise _fail(CMQC.MQRC_CONNECTION_BROKEN)
            if ev.init_error_flags1:
                nxt = reproposal(ours, ev)
                if nxt is None:
                    raise _fail(CMQC.MQRC_CHANNEL_CONFIG_ERROR)
                ours = nxt
                continue
            n = negotiate(ours, ev)
            if n.agreed is None:
                raise _fail(CMQC.MQRC_CHANNEL_CONFIG_ERROR)
            sock.settimeout(None)
            instance = ChannelInstance(sock, definition, n.agreed, reader)
            instance.ends_conversations = sockact.takes_end_conv(ev.product_id)
            instance.qmid = (ev.mqm_id or "").strip()
            instance.thread.start()
            return instance
        raise _fail(CMQC.MQRC_CHANNEL_CONFIG_ERROR)
    except MQMIError:
        sock.close()
        raise
    except (EOFError, ConnectionError):
        # closed (or reset) before the channel started (a listener's BLOCKADDR, say)
        sock.close()
        raise _fail(CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
    except (OSError, ProtocolError):
        sock.close()
        raise _fail(CMQC.MQRC_CONNECTION_BROKEN) from None


def _start_tls(sock: socket.socket, definition: ChannelDefinition) -> socket.socket:
    """The TLS handshake of an SSLCIPH channel, then the SSLPEER check (IBM's reasons:
    2393 unknown CipherSpec or failed handshake, 2381 unusable key repository, 2398 the
    queue manager's DN does not match SSLPeerName)."""
    try:
        ctx = tls.client_context(definition.key_repository, definition.ssl_cipher_spec)
    except KeyError:
        sock.close()
        raise _fail(CMQC.MQRC_SSL_INITIALIZATION_ERROR) from None
    except tls.KeyRepositoryError:
        sock.close()
        raise _fail(CMQC.MQRC_KEY_REPOSITORY_ERROR) from None
    try:
        tsock = ctx.wrap_socket(sock)
    except (ssl.SSLError, OSError):
        sock.close()
        raise _fail(CMQC.MQRC_SSL_INITIALIZATION_ERROR) from None
    if definition.ssl_peer_name:
        if not valid_dn_pattern(definition.ssl_peer_name):
            tsock.close()
            raise _fail(CMQC.MQRC_SSL_PEER_NAME_ERROR)
        dn = tls.peer_dn(tsock.getpeercert())
        if dn is None or not dn_matches(definition.ssl_peer_name, dn):
            tsock.close()
            raise _fail(CMQC.MQRC_SSL_PEER_NAME_MISMATCH)
    return tsock


def conversation_on(definition: ChannelDefinition, qmgr: str) -> tuple[ChannelInstance, Conversation]:
    """A conversation on a shared instance with room, else on a new one (SHARECNV)."""
    last: MQMIError | None = None
    for host, port in definition.connections:
        with _pool_lock:
            candidates = list(_pool.get(pool_key(definition, (host, port)), []))
        for candidate in candidates:
            # (one its queue manager closed is not joined: what it said before is read)
            if candidate.has_room() and not candidate.peer_closed():
                with _pool_lock:
                    if candidate.has_room():
                        return candidate, candidate.open_conversation()
        try:
            instance = open_socket(host, port, definition, qmgr)
        except MQMIError as e:
            last = e
            if e.reason not in (CMQC.MQRC_HOST_NOT_AVAILABLE, CMQC.MQRC_CONNECTION_BROKEN,
                                CMQC.MQRC_CHANNEL_NOT_AVAILABLE,
                                CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
                raise
            continue
        conv = instance.open_conversation()
        if instance.tshm and instance.sharing > 1:
            with _pool_lock:
                _pool.setdefault(pool_key(definition, (host, port)), []).append(instance)
        return instance, conv
    assert last is not None
    raise last
