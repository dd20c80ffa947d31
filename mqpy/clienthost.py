"""The queue manager's client host: SVRCONN instances served in the queue-manager process.

qm.ini ``Channels: MQIBindType=FASTPATH`` is IBM's knob for "channels connect using MQCONNX
FASTPATH; there is no agent process". mqpy's analogue: the channel initiator's listener still
accepts a client, checks BLOCKADDR, tells TLS from plain and reads the INITIAL_DATA naming a
SVRCONN; then, for a plain (non-TLS) SVRCONN, it hands the connected socket to this process
over ``qm.fastpath.sock`` (``socket.send_fds``, SCM_RIGHTS) with the bytes it has read from
it, and closes its own copy. Here the socket is read again from those bytes and served by
``svrconn.serve_client`` against the engine of this process: a client's MQPUT and MQGET are
memory work in this event loop, with no relay through the bindings socket.

Everything else about the channel is as for a STANDARD one: MAXINST and MAXINSTC (the
instances of a plain channel all live here, so this registry counts them), CHLAUTH at MQCONN,
CONNAUTH and object authority in the engine. The channel initiator answers DISPLAY CHSTATUS
and STOP CHANNEL for the operator; it asks this host over the same socket (a *command*) and
merges the answer with its own.

Only the queue manager's own user may hand a socket over or send a command
(:func:`peer_allowed`, SO_PEERCRED): a local user connecting to ``qm.fastpath.sock`` cannot
smuggle a connection past the listener's checks, nor stop a channel.

Frames (both ways a 4-byte big-endian length before each part):

- request: kind (``S`` a socket, ``C`` a command), JSON header, body; a socket's file
  descriptor travels with the first bytes, its body is what the listener read from it;
- answer: JSON (``{"ok": true}`` once a socket is taken; a command's reply).
"""

from __future__ import annotations

import array
import functools
import json
import math
import os
import socket
import struct
from collections.abc import Callable
from typing import Any

import trio

from mqpy import config
from mqpy.bindings import bind_address

__all__ = ["SOCKET_NAME", "ClientHost", "HandOffFailed", "ask", "hand_off", "peer_allowed",
           "socket_path"]

SOCKET_NAME = "qm.fastpath.sock"
#: how long the channel initiator waits for the host to take a socket or answer a command
TIMEOUT = 10.0
_LEN = struct.Struct(">I")
_MAX_HEADER = 1 << 20
_MAX_BODY = 1 << 24

LogFn = Callable[[str, str], None]


class HandOffFailed(Exception):
    """The client host did not take the socket (or answer): why, for the log."""


def socket_path(qmgr: str, root: str | None = None) -> str:
    return os.path.join(config.qmgr_dir(qmgr, root), SOCKET_NAME)


def peer_allowed(peer_uid: int, own_uid: int | None = None) -> bool:
    """Whether a peer of the hand-off socket may use it: only the queue manager's own user
    (the channel initiator runs as it)."""
    return peer_uid == (os.getuid() if own_uid is None else own_uid)


def _peer_uid(sock: Any) -> int:
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def _frame(kind: bytes, header: dict[str, Any], body: bytes = b"") -> bytes:
    head = json.dumps(header).encode()
    return kind + _LEN.pack(len(head)) + head + _LEN.pack(len(body)) + body


# ---------------------------------------------------------------------------- the asking side


async def _exchange(path: str, frame: bytes, fd: int | None) -> dict[str, Any]:
    """Send ``frame`` (with ``fd``) to the host at ``path`` and return its JSON answer."""
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with trio.fail_after(TIMEOUT):
            with bind_address(path) as address:
                await sock.connect(address)
            view = memoryview(frame)
            if fd is not None:
                fds = array.array("i", [fd])
                sent = await sock.sendmsg([view], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                                    fds)])
                view = view[sent:]
            while view:
                view = view[await sock.send(view):]
            answer = await _read_answer(sock)
    except trio.TooSlowError:
        raise HandOffFailed(f"no answer from the queue manager within {TIMEOUT:g} "
                            f"seconds") from None
    except OSError as exc:
        raise HandOffFailed(exc.strerror or str(exc)) from None
    finally:
        sock.close()
    return answer


async def _read_answer(sock: Any) -> dict[str, Any]:
    data = b""
    while len(data) < _LEN.size or len(data) < _LEN.size + _LEN.unpack_from(data)[0]:
        chunk = await sock.recv(65536)
        if not chunk:
            raise HandOffFailed("the queue manager closed the hand-off socket")
        data += chunk
    try:
        answer = json.loads(data[_LEN.size:_LEN.size + _LEN.unpack_from(data)[0]])
    except ValueError as exc:
        raise HandOffFailed(f"a garbled answer: {exc}") from None
    if not isinstance(answer, dict):
        raise HandOffFailed("a garbled answer")
    return answer


async def hand_off(path: str, sock: Any, read: bytes, peer: str) -> None:
    """Give the connected client socket ``sock`` (its ``read`` bytes already taken from it) to
    the client host at ``path``. Returns once the host has it; HandOffFailed otherwise (the
    caller still owns the socket then)."""
    answer = await _exchange(path, _frame(b"S", {"peer": peer}, read), sock.fileno())
    if not answer.get("ok"):
        raise HandOffFailed(str(answer.get("message") or "refused"))


async def ask(path: str, request: dict[str, Any]) -> dict[str, Any]:
    """A channel command (STATUS, STOP) for the host's SVRCONN instances: its reply."""
    return await _exchange(path, _frame(b"C", request), None)


# ---------------------------------------------------------------------------- the host


class ClientHost:
    """The daemon's SVRCONN instances: a channel initiator over the engine of this process
    with no listener, no message channels and no SYSTEM.CHANNEL.INITQ, which serves the
    sockets its channel initiator hands over."""

    def __init__(self, engine: Any, path: str, log: LogFn,
                 peer_limits: config.PeerLimits | None = None) -> None:
        from mqpy import local
        from mqpy_chinit import svrconn
        from mqpy_chinit.chinit import ChannelInitiator, EngineAdmin

        self.engine = engine
        self.path = path
        self.log = log
        channels = config.ChannelsConfig(peer=peer_limits) if peer_limits else None
        self.chinit = ChannelInitiator(engine.name, lambda: local.attach(engine),
                                       EngineAdmin(engine), log=log, channels=channels)
        self.chinit.svrconn_handler = svrconn.serve_client
        self.serving = 0  # handed-over sockets being served
        self._changed = trio.Event()

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with bind_address(self.path) as address:
            if os.path.lexists(self.path):  # left by a killed daemon: we hold qm.lock
                os.unlink(self.path)
            await listener.bind(address)
            os.chmod(self.path, 0o600)
            listener.listen(128)
        try:
            async with trio.open_nursery() as nursery:
                self.chinit.nursery = nursery
                task_status.started()
                while True:
                    try:
                        conn, _ = await listener.accept()
                    except OSError as exc:  # out of descriptors, say: the daemon goes on
                        self.log("AMQ9999E", f"{SOCKET_NAME} could not accept a hand-off: "
                                 f"{exc.strerror or exc}.")
                        await trio.sleep(0.1)
                        continue
                    nursery.start_soon(self._serve_request, conn)
        finally:
            listener.close()
            try:
                os.unlink(self.path)
            except OSError:
                pass

    async def wait_idle(self) -> None:
        """Return once no handed-over client is connected (a controlled end waits)."""
        while self.serving:
            await self._changed.wait()

    def _served(self, delta: int) -> None:
        self.serving += delta
        self._changed.set()
        self._changed = trio.Event()

    async def _serve_request(self, conn: Any) -> None:
        try:
            await self._serve_request_on(conn)
        finally:
            conn.close()

    async def _serve_request_on(self, conn: Any) -> None:
        fds: list[int] = []
        try:
            uid = _peer_uid(conn)
            if not peer_allowed(uid):
                self.log("AMQ9999E", f"A connection to {SOCKET_NAME} from user id {uid} was "
                         f"refused: only the queue manager's user may hand channels over.")
                return
            with trio.fail_after(TIMEOUT):
                kind, header, body = await _read_request(conn, fds)
            if kind == b"C":
                try:
                    reply = await self.command(header)
                except Exception as exc:  # noqa: BLE001 - a command's fault, not the host's
                    reply = {"ok": False, "message": f"AMQ9999E: {exc!r}"}
                await _answer(conn, reply)
                return
            if kind != b"S" or len(fds) != 1:
                await _answer(conn, {"ok": False, "message": "a bad hand-off request"})
                return
            client = socket.socket(fileno=fds.pop())
        except (OSError, ValueError, trio.TooSlowError) as exc:
            self.log("AMQ9999E", f"A hand-off over {SOCKET_NAME} failed: {exc!r}.")
            return
        finally:
            for fd in fds:
                os.close(fd)
        try:
            await _answer(conn, {"ok": True})
        except OSError:
            client.close()  # the channel initiator serves it itself, having had no answer
            return
        conn.close()
        self._served(+1)
        try:
            await self._serve_client(client, body, str(header.get("peer", "")))
        finally:
            self._served(-1)

    async def _serve_client(self, client: socket.socket, read: bytes, peer: str) -> None:
        """Read the client's INITIAL_DATA again from the bytes the listener read and serve
        the SVRCONN it names, as the listener would have."""
        from mqpy.fap import channeldefs as D
        from mqpy.fap import tls
        from mqpy.fap.segments import InitialData, StatusCode
        from mqpy_chinit.conversation import ChannelEnded
        from mqpy_chinit.mca import CONFIRM_TIMEOUT
        from mqpy_chinit.tlsstream import Prefixed

        stream = Prefixed(trio.SocketStream(trio.socket.from_stdlib_socket(client)), read)
        conv = self.chinit.inbound_conversation(stream)  # MaxUnauthBytes until its MQCONN
        try:
            first = await conv.recv(CONFIRM_TIMEOUT)
            name = first.channel_name.strip() if isinstance(first, InitialData) else ""
            definition = await trio.to_thread.run_sync(self.chinit.admin.channel, name) \
                if name else None
            if definition is None or D.str_attr(definition, "CHLTYPE") != "SVRCONN":
                # altered or deleted since the listener looked: as the listener would say
                with trio.CancelScope(shield=True):
                    await conv.close(StatusCode.NO_CHANNEL
                                     if definition is None else StatusCode.CHANNEL_WRONG_TYPE)
                return
            refusal = tls.check_inbound(definition, name, peer, None, None)
            if refusal is not None:
                self.log(refusal.msgid, refusal.text)
                with trio.CancelScope(shield=True):
                    await conv.close(refusal.status)
                return
            # UnauthTimeout from the hand-off to its first MQCONN, as at the listener
            with trio.move_on_after(self.chinit.peer_limits.unauth_timeout) as deadline:
                conv.on_authenticated = functools.partial(setattr, deadline, "deadline",
                                                          math.inf)
                await self.chinit.svrconn_handler(self.chinit, conv, first, definition)
            if deadline.cancelled_caught:
                self.log("AMQ9259E", f"Connection timed out from host {peer}: its channel "
                         f"was not started within {self.chinit.peer_limits.unauth_timeout} "
                         f"seconds (UnauthTimeout).")
        except ChannelEnded as e:
            self.log(e.msgid, f"Inbound connection from {peer}: {e.text}")
        except Exception as exc:  # noqa: BLE001 - one connection's fault, not the host's
            self.log("AMQ9999E", f"Inbound connection from {peer} ended by an unexpected "
                     f"error: {exc!r}.")
        finally:
            with trio.CancelScope(shield=True):
                try:
                    await stream.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass

    async def command(self, request: dict[str, Any]) -> dict[str, Any]:
        """STATUS and STOP of this host's SVRCONN instances (``chinit._command``'s verbs)."""
        from mqpy_chinit import svrconn

        verb = request.get("command")
        if verb == "STATUS":
            return {"ok": True,
                    "status": self.chinit.status_list(str(request.get("channel", "*")))}
        if verb == "STOP":
            stopped = svrconn.stop_instances(
                self.chinit, str(request.get("channel", "")), str(request.get("mode", "")),
                str(request.get("conname", "")))
            return {"ok": True, "stopped": stopped}
        return {"ok": False, "message": f"AMQ8405E: unknown client host command {verb}"}


async def _read_request(conn: Any, fds: list[int]) -> tuple[bytes, dict[str, Any], bytes]:
    """One request: its kind, JSON header and body; its file descriptors into ``fds``."""
    data = b""
    need = 1 + _LEN.size
    header: dict[str, Any] | None = None
    head_end = 0
    while True:
        while len(data) < need:
            chunk, ancdata, _flags, _addr = await conn.recvmsg(
                65536, socket.CMSG_SPACE(4 * array.array("i").itemsize))
            for level, ctype, cdata in ancdata:
                if level == socket.SOL_SOCKET and ctype == socket.SCM_RIGHTS:
                    got = array.array("i")
                    got.frombytes(cdata[:len(cdata) - len(cdata) % got.itemsize])
                    fds.extend(got)
            if not chunk:
                raise ValueError("the request ended early")
            data += chunk
        if header is None:
            head_len = _LEN.unpack_from(data, 1)[0]
            if head_len > _MAX_HEADER:
                raise ValueError("the header is too long")
            head_end = 1 + _LEN.size + head_len
            if len(data) < head_end + _LEN.size:
                need = head_end + _LEN.size
                continue
            header = json.loads(data[1 + _LEN.size:head_end])
            if not isinstance(header, dict):
                raise ValueError("the header is not an object")
            body_len = _LEN.unpack_from(data, head_end)[0]
            if body_len > _MAX_BODY:
                raise ValueError("the body is too long")
            need = head_end + _LEN.size + body_len
            if len(data) < need:
                continue
        return data[:1], header, data[head_end + _LEN.size:need]


async def _answer(conn: Any, answer: dict[str, Any]) -> None:
    data = json.dumps(answer).encode()
    view = memoryview(_LEN.pack(len(data)) + data)
    while view:
        view = view[await conn.send(view):]
