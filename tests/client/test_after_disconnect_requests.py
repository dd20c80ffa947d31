"""Requests a client writes after its MQDISC, in the same write, to a SVRCONN of a queue
manager started by strmqm, its calls relayed by the channel initiator (MQIBindType STANDARD)
or served in the queue manager (FASTPATH). Raw sockets: a real client waits for its MQDISC's
reply, so only a pipelining or hostile peer writes these bytes.

After MQDISC a conversation's Hconn is gone (IBM: MQRC_HCONN_ERROR, "made invalid by a
preceding MQDISC call"), whatever the TCP write the next request came in:

- a request on that conversation is answered MQRC_HCONN_ERROR, after the MQDISC's reply, and
  does nothing; an MQCONN on it connects again, as it would in a later write;
- a request for another conversation of the socket is served;
- an END_CONV of that conversation ends it;
- the socket and its other conversations live on, and nothing is logged as a fault."""

from __future__ import annotations

import socket
import time

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import asyncflows, mqiflows, sockact, tshc
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.asyncflows import MessageRequest, Notice
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.sockact import SocketAction, SocketActionType
from mqpy.fap.tsh import SegmentType
from tests.support.site import CHANNEL, QM, QUEUE, Site
from tests.support.site_here import here_site_per_bind_type
from tests.support.waiting import came_true

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]

_T = SegmentType
_OK, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_FAILED
_HCONN_ERROR = CMQC.MQRC_HCONN_ERROR
_NO_SYNC_PUT = CMQC.MQPMO_NO_SYNCPOINT
_NOW = CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
#: how long a reply owed is waited for before the test says it never came
_REPLY_WAIT = 10.0

site = here_site_per_bind_type("after_disc")


class _Peer:
    """A client instance spoken by hand, sharing conversations (SHARECNV 10, TSHM) or not
    (SHARECNV 0, plain TSH): flows written together in one write, replies read by
    RequestId."""

    def __init__(self, site: Site, sharecnv: int = 10) -> None:
        self.sock = socket.create_connection(("127.0.0.1", site.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sharing = sharecnv > 0
        self.writer, self.reader = SegmentWriter(), SegmentReader.before_negotiation()
        self.request_id = 0
        self.events: list = []
        self.sock.sendall(self.writer.send(InitialData(
            fap_level=10, channel_name=CHANNEL, conv_per_socket=sharecnv, max_msg_batch=1)))
        (agreed,) = self._read_until(lambda: self.events)
        assert isinstance(agreed, InitialData) and agreed.conv_per_socket == sharecnv
        self.events.clear()
        self.reader = SegmentReader()

    def request(self, conv_id: int, verb: SegmentType, values, hobj: int = 0
                ) -> tuple[int, bytes]:
        """A request's RequestId and bytes (not sent)."""
        self.request_id += 1
        event = mqiflows.encode_request(verb, values, hobj=hobj)
        if self.sharing:
            event = attrs.evolve(event, conv_id=conv_id, request_id=self.request_id)
        return self.request_id, self.writer.send(event)

    def end_conv(self, conv_id: int) -> bytes:
        return self.action(conv_id, SocketActionType.END_CONV)

    def action(self, conv_id: int, action: SocketActionType) -> bytes:
        """A SOCKET_ACTION in a TSHC, as IBM's client sends it (not sent)."""
        return tshc.connection_level(self.writer.send(
            sockact.event(SocketAction(conv_id, action), True)))

    def write(self, *flows: bytes) -> None:
        """``flows`` in one write."""
        self.sock.sendall(b"".join(flows))

    def replies(self, n: int) -> list[MQIReply]:
        """The next ``n`` flows, each an MQI reply (AssertionError if fewer come)."""
        got = self.flows(n)
        assert all(isinstance(e, MQIReply) for e in got), got
        return got

    def flows(self, n: int) -> list:
        """The next ``n`` flows (AssertionError if fewer come)."""
        events = self._read_until(lambda: len(self.events) >= n)
        assert len(events) >= n, f"only {events} came"
        got, self.events = events[:n], events[n:]
        return got

    def call(self, conv_id: int, verb: SegmentType, values, hobj: int = 0) -> MQIReply:
        rid, raw = self.request(conv_id, verb, values, hobj)
        self.write(raw)
        (reply,) = self.replies(1)
        if self.sharing:
            assert (reply.conv_id, reply.request_id) == (conv_id, rid), reply
        return reply

    def connected(self, conv_id: int = 1) -> int:
        """MQCONN on ``conv_id``, and QUEUE opened for output, input and inquire: its
        Hobj."""
        assert self.call(conv_id, _T.MQCONN, [(QM, "afterdisc")]).comp == _OK
        opened = self.call(conv_id, _T.MQOPEN, [mqpy.OD(ObjectName=QUEUE.encode()),
                                                CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF
                                                | CMQC.MQOO_INQUIRE])
        assert opened.comp == _OK, opened
        return opened.hobj

    def came_until(self, done, quiet: float = 0.5) -> list:
        """What comes until ``done(flows so far)`` holds (or the reply wait passes), and
        within ``quiet`` seconds after."""
        self._read_until(lambda: done(self.events))
        return self.nothing_more(quiet)

    def nothing_more(self, quiet: float = 0.5) -> list:
        """What comes within ``quiet`` seconds (nothing expected)."""
        self._read_until(lambda: False, quiet)
        out, self.events = self.events, []
        return out

    def _read_until(self, done, timeout: float = _REPLY_WAIT) -> list:
        deadline = time.monotonic() + timeout
        while not done():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                break
            assert data, f"the instance was closed (after {self.events})"
            self.events += self.reader.feed(data)
        return self.events

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def peer(site):
    p = _Peer(site)
    try:
        yield p
    finally:
        p.close()


def _put(peer: _Peer, conv_id: int, hobj: int, data: bytes) -> tuple[int, bytes]:
    return peer.request(conv_id, _T.MQPUT,
                        [mqpy.MD(), mqpy.PMO(Options=_NO_SYNC_PUT), data], hobj)


def _get(peer: _Peer, conv_id: int, hobj: int) -> tuple[int, bytes]:
    return peer.request(conv_id, _T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NOW), 64], hobj)


def _put1(peer: _Peer, conv_id: int, data: bytes) -> tuple[int, bytes]:
    return peer.request(conv_id, _T.MQPUT1, [mqpy.OD(ObjectName=QUEUE.encode()), mqpy.MD(),
                                            mqpy.PMO(Options=_NO_SYNC_PUT), data])


def _disc(peer: _Peer, conv_id: int) -> tuple[int, bytes]:
    return peer.request(conv_id, _T.MQDISC, [])


def _messages(site: Site) -> list[bytes]:
    """QUEUE's messages, got (the queue left empty)."""
    qm = site.bindings()
    try:
        queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
        got = []
        while True:
            try:
                got.append(queue.get(None, mqpy.MD(), mqpy.GMO(Options=_NOW)))
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE, e
                return got
    finally:
        qm.disconnect()


@pytest.fixture(autouse=True)
def empty_queue(site):
    _messages(site)


def _no_fault(site: Site, mark: int) -> None:
    log = site.errors(mark)
    assert "AMQ9999E" not in log and "Traceback" not in log and "AMQ9504E" not in log, log


def _curshcnv(site: Site) -> list[str]:
    out = " ".join(site.mqsc(f"DISPLAY CHSTATUS({CHANNEL}) CURSHCNV").split())
    return sorted(w for w in out.split() if w.startswith("CURSHCNV("))


@pytest.mark.parametrize("sharecnv", [10, 0], ids=["shared", "plain-tsh"])
def test_requests_after_mqdisc_in_its_write_are_answered_hconn_error(site, sharecnv):
    """Given a connected conversation with the queue open, when the client writes MQDISC
    and, in the same write, an MQPUT, an MQGET, an MQPUT1, an MQINQ and an MQCLOSE on it,
    then the MQDISC is answered OK and then each of the others, in order and with its own
    RequestId, MQRC_HCONN_ERROR; nothing is put, and the socket lives on: an MQCONN in a
    later write connects and is served."""
    peer = _Peer(site, sharecnv)
    try:
        hobj = peer.connected(1)
        mark = site.mark()
        flows = [_disc(peer, 1), _put(peer, 1, hobj, b"after disc"), _get(peer, 1, hobj),
                 _put1(peer, 1, b"after disc 1"),
                 peer.request(1, _T.MQINQ, [[CMQC.MQIA_CURRENT_Q_DEPTH]], hobj),
                 peer.request(1, _T.MQCLOSE, [0], hobj)]
        peer.write(*(raw for _rid, raw in flows))
        replies = peer.replies(len(flows))
        assert (replies[0].segment_type, replies[0].comp) == (_T.MQDISC_REPLY, _OK)
        assert [(r.comp, r.reason) for r in replies[1:]] == [(_FAILED, _HCONN_ERROR)] * 5
        if sharecnv:
            assert [r.request_id for r in replies] == [rid for rid, _raw in flows]
            assert {r.conv_id for r in replies} == {1}
        assert peer.nothing_more() == []
        hobj = peer.connected(1)
        assert peer.call(1, _T.MQPUT, [mqpy.MD(), mqpy.PMO(Options=_NO_SYNC_PUT), b"later"],
                         hobj).comp == _OK
        _no_fault(site, mark)
    finally:
        peer.close()
    assert _messages(site) == [b"later"]


def test_another_conversations_requests_written_after_an_mqdisc_are_served(site, peer):
    """Given conversations 1 and 3 of one socket, each with the queue open, when the client
    writes conversation 1's MQDISC, conversation 3's MQPUT and MQGET, and conversation 1's
    MQPUT in one write, then conversation 3's calls are served (its message put and got),
    conversation 1's MQPUT is answered MQRC_HCONN_ERROR, every request is answered once,
    and conversation 3 goes on; one conversation is shown for the instance."""
    hobj1 = peer.connected(1)
    hobj3 = peer.connected(3)
    mark = site.mark()
    flows = [_disc(peer, 1), _put(peer, 3, hobj3, b"three"), _get(peer, 3, hobj3),
             _put(peer, 1, hobj1, b"one after disc")]
    peer.write(*(raw for _rid, raw in flows))
    replies = {r.request_id: r for r in peer.replies(len(flows))}
    assert sorted(replies) == sorted(rid for rid, _raw in flows)
    disc, put3, get3, put1 = (replies[rid] for rid, _raw in flows)
    assert (disc.conv_id, disc.comp) == (1, _OK)
    assert (put3.conv_id, put3.comp) == (3, _OK)
    assert get3.conv_id == 3 and get3.comp == _OK and get3.body.endswith(b"three")
    assert (put1.conv_id, put1.comp, put1.reason) == (1, _FAILED, _HCONN_ERROR)
    assert peer.nothing_more() == []
    assert peer.call(3, _T.MQPUT, [mqpy.MD(), mqpy.PMO(Options=_NO_SYNC_PUT), b"3 again"],
                     hobj3).comp == _OK
    assert came_true(lambda: _curshcnv(site) == ["CURSHCNV(1)"])
    _no_fault(site, mark)
    assert _messages(site) == [b"3 again"]


def test_an_mqconn_written_after_mqdisc_connects_again_as_in_a_later_write(site, peer):
    """Given a connected conversation, when the client writes MQDISC, an MQPUT1 (before
    any MQCONN: MQRC_HCONN_ERROR), an MQCONN and an MQPUT1 on the same ConvId in one write,
    then the MQDISC is answered OK, the first MQPUT1 MQRC_HCONN_ERROR, the MQCONN OK and
    the second MQPUT1 OK (its message put): as they are answered when each comes in a
    write of its own."""
    peer.connected(1)
    mark = site.mark()
    flows = [_disc(peer, 1), _put1(peer, 1, b"before conn"),
             peer.request(1, _T.MQCONN, [(QM, "again")]), _put1(peer, 1, b"after conn")]
    peer.write(*(raw for _rid, raw in flows))
    replies = {r.request_id: r for r in peer.replies(len(flows))}
    assert [(replies[rid].comp, replies[rid].reason) for rid, _raw in flows] == [
        (_OK, 0), (_FAILED, _HCONN_ERROR), (_OK, 0), (_OK, 0)]
    assert peer.nothing_more() == []
    assert came_true(lambda: _curshcnv(site) == ["CURSHCNV(1)"])
    _no_fault(site, mark)
    assert _messages(site) == [b"after conn"]


def test_end_conv_written_after_mqdisc_and_more_requests_ends_the_conversation(site, peer):
    """Given conversations 1 and 3, when the client writes conversation 1's MQDISC, an
    MQPUT1 on it, its END_CONV, and then START_CONV, MQCONN and MQPUT1 of conversation 1
    again in one write, then conversation 1 is ended by its END_CONV: the old MQPUT1 puts
    nothing (if it is answered, it fails), the ConvId starts again as a new conversation
    (ACCEPT_CONV, its MQCONN and MQPUT1 OK), two conversations are shown, and conversation
    3 is served; nothing is logged as a fault."""
    peer.connected(1)
    hobj3 = peer.connected(3)
    mark = site.mark()
    disc, old = _disc(peer, 1), _put1(peer, 1, b"after disc")
    conn, new = peer.request(1, _T.MQCONN, [(QM, "again")]), _put1(peer, 1, b"new 1")
    peer.write(disc[1], old[1], peer.end_conv(1), peer.action(1, SocketActionType.START_CONV),
               conn[1], new[1])

    def conn_and_put1_answered(flows: list) -> bool:
        answered = {e.request_id for e in flows if isinstance(e, MQIReply)}
        return {conn[0], new[0]} <= answered and any(
            not isinstance(e, MQIReply) for e in flows)

    came = peer.came_until(conn_and_put1_answered)
    accepted = [e for e in came if not isinstance(e, MQIReply)]
    assert [(e.conv_id, sockact.parse(e.body, True).type) for e in accepted] == [
        (1, SocketActionType.ACCEPT_CONV)], came
    replies = {e.request_id: e for e in came if isinstance(e, MQIReply)}
    assert {rid: r.conv_id for rid, r in replies.items()} == dict.fromkeys(replies, 1)
    assert (replies[conn[0]].comp, replies[new[0]].comp) == (_OK, _OK), came
    assert old[0] not in replies or replies[old[0]].comp == _FAILED, came
    assert peer.call(3, _T.MQPUT, [mqpy.MD(), mqpy.PMO(Options=_NO_SYNC_PUT), b"three"],
                     hobj3).comp == _OK
    assert came_true(lambda: _curshcnv(site) == ["CURSHCNV(2)"])
    _no_fault(site, mark)
    assert sorted(_messages(site)) == [b"new 1", b"three"]


def test_a_request_msgs_after_mqdisc_in_its_write_is_refused_hconn_error(site, peer):
    """Given a conversation with the queue open, when the client writes MQDISC and, in the
    same write, a REQUEST_MSGS (read ahead) for its handle, then the MQDISC is answered OK
    and the REQUEST_MSGS with a NOTIFICATION that read ahead is not in effect,
    MQRC_HCONN_ERROR, as on a conversation never connected; the socket lives on."""
    hobj = peer.connected(1)
    mark = site.mark()
    disc = _disc(peer, 1)
    peer.write(disc[1], asyncflows.message_request(MessageRequest(
        hobj, window=65536, options=CMQC.MQGMO_NO_WAIT, wait_interval=0), 1))
    replied, refused = peer.flows(2)
    assert isinstance(replied, MQIReply) and (replied.request_id, replied.comp) == (disc[0], _OK)
    assert (refused.conv_id, refused.segment_type) == (1, _T.NOTIFICATION), refused
    notice = asyncflows.parse_notification(refused.body)
    assert (notice.code, notice.value) == (Notice.STREAMING_FAILURE, _HCONN_ERROR)
    assert peer.nothing_more() == []
    peer.connected(3)
    _no_fault(site, mark)
