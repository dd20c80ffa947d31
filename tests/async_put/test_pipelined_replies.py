"""Asynchronous puts that reach the queue manager together (an application putting faster
than the daemon serves it) are answered together: the busy connection's thread
(``mqpy.bindings_thread``) serves every request that came, each taken whole from the bytes
read, and writes their replies in one go, in the order of the requests; an asynchronous
put's reply, which nobody reads, carries no structures."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

import mqpy
from mqpy import CMQC, bindings, bindings_thread
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows
from mqpy.fap.tsh import SegmentType
from tests.support.bindings_server import serving

COUNT = 40
_GET = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)


@pytest.fixture
def busy(tmp_path) -> Iterator[tuple]:
    """A bindings connection to queue Q served on a thread (its calls came quickly), and
    the bytes of COUNT asynchronous puts of messages m00, m01 ...: (connection, queue,
    requests)."""
    eng = QueueManagerEngine.create(os.path.join(tmp_path, "qmgrs", "QM"), "QM")
    eng.define("QLOCAL", "Q", {})
    try:
        with serving(eng):
            conn = bindings.connect("QM", str(tmp_path))
            qm = mqpy.QueueManager(None)
            qm._conn = conn
            q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
            for _ in range(3):  # quick calls: the connection is served on a thread
                q.put(b"warm", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
                q.get(None, mqpy.MD(), _GET)
            pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE)
            requests = b"".join(
                conn._flows.request(SegmentType.MQPUT, [mqpy.MD(), pmo, b"m%02d" % i],
                                    q._hobj) for i in range(COUNT))
            yield conn, q, requests
            q.close()
            conn.disconnect()
    finally:
        eng.close()


def _replies(conn) -> list:
    """The COUNT replies, as they come."""
    flows = conn._flows
    replies: list = []
    while len(replies) < COUNT:
        reply = flows.reply()
        if reply is None:
            flows.feed(conn._sock.recv(1 << 16))
        else:
            replies.append(reply)
    return replies


def _all_there_in_order(q) -> bool:
    return [q.get(None, mqpy.MD(), _GET) for _ in range(COUNT)] == \
        [b"m%02d" % i for i in range(COUNT)]


def test_puts_that_came_together_are_answered_in_one_write(busy, monkeypatch):
    """Given a bindings connection served on a thread, when the application sends 40
    asynchronous puts as one write, then the daemon answers them in one write (not one a
    put), every reply an MQPUT reply in order and without structures, and the 40 messages
    are on the queue in the order they were put."""
    conn, q, requests = busy
    writes: list[int] = []
    real_send = bindings_thread._send

    def counting_send(sock, data):
        writes.append(len(data))
        return real_send(sock, data)

    monkeypatch.setattr(bindings_thread, "_send", counting_send)
    conn._sock.sendall(requests)
    replies = _replies(conn)
    assert [r.verb for r in replies] == [SegmentType.MQPUT] * COUNT
    assert all(r.comp == CMQC.MQCC_OK for r in replies)
    assert 0 < len(writes) < COUNT // 4, writes
    # nobody reads an asynchronous put's reply: TSH and API header, no structures
    assert sum(writes) <= COUNT * 44, writes
    monkeypatch.setattr(bindings_thread, "_send", real_send)
    assert _all_there_in_order(q)


def test_puts_cut_by_reads_are_taken_whole_after_the_one_cut(busy, monkeypatch):
    """Given a bindings connection served on a thread, when the application's 40
    asynchronous puts reach it in two reads, the first ending inside a request (7 bytes
    into it: before its length), then the request cut is put together by the segment
    reader and every other one is taken whole from the bytes read (not one by one through
    the reader's events), all in order."""
    conn, q, requests = busy
    decoded_by_reader: list[int] = []
    real_decode = mqiflows.decode_request

    def counting_decode(*args, **kwargs):
        decoded_by_reader.append(1)
        return real_decode(*args, **kwargs)

    cut = len(requests) // 2 + 7  # inside a request
    monkeypatch.setattr(mqiflows, "decode_request", counting_decode)
    conn._sock.sendall(requests[:cut])
    time.sleep(0.005)
    conn._sock.sendall(requests[cut:])
    assert len(_replies(conn)) == COUNT
    assert len(decoded_by_reader) <= 1
    monkeypatch.setattr(mqiflows, "decode_request", real_decode)
    assert _all_there_in_order(q)
