"""The application side of a bindings connection: the MQI over the queue manager's Unix socket.

:func:`connect` is MQCONN to a queue manager running in another process (``strmqm``); the
:class:`BindingsConnection` it returns has the engine ``Connection``'s methods, so
``mqpy.QueueManager`` and ``mqpy.Queue`` work over it unchanged. Every call is one request and
one reply (``mqpy.mqiproto`` bodies in ``mqpy_chinit.framing`` segments); a lock makes a
connection safe to share between threads, one call at a time, like an Hconn.

Failures are MQ's: nobody listening on the socket is MQRC_Q_MGR_NOT_AVAILABLE (2059) at connect;
a connection that breaks under a call (the queue manager ended or was killed) is
MQRC_CONNECTION_BROKEN (2009) on that call and every later one.

The socket is ``<qmgr dir>/qm.sock``. A Unix socket address holds at most 107 bytes, so a longer
path is reached through the directory's ``/proc/self/fd/N`` link (:func:`bind_address`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
from collections.abc import Iterator
from typing import Any

from mqpy import CMQC, config, mqiproto
from mqpy.errors import MQMIError
from mqpy.structures import GMO, MD, OD, PMO
from mqpy_chinit.framing import SegmentReader, SegmentWriter
from mqpy_chinit.wire import ByteOrder, MQIReply, ProtocolError, SegmentType

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


def _copy(dst: Any, src: Any) -> None:
    """Give the caller's structure the fields the queue manager returned (MQ's in/out
    parameters)."""
    dst.update_from(src)


def connect(qmgr: str = "", data_path: str | None = None, *,
            security: mqiproto.ConnSecurity | None = None,
            appl_name: str | None = None) -> BindingsConnection:
    """MQCONN in bindings mode to queue manager ``qmgr`` (default: mqs.ini's default).

    ``security`` carries an MQCSP (user id and password, checked by CONNAUTH's CHCKLOCL, the
    connection then runs as that user once authenticated, with ADOPTCTX(YES)) and, for a
    channel initiator only, the identity of the client it connects for. Refused: MQRC_NOT_AUTHORIZED (2035)."""
    name = qmgr.strip() or config.default_qmgr(data_path) or ""
    if not name:
        raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
    path = socket_path(config.qmgr_dir(name, data_path))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with bind_address(path) as address:
            sock.connect(address)
    except OSError:
        sock.close()
        raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
    conn = BindingsConnection(sock, name)
    try:
        reply = conn._call(_T.MQCONN, [(name, (appl_name or _appl_name())[:28]), security])
    except MQMIError as e:
        if e.reason == CMQC.MQRC_CONNECTION_BROKEN:  # it went away before answering
            raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE) from None
        raise
    conn.hconn = reply.hobj
    conn.qmgr_name = reply.values[0][0]
    return conn


class BindingsConnection:
    """An Hconn held through the queue manager's socket; the engine Connection's methods."""

    def __init__(self, sock: socket.socket, qmgr_name: str) -> None:
        self._sock: socket.socket | None = sock
        self._lock = threading.Lock()
        self._reader = SegmentReader(MAX_TRANSMISSION_SIZE, max_msg_size=MAX_MSG_SIZE)
        self._writer = SegmentWriter(MAX_TRANSMISSION_SIZE)
        self._pending: list[Any] = []
        self.qmgr_name = qmgr_name
        self.hconn = 0
        self.connected = True
        self.broken = False

    # -- one call -------------------------------------------------------------------------

    def _call(self, verb: SegmentType, values: Any = (), *, hobj: int = 0,
              into: tuple[Any, ...] = ()) -> mqiproto.Decoded:
        """Send one request, wait for its reply; raise MQMIError on MQCC_FAILED (after
        copying a failed reply's structures, if it has any, ``into`` the caller's)."""
        request = mqiproto.encode_request(verb, values, hobj=hobj)
        with self._lock:
            if self._sock is None:
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN if self.broken
                                else CMQC.MQRC_HCONN_ERROR)
            try:
                self._sock.sendall(self._writer.send(request))
                reply = self._receive(self._sock)
            except (OSError, ProtocolError, EOFError):
                self._lost()
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
        if reply.comp == _FAILED:
            for dst, src in zip(into, reply.values or (), strict=False):
                _copy(dst, src)
            raise MQMIError(reply.comp, reply.reason)
        return reply

    def _receive(self, sock: socket.socket) -> mqiproto.Decoded:
        while not self._pending:
            data = sock.recv(1 << 16)
            if not data:
                raise EOFError("the queue manager closed the connection")
            self._pending.extend(self._reader.feed(data))
        event = self._pending.pop(0)
        if not isinstance(event, MQIReply):
            raise EOFError(f"{type(event).__name__} where an MQI reply was expected")
        return mqiproto.decode_reply(event, self._reader.partner_byte_order or ByteOrder.LITTLE)

    def _lost(self) -> None:
        self.broken = True
        self.connected = False
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    @staticmethod
    def _warning(reply: mqiproto.Decoded) -> int:
        """A warning reply without a body is raised (MQINQ's 2068); with one it is returned."""
        if reply.comp == _WARNING and reply.values is None:
            raise MQMIError(reply.comp, reply.reason)
        return reply.reason if reply.comp == _WARNING else 0

    # -- the MQI --------------------------------------------------------------------------

    def open(self, od: OD, options: int) -> int:
        reply = self._call(_T.MQOPEN, [od, options], into=(od,))
        _copy(od, reply.values[0])
        return reply.hobj

    def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        self._call(_T.MQCLOSE, [options], hobj=hobj)

    def put(self, hobj: int, md: MD, pmo: PMO, data: bytes) -> int:
        """MQPUT; returns 0 or the reason of the warning the call completed with."""
        reply = self._call(_T.MQPUT, [md, pmo, bytes(data)], hobj=hobj, into=(md, pmo))
        warning = self._warning(reply)
        _copy(md, reply.values[0])
        _copy(pmo, reply.values[1])
        return warning

    def put1(self, od: OD, md: MD, pmo: PMO, data: bytes) -> int:
        reply = self._call(_T.MQPUT1, [od, md, pmo, bytes(data)], into=(od, md, pmo))
        warning = self._warning(reply)
        for dst, src in zip((od, md, pmo), reply.values, strict=True):
            _copy(dst, src)
        return warning

    def get(self, hobj: int, md: MD, gmo: GMO, max_length: int | None) -> bytes:
        """MQGET (waiting, with MQGMO_WAIT, in the queue manager). Truncation warnings are
        raised as the engine raises them: 2079 with ``.message``, both with
        ``.original_length``."""
        reply = self._call(_T.MQGET, [md, gmo, -1 if max_length is None else max_length],
                           hobj=hobj)
        self._warning(reply)
        reply_md, reply_gmo, original_length, data = reply.values
        _copy(md, reply_md)
        _copy(gmo, reply_gmo)
        if reply.comp == _WARNING:
            err = MQMIError(reply.comp, reply.reason)
            err.original_length = original_length  # type: ignore[attr-defined]
            if reply.reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
                err.message = data  # type: ignore[attr-defined]
            raise err
        return data

    def commit(self) -> None:
        self._call(_T.MQCMIT)

    def backout(self) -> None:
        self._call(_T.MQBACK)

    def inquire(self, hobj: int, selector: int) -> int | bytes:
        reply = self._call(_T.MQINQ, [[selector]], hobj=hobj)
        self._warning(reply)
        return reply.values[0][0]

    def inquire_qmgr(self, selector: int) -> int | bytes:
        return self.inquire(0, selector)

    def set(self, hobj: int, selector: int, value: int | bytes | str) -> None:
        self._call(_T.MQSET, [selector, value], hobj=hobj)

    def channel_decision(self, query: dict[str, Any]) -> dict[str, Any]:
        """The queue manager's CHLAUTH decision for an inbound channel (channel initiator)."""
        import json

        reply = self._call(_T.SPI, [mqiproto.SpiVerb.CHLAUTH,
                                    json.dumps(query).encode("utf-8"), 0])
        return json.loads(reply.values[0][0])

    def prepare(self, luwid: bytes) -> None:
        """Harden the unit of work in doubt under ``luwid`` (a sending MCA's batch)."""
        self._call(_T.SPI, [mqiproto.SpiVerb.PREPARE, luwid, 0])

    def resolve(self, luwid: bytes, commit: bool) -> None:
        """Commit or back out the in-doubt unit of work ``luwid``."""
        self._call(_T.SPI, [mqiproto.SpiVerb.RESOLVE, luwid, int(commit)])

    def indoubt(self) -> list[bytes]:
        """LUWIDs of the queue manager's in-doubt units of work."""
        return list(self._call(_T.SPI, [mqiproto.SpiVerb.INDOUBT, b"", 0]).values[0])

    def disconnect(self) -> None:
        """MQDISC: the queue manager commits an open unit of work, as on a normal end."""
        if self._sock is None:
            return
        try:
            self._call(_T.MQDISC)
        finally:
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
