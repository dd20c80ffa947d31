"""The application side of a bindings connection: the MQI over the queue manager's Unix socket.

:func:`connect` is MQCONN to a queue manager running in another process (``strmqm``); the
:class:`BindingsConnection` it returns has the engine ``Connection``'s methods, so
``mqpy.QueueManager`` and ``mqpy.Queue`` work over it unchanged. Every call is one request and
one reply (``mqpy.fap.mqiflows`` bodies in ``mqpy.fap.framing`` segments); a lock makes a
connection safe to share between threads, one call at a time, like an Hconn.

Failures are MQ's: nobody listening on the socket is MQRC_Q_MGR_NOT_AVAILABLE (2059) at connect;
a connection that breaks under a call (the queue manager ended or was killed) is
MQRC_CONNECTION_BROKEN (2009) on that call and every later one.

The socket is ``<qmgr dir>/qm.sock``. A Unix socket address holds at most 107 bytes, so a longer
path is reached through the directory's ``/proc/self/fd/N`` link (:func:`bind_address`).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from mqpy import CMQC, config, connstate
from mqpy.bindings_calls import SPUN_VERBS, TemplatedCalls
from mqpy.bindings_templates import Templates
from mqpy.collected import ClosedLater
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import MQIReply, MQIRequest
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.mqicalls import MQIVerbs, failure
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import OtherSegment, SegmentType
from mqpy.readahead import ReadAheadVerbs, stream_sink
from mqpy.spinwait import SpinWait

__all__ = [
    "MAX_MSG_SIZE",
    "MAX_TRANSMISSION_SIZE",
    "BindingsConnection",
    "bind_address",
    "connect",
    "socket_path",
]

SOCKET_NAME = "qm.sock"
#: Segments on the local socket may be long: there is no network MTU to respect.
MAX_TRANSMISSION_SIZE = 1 << 20
#: IBM's largest MAXMSGL (100 MB); a flow beyond this plus headers is a protocol error.
MAX_MSG_SIZE = 104_857_600
_SUN_PATH_MAX = 100  # sun_path is 108 bytes; keep a margin

_FAILED, _WARNING = CMQC.MQCC_FAILED, CMQC.MQCC_WARNING
_T = SegmentType


def socket_path(qmdir: str) -> str:
    """The bindings socket of the queue manager whose directory is ``qmdir``."""
    return os.path.join(qmdir, SOCKET_NAME)


@contextlib.contextmanager
def bind_address(path: str) -> Iterator[str]:
    """An address for ``path`` usable with bind/connect, however long the path is."""
    if len(os.fsencode(path)) <= _SUN_PATH_MAX:
        yield path
        return
    fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield f"/proc/self/fd/{fd}/{os.path.basename(path)}"
    finally:
        os.close(fd)


def _appl_name() -> str:
    return (os.path.basename(sys.argv[0] or "python") or "python")[-28:]


def connect(qmgr: str = "", data_path: str | None = None, *,
            security: mqiparams.ConnSecurity | None = None,
            appl_name: str | None = None, options: int = 0) -> BindingsConnection:
    """MQCONN in bindings mode to queue manager ``qmgr`` (default: mqs.ini's default).

    ``security`` carries an MQCSP (user id and password, checked by CONNAUTH's CHCKLOCL, the
    connection then runs as that user once authenticated, with ADOPTCTX(YES)) and, for a
    channel initiator only, the identity of the client it connects for. Refused: MQRC_NOT_AUTHORIZED (2035).
    ``options``: an MQCONNX's MQCNO Options, sent in the MQCONN body's Options field (the
    queue manager acts on the accounting ones only)."""
    name = qmgr.strip() or config.default_qmgr(data_path) or ""
    if not name:
        raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
    path = socket_path(config.qmgr_dir(name, data_path))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with bind_address(path) as address:
            sock.connect(address)
    except PermissionError:  # a user the queue manager admits not even to its socket
        sock.close()
        raise MQMIError(_FAILED, CMQC.MQRC_NOT_AUTHORIZED) from None
    except OSError:
        sock.close()
        raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
    conn = BindingsConnection(sock, name)
    try:
        reply = conn._call(_T.MQCONN, [(name, (appl_name or _appl_name())[:28], options),
                                        security])
    except MQMIError as e:
        if e.reason == CMQC.MQRC_CONNECTION_BROKEN:  # it went away before answering
            raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
        raise
    conn.hconn = reply.hobj
    conn.qmgr_name = reply.values[0][0]
    return conn


class Flows:
    """The application's side of the socket's protocol, sans-IO: a request out as bytes,
    bytes in, decoded replies out. A blocking and a trio connection drive it alike."""

    def __init__(self) -> None:
        self._reader = SegmentReader(MAX_TRANSMISSION_SIZE, max_msg_size=MAX_MSG_SIZE)
        self._writer = SegmentWriter(MAX_TRANSMISSION_SIZE)
        self._pending: list[Any] = []
        #: where read ahead's flows go (ASYNC_MESSAGE, NOTIFICATION: mqpy.readahead)
        self.streamed: Callable[[OtherSegment], None] | None = None
        self._stream_missing = 0  # bytes the reader lacks of a streamed flow (feed_stream)
        #: replies still to come to asynchronous puts, which nobody waits for: dropped
        #: wherever they come among read ahead's flows, or before the next call's
        self.unanswered = 0

    def request(self, verb: SegmentType, values: Any, hobj: int) -> bytes:
        return self._writer.send(mqiflows.encode_request(verb, values, hobj=hobj))

    def reply(self, targets: tuple[Any, ...] = ()) -> mqiflows.Decoded | None:
        """The next reply, once its bytes are all in (None until then); EOFError for a flow
        that is not an MQI reply, ProtocolError for a malformed one. ``targets``: the
        caller's structures a reply that did not fail is decoded into (mqicalls.Request)."""
        self.route_streamed()
        if not self._pending:
            return None
        event = self._pending.pop(0)
        if not isinstance(event, MQIReply):
            raise EOFError(f"{type(event).__name__} where an MQI reply was expected")
        return mqiflows.decode_reply(event, event.byte_order,
                                     into=targets if event.comp != _FAILED else ())

    def route_streamed(self) -> None:
        """Read ahead's flows that came before the next reply, to ``streamed``."""
        pending = self._pending
        while pending and self.streamed is not None:
            if type(pending[0]) is OtherSegment:
                self.streamed(pending.pop(0))
            elif isinstance(pending[0], MQIReply) and self.unanswered:
                pending.pop(0)  # an asynchronous put's, among the streamed flows
                self.unanswered -= 1
            else:
                return

    def feed_stream(self, data: bytes, split: Callable[[bytes], tuple[int, int]]) -> None:
        """``data`` as :meth:`feed` takes it, read ahead's whole flows first handed to
        ``split`` (``mqpy.readahead.split_stream``) without making events of them, when
        nothing received before waits to be read but the start of one of those flows (which
        the reader is given the rest of first)."""
        if not data:
            raise EOFError("the queue manager closed the connection")
        missing = self._stream_missing
        if missing:  # the rest of that flow to the reader: its event, routed
            self._stream_missing = max(0, missing - len(data))
            self.feed(data[:missing])
            self.route_streamed()
            data = data[missing:]
            if not data:
                return
        if not self._pending and not self._reader.buffered \
                and not self._reader.reassembling:
            used, missing = split(data)
            if used == len(data):
                return
            self._stream_missing = missing
            data = data[used:]
        self.feed(data)
        self.route_streamed()

    def feed(self, data: bytes) -> None:
        if not data:
            raise EOFError("the queue manager closed the connection")
        self._pending.extend(self._reader.feed(data))

    # -- a request passed on as it came (the SVRCONN relay) ----------------------------------
    def discard(self) -> bool:
        """Drop the next reply if its bytes are all in (True); EOFError for a flow that is
        not an MQI reply. The reply of an asynchronous put, which nobody waits for."""
        self.route_streamed()  # read ahead's flows that came first
        if not self._pending:
            return False
        if not isinstance(self._pending.pop(0), MQIReply):
            raise EOFError("a flow where an MQI reply was expected")
        return True

    def relayed(self, request: MQIRequest) -> bytes:
        return self._writer.send(request)

    def relayed_reply(self, verb: SegmentType) -> MQIReply | None:
        """The reply to a relayed ``verb`` as it came (None until its bytes are all in)."""
        if not self._pending:
            return None
        event = self._pending.pop(0)
        if not isinstance(event, MQIReply) or event.segment_type != mqiflows.reply_type(verb):
            raise EOFError(f"{type(event).__name__} where the MQI reply was expected")
        return event


class BindingsConnection(ClosedLater, ReadAheadVerbs, TemplatedCalls, MQIVerbs):
    """An Hconn held through the queue manager's socket; the engine Connection's methods
    (MQGET with read ahead: ``mqpy.readahead``; a collected Queue's MQCLOSE:
    ``mqpy.collected``)."""

    def __init__(self, sock: socket.socket, qmgr_name: str) -> None:
        self._sock: socket.socket | None = sock
        self._lock = threading.Lock()
        #: held for each write of the socket: a CONN_STATE wake (:meth:`wake_waiting_get`),
        #: written without ``_lock``, never lands between the pieces of a request's bytes
        self._send_lock = threading.Lock()
        self._flows = Flows()
        self._flows.streamed = stream_sink(self)
        self._templates = Templates()
        self._waits = {verb: SpinWait() for verb in SPUN_VERBS}
        self._collected = deque()
        self.qmgr_name = qmgr_name
        self.hconn = 0
        self.connected = True
        self.broken = False

    def get(self, hobj: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
        """MQGET: read ahead's (``ReadAheadVerbs.get``) on a handle it buffers for, else
        the packed call (``TemplatedCalls.get``) at once, without read ahead's layer."""
        buffers = self.__dict__.get("_ra_buffers")
        if buffers and hobj in buffers:
            return ReadAheadVerbs.get(self, hobj, md, gmo, max_length)
        return TemplatedCalls.get(self, hobj, md, gmo, max_length)

    def _check_length(self, data: bytes) -> None:
        """A message longer than MAXMSGL's largest value (100 MB) is longer than any queue
        manager takes: MQRC_MSG_TOO_BIG_FOR_Q_MGR (2031) here, as the queue manager would
        answer, rather than a flow its socket refuses, which would break the connection."""
        if len(data) > MAX_MSG_SIZE:
            raise MQMIError(_FAILED, CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR)

    # -- one call -------------------------------------------------------------------------

    def _usable_sock(self) -> socket.socket:
        """The socket, lock held; MQRC_CONNECTION_BROKEN once it broke, MQRC_HCONN_ERROR
        after MQDISC."""
        if self._sock is None:
            raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN if self.broken
                            else CMQC.MQRC_HCONN_ERROR)
        return self._sock

    def _exchange(self, verb: SegmentType, values: Any, hobj: int,
                  into: tuple[Any, ...], targets: tuple[Any, ...] = ()) -> mqiflows.Decoded:
        """Send one request, wait for its reply; raise MQMIError on MQCC_FAILED (after
        copying a failed reply's structures, if it has any, ``into`` the caller's)."""
        if self._collected and verb is not _T.MQCLOSE:
            self._close_collected()
        flows = self._flows
        request = flows.request(verb, values, hobj)
        with self._lock:
            sock = self._usable_sock()
            try:
                if self._flows.unanswered:
                    self._take_replies(sock, wait=True)  # asynchronous puts' first
                self._write(sock, request)
                while (reply := flows.reply(targets)) is None:
                    flows.feed(sock.recv(1 << 16))
            except (OSError, ProtocolError, EOFError):
                self._lost()
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
        if reply.comp == _FAILED:
            raise failure(reply, into)
        return reply

    def _send_only(self, verb: SegmentType, values: Any, hobj: int) -> None:
        """Send one request without waiting for its reply (an asynchronous put); the replies
        that have come are read and dropped (lock held), so that the queue manager never
        waits for room in the socket to answer."""
        if self._collected:
            self._close_collected()
        request = self._flows.request(verb, values, hobj)
        with self._lock:
            sock = self._usable_sock()
            try:
                self._write(sock, request)
                self._flows.unanswered += 1
                self._take_replies(sock, wait=False)
            except (OSError, ProtocolError, EOFError):
                self._lost()
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None

    def _take_replies(self, sock: socket.socket, wait: bool) -> None:
        """Drop the replies to asynchronous puts: all of them (``wait``), or those in."""
        flows = self._flows
        while flows.unanswered:
            if flows.discard():
                flows.unanswered -= 1
                continue
            if not flows.unanswered:
                return  # the last were dropped among read ahead's flows (Flows.route_streamed)
            if wait:
                flows.feed(sock.recv(1 << 16))
                continue
            try:
                flows.feed(sock.recv(1 << 16, socket.MSG_DONTWAIT))
            except BlockingIOError:
                return

    def _write(self, sock: socket.socket, data: bytes) -> None:
        """Write ``data`` whole (``_lock`` held), no other thread's write between its
        pieces: a long write goes out in several (the kernel's, ``sendall``'s loop)."""
        with self._send_lock:
            sock.sendall(data)

    def wake_waiting_get(self) -> None:
        """MQCTL STOP / SUSPEND or MQDISC from another thread while the dispatcher's get
        waits: the CONN_STATE flow (``mqpy.connstate``) written beside that call, not under
        its lock (which the waiting get holds), but under the lock of the socket's writes:
        the get may have just ended and the dispatcher's next request be going out; one
        small write, which the queue manager reads while the get waits."""
        sock = self._sock
        if sock is not None:
            try:
                with self._send_lock:
                    sock.sendall(connstate.flow())
            except OSError:
                pass  # broken: the waiting get finds that out

    def peer_closed(self) -> bool:
        """Whether the connection broke or the queue manager has closed its socket (an end
        of stream waiting to be read), seen without reading, between calls: the event
        handler of a connection whose consumption is stopped or suspended is told
        (``mqpy.asyncconsume``). A call in flight finds it out itself (False then); so
        does one after flows waiting to be read (read ahead's)."""
        if self.broken:
            return True
        if not self._lock.acquire(blocking=False):
            return False
        try:
            sock = self._sock
            if sock is None:
                return False
            return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True
        finally:
            self._lock.release()

    @contextlib.contextmanager
    def exchange_here(self) -> Iterator[tuple[socket.socket, Flows] | None]:
        """The connection for one call whose bytes the caller moves itself (a channel
        initiator's event loop: ``mqpy_chinit.batchcalls.call_in_loop``): its socket and flows,
        under the lock :meth:`_exchange` takes, or None when another thread's call holds it.
        A call that does not complete (an exception out of the block) drops the connection,
        as one of :meth:`_exchange`'s that fails half-way does."""
        if not self._lock.acquire(blocking=False):
            yield None
            return
        try:
            sock = self._usable_sock()
            completed = False
            try:
                yield sock, self._flows  # (a channel initiator's: no consumer, no wake)
                completed = True
            finally:
                if not completed:
                    self._lost()
        finally:
            self._lock.release()

    def _call_run(self, requests: list[Any], limit: int,
                  quiet: frozenset[int] = frozenset()) -> list[mqiflows.Decoded]:
        """The calls as one SPI RUN: one round trip for a channel's batch."""
        if len(requests) < 2:
            return super()._call_run(requests, limit, quiet)
        flows = mqiflows.pack_flows([mqiflows.encode_request(verb, values, hobj=hobj)
                                     for verb, values, hobj, _into, _targets in requests])
        # every put quiet: the queue manager need not even pack their structures
        spi = mqiflows.SpiVerb.RUN_QUIET if all(
            i in quiet for i, request in enumerate(requests)
            if request[0] in (_T.MQPUT, _T.MQPUT1)) else mqiflows.SpiVerb.RUN
        events = self.run_flows(flows, limit, spi)
        try:
            return [mqiflows.decode_reply(
                        event, structures=i not in quiet,
                        into=requests[i][4] if event.comp != _FAILED and i < len(requests)
                        else ())
                    for i, event in enumerate(events)]
        except ProtocolError:
            raise self.out_of_step() from None

    def run_flows(self, flows: bytes, limit: int,
                  spi: mqiflows.SpiVerb = mqiflows.SpiVerb.RUN) -> list[Any]:
        """One SPI RUN of requests already packed (``flows``, mqiflows.pack_flows): the
        replies' events, not decoded, for a caller that reads only part of each (the sending
        MCA's gets keep their MQMDs packed, mqpy_chinit.batchcalls)."""
        reply = self._call(_T.SPI, [spi, flows, limit])
        try:
            return mqiflows.unpack_flows(b"".join(reply.values[0]))
        except ProtocolError:
            raise self.out_of_step() from None

    def out_of_step(self) -> MQMIError:
        """Replies that cannot be read: the connection is out of step with the queue manager
        and is dropped; the error for the caller to raise (MQRC_CONNECTION_BROKEN)."""
        with self._lock:
            self._lost()
        return MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN)

    def _stream_send(self, data: bytes) -> None:
        """Read ahead's request, written without waiting for its answer."""
        self._stream_io(lambda sock: self._write(sock, data))

    def _stream_pump(self) -> None:
        """Read what has come of read ahead's answers (waiting for some)."""
        def pump(sock: socket.socket) -> None:
            self._flows.feed_stream(sock.recv(1 << 16), self._ra_split)

        self._stream_io(pump)

    def _stream_io(self, io: Callable[[socket.socket], None]) -> None:
        """``io`` on the socket under the connection's lock; a failure drops the connection
        (MQRC_CONNECTION_BROKEN), as one of :meth:`_exchange`'s does."""
        if self._collected:
            self._close_collected()
        with self._lock:
            sock = self._usable_sock()
            try:
                io(sock)
            except (OSError, ProtocolError, EOFError):
                self._lost()
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None

    def _lost(self) -> None:
        self._ra_forget()
        self.broken = True
        self.connected = False
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    # -- the MQI: mqpy.fap.mqicalls; the channel initiator's service interface ----------------------

    def channel_decision(self, query: dict[str, Any]) -> dict[str, Any]:
        """The queue manager's CHLAUTH decision for an inbound channel (channel initiator)."""
        reply = self._call(_T.SPI, [mqiflows.SpiVerb.CHLAUTH,
                                    json.dumps(query).encode("utf-8"), 0])
        return json.loads(reply.values[0][0])

    def prepare(self, luwid: bytes) -> None:
        """Harden the unit of work in doubt under ``luwid`` (a sending MCA's batch)."""
        self._call(_T.SPI, [mqiflows.SpiVerb.PREPARE, luwid, 0])

    def resolve(self, luwid: bytes, commit: bool, wait: bool = True) -> None:
        """Commit or back out the in-doubt unit of work ``luwid``; ``wait`` False: a commit
        answered before its log force (mqiflows.RESOLVE_NO_WAIT), as the engine
        Connection's."""
        self._call(_T.SPI, mqiflows.resolve_values(luwid, commit, wait))

    def indoubt(self) -> list[bytes]:
        """LUWIDs of the queue manager's in-doubt units of work."""
        return list(self._call(_T.SPI, [mqiflows.SpiVerb.INDOUBT, b"", 0]).values[0])

    def disconnect(self) -> None:
        """MQDISC: the queue manager commits an open unit of work, as on a normal end."""
        if self._sock is None:
            return
        self._forget_collected()
        try:
            self._call(_T.MQDISC)
        finally:
            self._ra_forget()  # what read ahead had buffered is lost
            with self._lock:
                if self._sock is not None:
                    self._sock.close()
                    self._sock = None
            self.connected = False

    def abend(self) -> None:
        """Drop the connection without MQDISC: the queue manager backs the unit of work out."""
        with self._lock:
            self._lost()
        self.broken = False
