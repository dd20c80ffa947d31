"""The client host's poller (``mqpy_chinit.clientpoll``) serves every conversation its epoll
reports ready in one pass and writes each one's replies at once with a non-blocking send.
What that must keep: each conversation's replies in its requests' order when several are
ready together; a client that reads nothing holds back nobody else (what its socket does
not take waits for it, the loop does not); and a client that floods the loop with requests
cannot keep the loop's other tasks from their turn (``clientpoll.PASSES``).

The clients here speak the channel protocol by hand on a socket, so that many requests go
in one write and replies can be left unread."""

from __future__ import annotations

import socket
import threading
import time

import attrs
import pytest
import trio

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.tsh import SegmentType
from tests.client.conftest import CHANNEL, QMGR, QUEUE, env  # noqa: F401 - the fixture
from tests.client.test_client_poller import poller  # noqa: F401 - the fixture

pytestmark = pytest.mark.timeout(120)

_T = SegmentType
_NO_WAIT = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT


class _Raw:
    """A client instance spoken by hand on conversation 1, with ``queue`` open for input
    and output."""

    def __init__(self, port: int, queue: str, rcvbuf: int | None = None) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if rcvbuf is not None:  # (before connecting: the window is agreed then)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.connect(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(30)
        self.writer, self.reader = SegmentWriter(), SegmentReader()
        self.request_id = 0
        self.pending: list = []
        self.sock.sendall(self.writer.send(InitialData(
            fap_level=10, channel_name=CHANNEL, conv_per_socket=10, max_msg_batch=1)))
        assert isinstance(self.next(), InitialData)
        self.sock.sendall(self.request(_T.MQCONN, [(QMGR, "loop sends")]))
        assert self.next().comp == CMQC.MQCC_OK
        self.sock.sendall(self.request(_T.MQOPEN, [mqpy.OD(ObjectName=queue.encode()),
                                                   CMQC.MQOO_INPUT_AS_Q_DEF
                                                   | CMQC.MQOO_OUTPUT]))
        opened = self.next()
        assert opened.comp == CMQC.MQCC_OK
        self.hobj = opened.hobj

    def request(self, verb: SegmentType, values: list, hobj: int = 0) -> bytes:
        self.request_id += 1
        event = mqiflows.encode_request(verb, values, hobj=hobj)
        return self.writer.send(attrs.evolve(event, conv_id=1, request_id=self.request_id))

    def put(self, data: bytes) -> bytes:
        return self.request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(
            Options=CMQC.MQPMO_NO_SYNCPOINT), data], self.hobj)

    def get(self, buffer_length: int = 100) -> bytes:
        return self.request(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NO_WAIT), buffer_length],
                            self.hobj)

    def next(self):
        while not self.pending:
            data = self.sock.recv(65536)
            assert data, "the instance was closed"
            self.pending += self.reader.feed(data)
        return self.pending.pop(0)

    def replies(self, n: int) -> list[MQIReply]:
        got = [self.next() for _ in range(n)]
        assert all(isinstance(r, MQIReply) for r in got), got
        return got

    def close(self) -> None:
        self.sock.close()


def _queues(env, n: int) -> list[str]:  # noqa: F811 - the fixture's value
    names = [f"LOOP.Q{i}" for i in range(n)]
    for name in names:
        env.define("QLOCAL", name, MAXDEPTH=100000)
    return names


def _served(env, poller) -> int:  # noqa: F811
    return env.chinit.run_sync(lambda: poller.served)


def test_replies_of_conversations_ready_in_one_pass_come_in_each_ones_order(env, poller):  # noqa: F811
    """Given four clients whose requests all arrive while the loop is busy (five MQPUTs and
    five MQGETs each, in one write), when the loop is free again, then the poller serves
    them all, and each client's replies come in its requests' order: the puts' OK, then
    its own messages in the order it put them."""
    queues = _queues(env, 4)
    peers = [_Raw(env.chinit.port, q) for q in queues]
    try:
        before = _served(env, poller)
        first = [p.request_id + 1 for p in peers]
        writes = [b"".join([p.put(b"m-%d-%d" % (n, i)) for i in range(5)]
                           + [p.get() for _ in range(5)]) for n, p in enumerate(peers)]
        held = threading.Thread(target=env.chinit.run_sync, args=(lambda: time.sleep(0.5),))
        held.start()  # the loop busy: every request is in when its epoll is next read
        time.sleep(0.1)
        for p, raw in zip(peers, writes, strict=True):
            p.sock.sendall(raw)
        held.join()
        for n, p in enumerate(peers):
            replies = p.replies(10)
            assert [r.request_id for r in replies] == list(range(first[n], first[n] + 10))
            assert [r.segment_type for r in replies] == [_T.MQPUT_REPLY] * 5 \
                + [_T.MQGET_REPLY] * 5
            assert [r.comp for r in replies] == [CMQC.MQCC_OK] * 10
            for i, r in enumerate(replies[5:]):
                assert r.body.endswith(b"m-%d-%d" % (n, i)), (n, i)
        assert _served(env, poller) - before >= 40
    finally:
        for p in peers:
            p.close()


_BIG = 20_000  #: a message whose get reply fills a small socket buffer at once
_UNREAD = 120  #: gets a client sends and then reads nothing for a while


def test_a_client_that_reads_nothing_holds_back_no_other_client(env, poller):  # noqa: F811
    """Given a client whose receive buffer is small, when it sends 120 gets of 20 KB
    messages and reads none of the replies, then another client's puts and gets are
    served meanwhile (the loop does not wait for the slow one's socket), and once the slow
    client reads, it has every reply whole and in order."""
    (queue,) = _queues(env, 1)
    filler = _Raw(env.chinit.port, queue)
    try:
        filler.sock.sendall(b"".join(filler.put(b"%05d" % i + b"x" * (_BIG - 5))
                                     for i in range(_UNREAD)))
        assert [r.comp for r in filler.replies(_UNREAD)] == [CMQC.MQCC_OK] * _UNREAD
    finally:
        filler.close()
    slow = _Raw(env.chinit.port, queue, rcvbuf=4096)
    other = env.client()
    try:
        first = slow.request_id + 1
        slow.sock.sendall(b"".join(slow.get(_BIG) for _ in range(_UNREAD)))
        time.sleep(0.3)  # (its replies fill its socket)
        done: list = []

        def calls() -> None:
            q = mqpy.Queue(other, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
            for i in range(20):
                q.put(b"other %d" % i)
                done.append(q.get())

        thread = threading.Thread(target=calls, daemon=True)
        thread.start()
        thread.join(10)
        finished = not thread.is_alive()
        replies = slow.replies(_UNREAD)  # (read now: a loop that waited is let go)
        thread.join(30)
        assert finished, "another client waited for the one that reads nothing"
        assert done == [b"other %d" % i for i in range(20)]
        assert [r.request_id for r in replies] == list(range(first, first + _UNREAD))
        assert [r.comp for r in replies] == [CMQC.MQCC_OK] * _UNREAD
        assert [r.body[-_BIG:][:5] for r in replies] == [b"%05d" % i for i in range(_UNREAD)]
    finally:
        slow.close()
        other.disconnect()


_FLOOD_S = 2.5


def test_a_flooding_client_leaves_the_loops_other_tasks_their_turn(env, poller):  # noqa: F811
    """Given a client that writes puts without pause (reading its replies as they come),
    when it floods the poller for 2.5 s, then a task of the same loop that sleeps 5 ms at a
    time still runs all along (no gap of a second: the poller gives way after
    PASSES), and every put is answered."""
    (queue,) = _queues(env, 1)
    flood = _Raw(env.chinit.port, queue)
    ticks: list[float] = []
    stop = threading.Event()

    async def ticker() -> None:
        while not stop.is_set():
            ticks.append(time.monotonic())
            await trio.sleep(0.005)

    env.chinit.run_sync(lambda: env.chinit.chinit.nursery.start_soon(ticker))
    request = flood.put(b"f" * 100)
    block = request * 400
    counted = {"written": 0, "replies": 0}

    def read() -> None:
        reader = SegmentReader()
        try:
            while data := flood.sock.recv(1 << 20):
                counted["replies"] += len(reader.feed(data))
        except OSError:
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        started = time.monotonic()
        while time.monotonic() - started < _FLOOD_S:
            flood.sock.sendall(block)
            counted["written"] += 400
        ended = time.monotonic()
        time.sleep(0.5)
    finally:
        stop.set()
    during = [t for t in ticks if started <= t <= ended]
    gaps = [b - a for a, b in zip([started, *during], [*during, ended], strict=True)]
    assert max(gaps) < 1.0, f"the loop's other tasks waited {max(gaps):.3f} s"
    assert len(during) >= 10
    deadline = time.monotonic() + 30
    while counted["replies"] < counted["written"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert counted["replies"] == counted["written"] > 0
    flood.close()
    reader.join(10)
