"""Client flows that arrive in pieces, or stop half-way: the SVRCONN reads its client's
socket itself (mqpy_chinit/conversation.py), and a request cut into several writes is still
one call, while a client that closes in the middle of a request is a client gone without
MQDISC (a killed client has its unit of work backed out; bad input)."""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy.fap.tsh import SegmentType
from tests.client.conftest import CHANNEL, QMGR, QUEUE, wait_for
from tests.support.raw_sessions import _RawClient


def _open_for_output(client: _RawClient) -> int:
    conn = client.call(client.flow(SegmentType.MQCONN, [(QMGR, "partial"), None]))
    assert conn.comp == CMQC.MQCC_OK
    opened = client.call(client.flow(SegmentType.MQOPEN, [mqpy.OD(ObjectName=QUEUE),
                                                          CMQC.MQOO_OUTPUT]))
    assert opened.comp == CMQC.MQCC_OK
    return opened.hobj


def _put(client: _RawClient, hobj: int, data: bytes, options: int) -> bytes:
    return client.flow(SegmentType.MQPUT, [mqpy.MD(), mqpy.PMO(Options=options), data],
                       hobj=hobj)


def test_a_request_written_in_pieces_is_one_call(env):
    """Given a client whose MQPUT of 20 KB reaches the channel in 7 writes, a moment
    apart, then the channel serves it as one call: one reply, one message of the whole
    20 KB on the queue."""
    client = _RawClient(env.chinit.port)
    try:
        hobj = _open_for_output(client)
        data = bytes(range(256)) * 80
        reply = client.call(_put(client, hobj, data, CMQC.MQPMO_NO_SYNCPOINT), pieces=7)
        assert (reply.segment_type, reply.comp) == (SegmentType.MQPUT_REPLY, CMQC.MQCC_OK)
    finally:
        client.sock.close()
    qm = env.bindings()
    try:
        got = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF).get()
    finally:
        qm.disconnect()
    assert got == data


def test_a_client_closing_mid_request_is_backed_out_and_logged(env):
    """Given a client with a message put in syncpoint, when it sends half of its next
    MQPUT and closes the connection, then the instance ends with AMQ9209E (ended without
    MQDISC), the uncommitted message is backed out, and other clients are served."""
    client = _RawClient(env.chinit.port)
    hobj = _open_for_output(client)
    reply = client.call(_put(client, hobj, b"in doubt", CMQC.MQPMO_SYNCPOINT))
    assert reply.comp == CMQC.MQCC_OK
    assert wait_for(lambda: env.uncommitted() not in (0, "NO"))
    half = _put(client, hobj, b"x" * 4000, CMQC.MQPMO_SYNCPOINT)
    client.sock.sendall(half[:len(half) // 2])
    client.sock.close()
    assert wait_for(lambda: env.chinit.messages("AMQ9209E"))
    assert wait_for(lambda: env.uncommitted() in (0, "NO") and env.depth() == 0)
    assert wait_for(lambda: not env.chinit.svrconn_statuses())
    other = mqpy.connect(QMGR, CHANNEL, env.conn_info)
    try:
        mqpy.Queue(other, QUEUE).put(b"still served")
    finally:
        other.disconnect()
    assert env.depth() == 1
