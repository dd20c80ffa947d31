"""A hostile or broken client's SOCKET_ACTION and TSHC flows on a shared SVRCONN instance of
a queue manager started by strmqm, its calls relayed (MQIBindType STANDARD) or served in the
queue manager (FASTPATH): a flow that breaks the protocol ends that instance only (STATUS,
AMQ9504E, never AMQ9999E or a traceback); a conversation ended by END_CONV -- however it
races with its own calls -- leaves its unit of work backed out, no message lost or doubled,
and the instance's other conversations and other instances go on. The client is spoken by
hand as IBM's Java client speaks (``tests.client.test_socket_action.SharedInstance``)."""

from __future__ import annotations

import socket

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows, sockact, tshc
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.controlflows import Heartbeat, Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.sockact import SocketAction, SocketActionType
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import STRUCTID_TSHC, ByteOrder, ControlFlags1, SegmentType, parse_segment_header
from tests.client.conftest import drain_site
from tests.client.test_socket_action import SharedInstance, _curshcnv, channel_connections
from tests.support.site import CHANNEL, QM
from tests.support.site_here import QUEUE, here_site_per_bind_type
from tests.support.waiting import came_true

pytestmark = [pytest.mark.system, pytest.mark.timeout(240)]

_T = SegmentType
_A = SocketActionType
_NOW = CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT


site = here_site_per_bind_type("sockhost")


def _drain(site) -> list[bytes]:
    return drain_site(site, QUEUE)


def _put(site, *messages: bytes) -> None:
    qm = site.bindings()
    try:
        queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        for m in messages:
            queue.put(m)
        queue.close()
    finally:
        qm.disconnect()


@pytest.fixture(autouse=True)
def empty_queue(site):
    _drain(site)


@pytest.fixture
def two_instances(site):
    """Two instances of a client sharing conversations: the first's conversation 1
    started (the bystander that must go on), the second not started (the hostile one)."""
    other = SharedInstance(site, ByteOrder.LITTLE)
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        other.start(1)
        yield other, client
    finally:
        client.close()
        other.close()


def _no_fault(site, mark: int) -> None:
    log = site.errors(mark)
    assert "AMQ9999E" not in log and "Traceback" not in log, log


def _still_served(other: SharedInstance, conv_id: int) -> None:
    assert other.put1(conv_id, b"still", CMQC.MQPMO_NO_SYNCPOINT).comp == CMQC.MQCC_OK
    got = other.get(conv_id, other.open_input(conv_id))
    assert got.comp == CMQC.MQCC_OK and b"still" in got.body


def _send_call(client: SharedInstance, conv_id: int, verb: SegmentType, values,
               hobj: int = 0) -> None:
    """A request on ``conv_id`` whose reply is not waited for."""
    request = mqiflows.encode_request(verb, values, hobj=hobj, byte_order=client.order)
    client.sendall(client.writer.send(attrs.evolve(
        request, conv_id=conv_id, request_id=next(client.request_ids))))


def _reply_of(client: SharedInstance, conv_id: int) -> MQIReply:
    """The next reply of ``conv_id``, the replies of other conversations skipped."""
    while True:
        _segment, reply = client.next()
        if isinstance(reply, MQIReply) and reply.conv_id == conv_id:
            return reply


@pytest.mark.parametrize("conv_id", [-1, -(2**31)])
def test_start_conv_of_a_negative_conv_id_ends_only_its_instance(site, two_instances, conv_id):
    """Given two instances, when one sends START_CONV for a ConvId that is negative (an
    MQLONG no TSHM can carry), then that instance is refused with a STATUS CONV_ID_ERROR in a
    TSHC and AMQ9504E, nothing worse is logged, and the other instance goes on."""
    other, client = two_instances
    mark = site.mark()
    client.action(SocketAction(conv_id, _A.START_CONV))
    segments = client.closed()
    assert [parse_segment_header(s).struct_id for s in segments] == [STRUCTID_TSHC]
    [status] = SegmentReader().feed(segments[0])
    assert isinstance(status, Status) and status.code == StatusCode.CONV_ID_ERROR
    assert "AMQ9504E" in site.wait_for_log("AMQ9504E", since=mark)
    _no_fault(site, mark)
    _still_served(other, 1)


def test_the_highest_conv_id_is_a_conversation_like_any(site):
    """Given an instance, when the client starts ConvId 2**31-1 (the highest MQLONG), then it
    is accepted and its calls are served."""
    client = SharedInstance(site, ByteOrder.BIG)
    try:
        client.start(2**31 - 1)
        _still_served(client, 2**31 - 1)
    finally:
        client.close()


def test_an_ended_conv_id_started_again_is_a_new_conversation(site):
    """Given conversation 1 with a put in its unit of work, ended by END_CONV, when the
    client starts ConvId 1 again, then it is accepted, the old put was backed out (not seen
    by the new conversation), and the new conversation's calls are served; one
    conversation on the instance."""
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        client.start(1)
        assert client.put1(1, b"old", CMQC.MQPMO_SYNCPOINT).comp == CMQC.MQCC_OK
        client.action(SocketAction(1, _A.END_CONV))
        client.start(1)
        hobj = client.open_input(1)
        assert client.get(1, hobj).reason == CMQC.MQRC_NO_MSG_AVAILABLE
        _still_served(client, 1)
        assert _curshcnv(site) == ["CURSHCNV(1)"]
    finally:
        client.close()
    assert _drain(site) == []


def test_end_conv_sent_with_its_mqdisc_ends_the_conversation_once(site):
    """Given two conversations, when the client sends MQDISC and END_CONV of the first in
    one write, then the MQDISC is served and answered before END_CONV ends the
    conversation (its unit of work committed), and the instance goes on: the second
    conversation is served, the first is gone, one conversation shown, nothing logged."""
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        client.start(1)
        client.start(3)
        assert client.put1(1, b"kept", CMQC.MQPMO_SYNCPOINT).comp == CMQC.MQCC_OK
        mark = site.mark()
        request = mqiflows.encode_request(_T.MQDISC, [], byte_order=client.order)
        client.sendall(client.writer.send(attrs.evolve(
            request, conv_id=1, request_id=next(client.request_ids)))
            + tshc.connection_level(client.writer.send(
                sockact.event(SocketAction(1, _A.END_CONV), True))))
        disc = _reply_of(client, 1)
        assert (disc.segment_type, disc.comp) == (_T.MQDISC_REPLY, CMQC.MQCC_OK)
        _send_call(client, 3, _T.MQPUT1, [mqpy.OD(ObjectName=QUEUE.encode()), mqpy.MD(),
                                          mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"3"])
        assert _reply_of(client, 3).comp == CMQC.MQCC_OK
        assert client.call(1, _T.MQDISC, []).reason == CMQC.MQRC_HCONN_ERROR
        assert came_true(lambda: _curshcnv(site) == ["CURSHCNV(1)"])
        log = site.errors(mark)
        assert "AMQ9504E" not in log
        _no_fault(site, mark)
    finally:
        client.close()
    # the MQDISC ran before END_CONV ended the conversation: it committed "kept"
    assert sorted(_drain(site)) == [b"3", b"kept"]


def test_end_conv_of_a_call_in_flight_loses_and_doubles_nothing(site):
    """Given a conversation that got a message under syncpoint and sends MQCMIT and, in the
    same write, END_CONV, then the commit is served and answered before END_CONV ends the
    conversation: the message is committed (gone), never both gone and back, never twice;
    the instance's other conversation is served."""
    _put(site, b"one")
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        client.start(1)
        client.start(3)
        hobj = client.open_input(1)
        got = client.call(1, _T.MQGET, [mqpy.MD(), mqpy.GMO(
            Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT), 64], hobj)
        assert got.comp == CMQC.MQCC_OK
        request = mqiflows.encode_request(_T.MQCMIT, [], byte_order=client.order)
        client.sendall(client.writer.send(attrs.evolve(
            request, conv_id=1, request_id=next(client.request_ids)))
            + tshc.connection_level(client.writer.send(
                sockact.event(SocketAction(1, _A.END_CONV), True))))
        committed = _reply_of(client, 1)
        assert (committed.segment_type, committed.comp) == (_T.MQCMIT_REPLY, CMQC.MQCC_OK)
        _send_call(client, 3, _T.MQOPEN, [mqpy.OD(ObjectName=QUEUE.encode()),
                                          CMQC.MQOO_INPUT_AS_Q_DEF])
        hobj3 = _reply_of(client, 3).hobj
        _send_call(client, 3, _T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NOW), 64], hobj3)
        assert _reply_of(client, 3).reason == CMQC.MQRC_NO_MSG_AVAILABLE
    finally:
        client.close()
    assert _drain(site) == []


def test_close_channel_backs_out_every_conversations_unit_of_work(site):
    """Given an instance whose conversation 1 put a message and conversation 3 got one,
    both under syncpoint, when conversation 3 ends with END_CONV and CLOSE_CHANNEL (the
    client's claim it was the last), then the instance ends and both units of work are
    backed out: the got message is on the queue once, the put one never."""
    _put(site, b"before")
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        client.start(1)
        client.start(3)
        assert client.put1(1, b"uncommitted", CMQC.MQPMO_SYNCPOINT).comp == CMQC.MQCC_OK
        got = client.call(3, _T.MQGET, [mqpy.MD(), mqpy.GMO(
            Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT), 64], client.open_input(3))
        assert got.comp == CMQC.MQCC_OK and b"before" in got.body
        mark = site.mark()
        client.action(SocketAction(3, _A.END_CONV), ControlFlags1.CLOSE_CHANNEL)
        client.closed()
        assert came_true(lambda: "AMQ8420I" in site.mqsc(f"DISPLAY CHSTATUS({CHANNEL})", ok=False))
        _no_fault(site, mark)
    finally:
        client.close()
    assert _drain(site) == [b"before"]


def test_a_thousand_conversations_started_and_ended_leave_nothing_behind(site):
    """Given one instance, when the client starts and ends 1000 conversations with
    START_CONV / END_CONV (every tenth connected with MQCONN), then each START_CONV is
    accepted, the instance shows no conversation at the end, no queue manager connection
    of theirs is left, and a conversation started next is served."""
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        before = _connections(site)
        for conv_id in range(1, 2001, 2):
            if conv_id % 20 == 1:
                client.start(conv_id)
            else:
                client.action(SocketAction(conv_id, _A.START_CONV))
                _segment, accepted = client.next()
                assert sockact.parse(accepted.body, True).type == _A.ACCEPT_CONV
            client.action(SocketAction(conv_id, _A.END_CONV))
        client.start(2001)
        _still_served(client, 2001)
        assert _curshcnv(site) == ["CURSHCNV(1)"]
        assert came_true(lambda: _connections(site) <= before + 1)
    finally:
        client.close()


def _connections(site) -> int:
    """The queue manager's connections of the channel's conversations (DISPLAY CONN)."""
    return len(channel_connections(site))


def test_calls_on_an_ended_conv_id_are_refused_on_that_conversation(site):
    """Given conversation 1 ended by END_CONV, when the client goes on sending calls on
    ConvId 1 (an MQOPEN, an MQPUT1), then each is answered MQRC_HCONN_ERROR there, and
    the instance's conversation 3 goes on."""
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        client.start(1)
        client.start(3)
        client.action(SocketAction(1, _A.END_CONV))
        od = mqpy.OD(ObjectName=QUEUE.encode())
        assert client.call(1, _T.MQOPEN, [od, CMQC.MQOO_OUTPUT]).reason == CMQC.MQRC_HCONN_ERROR
        assert client.put1(1, b"x", CMQC.MQPMO_NO_SYNCPOINT).reason == CMQC.MQRC_HCONN_ERROR
        _still_served(client, 3)
    finally:
        client.close()
    assert _drain(site) == []


def test_a_heartbeat_in_a_tshm_is_answered_or_refused_not_a_fault(site, two_instances):
    """Given a shared instance, when the client sends a heartbeat in a TSHM (where IBM's
    sends a TSHC), then the instance answers it or ends with STATUS -- never a fault
    logged -- and other instances go on."""
    other, client = two_instances
    client.start(1)
    mark = site.mark()
    client.sendall(SegmentWriter().send(Heartbeat(
        flags=ControlFlags1.CONFIRM_REQUEST, conv_id=1, request_id=0)))
    _segment, answer = client.next()
    assert isinstance(answer, (Heartbeat, Status))
    _no_fault(site, mark)
    _still_served(other, 1)


def test_an_mqconn_in_a_tshc_does_not_become_a_conversation(site, two_instances):
    """Given a shared instance, when the client sends an MQCONN in a TSHC (no ConvId: where
    a TSHM is due), then no conversation without a ConvId is made: the instance refuses it
    (a failed reply or STATUS), nothing worse is logged, other instances go on."""
    other, client = two_instances
    mark = site.mark()
    request = mqiflows.encode_request(_T.MQCONN, [("QM1", "tshc")])
    client.sendall(tshc.connection_level(client.writer.send(request)))
    _segment, answer = client.next()
    assert isinstance(answer, Status) or answer.comp == CMQC.MQCC_FAILED, answer
    _no_fault(site, mark)
    _still_served(other, 1)


@pytest.mark.parametrize("order", [ByteOrder.BIG, ByteOrder.LITTLE], ids=["be", "le"])
def test_a_socket_action_in_the_other_byte_order_names_its_own_conv_id(site, order):
    """Given a client of either byte order, when it sends START_CONV 1 in a TSHC of the
    other byte order (the segment's own, as its TSH says), then the ACCEPT_CONV names
    ConvId 1 -- the body read in its segment's byte order."""
    client = SharedInstance(site, order)
    try:
        other = ByteOrder.LITTLE if order == ByteOrder.BIG else ByteOrder.BIG
        client.sendall(tshc.connection_level(SegmentWriter(byte_order=other).send(
            sockact.event(SocketAction(1, _A.START_CONV), other == ByteOrder.LITTLE))))
        segment, accepted = client.next()
        header = parse_segment_header(segment)
        action = sockact.parse(accepted.body, header.byte_order == ByteOrder.LITTLE)
        assert (header.conv_id, action.conv_id, action.type) == (1, 1, _A.ACCEPT_CONV)
    finally:
        client.close()


def test_a_conversation_started_connected_and_ended_in_one_write_leaves_nothing(site):
    """Given an instance, when the client sends START_CONV, MQCONN, an MQPUT1 under
    syncpoint and END_CONV of one conversation in a single write (the conversation ended
    before its task has run), then the put is backed out, no conversation is shown, its
    queue manager connection is gone, and the instance serves a conversation started
    next; nothing is logged as a fault."""
    client = SharedInstance(site, ByteOrder.LITTLE)
    other = SharedInstance(site, ByteOrder.LITTLE)
    try:
        before = _connections(site)
        mark = site.mark()
        w = client.writer
        conn = mqiflows.encode_request(_T.MQCONN, [(QM, "oneshot")])
        put = mqiflows.encode_request(_T.MQPUT1, [
            mqpy.OD(ObjectName=QUEUE.encode()), mqpy.MD(),
            mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), b"never"])
        client.sendall(
            tshc.connection_level(w.send(sockact.event(SocketAction(5, _A.START_CONV), True)))
            + w.send(attrs.evolve(conn, conv_id=5, request_id=next(client.request_ids)))
            + w.send(attrs.evolve(put, conv_id=5, request_id=next(client.request_ids)))
            + tshc.connection_level(w.send(sockact.event(SocketAction(5, _A.END_CONV), True))))
        client.sock.settimeout(2)  # whatever conversation 5 is answered, until quiet
        try:
            while client.sock.recv(65536):
                pass
        except TimeoutError:
            pass
        other.start(1)
        _still_served(other, 1)
        assert came_true(lambda: sorted(_curshcnv(site)) == ["CURSHCNV(0)", "CURSHCNV(1)"])
        assert came_true(lambda: _connections(site) <= before + 1)
        _no_fault(site, mark)
    finally:
        client.close()
        other.close()
    assert b"never" not in _drain(site)


@pytest.mark.parametrize("header", [
    b"TSHC\x00\x00\x00\x0a",  # a length shorter than the TSHC itself
    b"TSHC\x7f\xff\xff\xff",  # a length beyond any transmission size
    b"TSHC\x00\x00\x00\x1c",  # a whole TSHC of nothing but zeros after its length
], ids=["inside-header", "beyond-max", "zeroed"])
def test_a_tshc_whose_header_lies_ends_only_its_instance(site, two_instances, header):
    """Given two instances, when one sends a TSHC whose length or fields lie, then that
    instance is ended (at most a STATUS, then closed), nothing is logged as a fault, and
    the other instance goes on."""
    other, client = two_instances
    mark = site.mark()
    client.sendall(header + b"\x00" * 20)
    segments = client.closed()
    assert len(segments) <= 1, segments  # at most a STATUS
    for segment in segments:
        assert isinstance(SegmentReader().feed(segment)[0], Status)
    _no_fault(site, mark)
    _still_served(other, 1)


@pytest.mark.parametrize("order", [ByteOrder.BIG, ByteOrder.LITTLE], ids=["be", "le"])
def test_a_call_in_a_segment_of_the_other_byte_order_gets_an_mq_answer(site, order):
    """Given a conversation of a client of either byte order, when it sends an MQPUT1 in a
    segment of the other byte order (the instance's byte order flipping mid-instance), then
    the call is answered (served, or failed with a reason code) or the instance ended with
    STATUS -- never a fault logged -- and the put is never done twice."""
    client = SharedInstance(site, order)
    try:
        client.start(1)
        mark = site.mark()
        other = ByteOrder.LITTLE if order == ByteOrder.BIG else ByteOrder.BIG
        request = mqiflows.encode_request(_T.MQPUT1, [
            mqpy.OD(ObjectName=QUEUE.encode()), mqpy.MD(),
            mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"flipped"], byte_order=other)
        client.sendall(SegmentWriter(byte_order=other).send(attrs.evolve(
            request, conv_id=1, request_id=next(client.request_ids))))
        _segment, answer = client.next()
        assert isinstance(answer, (MQIReply, Status)), answer
        _no_fault(site, mark)
    finally:
        client.close()
    assert _drain(site) in ([], [b"flipped"])


def test_a_socket_action_before_initial_data_is_refused_quietly(site):
    """Given a new connection, when its first flow is a SOCKET_ACTION START_CONV in a TSHC
    (no INITIAL_DATA), then it is refused and closed, nothing is logged as a fault, and an
    instance started next is served."""
    mark = site.mark()
    sock = socket.create_connection(("127.0.0.1", site.port))
    try:
        sock.settimeout(20)
        sock.sendall(tshc.connection_level(SegmentWriter().send(
            sockact.event(SocketAction(1, _A.START_CONV), True))))
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        pass
    finally:
        sock.close()
    _no_fault(site, mark)
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        client.start(1)
        _still_served(client, 1)
    finally:
        client.close()
