"""The disconnect interval ends an idle channel normally; a trigger message starts it again."""

from __future__ import annotations

import trio

from mqpy.channelcommands import INITQ
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, start_chinit
from tests.support.waiting import wait_until


async def test_discint_ends_an_idle_channel_inactive_and_a_trigger_restarts_it(qm1, qm2):
    """Given a triggered xmitq (TRIGTYPE FIRST, INITQ SYSTEM.CHANNEL.INITQ, TRIGDATA the
    channel) and SDR DISCINT(1), when the channel has moved a message and then idles for more
    than a second, then both ends end normally to INACTIVE (not STOPPED); when the next
    message is put on the xmitq, then the trigger message restarts the channel and the
    message is delivered.  spec: dqm-intercommunication 9.34; aliases-channels-storage 4.29"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, DISCINT=1, HBINT=0)
        qm1.engine.alter("QLOCAL", "QM2", {"TRIGGER": "YES", "TRIGTYPE": "FIRST",
                                           "INITQ": INITQ, "TRIGDATA": CHANNEL})
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"first", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        st1 = r1.chinit.status_of(CHANNEL)
        st2 = r2.chinit.status_of(CHANNEL)
        assert st1.state is ChannelState.RUNNING  # it was the trigger that started it
        with trio.fail_after(4):
            await wait_until(lambda: st1.state is ChannelState.INACTIVE
                             and st2.state is ChannelState.INACTIVE)
        assert ChannelState.STOPPED not in st1.history
        assert any(m == "AMQ9001I" for m, _ in qm1.log)  # ended normally
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"second", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 2)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        finish(nursery)
    assert qm2.drain("TARGET") == [b"first", b"second"]


async def test_discint_zero_never_ends_an_idle_channel(qm1, qm2):
    """Given SDR DISCINT(0) and no heartbeats, when the channel idles (more than twice as long
    as DISCINT(1) takes to end it), then it is still RUNNING at both ends.
    spec: dqm-intercommunication 9.35"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, DISCINT=0, HBINT=0)
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        qm1.put("TARGET", b"one", qmgr="QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        await trio.sleep(2.5)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        assert r2.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        finish(nursery)


async def test_blank_trigger_data_starts_the_first_channel_serving_the_xmitq(qm1, qm2):
    """Given a triggered xmitq QM2 with blank TRIGDATA and one sender channel whose XMITQ is
    QM2, when the first message arrives on the empty xmitq, then the channel initiator starts
    that channel and the message is delivered.  spec: dqm-intercommunication 9.49, §4
    (blank channel name)"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        qm1.engine.alter("QLOCAL", "QM2", {"TRIGGER": "YES", "TRIGTYPE": "FIRST",
                                           "INITQ": INITQ, "TRIGDATA": ""})
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"triggered", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1, 5)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        finish(nursery)
