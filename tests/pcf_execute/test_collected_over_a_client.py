"""A client's PCFExecute collected while connected: its reply queue's MQCLOSE and, when it
made the connection, its MQDISC are never made by the collector's finalizer, which may run
on the thread of the event loop that serves the channel (in a process that also runs the
channel initiator) or on a thread inside a call on the same connection, and must not wait
there for an answer. As pymqi's, the reply queue is closed (a temporary dynamic queue: then
deleted) and a connection PCFExecute made is ended."""

from __future__ import annotations

import gc

import mqpy
from mqpy import CMQC
from tests.client.conftest import CHANNEL, QMGR
from tests.pcf_execute.conftest import Env, in_a_cycle, returns_promptly
from tests.support.waiting import came_true


def _exists(env: Env, name: bytes) -> bool:
    return env.engine.lookup("QLOCAL", name.decode().strip()) is not None


def _connections(env: Env) -> int:
    return len(env.engine.connections)


def _pcf_left_in_a_cycle(qm: object) -> bytes:
    """A PCFExecute (of ``qm``: a connected QueueManager, or a name it connects to) that
    only the collector can free; the name of its reply queue."""
    pcf = mqpy.PCFExecute(qm)
    name = pcf.reply_queue_name
    in_a_cycle(pcf)
    return name


def test_its_own_connection_collected_on_the_serving_event_loop(env, monkeypatch):
    """Given a PCFExecute that connected itself as a client, left in a reference cycle,
    when the collector runs on the thread of the event loop that serves the channel, then
    the collection returns at once, and its reply queue is deleted and its connection
    ended soon after (pymqi's PCFExecute disconnects what it connected)."""
    monkeypatch.setenv("MQSERVER", f"{CHANNEL}/TCP/{env.conn_info}")
    monkeypatch.setenv("MQ_CONNECT_TYPE", "CLIENT")
    name = _pcf_left_in_a_cycle(QMGR)
    assert _exists(env, name)
    connected = _connections(env)
    assert returns_promptly(lambda: env.chinit.run_sync(gc.collect)), \
        "the collector's MQCLOSE / MQDISC waited on the event loop that must answer it"
    assert came_true(lambda: not _exists(env, name) and _connections(env) == connected - 1)


def test_a_shared_connection_collected_on_the_serving_event_loop(env):
    """Given a PCFExecute of a client connection the program made, left in a reference
    cycle, when the collector runs on the event loop that serves the channel, then it
    returns at once, the program's next call closes the reply queue (deleted), and the
    program's connection stays its own."""
    qm = env.client()
    name = _pcf_left_in_a_cycle(qm)
    assert _exists(env, name)
    assert returns_promptly(lambda: env.chinit.run_sync(gc.collect)), \
        "the collector's MQCLOSE waited on the event loop that must answer it"
    qm.inquire(CMQC.MQCA_Q_MGR_NAME)  # the connection's next call closes it
    assert came_true(lambda: not _exists(env, name))
    assert qm.is_connected
    qm.disconnect()


def test_a_shared_connection_collected_during_its_own_call(env):
    """Given a PCFExecute of a client connection left in a reference cycle, when the
    collector runs on the program's thread inside a call on that connection (its lock
    held), then the call completes, and the call after it closes the reply queue."""
    qm = env.client()
    name = _pcf_left_in_a_cycle(qm)
    assert _exists(env, name)
    instance = qm.connection()._instance
    frame = instance.frame
    collected: list[int] = []

    def frame_then_collect(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - frame's
        if not collected:
            collected.append(gc.collect())
        return frame(*args, **kwargs)

    instance.frame = frame_then_collect
    try:
        assert returns_promptly(lambda: qm.inquire(CMQC.MQCA_Q_MGR_NAME)), \
            "the collector's MQCLOSE waited for the lock of its own call"
    finally:
        del instance.frame
    assert collected
    qm.inquire(CMQC.MQCA_Q_MGR_NAME)
    assert came_true(lambda: not _exists(env, name))
    qm.disconnect()


def test_let_go_by_its_last_reference_its_reply_queue_is_closed_at_once(env):
    """Given a PCFExecute of a client connection the program made, when the program lets go
    of it (``del``, no collector involved), then its reply queue is deleted before ``del``
    returns, as pymqi's, and the program's connection stays its own. (One that made its own
    connection is in a cycle with its reply queue: always the collector's.)"""
    qm = env.client()
    pcf = mqpy.PCFExecute(qm)
    name = pcf.reply_queue_name
    assert _exists(env, name)
    del pcf
    assert not _exists(env, name)
    assert qm.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == QMGR.encode()
    qm.disconnect()


def test_disconnect_after_its_reply_queue_was_closed_still_ends_its_connection(env,
                                                                               monkeypatch):
    """Given a PCFExecute that connected itself whose reply queue the program closed, when
    it disconnects, then its connection ends without an error (pymqi closes the reply
    queue only while it holds a handle)."""
    monkeypatch.setenv("MQSERVER", f"{CHANNEL}/TCP/{env.conn_info}")
    monkeypatch.setenv("MQ_CONNECT_TYPE", "CLIENT")
    pcf = mqpy.PCFExecute(QMGR)
    connected = _connections(env)
    pcf.reply_queue.close()
    pcf.disconnect()
    assert not pcf.is_connected
    assert came_true(lambda: _connections(env) == connected - 1)
