"""What a receiving MCA does with a message it cannot put, in IBM's order: message retry for
transient causes only, then return to sender when the message asks for it, then the dead-letter
queue with any exception report, and only when the DLQ cannot be used, the channel stops."""

from __future__ import annotations

import trio

from mqpy import CMQC
from mqpy_chinit.states import ChannelState
from tests.channels.test_undeliverable import (
    REPORT_FULL_DISCARD,
    _bad_target_ends_the_channel,
    _with_return_route,
    dead_letters,
    get_with_md,
)
from tests.support.channel_pair import CHANNEL, DLQ, define_pair, finish, start_chinit
from tests.support.waiting import wait_until


async def test_given_a_put_inhibited_target_when_it_is_enabled_during_retries_then_delivered(
        qm1, qm2):
    """Given RCVR MRRTY(50) MRTMR(100) and a PUT(DISABLED) target, when a message arrives, then
    the channel is PAUSED retrying; when the operator enables puts, then the message lands on
    the target and nothing on the DLQ. A missing queue, not a transient cause, goes to the DLQ
    at once although retries are set.

    spec: dqm-intercommunication 8 item 1; operations-dlq-clusters 2 item 1"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0, rcvr={"MRRTY": 50, "MRTMR": 100})
        qm2.engine.alter("QLOCAL", "TARGET", {"PUT": "DISABLED"})
        qm1.put("TARGET", b"inhibited for now", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: (s := r2.chinit.status_of(CHANNEL)) is not None
                         and s.state is ChannelState.PAUSED)
        qm2.engine.alter("QLOCAL", "TARGET", {"PUT": "ENABLED"})
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm1.depth("QM2") == 0)
        assert qm2.committed(DLQ) == 0
        qm1.put("NO.SUCH.Q", b"not transient", qmgr="QM2")
        with trio.fail_after(4):  # far less than 50 retries of 100 ms
            await wait_until(lambda: qm2.committed(DLQ) == 1)
        finish(nursery)
    ((dlh, body),) = dead_letters(qm2)
    assert (dlh.Reason, body) == (CMQC.MQRC_UNKNOWN_OBJECT_NAME, b"not transient")


async def _full_target_with_route(qm1, qm2, nursery, **md_fields):
    """QM2's TARGET full (MAXDEPTH 1, one message), the RCVR retrying twice every 100 ms, a
    return route to REPLY on QM1; a message for TARGET with ``md_fields`` is sent."""
    r1, _r2 = await _with_return_route(qm1, qm2, nursery)
    qm2.engine.alter("CHANNEL", CHANNEL, {"MRRTY": 2, "MRTMR": 100})
    qm2.engine.alter("QLOCAL", "TARGET", {"MAXDEPTH": 1})
    qm2.put("TARGET", b"blocker")
    qm1.put("TARGET", b"no room", qmgr="QM2", ReplyToQ=b"REPLY", ReplyToQMgr=b"QM1",
            **md_fields)
    r1.chinit.start_channel(CHANNEL)


async def test_given_retries_fail_and_discard_requested_then_the_message_goes_back(qm1, qm2):
    """Given a full target, message retries that fail, and a message with
    MQRO_EXCEPTION_WITH_FULL_DATA + MQRO_DISCARD_MSG, then the whole message returns to its
    ReplyToQ as an exception report (Feedback 2053) and QM2's DLQ stays empty.

    spec: dqm-intercommunication 8 item 2; operations-dlq-clusters 2 item 2"""
    async with trio.open_nursery() as nursery:
        await _full_target_with_route(qm1, qm2, nursery, Report=REPORT_FULL_DISCARD)
        await wait_until(lambda: qm1.committed("REPLY") == 1)
        assert qm2.committed(DLQ) == 0
        finish(nursery)
    ((md, body),) = get_with_md(qm1, "REPLY")
    assert (md.MsgType, md.Feedback, body) == (CMQC.MQMT_REPORT, CMQC.MQRC_Q_FULL, b"no room")


async def test_given_retries_fail_without_discard_then_dlq_and_an_exception_report(qm1, qm2):
    """Given a full target, message retries that fail, and MQRO_EXCEPTION only, then the message
    is on QM2's DLQ (reason 2053) and an exception report reaches its ReplyToQ.

    spec: dqm-intercommunication 8 item 3; operations-dlq-clusters 2 item 3"""
    async with trio.open_nursery() as nursery:
        await _full_target_with_route(qm1, qm2, nursery, Report=CMQC.MQRO_EXCEPTION)
        await wait_until(lambda: qm2.committed(DLQ) == 1 and qm1.committed("REPLY") == 1)
        finish(nursery)
    ((dlh, body),) = dead_letters(qm2)
    assert (dlh.Reason, body) == (CMQC.MQRC_Q_FULL, b"no room")
    ((md, _),) = get_with_md(qm1, "REPLY")
    assert (md.MsgType, md.Feedback) == (CMQC.MQMT_REPORT, CMQC.MQRC_Q_FULL)


async def test_given_a_dlq_that_cannot_be_used_then_the_channel_stops_keeping_the_batch(
        qm1, qm2):
    """Given QM2's DLQ PUT(DISABLED) and a batch whose second persistent message is for a
    missing queue, then the channel stops, the batch is backed out to QM1's xmitq (both
    messages there, none on TARGET) and nothing is on the DLQ.

    spec: operations-dlq-clusters 2 item 4"""
    qm2.engine.alter("QLOCAL", DLQ, {"PUT": "DISABLED"})
    await _bad_target_ends_the_channel(qm1, qm2)
    assert qm2.committed(DLQ) == 0
