"""The channel initiator's MQI connection to its queue manager, in trio.

A SVRCONN conversation calls the queue manager once for every MQI call of its client. Over the
blocking ``mqpy.bindings`` connection each call had to go to a worker thread and back; this
connection is the same protocol on the same socket (``<qmgr dir>/qm.sock``) driven by the
event loop, so a call costs a send and a receive. The verbs are ``mqpy.fap.mqicalls``' exchanges.

A relayed call (an SVRCONN's MQPUT, MQGET, MQCMIT, MQBACK) may be made in two halves by two
tasks: :meth:`QMConnection.send_relayed` puts the request on the socket at once, from the task
that received it from the client, and :meth:`QMConnection.relayed_reply` takes the reply in
the conversation's own task, which waits on this socket between calls
(:meth:`QMConnection.wait_readable`): one task wake-up a call instead of two.

A waiting MQGET waits in the queue manager. A call cut off half-way (the conversation's
client went, the channel was stopped) leaves request and reply out of step, so the connection
is dropped: the queue manager then backs its unit of work out, as for any application that
ends without MQDISC.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any, TypeVar

import trio

from mqpy import CMQC, config, connstate, loopcalls
from mqpy.bindings import Flows, bind_address, socket_path
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import MQIReply, MQIRequest
from mqpy.fap.mqicalls import AsyncMQIVerbs, failure
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import OtherSegment, SegmentType

__all__ = ["QMConnection", "connect"]

_R = TypeVar("_R")

#: One read takes whatever the queue manager has sent, up to this.
RECEIVE_SIZE = 1 << 16

_FAILED = CMQC.MQCC_FAILED
_BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError, OSError, ProtocolError,
           EOFError)


async def connect(qmgr: str, data_path: str | None, *,
                  security: mqiparams.ConnSecurity | None = None,
                  appl_name: str | None = None) -> QMConnection:
    """MQCONN to ``qmgr`` over its bindings socket; MQRC_Q_MGR_NOT_AVAILABLE (2059) when
    nobody serves it, the queue manager's reason (2035 ...) when it refuses."""
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with bind_address(socket_path(config.qmgr_dir(qmgr, data_path))) as address:
            await sock.connect(address)
    except OSError:
        sock.close()
        raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
    except BaseException:  # cancelled while connecting: the socket is ours to close
        sock.close()
        raise
    conn = QMConnection(socket.socket(fileno=sock.detach()), qmgr)
    try:
        reply = await conn._call(SegmentType.MQCONN,
                                 [(qmgr, (appl_name or "runmqchi")[:28]), security])
    except MQMIError as e:
        conn.abend()
        if e.reason == CMQC.MQRC_CONNECTION_BROKEN:
            raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
        raise
    conn.hconn = reply.hobj
    return conn


class QMConnection(AsyncMQIVerbs):
    """An Hconn on the queue manager's socket, for trio tasks; one call at a time.

    The connection drives the plain socket itself: a request usually fits the socket's
    buffer and goes in one send, and the reply is waited for and then read, so a call makes
    one trip through the scheduler (trio's streams make three: a send and a read each
    yield once done, and the read first tries, fails and waits)."""

    def __init__(self, sock: socket.socket, qmgr_name: str) -> None:
        sock.setblocking(False)
        self._sock: socket.socket | None = sock
        self._lock = trio.Lock()
        #: a call's request is written whole and its reply awaited (``_exchange``)
        self._awaiting = False
        self._flows = Flows()
        self._relaying: SegmentType | None = None  # sent by send_relayed, reply not yet taken
        self._unsent = b""  # what of that request the socket did not take at once
        self.qmgr_name = qmgr_name
        self.hconn = 0
        self.broken = False

    async def _call(self, verb: SegmentType, values: Any = (), *, hobj: int = 0,
                    into: tuple[Any, ...] = ()) -> mqiflows.Decoded:
        flows = self._flows
        reply = await self._exchange(flows.request(verb, values, hobj), flows.reply)
        if reply.comp == _FAILED:
            raise failure(reply, into)
        return reply

    async def relay(self, request: MQIRequest) -> MQIReply:
        """One request passed on as it came, its reply as it comes (an SVRCONN's MQPUT,
        MQGET, MQCMIT or MQBACK: nothing in them is the channel's to change). The same lock,
        and the same rule as any call: cut off half-way, the connection is dropped, so that
        the queue manager backs the unit of work out (MQRC_CONNECTION_BROKEN)."""
        flows = self._flows
        verb = SegmentType(request.segment_type)
        return await self._exchange(flows.relayed(request), lambda: flows.relayed_reply(verb))

    async def request_msgs(self, request: bytes) -> list[OtherSegment]:
        """Read ahead's REQUEST_MSGS segment ``request`` (as it goes on the socket) and its
        answer: the queue manager's ASYNC_MESSAGEs, then the NOTIFICATION that ends them. The
        same lock, and the same rule as any call: cut off half-way, the connection is dropped
        (MQRC_CONNECTION_BROKEN)."""
        flows = self._flows
        answer: list[OtherSegment] = []

        def complete() -> list[OtherSegment] | None:
            flows.route_streamed()
            done = answer and answer[-1].segment_type == SegmentType.NOTIFICATION
            return answer if done else None

        flows.streamed = answer.append
        try:
            return await self._exchange(request, complete)
        finally:
            flows.streamed = None

    @property
    def usable(self) -> bool:
        """The socket is still there (not dropped)."""
        return self._sock is not None

    def send_relayed(self, request: MQIRequest) -> bool:
        """The first half of :meth:`relay`, for a task other than the one that takes the
        reply: the request goes to the socket now, without a yield. False, and nothing
        sent, when a call is in progress or the connection is gone. A request the socket
        does not take whole waits for :meth:`relayed_reply` to send the rest (its caller
        must then wake the task that will call it)."""
        sock = self._sock
        if sock is None or self._relaying is not None or self._lock.locked():
            return False
        data = self._flows.relayed(request)
        try:
            sent = sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            self.broken = True
            self._drop()
            return False
        self._relaying = SegmentType(request.segment_type)
        self._unsent = data[sent:] if sent < len(data) else b""
        return True

    def wake_waiting_get(self) -> None:
        """A client's CONN_STATE passed on to the queue manager (``mqpy.connstate``), which
        ends the relayed MQGET waiting there: written now, without a yield, and only while
        a request (relayed, or a call of the general path: a big-endian client's) is wholly
        written and its reply awaited (nothing else is being written then); otherwise
        dropped, as the queue manager drops one no get waits for."""
        sock = self._sock
        relayed = self._relaying is not None and not self._unsent
        if sock is None or not (relayed or self._awaiting):
            return
        try:
            sock.send(connstate.flow())  # small, to a socket the waiting call leaves empty
        except OSError:
            pass  # full or broken: the get ends at the end of its wait, or finds it broken

    @property
    def unsent(self) -> bool:
        """Part of the request :meth:`send_relayed` sent still waits to be written."""
        return bool(self._unsent)

    async def wait_readable(self) -> None:
        """Until the socket has something to read: the reply of a relayed call, or (no call
        in progress) the queue manager's end. ClosedResourceError if it is dropped
        meanwhile (an abend), as for any wait on it."""
        sock = self._sock
        if sock is None:
            raise trio.ClosedResourceError("the connection was dropped")
        await trio.lowlevel.wait_readable(sock)

    async def relayed_reply(self, readdress: Callable[[bytes], _R | None] | None = None
                            ) -> MQIReply | _R | None:
        """The second half of :meth:`relay`: the reply to the request :meth:`send_relayed`
        sent, as the queue manager sent it (what is in is read first, then more waited
        for). MQRC_CONNECTION_BROKEN when the connection breaks, and the same rule as any
        call: cut off half-way, the connection is dropped. With no relayed call in progress
        whatever is readable is the queue manager's end (or a flow out of step): the
        connection is dropped and None returned (the next call fails 2009).

        ``readdress``: when the reply is what one read gives (nearly always), it is offered
        the bytes first, and what it makes of them (not None) is returned instead of the
        reply: the SVRCONN passes a reply on without taking it apart
        (``wire.readdressed_mqi_reply``); None from it, and the bytes go the general way."""
        verb = self._relaying
        sock = self._sock
        flows = self._flows
        completed = False
        try:
            if sock is None:
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN)
            if verb is None:
                return None  # the finally drops the connection
            if self._unsent:
                unsent, self._unsent = self._unsent, b""
                await loopcalls.send_all(sock, unsent)
            take = lambda: flows.relayed_reply(verb)  # noqa: E731
            reply = None if readdress is None else take()  # one read in already: as it is
            if readdress is not None and reply is None:
                while True:
                    try:
                        data = sock.recv(RECEIVE_SIZE)
                        break
                    except BlockingIOError:
                        await trio.lowlevel.wait_readable(sock)
                readdressed = readdress(data)
                if readdressed is not None:
                    completed = True
                    return readdressed
                flows.feed(data)  # EOFError when the queue manager closed its end
            if reply is None:
                reply = await self._read_until(sock, take, readable=False)
            completed = True
        except _BROKEN:
            raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
        finally:
            self._relaying = None
            if not completed:  # broken, cancelled between request and reply, out of step
                self.broken = True
                self._drop()
        return reply

    async def _read_until(self, sock: Any, take_reply: Callable[[], _R | None], *,
                          readable: bool) -> _R:
        """Read the queue manager's socket until ``take_reply`` has the reply. ``readable``:
        something is there already (read before waiting); else the reply is yet to come, so
        the socket is waited for first rather than read, fail and wait."""
        while (reply := take_reply()) is None:
            if not readable:
                await trio.lowlevel.wait_readable(sock)  # a checkpoint: the call yields
            readable = False
            try:
                data = sock.recv(RECEIVE_SIZE)
            except BlockingIOError:
                continue
            self._flows.feed(data)  # EOFError when the queue manager closed its end
        return reply

    async def _exchange(self, request: bytes, take_reply: Callable[[], _R | None]) -> _R:
        """Write ``request``, then read until ``take_reply`` has the reply: one call at a
        time on the socket."""
        lock = self._lock
        try:
            lock.acquire_nowait()  # free (one call at a time): no scheduler round to take it
        except trio.WouldBlock:
            await lock.acquire()
        try:
            sock = self._sock
            if sock is None:
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN if self.broken
                                else CMQC.MQRC_HCONN_ERROR)
            if self._relaying is not None:  # its reply is relayed_reply's: out of step
                raise MQMIError(_FAILED, CMQC.MQRC_HCONN_ERROR)
            completed = False
            try:
                await loopcalls.send_all(sock, request)
                self._awaiting = True  # written whole: a CONN_STATE may follow it
                reply = await self._read_until(sock, take_reply, readable=False)
                completed = True
            except _BROKEN:
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
            finally:
                self._awaiting = False
                if not completed:  # broken, or cancelled between request and reply
                    self.broken = True
                    self._drop()
        finally:
            lock.release()
        return reply

    def _drop(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            trio.lowlevel.notify_closing(sock)  # no-op unless a task waits on it
            sock.close()

    async def disconnect(self) -> None:
        """MQDISC: the queue manager commits an open unit of work, as on a normal end."""
        if self._sock is None:
            return
        try:
            await self._call(SegmentType.MQDISC)
        finally:
            self._drop()

    def abend(self) -> None:
        """Drop the connection without MQDISC: the queue manager backs the unit of work out."""
        self._drop()
