"""A channel's conversation: events over one TCP (or TLS) stream, with its status counters.

The message channel agents and the SVRCONN use it; ``framing.py`` cuts and joins the
segments, this module only moves them and counts buffers.

On a plain TCP stream the conversation drives the stream's non-blocking socket itself, as
the queue manager's bindings server does (``mqpy.loopcalls.send_all``): a send goes straight
to the socket and waits only when its buffer is full, a receive waits until the socket is
readable and then reads, and no cancel scope is opened for a receive without a timeout.
trio's streams make a trip through the scheduler per send and, per receive, a read that
fails before the wait. The stream still owns the socket (closing, addresses, keepalive) and
the errors are those its methods raise (``_translated``). A TLS stream keeps the stream path.
In the daemon's client host a SVRCONN's receiver does not wait on its plain socket itself:
:meth:`Conversation.take` parks it with the host's poller (``clientpoll``), which reads the
socket, serves what the receiver would serve at once, and leaves it the rest.

An inbound conversation (:meth:`Conversation.inbound`) starts with the reader's limits before
negotiation (one segment of an ID's size, no split flow); once INITIAL_DATA is agreed its
flows may reach the agreed sizes, but until the channel is admitted (:meth:`authenticated`)
all its unfinished flows together hold at most ``unauth_bytes``.
"""

from __future__ import annotations

import collections
import errno
import time
from collections.abc import Callable
from typing import Any

import attrs
import trio

from mqpy import loopcalls
from mqpy.fap import tshc
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import ControlFlags1, Event
from mqpy.trace import TRACER
from mqpy_chinit.states import ChannelStatus
from mqpy_chinit.tlsstream import Prefixed

MAX_TRANSMISSION_SIZE = 32766
#: One read takes whatever the partner has sent, up to this (as trio's streams would).
RECEIVE_SIZE = 65536
_INF = float("inf")
#: Of the events taken one after another from what was already read, every this many
#: yields to the other tasks; the others are only cancellation points.
PENDING_YIELD = 16


@attrs.define
class ChannelEnded(Exception):  # noqa: N818 - it is an event, named as MQ names it
    """The channel instance ended abnormally: what to log, and whether a retry may help."""

    msgid: str
    text: str
    retry: bool = True  # False: the channel goes to STOPPED (operator action needed)
    status_code: StatusCode | None = None  # what the partner was, or is to be, told

    def __str__(self) -> str:
        return f"{self.msgid}: {self.text}"


@attrs.frozen
class Tail:
    """Segments a plain socket did not take whole at once (``Conversation.send_at_once``)."""

    rest: memoryview  #: the bytes still to write
    buffers: int  #: the transmissions they end
    events: tuple[Event, ...]  #: what the trace names them
    size: int  #: the bytes of all of them


class Conversation:
    """Events over one TCP stream, with the status counters of the channel it carries."""

    def __init__(self, stream: trio.abc.Stream, status: ChannelStatus,
                 max_transmission_size: int = MAX_TRANSMISSION_SIZE) -> None:
        self.stream = stream
        # what this conversation sent and received: bytes, transmissions (TSH segments)
        self._out = [0, 0]
        self._in = [0, 0]
        self._status = status
        #: until ``agreed``: the partner's INITIAL_DATA, one small segment, is all it may send
        self.reader = SegmentReader.before_negotiation()
        #: before the channel is admitted: the most bytes its unfinished flows may hold
        #: (None: admitted, or a conversation we started)
        self.unauth_bytes: int | None = None
        #: called once when the channel is admitted (the listener's count, its deadline)
        self.on_authenticated: Callable[[], None] | None = None
        self.writer = SegmentWriter(max_transmission_size)
        self.pending: collections.deque[Event] = collections.deque()
        self.last_received = time.monotonic()
        #: the plain stream's socket, driven here; None: the stream's own methods (TLS)
        self.sock, self.trio_socket = _plain_socket(stream)
        self._sending = False  # a send waiting for room (trio's streams refuse a second)
        self._taken = 0  # events taken from ``pending`` without a read (see recv)
        self._in_a_row = 0  # eager reads that found something, one after another
        #: what ``arrived`` found on the socket (bytes, b"" for its end, or the error), or
        #: the protocol error ``received_more`` found in what it read, for the next receive
        self._early: bytes | OSError | ProtocolError | None = None
        #: the channel's send and receive exits (``channelexit.Transmissions``), if any
        self.exits: Any = None
        #: where :meth:`take` parks instead of waiting on the socket itself (the client
        #: host's poller: ``mqpy_chinit.clientpoll.Polled``), or None
        self.polled: Any = None
        #: the instance's own flows (heartbeats, a refusal's STATUS) go in a TSHC: a SVRCONN
        #: instance that shares conversations (``mqpy.fap.tshc``); else in a TSH
        self.control_tshc = False

    @property
    def status(self) -> ChannelStatus:
        """The status of the channel this conversation carries (its counters)."""
        return self._status

    @status.setter
    def status(self, status: ChannelStatus) -> None:
        """The channel is known now (a receiver once its INITIAL_DATA names it): its status
        takes over the counts of what crossed before (BYTSSENT ... BUFSRCVD count every
        byte and transmission of the channel instance, its start included)."""
        if status is not self._status:
            status.net_bytes_sent += self._out[0]
            status.buffers_sent += self._out[1]
            status.net_bytes_received += self._in[0]
            status.buffers_received += self._in[1]
            self._status = status

    def _sent(self, nbytes: int, buffers: int) -> None:
        """``nbytes`` in ``buffers`` transmissions went to the partner."""
        out, status = self._out, self._status
        out[0] += nbytes
        out[1] += buffers
        status.net_bytes_sent += nbytes
        status.buffers_sent += buffers

    def _received(self, nbytes: int, buffers: int) -> None:
        """``nbytes`` came from the partner, completing ``buffers`` transmissions."""
        into, status = self._in, self._status
        into[0] += nbytes
        into[1] += buffers
        status.net_bytes_received += nbytes
        status.buffers_received += buffers

    @classmethod
    def inbound(cls, stream: trio.abc.Stream, status: ChannelStatus,
                unauth_bytes: int) -> Conversation:
        """A conversation a partner started: nothing but an ID's segment is read until
        INITIAL_DATA is agreed, and ``unauth_bytes`` at most of unfinished flows until the
        channel is admitted (:meth:`authenticated`)."""
        conv = cls(stream, status)
        conv.unauth_bytes = unauth_bytes
        return conv

    def agreed(self, max_transmission_size: int, max_msg_size: int) -> None:
        """INITIAL_DATA agreed: segments and flows of the negotiated sizes (within
        ``unauth_bytes`` until the channel is admitted)."""
        self.reader.max_transmission_size = max_transmission_size
        self.reader.max_msg_size = max_msg_size
        self.reader.max_pending = self.unauth_bytes
        self.writer = SegmentWriter(max_transmission_size)

    def authenticated(self) -> None:
        """The channel is admitted: its flows may hold what the agreed sizes allow (if
        agreed already), and whoever counted it as unauthenticated is told (once)."""
        if self.unauth_bytes is not None:
            self.unauth_bytes = None
            if self.reader.max_pending != 0:  # (not before negotiation: agreed() says)
                self.reader.max_pending = None
        hook, self.on_authenticated = self.on_authenticated, None
        if hook is not None:
            hook()

    async def send(self, event: Event) -> None:
        data, buffers = self.writer.send_counted(event)
        if self.control_tshc and event.conv_id is None:  # the instance's own flow
            data = tshc.connection_level(data)
        await self._send(data, buffers)
        TRACER.flows(">", self.status.channel, (event,), len(data))

    async def send_made(self, segment: bytes, events: tuple[Event, ...]) -> None:
        """A segment made already (one buffer), counted and traced as :meth:`send`'s;
        ``events``: what the trace names it."""
        await self._send(segment, 1)
        TRACER.flows(">", self.status.channel, events, len(segment))

    async def send_segments(self, segments: list[bytes], events: tuple[Event, ...]) -> None:
        """Segments made already, written together (one system call for the replies to a
        run of requests read at once), counted and traced as :meth:`send_many`'s;
        ``events``: what the trace names them."""
        if self.sock is None or self._sending or self.trio_socket.did_shutdown_SHUT_WR:
            data = segments[0] if len(segments) == 1 else b"".join(segments)
            await self._send(data, len(segments))
            TRACER.flows(">", self.status.channel, events, len(data))
            return
        await trio.lowlevel.checkpoint_if_cancelled()
        tail = self.send_at_once(segments, events)
        if tail is not None:
            await self.send_tail(tail)

    def send_at_once(self, segments: list[bytes], events: tuple[Event, ...]) -> Tail | None:
        """:meth:`send_segments` without waiting, on the plain socket with no send in
        progress: None once the socket took them all (counted and traced), else the
        :class:`Tail` left for :meth:`send_tail` (what was written is counted).
        ChannelEnded when the socket has failed."""
        data = segments[0] if len(segments) == 1 else b"".join(segments)
        try:
            sent = self.sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError as exc:
            raise ChannelEnded("AMQ9206E",
                               f"Error sending data: {_translated(exc)}") from None
        if sent == len(data):
            self._sent(sent, len(segments))
            TRACER.flows(">", self.status.channel, events, sent)
            return None
        self._sent(sent, 0)  # the rest, and the transmissions, counted by send_tail
        return Tail(memoryview(data)[sent:], len(segments), events, len(data))

    async def send_tail(self, tail: Tail) -> None:
        """What :meth:`send_at_once` left, written as the socket drains."""
        await self._send(tail.rest, tail.buffers)
        TRACER.flows(">", self.status.channel, tail.events, tail.size)

    async def send_many(self, events: list[Event]) -> None:
        """Events written together: one system call for a run of a batch's messages."""
        segments = [seg for event in events for seg in self.writer.segments(event)]
        data = b"".join(segments)
        await self._send(data, len(segments))
        TRACER.flows(">", self.status.channel, events, len(data))

    async def _send(self, data: bytes, buffers: int) -> None:
        if self.exits is not None:
            data = self.exits.sent(bytes(data))  # each transmission through the send exits
        try:
            if self.sock is None:
                await self.stream.send_all(data)
            else:
                await self._send_plain(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise ChannelEnded("AMQ9206E", f"Error sending data: {exc}") from None
        self._sent(len(data), buffers)

    async def _send_plain(self, data: bytes) -> None:
        """``data`` whole on the plain socket: at once when its buffer takes it (nearly
        always), else as it drains; trio's ``SocketStream.send_all`` without its trip
        through the scheduler, with its checks and errors."""
        await trio.lowlevel.checkpoint_if_cancelled()
        if self.trio_socket.did_shutdown_SHUT_WR:
            raise trio.ClosedResourceError("can't send data after sending EOF")
        if self._sending:
            raise trio.BusyResourceError("another task is currently sending data on this "
                                         "SocketStream")
        sock = self.sock
        self._sending = True
        try:
            if not data:
                if sock.fileno() == -1:
                    raise trio.ClosedResourceError("socket was already closed")
                return
            await loopcalls.send_all(sock, data)  # the bindings sockets' loop
        except OSError as exc:
            raise _translated(exc) from exc
        finally:
            self._sending = False

    async def recv(self, timeout: float | None) -> Event:
        if self.pending:  # already in: no timer to arm (a batch's messages come many a read)
            # a batch's messages come dozens a read: each taken is a cancellation point,
            # but only every PENDING_YIELD-th a trip through the scheduler (one a message
            # cost the receiving MCA more than anything else it does for the message)
            self._taken += 1
            if self._taken % PENDING_YIELD:
                await trio.lowlevel.checkpoint_if_cancelled()
            else:
                await trio.lowlevel.checkpoint()
            return self.pending.popleft()
        if timeout is None or timeout == _INF:  # no timer to arm: no cancel scope
            while not self.pending:
                await self._receive()
            return self.pending.popleft()
        with trio.move_on_after(timeout) as scope:
            while not self.pending:
                await self._receive()
        if scope.cancelled_caught:
            raise ChannelEnded("AMQ9259E", "Connection timed out: nothing received within "
                               f"{timeout:.0f} seconds.")
        return self.pending.popleft()

    async def take(self) -> list[Event]:
        """Every event received and not yet taken, reading the stream when there is none
        (as many reads as it takes to complete one), without a timeout: for a reader that
        deals with what one read brought together (the SVRCONN's receiver serves a run of
        calls and answers them in one send)."""
        if self.pending:
            await trio.lowlevel.checkpoint_if_cancelled()
            events = list(self.pending)
            self.pending.clear()
            return events
        sock = self.sock
        if self.polled is not None and sock is not None and self._early is None and not (
                type(self.stream) is Prefixed and self.stream.prefix):
            # parked with the client host's poller until it leaves us something (events,
            # or a read for _read below); False: the poller is gone, read as before
            if await self.polled.wait() and self.pending:
                events = list(self.pending)
                self.pending.clear()
                return events
        elif sock is not None and self._early is None and not (
                type(self.stream) is Prefixed and self.stream.prefix):
            # the socket carries several conversations, whose requests are often in
            # already when the last one is answered: it is read first, and waited for
            # only when it has nothing. A read that finds something is a cancellation
            # point, and every PENDING_YIELD-th in a row a trip through the scheduler too
            await trio.lowlevel.checkpoint_if_cancelled()
            try:
                data = sock.recv(RECEIVE_SIZE)
            except BlockingIOError:
                self._in_a_row = 0
            except OSError as exc:
                raise ChannelEnded("AMQ9208E", "Error on receive from host: "
                                   f"{_translated(exc)}") from None
            else:
                self._in_a_row += 1
                if not self._in_a_row % PENDING_YIELD:
                    await trio.lowlevel.cancel_shielded_checkpoint()
                try:
                    events = self._events(data)
                except ProtocolError as exc:
                    await self._protocol_error(exc)
                    raise  # (never: it raises ChannelEnded)
                if events:
                    return events
        while True:
            events = await self._read()
            if events:
                return events

    def arrived(self) -> bool:
        """Whether the partner has sent something not received yet, without waiting: events
        already read, or bytes on the plain socket (read now and kept for the next
        receive, which takes them as it would have read them). A TLS stream tells only of
        the events already read. A sending MCA with a batch in flight asks this now and
        then, to time the partner's answer (NETTIME) when it comes rather than when it is
        read."""
        if self.pending or self._early is not None:
            return True
        sock = self.sock
        if sock is None or (type(self.stream) is Prefixed and self.stream.prefix):
            return False
        try:
            self._early = sock.recv(RECEIVE_SIZE)
        except BlockingIOError:
            return False
        except OSError as exc:
            self._early = exc
        return True

    def received_more(self) -> bool:
        """Whether more events are in, without waiting: those already read, or those one
        read of the plain socket completes now (taken into ``pending``). Anything else that
        read finds -- part of a segment only, the partner's end, an error, a protocol error
        -- is left for the next receive, which deals with it as it would have. A receiving
        MCA asks this before it puts what it holds, so that one round trip to its queue
        manager carries the messages that have already arrived, not only those of the
        last read (never waiting for more: a message still to come is not waited for)."""
        if self.pending:
            return True
        if self._early is None and not self.arrived():
            return False
        data = self._early
        if type(data) is not bytes or not data:
            return False  # the end or an error: the next receive's, after the puts
        self._early = None
        try:
            self.pending.extend(self._events(data))
        except ProtocolError as exc:
            self._early = exc  # told to the partner by the next receive, as it would be
            return False
        return bool(self.pending)

    def found_by_another(self, found: bytes | OSError | ProtocolError) -> None:
        """What another task's read of the plain socket found, for the next receive to deal
        with as if it had read it itself (:meth:`_read`): the partner's end (``b""``), the
        read's error, or the protocol error in what it read (the client host's poller,
        ``mqpy_chinit.clientpoll``)."""
        self._early = found

    async def _receive(self) -> None:
        """One read from the stream into ``pending``."""
        self.pending.extend(await self._read())

    async def _read(self) -> list[Event]:
        """One read from the stream: the events it completes."""
        try:
            if self._early is not None:
                data, self._early = self._early, None
                await trio.lowlevel.checkpoint()  # as a read that found data at once
                if isinstance(data, OSError):
                    raise _translated(data)
                if isinstance(data, ProtocolError):
                    await self._protocol_error(data)
            elif self.sock is None or (type(self.stream) is Prefixed and self.stream.prefix):
                data = await self.stream.receive_some(RECEIVE_SIZE)
            else:
                data = await self._receive_plain()
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise ChannelEnded("AMQ9208E", f"Error on receive from host: {exc}") from None
        try:
            return self._events(data)
        except ProtocolError as exc:
            await self._protocol_error(exc)
            raise  # (never: it raises ChannelEnded)

    def _events(self, data: bytes) -> list[Event]:
        """The events ``data``, read from the stream, completes; counted and traced.
        ProtocolError for a malformed stream (:meth:`_protocol_error`)."""
        if not data:
            raise ChannelEnded("AMQ9209E", "Connection to host closed.")
        self.last_received = time.monotonic()
        reader = self.reader
        before = reader.segments
        read = len(data)
        if self.exits is not None:
            data = self.exits.received(data)  # each transmission through the receive exits
        try:
            events = reader.feed(data)
        except ProtocolError:
            self._received(read, 1)  # what was read counts, as one transmission
            raise
        self._received(read, reader.segments - before)
        TRACER.flows("<", self.status.channel, events, read)
        return events

    async def _protocol_error(self, exc: ProtocolError) -> None:
        """The partner broke the protocol: told with STATUS, the channel ends."""
        await self._refuse(exc.status_code)
        raise ChannelEnded("AMQ9504E", f"Protocol error: {exc}", True,
                           exc.status_code) from None

    async def _receive_plain(self) -> bytes:
        """What the plain socket has, once it has something (the bytes a ``Prefixed``
        stream already read were taken before, by its ``receive_some``). The partner of a
        channel sends nothing while it waits for us, so the socket is waited for before it
        is read: one trip through the scheduler, no read that fails first."""
        sock = self.sock
        while True:
            if sock.fileno() == -1:
                raise trio.ClosedResourceError("this socket was already closed")
            await trio.lowlevel.wait_readable(sock)  # a checkpoint: cancellable here
            try:
                return sock.recv(RECEIVE_SIZE)
            except BlockingIOError:
                continue  # woken for nothing: wait again
            except OSError as exc:
                raise _translated(exc) from exc

    async def _refuse(self, code: StatusCode) -> None:
        try:
            await self.send(Status(code=code, flags=ControlFlags1.ERROR))
        except ChannelEnded:
            pass

    async def close(self, code: StatusCode | None = None) -> None:
        if code is not None:
            await self._refuse(code)
        await self.stream.aclose()


#: errnos of a socket already closed, as trio's streams tell them from a broken one
_CLOSED = frozenset({errno.EBADF, errno.ENOTSOCK})


def _translated(exc: OSError) -> trio.ClosedResourceError | trio.BrokenResourceError:
    """The error trio's ``SocketStream`` raises for ``exc``, with its text."""
    if exc.errno in _CLOSED:
        return trio.ClosedResourceError("this socket was already closed")
    return trio.BrokenResourceError(f"socket connection broken: {exc}")


def _plain_socket(stream: Any) -> tuple[Any, Any]:
    """The non-blocking socket under a plain TCP stream (a ``trio.SocketStream``, bare or
    in a ``Prefixed``) and its trio socket; (None, None) for TLS and anything else."""
    inner = stream.stream if type(stream) is Prefixed else stream
    if type(inner) is not trio.SocketStream:
        return None, None
    sock = getattr(inner.socket, "_sock", None)  # the stdlib socket trio's socket wraps
    if sock is None or sock.getblocking():
        return None, None
    return sock, inner.socket
