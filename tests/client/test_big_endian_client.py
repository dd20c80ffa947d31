"""A big-endian client (an IBM MQ client on AIX or z/OS: TSH byte order 1, Encoding 273) on a
SVRCONN of a queue manager started by strmqm, its calls relayed by the channel initiator
(MQIBindType STANDARD) or served by the queue manager's client host (FASTPATH).

IBM: "Conversion for IBM MQ MQI client information takes place in the server" (Code page
conversion, note 1): the client sends and expects the MQI's structures in its own encoding.
So every flow the SVRCONN writes on such a conversation -- MQI replies, the served-from-bytes
puts and gets, read ahead's ASYNC_MESSAGEs and NOTIFICATIONs, heartbeats -- is in the
client's byte order, its integers (MQMD's among them) big-endian; and what the client sends
big-endian (REQUEST_MSGS, its MQCTL's NOTIFICATION CONN_STATE) is read so."""

from __future__ import annotations

import socket
import time

import attrs
import pytest

import mqpy
from mqpy import CMQC, connstate
from mqpy.fap import asyncflows, mqiflows
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.asyncflows import MessageRequest, Notice
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.tsh import ByteOrder, OtherSegment, SegmentType, parse_segment_header
from tests.mqi._modes import QUEUE
from tests.read_ahead.test_tshark import _tshark
from tests.support.pcap import CLIENT, SERVER, TSHARK, Capture
from tests.support.site import CHANNEL, QM, Site
from tests.support.site_here import here_site_per_bind_type

pytestmark = [pytest.mark.system, pytest.mark.timeout(120)]

_T = SegmentType
_BIG = ByteOrder.BIG
_ENCODING = CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL | CMQC.MQENC_FLOAT_IEEE_NORMAL
_OPEN = CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT
_NOW = CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT


site = here_site_per_bind_type("big_endian")


class BigEndianClient:
    """A client instance spoken by hand in big-endian (SHARECNV 10, conversation 1): every
    segment it reads is checked to be big-endian before it is decoded."""

    def __init__(self, site: Site) -> None:
        self.sock = socket.create_connection(("127.0.0.1", site.port))
        self.sock.settimeout(20)
        self.writer = SegmentWriter(byte_order=_BIG, encoding=_ENCODING)
        self.reader = SegmentReader.before_negotiation()
        self.data = b""
        self.request_id = 0
        self.flows: list[tuple[tuple[bytes, int], bytes]] = []  # (who, segment), in order
        self.sendall(self.writer.send(InitialData(
            fap_level=10, channel_name=CHANNEL, conv_per_socket=10, max_msg_batch=1)))
        assert isinstance(self.next(check=False), InitialData)
        self.reader = SegmentReader()

    def sendall(self, data: bytes) -> None:
        self.flows.append((CLIENT, data))
        self.sock.sendall(data)

    def send(self, verb: SegmentType, values, hobj: int = 0) -> None:
        self.request_id += 1
        request = mqiflows.encode_request(verb, values, hobj=hobj, byte_order=_BIG)
        self.sendall(self.writer.send(attrs.evolve(
            request, conv_id=1, request_id=self.request_id)))

    def call(self, verb: SegmentType, values, hobj: int = 0) -> MQIReply:
        self.send(verb, values, hobj)
        return self.reply()

    def reply(self) -> MQIReply:
        reply = self.next()
        assert isinstance(reply, MQIReply) and reply.conv_id == 1, reply
        return reply

    def next(self, check: bool = True):
        """The next flow, from a whole segment read in big-endian (``check``)."""
        while True:
            if len(self.data) >= 8 and len(self.data) >= int.from_bytes(self.data[4:8], "big"):
                length = int.from_bytes(self.data[4:8], "big")
                segment, self.data = self.data[:length], self.data[length:]
                self.flows.append((SERVER, segment))
                header = parse_segment_header(segment)
                if check:
                    assert (header.byte_order, header.encoding & 0xF) == (_BIG, 1), header
                events = self.reader.feed(segment)
                if events:
                    [event] = events
                    return event
                continue
            chunk = self.sock.recv(65536)
            assert chunk, "the instance was closed"
            self.data += chunk

    def connected(self, options: int = _OPEN) -> int:
        assert self.call(_T.MQCONN, [(QM, "big-endian")]).comp == CMQC.MQCC_OK
        opened = self.call(_T.MQOPEN, [mqpy.OD(ObjectName=QUEUE.encode()), options])
        assert opened.comp == CMQC.MQCC_OK, opened
        return opened.hobj

    def put(self, hobj: int, data: bytes, options: int = CMQC.MQPMO_NO_SYNCPOINT) -> MQIReply:
        md = mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
        reply = self.call(_T.MQPUT, [md, mqpy.PMO(Options=options), data], hobj)
        assert reply.comp == CMQC.MQCC_OK, reply
        return reply

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def client(site):
    c = BigEndianClient(site)
    try:
        yield c
    finally:
        c.close()


def _decoded(reply: MQIReply):
    return mqiflows.decode_reply(reply, _BIG)


def test_calls_are_answered_in_the_clients_byte_order(client):
    """Given a big-endian client, when it connects, opens a queue, puts and gets (the usual
    MQPUT and MQGET, which a queue manager may serve from bytes), then every reply is
    big-endian, its MQMD and MQGMO read big-endian with the message."""
    hobj = client.connected()
    put = _decoded(client.put(hobj, b"one"))
    assert put.values[0].Persistence == CMQC.MQPER_NOT_PERSISTENT
    got = client.call(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NOW), 100], hobj)
    assert got.comp == CMQC.MQCC_OK, got
    md, gmo, length, data = _decoded(got).values
    assert (data, length, md.Persistence, gmo.Options & _NOW) == (b"one", 3, 0, _NOW)
    empty = client.call(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NOW), 100], hobj)
    assert (empty.comp, empty.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)


def test_an_asynchronous_put_is_answered_in_the_clients_byte_order(client):
    """Given a big-endian client, when it puts with MQPMO_ASYNC_RESPONSE and asks MQSTAT,
    then both replies are big-endian and the put counts as a success."""
    hobj = client.connected()
    client.put(hobj, b"async", CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE)
    stat = client.call(_T.MQSTAT, [CMQC.MQSTAT_TYPE_ASYNC_ERROR, mqpy.STS()])
    assert stat.comp == CMQC.MQCC_OK, stat
    assert _decoded(stat).values[1].PutSuccessCount == 1
    got = client.call(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NOW), 100], hobj)
    assert _decoded(got).values[3] == b"async"


def _stream(client: BigEndianClient, hobj: int) -> tuple[list[asyncflows.AsyncMessage],
                                                          asyncflows.Notification]:
    """The ASYNC_MESSAGEs, then the NOTIFICATION, that answer a REQUEST_MSGS (big-endian)."""
    messages = []
    while True:
        event = client.next()
        assert type(event) is OtherSegment and event.conv_id == 1, event
        if event.segment_type == _T.NOTIFICATION:
            return messages, asyncflows.parse_notification(event.body, _BIG)
        assert event.segment_type == _T.ASYNC_MESSAGE, event
        at = asyncflows.md_offset(event.body, _BIG)
        md = mqpy.MD.from_bytes(event.body[at:], CMQC.MQENC_INTEGER_NORMAL)
        message = asyncflows.parse_async_message(event.body, md.packed_size(), _BIG)
        assert message.hobj == hobj and md.Persistence == CMQC.MQPER_NOT_PERSISTENT
        messages.append(message)


def test_read_ahead_streams_in_the_clients_byte_order(client):
    """Given a big-endian client that opened a queue reading ahead, with two non-persistent
    messages on it, when it sends a REQUEST_MSGS (big-endian), then the messages come as
    big-endian ASYNC_MESSAGEs (their MQMDs big-endian) and a big-endian NOTIFICATION ends
    them: no more message now."""
    hobj = client.connected(_OPEN | CMQC.MQOO_READ_AHEAD)
    client.put(hobj, b"first")
    client.put(hobj, b"second")
    client.sendall(asyncflows.message_request(
        MessageRequest(hobj, 65536, _NOW, 0), 1, _BIG))
    messages, notice = _stream(client, hobj)
    assert [m.data for m in messages] == [b"first", b"second"]
    assert (notice.hobj, notice.code, notice.value) == (
        hobj, Notice.CLIENT_ASYNC_EMPTY, CMQC.MQRC_NO_MSG_AVAILABLE)


def test_a_request_msgs_on_a_conversation_not_connected_is_refused_in_its_byte_order(client):
    """Given a big-endian client, when it asks for messages of handle 7 on conversation 5,
    never connected, then a big-endian NOTIFICATION on conversation 5 says that read ahead is
    not in effect (MQRC_HCONN_ERROR) for handle 7."""
    client.connected()
    client.sendall(asyncflows.message_request(MessageRequest(7, 4096, _NOW, 0), 5, _BIG))
    event = client.next()
    assert type(event) is OtherSegment and event.conv_id == 5, event
    notice = asyncflows.parse_notification(event.body, _BIG)
    assert (notice.hobj, notice.code, notice.value) == (
        7, Notice.STREAMING_FAILURE, CMQC.MQRC_HCONN_ERROR)


def test_a_conn_state_wakes_the_waiting_get_of_a_big_endian_client(client):
    """Given a big-endian client whose MQGET waits 30 s on an empty queue (an asynchronous
    consumer's dispatcher), when it sends its MQCTL's NOTIFICATION CONN_STATE (big-endian),
    then the get ends at once with MQRC_NO_MSG_AVAILABLE (big-endian) and the channel goes
    on."""
    hobj = client.connected()
    wait = CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_WAIT
    client.send(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=wait, WaitInterval=30000), 100], hobj)
    time.sleep(0.3)  # the get waits in the queue manager
    started = time.monotonic()
    client.sendall(connstate.flow(1, _BIG))
    ended = client.reply()
    assert (ended.comp, ended.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert time.monotonic() - started < 5
    client.put(hobj, b"after")
    got = client.call(_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NOW), 100], hobj)
    assert _decoded(got).values[3] == b"after"


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")
def test_wiresharks_dissector_reads_what_the_svrconn_wrote_big_endian(client, tmp_path):
    """Given the flows of a big-endian client reading ahead (its calls and their replies,
    its REQUEST_MSGS and the messages streamed), when tshark decodes them as MQ, then it
    finds every segment big-endian, the messages' MQMDs and data, the NOTIFICATION's code,
    and nothing malformed."""
    client.flows.clear()  # (the INITIAL_DATA exchange, before the byte order is agreed)
    hobj = client.connected(_OPEN | CMQC.MQOO_READ_AHEAD)
    client.put(hobj, b"for wireshark")
    client.sendall(asyncflows.message_request(MessageRequest(hobj, 65536, _NOW, 0), 1, _BIG))
    messages, _notice = _stream(client, hobj)
    assert [m.data for m in messages] == [b"for wireshark"]
    capture = Capture()
    capture.handshake()
    for who, segment in client.flows:
        capture.send(who, [segment])
    pcap = tmp_path / "big-endian-client.pcap"
    capture.write(pcap)
    verbose = _tshark(pcap, "-V")
    assert "Malformed" not in verbose
    orders = [line.split(":", 1)[1].strip() for line in verbose.splitlines()
              if line.strip().startswith("Byte order:")]
    assert orders and set(orders) == {"Big endian (0x01)"}, orders
    assert "ASYNC_MESSAGE" in verbose and "for wireshark" in verbose
    assert "value...: 0x000007f1 (2033)" in verbose


def test_a_little_endian_request_of_a_big_endian_client_is_answered_big_endian(client):
    """Given a big-endian client, when it sends an MQPUT and an MQGET little-endian (each
    segment's TSH says its byte order; the queue manager may serve such calls from their
    bytes), then both are answered big-endian, the MQMD readable so."""
    hobj = client.connected()
    little = SegmentWriter()
    for verb, values in ((_T.MQPUT, [mqpy.MD(Persistence=0), mqpy.PMO(
            Options=CMQC.MQPMO_NO_SYNCPOINT), b"little"]),
                         (_T.MQGET, [mqpy.MD(), mqpy.GMO(Options=_NOW), 100])):
        client.request_id += 1
        client.sendall(little.send(mqiflows.encode_request(
            verb, values, hobj=hobj, conv_id=1, request_id=client.request_id)))
        reply = client.reply()
        assert reply.comp == CMQC.MQCC_OK, reply
    assert _decoded(reply).values[3] == b"little"
