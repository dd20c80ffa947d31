"""Conversations of one process sharing a channel instance (SHARECNV) read the socket in turn:
the thread whose call waits reads its reply itself, hands the others theirs, and passes the
reading on when its own has come (``mqpy.client``, ``_Socket.await_reply``). Every reply must
reach its own conversation, a long wait in one must not hold up the others, and a lost socket
must fail every waiting call with 2009 (client connections)."""

from __future__ import annotations

import threading
import time

import mqpy
from mqpy import CMQC
from tests.client.conftest import QUEUE

ROUNDS = 40


def test_replies_reach_their_conversations_while_one_waits(env):
    """Given six connections of one process on one channel instance, when five each put and
    get forty messages of their own on their own queues at the same time, first alone, then
    while the sixth waits in MQGET, then every get returns its own conversation's message
    in order, and the waiting get returns the message put for it at the end."""
    env.define("QLOCAL", "WAIT.Q")
    for i in range(5):
        env.define("QLOCAL", f"OWN.Q.{i}")
    waiter = env.client()
    workers = [env.client() for _ in range(5)]
    assert [s["CURSHCNV"] for s in env.chinit.svrconn_statuses()] == [6]
    errors: list[BaseException] = []
    got_wait: list[bytes] = []

    def wait() -> None:
        try:
            q = mqpy.Queue(waiter, "WAIT.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
            got_wait.append(q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT,
                                                            WaitInterval=30000)))
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    def work(i: int) -> None:
        try:
            q = mqpy.Queue(workers[i], f"OWN.Q.{i}",
                           CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
            for n in range(ROUNDS):
                body = f"{i}:{n}".encode()
                q.put(body)
                assert q.get() == body
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    def run_workers() -> None:
        threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(5)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        assert not any(t.is_alive() for t in threads)
        assert not errors

    run_workers()  # they read in turn among themselves
    waiting = threading.Thread(target=wait, daemon=True)
    waiting.start()
    time.sleep(0.3)  # its MQGET is waiting in the queue manager
    run_workers()  # the waiting one reads, or hands the reading on
    assert waiting.is_alive()
    mqpy.Queue(workers[0], "WAIT.Q").put(b"for the waiter")
    waiting.join(30)
    assert not errors and got_wait == [b"for the waiter"]
    for qm in (waiter, *workers):
        qm.disconnect()


def test_a_lost_socket_fails_every_waiting_call(env):
    """Given three connections on one instance, each waiting in MQGET, when the channel
    initiator ends, then all three gets fail MQRC_CONNECTION_BROKEN (2009) promptly, the one
    reading the socket and the two waiting for it to hand them their replies alike."""
    conns = [env.client() for _ in range(3)]
    reasons: list[int] = []

    def wait(qm: mqpy.QueueManager) -> None:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_SHARED)
        try:
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=30000))
        except mqpy.MQMIError as e:
            reasons.append(e.reason)

    threads = [threading.Thread(target=wait, args=(qm,), daemon=True) for qm in conns]
    for t in threads:
        t.start()
    time.sleep(0.5)
    env.chinit.stop()
    for t in threads:
        t.join(20)  # their wait intervals are 30 s: ended before, by the lost socket
    assert not any(t.is_alive() for t in threads)
    assert reasons == [CMQC.MQRC_CONNECTION_BROKEN] * 3
