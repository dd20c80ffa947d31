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

Whatever comes over these sockets is read as a hostile peer's: lengths are bounded before
anything is read into memory (:data:`MAX_HEADER`, :data:`MAX_BODY`, :data:`MAX_ANSWER`), a
frame that is not what it should be (its JSON garbled or nested too deep, a reply whose
status rows are not rows) is a ValueError on the host's side and HandOffFailed on the asking
side, never another exception, and no exchange outlives its timeout.

Frames (both ways a 4-byte big-endian length before each part):

- request: kind (``S`` a socket, ``C`` a command), JSON header, body; a socket's file
  descriptor travels with the first bytes, its body is what the listener read from it;
- answer: JSON (``{"ok": true}`` once a socket is taken; a command's reply).

The same commands, in the same frames, reach each runmqlsr's instances (``lsrcontrol``).
The asking side checks its peer too: the path must be a socket file of the queue manager's
user itself (not a symbolic link to some other socket, which a member of the queue manager's
group could put in its directory), connected through that very file (``/proc/self/fd``), and
a socket another user bound is never asked.
"""

from __future__ import annotations

import array
import errno
import json
import os
import socket
import stat
import struct
from typing import Any

import trio

from mqpy import config

__all__ = ["MAX_ANSWER", "MAX_BODY", "MAX_HEADER", "SOCKET_NAME", "TIMEOUT", "HandOffFailed",
           "NotListening", "answer", "ask", "hand_off", "peer_allowed", "peer_uid_of",
           "read_request", "socket_path"]

SOCKET_NAME = "qm.fastpath.sock"
#: how long the channel initiator waits for the host to take a socket or answer a command
TIMEOUT = 10.0
_LEN = struct.Struct(">I")
#: the longest request header and body a host reads, and the longest answer the asking side
#: reads (a STATUS of many instances): a longer length is a garbled frame, refused before
#: its bytes are read
MAX_HEADER = 1 << 20
MAX_BODY = 1 << 24
MAX_ANSWER = 1 << 24


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


def _json(data: bytes | bytearray, what: str) -> Any:
    """The JSON ``data``; ValueError when it is not JSON, or is nested too deep for the
    parser (a RecursionError from ``json.loads``, which no caller expects)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError(f"the {what} is nested too deep") from None


#: what a status row's values may be (DISPLAY CHSTATUS's attributes)
_ROW_VALUES = (str, int, float, type(None))


def _is_row(row: object) -> bool:
    """Whether ``row`` is a DISPLAY CHSTATUS row: an object of attribute names and plain
    values (a runmqlsr's or the host's; anything else a peer sent is left out)."""
    return isinstance(row, dict) and all(
        isinstance(k, str) and isinstance(v, _ROW_VALUES) for k, v in row.items())


def _command_reply(answer: dict[str, Any]) -> dict[str, Any]:
    """A command's reply as its callers read it: "ok" a boolean, "message" a string, and
    "status" (when given) a list of rows; rows that are not rows are left out, a reply that
    is not a reply is HandOffFailed."""
    status = answer.get("status")
    if not isinstance(answer.get("ok", False), bool) \
            or not isinstance(answer.get("message", ""), str) \
            or (status is not None and not isinstance(status, list)):
        raise HandOffFailed("a garbled answer")
    if status is not None:
        answer["status"] = [row for row in status if _is_row(row)]
    return answer


def _frame(kind: bytes, header: dict[str, Any], body: bytes = b"") -> bytes:
    head = json.dumps(header).encode()
    return kind + _LEN.pack(len(head)) + head + _LEN.pack(len(body)) + body


# ---------------------------------------------------------------------------- the asking side


async def _exchange(path: str, frame: bytes, fd: int | None,
                    timeout: float = TIMEOUT) -> dict[str, Any]:
    """Send ``frame`` (with ``fd``) to the host at ``path`` and return its JSON answer."""
    sock = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with trio.fail_after(timeout):
            target = _own_socket(path)
            try:
                try:
                    await sock.connect(f"/proc/self/fd/{target}")
                except OSError as exc:
                    if exc.errno in _GONE_ERRNOS:
                        raise NotListening(exc.strerror or str(exc)) from None
                    raise
            finally:
                os.close(target)
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
        raise HandOffFailed(f"no answer within {timeout:g} seconds") from None
    except OSError as exc:
        raise HandOffFailed(exc.strerror or str(exc)) from None
    finally:
        sock.close()
    return answer


def _own_socket(path: str) -> int:
    """A descriptor (O_PATH) of the socket file ``path`` itself, checked to be a socket of
    this user: a symbolic link (to another queue manager's socket, say) or another user's
    file is HandOffFailed, a file that is gone NotListening. Connecting through the
    descriptor connects to the file checked, whatever is renamed into ``path`` meanwhile."""
    try:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in _GONE_ERRNOS:
            raise NotListening(exc.strerror or str(exc)) from None
        raise
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISSOCK(st.st_mode) or not peer_allowed(st.st_uid):
        os.close(fd)
        what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else \
            "no socket" if not stat.S_ISSOCK(st.st_mode) else f"user id {st.st_uid}'s"
        raise HandOffFailed(f"{os.path.basename(path)} is {what}, not a socket of the "
                            f"queue manager's user: not asked")
    return fd


async def _read_answer(sock: Any) -> dict[str, Any]:
    """The answer's JSON object: a length above :data:`MAX_ANSWER` or anything that is not a
    JSON object is HandOffFailed, at once."""
    data = bytearray()
    need = _LEN.size
    length = None
    while len(data) < need:
        chunk = await sock.recv(min(65536, need - len(data)))
        if not chunk:
            raise HandOffFailed("the queue manager closed the hand-off socket")
        data += chunk
        if length is None and len(data) >= _LEN.size:
            length = _LEN.unpack_from(data)[0]
            if length > MAX_ANSWER:
                raise HandOffFailed(f"a garbled answer: {length} bytes long")
            need = _LEN.size + length
    try:
        answer = _json(data[_LEN.size:need], "answer")
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


async def ask(path: str, request: dict[str, Any], timeout: float = TIMEOUT
              ) -> dict[str, Any]:
    """A channel command (STATUS, STOP) for the host's SVRCONN instances: its reply, or
    HandOffFailed (within ``timeout`` seconds)."""
    return _command_reply(await _exchange(path, _frame(b"C", request), None, timeout))


# ---------------------------------------------------------------------------- the host's side


async def read_request(conn: Any, fds: list[int]) -> tuple[bytes, dict[str, Any], bytes]:
    """One request: its kind, JSON header and body; its file descriptors into ``fds``. A
    length above :data:`MAX_HEADER` or :data:`MAX_BODY`, a header that is not a JSON object,
    or a request cut short is ValueError (the caller bounds the time)."""
    data = bytearray()
    need = 1 + _LEN.size
    header: dict[str, Any] | None = None
    head_end = 0
    while True:
        while len(data) < need:
            chunk, ancdata, _flags, _addr = await conn.recvmsg(
                min(65536, need - len(data)),
                socket.CMSG_SPACE(4 * array.array("i").itemsize))
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
            if head_len > MAX_HEADER:
                raise ValueError("the header is too long")
            head_end = 1 + _LEN.size + head_len
            if len(data) < head_end + _LEN.size:
                need = head_end + _LEN.size
                continue
            header = _json(data[1 + _LEN.size:head_end], "header")
            if not isinstance(header, dict):
                raise ValueError("the header is not an object")
            body_len = _LEN.unpack_from(data, head_end)[0]
            if body_len > MAX_BODY:
                raise ValueError("the body is too long")
            need = head_end + _LEN.size + body_len
            if len(data) < need:
                continue
        return bytes(data[:1]), header, bytes(data[head_end + _LEN.size:need])


async def answer(conn: Any, reply: dict[str, Any]) -> None:
    """Send ``reply`` to the asking side."""
    data = json.dumps(reply).encode()
    view = memoryview(_LEN.pack(len(data)) + data)
    while view:
        view = view[await conn.send(view):]
