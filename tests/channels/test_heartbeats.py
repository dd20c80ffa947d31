"""Heartbeats on an idle channel, and the receive timeout that ends a silent one."""

from __future__ import annotations

import time

import trio

from mqpy.fap.tsh import SegmentType
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, start_chinit
from tests.support.proxy import FaultProxy, TapProxy
from tests.support.waiting import wait_until

HEARTBEAT = SegmentType.HEARTBEAT


def heartbeat_counter():
    """A FaultProxy policy that lets everything pass and notes when each sender heartbeat
    crossed."""
    seen: list[float] = []

    def policy(direction, seg_type, index):
        if direction == "s2r" and seg_type == HEARTBEAT:
            seen.append(time.monotonic())
        return "pass"
    return policy, seen


async def test_an_idle_channel_sends_a_heartbeat_about_every_hbint(qm1, qm2):
    """Given a running channel with HBINT(1) at both ends and an empty xmitq, when it stays
    idle for 3 seconds, then heartbeats flow from the sender about once a second (2 to 4 of
    them, never two closer than HBINT) and NETTIME is measured from their round trip.
    spec: dqm-intercommunication 9.36; aliases-channels-storage 4.11"""
    policy, seen = heartbeat_counter()
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        proxy = FaultProxy(r2.port, policy)
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port, HBINT=1, DISCINT=0, rcvr={"HBINT": 1})
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st.state is ChannelState.RUNNING)
        t0 = time.monotonic()
        await trio.sleep(3.0)
        beats = [t for t in seen if t >= t0]
        assert 2 <= len(beats) <= 4, beats
        assert all(b - a >= 0.9 for a, b in zip(beats, beats[1:], strict=False)), beats
        assert st.state is ChannelState.RUNNING and st.net_time_us > 0
        assert r2.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        finish(nursery)


async def test_no_heartbeat_while_messages_keep_flowing(qm1, qm2):
    """Given HBINT(1) and a message put every 0.3 s for 2 s, then no heartbeat flows: a
    heartbeat is sent only after HBINT with no other activity.
    spec: aliases-channels-storage 4.11"""
    policy, seen = heartbeat_counter()
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        proxy = FaultProxy(r2.port, policy)
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port, HBINT=1, DISCINT=0, rcvr={"HBINT": 1})
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st.state is ChannelState.RUNNING)
        seen.clear()
        for _ in range(7):
            await trio.to_thread.run_sync(qm1.put, "TARGET", b"tick", "QM2")
            await trio.sleep(0.3)
        await wait_until(lambda: qm2.committed("TARGET") == 7)
        assert seen == []
        finish(nursery)


async def test_receiver_ends_after_twice_hbint_of_silence(qm1, qm2):
    """Given a running channel with a negotiated HBINT of 1 s, when the sender's traffic stops
    reaching the receiver (the socket stays open), then the receiving MCA ends the channel
    with a receive timeout (AMQ9259) about 2 x HBINT after the last thing it received: not
    sooner, and not much later.
    spec: aliases-channels-storage 4.12; dqm-intercommunication 9.36;
    operations-dlq-clusters 7.15"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        proxy = TapProxy(r2.port)
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port, HBINT=1, DISCINT=0, SHORTTMR=30,
                    rcvr={"HBINT": 1})
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: (s := r2.chinit.status_of(CHANNEL)) is not None
                         and s.state is ChannelState.RUNNING)
        rst = r2.chinit.status_of(CHANNEL)
        await trio.sleep(1.2)  # at least one heartbeat has crossed
        proxy.silent = True
        await wait_until(lambda: rst.state is ChannelState.INACTIVE, 10)
        ended = time.monotonic()
        last_heard = max(s.at for s in proxy.segments if s.direction == "s2r" and s.forwarded)
        assert 1.9 <= ended - last_heard <= 3.0, ended - last_heard
        await wait_until(lambda: any(m.startswith("AMQ9259") for m, _ in qm2.log), 2)
        finish(nursery)

