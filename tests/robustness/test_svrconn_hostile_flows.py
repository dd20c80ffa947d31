"""Hostile flows from a client on a running SVRCONN instance of a queue manager started by
strmqm, its client calls relayed by the channel initiator (MQIBindType STANDARD) or served
by the queue manager's own client host (FASTPATH): a flow that breaks the protocol ends
that channel instance only, told with STATUS and logged AMQ9504E naming the peer (never
AMQ9999E or a traceback); a flow that is well formed but asks for what cannot be had gets
an MQ answer on its own conversation, and the instance's other conversations go on. Other
clients are served throughout."""

from __future__ import annotations

import random
import socket

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import asyncflows, mqiflows
from mqpy.fap.apiheader import MQIReply, MQIRequest, mqi_event
from mqpy.fap.asyncflows import MessageRequest, Notice
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ControlFlags1, SegmentType, build_segment_header
from tests.mqi._modes import QUEUE as ELSEWHERE  # the queue of another instance's client
from tests.support.raw_sessions import _replies, _started_instance
from tests.support.site import CHANNEL, QM, QUEUE, Site
from tests.support.site_here import here_site_per_bind_type

pytestmark = [pytest.mark.system, pytest.mark.timeout(300)]

_T = SegmentType
_INPUT = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT


site = here_site_per_bind_type("svrconn")


@pytest.fixture
def bystander(site):
    """A client of another channel instance, connected before the hostile flow, with a
    queue of its own open: it must be served after it."""
    site.mark()
    qm = site.client()
    try:
        yield mqpy.Queue(qm, ELSEWHERE, _INPUT)
    finally:
        qm.disconnect()


def _served(queue: mqpy.Queue) -> None:
    queue.put(b"still served")
    assert queue.get() == b"still served"


class _Peer:
    """A client instance spoken by hand (SHARECNV 10): conversations connected with MQCONN
    and a queue opened, then raw flows on any of them."""

    def __init__(self, site: Site) -> None:
        self.sock = _started_instance(site)
        self.sock.settimeout(20)
        self.writer, self.reader = SegmentWriter(), SegmentReader()
        self.request_id = 0
        self.pending: list = []

    def call(self, conv_id: int, verb: SegmentType, values, hobj: int = 0) -> MQIReply:
        self.request_id += 1
        request = mqiflows.encode_request(verb, values, hobj=hobj)
        self.sock.sendall(self.writer.send(attrs.evolve(
            request, conv_id=conv_id, request_id=self.request_id)))
        reply = self.next()
        assert isinstance(reply, MQIReply) and reply.conv_id == conv_id, reply
        return reply

    def connected(self, conv_id: int) -> int:
        """MQCONN on ``conv_id``, then MQOPEN of ``QUEUE`` for input, reading ahead, and
        output: its hobj."""
        assert self.call(conv_id, _T.MQCONN, [(QM, "hostile")]).comp == CMQC.MQCC_OK
        reply = self.call(conv_id, _T.MQOPEN, [mqpy.OD(ObjectName=QUEUE.encode()),
                                                _INPUT | CMQC.MQOO_READ_AHEAD])
        assert reply.comp == CMQC.MQCC_OK
        return reply.hobj

    def next(self):
        while not self.pending:
            data = self.sock.recv(65536)
            assert data, "the instance was closed"
            self.pending += self.reader.feed(data)
        return self.pending.pop(0)

    def refused(self) -> StatusCode:
        """The STATUS that ends the instance (it is closed after it): the instance's own
        flow, in a TSHC (no ConvId), as IBM's client reads it (``mqpy.fap.tshc``)."""
        data = b""
        try:
            while chunk := self.sock.recv(65536):
                data += chunk
        except ConnectionResetError:
            pass
        [status] = [e for e in self.pending + self.reader.feed(data) if isinstance(e, Status)]
        assert (status.conv_id, status.request_id) == (None, None) and b"TSHC" in data, status
        return StatusCode(status.code)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def peer(site):
    p = _Peer(site)
    try:
        yield p
    finally:
        p.close()


def _request_msgs(hobj: int, conv_id: int, **fields) -> bytes:
    values = {"window": 65536, "options": CMQC.MQGMO_NO_WAIT, "wait_interval": 0, **fields}
    return asyncflows.message_request(MessageRequest(hobj, **values), conv_id)


def _nothing_unexpected(site: Site, bystander: mqpy.Queue) -> None:
    """Another instance's client is still served, and the log since the test began holds
    no AMQ9999E nor a traceback."""
    _served(bystander)
    log = site.errors(site._mark)
    assert "AMQ9999E" not in log and "Traceback" not in log, log


def _protocol_error_logged(site: Site, what: str) -> None:
    log = site.wait_for_log("AMQ9504E")
    assert "AMQ9504E" in log and "127.0.0.1" in log and what in log, log
    assert "AMQ9999E" not in log and "Traceback" not in log, log


def test_a_short_request_msgs_ends_its_instance_with_a_protocol_error(site, bystander, peer):
    """Given a client instance with two conversations, when one sends a REQUEST_MSGS
    shorter than its fixed part, then that instance is ended with STATUS
    PROTOCOL_INVALID_DATA and AMQ9504E naming the peer and the flow (not AMQ9999E), and a
    client of another instance is still served."""
    hobj = peer.connected(1)
    peer.connected(3)
    whole = _request_msgs(hobj, 1)
    peer.sock.sendall(asyncflows.readdressed(_T.REQUEST_MSGS, whole[36:36 + 20], 1))
    assert peer.refused() == StatusCode.PROTOCOL_INVALID_DATA
    _protocol_error_logged(site, "REQUEST_MSGS")
    _served(bystander)


def _notification(peer: _Peer, conv_id: int) -> asyncflows.Notification:
    """The NOTIFICATION that ends the answer to a REQUEST_MSGS of ``conv_id`` (any
    ASYNC_MESSAGEs before it are skipped)."""
    while True:
        event = peer.next()
        assert event.conv_id == conv_id, event
        if event.segment_type == _T.NOTIFICATION:
            return asyncflows.parse_notification(event.body)
        assert event.segment_type == _T.ASYNC_MESSAGE, event


def _put(peer: _Peer, conv_id: int, hobj: int, data: bytes) -> None:
    put = peer.call(conv_id, _T.MQPUT, [mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT),
                                        data], hobj)
    assert put.comp == CMQC.MQCC_OK, put


def _conversation_works(peer: _Peer, conv_id: int, hobj: int) -> None:
    """``conv_id`` puts and gets a message on ``hobj`` as usual."""
    _put(peer, conv_id, hobj, b"after")
    got = peer.call(conv_id, _T.MQGET, [mqpy.MD(), mqpy.GMO(
        Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT), 100], hobj)
    assert got.comp == CMQC.MQCC_OK, got


ODD_REQUESTS = {
    "a handle never opened": {"hobj": 999},
    "a negative handle": {"hobj": -5},
    "a negative window": {"window": -1},
    "a window of zero": {"window": 0},
    "the largest window": {"window": 0x7FFFFFFF},
    "a maximum message length of zero": {"max_msg_length": 0},
    "a negative maximum message length": {"max_msg_length": -7},
    "a negative wait interval": {"options": CMQC.MQGMO_WAIT, "wait_interval": -7},
    "every option": {"options": -1},
    "browse under syncpoint with a lock": {"options": CMQC.MQGMO_BROWSE_FIRST
                                           | CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_LOCK},
}


@pytest.mark.parametrize("fields", ODD_REQUESTS.values(), ids=ODD_REQUESTS.keys())
def test_a_request_msgs_with_odd_values_is_answered_on_its_own_conversation(
        site, bystander, peer, fields):
    """Given a client instance with two conversations and a message on the queue, when one
    sends a well-formed REQUEST_MSGS asking for what it cannot have, then it is answered
    on that conversation (a NOTIFICATION), and both conversations and another instance's
    client go on as usual; nothing unexpected is logged."""
    hobj1 = peer.connected(1)
    hobj3 = peer.connected(3)
    _put(peer, 3, hobj3, b"waiting")
    fields = dict(fields)  # (the parameter serves each queue manager)
    hobj = fields.pop("hobj", hobj1)
    peer.sock.sendall(_request_msgs(hobj, 1, **fields))
    notice = _notification(peer, 1)
    assert notice.code in set(Notice), notice
    _conversation_works(peer, 3, hobj3)
    _conversation_works(peer, 1, hobj1)
    _nothing_unexpected(site, bystander)
    assert "AMQ9504E" not in site.errors(site._mark)


def test_a_request_msgs_for_another_conversations_handle_takes_none_of_its_messages(
        site, bystander, peer):
    """Given conversation 3 with the queue open and conversation 1 with nothing open, when
    conversation 1 asks for messages of the handle number conversation 3 was given, then
    it is told it has no such handle (MQRC_HOBJ_ERROR) and conversation 3 still gets the
    message."""
    assert peer.call(1, _T.MQCONN, [(QM, "nothing open")]).comp == CMQC.MQCC_OK
    hobj3 = peer.connected(3)
    _put(peer, 3, hobj3, b"for conversation 3")
    peer.sock.sendall(_request_msgs(hobj3, 1))
    notice = _notification(peer, 1)
    assert notice.value == CMQC.MQRC_HOBJ_ERROR, notice
    got = peer.call(3, _T.MQGET, [mqpy.MD(), mqpy.GMO(
        Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT), 100], hobj3)
    assert got.comp == CMQC.MQCC_OK, got


def test_a_request_msgs_on_a_conversation_not_connected_is_refused_there(site, bystander, peer):
    """Given a client instance with conversation 1 connected, when a REQUEST_MSGS comes on
    conversation 5, never connected, then conversation 5 is told MQRC_HCONN_ERROR and
    conversation 1 goes on."""
    hobj = peer.connected(1)
    peer.sock.sendall(_request_msgs(hobj, 5))
    notice = _notification(peer, 5)
    assert (notice.code, notice.value) == (Notice.STREAMING_FAILURE, CMQC.MQRC_HCONN_ERROR)
    _conversation_works(peer, 1, hobj)
    _served(bystander)


def test_a_conn_state_for_a_conversation_not_connected_is_dropped(site, bystander, peer):
    """Given a client instance with conversation 1 connected, when a NOTIFICATION
    CONN_STATE (a client's MQCTL) comes for conversation 7, never connected, then nothing
    answers it and conversation 1 goes on."""
    hobj = peer.connected(1)
    peer.sock.sendall(asyncflows.notification(CMQC.MQHO_NONE, 3, CMQC.MQCS_STOPPED, 7))
    _conversation_works(peer, 1, hobj)
    _served(bystander)


_SHORT_REQUEST = asyncflows.readdressed(_T.REQUEST_MSGS, bytes(8), 1)
MALFORMED = {
    "an ASYNC_MESSAGE from the client": (
        asyncflows.async_message(1, 0, b"APP.Q", bytes(364), b"x", 1),
        StatusCode.PROTOCOL_SEGMENT_TYPE, "ASYNC_MESSAGE"),
    "a NOTIFICATION that is not CONN_STATE": (
        asyncflows.notification(1, Notice.CHECK_MSG, 0, 1),
        StatusCode.PROTOCOL_SEGMENT_TYPE, "NOTIFICATION"),
    "a NOTIFICATION shorter than its fixed part": (
        asyncflows.readdressed(_T.NOTIFICATION, bytes(6), 1),
        StatusCode.PROTOCOL_SEGMENT_TYPE, "NOTIFICATION"),
    "a segment longer than the agreed transmission size": (
        build_segment_header(_T.MQPUT, 40000, flags1=ControlFlags1.FIRST | ControlFlags1.LAST,
                             conv_id=1, request_id=1),
        StatusCode.PROTOCOL_LENGTH_ERROR, "40000"),
    "a short REQUEST_MSGS on a conversation not connected": (
        asyncflows.readdressed(_T.REQUEST_MSGS, bytes(8), 9),
        StatusCode.PROTOCOL_INVALID_DATA, "REQUEST_MSGS"),
}


@pytest.mark.parametrize("flow", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_flow_ends_its_instance_with_a_protocol_error(site, bystander, peer,
                                                                   flow):
    """Given a client instance with two conversations, when it sends a flow a SVRCONN
    does not take or cannot read, then that instance ends with STATUS and AMQ9504E naming
    the peer and the flow, and a client of another instance is still served."""
    segment, code, what = flow
    peer.connected(1)
    peer.connected(3)
    peer.sock.sendall(segment)
    assert peer.refused() == code
    _protocol_error_logged(site, what)
    _served(bystander)


GARBLED_SPI = {"no body": b"", "a short body": b"\x01\x02", "garbage": b"\xff" * 64,
               "an unknown verb": (99).to_bytes(4, "little") + bytes(60)}


@pytest.mark.parametrize("body", GARBLED_SPI.values(), ids=GARBLED_SPI.keys())
def test_a_garbled_spi_flow_gets_an_mq_answer(site, bystander, peer, body):
    """Given a client instance with a conversation connected, when it sends an SPI flow
    (0x8C) whose body is not one, then it is answered as MQ answers: a failed reply on that
    conversation, or STATUS and AMQ9504E for the instance; never AMQ9999E; a client of
    another instance is still served."""
    hobj = peer.connected(1)
    peer.sock.sendall(peer.writer.send(mqi_event(
        MQIRequest, ControlFlags1.NONE, bytes(8), 1, 99, _T.SPI, 0, 0, hobj, body, None)))
    answer = peer.next()
    if isinstance(answer, Status):
        _protocol_error_logged(site, "SPI")
    else:
        assert isinstance(answer, MQIReply) and answer.conv_id == 1, answer
        assert answer.comp == CMQC.MQCC_FAILED, answer
        _conversation_works(peer, 1, hobj)
    _nothing_unexpected(site, bystander)


def _garbled_bodies(verb: SegmentType) -> list[bytes]:
    """Bodies of ``verb`` a client might garble: none, a few bytes, noise, and its flows'
    usual structure ids followed by noise (seeded: the same bytes every run)."""
    noise = random.Random(int(verb))
    ids = [b"MD  ", b"OD  ", b"PMO ", b"GMO ", b"SD  ", b"CNO ", b"STS "]
    bodies = [b"", b"\x01\x02\x03", noise.randbytes(100), noise.randbytes(700)]
    for _ in range(4):
        bodies.append(noise.choice(ids) + noise.randbytes(noise.randrange(4, 600)))
    return bodies


@pytest.mark.parametrize("verb", sorted(mqiflows.REQUESTS), ids=lambda v: v.name)
def test_garbled_mqi_flows_get_an_mq_answer(site, bystander, verb):
    """Given a client instance with conversation 1 connected and a queue open, when it
    sends an MQI flow of ``verb`` with a garbled body (on conversation 1, and as a new
    conversation 3), then each gets an MQ answer: a failed reply on its conversation, or
    STATUS ending that instance with AMQ9504E; never AMQ9999E nor a traceback; a client of
    another instance is served throughout."""
    for body in _garbled_bodies(verb):
        for conv_id in (1, 3):
            peer = _Peer(site)
            try:
                hobj = peer.connected(1)
                peer.sock.sendall(peer.writer.send(mqi_event(
                    MQIRequest, ControlFlags1.NONE, bytes(8), conv_id, 99, verb, 0, 0, hobj,
                    body, None)))
                answer = peer.next()
                assert isinstance(answer, (MQIReply, Status)), answer
                if isinstance(answer, MQIReply):
                    assert answer.conv_id == conv_id, answer
                    if not (verb == _T.MQDISC and conv_id == 1):  # (MQDISC ends it)
                        _conversation_works(peer, 1, hobj)
                else:
                    _protocol_error_logged(site, verb.name)
            finally:
                peer.close()
    _nothing_unexpected(site, bystander)


@pytest.mark.parametrize("flow", [_T.USERID_DATA, _T.CONAUTH_INFO], ids=lambda t: t.name)
def test_garbled_identity_flows_get_an_mq_answer(site, bystander, flow):
    """Given a client instance whose INITIAL_DATA is agreed, when it sends a garbled
    USERID_DATA or CONAUTH_INFO for a conversation and then that conversation's MQCONN,
    then the MQCONN is answered, or the instance ends with STATUS and AMQ9504E; never
    AMQ9999E nor a traceback; a client of another instance is served throughout."""
    for body in _garbled_bodies(flow) + [b"UID " + bytes(200), b"CAUT" + b"\xff" * 40]:
        peer = _Peer(site)
        try:
            peer.sock.sendall(asyncflows.readdressed(flow, body, 1))
            peer.request_id += 1
            conn = mqiflows.encode_request(_T.MQCONN, [(QM, "hostile")])
            peer.sock.sendall(peer.writer.send(attrs.evolve(conn, conv_id=1, request_id=1)))
            answer = peer.next()
            assert isinstance(answer, (MQIReply, Status)), answer
            if isinstance(answer, Status):
                _protocol_error_logged(site, flow.name)
        finally:
            peer.close()
    _nothing_unexpected(site, bystander)


#: Segment types of each class, for ``make test``: every control flow (0x01-0x0F) and MQI
#: verb (0x81-0x8F), the first and last of the MQI replies, XA verbs and XA replies, and
#: unassigned numbers at each edge of those ranges; ``make soak`` sends all 256.
REPRESENTATIVE_TYPES = frozenset([
    *range(0x00, 0x11), 0x7F, *range(0x80, 0x92), 0x9F, 0xA0, 0xA1, 0xAA, 0xAB, 0xB0, 0xB1,
    0xBA, 0xBB, 0xFF])


@pytest.mark.parametrize("sent", [
    pytest.param(REPRESENTATIVE_TYPES, id="each-class"),
    pytest.param(frozenset(range(256)), id="all-256", marks=pytest.mark.soak)])
def test_a_segment_of_every_type_gets_an_mq_answer(site, bystander, sent):
    """Given a client instance with conversation 1 connected, when it sends a one-segment
    flow of each of the 256 segment types (``make test``: of each class of type) with a
    noisy body, then the instance answers it, ignores it or ends with STATUS and AMQ9504E
    (never AMQ9999E nor a traceback), which the next MQCONN on conversation 5 shows; a
    client of another instance is served throughout."""
    noise = random.Random(256)
    for segment_type in range(256):
        body = noise.randbytes(noise.randrange(0, 300))  # the same body, whatever is sent
        if segment_type not in sent:
            continue
        peer = _Peer(site)
        try:
            peer.connected(1)
            first_last = ControlFlags1.FIRST | ControlFlags1.LAST
            peer.sock.sendall(build_segment_header(segment_type, 36 + len(body),
                                                   flags1=first_last, conv_id=1,
                                                   request_id=7) + body)
            conn = mqiflows.encode_request(_T.MQCONN, [(QM, "after")])
            peer.sock.sendall(peer.writer.send(attrs.evolve(conn, conv_id=5, request_id=8)))
            while not isinstance(answer := peer.next(), Status) and answer.conv_id != 5:
                pass  # the hostile flow's own answer
        except (ConnectionResetError, AssertionError):
            pass  # closed: the log says why
        finally:
            peer.close()
    _nothing_unexpected(site, bystander)


def test_a_request_msgs_waiting_without_end_holds_no_other_conversation(site, bystander,
                                                                       peer):
    """Given conversation 1 with an empty queue open, when it asks for messages waiting
    without a time limit, then conversation 3 of the same instance is served meanwhile,
    and the message conversation 3 then puts is streamed to conversation 1."""
    hobj1 = peer.connected(1)
    while peer.call(1, _T.MQGET, [mqpy.MD(), mqpy.GMO(
            Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT), 100], hobj1).comp == 0:
        pass  # emptied
    peer.sock.sendall(_request_msgs(hobj1, 1, options=CMQC.MQGMO_WAIT,
                                    wait_interval=CMQC.MQWI_UNLIMITED))
    hobj3 = peer.connected(3)
    reply = peer.call(3, _T.MQOPEN, [mqpy.OD(ObjectName=ELSEWHERE.encode()), _INPUT])
    _conversation_works(peer, 3, reply.hobj)
    peer.request_id += 1
    put = mqiflows.encode_request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(
        Options=CMQC.MQPMO_NO_SYNCPOINT), b"for the waiting conversation"], hobj=hobj3)
    peer.sock.sendall(peer.writer.send(attrs.evolve(put, conv_id=3,
                                                    request_id=peer.request_id)))
    seen: list = []  # the put's reply and the stream to conversation 1, in either order
    while not any(e.segment_type == _T.NOTIFICATION for e in seen) \
            or not any(isinstance(e, MQIReply) for e in seen):
        seen.append(peer.next())
    [reply] = [e for e in seen if isinstance(e, MQIReply)]
    assert (reply.conv_id, reply.comp) == (3, CMQC.MQCC_OK), reply
    streamed = [(e.conv_id, e.segment_type) for e in seen if e is not reply]
    assert streamed == [(1, _T.ASYNC_MESSAGE), (1, _T.NOTIFICATION)], seen
    _nothing_unexpected(site, bystander)


def test_requests_piled_behind_a_waiting_call_hold_no_other_conversation(site, bystander,
                                                                        peer):
    """Given conversation 1 waiting without a time limit for a message, when the client
    piles more requests on conversation 1 behind that call than the instance holds, then
    after a few seconds the instance ends with STATUS PROTOCOL_GENERAL and AMQ9504E
    rather than read nothing more for its other conversations (no MQI client sends a
    call before the last one returned); a client of another instance is served."""
    hobj1 = peer.connected(1)
    while peer.call(1, _T.MQGET, [mqpy.MD(), mqpy.GMO(
            Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT), 100], hobj1).comp == 0:
        pass  # emptied
    wait = mqiflows.encode_request(_T.MQGET, [mqpy.MD(), mqpy.GMO(
        Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT,
        WaitInterval=CMQC.MQWI_UNLIMITED), 100], hobj=hobj1)
    inquire = mqiflows.encode_request(_T.MQINQ, [[CMQC.MQIA_CURRENT_Q_DEPTH]], hobj=hobj1)
    flows = [attrs.evolve(wait, conv_id=1, request_id=100)]
    flows += [attrs.evolve(inquire, conv_id=1, request_id=101 + i) for i in range(64)]
    peer.sock.sendall(b"".join(peer.writer.send(f) for f in flows))
    assert peer.refused() == StatusCode.PROTOCOL_GENERAL
    _protocol_error_logged(site, "behind a call that does not return")
    _nothing_unexpected(site, bystander)


def test_a_short_request_msgs_on_an_unshared_instance_is_refused_with_a_tsh_status(
        site, bystander):
    """Given a client instance that shares no conversations (SHARECNV 0: TSH flows), when
    it sends a short REQUEST_MSGS after its MQCONN, then the instance ends with STATUS
    PROTOCOL_INVALID_DATA in a TSH and AMQ9504E; another instance's client is served."""
    with socket.create_connection(("127.0.0.1", site.port), timeout=20) as sock:
        writer, reader = SegmentWriter(), SegmentReader()
        sock.sendall(writer.send(InitialData(fap_level=10, channel_name=CHANNEL,
                                             conv_per_socket=0, max_msg_batch=1)))
        events: list = []
        while not events:
            events = reader.feed(sock.recv(65536))
        assert isinstance(events[0], InitialData) and events[0].conv_per_socket == 0
        sock.sendall(writer.send(mqiflows.encode_request(_T.MQCONN, [(QM, "unshared")])))
        (reply,) = _replies(sock, reader, 1)
        assert reply.comp == CMQC.MQCC_OK and reply.conv_id is None, reply
        sock.sendall(asyncflows.readdressed(_T.REQUEST_MSGS, bytes(12), None))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    [status] = [e for e in reader.feed(data) if isinstance(e, Status)]
    assert (status.code, status.conv_id) == (StatusCode.PROTOCOL_INVALID_DATA, None)
    _protocol_error_logged(site, "REQUEST_MSGS")
    _nothing_unexpected(site, bystander)
