"""Retrying an unreachable partner, STOPPED after the retries, and STOP CHANNEL's modes."""

from __future__ import annotations

import time

import trio

import mqpy
from mqpy import CMQC
from mqpy.channelcommands import INITQ
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, browse, define_pair, finish, mqsc, start_chinit
from tests.support.ports import free_port
from tests.support.waiting import wait_until


async def watch(status, seen: list, stop: trio.Event) -> None:
    """Note every distinct (state, SHORTRTS, LONGRTS) the channel shows."""
    while not stop.is_set():
        now = (status.state, status.short_retries_left, status.long_retries_left)
        if not seen or seen[-1] != now:
            seen.append(now)
        await trio.sleep(0.01)


async def test_unreachable_partner_retries_short_then_long_then_stops(qm1, qm2):
    """Given SDR SHORTRTY(2) SHORTTMR(1) LONGRTY(2) LONGTMR(1) on a triggered xmitq and no
    listener at its CONNAME, when a message triggers the channel, then it is RETRYING with
    SHORTRTS counting 1, 0 and then LONGRTS counting 1, 0, a second apart; after the last
    retry it is STOPPED, its xmitq GET(DISABLED) and NOTRIGGER, and a new message does not
    start it again.
    spec: dqm-intercommunication 9.37; dqm-intercommunication 9.38; aliases-channels-storage 4.23;
    operations-dlq-clusters 7.9; operations-dlq-clusters 7.20"""
    port = free_port()
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, port, SHORTRTY=2, SHORTTMR=1, LONGRTY=2, LONGTMR=1)
        qm1.engine.alter("QLOCAL", "QM2", {"TRIGGER": "YES", "TRIGTYPE": "FIRST",
                                           "INITQ": INITQ, "TRIGDATA": CHANNEL})
        r1 = await start_chinit(nursery, qm1)
        t0 = time.monotonic()
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"waiting", "QM2")
        await wait_until(lambda: r1.chinit.status_of(CHANNEL) is not None)
        st = r1.chinit.status_of(CHANNEL)
        seen: list = []
        done = trio.Event()
        nursery.start_soon(watch, st, seen, done)
        await wait_until(lambda: st.state is ChannelState.STOPPED, 10)
        elapsed = time.monotonic() - t0
        done.set()
        retrying = [(short, long_) for state, short, long_ in seen
                    if state is ChannelState.RETRYING]
        assert retrying == [(1, 2), (0, 2), (0, 1), (0, 0)], seen
        assert 3.5 <= elapsed <= 7.0, elapsed  # four waits of one second
        xq = qm1.engine.lookup("QLOCAL", "QM2").attributes
        assert xq["GET"] == "DISABLED" and xq["TRIGGER"] == "NO"
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"also waiting", "QM2")
        await trio.sleep(0.7)
        assert st.state is ChannelState.STOPPED and qm1.depth("QM2") == 2
        finish(nursery)


async def test_start_channel_after_an_error_stop_reenables_the_xmitq(qm1, qm2):
    """Given a triggered xmitq whose channel went STOPPED after its retries ran out (xmitq
    GET(DISABLED), NOTRIGGER), when the partner is back and START CHANNEL is issued, then the
    xmitq is GET(ENABLED) with TRIGGER again and the waiting message is delivered.
    spec: dqm-intercommunication 9.38; operations-dlq-clusters 7.10; operations-dlq-clusters 5
    (START CHANNEL resets GET and triggering)"""
    port = free_port()
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, port, SHORTRTY=0, LONGRTY=0)
        qm1.engine.alter("QLOCAL", "QM2", {"TRIGGER": "YES", "TRIGTYPE": "FIRST",
                                           "INITQ": INITQ, "TRIGDATA": CHANNEL})
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"waiting", "QM2")
        await wait_until(lambda: (s := r1.chinit.status_of(CHANNEL)) is not None
                         and s.state is ChannelState.STOPPED)
        xq = qm1.engine.lookup("QLOCAL", "QM2").attributes
        assert xq["GET"] == "DISABLED" and xq["TRIGGER"] == "NO"
        await start_chinit(nursery, qm2, listen=True, port=port)
        result = await mqsc(qm1, f"START CHANNEL({CHANNEL})")
        assert result.ok, result.lines
        await wait_until(lambda: r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING)
        xq = qm1.engine.lookup("QLOCAL", "QM2").attributes
        assert xq["GET"] == "ENABLED" and xq["TRIGGER"] == "YES"
        await wait_until(lambda: qm2.committed("TARGET") == 1, 3)
        finish(nursery)


async def test_partner_recovering_during_retry_gets_the_backlog(qm1, qm2):
    """Given 20 messages queued for a partner that is down and SDR SHORTRTY(10) SHORTTMR(1),
    when the channel is RETRYING and the partner's listener comes up, then the channel
    reaches RUNNING at the next retry and delivers the backlog in order, once.
    spec: aliases-channels-storage 4.24; operations-dlq-clusters 5 (error clears)"""
    port = free_port()
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, port, SHORTRTY=10, SHORTTMR=1)
        for i in range(20):
            qm1.put("TARGET", b"backlog %02d" % i, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st.state is ChannelState.RETRYING)
        await start_chinit(nursery, qm2, listen=True, port=port)
        await wait_until(lambda: qm2.committed("TARGET") == 20 and qm1.depth("QM2") == 0, 5)
        assert st.state is ChannelState.RUNNING
        assert qm1.engine.lookup("QLOCAL", "QM2").attributes["GET"] == "ENABLED"
        finish(nursery)
    assert qm2.drain("TARGET") == [b"backlog %02d" % i for i in range(20)]


async def _batch_in_flight(qm1, qm2, nursery, batchint_ms: int):
    """A running channel whose batch of three is open (held by BATCHINT): two messages have
    reached the receiver, uncommitted."""
    r2 = await start_chinit(nursery, qm2, listen=True)
    define_pair(qm1, qm2, r2.port, BATCHINT=batchint_ms, HBINT=0)
    r1 = await start_chinit(nursery, qm1)
    r1.chinit.start_channel(CHANNEL)
    st1 = r1.chinit.status_of(CHANNEL)
    await wait_until(lambda: st1.state is ChannelState.RUNNING)
    conn = await trio.to_thread.run_sync(qm1.connect)
    for i in range(3):
        await trio.to_thread.run_sync(
            conn.put1, mqpy.OD(ObjectName=b"TARGET", ObjectQMgrName=b"QM2"), b"b%d" % i,
            mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    conn.disconnect()
    st2 = r2.chinit.status_of(CHANNEL)
    await wait_until(lambda: st2.cur_seqno >= 2)
    assert st1.batches == 0  # the batch is still open
    return r1, r2


async def test_stop_quiesce_finishes_the_batch_then_stops(qm1, qm2):
    """Given a batch of three in flight (BATCHINT holds it open), when STOP CHANNEL
    MODE(QUIESCE) is issued, then the batch completes (all three committed on the target, the
    xmitq empty, nothing in doubt) and the channel is STOPPED.
    spec: dqm-intercommunication 9.39"""
    async with trio.open_nursery() as nursery:
        r1, _ = await _batch_in_flight(qm1, qm2, nursery, 1500)
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) MODE(QUIESCE)")
        assert result.ok, result.lines
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED, 5)
        assert st1.batches == 1 and st1.msgs == 3 and not st1.indoubt
        assert qm1.depth("QM2") == 0 and not qm1.engine.indoubt()
        finish(nursery)
    assert qm2.drain("TARGET") == [b"b0", b"b1", b"b2"]


async def test_stop_force_stops_at_once(qm1, qm2):
    """Given a batch in flight held open by BATCHINT(2000), when STOP CHANNEL MODE(FORCE) is
    issued, then the channel is STOPPED within a second, without waiting for the batch.
    spec: dqm-intercommunication 9.39"""
    async with trio.open_nursery() as nursery:
        r1, _ = await _batch_in_flight(qm1, qm2, nursery, 2000)
        t0 = time.monotonic()
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) MODE(FORCE)")
        assert result.ok, result.lines
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED, 5)
        forced_in = time.monotonic() - t0
        finish(nursery)
    assert forced_in < 1.0, forced_in


async def test_stop_force_leaves_the_batch_on_the_xmitq_to_be_sent_again(qm1, qm2):
    """Given a batch of three in flight held open by BATCHINT, when STOP CHANNEL MODE(FORCE)
    is issued, then the channel is STOPPED before the batch completes, none of it is
    committed at the receiver, the three messages are back on the xmitq, nothing is in
    doubt, and START CHANNEL then delivers them once, in order.
    spec: dqm-intercommunication 9.39"""
    async with trio.open_nursery() as nursery:
        r1, _ = await _batch_in_flight(qm1, qm2, nursery, 1500)
        result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL}) MODE(FORCE)")
        assert result.ok, result.lines
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED, 5)
        assert st1.batches == 0
        await wait_until(lambda: qm1.depth("QM2") == 3)
        assert browse(qm2, "TARGET") == [] and not qm1.engine.indoubt()
        qm1.engine.alter("CHANNEL", CHANNEL, {"BATCHINT": 0})
        result = await mqsc(qm1, f"START CHANNEL({CHANNEL})")
        assert result.ok, result.lines
        await wait_until(lambda: qm2.committed("TARGET") == 3 and qm1.depth("QM2") == 0)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"b0", b"b1", b"b2"]
