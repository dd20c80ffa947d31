"""Bad input from clients: an unknown channel, a channel of the wrong type, garbled and
oversized frames. Each gets a clear reason, an AMQ message in the channel initiator's log,
and the listener keeps serving everyone else (bad input)."""

from __future__ import annotations

import socket

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import InitialData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import SegmentType
from tests.client.conftest import CHANNEL, QMGR, QUEUE, wait_for


def _still_serving(env) -> None:
    qm = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    mqpy.Queue(qm, QUEUE).put(b"still served")
    qm.disconnect()


def _answer(sock: socket.socket) -> list:
    """Everything the channel initiator sends until it closes the connection."""
    sock.settimeout(5)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return SegmentReader().feed(data)


def test_unknown_channel_is_2540_and_amq9519(env):
    """Given a channel name the queue manager does not know, then MQCONN fails
    MQRC_UNKNOWN_CHANNEL_NAME (2540), the log says AMQ9519E, others are still served."""
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.connect(QMGR, "NO.SUCH.CHL", env.conn_info)
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                  CMQC.MQRC_UNKNOWN_CHANNEL_NAME)
    assert wait_for(lambda: any("NO.SUCH.CHL" in t for t in env.chinit.messages("AMQ9519E")))
    _still_serving(env)


def test_channel_of_the_wrong_type_is_2539(env):
    """Given a client naming a sender channel, then MQCONN fails MQRC_CHANNEL_CONFIG_ERROR
    (2539) and the log says AMQ9502E."""
    env.define("CHANNEL", "TO.ELSEWHERE", CHLTYPE="SDR", CONNAME="127.0.0.1(1)",
               XMITQ="SYSTEM.DEAD.LETTER.QUEUE")
    with pytest.raises(mqpy.MQMIError) as err:
        mqpy.connect(QMGR, "TO.ELSEWHERE", env.conn_info)
    assert err.value.reason == CMQC.MQRC_CHANNEL_CONFIG_ERROR
    assert wait_for(lambda: env.chinit.messages("AMQ9502E"))
    _still_serving(env)


def test_garbled_first_frame(env):
    """Given bytes that are not a TSH, then the channel initiator answers with a STATUS
    naming the protocol error, closes the connection, logs AMQ9504E and keeps serving."""
    with socket.create_connection(("127.0.0.1", env.chinit.port)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: mq\r\n\r\n")
        events = _answer(sock)
    assert len(events) == 1 and isinstance(events[0], Status)
    assert events[0].code == StatusCode.PROTOCOL_SEGMENT_ERROR
    assert wait_for(lambda: env.chinit.messages("AMQ9504E"))
    _still_serving(env)


def _started_instance(env) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", env.chinit.port))
    sock.sendall(SegmentWriter().send(InitialData(fap_level=10, channel_name=CHANNEL,
                                                  conv_per_socket=10, max_msg_batch=1)))
    reader = SegmentReader()
    events: list = []
    while not events:
        events = reader.feed(sock.recv(65536))
    assert isinstance(events[0], InitialData)
    return sock


def test_oversized_frame_on_a_running_instance(env):
    """Given a running client instance, when the client announces a segment longer than the
    negotiated maximum transmission size, then it gets STATUS PROTOCOL_LENGTH_ERROR, the
    connection is closed with AMQ9504E logged, and another client is not disturbed."""
    other = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    with _started_instance(env) as sock:
        header = b"TSHM" + (50_000_000).to_bytes(4, "big") + bytes(28)
        sock.sendall(header)
        events = _answer(sock)
    assert [type(e) for e in events] == [Status]
    assert events[0].code == StatusCode.PROTOCOL_LENGTH_ERROR
    assert wait_for(lambda: any("length" in t for t in env.chinit.messages("AMQ9504E")))
    mqpy.Queue(other, QUEUE).put(b"undisturbed")
    other.disconnect()
    _still_serving(env)


def test_garbled_mqi_request_on_a_running_instance(env):
    """Given a running client instance, when an MQOPEN arrives whose body is not an MQOD,
    then the instance ends with STATUS PROTOCOL_INVALID_DATA and AMQ9504E."""

    with _started_instance(env) as sock:
        writer = SegmentWriter()
        conn = mqiflows.encode_request(SegmentType.MQCONN, [(QMGR, "garbler")])
        sock.sendall(writer.send(attrs.evolve(conn, conv_id=1, request_id=1)))
        sock.sendall(writer.send(MQIRequest(segment_type=SegmentType.MQOPEN, body=b"junk",
                                            conv_id=1, request_id=2)))
        events = _answer(sock)
    assert events[0].segment_type == SegmentType.MQCONN_REPLY and events[0].comp == 0
    assert isinstance(events[-1], Status)
    assert events[-1].code == StatusCode.PROTOCOL_INVALID_DATA
    assert wait_for(lambda: env.chinit.messages("AMQ9504E"))
    _still_serving(env)


def test_message_longer_than_maxmsgl_is_2010(env):
    """Given MAXMSGL(10000), then a longer MQPUT fails MQRC_DATA_LENGTH_ERROR (2010), at the
    client and, if a client sends it anyway, at the channel instance."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", MAXMSGL=10000)
    qm = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    queue = mqpy.Queue(qm, QUEUE)
    with pytest.raises(mqpy.MQMIError) as err:
        queue.put(bytes(10001))
    assert err.value.reason == CMQC.MQRC_DATA_LENGTH_ERROR
    qm.connection()._instance.max_msg_size = 20000  # a client that does not check
    with pytest.raises(mqpy.MQMIError) as err:
        queue.put(bytes(10001))
    assert err.value.reason == CMQC.MQRC_DATA_LENGTH_ERROR
    queue.put(bytes(10000))
    qm.disconnect()
    assert env.depth() == 1


def test_an_unexpected_fault_with_one_connection_leaves_the_listener_serving(env):
    """Given a channel initiator whose lookup of one channel fails unexpectedly (any
    exception, not an MQ error), when a partner starts that channel, then its connection is
    closed with AMQ9999E in the log and the listener goes on serving other clients."""
    chinit = env.chinit.chinit
    lookup = chinit.admin.channel

    def channel(name: str):
        if name == "BOOM.RCVR":
            raise RuntimeError("lookup failed")
        return lookup(name)

    chinit.admin.channel = channel
    with socket.create_connection(("127.0.0.1", env.chinit.port)) as sock:
        sock.sendall(SegmentWriter().send(InitialData(fap_level=10, channel_name="BOOM.RCVR",
                                                      max_msg_batch=1)))
        assert _answer(sock) == []  # closed, nothing answered
    assert wait_for(lambda: any("lookup failed" in t for t in env.chinit.messages("AMQ9999E")))
    _still_serving(env)
