"""Requests an application sent just before it ended are served, in order, before its
unit of work is backed out: a put outside syncpoint whose bytes reached the queue manager is
put (an asynchronous one too: its reply is only not waited for), never lost because the
reply of a request before it could no longer be sent. A get is not served then: its message
would be taken by nobody. A queue manager of this process (``serving_with_faults``), whose
reply is held until the application has closed its end."""

from __future__ import annotations

import collections
import socket
import threading
import time

import pytest
import trio

import mqpy
from mqpy import CMQC, bindings, bindings_listener, bindings_thread
from mqpy.bindings import MAX_MSG_SIZE, MAX_TRANSMISSION_SIZE
from mqpy.errors import MQMIError
from mqpy.fap.framing import SegmentReader
from mqpy.fap.tsh import SegmentType
from tests.support.bindings_server import serving_with_faults

pytestmark = pytest.mark.timeout(120)

_T = SegmentType
_ASYNC = CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE


class _App:
    """A local application speaking the bindings socket by hand, queue Q open."""

    def __init__(self, qmdir: str) -> None:
        self.flows = bindings.Flows()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        with bindings.bind_address(bindings.socket_path(qmdir)) as address:
            self.sock.connect(address)
        self.events: list = []
        assert self.call(self.request(_T.MQCONN, [("QM", "ending"), None])).comp == 0
        self.hobj = self.call(self.request(
            _T.MQOPEN, [mqpy.OD(ObjectName="Q"),
                        CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF])).hobj

    def request(self, verb: SegmentType, values, hobj: int = 0) -> bytes:
        return self.flows.request(verb, values, hobj)

    def put(self, data: bytes, options: int, persistence: int) -> bytes:
        return self.request(_T.MQPUT, [mqpy.MD(Persistence=persistence),
                                       mqpy.PMO(Options=options), data], self.hobj)

    def call(self, raw: bytes):
        self.sock.sendall(raw)
        while not self.events:
            self.events += self.flows._reader.feed(self.sock.recv(65536))
        return self.events.pop(0)


def _messages(engine) -> list[bytes]:
    """The messages on Q, got (the queue left empty)."""
    conn = engine.connect("reader")
    try:
        hobj = conn.open(mqpy.OD(ObjectName="Q"), CMQC.MQOO_INPUT_AS_Q_DEF)
        got = []
        while True:
            try:
                got.append(conn.get(hobj, mqpy.MD(), mqpy.GMO(
                    Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT), 100))
            except MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE, e
                return got
    finally:
        conn.disconnect()


def _settled(engine, expected: list[bytes]) -> list[bytes]:
    """Q's messages once they are ``expected`` (or after 10 s), none got twice."""
    deadline, left = time.monotonic() + 10, []
    while time.monotonic() < deadline:
        left += _messages(engine)
        if sorted(left) == sorted(expected):
            break
        time.sleep(0.05)
    return sorted(left)


@pytest.fixture
def held_replies(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """(armed, closed): once ``armed`` is set, the queue manager's next reply (from the
    event loop or from a busy connection's thread) is written only once ``closed`` is set
    (the application has closed its end)."""
    armed, closed = threading.Event(), threading.Event()
    loop_send = bindings_listener._Session._send
    thread_send = bindings_thread._send

    async def held_loop_send(self, data):
        if armed.is_set():
            await trio.to_thread.run_sync(closed.wait, 20)
        return await loop_send(self, data)

    def held_thread_send(sock, data):
        if armed.is_set():
            closed.wait(20)
        return thread_send(sock, data)

    monkeypatch.setattr(bindings_listener._Session, "_send", held_loop_send)
    monkeypatch.setattr(bindings_thread, "_send", held_thread_send)
    return armed, closed


@pytest.mark.parametrize("served_by", ["loop", "thread"])
@pytest.mark.parametrize("persistence", [CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT],
                         ids=["nonpersistent", "persistent"])
def test_puts_read_with_one_whose_reply_could_not_be_sent_are_put_or_backed_out(
        tmp_path, held_replies, persistence, served_by):
    """Given an application whose puts are read together (its connection served by the
    event loop, or by a busy connection's thread), when it sends a put outside syncpoint, an
    asynchronous one and one under syncpoint and closes its end before the first one's
    reply is written, then the two outside syncpoint are on the queue once each and the
    one under syncpoint is backed out."""
    armed, closed = held_replies
    with serving_with_faults(str(tmp_path)) as (server, faults):
        engine = server.engine
        app = _App(f"{tmp_path}/qmgrs/QM")
        puts = [app.put(b"out", CMQC.MQPMO_NO_SYNCPOINT, persistence),
                app.put(b"async", _ASYNC, persistence),
                app.put(b"in", CMQC.MQPMO_SYNCPOINT, persistence)]
        if served_by == "loop":
            time.sleep(0.2)  # (quiet for longer than HOT_WAIT_S: the thread hands it back)
        else:
            # a call within HOT_WAIT_S of the last reply makes it busy: the thread serves
            # it; an MQPUT1 (the loop's) after the three gives it back to the loop
            for _ in range(3):
                assert app.call(app.request(_T.MQBACK, [])).comp == 0
            puts.append(app.request(_T.MQPUT1, [mqpy.OD(ObjectName="Q"),
                                                mqpy.MD(Persistence=persistence),
                                                mqpy.PMO(Options=_ASYNC), b"put1"]))
        armed.set()
        app.sock.sendall(b"".join(puts))
        app.sock.close()
        closed.set()
        expected = [b"async", b"out"] + ([b"put1"] if served_by == "thread" else [])
        assert _settled(engine, expected) == sorted(expected)
        assert not faults, faults


def test_a_get_read_after_the_request_whose_reply_could_not_be_sent_takes_nothing(
        tmp_path, held_replies):
    """Given a message on the queue, when an application sends a put and a get without
    syncpoint and closes its end before the put's reply is written, then the put is made
    and the get is not (its message would go to nobody): both messages are on the
    queue."""
    armed, closed = held_replies
    with serving_with_faults(str(tmp_path)) as (server, faults):
        app = _App(f"{tmp_path}/qmgrs/QM")
        assert app.call(app.put(b"there", CMQC.MQPMO_NO_SYNCPOINT,
                                CMQC.MQPER_NOT_PERSISTENT)).comp == 0
        time.sleep(0.2)
        get = app.request(_T.MQGET, [mqpy.MD(), mqpy.GMO(
            Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT), 100], app.hobj)
        armed.set()
        app.sock.sendall(app.put(b"put", CMQC.MQPMO_NO_SYNCPOINT, CMQC.MQPER_NOT_PERSISTENT)
                         + get)
        app.sock.close()
        closed.set()
        assert _settled(server.engine, [b"put", b"there"]) == [b"put", b"there"]
        time.sleep(0.2)
        assert _messages(server.engine) == []
        assert not faults, faults


def test_what_a_busy_thread_read_but_had_not_served_goes_back_when_the_application_went():
    """Given what one read on a busy connection's thread brought and it had not served yet
    (an asynchronous put), when the thread gives the connection back because the
    application has gone, then that put is among the requests received (served before the
    end), not dropped."""
    flows = bindings.Flows()
    put = flows.request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(Options=_ASYNC), b"async"], 1)
    pipelined = bindings_thread._Pipelined()
    pipelined.data = put
    reader = SegmentReader(MAX_TRANSMISSION_SIZE, max_msg_size=MAX_MSG_SIZE)
    received: collections.deque = collections.deque()
    assert pipelined.hand_back(reader, received, bindings_thread.GONE) \
        is bindings_thread.GONE
    assert [event.segment_type for event in received] == [_T.MQPUT]
