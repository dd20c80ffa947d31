"""Connections for the asynchronous-consume tests: embedded, and bindings to a queue manager
started by strmqm (killed by pid at the end); a recorder of the calls a function gets."""

from __future__ import annotations

import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from tests.support.installation import QM, Installation, started

QUEUES = ("AC.Q1", "AC.Q2")


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    inst = Installation(str(tmp_path_factory.mktemp("asyncconsume")))
    inst.create(queues=QUEUES)
    yield from started(inst)


@pytest.fixture(params=["embedded", "bindings"])
def qm(request, tmp_path):
    """A connection of each kind, its queues empty; disconnected at the end."""
    if request.param == "embedded":
        conn = mqpy.embedded("ACEMB", data_path=str(tmp_path))
        eng = conn.connection().engine
        for name in QUEUES:
            eng.define("QLOCAL", name, {})
    else:
        inst = request.getfixturevalue("running")
        conn = mqpy.QueueManager(None)
        conn.connect(QM, data_path=inst.root)
        for name in QUEUES:
            q = mqpy.Queue(conn, name, CMQC.MQOO_INPUT_SHARED)
            try:
                while True:
                    q.get(None)
            except mqpy.MQMIError:
                pass
            q.close()
    try:
        yield conn
    finally:
        if conn.is_connected:
            try:
                conn.ctl(CMQC.MQOP_STOP)
            except mqpy.MQMIError:
                pass
            conn.disconnect()


class Recorder:
    """A callback that records (CallType, Reason, message) and can act on each call."""

    def __init__(self, then=None) -> None:
        self.calls: list[tuple[int, int, bytes | None]] = []
        self.then = then
        self.lock = threading.Lock()

    def __call__(self, *, queue_manager, queue, md, gmo, msg, cbc) -> None:
        with self.lock:
            self.calls.append((cbc.CallType, cbc.Reason, msg))
        if self.then is not None:
            self.then(queue_manager=queue_manager, queue=queue, md=md, gmo=gmo, msg=msg, cbc=cbc)

    def messages(self) -> list[bytes]:
        return [m for t, _r, m in self.calls if t == CMQC.MQCBCT_MSG_REMOVED]

    def wait_for(self, count: int, timeout: float = 10) -> list[bytes]:
        deadline = time.monotonic() + timeout
        while len(self.messages()) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.messages()


def put(qm, queue: str, bodies: list[bytes]) -> None:
    out = mqpy.Queue(qm, queue, CMQC.MQOO_OUTPUT)
    for body in bodies:
        out.put(body, mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    out.close()
