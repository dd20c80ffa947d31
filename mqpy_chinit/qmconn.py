"""The channel initiator's MQI connection to its queue manager, in trio.

A SVRCONN conversation calls the queue manager once for every MQI call of its client. Over the
blocking ``mqpy.bindings`` connection each call had to go to a worker thread and back; this
connection is the same protocol on the same socket (``<qmgr dir>/qm.sock``) driven by the
event loop, so a call costs a send and a receive. The verbs are ``mqpy.verbs``' exchanges.

A waiting MQGET waits in the queue manager. A call cut off half-way (the conversation's
client went, the channel was stopped) leaves request and reply out of step, so the connection
is dropped: the queue manager then backs its unit of work out, as for any application that
ends without MQDISC.
"""

from __future__ import annotations

import socket
from typing import Any

import trio

from mqpy import CMQC, config, mqiproto
from mqpy.bindings import Flows, bind_address, socket_path
from mqpy.errors import MQMIError
from mqpy.verbs import AsyncMQIVerbs, copy_fields
from mqpy_chinit.wire import ProtocolError, SegmentType

__all__ = ["QMConnection", "connect"]

_FAILED = CMQC.MQCC_FAILED
_BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError, OSError, ProtocolError,
           EOFError)


async def connect(qmgr: str, data_path: str | None, *,
                  security: mqiproto.ConnSecurity | None = None,
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
    conn = QMConnection(trio.SocketStream(sock), qmgr)
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
    """An Hconn on the queue manager's socket, for trio tasks; one call at a time."""

    def __init__(self, stream: trio.SocketStream, qmgr_name: str) -> None:
        self._stream: trio.SocketStream | None = stream
        self._lock = trio.Lock()
        self._flows = Flows()
        self.qmgr_name = qmgr_name
        self.hconn = 0
        self.broken = False

    async def _call(self, verb: SegmentType, values: Any = (), *, hobj: int = 0,
                    into: tuple[Any, ...] = ()) -> mqiproto.Decoded:
        flows = self._flows
        request = flows.request(verb, values, hobj)
        lock = self._lock
        try:
            lock.acquire_nowait()  # free (one call at a time): no scheduler round to take it
        except trio.WouldBlock:
            await lock.acquire()
        try:
            stream = self._stream
            if stream is None:
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN if self.broken
                                else CMQC.MQRC_HCONN_ERROR)
            completed = False
            try:
                await stream.send_all(request)  # a checkpoint: the send yields
                while (reply := flows.reply()) is None:
                    flows.feed(await stream.receive_some(1 << 16))
                completed = True
            except _BROKEN:
                raise MQMIError(_FAILED, CMQC.MQRC_CONNECTION_BROKEN) from None
            finally:
                if not completed:  # broken, or cancelled between request and reply
                    self.broken = True
                    self._drop()
        finally:
            lock.release()
        if reply.comp == _FAILED:
            for dst, src in zip(into, reply.values or (), strict=False):
                copy_fields(dst, src)  # a distribution list's response records
            raise MQMIError(reply.comp, reply.reason)
        return reply

    def _drop(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.socket.close()

    async def disconnect(self) -> None:
        """MQDISC: the queue manager commits an open unit of work, as on a normal end."""
        if self._stream is None:
            return
        try:
            await self._call(SegmentType.MQDISC)
        finally:
            self._drop()

    def abend(self) -> None:
        """Drop the connection without MQDISC: the queue manager backs the unit of work out."""
        self._drop()
