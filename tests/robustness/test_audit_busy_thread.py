"""A hostile application on the bindings socket against the busy connection's own thread
(``mqpy.bindings_thread``): whatever it writes, the queue manager's end at once (its
session tasks cancelled) is not held up by that thread."""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest
import trio

import mqpy
from mqpy import CMQC, bindings
from mqpy.bindings_listener import BindingsServer
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap.tsh import SegmentType

pytestmark = pytest.mark.timeout(60)

_T = SegmentType


class _Served:
    """Queue manager QM (local queue Q) of this process, its bindings socket served by a
    trio loop on a thread, which :meth:`end` cancels as the daemon's immediate end does."""

    def __init__(self, root: str) -> None:
        self.engine = QueueManagerEngine.create(os.path.join(root, "qmgrs", "QM"), "QM")
        self.engine.define("QLOCAL", "Q", {})
        self.server = BindingsServer(self.engine)
        started = threading.Event()
        self._box: dict = {}

        async def main() -> None:
            async with trio.open_nursery() as nursery:
                self._box["token"] = trio.lowlevel.current_trio_token()
                self._box["scope"] = nursery.cancel_scope
                await nursery.start(self.server.run)
                started.set()

        self.loop = threading.Thread(target=trio.run, args=(main,), daemon=True)
        self.loop.start()
        assert started.wait(10)

    def end(self) -> None:
        trio.from_thread.run_sync(self._box["scope"].cancel, trio_token=self._box["token"])


def _connected(served: _Served) -> tuple[socket.socket, bindings.Flows, int]:
    """A raw bindings connection to QM with Q open for input: its socket, flows, Hobj."""
    flows = bindings.Flows()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(20)
    with bindings.bind_address(bindings.socket_path(served.engine.qmdir)) as address:
        sock.connect(address)
    hobj = 0
    for request in (flows.request(_T.MQCONN, [("QM", "hostile"), None], 0),
                    flows.request(_T.MQOPEN, [mqpy.OD(ObjectName="Q"),
                                              CMQC.MQOO_INPUT_AS_Q_DEF], 0)):
        sock.sendall(request)
        events: list = []
        while not events:
            events = flows._reader.feed(sock.recv(65536))
        hobj = events[0].hobj
    return sock, flows, hobj


def test_waiting_gets_written_without_end_do_not_hold_up_the_queue_managers_end(tmp_path):
    """Given an application whose waiting MQGETs (WaitInterval 0, no message there) its
    connection's busy thread serves, when the queue manager ends at once while the
    application goes on writing such gets as fast as it can, then the queue manager's
    serving ends within a few seconds: the thread does not serve the gets the cancelled
    session leaves unanswered one after the other for as long as the application writes."""
    served = _Served(str(tmp_path))
    sock, flows, hobj = _connected(served)
    gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=0)
    get = flows.request(_T.MQGET, [mqpy.MD(), gmo, 100], hobj)
    for _ in range(20):  # (calls close together: its busy thread serves it)
        sock.sendall(get)
        events: list = []
        while not events:
            events = flows._reader.feed(sock.recv(65536))
        assert events[0].reason == CMQC.MQRC_NO_MSG_AVAILABLE
    stop = threading.Event()

    def read() -> None:
        try:
            while not stop.is_set() and sock.recv(65536):
                pass
        except OSError:
            pass

    def write() -> None:
        try:
            while not stop.is_set():
                sock.sendall(get * 20)
        except OSError:
            pass

    workers = [threading.Thread(target=f, daemon=True) for f in (read, write)]
    for worker in workers:
        worker.start()
    try:
        time.sleep(0.3)
        served.end()
        served.loop.join(5)
        assert not served.loop.is_alive(), "the queue manager's end waits for the application"
    finally:
        stop.set()
        sock.close()
        served.loop.join(10)
        served.engine.close()


def _call(sock: socket.socket, flows: bindings.Flows, request: bytes):
    sock.sendall(request)
    events: list = []
    while not events:
        events = flows._reader.feed(sock.recv(65536))
    return events[0]


def test_a_waiting_get_that_fails_after_its_waiter_was_registered_leaves_none(
        tmp_path, monkeypatch):
    """Given an application's waiting MQGET on its busy thread that finds only an expired
    persistent message, when the log force of that expiry fails (MQRC_RESOURCE_PROBLEM)
    after the engine registered the get's waiter, then the get fails with that reason and
    no waiter of it is left on the queue: a waiter left there would write to its session's
    eventfd at the next put, long after the session ended and its descriptor's number went
    to another file."""
    from mqpy.engine.connection import Connection

    served = _Served(str(tmp_path))
    try:
        sock, flows, hobj = _connected(served)
        with sock:
            put = flows.request(_T.MQOPEN, [mqpy.OD(ObjectName="Q"), CMQC.MQOO_OUTPUT], 0)
            hput = _call(sock, flows, put).hobj
            md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Expiry=1)
            assert _call(sock, flows, flows.request(
                _T.MQPUT, [md, mqpy.PMO(), b"expires"], hput)).comp == CMQC.MQCC_OK
            time.sleep(0.2)  # (its 0.1 s are over)
            nowait = flows.request(_T.MQGET, [mqpy.MD(), mqpy.GMO(), 100], hput + 1000)
            for _ in range(10):  # (calls close together: its busy thread serves it)
                _call(sock, flows, nowait)

            def fails(self, lsn):
                raise mqpy.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_RESOURCE_PROBLEM)

            monkeypatch.setattr(Connection, "force_log", fails)
            gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)
            reply = _call(sock, flows, flows.request(_T.MQGET, [mqpy.MD(), gmo, 100], hobj))
            monkeypatch.undo()
            assert reply.reason == CMQC.MQRC_RESOURCE_PROBLEM
            obj = served.engine.catalog.queue_def("Q")
            assert served.engine.catalog.queues[obj.qid].waiters == []
    finally:
        served.end()
        served.loop.join(10)
        served.engine.close()
