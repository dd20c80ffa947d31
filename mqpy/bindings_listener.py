"""The queue manager's bindings listener: MQI requests over ``<qmgr dir>/qm.sock``, served by trio.

Each accepted connection is one Hconn, served by one task: read a request, decode it
(``mqpy.fap.mqiflows``), call the engine ``Connection``, write the reply. The task drives the plain
socket itself: the MQI is synchronous, so between a request and its reply the application
sends nothing, and once the reply is written the task waits for the socket to be readable and
reads once (one trip through the scheduler per request); a connection whose calls come
quickly is served meanwhile by a thread of its own (``mqpy.bindings_thread``), with no trip
through the scheduler at all (its waiting MQGETs too, for PARK_S at most). While an MQGET
waits in the loop, the same task
watches the socket, so that an application that disappears in the middle of a long wait is
noticed: its unit of work is backed out at once (``Connection.abend``), as MQ does when an
application process ends without MQDISC. (Anything it does send meanwhile is kept for after
the call.)

MQPUT, MQPUT1, MQGET, MQCMIT, MQBACK and MQINQ run in the event loop: their work is in
memory, and the log force persistent work needs is made on a worker thread before the reply
(``mqpy.loopcalls``). Calls that may block for other reasons -- MQCONN, MQOPEN and MQCLOSE (a
model queue's definition), MQSET, MQDISC, puts of very long messages -- run in worker
threads under one ``CapacityLimiter``. A waiting MQGET holds no thread: the engine calls our *waiter* from whichever
thread made a message available, and the waiter hands an ``Event.set`` to the trio loop
(``TrioToken.run_sync_soon``, safe from any thread); WaitInterval is a ``move_on_at`` scope.

Controlled end (endmqm -c / -w) is the engine's ``quiesce()``: calls with FAIL_IF_QUIESCING get
MQRC_Q_MGR_QUIESCING (2161), waiting gets wake to find that out, new MQCONNs are refused, and
:meth:`BindingsServer.wait_idle` returns once the last application has gone.

Only the Unix socket is served (mode 0o660); nothing here listens on a network.

Before its MQCONN has arrived a connection is *unauthenticated* (``config.PeerLimits``): at
most MaxUnauthBindings such connections at once (a further one is closed unread, AMQ9513E),
each with BindingsConnectTimeout seconds from its accept to send its MQCONN (then closed,
AMQ9259E); until its MQCONN has succeeded its segments and unfinished flows hold at most
MaxUnauthBytes. A flow the socket's protocol does not allow ends that connection with
AMQ9207E naming the application's user and process. The lines about refused connections
are rate-limited (``admission.LogLimiter``: 10 a minute, then one saying how many were left
out), so that a flood of bad connections cannot fill the error log.
"""

from __future__ import annotations

import collections
import functools
import json
import os
import pwd
import socket
import struct
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import trio

from mqpy import (
    CMQC,
    CMQCFC,
    amqmsgs,
    bindings_profile,
    bindings_run,
    bindings_thread,
    errorlog,
    loopcalls,
    streamer,
)
from mqpy.admission import Admission, Admissions, LogLimiter
from mqpy.bindings import MAX_MSG_SIZE, MAX_TRANSMISSION_SIZE, bind_address, socket_path
from mqpy.config import PeerLimits
from mqpy.connstate import take_leading_wakes, take_wakes
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import MQIReply, MQIRequest
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import SegmentType
from mqpy.pubsub import served
from mqpy.security.policy import channel_decision, is_privileged, owner
from mqpy.trace import TRACER

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine

__all__ = ["BindingsServer", "DEFAULT_THREAD_LIMIT"]

#: Worker threads for engine calls that can block (log forces). Waiting gets take none.
DEFAULT_THREAD_LIMIT = 32
#: Worker threads for MQCONNs that check a password (scrypt), apart from the others.
AUTH_THREAD_LIMIT = 2
#: One read takes whatever the application has sent, up to this: a whole request but the
#: longest (a long message arrives over several reads and is reassembled).
RECEIVE_SIZE = 1 << 16
#: what the queue manager reads of an application's requests while its MQGET waits (kept for
#: after the call) before it reads no more until the call ends (the thread's wait as well)
HELD_DURING_WAIT = bindings_thread.HELD_DURING_WAIT

#: the most the queue manager reads, once an application has gone, of what it wrote
#: before it went (its socket's buffers hold far less)
READ_AFTER_THE_END = 8 << 20

_T = SegmentType
_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED
#: the requests served after the application's end, in order, up to the first other one
#: (not a commit: an application gone has its unit of work backed out, whatever it sent)
_SERVED_AFTER_THE_END = frozenset({_T.MQPUT, _T.MQPUT1})


def _peer_credentials(sock: Any) -> tuple[int, int] | None:
    """The peer process's id and uid (SO_PEERCRED); None when it cannot be identified."""
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, uid, _gid = struct.unpack("3i", creds)
    except (OSError, AttributeError, struct.error):
        return None
    return pid, uid


def _peer_process(sock: Any) -> str:
    """Who is at the other end, for the error log: its process id and user."""
    creds = _peer_credentials(sock)
    if creds is None:
        return "a local application"
    return f"the local application of process {creds[0]} (user {_peer_user(sock)})"


def _peer_pid(sock: Any) -> int:
    """The peer process's id: DISPLAY CONN's PID of its connection; 0 when the peer cannot
    be identified."""
    creds = _peer_credentials(sock)
    return 0 if creds is None else creds[0]


def _peer_user(sock: Any) -> str | None:
    """The peer process's user name, as MQ takes it for a bindings connection; its numeric
    uid when the name is unknown; None when the peer cannot be identified."""
    creds = _peer_credentials(sock)
    if creds is None:
        return None
    try:
        return pwd.getpwuid(creds[1]).pw_name
    except KeyError:
        return str(creds[1])


class BindingsServer:
    """Serves one engine's MQI on its Unix socket; ``run`` is a trio task (``nursery.start``)."""

    def __init__(self, engine: QueueManagerEngine, path: str | None = None, *,
                 thread_limit: int = DEFAULT_THREAD_LIMIT,
                 on_unexpected: Callable[[BaseException], None] | None = None,
                 limits: PeerLimits | None = None) -> None:
        """``limits``: qm.ini's limits on connections before their MQCONN (the module
        docstring); their defaults when None."""
        self.engine = engine
        self.limits = limits or PeerLimits()
        #: connections whose MQCONN has not arrived yet (MaxUnauthBindings)
        self.unauthenticated = Admissions(self.limits.max_unauth_bindings)
        #: the error-log lines about refused connections, by message id (``refused``)
        self._refusals: dict[str, LogLimiter] = collections.defaultdict(LogLimiter)
        self.path = path or socket_path(engine.qmdir)
        self.limiter = trio.CapacityLimiter(thread_limit)
        self.auth_limiter = trio.CapacityLimiter(AUTH_THREAD_LIMIT)
        #: threads serving busy connections (``mqpy.bindings_thread``)
        self.busy_limiter = trio.CapacityLimiter(bindings_thread.HOT_THREADS)
        self.sessions: set[_Session] = set()
        #: set as the queue manager ends: a connection cut then was ended by the queue
        #: manager (its accounting's DiscType MQDISCONNECT_Q_MGR), not by its application
        self.ending = False
        self._changed = trio.Event()
        self.on_unexpected = on_unexpected or self._write_fdc

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Listen and serve until cancelled; ``started()`` once connections are accepted."""
        bindings_profile.start()  # (MQPY_PROFILE_BINDINGS: the loop's thread, to the end)
        sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with bind_address(self.path) as address:
            # A socket file left by a killed daemon is stale: we hold qm.lock, nobody else serves.
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
            await sock.bind(address)
            os.chmod(self.path, 0o660)
            sock.listen(512)
        listener = trio.SocketListener(sock)
        try:
            async with listener, trio.open_nursery() as nursery:
                task_status.started()
                while True:
                    stream = await listener.accept()
                    nursery.start_soon(self._serve_one, stream)
        finally:
            try:
                os.unlink(self.path)
            except OSError:
                pass

    async def wait_idle(self) -> None:
        """Return once no application is connected (a controlled end waits for this)."""
        while self.sessions:
            await self._changed.wait()

    async def _serve_one(self, stream: trio.SocketStream) -> None:
        # the session drives the plain socket itself (``_Session._receive``)
        sock = socket.socket(fileno=stream.socket.detach())
        sock.setblocking(False)
        admission = self.unauthenticated.admit("qm.sock")
        if isinstance(admission, str):
            try:
                await self.refused("AMQ9513E", f"Maximum number of connections reached: "
                                   f"{_peer_process(sock)} was refused ({admission}, "
                                   f"MaxUnauthBindings {self.limits.max_unauth_bindings}).")
            finally:
                sock.close()
            return
        session = _Session(self, sock, admission)
        self.sessions.add(session)
        try:
            await session.run()
        except Exception as exc:  # noqa: BLE001 - one session's fault: FDC, it alone ends
            self.on_unexpected(exc)
        finally:
            admission.release()
            self.sessions.discard(session)
            self._changed.set()
            self._changed = trio.Event()

    async def refused(self, msgid: str, text: str) -> None:
        """A connection refused or ended for what its peer did: one error-log line, a few a
        minute at most (``LogLimiter``); written on a worker thread."""
        more = self._refusals[msgid].allow()
        if more is None:
            return
        log = errorlog.ErrorLog(os.path.join(self.engine.qmdir, "errors"),
                                qmgr=self.engine.name)
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(log.write_event, msgid, text + more)

    def _write_fdc(self, exc: BaseException) -> None:
        errorlog.write_fdc(os.path.join(self.engine.qmdir, "errors"), "XC130003",
                           "mqpy.bindings_listener", exc, qmgr=self.engine.name)


class _Session:
    """One application connection: its engine Connection, framing state and wait events."""

    def __init__(self, server: BindingsServer, sock: socket.socket,
                 admission: Admission | None = None) -> None:
        self.server = server
        self.engine = server.engine
        self.sock = sock  # non-blocking; its waits are trio's (wait_readable / wait_writable)
        self.admission = admission  # its place among the connections without an MQCONN
        # before its MQCONN succeeded: segments and unfinished flows of MaxUnauthBytes
        unauth = server.limits.max_unauth_bytes
        self.reader = SegmentReader(min(unauth, MAX_TRANSMISSION_SIZE),
                                    max_msg_size=MAX_MSG_SIZE, max_pending=unauth)
        #: the trio clock's time by which its MQCONN must have come (set when it is first
        #: waited for, at the start of ``run``)
        self.connect_by: float | None = None
        self.writer = SegmentWriter(MAX_TRANSMISSION_SIZE)
        self.conn: Any = None
        self.verbs: loopcalls.EngineVerbs | None = None  # conn's MQI for this loop
        self.gone = trio.Event()  # the application closed its end (or broke the protocol)
        self.received: collections.deque[Any] = collections.deque()  # read, not yet served
        self.ended = False  # MQDISC done
        self.got_bytes = 0  # message data of the last MQGET answered (SPI RUN's BATCHLIM)
        self.quiet_puts = False  # in an SPI RUN_QUIET: puts answer without their structures
        #: its last request, one a thread serves, came within HOT_WAIT_S of the reply
        #: before: serve the next ones on a thread
        self.busy = False
        self.replied_at = 0.0  # time.monotonic() of its last reply

    async def run(self) -> None:
        try:
            while not self.ended:
                if self.busy and self.admission is None \
                        and self.server.busy_limiter.available_tokens:
                    if not await self._serve_busy():
                        return
                    if self.busy and not self.received:
                        continue  # the spell ended with calls still coming: another
                request = await (self._next_request() if self.conn is not None
                                 else self._request_before_mqconn())
                if request is None:
                    return
                self.busy = self.conn is not None \
                    and request.segment_type in bindings_thread.THREAD_VERBS \
                    and time.monotonic() - self.replied_at < bindings_thread.HOT_WAIT_S
                try:
                    reply = await self._dispatch(request)
                except ProtocolError as exc:
                    await self._rejected(f"{_T(request.segment_type).name}: {exc}")
                    return
                if self.conn is not None and self.admission is not None:
                    self._authenticated()
                if not await self._send(reply if type(reply) is bytes
                                        else self.writer.send(reply)):
                    await self._serve_sent_before_the_end()
                    return
                self.replied_at = time.monotonic()
        finally:
            self.gone.set()
            trio.lowlevel.notify_closing(self.sock)
            self.sock.close()
            if self.conn is not None and not self.ended:
                # lost without MQDISC (or ended by the queue manager): back its work out
                self.conn.abend(CMQCFC.MQDISCONNECT_Q_MGR if self.server.ending
                                else CMQCFC.MQDISCONNECT_IMPLICIT)

    async def _serve_busy(self) -> bool:
        """Calls served on a thread while they come quickly (``mqpy.bindings_thread``);
        False once the application has gone or broken the protocol. ``busy`` stays set
        when the spell ended with calls still coming."""
        try:
            outcome = await self._on_thread(bindings_thread.serve_while_busy)
        except Exception as exc:  # noqa: BLE001 - a fault serving it: FDC, this one ends
            self.server.on_unexpected(exc)
            return False
        if type(outcome) is bindings_thread.Parked:  # a get waiting longer: its rest here
            reply = await self._resume_get(outcome)
            if not await self._send(reply if type(reply) is bytes
                                    else self.writer.send(reply)):
                await self._serve_sent_before_the_end()
                return False
            self.replied_at = time.monotonic()
            self.busy = True  # (its next call comes at once, as a waiting one's does)
            return True
        if outcome is bindings_thread.GONE:
            await self._serve_sent_before_the_end()
            return False
        if isinstance(outcome, ProtocolError):
            await self._rejected(str(outcome))
            return False
        if type(outcome) is bytes:
            if await self._send(outcome):
                return True
            await self._serve_sent_before_the_end()
            return False
        self.busy = bool(self.received) or \
            time.monotonic() - self.replied_at < bindings_thread.HOT_WAIT_S
        return True

    async def _on_thread(self, fn: Callable[[Any], object]) -> object:
        """``fn(self)`` on a thread of the busy connections' (``busy_limiter``), as
        ``trio.to_thread.run_sync`` runs it, but told at once when this task is cancelled
        (``bindings_thread.cancel``: a get waiting there ends unanswered), then waited
        for."""
        async with self.server.busy_limiter:
            task = trio.lowlevel.current_task()
            token = trio.lowlevel.current_trio_token()

            def deliver(result: Any) -> None:
                token.run_sync_soon(trio.lowlevel.reschedule, task, result)

            def abort(_: Any) -> trio.lowlevel.Abort:
                bindings_thread.cancel(self)
                return trio.lowlevel.Abort.FAILED  # (rescheduled once the thread is back)

            trio.lowlevel.start_thread_soon(functools.partial(fn, self), deliver)
            return await trio.lowlevel.wait_task_rescheduled(abort)

    async def _resume_get(self, parked: bindings_thread.Parked) -> MQIReply | bytes:
        """The rest of a get's wait that began on a thread (``bindings_thread.Parked``):
        waited here until its deadline, and answered as ``_get`` answers (its MQGMO's
        WaitInterval as the application sent it)."""
        d = parked.decoded
        md, gmo, buffer_length = d.values
        interval = gmo.WaitInterval
        left = parked.deadline - time.monotonic()
        gmo.WaitInterval = CMQC.MQWI_UNLIMITED if left == float("inf") \
            else max(0, int(left * 1000 + 0.999))
        try:
            try:
                data = await self.verbs.get(d.hobj, md, gmo, mqiflows.max_length(buffer_length))
            finally:
                gmo.WaitInterval = interval
        except MQMIError as e:
            reply = mqiflows.truncation_reply(md, gmo, e)
            return mqiflows.failure_reply(d.verb, d, e.comp, e.reason) if reply is None \
                else reply
        except Exception as exc:  # noqa: BLE001 - an engine fault: FDC, the call fails 2195
            self.server.on_unexpected(exc)
            return mqiflows.encode_reply(d.verb, comp=_FAILED,
                                         reason=CMQC.MQRC_UNEXPECTED_ERROR)
        self.got_bytes = len(data)
        return mqiflows.encode_reply(d.verb, [md, gmo, len(data), data])

    async def _serve_sent_before_the_end(self) -> None:
        """The application has gone (a reply could not be written to it): the requests it
        sent before it went -- read already, or still in the socket -- are served in order,
        their replies dropped, while they are puts (an asynchronous put outside syncpoint
        whose bytes came is put: its reply was only not waited for), up to the first other
        one (a get's message would go to nobody, a commit is not made for an application
        gone; nothing after it is served either, out of order); then the session's end backs
        its unit of work out."""
        if self.conn is None or self.ended:
            return
        self._read_to_the_end()
        received = self.received
        while received:
            request = received[0]
            if type(request) is not MQIRequest \
                    or request.segment_type not in _SERVED_AFTER_THE_END:
                return
            received.popleft()
            try:
                await self._dispatch(request)
            except ProtocolError:
                return

    def _read_to_the_end(self) -> None:
        """What the application wrote before it went, still in the socket, into
        ``received`` (READ_AFTER_THE_END bytes at most; up to a flow that breaks the
        protocol)."""
        taken = 0
        while taken < READ_AFTER_THE_END:
            try:
                data = self.sock.recv(RECEIVE_SIZE)
            except OSError:  # (BlockingIOError: nothing more there)
                return
            if not data:
                return
            taken += len(data)
            try:
                self.received.extend(self.reader.feed(data))
            except ProtocolError:
                return

    async def _request_before_mqconn(self) -> MQIRequest | None:
        """The next request of a connection not yet connected, within its deadline
        (BindingsConnectTimeout from its accept; AMQ9259E past it). Its MQCONN's arrival
        frees its place among the unauthenticated connections."""
        if self.connect_by is None:
            self.connect_by = trio.current_time() + self.server.limits.bindings_connect_timeout
        with trio.move_on_at(self.connect_by):
            request = await self._next_request()
            if request is not None and request.segment_type == _T.MQCONN \
                    and self.admission is not None:
                self.admission.release()
            return request
        await self.server.refused(
            "AMQ9259E", f"Connection timed out: {_peer_process(self.sock)} sent no MQCONN "
            f"within {self.server.limits.bindings_connect_timeout} seconds "
            f"(BindingsConnectTimeout).")
        return None

    def _authenticated(self) -> None:
        """MQCONN succeeded: segments and flows of the socket's own sizes from now on."""
        self.admission.release()
        self.admission = None
        self.reader.max_transmission_size = MAX_TRANSMISSION_SIZE
        self.reader.max_pending = None

    async def _rejected(self, why: str) -> None:
        """The application broke the socket's protocol: AMQ9207E, the connection ends."""
        await self.server.refused("AMQ9207E", f"The data received from "
                                  f"{_peer_process(self.sock)} over qm.sock is not valid: "
                                  f"{why}.")

    async def _send(self, data: bytes) -> bool:
        """Write ``data`` whole; False once the application has gone. The reply usually fits
        the socket's buffer: one send, and no trip through the scheduler for it."""
        try:
            await loopcalls.send_all(self.sock, data)
        except (OSError, trio.ClosedResourceError):
            return False
        return True

    async def _receive(self) -> bool:
        """Wait until the application has sent something, and take what is there (whole
        requests, or the start of a long one) into ``received``; False once it has gone or
        broken the protocol.

        An MQI application sends nothing between its request and our reply, so once the
        reply is out there is nothing to read yet: we wait first and read once, rather than
        read, fail, wait and read again (trio's ``receive_some``) -- one trip through the
        scheduler per request instead of three."""
        sock = self.sock
        try:
            await trio.lowlevel.wait_readable(sock)
            data = sock.recv(RECEIVE_SIZE)
        except BlockingIOError:
            return True  # woken for nothing: wait again
        except (OSError, trio.ClosedResourceError):
            return False
        if not data:
            return False
        try:
            self.received.extend(self.reader.feed(data))
        except ProtocolError as exc:
            await self._rejected(str(exc))
            return False
        return True

    async def _next_request(self) -> MQIRequest | None:
        """The application's next request; None once it has gone or broken the protocol."""
        received = self.received
        if received:
            # read with an earlier request (or during a wait): it still waits its turn in
            # the scheduler, as one read from the socket would
            await trio.lowlevel.checkpoint()
        while not received or (take_leading_wakes(received) and not received):
            if self.gone.is_set() or not await self._receive():
                return None
        event = received.popleft()
        if isinstance(event, MQIRequest) or (self.conn is not None
                                             and streamer.is_request(event)):
            return event
        await self._rejected(f"a {_T(event.segment_type).name} flow, not an MQI call")
        return None

    async def _watch(self) -> None:
        """While an MQGET waits (``waiting.get_with_wait``): an application that closes its
        end (or breaks the protocol) sets ``gone``, which ends the wait with
        MQRC_CONNECTION_BROKEN; anything it sends meanwhile is kept for after the call."""
        # Requests read meanwhile are kept for after the call, up to HELD_DURING_WAIT bytes:
        # past that nothing more is read until the call ends (the socket's buffers hold the
        # rest back), so what an application writes while it waits is not kept without
        # bound. A segment that is not an MQI verb breaks the protocol as much as a closed
        # end.
        received, reader = self.received, self.reader
        seen = held = 0
        while True:
            while seen < len(received):
                event = received[seen]
                if not (isinstance(event, MQIRequest) or streamer.is_request(event)):
                    break
                held += len(event.body)
                seen += 1
            else:
                if held + reader.buffered >= HELD_DURING_WAIT:
                    await trio.sleep_forever()  # until the wait ends (the caller cancels it)
                if await self._receive():
                    continue
            break
        if take_wakes(received):  # the application's MQCTL: 2033 (no `gone`)
            return
        self.gone.set()

    # -- one request ------------------------------------------------------------------------

    async def _thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await trio.to_thread.run_sync(fn, *args, limiter=self.server.limiter)

    async def _dispatch(self, request: MQIRequest) -> MQIReply | bytes:
        if streamer.is_request(request):  # read ahead: messages streamed (mqpy.streamer)
            return await streamer.answer(self.conn, request, self.server.limiter,
                                         MAX_TRANSMISSION_SIZE, request.byte_order, self.gone,
                                         self._watch)
        try:
            decoded = self._decode(request)
        except mqiparams.BadStructure as exc:  # that call's error: the connection goes on
            return mqiflows.refusal_reply(request.segment_type, exc, self.conn is not None)
        call = TRACER.begin(self.engine.name, decoded.verb.name, decoded.hobj,
                            decoded.values, "lqmflows")
        if call is None:
            return await self._serve(decoded)
        reply = await self._serve(decoded)  # strmqtrc: the queue manager's side of a call
        call.end(reply)
        return reply

    def _decode(self, request: MQIRequest) -> mqiflows.Decoded:
        """``request`` decoded in its own TSH's byte order (not the last read's)."""
        return mqiflows.decode_request(request, request.byte_order)

    def _decode_in_run(self, request: MQIRequest) -> Any:
        """A call of an SPI RUN decoded, or the BadStructure that refuses it."""
        try:
            return self._decode(request)
        except mqiparams.BadStructure as exc:
            return exc

    async def _serve(self, decoded: mqiflows.Decoded) -> MQIReply:
        verb = decoded.verb
        if self.conn is None and verb != _T.MQCONN:
            return mqiflows.encode_reply(verb, comp=_FAILED, reason=CMQC.MQRC_HCONN_ERROR)
        try:
            if type(decoded) is bindings_run.PackedCall:
                return await bindings_run.serve_packed(self, decoded)
            return await _HANDLERS[verb](self, decoded)
        except MQMIError as e:
            return mqiflows.failure_reply(verb, decoded, e.comp, e.reason)
        except (trio.Cancelled, KeyboardInterrupt, ProtocolError):
            raise  # a malformed flow, even inside an SPI RUN, ends the connection
        except Exception as exc:  # noqa: BLE001 - an engine fault: FDC, the call fails 2195
            self.server.on_unexpected(exc)
            return mqiflows.encode_reply(verb, comp=_FAILED, reason=CMQC.MQRC_UNEXPECTED_ERROR)

    async def _conn(self, d: mqiflows.Decoded) -> MQIReply:
        if self.conn is not None:
            return mqiflows.encode_reply(d.verb, comp=_WARNING,
                                         reason=CMQC.MQRC_ALREADY_CONNECTED,
                                         values=[(self.engine.name, "")], hobj=self.conn.hconn)
        names, sec = d.values
        qmgr, appl = names
        if qmgr and qmgr != self.engine.name:
            raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
        # the user file, the error log and the authority records are files: everything
        # below that may read or write them runs on a worker thread, not the event loop
        peer = _peer_user(self.sock)
        if peer is None:
            # an application nobody can name is never trusted as the owner (no user at all
            # makes the engine run a connection as this process)
            await self._thread(self._refused_assertion, peer, appl)
            raise MQMIError(_FAILED, CMQC.MQRC_NOT_AUTHORIZED)
        args: dict[str, Any] = {"user": peer}
        if sec is not None:
            if sec.asserts_identity and not await self._thread(self._privileged, peer):
                # connecting on behalf of a client: the channel initiator, never an application
                await self._thread(self._refused_assertion, peer, appl)
                raise MQMIError(_FAILED, CMQC.MQRC_NOT_AUTHORIZED)
            args = sec.connect_args(peer)
            if sec.asserts_identity and not sec.channel and sec.credentials is None \
                    and sec.user == self._owner():
                args["user"] = None  # the owner's own MQ process (channel initiator): trusted
        # the MQCNO's accounting options (the body's, or those of the client a channel
        # initiator connects for): the only ones the queue manager acts on
        options = (getattr(names, "options", 0) | (sec.options if sec is not None else 0)) \
            & mqiparams.ACCOUNTING_OPTIONS
        engine = self.engine

        def connect() -> Any:
            conn = engine.connect(appl or None, **args)
            if options:  # (decided before its first call, as an embedded MQCONNX's are)
                conn.account_as_asked(options)
            return conn

        if args.get("password") is None:
            self.conn = await self._thread(connect)
        else:
            # scrypt: tens of milliseconds and 16 MB each, so on threads of their own: a burst
            # of password checks never holds the threads other applications' calls need
            try:
                self.conn = await trio.to_thread.run_sync(connect,
                                                          limiter=self.server.auth_limiter)
            except MQMIError as e:
                await trio.sleep(getattr(e, "fail_delay", 0))  # FAILDLAY: holds no thread
                raise
        self.conn.process_id = _peer_pid(self.sock)
        self.verbs = loopcalls.EngineVerbs(self.conn, self.server.limiter, self.gone, self._watch)
        return mqiflows.encode_reply(d.verb, [(self.engine.name, appl)], hobj=self.conn.hconn)

    @staticmethod
    def _owner() -> str:
        return owner()

    def _privileged(self, peer: str | None) -> bool:
        return is_privileged(self.engine.qmdir, peer)

    def _refused_assertion(self, peer: str | None, appl: str) -> None:
        errorlog.ErrorLog(os.path.join(self.engine.qmdir, "errors"),
                          qmgr=self.engine.name).write(
            amqmsgs.AMQ5534, inserts={"user": peer or "", "appl": appl.strip()})

    async def _disc(self, d: mqiflows.Decoded) -> MQIReply:
        await self.verbs.disconnect()
        self.ended = True
        return mqiflows.encode_reply(d.verb, [])

    async def _open(self, d: mqiflows.Decoded) -> MQIReply:
        od, options = d.values
        hobj = await self.verbs.open(od, options)
        return streamer.engine_open_reply(self.conn, od, options, hobj)  # (with its FOPA)

    async def _close(self, d: mqiflows.Decoded) -> MQIReply:
        await self.verbs.close(d.hobj, d.values[0])
        return mqiflows.encode_reply(d.verb, [])

    async def _put(self, d: mqiflows.Decoded) -> MQIReply:
        md, pmo, data = d.values
        warning = await self.verbs.put(d.hobj, md, pmo, data)
        if (self.quiet_puts and not warning) or pmo.Options & CMQC.MQPMO_ASYNC_RESPONSE:
            return bindings_run.QUIET_PUT_OK  # (packed once); an asynchronous put's is not read
        return mqiflows.encode_reply(d.verb, None if self.quiet_puts else [md, pmo],
                                     comp=_WARNING if warning else _OK, reason=warning)

    async def _put1(self, d: mqiflows.Decoded) -> MQIReply:
        od, md, pmo, data = d.values
        warning = await self.verbs.put1(od, md, pmo, data)
        return mqiflows.encode_reply(d.verb, None if self.quiet_puts else [od, md, pmo],
                                     comp=_WARNING if warning else _OK, reason=warning)

    async def _get(self, d: mqiflows.Decoded) -> MQIReply:
        md, gmo, buffer_length = d.values
        max_length = mqiflows.max_length(buffer_length)
        try:
            data = await self.verbs.get(d.hobj, md, gmo, max_length)
        except MQMIError as e:
            reply = mqiflows.truncation_reply(md, gmo, e)
            if reply is None:
                raise
            return reply
        self.got_bytes = len(data)  # for an SPI RUN's BATCHLIM: no need to decode the reply
        return mqiflows.encode_reply(d.verb, [md, gmo, len(data), data])

    async def _cmit(self, d: mqiflows.Decoded) -> MQIReply:
        await self.verbs.commit()
        return mqiflows.encode_reply(d.verb, [])

    async def _back(self, d: mqiflows.Decoded) -> MQIReply:
        await self.verbs.backout()
        return mqiflows.encode_reply(d.verb, [])

    async def _inq(self, d: mqiflows.Decoded) -> MQIReply:
        (selectors,) = d.values
        values = await self.verbs.inquire_all(d.hobj, selectors)
        return mqiflows.encode_reply(d.verb, [values])

    async def _set(self, d: mqiflows.Decoded) -> MQIReply:
        await self.verbs.set_many(d.hobj, mqiflows.set_attributes(d.values))
        return mqiflows.encode_reply(d.verb, [])

    async def _stat(self, d: mqiflows.Decoded) -> MQIReply:
        status_type, sts = d.values
        return mqiflows.encode_reply(d.verb, [status_type,
                                              await self.verbs.stat(status_type, sts)])

    async def _spi(self, d: mqiflows.Decoded) -> MQIReply:
        verb, luwid, commit = d.values
        if verb == mqiflows.SpiVerb.PREPARE:
            await self._thread(self.conn.prepare, luwid)
            return mqiflows.encode_reply(d.verb, [[]])
        if verb == mqiflows.SpiVerb.RESOLVE:
            self.conn.check_usable()
            if commit & 1 and commit & mqiflows.RESOLVE_NO_WAIT:
                # memory only, in the loop: the log's next force covers the commit record
                await self.verbs.resolve(luwid, True, wait=False)
            else:
                await self._thread(self.engine.resolve, luwid, bool(commit & 1))
            return mqiflows.encode_reply(d.verb, [[]])
        if verb == mqiflows.SpiVerb.CHLAUTH:
            self.conn.check_usable()
            if not self._privileged(_peer_user(self.sock)):
                raise MQMIError(_FAILED, CMQC.MQRC_NOT_AUTHORIZED)

            query = json.loads(luwid.decode("utf-8"))
            decision = await self._thread(channel_decision, self.engine, query)
            return mqiflows.encode_reply(d.verb, [[json.dumps(decision).encode("utf-8")]])
        if verb in (mqiflows.SpiVerb.RUN, mqiflows.SpiVerb.RUN_QUIET):
            self.quiet_puts = verb == mqiflows.SpiVerb.RUN_QUIET
            try:
                return await bindings_run.serve(self, d.verb, luwid, commit)
            finally:
                self.quiet_puts = False
        if verb == mqiflows.SpiVerb.INDOUBT:
            self.conn.check_usable()
            return mqiflows.encode_reply(d.verb, [self.engine.indoubt()])
        raise MQMIError(_FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)

_HANDLERS: dict[SegmentType, Callable[[_Session, mqiflows.Decoded], Any]] = {
    _T.MQCONN: _Session._conn,
    _T.MQDISC: _Session._disc,
    _T.MQOPEN: _Session._open,
    _T.MQCLOSE: _Session._close,
    _T.MQPUT: _Session._put,
    _T.MQPUT1: _Session._put1,
    _T.MQGET: _Session._get,
    _T.MQCMIT: _Session._cmit,
    _T.MQBACK: _Session._back,
    _T.MQINQ: _Session._inq,
    _T.MQSET: _Session._set,
    _T.SPI: _Session._spi,
    _T.MQSTAT: _Session._stat,
    _T.MQSUB: lambda session, d: served.sub(session.verbs, d),  # mqpy.pubsub
    _T.MQSUBRQ: lambda session, d: served.subrq(session.verbs, d),
}
