"""Hostile applications on the bindings socket against the paths that read their bytes
beside the general decoder: the queue manager's watch of a waiting MQGET
(``bindings_listener._Session._watch``) and the busy thread's bytes paths
(``bindings_thread._Pipelined.from_bytes``). Each answer is that connection's alone."""

from __future__ import annotations

import socket
import time

import pytest

import mqpy
from mqpy import CMQC, bindings
from mqpy.engine import packed
from mqpy.fap import asyncflows
from mqpy.fap.asyncflows import MessageRequest
from mqpy.fap.tsh import SegmentType
from mqpy.readahead import WINDOW
from tests.robustness.test_bindings_socket import _no_fault_written
from tests.robustness.test_conn_state_wake import _connected
from tests.support.bindings_server import serving_with_faults
from tests.support.flood import written_without_reading

pytestmark = pytest.mark.timeout(120)

_T = SegmentType
#: what a queue manager that reads no further holds back at most: its socket buffers
#: (a few hundred KB) and a read or two; far below what the hostile application writes
_HELD_BACK_AT_MOST = 8 << 20
_WRITTEN_AT_MOST = 32 << 20


def test_an_application_writing_while_its_get_waits_is_held_back_not_buffered(running):
    """Given an application whose MQGET waits 20 s, when it writes request after request
    meanwhile without reading (the MQI is synchronous: nothing is to come), then the queue
    manager stops reading it once a little is held, so that the socket's buffers hold the
    application back, instead of keeping everything it writes in the queue manager's
    memory until the get ends."""
    sock, flows, hobj = _connected(running)
    with sock:
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=20000)
        sock.sendall(flows.request(_T.MQGET, [mqpy.MD(), gmo, 100], hobj))
        time.sleep(0.3)  # the get waits
        put = flows.request(_T.MQPUT, [mqpy.MD(), mqpy.PMO(), b"x" * 60000], hobj)
        assert written_without_reading(sock, put, _WRITTEN_AT_MOST) < _HELD_BACK_AT_MOST
    other = mqpy.connect("QM1")  # and everyone else is served
    other.disconnect()


def _busy_gets(conn: bindings.BindingsConnection, hobj: int, count: int) -> list[int]:
    """``count`` MQGETs close together (the busy thread takes them): each one's reason."""
    reasons = []
    for _ in range(count):
        try:
            conn.get(hobj, mqpy.MD(), mqpy.GMO(), None)
            reasons.append(0)
        except mqpy.MQMIError as e:
            reasons.append(e.reason)
    return reasons


def test_an_engine_fault_in_a_get_served_from_its_bytes_fails_that_get_only(
        tmp_path, monkeypatch):
    """Given an application getting messages quickly (served from their bytes by the busy
    thread), when the engine faults in one of those gets, then that MQGET fails with
    MQRC_UNEXPECTED_ERROR (2195) as the general path fails it, and the connection goes on
    (no MQRC_CONNECTION_BROKEN)."""
    with serving_with_faults(str(tmp_path)) as (_server, faults):
        conn = bindings.connect("QM", str(tmp_path))
        hobj = conn.open(mqpy.OD(ObjectName="Q"),
                         CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        for _ in range(200):
            conn.put(hobj, mqpy.MD(), mqpy.PMO(), b"m")
        get = packed.get

        def fault_once(*args):
            if not faults:
                raise RuntimeError("an engine fault in the bytes path's get")
            return get(*args)

        monkeypatch.setattr(packed, "get", fault_once)
        reasons = _busy_gets(conn, hobj, 150)
        assert faults, "the busy thread served no get from its bytes"
        assert CMQC.MQRC_CONNECTION_BROKEN not in reasons
        assert reasons.count(CMQC.MQRC_UNEXPECTED_ERROR) == 1
        conn.disconnect()


def _call(sock: socket.socket, flows: bindings.Flows, request: bytes):
    sock.sendall(request)
    events: list = []
    while not events:
        events = flows._reader.feed(sock.recv(65536))
    return events[0]


#: what the application's queue holds for read ahead: far more than any window mqpy asks
_QUEUED = 12 << 20
_MESSAGE = 60000


def test_a_read_ahead_window_asked_without_bound_is_served_a_bounded_answer(running):
    """Given 12 MB of non-persistent messages on a queue opened for read ahead, when the
    application's REQUEST_MSGS asks for a window of 2 GB, then the queue manager's answer
    (ASYNC_MESSAGEs, then the NOTIFICATION that ends them) carries a bounded window of them,
    not the whole queue taken at once under its lock; the rest stays queued for the next
    request."""
    sock, flows, _ = _connected(running)
    with sock:
        od = mqpy.OD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName="REVIEW.RA.*")
        opened = _call(sock, flows, flows.request(_T.MQOPEN, [od, CMQC.MQOO_OUTPUT
                       | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD], 0))
        hobj = opened.hobj
        md = mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
        for _ in range(_QUEUED // _MESSAGE):
            assert _call(sock, flows, flows.request(
                _T.MQPUT, [md, mqpy.PMO(), b"r" * _MESSAGE], hobj)).comp == 0
        sock.sendall(asyncflows.message_request(MessageRequest(
            hobj, 0x7FFFFFFF, CMQC.MQGMO_NO_SYNCPOINT, 0)))
        answered = 0
        reader = flows._reader
        while True:
            data = sock.recv(1 << 20)
            assert data
            answered += len(data)
            if any(e.segment_type == _T.NOTIFICATION for e in reader.feed(data)):
                break
        assert answered <= 16 * WINDOW


def test_a_read_ahead_request_whose_counts_overflow_ends_that_connection_only(running):
    """Given two messages for read ahead, when the application's REQUEST_MSGS says it has
    received 2**31 - 1 bytes (the answer's message indexes count on from there, past an
    MQLONG), then that connection alone is answered or ended: the queue manager goes on
    serving every other application and writes no FDC."""
    other = mqpy.connect("QM1")
    sock, flows, _ = _connected(running)
    with sock:
        od = mqpy.OD(ObjectName="SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName="REVIEW.IX.*")
        hobj = _call(sock, flows, flows.request(_T.MQOPEN, [od, CMQC.MQOO_OUTPUT
                     | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD], 0)).hobj
        md = mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
        for _ in range(2):
            _call(sock, flows, flows.request(_T.MQPUT, [md, mqpy.PMO(), b"m"], hobj))
        sock.sendall(asyncflows.message_request(MessageRequest(
            hobj, 1 << 16, CMQC.MQGMO_NO_SYNCPOINT, 0, received=0x7FFFFFFF)))
        sock.settimeout(5)
        try:
            while sock.recv(65536):
                pass
        except OSError:
            pass
    other.inquire(CMQC.MQCA_Q_MGR_NAME)  # still served
    other.disconnect()
    mqpy.connect("QM1").disconnect()
    _no_fault_written(running)
