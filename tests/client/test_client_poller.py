"""The client host's poller (``mqpy_chinit.clientpoll``): idle plain clients' MQPUTs and
MQGETs served from one epoll, everything else handed to the instance's receiver as it would
have read it. The channel initiator of ``conftest`` serves its SVRCONNs through a poller here,
as the daemon's client host does."""

from __future__ import annotations

import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy_chinit import svrconn_packed
from mqpy_chinit.clientpoll import ClientPoller
from tests.client.conftest import CHANNEL, QUEUE, wait_for


@pytest.fixture
def poller(env):
    """``env``'s channel initiator, its SVRCONN instances parked with a running poller."""
    poller = ClientPoller()

    def install() -> None:
        chinit = env.chinit.chinit
        chinit.nursery.start_soon(poller.run)
        chinit.svrconn_handler = poller.svrconn_handler()

    env.chinit.run_sync(install)
    return poller


@pytest.fixture
def two_clients(env):
    """Two clients, each on a channel instance of its own; the first may be broken."""
    bad, good = env.client(SharingConversations=1), env.client(SharingConversations=1)
    yield bad, good
    good.disconnect()
    try:
        bad.disconnect()
    except mqpy.MQMIError:
        pass


def test_idle_clients_puts_and_gets_are_served_by_the_poller(env, poller):
    """Given two clients, when each puts and gets 50 messages, then every message comes back
    whole and in order, and the poller, not the receivers, served those calls."""
    clients = [env.client() for _ in range(2)]
    try:
        queues = [mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
                  for qm in clients]
        for i in range(50):
            for n, q in enumerate(queues):
                q.put(f"{n}-{i}".encode() * 40)
                assert q.get() == f"{n}-{i}".encode() * 40
        assert env.chinit.run_sync(lambda: poller.served) >= 200
    finally:
        for qm in clients:
            qm.disconnect()


def test_other_calls_go_to_the_receiver_between_served_ones(env, poller):
    """Given a parked client, when it puts in syncpoint, inquires, commits and gets, then each
    call answers as ever: the put served at once, the others by the instance's tasks."""
    qm = env.client()
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF
                       | CMQC.MQOO_INQUIRE)
        q.put(b"one", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        assert env.depth() == 1 and env.uncommitted() not in (0, "NO")
        assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
        qm.commit()
        assert q.get() == b"one"
        with pytest.raises(mqpy.MQMIError) as e:
            q.get()
        assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        assert env.chinit.run_sync(lambda: poller.served) >= 2
    finally:
        qm.disconnect()


def test_heartbeats_flow_while_the_receiver_is_parked(env, poller):
    """Given HBINT(1) at both ends, when a parked client idles 3 s (past the receive timeout
    of 2 s had heartbeats not flowed), then its next call works and nothing timed out."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", HBINT=1)
    qm = env.client(HeartbeatInterval=1)
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        q.put(b"before")
        time.sleep(3.0)
        assert q.get() == b"before"
        assert env.chinit.messages("AMQ9259E") == []
    finally:
        qm.disconnect()


def test_a_malformed_flow_to_a_parked_receiver_ends_that_channel_alone(env, poller,
                                                                       two_clients):
    """Given two parked clients, each on a channel instance of its own, when one's socket
    carries bytes that are no TSH, then its channel ends with a protocol error logged
    (AMQ9504E) and its next call fails 2009, while the other client goes on."""
    bad, good = two_clients
    gq = mqpy.Queue(good, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    bq = mqpy.Queue(bad, QUEUE, CMQC.MQOO_OUTPUT)
    bad.connection()._instance.sock.sendall(b"NOT A TSH" + bytes(40))
    assert wait_for(lambda: env.chinit.messages("AMQ9504E"))
    with pytest.raises(mqpy.MQMIError) as e:
        bq.put(b"x")
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    gq.put(b"still")
    assert gq.get() == b"still"


def test_a_client_that_goes_away_while_parked_ends_its_instance(env, poller):
    """Given a parked client with an uncommitted put, when its socket closes without MQDISC,
    then the instance ends (no status left) and its unit of work is backed out."""
    qm = env.client()
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
    q.put(b"uncommitted", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.connection()._instance.sock.close()
    assert wait_for(lambda: env.chinit.svrconn_statuses() == [])
    assert env.depth() == 0
    assert env.chinit.run_sync(lambda: poller.parked) == {}


def test_a_fault_serving_one_parked_client_ends_that_client_alone(env, poller, monkeypatch,
                                                                    two_clients):
    """Given two parked clients, when serving one's put raises an unexpected error, then that
    client's channel ends (AMQ9999E logged, its call fails 2009) and the poller goes on
    serving the other."""
    from mqpy_chinit.svrconn_inline import CallsServedAtOnce

    serve_now = CallsServedAtOnce._serve_now

    def faulty(self, request):
        if b"boom" in request.body:
            raise RuntimeError("boom")
        return serve_now(self, request)

    monkeypatch.setattr(CallsServedAtOnce, "_serve_now", faulty)
    serve_bytes = svrconn_packed.serve

    def faulty_bytes(instance, data):  # (the same put served from its bytes)
        if b"boom" in data:
            raise RuntimeError("boom")
        return serve_bytes(instance, data)

    monkeypatch.setattr(svrconn_packed, "serve", faulty_bytes)
    bad, good = two_clients
    bq = mqpy.Queue(bad, QUEUE, CMQC.MQOO_OUTPUT)
    gq = mqpy.Queue(good, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    with pytest.raises(mqpy.MQMIError) as e:
        bq.put(b"boom")
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    assert wait_for(lambda: any("boom" in text for text in env.chinit.messages("AMQ9999E")))
    gq.put(b"fine")
    assert gq.get() == b"fine"


def test_replies_the_socket_does_not_take_whole_are_written_as_it_drains():
    """Given a plain socket whose peer reads nothing yet, when replies larger than its buffers
    are written at once (``send_at_once``), then what it did not take is left as a tail, and
    writing the tail while the peer reads delivers every byte in order, counted as the
    segments' transmissions."""
    import socket

    import trio

    from mqpy_chinit.conversation import Conversation, Tail
    from mqpy_chinit.states import ChannelStatus
    from tests.support.recording_socket import read_while

    async def main() -> None:
        ours, theirs = socket.socketpair()
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        ours.setblocking(False)
        stream = trio.SocketStream(trio.socket.from_stdlib_socket(ours))
        status = ChannelStatus("POLL.TEST", "SVRCONN")
        conv = Conversation(stream, status)
        segments = [bytes([i]) * 100_000 for i in range(3)]
        tail = conv.send_at_once(segments, ())
        assert type(tail) is Tail and 0 < len(tail.rest) < 300_000
        got = await read_while(theirs, 300_000, conv.send_tail(tail))
        assert got == b"".join(segments)
        assert (status.net_bytes_sent, status.buffers_sent) == (300_000, 3)
        theirs.close()
        await stream.aclose()

    trio.run(main)
