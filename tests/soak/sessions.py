"""Real sessions recorded byte for byte, and replayed on fresh connections.

A :class:`RecordingRelay` sits between a real program and a real server (TCP or the bindings
Unix socket: ``tests.support.proxy.FaultProxy`` speaks TCP only) and keeps both directions'
bytes in passing order. :func:`conversation` cuts what it kept into TSH segments (the length
at offset 4 counts the whole segment, whatever the header: TSH, TSHC, TSHM) and groups them
into :class:`Turn` s: what the client sends, then how many segments the server answered.

:func:`replay` plays turns (perhaps mutated: ``tests.soak.mutations``) on a connected socket
with a deadline and says what the server did (:class:`Outcome`): answered as in the
recording, answered otherwise, closed the connection before the client had finished
(``closed_early``), or kept it open after the client's end of data (``held``).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable

import attrs

from mqpy.fap.tsh import ByteOrder, SegmentType

CLIENT, SERVER = "c", "s"


class RecordingRelay:
    """Accept on ``listener`` (bound and listening), relay every connection to a socket
    ``connect()`` opens, and keep ``(direction, bytes)`` per connection in passing order,
    with ``(direction, b"")`` where that way ended first."""

    def __init__(self, listener: socket.socket, connect: Callable[[], socket.socket]) -> None:
        self.listener = listener
        self.connect = connect
        self.connections: list[list[tuple[str, bytes]]] = []
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._accepting = threading.Thread(target=self._accept, daemon=True)

    def start(self) -> RecordingRelay:
        self._accepting.start()
        return self

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed by stop()
            server = self.connect()
            kept: list[tuple[str, bytes]] = []
            self.connections.append(kept)
            for src, dst, way in ((client, server, CLIENT), (server, client, SERVER)):
                t = threading.Thread(target=self._pump, args=(src, dst, way, kept), daemon=True)
                self._threads.append(t)
                t.start()

    def _pump(self, src: socket.socket, dst: socket.socket, way: str,
              kept: list[tuple[str, bytes]]) -> None:
        try:
            while data := src.recv(1 << 16):
                with self._lock:
                    kept.append((way, data))
                dst.sendall(data)
        except OSError:
            pass
        with self._lock:
            kept.append((way, b""))
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)

    def stop(self) -> None:
        """Stop accepting; wait (a while) for the relayed connections to end."""
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # (wakes the accepting thread)
        self.listener.close()
        for t in self._threads:
            t.join(10)


def segment_length(data: bytes, at: int = 0) -> int:
    """The whole segment's length its header claims (big-endian at offset 4)."""
    return int.from_bytes(data[at + 4:at + 8], "big", signed=True)


def header_length(segment: bytes) -> int:
    """28 for a TSH or TSHC, 36 for a TSHM."""
    return 36 if segment[:4] == b"TSHM" else 28


def segment_type(segment: bytes) -> int:
    """The segment type byte (offset 9 of a TSH, 17 of a TSHM)."""
    return segment[header_length(segment) - 19]


@attrs.frozen
class Segment:
    way: str
    data: bytes


@attrs.define
class Turn:
    """What the client writes (each item one ``sendall``; a float is a pause in seconds),
    then how many segments the server answered in the recording, and of which types."""

    writes: list[bytes | float]
    answers: list[int]
    flood: bytes = b""  # a segment sent again and again after the writes (see mutations)


@attrs.frozen
class Conversation:
    kind: str
    segments: tuple[Segment, ...]
    server_ended_first: bool

    def turns(self) -> list[Turn]:
        """Client segments, each group followed by the server's answers to it."""
        turns: list[Turn] = []
        for seg in self.segments:
            if seg.way == CLIENT:
                if not turns or turns[-1].answers:
                    turns.append(Turn([], []))
                turns[-1].writes.append(seg.data)
            elif turns:
                turns[-1].answers.append(segment_type(seg.data))
        return turns

    def client_segments(self) -> list[bytes]:
        return [s.data for s in self.segments if s.way == CLIENT]


def conversation(kind: str, kept: list[tuple[str, bytes]]) -> Conversation:
    """The segments of one relayed connection, in the order each was complete."""
    buffers = {CLIENT: b"", SERVER: b""}
    segments = []
    ended: list[str] = []
    for way, data in kept:
        if not data:
            ended.append(way)
            continue
        buffers[way] += data
        buf = buffers[way]
        while len(buf) >= 8 and len(buf) >= (length := segment_length(buf)) > 0:
            segments.append(Segment(way, buf[:length]))
            buf = buf[length:]
        buffers[way] = buf
    assert not any(buffers.values()), "a recorded connection ended inside a segment"
    return Conversation(kind, tuple(segments), bool(ended) and ended[0] == SERVER)


@attrs.define
class Outcome:
    answers: list[int] = attrs.Factory(list)  # segment types the server sent, in order
    closed_early: bool = False  # the server ended the connection with flows unanswered
    ended_after_last: bool = False  # ... once every flow was sent and had as many answers
    held: bool = False  # the server kept the connection past the deadline
    turns_sent: int = 0
    bytes_sent: int = 0
    answer_text: bytes = b""  # the first bytes of the server's last segment, for reports
    error_statuses: list[int] = attrs.Factory(list)  # codes of the STATUS flows not 0


class _Ended(Exception):
    """The server closed (or reset) the connection."""


class _Stalled(Exception):
    """The server stopped reading: a write could not finish before the deadline."""


class _Reader:
    """The server's side of a replay: whole segments counted, bytes kept as they come."""

    def __init__(self, sock: socket.socket, outcome: Outcome) -> None:
        self.sock = sock
        self.outcome = outcome
        self.buf = b""

    def read_until(self, count: int, until: float) -> None:
        """Read until ``count`` segments have come in all, or ``until`` (monotonic) passed;
        _Ended once the server closed."""
        while len(self.outcome.answers) < count:
            left = until - time.monotonic()
            if left <= 0:
                return
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 16)
            except TimeoutError:
                return
            except OSError:
                raise _Ended() from None
            if not data:
                raise _Ended()
            self.buf += data
            while len(self.buf) >= 8 and len(self.buf) >= (n := segment_length(self.buf)) >= 28:
                self._answer(self.buf[:n])
                self.buf = self.buf[n:]

    def read_until_kind(self, kind: int, until: float) -> None:
        """Read until a segment of type ``kind`` came, or ``until`` (monotonic) passed;
        _Ended once the server closed."""
        while kind not in self.outcome.answers and time.monotonic() < until:
            self.read_until(len(self.outcome.answers) + 1, until)

    def _answer(self, segment: bytes) -> None:
        kind = segment_type(segment)
        self.outcome.answers.append(kind)
        self.outcome.answer_text = segment[:160]
        h = header_length(segment)
        if kind == SegmentType.STATUS_DATA and len(segment) >= h + 8:
            order = "little" if segment[h - 20] == ByteOrder.LITTLE else "big"
            if code := int.from_bytes(segment[h + 4:h + 8], order):
                self.outcome.error_statuses.append(code)


#: the flows a client ends its session with, answered by none: a conversation's END_CONV,
#: a sending channel's closing STATUS
_ENDS = (SegmentType.SOCKET_ACTION, SegmentType.STATUS_DATA)


def client_end(turn: Turn) -> bool:
    """Whether ``turn`` is the client's end of its session (the recording's last turn, its
    flows changed or not, but no flood): the server's close after it is as asked."""
    return not turn.answers and not turn.flood and any(
        isinstance(w, bytes) for w in turn.writes) and all(
        isinstance(w, float) or (len(w) >= 36 and segment_type(w) in _ENDS)
        for w in turn.writes)


def replay(sock: socket.socket, turns: list[Turn], *, turn_wait: float, deadline: float,
           flood_bytes: int = 0) -> Outcome:
    """Play ``turns`` on ``sock``: each turn's writes, then its answers awaited (at most
    ``turn_wait`` seconds; once a turn went unanswered the rest are sent without waiting,
    but for a last turn of no answers after an MQDISC: the client's end, sent once the
    MQDISC is answered or ``deadline`` passed),
    then, if the answers were not the recording's, whether the server ends the connection
    (``turn_wait`` again: decided before the client ends it, whatever the timing), then the
    client's end of data and the server's end awaited until ``deadline`` (monotonic). A turn's ``flood`` segment is sent until ``flood_bytes`` have gone."""
    out = Outcome()
    reader = _Reader(sock, out)
    expected: list[int] = []  # the recording's answers to the turns sent so far
    waiting = True
    try:
        for n, turn in enumerate(turns):
            if not waiting and n == len(turns) - 1 and not turn.answers \
                    and SegmentType.MQDISC_REPLY in expected:
                # the client's end (END_CONV) once its MQDISC is answered, as a client
                # sends it: sent at once, it would end the calls still on their way
                reader.read_until_kind(SegmentType.MQDISC_REPLY, deadline)
            for item in turn.writes:
                if isinstance(item, float):
                    time.sleep(item)
                    continue
                _send(sock, item, deadline)
                out.bytes_sent += len(item)
            while turn.flood and out.bytes_sent < flood_bytes and time.monotonic() < deadline:
                _send(sock, turn.flood, deadline)
                out.bytes_sent += len(turn.flood)
            out.turns_sent += 1
            expected += turn.answers
            if waiting and turn.answers:
                reader.read_until(len(expected), min(deadline, time.monotonic() + turn_wait))
                waiting = len(out.answers) >= len(expected)
        if out.answers != expected:  # answered otherwise: does the server end it now?
            try:
                reader.read_until(1 << 30, min(deadline, time.monotonic() + turn_wait))
            except _Ended:  # (after its MQDISC's reply or its end: ended as the client asked)
                out.closed_early = len(out.answers) < len(expected) and not (
                    out.answers and out.answers[-1] == SegmentType.MQDISC_REPLY) \
                    and not (turns and client_end(turns[-1]))
                out.ended_after_last = not out.closed_early
                return out
        sock.shutdown(socket.SHUT_WR)
    except (_Ended, OSError):  # (a write refused: the server closed or reset it)
        # ... but ended in the client's end, once its MQDISC was answered: as it asked
        out.closed_early = not (out.turns_sent == len(turns) - 1 and out.answers
                                and out.answers[-1] == SegmentType.MQDISC_REPLY)
        out.ended_after_last = not out.closed_early
        return out
    except _Stalled:
        out.held = True
        return out
    try:
        reader.read_until(1 << 30, deadline)
        out.held = True
    except _Ended:
        pass
    return out


def _send(sock: socket.socket, data: bytes, deadline: float) -> None:
    sock.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        sock.sendall(data)
    except TimeoutError:
        raise _Stalled() from None
