"""Asynchronous puts that reach the queue manager together (an application putting faster
than the daemon serves it) are answered together: the busy connection's thread
(``mqpy.bindings_thread``) serves every request that came and writes their replies in one
go, in the order of the requests; an asynchronous put's reply, which nobody reads, carries
no structures."""

from __future__ import annotations

import os

import mqpy
from mqpy import CMQC, bindings, bindings_thread
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap.tsh import SegmentType
from tests.support.bindings_server import serving

COUNT = 40


def test_puts_that_came_together_are_answered_in_one_write(tmp_path, monkeypatch):
    """Given a bindings connection served on a thread, when the application sends 40
    asynchronous puts as one write, then the daemon answers them in one write (not one a
    put), every reply an MQPUT reply in order and without structures, and the 40 messages are on the queue in the
    order they were put."""
    eng = QueueManagerEngine.create(os.path.join(tmp_path, "qmgrs", "QM"), "QM")
    eng.define("QLOCAL", "Q", {})
    writes: list[int] = []
    real_send = bindings_thread._send

    def counting_send(sock, data):
        writes.append(len(data))
        return real_send(sock, data)

    monkeypatch.setattr(bindings_thread, "_send", counting_send)
    try:
        with serving(eng):
            conn = bindings.connect("QM", str(tmp_path))
            qm = mqpy.QueueManager(None)
            qm._conn = conn
            q = mqpy.Queue(qm, "Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
            for _ in range(3):  # quick calls: the connection is served on a thread
                q.put(b"warm", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
                q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
            flows = conn._flows
            pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE)
            requests = b"".join(
                flows.request(SegmentType.MQPUT, [mqpy.MD(), pmo, b"m%02d" % i], q._hobj)
                for i in range(COUNT))
            writes.clear()
            conn._sock.sendall(requests)
            replies = []
            while len(replies) < COUNT:
                reply = flows.reply()
                if reply is None:
                    flows.feed(conn._sock.recv(1 << 16))
                else:
                    replies.append(reply)
            assert [r.verb for r in replies] == [SegmentType.MQPUT] * COUNT
            assert all(r.comp == CMQC.MQCC_OK for r in replies)
            assert 0 < len(writes) < COUNT // 4, writes
            # nobody reads an asynchronous put's reply: TSH and API header, no structures
            assert sum(writes) <= COUNT * 44, writes
            got = [q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
                   for _ in range(COUNT)]
            assert got == [b"m%02d" % i for i in range(COUNT)]
            q.close()
            conn.disconnect()
    finally:
        eng.close()
