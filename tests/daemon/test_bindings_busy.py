"""A bindings connection whose calls come quickly is served by a thread of the daemon's own
(mqpy.bindings_thread), with every answer as the event loop gives it, and an application
that vanishes while it is so served has its unit of work backed out at once."""

from __future__ import annotations

import os
import threading

import pytest
import trio

import mqpy
from mqpy import CMQC, bindings, bindings_thread
from mqpy.bindings_listener import BindingsServer
from mqpy.engine.qmgr import QueueManagerEngine
from tests.support.waiting import came_true


@pytest.fixture
def served(tmp_path):
    """An engine with queue Q and its BindingsServer, running in a trio loop of its own
    thread: (engine, data path, the loop's thread name)."""
    eng = QueueManagerEngine.create(os.path.join(tmp_path, "qmgrs", "QM"), "QM")
    eng.define("QLOCAL", "Q", {})
    started = threading.Event()
    box: dict = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            box["token"], box["scope"] = trio.lowlevel.current_trio_token(), nursery.cancel_scope
            box["loop"] = threading.current_thread().name
            await nursery.start(BindingsServer(eng).run)
            started.set()

    loop = threading.Thread(target=trio.run, args=(main,))
    loop.start()
    assert started.wait(10)
    try:
        yield eng, str(tmp_path), box["loop"]
    finally:
        trio.from_thread.run_sync(box["scope"].cancel, trio_token=box["token"])
        loop.join(10)
        eng.close()


def test_quick_calls_are_served_on_a_thread_with_the_loops_answers(served, monkeypatch):
    """Given an application putting and getting persistent messages in syncpoint, each call
    right after the last, then after the first calls they are served by a thread that is not
    the loop's, and every message comes back as it was put, its commit durable."""
    eng, root, loop = served
    threads: set[str] = set()
    real_call = bindings_thread._call

    def recording_call(conn, d):
        threads.add(threading.current_thread().name)
        return real_call(conn, d)

    monkeypatch.setattr(bindings_thread, "_call", recording_call)
    conn = bindings.connect("QM", root)
    qm = mqpy.QueueManager(None)
    qm._conn = conn
    try:
        q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        for i in range(50):
            q.put(b"m%d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
                  mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            qm.commit()
            assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"m%d" % i
            qm.commit()
        q.close()
    finally:
        conn.disconnect()
    assert threads and loop not in threads
    assert eng.queue_status("Q")["CURDEPTH"] == 0


def test_an_application_vanishing_while_served_on_a_thread_is_backed_out_at_once(served):
    """Given an application whose quick puts in syncpoint are served on a thread, when it
    drops its connection without MQDISC, then its uncommitted messages are backed out at
    once."""
    eng, root, _ = served
    conn = bindings.connect("QM", root)
    qm = mqpy.QueueManager(None)
    qm._conn = conn
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
    for _ in range(20):
        q.put(b"x", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    assert eng.queue_status("Q")["UNCOM"] == 20
    conn.abend()
    assert came_true(lambda: eng.queue_status("Q")["UNCOM"] == 0, 5)
    assert eng.queue_status("Q")["CURDEPTH"] == 0
