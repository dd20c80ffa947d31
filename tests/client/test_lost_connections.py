"""Connections that end without MQDISC: a killed client process, a client that stops
answering heartbeats, a channel initiator that goes away ("a lost connection
gives 2009 to the application; a killed client has its unit of work backed out")."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap.controlflows import Heartbeat
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from tests.client.conftest import CHANNEL, QMGR, QUEUE, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_killed_client_has_its_unit_of_work_backed_out(env):
    """Given a client process that got one message and put another in syncpoint, when it is
    killed (SIGKILL), then the queue manager backs its unit of work out: the message it got
    is back (BackoutCount 1), the one it put is gone, and the log says AMQ9209E."""
    feeder = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    feeder.put1(QUEUE, b"work item")
    feeder.disconnect()
    program = textwrap.dedent(f"""
        import sys, time
        import mqpy as pymqi
        from mqpy import CMQC
        qm = pymqi.connect({QMGR!r}, {CHANNEL!r}, {env.conn_info!r})
        q = pymqi.Queue(qm, {QUEUE!r}, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
        q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        q.put(b"half done", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        print("ready", flush=True)
        time.sleep(60)
    """)
    proc = subprocess.Popen([sys.executable, "-c", program], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        assert env.chinit.svrconn_statuses()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert wait_for(lambda: env.chinit.svrconn_statuses() == [])
    qm = env.bindings()
    md = mqpy.MD()
    assert mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED).get(None, md) == b"work item"
    assert md.BackoutCount == 1
    assert env.depth() == 0
    assert wait_for(lambda: env.chinit.messages("AMQ9209E"))
    qm.disconnect()


def _silent_client(port: int, hbint: int) -> socket.socket:
    """A client that negotiates an instance (INITIAL_DATA) and then reads nothing."""
    sock = socket.create_connection(("127.0.0.1", port))
    reader = SegmentReader()
    ours = InitialData(fap_level=10, channel_name=CHANNEL, heartbeat_interval=hbint,
                       conv_per_socket=10, max_msg_batch=1)
    sock.sendall(SegmentWriter().send(ours))
    events = []
    while not events:
        events = reader.feed(sock.recv(65536))
    assert isinstance(events[0], InitialData) and events[0].heartbeat_interval == hbint
    return sock


def test_client_that_stops_answering_heartbeats_is_ended(env):
    """Given HBINT(1) and a client that negotiated it and then falls silent, then the
    channel instance sends heartbeats, times out after the receive timeout (2 x HBINT),
    logs AMQ9259E and closes the socket."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", HBINT=1)
    t0 = time.monotonic()
    sock = _silent_client(env.chinit.port, 1)
    try:
        assert wait_for(lambda: env.chinit.messages("AMQ9259E"), timeout=6)
        assert 1.5 <= time.monotonic() - t0 <= 6
        sock.settimeout(2)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        events = SegmentReader().feed(received)
        assert events and all(isinstance(e, Heartbeat) for e in events)
    finally:
        sock.close()


def test_a_call_the_silent_queue_manager_never_answers_breaks_at_the_receive_timeout(env):
    """Given HBINT(1) and two conversations sharing a channel instance, when the process
    serving the channel holds its event loop (nothing answers, the socket stays open) while
    both call, then neither waits for ever: the one reading the socket probes with a
    heartbeat and, after the receive timeout (2 x HBINT below 60 s, as IBM's), both calls
    fail MQRC_CONNECTION_BROKEN (2009), the waiting one too."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", HBINT=1)
    first, second = env.client(HeartbeatInterval=1), env.client(HeartbeatInterval=1)
    assert first.connection().local_address == second.connection().local_address
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:  # until both calls have failed (6 s at most)
        holding.set()
        release.wait(6)

    held = threading.Thread(target=env.chinit.run_sync, args=(hold,))
    held.start()
    assert holding.wait(10)  # (the loop is held before anyone calls, however loaded the machine)
    outcomes: list[object] = []

    def inquire(qm: mqpy.QueueManager) -> None:
        try:
            outcomes.append(qm.inquire(CMQC.MQCA_Q_MGR_NAME))
        except mqpy.MQMIError as e:
            outcomes.append(e.reason)

    t0 = time.monotonic()
    callers = [threading.Thread(target=inquire, args=(qm,)) for qm in (first, second)]
    try:
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join(10)
        elapsed = time.monotonic() - t0
    finally:
        release.set()
        held.join()
    assert outcomes == [CMQC.MQRC_CONNECTION_BROKEN] * 2
    assert 1.5 <= elapsed <= 5.5


def test_stopped_channel_initiator_gives_2009(env):
    """Given a connected client, when the channel initiator ends, then the next call fails
    MQRC_CONNECTION_BROKEN (2009), every later call too, and its unit of work is backed
    out."""
    qm = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    queue = mqpy.Queue(qm, QUEUE)
    queue.put(b"in flight", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    env.chinit.stop()
    for _ in range(2):
        with pytest.raises(mqpy.MQMIError) as err:
            queue.put(b"after")
        assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                      CMQC.MQRC_CONNECTION_BROKEN)
    assert not qm.is_connected
    assert env.depth() == 0 and env.uncommitted() in (0, "NO")


def test_broken_during_a_waiting_get(env):
    """Given a client waiting in MQGET, when the channel initiator ends, then the get fails
    2009 at once rather than waiting out its interval."""
    qm = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    mq = env.engine.catalog.queues[env.engine.catalog.queue_def(QUEUE).qid]
    stopped: list[float] = []
    returned = threading.Event()

    def stop_once_waiting() -> None:  # the get is waiting once it is the queue's waiter
        if wait_for(lambda: mq.waiters or returned.is_set(), timeout=30) and mq.waiters:
            stopped.append(time.monotonic())
            env.chinit.stop()

    # (joined before the test ends: a stop still running would race the fixture's own)
    stopper = threading.Thread(target=stop_once_waiting)
    stopper.start()
    try:
        with pytest.raises(mqpy.MQMIError) as err:
            queue.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=20000))
        failed_at = time.monotonic()
    finally:
        returned.set()
        stopper.join()
    assert err.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    assert stopped and failed_at - stopped[0] < 5


def test_client_abend_backs_out(env):
    """Given a client with a put in syncpoint, when it drops its connection without MQDISC
    (abend), then the queue manager backs the put out."""
    qm = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    mqpy.Queue(qm, QUEUE).put(b"x", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.connection().abend()
    assert wait_for(lambda: env.chinit.svrconn_statuses() == [])
    assert env.depth() == 0 and env.uncommitted() in (0, "NO")


def test_client_abend_ends_its_temporary_queue_off_the_event_loop(env):
    """Given a client holding a temporary dynamic queue and a message got in syncpoint,
    when it drops its connection without MQDISC, then its unit of work is backed out and the
    queue deleted, and the deletion's log force ran on a worker thread, not in the channel
    initiator's event loop (which serves every other conversation)."""
    feeder = env.bindings()
    mqpy.Queue(feeder, QUEUE).put(b"p")
    feeder.disconnect()
    qm = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED).get(
        None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    od = mqpy.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"ABEND.*")
    temporary = mqpy.Queue(qm, od, CMQC.MQOO_INPUT_EXCLUSIVE)
    name = od.ObjectName.rstrip(b" \x00").decode()
    assert env.engine.lookup("QLOCAL", name) is not None
    log = env.engine.data.log
    log_force = log.force
    threads = []

    def recorded(lsn=None):
        threads.append(threading.current_thread())
        log_force(lsn)

    log.force = recorded
    try:
        qm.connection().abend()
        assert wait_for(lambda: env.chinit.svrconn_statuses() == [])
    finally:
        log.force = log_force
    assert temporary is not None and env.engine.lookup("QLOCAL", name) is None
    assert env.depth() == 1
    assert threads and env.chinit._thread not in threads
