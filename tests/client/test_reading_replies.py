"""A call reads its own reply: the calling thread sends its request and, when nobody else reads
the socket, receives the reply itself with a blocking read that gives up after a tick
(``mqpy.client``, ``_Socket.call``). Whatever the channel does meanwhile must still be seen
to: a reply in pieces or in several segments is joined, a heartbeat the queue manager asks
for mid-call is answered, a socket closed mid-call is MQRC_CONNECTION_BROKEN (2009) and no
hang, and conversations sharing the socket each get their own replies
(client connections).

The tests put a relay (:class:`Relay`) between the client and the channel initiator: it
passes every byte on, and can cut what comes back into small pieces, put a heartbeat request
in front of a reply, or close the client's socket instead of passing a reply on."""

from __future__ import annotations

import socket
import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap.controlflows import Heartbeat
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import ControlFlags1, SegmentType
from tests.client.conftest import CHANNEL, QMGR, QUEUE

_MQI_REPLIES = frozenset(t for t in SegmentType if 0x91 <= t <= 0x9F)


def _segment_type(segment: bytes) -> int:
    return segment[17] if segment[:4] == b"TSHM" else segment[9]


def _segments(buffer: bytearray) -> list[bytes]:
    """The whole segments at the front of ``buffer``, taken out of it."""
    out = []
    while len(buffer) >= 8 and len(buffer) >= (length := int.from_bytes(buffer[4:8], "big")):
        out.append(bytes(buffer[:length]))
        del buffer[:length]
    return out


class Relay:
    """Between clients and the channel initiator. ``pieces``: each segment from the channel
    initiator reaches the client in pieces a little apart (its headers cut in four, then
``pieces`` bytes at a time); ``heartbeat``:
    before passing on an MQI reply, ask the client for a heartbeat and hold the reply until
    its answer has come; ``close_on``: when a request of that type comes from the client,
    close the client's socket instead of passing the request on; ``silent`` (set at any
time): from then on nothing from the channel initiator reaches the client."""

    def __init__(self, upstream: int, *, pieces: int = 0, heartbeat: bool = False,
                 close_on: SegmentType | None = None) -> None:
        self.silent = False  # True: nothing more from the channel initiator reaches the client
        self.upstream, self.pieces, self.heartbeat, self.close_on = (
            upstream, pieces, heartbeat, close_on)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.asked = 0  # heartbeat requests put before replies
        self.answered = threading.Semaphore(0)  # the client's heartbeat answers
        self.answers = 0
        self.unanswered = 0  # replies passed on after waiting in vain for an answer
        self.closed = threading.Event()
        #: segments passed on to the channel initiator, by segment type (under ``passing``)
        self.passed: dict[int, int] = {}
        self.passing = threading.Condition()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def conn_info(self) -> str:
        return f"127.0.0.1({self.port})"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream))
            for s in (client, server):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.sockets.append(s)
            threading.Thread(target=self._up, args=(client, server), daemon=True).start()
            threading.Thread(target=self._down, args=(server, client), daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket) -> None:
        buffer = bytearray()
        try:
            while data := client.recv(65536):
                buffer += data
                for segment in _segments(buffer):
                    kind = _segment_type(segment)
                    if kind == SegmentType.HEARTBEAT and self.heartbeat:
                        self.answers += 1
                        self.answered.release()  # our request's answer: not passed on
                        continue
                    if self.close_on is not None and kind == self.close_on:
                        # closed before the request goes on: its reply can never arrive
                        # (passed on first, a quick reply could beat the close)
                        self.closed.set()
                        client.shutdown(socket.SHUT_RDWR)
                        client.close()
                        return
                    server.sendall(segment)
                    with self.passing:
                        self.passed[kind] = self.passed.get(kind, 0) + 1
                        self.passing.notify_all()
        except OSError:
            pass
        finally:
            server.close()

    def _down(self, server: socket.socket, client: socket.socket) -> None:
        buffer = bytearray()
        probe = SegmentWriter().send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST,
                                               conv_id=0, request_id=0))
        try:
            while data := server.recv(65536):
                buffer += data
                for segment in _segments(buffer):
                    if self.silent:
                        continue
                    if self.heartbeat and _segment_type(segment) in _MQI_REPLIES:
                        self.asked += 1
                        client.sendall(probe)
                        if not self.answered.acquire(timeout=10):
                            self.unanswered += 1
                    if self.pieces:
                        # inside the TSH's id, its length, its header, the API header,
                        # then the body ``pieces`` bytes at a time
                        cuts = sorted({0, len(segment)} | {
                            c for c in (3, 6, 21, 40, *range(40 + self.pieces, len(segment),
                                                             self.pieces))
                            if c < len(segment)})
                        for start, end in zip(cuts, cuts[1:], strict=False):
                            client.sendall(segment[start:end])
                            time.sleep(0.001)
                    else:
                        client.sendall(segment)
        except OSError:
            pass
        finally:
            client.close()

    def wait_passed(self, kind: SegmentType, count: int = 1) -> bool:
        """Until ``count`` segments of type ``kind`` have gone on to the channel initiator
        (False after 30 s without)."""
        with self.passing:
            return self.passing.wait_for(lambda: self.passed.get(kind, 0) >= count, 30)

    def close(self) -> None:
        self.listener.close()
        for s in self.sockets:
            try:
                s.close()
            except OSError:
                pass


@pytest.fixture
def relay(env, request):
    r = Relay(env.chinit.port, **getattr(request, "param", {}))
    yield r
    r.close()


def _in_thread(fn, timeout: float = 30.0) -> list:
    """Run ``fn`` in a thread; [result] or [exception]; fails the test if it hangs."""
    out: list = []

    def run() -> None:
        try:
            out.append(fn())
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "the call hung"
    return out


@pytest.mark.parametrize("relay", [{"pieces": 700}], indirect=True)
def test_a_reply_in_pieces_is_read_whole(env, relay):
    """Given replies that reach the client in pieces (headers cut, 700 bytes at a time), when a client puts and gets
    messages of 1 KB and of 100 KB (a reply of four segments), then every get returns its
    message whole."""
    qm = mqpy.connect(QMGR, CHANNEL, relay.conn_info)
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    for body in (b"a" * 1024, bytes(range(256)) * 400):
        queue.put(body)
        assert queue.get(None, mqpy.MD(), mqpy.GMO(), len(body)) == body
    qm.disconnect()


def test_a_reply_of_several_segments_is_joined(env, relay):
    """Given a message of 200 KB (seven segments of the default 32 KB transmission size),
    when a client gets it, then the bytes come back whole and in order."""
    qm = mqpy.connect(QMGR, CHANNEL, relay.conn_info)
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    body = b"".join(i.to_bytes(4, "big") for i in range(50_000))
    queue.put(body)
    assert queue.get(None, mqpy.MD(), mqpy.GMO(), len(body)) == body
    qm.disconnect()


@pytest.mark.parametrize("relay", [{"pieces": 300}], indirect=True)
def test_conversations_sharing_a_socket_get_their_own_replies_in_pieces(env, relay):
    """Given four connections on one channel instance whose replies come in pieces, when
    each puts and gets thirty messages of its own on its own queue at the same time, then
    every get returns its own conversation's message, in order."""
    for i in range(4):
        env.define("QLOCAL", f"OWN.Q.{i}")
    conns = [mqpy.connect(QMGR, CHANNEL, relay.conn_info) for _ in range(4)]
    assert [s["CURSHCNV"] for s in env.chinit.svrconn_statuses()] == [4]

    def work(i: int) -> list[bytes]:
        q = mqpy.Queue(conns[i], f"OWN.Q.{i}", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        got = []
        for n in range(30):
            q.put(f"{i}:{n}".encode())
            got.append(q.get())
        return got

    results: list[list] = [[] for _ in range(4)]
    threads = [threading.Thread(target=lambda i=i: results[i].extend(_in_thread(
        lambda: work(i), 60)), daemon=True) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(70)
    for i in range(4):
        assert results[i] == [[f"{i}:{n}".encode() for n in range(30)]]
    for qm in conns:
        qm.disconnect()


def test_threads_sharing_one_connection_get_their_own_replies(env):
    """Given one connection used by three threads at once, each putting and getting by its
    own CorrelId, when they run, then each get returns the message with its CorrelId:
    calls on one Hconn take turns, and a reply never goes to another call."""
    qm = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
            correl = f"T{i}".encode().ljust(24, b"\0")
            for n in range(30):
                q.put(f"{i}:{n}".encode(), mqpy.MD(CorrelId=correl))
                md = mqpy.MD(CorrelId=correl)
                got = q.get(None, md, mqpy.GMO(MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))
                assert got == f"{i}:{n}".encode() and md.CorrelId == correl
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads) and not errors
    qm.disconnect()


@pytest.mark.parametrize("relay", [{"heartbeat": True}], indirect=True)
def test_a_heartbeat_asked_for_mid_call_is_answered(env, relay):
    """Given a channel that asks the client for a heartbeat before each MQI reply and holds
    the reply until the answer comes, when the client puts and gets, then every request is
    answered (no reply waited in vain) and each call returns its result."""
    qm = mqpy.connect(QMGR, CHANNEL, relay.conn_info)
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    for n in range(5):
        queue.put(f"m{n}".encode())
        assert queue.get() == f"m{n}".encode()
    qm.disconnect()
    assert relay.asked >= 12 and relay.unanswered == 0 and relay.answers >= relay.asked - 1


@pytest.mark.parametrize("relay", [{"close_on": SegmentType.MQGET}], indirect=True)
def test_a_socket_closed_mid_call_is_2009_not_a_hang(env, relay):
    """Given a channel whose socket closes once an MQGET has been sent, when the client gets
    (with a wait of 60 s), then the get fails MQRC_CONNECTION_BROKEN (2009) at once, as does
    every later call of the connection."""
    qm = mqpy.connect(QMGR, CHANNEL, relay.conn_info)
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    queue.put(b"one")
    got = _in_thread(lambda: queue.get(None, mqpy.MD(), mqpy.GMO(
        Options=CMQC.MQGMO_WAIT, WaitInterval=60000)))
    assert relay.closed.is_set()
    assert isinstance(got[0], mqpy.MQMIError) and got[0].reason == CMQC.MQRC_CONNECTION_BROKEN
    later = _in_thread(lambda: queue.put(b"two"))
    assert isinstance(later[0], mqpy.MQMIError) and \
        later[0].reason == CMQC.MQRC_CONNECTION_BROKEN


@pytest.mark.parametrize("relay", [{"close_on": SegmentType.MQGET}], indirect=True)
def test_a_socket_closed_mid_call_fails_every_conversation_on_it(env, relay):
    """Given two connections on one channel instance, one waiting in MQGET on a queue with
    nothing on it, when the socket closes as the other's MQGET goes out, then both calls
    fail 2009 and neither hangs."""
    env.define("QLOCAL", "WAIT.Q")
    waiter = mqpy.connect(QMGR, CHANNEL, relay.conn_info)
    other = mqpy.connect(QMGR, CHANNEL, relay.conn_info)
    wq = mqpy.Queue(waiter, "WAIT.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    oq = mqpy.Queue(other, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    relay.close_on = None  # the waiter's MQGET passes
    waiting: list = []
    t = threading.Thread(target=lambda: waiting.extend(_in_thread(lambda: wq.get(
        None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=60000)))),
        daemon=True)
    t.start()
    assert relay.wait_passed(SegmentType.MQGET)  # its MQGET is on its way to the queue manager
    relay.close_on = SegmentType.MQGET
    got = _in_thread(lambda: oq.get(None, mqpy.MD(), mqpy.GMO(
        Options=CMQC.MQGMO_WAIT, WaitInterval=60000)))
    t.join(35)
    assert not t.is_alive()
    for result in (got, waiting):
        assert isinstance(result[0], mqpy.MQMIError)
        assert result[0].reason == CMQC.MQRC_CONNECTION_BROKEN


def test_a_partner_gone_silent_mid_call_is_2009_after_the_receive_timeout(env, relay):
    """Given HBINT(1) at both ends (a receive timeout of 2 s), when the channel goes silent
    while the client waits 60 s in MQGET (no reply, no heartbeat reaches it), then the
    client's read gives up tick by tick, asks for a heartbeat, and fails the get with 2009
    once nothing has been heard for the receive timeout, instead of waiting for ever.
    spec: aliases-channels-storage 4.13 (heartbeats)"""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", HBINT=1)
    qm = mqpy.QueueManager(None)
    qm.connect_tcp_client(QMGR, mqpy.CD(HeartbeatInterval=1), CHANNEL, relay.conn_info)
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    relay.silent = True
    got = _in_thread(lambda: queue.get(None, mqpy.MD(), mqpy.GMO(
        Options=CMQC.MQGMO_WAIT, WaitInterval=60000)))
    assert isinstance(got[0], mqpy.MQMIError) and got[0].reason == CMQC.MQRC_CONNECTION_BROKEN
