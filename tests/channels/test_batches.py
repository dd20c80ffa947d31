"""Batches: when they end (BATCHSZ, BATCHINT, an empty xmitq), fast non-persistent messages
inside them, and the one batch a sender may have in doubt."""

from __future__ import annotations

import pytest
import trio

import mqpy
from mqpy import CMQC
from mqpy.fap.tsh import SegmentType
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, browse, define_pair, finish, start_chinit
from tests.support.proxy import TapProxy
from tests.support.waiting import wait_until


def put_quickly(qm, items: list[tuple[bytes, bool]]) -> None:
    """Put (data, persistent) messages for TARGET@QM2 back to back on one connection."""
    conn = qm.connect()
    try:
        od = mqpy.OD(ObjectName=b"TARGET", ObjectQMgrName=b"QM2")
        for data, persistent in items:
            conn.put1(od, data, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT if persistent
                                        else CMQC.MQPER_NOT_PERSISTENT))
    finally:
        conn.disconnect()


async def _running(qm1, qm2, nursery, **sdr):
    r2 = await start_chinit(nursery, qm2, listen=True)
    define_pair(qm1, qm2, r2.port, HBINT=0, **sdr)
    r1 = await start_chinit(nursery, qm1)
    r1.chinit.start_channel(CHANNEL)
    st1 = r1.chinit.status_of(CHANNEL)
    await wait_until(lambda: st1.state is ChannelState.RUNNING)
    return r1, r2


async def test_batchint_gathers_three_quick_puts_into_one_batch(qm1, qm2):
    """Given a running idle channel with BATCHINT(100), when three persistent messages are put
    within a few milliseconds, then they cross as one batch: BATCHES +1, MSGS +3.
    spec: aliases-channels-storage 4.32; dqm-intercommunication 9.30"""
    async with trio.open_nursery() as nursery:
        r1, _ = await _running(qm1, qm2, nursery, BATCHINT=100)
        await trio.to_thread.run_sync(put_quickly, qm1, [(b"a", True), (b"b", True),
                                                         (b"c", True)])
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == 3)
        assert (st1.batches, st1.msgs) == (1, 3)
        finish(nursery)


async def test_batchint_holds_a_batch_open_for_the_interval(qm1, qm2):
    """Given BATCHINT(1000) and BATCHSZ(50), when one message is put on an idle channel, then
    its batch is not committed at once but only after about a second of waiting for more.
    spec: dqm-intercommunication 9.30, §2 (BATCHINT)"""
    async with trio.open_nursery() as nursery:
        r1, _ = await _running(qm1, qm2, nursery, BATCHINT=1000)
        t0 = trio.current_time()
        await trio.to_thread.run_sync(put_quickly, qm1, [(b"alone", True)])
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.batches == 1)
        assert 0.9 <= trio.current_time() - t0 <= 2.0
        finish(nursery)


async def test_queued_messages_cross_in_one_batch_when_the_xmitq_empties(qm1, qm2):
    """Given BATCHINT(0), BATCHSZ(50) and three messages already on the xmitq, when the channel
    starts, then one batch of three is committed when the xmitq is empty.
    spec: dqm-intercommunication 9.29"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, BATCHINT=0, BATCHSZ=50)
        put_quickly(qm1, [(b"1", True), (b"2", True), (b"3", True)])
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == 3)
        assert (st1.batches, st1.msgs) == (1, 3)
        finish(nursery)


@pytest.mark.parametrize("batchlim, batches", [(2, 3), (0, 1)])
async def test_batchlim_ends_a_batch_at_the_message_that_reaches_the_limit(qm1, qm2, batchlim,
                                                                           batches):
    """Given BATCHSZ(50) and six messages of 900 bytes already on the xmitq (each about 1.3 KB
    with its transmission header), when the channel starts, then with BATCHLIM(2) (2 KB) every
    batch ends with the message that reached the limit, three batches of two, and with
    BATCHLIM(0) (IBM: no limit) they cross as one batch. (BATCHLIM is not in the seeds: IBM's
    channel attribute reference.)"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, BATCHINT=0, BATCHSZ=50, BATCHLIM=batchlim)
        put_quickly(qm1, [(bytes([65 + i]) * 900, True) for i in range(6)])
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == 6)
        assert (st1.batches, st1.msgs) == (batches, 6)
        finish(nursery)
    assert [m[:1] for m in qm2.drain("TARGET")] == [b"A", b"B", b"C", b"D", b"E", b"F"]


async def test_fast_nonpersistent_is_visible_before_the_batch_commits(qm1, qm2):
    """Given NPMSPEED(FAST) at both ends and BATCHINT(1500) holding the batch open, when a
    persistent, a non-persistent and a persistent message are sent, then while the batch is
    still open the non-persistent one is already visible on the target and the persistent one
    before it is not; after the batch commits all three are there.
    spec: dqm-intercommunication 9.47, §3 (fast NP); aliases-channels-storage 4.33"""
    async with trio.open_nursery() as nursery:
        r1, r2 = await _running(qm1, qm2, nursery, BATCHINT=1500, NPMSPEED="FAST",
                                rcvr={"NPMSPEED": "FAST"})
        await trio.to_thread.run_sync(put_quickly, qm1, [(b"P1", True), (b"N1", False),
                                                         (b"P2", True)])
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: browse(qm2, "TARGET") == [b"N1"], 1.0)
        assert st1.batches == 0 and r2.chinit.status_of(CHANNEL).cur_seqno == 2
        await wait_until(lambda: st1.batches == 1)
        assert sorted(browse(qm2, "TARGET")) == [b"N1", b"P1", b"P2"]
        finish(nursery)


async def test_nonpersistent_messages_count_toward_the_batch_size(qm1, qm2):
    """Given NPMSPEED(FAST) and BATCHSZ(2), when four non-persistent messages are sent, then
    they cross in two batches of two.  spec: dqm-intercommunication 9.47, §2 (BATCHSZ)"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, BATCHSZ=2, NPMSPEED="FAST", rcvr={"NPMSPEED": "FAST"})
        put_quickly(qm1, [(b"n%d" % i, False) for i in range(4)])
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == 4)
        assert (st1.batches, st1.msgs, st1.full_batches) == (2, 4, 2)
        finish(nursery)


async def test_at_most_one_batch_is_ever_in_doubt_and_never_at_the_receiver(qm1, qm2):
    """Given a slow link (each confirmation held 40 ms) and 60 messages crossing in batches of
    5, when the in-doubt state of both queue managers is sampled throughout, then the sender
    is seen in doubt, never with more than one batch for the channel, and the receiver never
    has an in-doubt unit of work nor reports INDOUBT.
    spec: dqm-intercommunication 9.33, §3 (in doubt); operations-dlq-clusters 5"""
    from mqpy import syncrecord

    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        proxy = TapProxy(r2.port)
        proxy.delays[("r2s", SegmentType.STATUS_DATA)] = 0.04
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port, BATCHSZ=5, HBINT=0)
        put_quickly(qm1, [(b"m%02d" % i, True) for i in range(60)])
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        most, seen_indoubt, receiver_indoubt = 0, 0, False
        with trio.fail_after(15):
            while st1.last_seqno < 60:
                mine = [k for k in qm1.engine.indoubt()
                        if getattr(syncrecord.parse_prepare_key(k), "channel", "") == CHANNEL]
                most = max(most, len(mine))
                seen_indoubt += bool(mine and st1.indoubt)
                st2 = r2.chinit.status_of(CHANNEL)
                receiver_indoubt |= bool(qm2.engine.indoubt()) or bool(st2 and st2.indoubt)
                await trio.sleep(0.005)
        assert most == 1 and seen_indoubt > 0
        assert not receiver_indoubt
        finish(nursery)
