"""A client that half-closes its socket (``shutdown(SHUT_WR)`` after its last requests) and
reads on, against a SVRCONN of a queue manager started by strmqm, its calls relayed by the
channel initiator (MQIBindType STANDARD) or served in the queue manager (FASTPATH). Raw
sockets: mqpy's client closes its socket whole.

The end of what the client sends is not the end of what it is owed: each request read before
it is answered, in order, and then the instance ends as for a client gone (its units of
work backed out when it did not MQDISC, AMQ9209E). A client that half-closes and never reads
does not hold the channel initiator's relay for ever: what it is owed is sent for a while at
most (``HALF_CLOSE_GRACE``), and the instance ends then."""

from __future__ import annotations

import socket
import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.tsh import SegmentType
from mqpy_chinit.svrconn_relay import HALF_CLOSE_GRACE
from tests.client.test_after_disconnect_requests import _disc, _get, _messages, _Peer, _put, _put1
from tests.support.site import CHANNEL, QM, QUEUE, Site
from tests.support.site_here import QUEUE as ELSEWHERE  # the other instance's queue
from tests.support.site_here import here_site_per_bind_type
from tests.support.waiting import came_true

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]

_T = SegmentType
_OK, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_FAILED
_SYNC_PUT = CMQC.MQPMO_SYNCPOINT
#: how long the replies owed to a half-closed client that reads may take to come
_OWED_WAIT = 20.0

site = here_site_per_bind_type("half_close")


@pytest.fixture(autouse=True)
def empty_queue(site):
    _messages(site)


def _half_closed(peer: _Peer, *flows: bytes) -> list:
    """``flows`` in one write, then the socket half-closed: every flow that comes until the
    SVRCONN closes it (AssertionError if it does not within _OWED_WAIT)."""
    peer.write(*flows)
    peer.sock.shutdown(socket.SHUT_WR)
    data = b""
    peer.sock.settimeout(_OWED_WAIT)
    while True:
        try:
            chunk = peer.sock.recv(1 << 20)
        except ConnectionResetError:
            break
        except TimeoutError:
            raise AssertionError("the SVRCONN did not close the half-closed socket") from None
        if not chunk:
            break
        data += chunk
    return peer.events + peer.reader.feed(data)


def _instances(site: Site) -> int:
    """How many instances of CHANNEL are running."""
    out = site.mqsc(f"DISPLAY CHSTATUS({CHANNEL}) CURSHCNV", ok=False)
    return out.count("CURSHCNV(")


def _run_of_calls(peer: _Peer, hobj: int, n: int) -> list[tuple[int, bytes]]:
    """``n`` MQPUTs each followed by the MQGET that gets its message (the message traffic
    relayed in STANDARD, served at once in FASTPATH), then an MQINQ, an MQPUT1 under
    syncpoint and an MQCMIT (calls of the conversation's task in either mode)."""
    flows = []
    for i in range(n):
        flows += [_put(peer, 1, hobj, b"m%03d" % i), _get(peer, 1, hobj)]
    flows += [peer.request(1, _T.MQINQ, [[CMQC.MQIA_CURRENT_Q_DEPTH]], hobj),
              peer.request(1, _T.MQPUT1, [mqpy.OD(ObjectName=QUEUE.encode()), mqpy.MD(),
                                          mqpy.PMO(Options=_SYNC_PUT), b"committed"]),
              peer.request(1, _T.MQCMIT, [])]
    return flows


def _answered_in_order(came: list, flows: list[tuple[int, bytes]]) -> list[MQIReply]:
    replies = [e for e in came if isinstance(e, MQIReply)]
    assert [r.request_id for r in replies] == [rid for rid, _raw in flows], came
    assert all(r.conv_id == 1 for r in replies)
    return replies


@pytest.mark.parametrize("calls", [1, 30], ids=["one", "thirty"])
def test_every_reply_owed_is_sent_before_a_half_closed_socket_is_closed(site, calls):
    """Given a connected conversation with the queue open, when the client writes puts and
    gets, an MQINQ, an MQPUT1 under syncpoint, MQCMIT and MQDISC in one write and then
    half-closes its socket, then every request is answered, in order and OK (each get
    getting the message put before it) before the SVRCONN closes the socket; the committed
    message is on the queue, and no client gone without MQDISC is logged."""
    peer = _Peer(site)
    try:
        hobj = peer.connected(1)
        mark = site.mark()
        flows = _run_of_calls(peer, hobj, calls) + [_disc(peer, 1)]
        replies = _answered_in_order(_half_closed(peer, *(raw for _rid, raw in flows)), flows)
        assert [r.comp for r in replies] == [_OK] * len(flows), replies
        gets = replies[1:2 * calls:2]
        assert [g.body[-4:] for g in gets] == [b"m%03d" % i for i in range(calls)]
        assert came_true(lambda: _instances(site) == 0)
        log = site.errors(mark)
        assert "AMQ9209E" not in log and "AMQ9999E" not in log and "Traceback" not in log, log
    finally:
        peer.close()
    assert _messages(site) == [b"committed"]


def test_a_half_close_without_mqdisc_is_answered_then_backed_out(site):
    """Given a connected conversation, when the client writes an MQPUT1 under syncpoint, an
    MQINQ, a second conversation's MQCONN and MQPUT1, and an MQPUT under syncpoint (relayed
    in STANDARD) in one write and half-closes its socket without MQDISC, then each is
    answered (OK) and the socket closed at once (no wait for more to relay); the units of
    work are backed out (nothing put under syncpoint is on the queue), and AMQ9209E says
    the client ended without MQDISC."""
    peer = _Peer(site)
    try:
        hobj = peer.connected(1)
        mark = site.mark()
        flows = [peer.request(1, _T.MQPUT1, [mqpy.OD(ObjectName=QUEUE.encode()), mqpy.MD(),
                                             mqpy.PMO(Options=_SYNC_PUT), b"backed out"]),
                 peer.request(1, _T.MQINQ, [[CMQC.MQIA_CURRENT_Q_DEPTH]], hobj),
                 peer.request(3, _T.MQCONN, [(QM, "halfclose")]),
                 _put1(peer, 3, b"not in a unit of work"),
                 peer.request(1, _T.MQPUT, [mqpy.MD(), mqpy.PMO(Options=_SYNC_PUT),
                                            b"backed out too"], hobj)]
        began = time.monotonic()
        came = _half_closed(peer, *(raw for _rid, raw in flows))
        assert time.monotonic() - began < HALF_CLOSE_GRACE
        replies = {r.request_id: r for r in came if isinstance(r, MQIReply)}
        assert [replies[rid].comp for rid, _raw in flows] == [_OK] * len(flows), came
        site.wait_for_log("AMQ9209E", since=mark)
        assert came_true(lambda: _instances(site) == 0)
    finally:
        peer.close()
    assert _messages(site) == [b"not in a unit of work"]


def _served(qm: mqpy.QueueManager) -> None:
    """A client of another instance is served: a message put and got on a queue of its own."""
    queue = mqpy.Queue(qm, ELSEWHERE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    queue.put(b"served")
    assert queue.get() == b"served"
    queue.close()


#: a message that fills a good part of the socket buffers on its own, and how many: the
#: replies to the gets far beyond what loopback buffers hold
_BIG = 2 << 20
_BIG_GETS = 12


def test_a_half_closed_client_that_never_reads_is_let_go_within_the_bound(site):
    """Given a conversation with big messages on the queue, when the client writes gets of
    them all, half-closes its socket and never reads, then the instance ends within
    HALF_CLOSE_GRACE and a little (it does not hold the relay for ever), the messages it
    got under syncpoint are backed out onto the queue, and a client of another instance is
    served meanwhile and after."""
    qm = site.client()
    try:
        queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        for i in range(_BIG_GETS):
            queue.put(bytes([65 + i]) * _BIG)
        peer = _Peer(site)
        try:
            hobj = peer.connected(1)
            gets = [peer.request(1, _T.MQGET, [mqpy.MD(), mqpy.GMO(
                Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT, WaitInterval=1), _BIG],
                hobj)[1] for _ in range(_BIG_GETS)]
            peer.write(*gets)
            peer.sock.shutdown(socket.SHUT_WR)
            started = time.monotonic()
            _served(qm)
            assert came_true(lambda: _instances(site) == 1, timeout=HALF_CLOSE_GRACE + 10)
            assert time.monotonic() - started < HALF_CLOSE_GRACE + 10
        finally:
            peer.close()
        _served(qm)
        left = []
        while True:
            try:
                left.append(queue.get(None, mqpy.MD(), mqpy.GMO(
                    Options=CMQC.MQGMO_NO_WAIT), _BIG))
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                break
        assert sorted(m[:1] for m in left if len(m) == _BIG) == [
            bytes([65 + i]) for i in range(_BIG_GETS)]
    finally:
        qm.disconnect()


@pytest.mark.parametrize("interval", [CMQC.MQWI_UNLIMITED, 60000], ids=["unlimited", "60s"])
def test_a_half_closed_clients_gets_do_not_wait(site, interval):
    """Given a conversation with the queue open and empty whose get waits, when the client
    writes a put and two more gets that wait in one write and half-closes its socket, then
    no get waits for a message that comes later: the first is answered at once
    MQRC_NO_MSG_AVAILABLE, the put OK, the second gets the put's message and the third is
    answered at once MQRC_NO_MSG_AVAILABLE; the socket is closed at once, and a message put
    afterwards stays on the queue (no get of a client that may be gone takes it)."""
    peer = _Peer(site)
    try:
        hobj = peer.connected(1)
        waiting = [mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                                       WaitInterval=interval), 64]
        flows = [peer.request(1, _T.MQGET, waiting, hobj), _put(peer, 1, hobj, b"between"),
                 peer.request(1, _T.MQGET, waiting, hobj),
                 peer.request(1, _T.MQGET, waiting, hobj)]
        peer.write(flows[0][1])
        time.sleep(0.5)  # its get waits
        began = time.monotonic()
        replies = _answered_in_order(_half_closed(peer, *(raw for _rid, raw in flows[1:])),
                                     flows)
        assert time.monotonic() - began < HALF_CLOSE_GRACE
        first, put, second, third = replies
        assert [(r.comp, r.reason) for r in (first, put, second, third)] == [
            (_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE), (_OK, 0), (_OK, 0),
            (_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)]
        assert second.body.endswith(b"between")
    finally:
        peer.close()
    qm = site.bindings()
    try:
        mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT).put(b"for the next one")
    finally:
        qm.disconnect()
    time.sleep(0.5)  # a get still waiting would have taken it by now
    assert _messages(site) == [b"for the next one"]
