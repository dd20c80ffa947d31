"""The channel initiator's trio connection to a strmqm'd queue manager (mqpy_chinit.qmconn).

Every MQI call of a SVRCONN conversation in a deployed channel initiator goes through it, so it
must keep the bindings connection's semantics: the same verbs and reasons, waits in the queue
manager, and a unit of work backed out when the connection is cut off half-way.
"""

from __future__ import annotations

import os
import time

import pytest
import trio

import mqpy
from mqpy import CMQC
from mqpy.fap import asyncflows, mqiflows
from mqpy.fap.tsh import SegmentType
from mqpy_chinit import qmconn
from tests.support.installation import QM

IN, OUT, INQ = CMQC.MQOO_INPUT_AS_Q_DEF, CMQC.MQOO_OUTPUT, CMQC.MQOO_INQUIRE


def _run(fn, *args):
    return trio.run(fn, *args)


def _depth(name: str) -> int:
    qm = mqpy.QueueManager(QM)
    try:
        return mqpy.Queue(qm, name, INQ).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        qm.disconnect()


def test_the_verbs_work_through_the_trio_connection(running):
    """Given a running queue manager, when the trio connection opens, puts persistent and
    non-persistent messages, commits, browses and gets them and inquires, then every call
    answers as over the blocking bindings connection."""

    async def main():
        conn = await qmconn.connect(QM, running.root)
        hobj = await conn.open(mqpy.OD(ObjectName="Q1"), IN | OUT | INQ)
        md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
        await conn.put(hobj, md, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), b"one")
        assert md.MsgId != CMQC.MQMI_NONE  # the queue manager's MsgId came back
        await conn.put(hobj, mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"two")
        assert await conn.inquire(hobj, CMQC.MQIA_CURRENT_Q_DEPTH) == 2  # one uncommitted
        await conn.commit()
        got = mqpy.MD()
        first = await conn.get(hobj, got, mqpy.GMO(), None)
        second = await conn.get(hobj, mqpy.MD(), mqpy.GMO(), None)
        with pytest.raises(mqpy.MQMIError) as e:
            await conn.get(hobj, mqpy.MD(), mqpy.GMO(), None)
        assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        assert (await conn.inquire_qmgr(CMQC.MQCA_Q_MGR_NAME)).strip() == QM.encode()
        await conn.close(hobj)
        await conn.disconnect()
        return first, second, got.MsgId == md.MsgId

    assert _run(main) == (b"one", b"two", True)


def test_a_waiting_get_waits_in_the_queue_manager_and_is_woken_by_a_put(running):
    """Given a trio connection waiting in MQGET with MQGMO_WAIT, when another application puts,
    then the get returns that message well before its wait interval."""

    async def main():
        conn = await qmconn.connect(QM, running.root)
        hobj = await conn.open(mqpy.OD(ObjectName="WAITQ"), IN)

        def put_later():
            qm = mqpy.QueueManager(QM)
            mqpy.Queue(qm, "WAITQ", OUT).put(b"woken")
            qm.disconnect()

        async with trio.open_nursery() as nursery:
            async def putter():
                await trio.sleep(0.3)
                await trio.to_thread.run_sync(put_later)
            nursery.start_soon(putter)
            with trio.fail_after(30):
                data = await conn.get(hobj, mqpy.MD(), mqpy.GMO(
                    Options=CMQC.MQGMO_WAIT, WaitInterval=60_000), None)
        await conn.disconnect()
        return data

    assert _run(main) == b"woken"


def test_a_call_cut_off_half_way_drops_the_connection_and_backs_its_work_out(running):
    """Given a trio connection with an uncommitted put, when a waiting MQGET is cancelled (its
    client went), then the connection is dropped (later calls fail 2009) and the queue manager
    backs the put out: it never becomes visible."""

    async def main():
        conn = await qmconn.connect(QM, running.root)
        out = await conn.open(mqpy.OD(ObjectName="Q2"), OUT)
        await conn.put(out, mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), b"in flight")
        wait = await conn.open(mqpy.OD(ObjectName="Q3"), IN)
        with trio.move_on_after(0.3):
            await conn.get(wait, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT,
                                                      WaitInterval=60_000), None)
        with pytest.raises(mqpy.MQMIError) as e:
            await conn.commit()
        return e.value.reason

    assert _run(main) == CMQC.MQRC_CONNECTION_BROKEN
    for _ in range(200):  # the daemon notices the closed socket at once, but asynchronously
        if _depth("Q2") == 0:
            break
        time.sleep(0.05)
    assert _depth("Q2") == 0


def test_nobody_listening_is_q_mgr_not_available(install):
    """Given a queue manager that exists but is not running, when the trio connection
    connects, then it fails MQRC_Q_MGR_NOT_AVAILABLE (2059)."""
    install.create(queues=())

    async def main():
        await qmconn.connect(QM, install.root)

    with pytest.raises(mqpy.MQMIError) as e:
        _run(main)
    assert e.value.reason == CMQC.MQRC_Q_MGR_NOT_AVAILABLE
    assert not os.path.exists(os.path.join(install.qmdir(), "qm.sock"))


def test_a_request_for_messages_gets_them_streamed_then_the_notification(running):
    """Given two non-persistent messages on Q4, opened by the trio connection with
    MQOO_READ_AHEAD, when it requests messages (REQUEST_MSGS, as a SVRCONN relays a client's),
    then the answer is an ASYNC_MESSAGE for each, in order, and the NOTIFICATION that ends the
    stream (CLIENT_ASYNC_EMPTY); the connection's next call is answered as usual."""

    async def main():
        conn = await qmconn.connect(QM, running.root)
        out = await conn.open(mqpy.OD(ObjectName="Q4"), OUT)
        for body in (b"one", b"two"):
            await conn.put(out, mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT),
                           mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), body)
        hobj = await conn.open(mqpy.OD(ObjectName="Q4"), IN | INQ | CMQC.MQOO_READ_AHEAD)
        segments = await conn.request_msgs(asyncflows.message_request(asyncflows.MessageRequest(
            hobj=hobj, window=1 << 20, options=CMQC.MQGMO_NO_SYNCPOINT, wait_interval=0)))
        depth = await conn.inquire(hobj, CMQC.MQIA_CURRENT_Q_DEPTH)
        await conn.disconnect()
        return segments, depth

    segments, depth = _run(main)
    assert [s.segment_type for s in segments] == [SegmentType.ASYNC_MESSAGE] * 2 + [
        SegmentType.NOTIFICATION]
    bodies = []
    for s in segments[:2]:
        at = asyncflows.md_offset(s.body)
        md_length = mqiflows.size_at(s.body, at, mqiflows.MD_SIZES)
        bodies.append(asyncflows.parse_async_message(s.body, md_length).data)
    assert bodies == [b"one", b"two"]
    assert asyncflows.parse_notification(segments[2].body).code == \
        asyncflows.Notice.CLIENT_ASYNC_EMPTY
    assert depth == 0
