"""MQGET served from the read-ahead buffer over bindings: non-persistent messages are sent
ahead of the application's gets (the queue empties before the application has got them),
in the queue's order; persistent ones never are."""

from __future__ import annotations

import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from tests.read_ahead.conftest import NP, RA, P, depth, drain, fill


def test_non_persistent_messages_are_sent_ahead_and_got_in_order(qm):
    """Given 20 non-persistent messages and a handle opened with MQOO_READ_AHEAD, when the
    application gets the first, then the queue is already empty (the rest were streamed
    to its buffer), and its next gets return the other 19 in order, then 2033."""
    bodies = [b"m%02d" % i for i in range(20)]
    fill(qm, "RA.ORDER", bodies)
    q = mqpy.Queue(qm, "RA.ORDER", RA)
    got = [q.get(None)]
    assert depth(qm, "RA.ORDER") == 0
    got += [q.get(None) for _ in range(19)]
    assert got == bodies
    with pytest.raises(mqpy.MQMIError) as e:
        q.get(None)
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    q.close()


def test_persistent_messages_are_never_read_ahead(qm):
    """Given persistent and non-persistent messages mixed, when a read-ahead handle gets
    them one by one, then after every get each persistent message not yet got is still on
    the queue, and all come in the queue's order with their persistence."""
    bodies = [b"n0", b"p1", b"n2", b"n3", b"p4", b"n5", b"p6"]
    kinds = [NP, P, NP, NP, P, NP, P]
    fill(qm, "RA.ORDER", bodies, kinds)
    q = mqpy.Queue(qm, "RA.ORDER", RA)
    got = []
    for i in range(len(bodies)):
        md = mqpy.MD()
        got.append((q.get(None, md), md.Persistence))
        assert depth(qm, "RA.ORDER") >= sum(1 for k in kinds[i + 1:] if k == P)
    assert got == list(zip(bodies, kinds, strict=True))
    q.close()


def test_the_mqmd_and_resolved_queue_name_come_with_a_buffered_message(qm):
    """Given messages with a CorrelId and Format, when got through read ahead, then the
    MQMD and MQGMO are filled as a plain MQGET fills them."""
    out = mqpy.Queue(qm, "RA.ORDER", CMQC.MQOO_OUTPUT)
    for i in range(3):
        out.put(b"x%d" % i, mqpy.MD(CorrelId=b"C%d" % i, Format=b"MQSTR", Persistence=NP))
    q = mqpy.Queue(qm, "RA.ORDER", RA)
    for i in range(3):
        md, gmo = mqpy.MD(), mqpy.GMO()
        assert q.get(None, md, gmo) == b"x%d" % i
        assert md.CorrelId.rstrip(b"\0") == b"C%d" % i and md.Format.strip() == b"MQSTR"
        assert gmo.ResolvedQName.strip() == b"RA.ORDER" and gmo.ReturnedLength == 2
    q.close()


def test_a_later_get_by_msgid_takes_its_message_from_the_buffer(qm):
    """Given five streamed messages, when a later get selects the fourth by MsgId, then it
    gets that one, and the plain gets after it get the others in order."""
    out = mqpy.Queue(qm, "RA.ORDER", CMQC.MQOO_OUTPUT)
    ids = []
    for i in range(5):
        md = mqpy.MD(Persistence=NP)
        out.put(b"s%d" % i, md)
        ids.append(md.MsgId)
    q = mqpy.Queue(qm, "RA.ORDER", RA)
    assert q.get(None) == b"s0"
    assert depth(qm, "RA.ORDER") == 0
    assert q.get(None, mqpy.MD(MsgId=ids[3])) == b"s3"
    assert [q.get(None) for _ in range(3)] == [b"s1", b"s2", b"s4"]
    q.close()


def test_a_message_too_long_for_the_buffer_given_stays_until_got_whole(qm):
    """Given a streamed message of 100 bytes, when a get offers 10 bytes without
    MQGMO_ACCEPT_TRUNCATED_MSG, then it is MQRC_TRUNCATED_MSG_FAILED (2080) and the next get
    with room gets it whole."""
    fill(qm, "RA.ORDER", [b"a", b"b" * 100, b"c"])
    q = mqpy.Queue(qm, "RA.ORDER", RA)
    assert q.get(None) == b"a"
    with pytest.raises(mqpy.MQMIError) as e:
        q.get(10)
    assert e.value.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
    assert e.value.original_length == 100
    assert q.get(None) == b"b" * 100
    assert q.get(None) == b"c"
    q.close()


def test_a_waiting_get_is_answered_by_a_message_put_later(qm, running):
    """Given an empty queue and a read-ahead handle, when the application waits with
    MQGMO_WAIT and another connection puts a message 200 ms later, then the get returns
    it; the ones put next come through the buffer."""
    q = mqpy.Queue(qm, "RA.WAIT", RA)

    def later() -> None:
        time.sleep(0.2)
        other = mqpy.QueueManager(None)
        other.connect("QM1", data_path=running.root)
        fill(other, "RA.WAIT", [b"late"])
        other.disconnect()

    t = threading.Thread(target=later)
    t.start()
    wait = CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
    assert q.get(None, mqpy.MD(), mqpy.GMO(Options=wait, WaitInterval=10_000)) == b"late"
    t.join()
    fill(qm, "RA.WAIT", [b"w1", b"w2"])
    got = [q.get(None, mqpy.MD(), mqpy.GMO(Options=wait, WaitInterval=1000)) for _ in range(2)]
    assert got == [b"w1", b"w2"]
    with pytest.raises(mqpy.MQMIError) as e:
        q.get(None, mqpy.MD(), mqpy.GMO(Options=wait, WaitInterval=100))
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    q.close()
    assert drain(qm, "RA.WAIT") == []


def test_asynchronous_puts_and_read_ahead_gets_on_one_connection(qm):
    """Given one bindings connection that puts 200 non-persistent messages asynchronously
    (MQPMO_ASYNC_RESPONSE, replies not waited for) and gets them through read ahead on the
    same connection, putting more while the stream runs, then every message is got once,
    in order, and MQSTAT counts every put (the puts' replies, mixed among the streamed
    flows, were taken for what they are: it hung before)."""
    out = mqpy.Queue(qm, "RA.ORDER", CMQC.MQOO_OUTPUT)
    pmo = mqpy.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NO_SYNCPOINT)
    q = mqpy.Queue(qm, "RA.ORDER", RA)
    bodies = [b"a%03d" % i for i in range(200)]
    got = []
    for i, body in enumerate(bodies):
        out.put(body, mqpy.MD(Persistence=NP), pmo)
        if i % 50 == 49:  # a few gets while puts' replies are still coming
            got += [q.get(None) for _ in range(10)]
    got += [q.get(None) for _ in range(len(bodies) - len(got))]
    assert got == bodies
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    assert (sts.PutSuccessCount, sts.PutFailureCount) == (200, 0)
    out.close()
    q.close()
