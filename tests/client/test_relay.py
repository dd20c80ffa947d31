"""Client calls as deployed: strmqm's daemon, its channel initiator a process of its own, the
client's MQPUT / MQGET / MQCMIT / MQBACK relayed by the SVRCONN to the queue manager's socket
without being decoded (``mqpy_chinit.svrconn_relay``). What the relay must keep: the
structures and data both ways, multi-segment flows, MQGET's truncation answers and the
channel's MAXMSGL, the units of work (a lost client backs out), the channel status counters,
and a malformed body still ends the channel with AMQ9504E."""

from __future__ import annotations

import re
import socket
import time

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIRequest
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import SegmentType
from tests.client.conftest import wait_for
from tests.support.fastpath import STANDARD
from tests.support.raw_sessions import _raw_session, _replies, _started_instance
from tests.support.site import ADMIT_OWNER, CHANNEL, QM
from tests.support.site_here import HereSite


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = HereSite(str(tmp_path_factory.mktemp("relay")), STANDARD)
    try:
        s.start()
        s.mqsc(ADMIT_OWNER + "DEFINE QLOCAL(RELAY.Q) MAXDEPTH(1000)\n")
        yield s
    finally:
        s.stop()


@pytest.fixture(autouse=True)
def _empty(site):
    site.mark()
    yield
    qm = site.bindings()
    try:
        q = mqpy.Queue(qm, "RELAY.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
        try:
            while True:
                q.get()
        except mqpy.MQMIError:
            pass
        q.close()
    finally:
        qm.disconnect()


def _depth(site, name: str = "RELAY.Q") -> int:
    qm = site.bindings()
    try:
        return mqpy.Queue(qm, name, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        qm.disconnect()


def test_structures_and_data_pass_through_both_ways(site):
    """Given a client of the deployed channel initiator, when it puts messages of 0 bytes,
    1 KB, 200 KB and 2 MB (several segments each way) with MQMD fields set and gets them back,
    then the MsgIds the queue manager gave come back to the putter, the getter's MQMD and
    MQGMO are the queue manager's, the data is whole, and an empty queue answers 2033."""
    qm = site.client()
    try:
        q = mqpy.Queue(qm, "RELAY.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        # 2 MB: more than a Unix socket takes at once, so the relay's write is split too
        bodies = [b"", bytes(range(256)) * 4, bytes(range(256)) * 800,
                  bytes(range(256)) * 8192]
        sent = []
        for i, body in enumerate(bodies):
            md = mqpy.MD(Format=CMQC.MQFMT_STRING, CorrelId=bytes([i + 1]) * 24,
                         Priority=7)
            q.put(body, md)
            assert md.MsgId != CMQC.MQMI_NONE
            sent.append(md.MsgId)
        for i, body in enumerate(bodies):
            md, gmo = mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
            assert q.get(None, md, gmo) == body
            assert md.MsgId == sent[i] and md.CorrelId == bytes([i + 1]) * 24
            assert md.Format == CMQC.MQFMT_STRING and md.Priority == 7
            assert gmo.ReturnedLength == len(body)
        with pytest.raises(mqpy.MQMIError) as err:
            q.get()
        assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        q.close()
    finally:
        qm.disconnect()


def test_truncation_answers_come_back_whole(site):
    """Given a 100-byte message, when a client gets it into 10 bytes, then MQGET fails
    MQRC_TRUNCATED_MSG_FAILED (2080) and the message stays; with MQGMO_ACCEPT_TRUNCATED_MSG
    it completes with 2079, the first 10 bytes and the original length 100."""
    qm = site.client()
    try:
        q = mqpy.Queue(qm, "RELAY.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        q.put(bytes(range(100)))
        with pytest.raises(mqpy.MQMIError) as err:
            q.get(10)
        assert err.value.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
        with pytest.raises(mqpy.MQMIError) as err:
            q.get(10, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
        assert (err.value.comp, err.value.reason) == (CMQC.MQCC_WARNING,
                                                      CMQC.MQRC_TRUNCATED_MSG_ACCEPTED)
        assert err.value.message == bytes(range(10))
        assert err.value.original_length == 100
        q.close()
    finally:
        qm.disconnect()
    assert _depth(site) == 0


def test_syncpoint_commit_backout_and_a_lost_client(site):
    """Given a client putting under syncpoint, when it backs out, nothing is on the queue;
    when it commits, the message is; when it puts again and its connection is dropped
    without MQDISC, the queue manager backs that unit of work out."""
    qm = site.client()
    q = mqpy.Queue(qm, "RELAY.Q", CMQC.MQOO_OUTPUT)
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    q.put(b"backed out", mqpy.MD(), pmo)
    qm.backout()
    assert _depth(site) == 0
    q.put(b"committed", mqpy.MD(), pmo)
    qm.commit()
    assert _depth(site) == 1
    q.put(b"in flight", mqpy.MD(), pmo)
    qm.connection().abend()  # the client goes without MQDISC
    assert wait_for(lambda: _depth(site) == 1 and _uncommitted(site) == 0)


def _uncommitted(site) -> int:
    out = site.mqsc("DISPLAY QSTATUS(RELAY.Q) TYPE(QUEUE) UNCOM\n")
    return 0 if "UNCOM(NO)" in out or "UNCOM(0)" in out else 1


def test_maxmsgl_is_kept_both_ways(site):
    """Given a SVRCONN with MAXMSGL(10000), when a client that does not check sends a longer
    MQPUT, then it fails MQRC_DATA_LENGTH_ERROR (2010); when a client gets a 15000-byte
    message with no buffer limit, then the channel asks for at most 10000 bytes and the
    get fails 2080 (MQRC_TRUNCATED_MSG_FAILED), leaving the message."""
    site.mqsc("DEFINE CHANNEL(SMALL.SVRCONN) CHLTYPE(SVRCONN) MAXMSGL(10000) REPLACE\n"
              "SET CHLAUTH(SMALL.SVRCONN) TYPE(BLOCKUSER) USERLIST('nobody')\n")
    big = site.bindings()
    mqpy.Queue(big, "RELAY.Q").put(bytes(15000))
    big.disconnect()
    qm = mqpy.connect(QM, "SMALL.SVRCONN", site.conn_info)
    try:
        q = mqpy.Queue(qm, "RELAY.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        qm.connection()._instance.max_msg_size = 20000  # a client that does not check
        with pytest.raises(mqpy.MQMIError) as err:
            q.put(bytes(10001))
        assert err.value.reason == CMQC.MQRC_DATA_LENGTH_ERROR
        with pytest.raises(mqpy.MQMIError) as err:
            q.get()
        assert err.value.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
        q.close()
    finally:
        qm.disconnect()
    assert _depth(site) == 1


def test_channel_status_counts_relayed_calls(site):
    """Given a client that puts two messages of 1000 bytes and gets them, when DISPLAY
    CHSTATUS shows its instance, then MSGS counts the seven MQI calls (connect, open, two
    puts, two gets, one failed get) and BYTSSENT / BYTSRCVD every byte of the conversation
    (IBM: control information included), so more than the 2,000 bytes of message data."""
    qm = site.client()
    try:
        q = mqpy.Queue(qm, "RELAY.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        q.put(bytes(1000))
        q.put(bytes(1000))
        q.get()
        q.get()
        with pytest.raises(mqpy.MQMIError):
            q.get()
        out = " ".join(site.mqsc(f"DISPLAY CHSTATUS({CHANNEL}) ALL\n").split())
        assert "MSGS(7)" in out, out
        counted = dict(re.findall(r"(BYTS(?:SENT|RCVD))\((\d+)\)", out))
        assert int(counted["BYTSSENT"]) > 2000 and int(counted["BYTSRCVD"]) > 2000, out
        q.close()
    finally:
        qm.disconnect()


def _answer(sock: socket.socket) -> list:
    sock.settimeout(10)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return SegmentReader().feed(data)


@pytest.mark.parametrize("body", [
    # an MQMD and MQPMO of the right shape whose data length runs past the body: the relay's
    # shape check sends it the decoding way
    b"MD  " + (2).to_bytes(4, "little") + bytes(356) + b"PMO " + (1).to_bytes(4, "little")
    + bytes(120) + (999).to_bytes(4, "little") + b"short",
    # the right shape, records the codec cannot find: only the queue manager's decoding
    # finds it, after the relay passed it on
    None,
], ids=["bad-length", "bad-field"])
def test_a_malformed_put_still_ends_the_channel(site, body):
    """Given a running client instance with a connected conversation, when an MQPUT arrives
    whose body is not a valid MQMD / MQPMO / data, then the instance ends with STATUS
    PROTOCOL_INVALID_DATA and AMQ9504E is logged, and the listener serves the next client."""
    if body is None:
        body = _bad_field_put()
    with _started_instance(site) as sock:
        writer = SegmentWriter()
        conn = mqiflows.encode_request(SegmentType.MQCONN, [(QM, "garbler")])
        sock.sendall(writer.send(attrs.evolve(conn, conv_id=1, request_id=1)))
        sock.sendall(writer.send(MQIRequest(segment_type=SegmentType.MQPUT, body=body,
                                            hobj=1, conv_id=1, request_id=2)))
        events = _answer(sock)
    assert events[0].segment_type == SegmentType.MQCONN_REPLY and events[0].comp == 0
    assert isinstance(events[-1], Status)
    assert events[-1].code == StatusCode.PROTOCOL_INVALID_DATA
    assert "AMQ9504E" in site.wait_for_log("AMQ9504E")
    qm = site.client()
    mqpy.Queue(qm, "RELAY.Q").put(b"still served")
    qm.disconnect()


def _request(verb: SegmentType, values: list, hobj: int, request_id: int) -> MQIRequest:
    return attrs.evolve(mqiflows.encode_request(verb, values, hobj=hobj), conv_id=1,
                        request_id=request_id)


def test_requests_sent_without_waiting_are_answered_in_order(site):
    """Given a conversation whose last call was a relayed MQPUT, when its client sends five
    requests without waiting for replies (MQINQ, MQPUT, MQGET, MQGET, MQPUT), then the five
    replies come in that order with their RequestIds, the inquiry gives the depth at its
    turn and the gets the messages in the order put: a call the receiver could relay at
    once never overtakes one queued for the conversation's task."""
    with _started_instance(site) as sock:
        writer, reader, hobj = _raw_session(sock)
        put = [mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)]
        get = [mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT), 100]
        sock.sendall(writer.send(_request(SegmentType.MQPUT, [*put, b"one"], hobj, 3)))
        assert _replies(sock, reader, 1)[0].comp == 0
        burst = [_request(SegmentType.MQINQ, [[CMQC.MQIA_CURRENT_Q_DEPTH]], hobj, 4),
                 _request(SegmentType.MQPUT, [*put, b"two"], hobj, 5),
                 _request(SegmentType.MQGET, get, hobj, 6),
                 _request(SegmentType.MQGET, get, hobj, 7),
                 _request(SegmentType.MQPUT, [*put, b"three"], hobj, 8)]
        sock.sendall(b"".join(writer.send(r) for r in burst))
        replies = _replies(sock, reader, 5)
    assert [r.request_id for r in replies] == [4, 5, 6, 7, 8]
    assert [r.segment_type for r in replies] == [
        SegmentType.MQINQ_REPLY, SegmentType.MQPUT_REPLY, SegmentType.MQGET_REPLY,
        SegmentType.MQGET_REPLY, SegmentType.MQPUT_REPLY]
    assert all(r.comp == 0 for r in replies)
    decoded = [mqiflows.decode_reply(r) for r in replies]
    assert decoded[0].values[0] == [1]
    assert decoded[2].values[3] == b"one" and decoded[3].values[3] == b"two"
    assert wait_for(lambda: _depth(site) == 1)


def test_replies_larger_than_the_socket_takes_come_whole_and_in_order(site):
    """Given 24 messages of 60 KB on the queue, when the client sends 24 MQGETs in one write
    and reads nothing for a while (their replies, 1.4 MB, more than the sockets hold), then
    reading gives the 24 replies whole, in order, with their RequestIds and messages: the
    replies the server could not write at once are written as the client reads."""
    messages = [bytes([65 + i]) * 60_000 for i in range(24)]
    qm = site.client()
    try:
        q = mqpy.Queue(qm, "RELAY.Q", CMQC.MQOO_OUTPUT)
        for m in messages:
            q.put(m)
    finally:
        qm.disconnect()
    with _started_instance(site) as sock:
        writer, reader, hobj = _raw_session(sock)
        get = [mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT), 65536]
        sock.sendall(b"".join(writer.send(_request(SegmentType.MQGET, get, hobj, 3 + i))
                              for i in range(24)))
        time.sleep(1.0)
        replies = _replies(sock, reader, 24)
    assert [r.request_id for r in replies] == list(range(3, 27))
    assert [mqiflows.decode_reply(r).values[3] for r in replies] == messages


def test_a_malformed_put_after_a_relayed_one_still_ends_the_channel(site):
    """Given a conversation whose last call was a relayed MQPUT, when its next MQPUT has a
    field the queue manager's codec refuses (sent on by the task that received it), then
    the instance ends with STATUS PROTOCOL_INVALID_DATA and AMQ9504E is logged, as on the
    conversation task's way."""
    with _started_instance(site) as sock:
        writer, reader, hobj = _raw_session(sock)
        sock.sendall(writer.send(_request(SegmentType.MQPUT, [
            mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"good"], hobj, 3)))
        assert _replies(sock, reader, 1)[0].comp == 0
        sock.sendall(writer.send(MQIRequest(segment_type=SegmentType.MQPUT,
                                            body=_bad_field_put(), hobj=hobj, conv_id=1,
                                            request_id=4)))
        events = _answer(sock)
    assert isinstance(events[-1], Status)
    assert events[-1].code == StatusCode.PROTOCOL_INVALID_DATA
    assert "AMQ9504E" in site.wait_for_log("AMQ9504E")


def _bad_field_put() -> bytes:
    """An MQPUT of the plain shape (MQMD, MQPMO version 2, data) whose MQPMO says response
    records follow at an offset beyond the body: a flow that does not add up (a structure
    that is whole but wrong, such as a negative RecsPresent, is only that call's error:
    tests/mqi/test_bad_structures.py)."""
    body = bytearray(mqiflows.encode_request(
        SegmentType.MQPUT, [mqpy.MD(), mqpy.PMO(Version=2), b"data"]).body)
    for field, value in (("RecsPresent", 1), ("ResponseRecOffset", 100000)):
        at = mqpy.MD.length(2) + mqpy.PMO._layout_.offsets[field]
        body[at:at + 4] = value.to_bytes(4, "little", signed=True)
    return bytes(body)


@pytest.mark.parametrize("after_relayed", [False, True], ids=["first-call", "after-a-put"])
def test_a_client_lost_during_a_waiting_get_ends_that_get(site, after_relayed):
    """Given a client waiting in MQGET (outside syncpoint) through the relay, when its
    connection is dropped, then its call fails 2009 and the wait ends in the queue manager
    too: a message put afterwards stays on the queue for the next application. After a put
    and get, the get is sent on by the task that receives it and its reply awaited by the
    conversation's own task (``_start_relay``): cut off there, the same."""
    import threading

    qm = site.client()
    q = mqpy.Queue(qm, "RELAY.Q", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    if after_relayed:
        q.put(b"first")
        assert q.get() == b"first"
    reasons: list[int] = []

    def wait() -> None:
        try:
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                                            WaitInterval=30000))
        except mqpy.MQMIError as e:
            reasons.append(e.reason)

    waiting = threading.Thread(target=wait, daemon=True)
    waiting.start()
    time.sleep(0.5)  # its MQGET waits in the queue manager
    qm.connection().abend()
    waiting.join(20)
    assert reasons == [CMQC.MQRC_CONNECTION_BROKEN]
    # the channel instance ends, and with it the queue manager connection that waited
    assert wait_for(lambda: "AMQ8420I" in site.mqsc(f"DISPLAY CHSTATUS({CHANNEL})\n",
                                                    ok=False))  # status not found
    other = site.bindings()
    mqpy.Queue(other, "RELAY.Q").put(b"for the next one")
    other.disconnect()
    time.sleep(0.5)  # a get still waiting would have taken it by now
    assert _depth(site) == 1


def test_tshark_decodes_relayed_flows(site, tmp_path):
    """Given a deployed client session whose MQPUT, MQGET, MQCMIT and MQBACK are relayed,
    when tshark decodes the recorded segments as MQ, then every verb and reply shows the
    segment type sent, the reply codes are the queue manager's (2033 included), and nothing
    is malformed: the relayed replies carry the client's TSHM, with its own ReplyLength."""
    from tests.support.pcap import TSHARK, _decode, _RecordingProxy

    if TSHARK is None:
        pytest.skip("tshark is not installed")
    proxy = _RecordingProxy(site.port)
    qm = mqpy.connect(QM, CHANNEL, f"127.0.0.1({proxy.port})")
    q = mqpy.Queue(qm, "RELAY.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"relayed", mqpy.MD(Format=CMQC.MQFMT_STRING), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.backout()
    q.put(b"relayed", mqpy.MD(Format=CMQC.MQFMT_STRING), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)) == b"relayed"
    with pytest.raises(mqpy.MQMIError):
        q.get()  # 2033
    q.close()
    qm.disconnect()
    with proxy.lock:
        flows = list(proxy.flows)
    sent_types = [segment[17] if segment[:4] == b"TSHM" else segment[9] for _, segment in flows]
    for verb in ("MQPUT", "MQBACK", "MQCMIT", "MQGET"):
        assert SegmentType[verb] in sent_types and SegmentType[verb + "_REPLY"] in sent_types
    # every flow's ReplyLength (after the TSHM) is its own length
    for _, segment in flows:
        if segment[:4] == b"TSHM" and segment[17] in (SegmentType.MQPUT_REPLY,
                                                       SegmentType.MQGET_REPLY):
            assert int.from_bytes(segment[36:40], "big") == len(segment)
    rows = _decode(flows, tmp_path, ["mq.tsh.type", "mq.api.reasoncode", "_ws.malformed"])
    assert [int(row[0], 16) for row in rows if row[0]] == sent_types
    assert not [row for row in rows if row[2]]  # nothing malformed
    assert CMQC.MQRC_NO_MSG_AVAILABLE in {int(r) for row in rows for r in row[1].split(",")
                                          if r}
