"""SOCKET_ACTION flows of a shared client channel instance, sent as IBM's clients send them
(``mqpy.fap.sockact``), to a SVRCONN of a queue manager started by strmqm, its calls relayed
(MQIBindType STANDARD) or served in the queue manager (FASTPATH), by a client of either
byte order:

- START_CONV (a new conversation on an instance the client shares: IBM MQ classes for Java,
  ``RemoteSession.startConversation``) is answered ACCEPT_CONV on the conversation's TSHM;
- END_CONV (after a conversation's MQDISC, or instead of it: ``RemoteConnection.
  confirmSessionEndToQMgr``) ends that conversation only -- its unit of work backed out --
  and the instance's others go on; with CLOSE_CHANNEL (it was the client's last) the
  instance ends, quietly;
- a SOCKET_ACTION that is malformed, of a type a client does not send, or for a
  conversation the instance never had, ends that instance alone (AMQ9504E, STATUS in a
  TSHC);
- however a conversation ends (END_CONV without MQDISC, its socket closed, STOP CHANNEL),
  its queue manager connection and handles go at once (DISPLAY CONN), its unit of work
  backed out."""

from __future__ import annotations

import socket

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows, sockact, tshc
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.sockact import SocketAction, SocketActionType
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import (
    FIRST_LAST,
    STRUCTID_TSHC,
    STRUCTID_TSHM,
    ByteOrder,
    ControlFlags1,
    OtherSegment,
    SegmentType,
    parse_segment_header,
)
from tests.client.conftest import drain
from tests.mqi._modes import QUEUE
from tests.support.pcap import TSHARK, _decode, _RecordingProxy
from tests.support.site import CHANNEL, QM, Site
from tests.support.site_here import here_site_per_bind_type
from tests.support.waiting import came_true

pytestmark = [pytest.mark.system, pytest.mark.timeout(120)]

_T = SegmentType
_A = SocketActionType
_ENCODINGS = {ByteOrder.LITTLE: CMQC.MQENC_NATIVE,
              ByteOrder.BIG: CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL
              | CMQC.MQENC_FLOAT_IEEE_NORMAL}
_SYNC_PUT = CMQC.MQPMO_SYNCPOINT
_NOW = CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT


site = here_site_per_bind_type("sockact")


@pytest.fixture(autouse=True)
def empty_queue(site):
    """QUEUE emptied before each test: what one leaves does not answer another's get."""
    qm = site.bindings()
    try:
        queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
        try:
            while True:
                queue.get()
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        queue.close()
    finally:
        qm.disconnect()


@pytest.fixture(params=[ByteOrder.LITTLE, ByteOrder.BIG], ids=["le", "be"])
def order(request):
    return request.param


class SharedInstance:
    """A client instance sharing conversations (SHARECNV 10), spoken by hand in ``order``,
    whose conversations start and end with SOCKET_ACTIONs as IBM's Java client's do."""

    def __init__(self, site: Site, order: ByteOrder) -> None:
        self.order = order
        self.little = order == ByteOrder.LITTLE
        self.held = b""  # what a read brought beyond the segment taken (``next``)
        self.sock = socket.create_connection(("127.0.0.1", site.port))
        # (as IBM's and mqpy's clients: a flow is not held back for the last one's ACK)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(20)
        self.writer = SegmentWriter(byte_order=order, encoding=_ENCODINGS[order])
        self.reader = SegmentReader.before_negotiation()
        self.request_ids = iter(range(1, 1 << 30, 2))
        self.flows: list[tuple[str, bytes]] = []  # ("c" client / "s" server, a segment)
        self.sendall(self.writer.send(InitialData(
            fap_level=10, channel_name=CHANNEL, conv_per_socket=10, max_msg_batch=1)))
        assert isinstance(self.next()[1], InitialData)
        self.reader = SegmentReader()

    def next(self) -> tuple[bytes, object]:
        """The next segment and its event (the segments one read brings together, as the
        replies to requests written together come, one at a time)."""
        held = self.held
        while len(held) < 8 or len(held) < int.from_bytes(held[4:8], "big"):
            chunk = self.sock.recv(65536)
            assert chunk, "the SVRCONN closed the connection"
            held += chunk
        length = int.from_bytes(held[4:8], "big")
        data, self.held = held[:length], held[length:]
        self.flows.append(("s", data))
        [event] = self.reader.feed(data)
        return data, event

    def sendall(self, data: bytes) -> None:
        self.flows.append(("c", data))
        self.sock.sendall(data)

    def action(self, action: SocketAction, flags=ControlFlags1.NONE) -> None:
        """``action`` in a TSHC, as IBM's client sends it."""
        self.sendall(tshc.connection_level(self.writer.send(
            sockact.event(action, self.little, flags))))

    def start(self, conv_id: int) -> None:
        """START_CONV ``conv_id``; its ACCEPT_CONV, on its TSHM, then its MQCONN."""
        self.action(SocketAction(conv_id, _A.START_CONV, parm1=7, parm2=11))
        segment, accepted = self.next()
        header = parse_segment_header(segment)
        assert (header.struct_id, header.conv_id, header.request_id) == (
            STRUCTID_TSHM, conv_id, 0)
        assert header.byte_order == self.order
        assert isinstance(accepted, OtherSegment) and accepted.segment_type == _T.SOCKET_ACTION
        answer = sockact.parse(accepted.body, self.little)
        assert (answer.conv_id, answer.type) == (conv_id, _A.ACCEPT_CONV)
        assert self.call(conv_id, _T.MQCONN, [(QM, "sockact")]).comp == CMQC.MQCC_OK

    def call(self, conv_id: int, verb: SegmentType, values, hobj: int = 0) -> MQIReply:
        request = mqiflows.encode_request(verb, values, hobj=hobj, byte_order=self.order)
        self.sendall(self.writer.send(attrs.evolve(
            request, conv_id=conv_id, request_id=next(self.request_ids))))
        _segment, reply = self.next()
        assert isinstance(reply, MQIReply) and reply.conv_id == conv_id
        return reply

    def put1(self, conv_id: int, data: bytes, options: int) -> MQIReply:
        od = mqpy.OD(ObjectName=QUEUE.encode())
        return self.call(conv_id, _T.MQPUT1, [od, mqpy.MD(), mqpy.PMO(Options=options), data])

    def get(self, conv_id: int, hobj: int) -> MQIReply:
        return self.call(conv_id, _T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NOW), 64], hobj)

    def open_input(self, conv_id: int) -> int:
        od = mqpy.OD(ObjectName=QUEUE.encode())
        reply = self.call(conv_id, _T.MQOPEN, [od, CMQC.MQOO_INPUT_AS_Q_DEF])
        assert reply.comp == CMQC.MQCC_OK
        return reply.hobj

    def closed(self) -> list[bytes]:
        """The segments that come until the SVRCONN closes the connection."""
        data, out = self.held, []
        self.held = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                break
            data += chunk
        while data:
            length = int.from_bytes(data[4:8], "big")
            out.append(data[:length])
            data = data[length:]
        return out

    def close(self) -> None:
        self.sock.close()


def _curshcnv(site: Site) -> list[str]:
    out = " ".join(site.mqsc(f"DISPLAY CHSTATUS({CHANNEL}) CURSHCNV").split())
    return [w for w in out.split() if w.startswith("CURSHCNV(")]


def test_start_conv_is_accepted_on_the_new_conversations_tshm(site, order):
    """Given an instance sharing conversations, when the client starts conversations with
    START_CONV in a TSHC (IBM's Java client's ConvIds 1 and 3), then each is answered
    ACCEPT_CONV on that conversation's TSHM (RequestId 0) in the client's byte order, and
    its MQCONN succeeds: two conversations on one instance."""
    client = SharedInstance(site, order)
    try:
        client.start(1)
        client.start(3)
        assert _curshcnv(site) == ["CURSHCNV(2)"]
    finally:
        client.close()


def test_end_conv_ends_one_conversation_and_the_others_go_on(site, order):
    """Given two conversations of one instance, the first with a put in its unit of work,
    when the client ends the first with END_CONV (no MQDISC), then that put is backed out,
    the instance shows one conversation, and the second conversation's calls go on."""
    client = SharedInstance(site, order)
    try:
        client.start(1)
        client.start(3)
        assert client.put1(1, b"in doubt", _SYNC_PUT).comp == CMQC.MQCC_OK
        client.action(SocketAction(1, _A.END_CONV))
        hobj = client.open_input(3)
        assert client.get(3, hobj).reason == CMQC.MQRC_NO_MSG_AVAILABLE
        assert client.put1(3, b"after", CMQC.MQPMO_NO_SYNCPOINT).comp == CMQC.MQCC_OK
        got = client.get(3, hobj)
        assert got.comp == CMQC.MQCC_OK and b"after" in got.body
        assert _curshcnv(site) == ["CURSHCNV(1)"]
        # conversation 1 is gone
        assert client.call(1, _T.MQDISC, []).reason == CMQC.MQRC_HCONN_ERROR
    finally:
        client.close()


def test_mqdisc_then_end_conv_and_the_last_end_conv_closes_quietly(site, order):
    """Given two conversations, when each MQDISCs and sends END_CONV as IBM's client does
    (the last with CLOSE_CHANNEL, no more conversations on the instance), then the first
    END_CONV leaves the second working, and after the last the queue manager closes the
    connection without a STATUS nor an error in its log."""
    client = SharedInstance(site, order)
    try:
        client.start(1)
        client.start(3)
        mark = site.mark()
        assert client.call(1, _T.MQDISC, []).comp == CMQC.MQCC_OK
        client.action(SocketAction(1, _A.END_CONV))
        assert client.put1(3, b"x", CMQC.MQPMO_NO_SYNCPOINT).comp == CMQC.MQCC_OK
        assert client.call(3, _T.MQDISC, []).comp == CMQC.MQCC_OK
        client.action(SocketAction(3, _A.END_CONV), ControlFlags1.CLOSE_CHANNEL)
        assert client.closed() == []
        log = site.errors(mark)
        assert "AMQ9504E" not in log and "AMQ9209E" not in log
    finally:
        client.close()


@pytest.mark.parametrize("body, code", [
    (sockact.build(SocketAction(1, _A.END_CONV), True)[:16], StatusCode.PROTOCOL_LENGTH_ERROR),
    (sockact.build(SocketAction(1, 42), True), StatusCode.SOCKET_ACTION_TYPE),
    (sockact.build(SocketAction(1, _A.ACCEPT_CONV), True), StatusCode.SOCKET_ACTION_TYPE),
    (sockact.build(SocketAction(99, _A.END_CONV), True), StatusCode.CONV_ID_ERROR),
    (sockact.build(SocketAction(1, _A.START_CONV), True), StatusCode.CONV_ID_ERROR),
], ids=["short", "unknown-type", "server-type", "unknown-convid", "start-of-live-conv"])
def test_a_hostile_socket_action_ends_only_its_instance(site, body, code):
    """Given two instances, when one sends a SOCKET_ACTION that is short, of a type a client
    does not send, or for a conversation it does not have (or START_CONV of a live one),
    then that instance gets a STATUS naming the fault in a TSHC and is closed, AMQ9504E is
    logged, and the other instance's conversation goes on."""
    other = SharedInstance(site, ByteOrder.LITTLE)
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        other.start(1)
        client.start(1)
        mark = site.mark()
        client.sock.sendall(tshc.connection_level(client.writer.send(
            OtherSegment(segment_type=_T.SOCKET_ACTION, body=body))))
        [segment] = client.closed()
        assert parse_segment_header(segment).struct_id == STRUCTID_TSHC
        [status] = SegmentReader().feed(segment)
        assert isinstance(status, Status) and status.code == code
        assert "AMQ9504E" in site.wait_for_log("AMQ9504E", since=mark)
        assert other.put1(1, b"still", CMQC.MQPMO_NO_SYNCPOINT).comp == CMQC.MQCC_OK
        assert other.get(1, other.open_input(1)).comp == CMQC.MQCC_OK
    finally:
        client.close()
        other.close()


def test_end_conv_ends_a_waiting_get_of_that_conversation_only(site, order):
    """Given two conversations, the first waiting in an MQGET, when the client ends the first
    with END_CONV, then its get is answered at once MQRC_NO_MSG_AVAILABLE (it waits no
    more: END_CONV takes its place after it, ``test_end_conv_order``), and the second
    conversation's put and get are answered at once."""
    client = SharedInstance(site, order)
    try:
        client.start(1)
        client.start(3)
        waiting = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=30000)
        request = mqiflows.encode_request(_T.MQGET, [mqpy.MD(), waiting, 64],
                                          hobj=client.open_input(1), byte_order=client.order)
        client.sock.sendall(client.writer.send(attrs.evolve(
            request, conv_id=1, request_id=next(client.request_ids))))
        client.action(SocketAction(1, _A.END_CONV))
        _segment, ended = client.next()
        assert isinstance(ended, MQIReply) and (ended.conv_id, ended.reason) == (
            1, CMQC.MQRC_NO_MSG_AVAILABLE)
        hobj = client.open_input(3)  # the next reply is conversation 3's (call asserts it)
        assert client.put1(3, b"for 3", CMQC.MQPMO_NO_SYNCPOINT).comp == CMQC.MQCC_OK
        got = client.get(3, hobj)
        assert got.comp == CMQC.MQCC_OK and b"for 3" in got.body
        assert _curshcnv(site) == ["CURSHCNV(1)"]
    finally:
        client.close()


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")
def test_tshark_reads_the_socket_actions_of_a_big_endian_client(site, tmp_path):
    """Given the flows of a big-endian client that starts conversations 1 and 3 and ends 1
    with END_CONV, when tshark's MQ dissector decodes them, then it reads each
    SOCKET_ACTION's ConversationID and Type (START_CONV 1, ACCEPT_CONV 8, END_CONV 2)
    big-endian, the ACCEPT_CONVs on their conversation's TSHM."""
    client = SharedInstance(site, ByteOrder.BIG)
    try:
        client.start(1)
        client.start(3)
        client.action(SocketAction(1, _A.END_CONV))
        assert client.put1(3, b"x", CMQC.MQPMO_NO_SYNCPOINT).comp == CMQC.MQCC_OK
    finally:
        client.close()
    rows = _decode(client.flows, tmp_path, ["mq.tsh.type", "mq.tsh.convid",
                                            "mq.socket.conversid", "mq.socket.type"])
    actions = [(r[1], int(r[2], 16), int(r[3], 16)) for r in rows if r[0] == "0x0c"]
    assert actions == [("", 1, 1), ("1", 1, 8), ("", 3, 1), ("3", 3, 8), ("", 1, 2)]


def test_mqpys_client_ends_each_conversation_with_end_conv_after_its_mqdisc(site):
    """Given two conversations of mqpy's client sharing one instance, when each MQDISCs,
    then the client follows each MQDISC with END_CONV in a TSHC as IBM's client does (the
    last with CLOSE_CHANNEL), the other conversation working meanwhile, and the queue
    manager logs no error."""
    proxy = _RecordingProxy(site.port)
    mark = site.mark()
    first = mqpy.connect(QM, CHANNEL, f"127.0.0.1({proxy.port})")
    second = mqpy.connect(QM, CHANNEL, f"127.0.0.1({proxy.port})")
    first.disconnect()
    queue = mqpy.Queue(second, QUEUE, CMQC.MQOO_OUTPUT)
    queue.put(b"after the first ended")
    queue.close()
    second.disconnect()

    def ends() -> list[tuple[bytes, int, int]]:
        out = []
        for direction, segment in list(proxy.flows):
            header = parse_segment_header(segment)
            if direction == "c" and header.segment_type == _T.SOCKET_ACTION:
                action = sockact.parse(segment[header.header_length:], True)
                out.append((header.struct_id, action.type, header.flags1 & ~FIRST_LAST))
        return out

    came_true(lambda: len(ends()) == 2)  # the proxy records as it relays
    assert ends() == [(STRUCTID_TSHC, _A.END_CONV, ControlFlags1.NONE),
                    (STRUCTID_TSHC, _A.END_CONV, ControlFlags1.CLOSE_CHANNEL)]
    assert "AMQ9504E" not in site.errors(mark)


def test_start_conv_over_sharecnv_fails_that_conversation_only(site):
    """Given an instance sharing 10 conversations with 10 started, when the client starts
    an eleventh, then it is answered a STATUS with ERROR on that conversation's TSHM (IBM's
    client fails its MQCONN) and the instance goes on: a started conversation connects."""
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        for conv_id in range(1, 21, 2):
            client.action(SocketAction(conv_id, _A.START_CONV))
            _segment, accepted = client.next()
            assert sockact.parse(accepted.body, True).type == _A.ACCEPT_CONV
        client.action(SocketAction(21, _A.START_CONV))
        segment, refused = client.next()
        header = parse_segment_header(segment)
        assert (header.struct_id, header.conv_id) == (STRUCTID_TSHM, 21)
        assert isinstance(refused, Status) and refused.flags & ControlFlags1.ERROR
        assert client.call(1, _T.MQCONN, [(QM, "sockact")]).comp == CMQC.MQCC_OK
    finally:
        client.close()


def channel_connections(site: Site) -> list[str]:
    """The queue manager's connections of CHANNEL's conversations as DISPLAY CONN TYPE(ALL)
    shows them: one line a connection, its handles' attributes with it."""
    out = site.mqsc("DISPLAY CONN(*) TYPE(ALL) ALL")
    blocks = [" ".join(b.split()) for b in out.split("AMQ8276I")[1:]]
    return [b for b in blocks if f"CHANNEL({CHANNEL})" in b]


def _end_by_end_conv(site: Site, client: SharedInstance) -> None:
    client.action(SocketAction(1, _A.END_CONV))


def _end_by_closing_the_socket(site: Site, client: SharedInstance) -> None:
    client.close()


def _end_by_stop_channel(site: Site, client: SharedInstance) -> None:
    site.mqsc(f"STOP CHANNEL({CHANNEL}) MODE(FORCE) STATUS(INACTIVE)")


@pytest.mark.parametrize("end, left", [
    (_end_by_end_conv, 1), (_end_by_closing_the_socket, 0), (_end_by_stop_channel, 0),
], ids=["end-conv", "socket-closed", "stop-channel"])
def test_an_ended_conversations_connection_and_handles_go_at_once(site, end, left):
    """Given conversations 1 and 3 of an instance, 1 with a queue open and a put under
    syncpoint (no MQDISC), when conversation 1 ends -- END_CONV, or its instance ends: the
    socket closed, STOP CHANNEL -- then at once (the first DISPLAY CONN, or the one after)
    the queue manager shows neither its connection nor its handle, the put is backed out
    (IBM: an application that ends without MQDISC has its unit of work backed out), and
    conversation 3's connection is shown while its instance runs."""
    client = SharedInstance(site, ByteOrder.LITTLE)
    try:
        client.start(1)
        client.start(3)
        client.open_input(1)
        assert client.put1(1, b"ended", _SYNC_PUT).comp == CMQC.MQCC_OK
        assert len(channel_connections(site)) == 2
        end(site, client)
        assert came_true(lambda: len(channel_connections(site)) == left, timeout=2.0), \
            channel_connections(site)
        assert not any(f"OBJNAME({QUEUE})" in c for c in channel_connections(site))
    finally:
        client.close()
        if end is _end_by_stop_channel:
            site.mqsc(f"START CHANNEL({CHANNEL})")
    qm = site.bindings()
    try:
        assert drain(qm, QUEUE) == []
    finally:
        qm.disconnect()
