"""A bindings call's usual MQPUT, MQGET and MQCMIT are framed in one go on both ends of the
socket (``mqpy.bindings_calls`` on the application's side, ``bindings_thread._packed`` on
the queue manager's): the same bytes as the general path's events and writers, the same
answers, and the general path for anything else."""

from __future__ import annotations

import os
import time

import pytest

import mqpy
from mqpy import CMQC, bindings, bindings_calls, bindings_thread
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import build_mqi_request, one_mqi_flow, parse_mqi_segment
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.support.bindings_server import serving
from tests.support.mqi_workload import md_forms, puts_and_gets
from tests.support.recording_socket import RecordingSocket
from tests.support.waiting import came_true

_T = SegmentType


def test_packed_requests_are_the_bytes_of_the_general_path():
    """Given MQPUT and MQGET requests of many forms and an MQCMIT, when packed in one go,
    then they are byte for byte what the general path's request event and writer make."""
    flows = bindings.Flows()
    for md in md_forms():
        for pmo in (mqpy.PMO(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT, Version=1)):
            values = [md, pmo, b"data" * 50]
            body = mqiflows.common_request_body(_T.MQPUT, values)
            assert build_mqi_request(_T.MQPUT, 7, (body,)) == \
                flows.request(_T.MQPUT, values, 7)
        for length in (mqiflows.WHOLE_MESSAGE, 0, 100):
            values = [md, mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT), length]
            body = mqiflows.common_request_body(_T.MQGET, values)
            assert build_mqi_request(_T.MQGET, 9, (body,)) == flows.request(_T.MQGET, values, 9)
    assert build_mqi_request(_T.MQCMIT, 0, ()) == flows.request(_T.MQCMIT, (), 0)


def test_requests_read_in_one_go_are_what_the_reader_and_decoder_give():
    """Given requests of every form a thread serves, when the queue manager's thread reads
    one that came whole and alone in one go, then it decodes to what the segment reader and
    the general decoder give it; anything else is left to them."""
    flows = bindings.Flows()
    requests = [flows.request(_T.MQCMIT, (), 0), flows.request(_T.MQBACK, (), 0)]
    for md in md_forms():
        requests.append(flows.request(_T.MQPUT, [md, mqpy.PMO(), b"m" * 300], 3))
        requests.append(flows.request(_T.MQGET, [md, mqpy.GMO(WaitInterval=5), 100], 4))
    for data in requests:
        reader = SegmentReader(bindings.MAX_TRANSMISSION_SIZE)
        (event,) = SegmentReader(bindings.MAX_TRANSMISSION_SIZE).feed(data)
        assert bindings_thread._one_request(reader, data) == \
            mqiflows.decode_request(event, ByteOrder.LITTLE)
        assert reader.segments == 0  # (counted by _Pipelined.take, which takes it)
    reader = SegmentReader(bindings.MAX_TRANSMISSION_SIZE)
    assert bindings_thread._one_request(reader, requests[0] + requests[1]) is None
    assert bindings_thread._one_request(reader, requests[2][:-1]) is None
    assert bindings_thread._one_request(reader, flows.request(_T.MQINQ, [[1]], 0)) is None
    reader.feed(requests[2][:10])  # the start of a request already buffered
    assert bindings_thread._one_request(reader, requests[3]) is None


def _replies() -> list[tuple]:
    """(verb, reply values, CompCode, Reason) of replies of every kind a call gets."""
    out: list[tuple] = [(_T.MQCMIT, [], CMQC.MQCC_OK, 0), (_T.MQBACK, [], CMQC.MQCC_OK, 0),
                        (_T.MQPUT, None, CMQC.MQCC_FAILED, CMQC.MQRC_Q_FULL),
                        (_T.MQGET, None, CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE),
                        (_T.MQCMIT, None, CMQC.MQCC_FAILED, CMQC.MQRC_BACKED_OUT)]
    for md in md_forms():
        out.append((_T.MQPUT, [md, mqpy.PMO(ResolvedQName="Q")], CMQC.MQCC_OK, 0))
        out.append((_T.MQPUT, [md, mqpy.PMO()], CMQC.MQCC_WARNING,
                    CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM))
        for data in (b"", b"x" * 1024):
            out.append((_T.MQGET, [md, mqpy.GMO(ResolvedQName="Q"), len(data), data],
                        CMQC.MQCC_OK, 0))
        out.append((_T.MQGET, [md, mqpy.GMO(), 5000, b"x" * 10], CMQC.MQCC_WARNING,
                    CMQC.MQRC_TRUNCATED_MSG_ACCEPTED))
    return out


def test_packed_replies_are_the_bytes_and_values_of_the_general_path():
    """Given replies of every kind, when the queue manager's thread packs them straight into
    their segment and the application reads them in one go, then the bytes are those the
    general path's reply event and writer make, and the values those it decodes."""
    writer = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE)
    for verb, values, comp, reason in _replies():
        general = writer.send(mqiflows.encode_reply(verb, values, comp=comp, reason=reason))
        if values is not None:
            assert bindings_thread._packed(writer, verb, values, comp, reason) == general
        event = parse_mqi_segment(general, 0, len(general))[0]
        expected = mqiflows.decode_reply(event, ByteOrder.LITTLE)
        segment_type, *head = one_mqi_flow(general)
        assert segment_type == mqiflows.reply_type(verb)
        assert mqiflows.common_reply(verb, *head) == expected
    # anything but one whole little-endian flow: the general path's
    put_ok = writer.send(mqiflows.encode_reply(_T.MQPUT, [mqpy.MD(), mqpy.PMO()]))
    assert one_mqi_flow(put_ok[:-1]) is None
    assert one_mqi_flow(put_ok + put_ok) is None
    big = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE, byte_order=ByteOrder.BIG)
    assert one_mqi_flow(big.send(mqiflows.encode_reply(_T.MQCMIT, []))) is None


@pytest.fixture
def served(tmp_path):
    """An engine with queues Q, Q2 and FULL, FULL2 (MAXDEPTH 1) served on its bindings
    socket: (engine, data path, server)."""
    eng = QueueManagerEngine.create(os.path.join(tmp_path, "qmgrs", "QM"), "QM")
    for suffix in ("", "2"):
        eng.define("QLOCAL", "Q" + suffix, {})
        eng.define("QLOCAL", "FULL" + suffix, {"MAXDEPTH": 1})
    try:
        with serving(eng) as server:
            yield eng, str(tmp_path), server
    finally:
        eng.close()


def _workload(root: str, suffix: str) -> list:
    """``tests.support.mqi_workload``'s puts, gets, commits and backouts over a bindings
    connection, on queues Q and FULL with ``suffix``: everything the application saw."""
    conn = bindings.connect("QM", root)
    qm = mqpy.QueueManager(None)
    qm._conn = conn
    try:
        return puts_and_gets(qm, "Q" + suffix, "FULL" + suffix, md_forms(), suffix)
    finally:
        conn.disconnect()


def test_a_workload_gets_the_same_answers_packed_and_not(served, monkeypatch):
    """Given the same workload of usual and unusual calls, when it runs with the packed
    calls and then with the general path only, then the application sees the same answers,
    messages and structures, and the packed calls served the usual ones."""
    _eng, root, _server = served
    one_reply = bindings_calls._one_reply
    packed: list[object] = []

    def counting(*args):
        reply = one_reply(*args)
        packed.append(reply)
        return reply

    monkeypatch.setattr(bindings_calls, "_one_reply", counting)
    fast = _workload(root, "")
    assert len([r for r in packed if r is not None]) > 10
    monkeypatch.setattr(bindings_calls.PackedCalls, "_packable", lambda self: False)
    packed.clear()
    general = _workload(root, "2")
    assert packed == []
    assert fast == general


def test_a_thread_hands_the_connection_back_non_blocking_to_the_loop(served):
    """Given an application whose quick calls a thread serves, its socket blocking while
    it does, when the application goes quiet for longer than HOT_WAIT_S, then the loop gets
    the connection back with its socket non-blocking, and serves its next call."""
    _eng, root, server = served
    conn = bindings.connect("QM", root)
    qm = mqpy.QueueManager(None)
    qm._conn = conn
    try:
        q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        for _ in range(30):
            q.put(b"x", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
            qm.commit()
        (session,) = server.sessions
        assert came_true(lambda: not session.sock.getblocking(),
                         10 * bindings_thread.HOT_WAIT_S + 1)
        time.sleep(2 * bindings_thread.HOT_WAIT_S)
        assert not session.sock.getblocking()
        with pytest.raises(mqpy.MQMIError) as e:
            q.get(None, mqpy.MD(MsgId=b"none" * 6),
                  mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=50))
        assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        assert len([q.get() for _ in range(30)]) == 30
    finally:
        conn.disconnect()


def _async_puts(packable: bool, monkeypatch) -> list[bytes]:
    """The requests of asynchronous puts of many forms, sent packed or by the general path."""
    monkeypatch.setattr(bindings_calls.PackedCalls, "_packable", lambda self: packable)
    conn = bindings.BindingsConnection(RecordingSocket(), "QM")
    conn._async_default = {9}  # as an MQOPEN reply's FOPA says of a DEFPRESP(ASYNC) queue
    for i, md in enumerate(md_forms()):
        md.MsgId = b"%-24d" % i  # (none generated: the same in both runs)
        for hobj, options in ((5, CMQC.MQPMO_ASYNC_RESPONSE),
                              (5, CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNCPOINT),
                              (9, CMQC.MQPMO_NONE)):  # MQPMO_RESPONSE_AS_Q_DEF
            assert conn.put(hobj, md, mqpy.PMO(Options=options), b"data" * 50) == 0
    assert conn._flows.unanswered == 12
    return conn._sock.sent


def test_packed_asynchronous_puts_are_the_bytes_of_the_general_path(monkeypatch):
    """Given asynchronous puts of many forms (MQPMO_ASYNC_RESPONSE, and
    MQPMO_RESPONSE_AS_Q_DEF on a DEFPRESP(ASYNC) queue), when sent packed, then their
    requests are byte for byte what the general path sends, none waiting for a reply."""
    built: list[int] = []
    build = bindings_calls.build_mqi_request
    monkeypatch.setattr(bindings_calls, "build_mqi_request",
                        lambda *a, **k: built.append(1) or build(*a, **k))
    packed = _async_puts(True, monkeypatch)
    assert len(built) == len(packed)  # every one packed
    assert packed == _async_puts(False, monkeypatch)
    assert all(b"\x00\x00\x01\x00" in r for r in packed)  # MQPMO_ASYNC_RESPONSE sent


def _async_workload(root: str, suffix: str) -> list:
    """More asynchronous puts than DRAIN_EVERY (some failing on a full queue), their MQSTAT,
    then the messages got: everything the application saw."""
    seen: list = []
    conn = bindings.connect("QM", root)
    qm = mqpy.QueueManager(None)
    qm._conn = conn
    try:
        q = mqpy.Queue(qm, "Q" + suffix, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        full = mqpy.Queue(qm, "FULL" + suffix, CMQC.MQOO_OUTPUT)
        pmo = mqpy.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NO_SYNCPOINT)
        for i in range(bindings_calls.DRAIN_EVERY * 3 + 5):
            seen.append(q.put(b"a%d" % i, mqpy.MD(), pmo))
        for i in range(3):
            seen.append(full.put(b"f%d" % i, mqpy.MD(), pmo))
        sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        seen.append((sts.CompCode, sts.Reason, sts.PutSuccessCount, sts.PutFailureCount,
                     sts.ObjectName.rstrip(b"2 ")))
        while True:
            try:
                seen.append(q.get(None, mqpy.MD(), mqpy.GMO()))
            except mqpy.MQMIError as e:
                seen.append(e.reason)
                break
    finally:
        conn.disconnect()
    return seen


def test_asynchronous_puts_get_the_same_answers_packed_and_not(served, monkeypatch):
    """Given more asynchronous puts than are sent between two reads of their replies, some
    failing, when they run packed and then by the general path only, then MQSTAT counts
    them alike and the messages come back alike, in order."""
    _eng, root, _server = served
    fast = _async_workload(root, "")
    monkeypatch.setattr(bindings_calls.PackedCalls, "_packable", lambda self: False)
    general = _async_workload(root, "2")
    assert fast == general
    count = bindings_calls.DRAIN_EVERY * 3 + 5
    assert fast[-1 - count:] == [b"a%d" % i for i in range(count)] + [
        CMQC.MQRC_NO_MSG_AVAILABLE]
    assert fast[-2 - count] == (CMQC.MQCC_FAILED, CMQC.MQRC_Q_FULL, count + 1, 2, b"FULL")
