"""The conditions under which a channel is triggered, as IBM's Intercommunication book lists
them: the xmitq names the channel initiation queue with triggering on, the initiation queue
exists and a channel initiator serves it, the channel is named by the trigger data (or a
process definition's UserData), and a blank name means the first channel serving the xmitq."""

from __future__ import annotations

import trio

from mqpy.channelcommands import INITQ
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, start_chinit
from tests.support.waiting import wait_until


def _trigger(qm1, **attributes: object) -> None:
    qm1.engine.alter("QLOCAL", "QM2", {"TRIGGER": "YES", "TRIGTYPE": "FIRST", **attributes})


async def test_given_the_xmitq_names_the_channel_initq_when_a_message_arrives_then_started(
        qm1, qm2):
    """Given an xmitq with TRIGGER INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(channel), then a put
    starts the channel; given the same xmitq naming another initiation queue, then the
    channel initiator does not start it.

    spec: dqm-intercommunication 4 item 1"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        qm1.define("QLOCAL", "OTHER.INITQ")
        _trigger(qm1, INITQ="OTHER.INITQ", TRIGDATA=CHANNEL)
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"not for the chinit", "QM2")
        await trio.sleep(1.0)
        assert qm2.committed("TARGET") == 0
        qm1.drain("QM2")
        _trigger(qm1, INITQ=INITQ, TRIGDATA=CHANNEL)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"triggered", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1, 5)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        finish(nursery)


async def test_given_no_channel_initiator_when_triggered_then_it_starts_once_one_runs(
        qm1, qm2):
    """Given a triggered xmitq and no channel initiator on QM1, when a message arrives, then
    nothing moves (IBM makes no trigger message while no one has the initiation queue open);
    when the channel initiator starts and opens SYSTEM.CHANNEL.INITQ, then the trigger
    conditions are met again, it starts the channel and the message is delivered.

    spec: dqm-intercommunication 4 item 2"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        _trigger(qm1, INITQ=INITQ, TRIGDATA=CHANNEL)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"waits for the chinit", "QM2")
        await trio.sleep(0.5)
        assert qm2.committed("TARGET") == 0
        await start_chinit(nursery, qm1)
        await wait_until(lambda: qm2.committed("TARGET") == 1, 5)
        finish(nursery)


async def test_given_two_channels_on_one_xmitq_then_trigger_data_names_the_one_started(
        qm1, qm2):
    """Given two senders serving xmitq QM2 and TRIGDATA naming the second, then the trigger
    starts the second and not the first.

    spec: dqm-intercommunication 4 item 3"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        second = "QM1.TO.QM2.Z"
        qm1.define("CHANNEL", second, CHLTYPE="SDR", CONNAME=f"127.0.0.1({r2.port})",
                   XMITQ="QM2", HBINT=0)
        qm2.define("CHANNEL", second, CHLTYPE="RCVR")
        _trigger(qm1, INITQ=INITQ, TRIGDATA=second)
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"by name", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1, 5)
        assert r1.chinit.status_of(second).state is ChannelState.RUNNING
        assert r1.chinit.status_of(CHANNEL) is None
        finish(nursery)


async def test_given_blank_trigger_data_then_the_first_sender_of_that_xmitq_starts(qm1, qm2):
    """Given blank TRIGDATA and a sender whose name sorts first but serves another xmitq, then
    the channel started is the one whose XMITQ is the triggered queue.

    spec: dqm-intercommunication 4 item 4"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        qm1.define("QLOCAL", "ELSEWHERE", USAGE="XMITQ")
        qm1.define("CHANNEL", "A.FIRST.BY.NAME", CHLTYPE="SDR", CONNAME="127.0.0.1(1)",
                   XMITQ="ELSEWHERE")
        _trigger(qm1, INITQ=INITQ, TRIGDATA="")
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"first serving", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1, 5)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        assert r1.chinit.status_of("A.FIRST.BY.NAME") is None
        finish(nursery)
