"""The FASTPATH hand-off between the channel initiator and the queue manager's client host
(``mqpy_chinit.clienthost``), over ``qm.fastpath.sock`` in the queue-manager directory.

The channel initiator's listener hands a plain SVRCONN's connected socket over
(:func:`hand_off`: ``socket.send_fds``, SCM_RIGHTS, with the bytes it has read from it) and
asks the host for the status of its SVRCONN instances or to stop them (:func:`ask`, a
*command*). The host reads those requests (:func:`read_request`) and answers them
(:func:`answer`).

Only the queue manager's own user may hand a socket over or send a command
(:func:`peer_allowed`, SO_PEERCRED): a local user connecting to ``qm.fastpath.sock`` cannot
smuggle a connection past the listener's checks, nor stop a channel.

Frames (both ways a 4-byte big-endian length before each part):

- request: kind (``S`` a socket, ``C`` a command), JSON header, body; a socket's file
  descriptor travels with the first bytes, its body is what the listener read from it;
- answer: JSON (``{"ok": true}`` once a socket is taken; a command's reply).

The same commands, in the same frames, reach each runmqlsr's instances (``lsrcontrol``).
The asking side checks its peer too: a socket another user bound is never asked.
"""

from __future__ import annotations

import array
import errno
import json
import os
import socket
import struct
from typing import Any

import trio

from mqpy import config
from mqpy.bindings import bind_address

__all__ = ["SOCKET_NAME", "TIMEOUT", "HandOffFailed", "NotListening", "answer", "ask",
           "hand_off", "peer_allowed", "peer_uid_of", "read_request", "socket_path"]

SOCKET_NAME = "qm.fastpath.sock"
#: how long the channel initiator waits for the host to take a socket or answer a command
TIMEOUT = 10.0
_LEN = struct.Struct(">I")
_MAX_HEADER = 1 << 20
_MAX_BODY = 1 << 24


class HandOffFailed(Exception):
    """The client host did not take the socket (or answer): why, for the log."""


class NotListening(HandOffFailed):
    """Nothing listens on the socket any more (its file is gone, or its process: a connect
    refused): what a killed process left."""


#: the errors of a connect to a socket nobody listens on any more
_GONE_ERRNOS = frozenset({errno.ECONNREFUSED, errno.ENOENT})


def socket_path(qmgr: str, root: str | None = None) -> str:
    return os.path.join(config.qmgr_dir(qmgr, root), SOCKET_NAME)


def peer_allowed(peer_uid: int, own_uid: int | None = None) -> bool:
    """Whether a peer of the hand-off socket may use it: only the queue manager's own user
    (the channel initiator runs as it)."""
    return peer_uid == (os.getuid() if own_uid is None else own_uid)


def peer_uid_of(sock: Any) -> int:
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
                try:
                    await sock.connect(address)
                except OSError as exc:
                    if exc.errno in _GONE_ERRNOS:
                        raise NotListening(exc.strerror or str(exc)) from None
                    raise
            uid = peer_uid_of(sock)
            if not peer_allowed(uid):  # a socket put there by another user: not asked
                raise HandOffFailed(f"the socket is another user's (user id {uid})")
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


# ---------------------------------------------------------------------------- the host's side


async def read_request(conn: Any, fds: list[int]) -> tuple[bytes, dict[str, Any], bytes]:
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


async def answer(conn: Any, reply: dict[str, Any]) -> None:
    """Send ``reply`` to the asking side."""
    data = json.dumps(reply).encode()
    view = memoryview(_LEN.pack(len(data)) + data)
    while view:
        view = view[await conn.send(view):]
