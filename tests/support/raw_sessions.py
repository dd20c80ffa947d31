"""Client sessions spoken by hand on a socket: the channel protocol's initial data, MQI flows
written one by one, the replies read back."""

from __future__ import annotations

import socket
import time

import attrs

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.tsh import SegmentType
from tests.support.site import CHANNEL, QM


class _RawClient:
    """A client speaking the channel protocol by hand on conversation 1."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.settimeout(10)
        self.reader = SegmentReader()
        self.writer = SegmentWriter()
        self.request_id = 0
        self.sock.sendall(self.writer.send(InitialData(
            fap_level=10, channel_name=CHANNEL, conv_per_socket=10, max_msg_batch=1)))
        assert isinstance(self._next(), InitialData)

    def _next(self):
        events: list = []
        while not events:
            data = self.sock.recv(65536)
            assert data, "the channel initiator closed the connection"
            events = self.reader.feed(data)
        assert len(events) == 1
        return events[0]

    def flow(self, verb: SegmentType, values, hobj: int = 0) -> bytes:
        self.request_id += 1
        request = mqiflows.encode_request(verb, values, hobj=hobj)
        return self.writer.send(attrs.evolve(request, conv_id=1, request_id=self.request_id))

    def call(self, raw: bytes, *, pieces: int = 1) -> MQIReply:
        """Send ``raw`` in ``pieces`` writes, a moment apart, and read the reply."""
        step = -(-len(raw) // pieces)
        for i in range(0, len(raw), step):
            self.sock.sendall(raw[i:i + step])
            time.sleep(0.02)
        reply = self._next()
        assert isinstance(reply, MQIReply)
        return reply


def _started_instance(site) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", site.port))
    sock.sendall(SegmentWriter().send(InitialData(fap_level=10, channel_name=CHANNEL,
                                                  conv_per_socket=10, max_msg_batch=1)))
    reader = SegmentReader()
    events: list = []
    while not events:
        events = reader.feed(sock.recv(65536))
    assert isinstance(events[0], InitialData)
    return sock


def _raw_session(sock: socket.socket) -> tuple[SegmentWriter, SegmentReader, int]:
    """MQCONN and MQOPEN (output, input, inquire) of RELAY.Q on a started instance, as
    conversation 1: (writer, reader, hobj)."""
    writer, reader = SegmentWriter(), SegmentReader()
    conn = mqiflows.encode_request(SegmentType.MQCONN, [(QM, "raw")])
    sock.sendall(writer.send(attrs.evolve(conn, conv_id=1, request_id=1)))
    assert _replies(sock, reader, 1)[0].comp == 0
    od = mqpy.OD(ObjectName=b"RELAY.Q")
    opened = mqiflows.encode_request(SegmentType.MQOPEN, [od, CMQC.MQOO_OUTPUT
                                     | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INQUIRE])
    sock.sendall(writer.send(attrs.evolve(opened, conv_id=1, request_id=2)))
    (reply,) = _replies(sock, reader, 1)
    assert reply.comp == 0
    return writer, reader, reply.hobj


def _replies(sock: socket.socket, reader: SegmentReader, n: int) -> list:
    sock.settimeout(20)
    events: list = []
    while len(events) < n:
        data = sock.recv(65536)
        assert data, f"closed after {events}"
        events += reader.feed(data)
    return events
