"""An in-doubt sender resolved by hand (RESOLVE CHANNEL), and in doubt with the wrong partner."""

from __future__ import annotations

import trio

from mqpy import syncrecord
from mqpy.fap.tsh import SegmentType
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import (
    CHANNEL,
    browse,
    chstatus,
    define_pair,
    finish,
    mqsc,
    start_chinit,
)
from tests.support.proxy import FaultProxy, nth_message, once
from tests.support.waiting import wait_until

BATCH = 5


def indoubt_keys(qm) -> list[bytes]:
    return [k for k in qm.engine.indoubt()
            if getattr(syncrecord.parse_prepare_key(k), "channel", "") == CHANNEL]


async def _left_in_doubt(qm1, qm2, nursery, policy):
    """A batch of five whose link is cut by ``policy`` around the confirmation; the sender's
    channel initiator is stopped while it waits to retry, leaving the batch in doubt. Returns
    the receiver's chinit and (sender CHSTATUS, receiver CHSTATUS) as DISPLAY CHSTATUS showed
    them at that moment."""
    r2 = await start_chinit(nursery, qm2, listen=True)
    proxy = FaultProxy(r2.port, policy)
    await nursery.start(proxy.run)
    define_pair(qm1, qm2, proxy.port, BATCHSZ=BATCH, SHORTTMR=30, HBINT=0)
    for i in range(BATCH):
        qm1.put("TARGET", b"m%d" % i, qmgr="QM2")
    r1 = await start_chinit(nursery, qm1)
    r1.chinit.start_channel(CHANNEL)
    st1 = r1.chinit.status_of(CHANNEL)
    await wait_until(lambda: st1.state is ChannelState.RETRYING)
    sender = chstatus((await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL}) SAVED ALL")).lines)
    receiver = chstatus((await mqsc(qm2, f"DISPLAY CHSTATUS({CHANNEL}) SAVED ALL")).lines)
    await r1.stop()
    assert len(indoubt_keys(qm1)) == 1
    return r2, sender, receiver


async def test_resolve_commit_when_the_receiver_has_the_batch(qm1, qm2):
    """Given a sender left in doubt after the receiver committed the batch (the confirmation
    was lost), when the operator compares DISPLAY CHSTATUS SAVED CURLUWID at the sender with
    LSTLUWID at the receiver, finds them equal and issues RESOLVE CHANNEL ACTION(COMMIT),
    then the in-doubt messages leave the xmitq, and after a restart the channel carries on in
    step: every message once.
    spec: dqm-intercommunication 9.32, §3 (manual procedure); aliases-channels-storage 4.17;
    operations-dlq-clusters 7.16"""
    async with trio.open_nursery() as nursery:
        _, sender, receiver = await _left_in_doubt(
            qm1, qm2, nursery, once("r2s", SegmentType.STATUS_DATA, "drop-and-cut"))
        assert sender["INDOUBT"] == "YES"
        assert sender["CURLUWID"] == receiver["LSTLUWID"] != "0" * 16
        result = await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
        assert result.ok and "AMQ8096I" in result.lines[0], result.lines
        assert indoubt_keys(qm1) == [] and qm1.depth("QM2") == 0
        assert qm1.engine.lookup("QLOCAL", "QM2").attributes["GET"] == "ENABLED"
        qm1.put("TARGET", b"after", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == BATCH + 1 and qm1.depth("QM2") == 0)
        assert r1.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        finish(nursery)
    assert qm2.drain("TARGET") == [b"m%d" % i for i in range(BATCH)] + [b"after"]


async def test_resolve_backout_when_the_receiver_never_had_the_batch(qm1, qm2):
    """Given a sender left in doubt after its confirm request was lost (the receiver backed the
    batch out), when the LUWIDs differ and RESOLVE CHANNEL ACTION(BACKOUT) is issued, then the
    messages are back on the xmitq, and after a restart they are sent again: every message
    once, in order.  spec: dqm-intercommunication 9.32; aliases-channels-storage 4.17;
    operations-dlq-clusters 7.16"""
    async with trio.open_nursery() as nursery:
        _, sender, receiver = await _left_in_doubt(qm1, qm2, nursery, nth_message(BATCH))
        assert sender["INDOUBT"] == "YES"
        assert sender["CURLUWID"] != receiver.get("LSTLUWID")
        assert browse(qm2, "TARGET") == []
        result = await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(BACKOUT)")
        assert result.ok, result.lines
        assert indoubt_keys(qm1) == []
        assert len(browse(qm1, "QM2")) == BATCH
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == BATCH and qm1.depth("QM2") == 0)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"m%d" % i for i in range(BATCH)]


async def test_resolve_with_nothing_in_doubt_is_refused(qm1, qm2):
    """Given a channel with no in-doubt batch, when RESOLVE CHANNEL ACTION(COMMIT) is issued,
    then the command fails and changes nothing.  spec: dqm-intercommunication 9.32"""
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    qm1.define("CHANNEL", CHANNEL, CHLTYPE="SDR", CONNAME="127.0.0.1(1)", XMITQ="QM2")
    qm1.put("TARGET", b"stays", qmgr="QM2")
    result = await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
    assert not result.ok
    assert qm1.depth("QM2") == 1


async def test_in_doubt_with_a_different_queue_manager_ends_the_channel(make_qmgr):
    """Given a sender in doubt with QM2, when its CONNAME is changed to reach QM3 (which has a
    receiver of the same name) and it starts, then it ends at once (STOPPED, no retry) with
    the batch still in doubt and nothing delivered to QM3; RESOLVE CHANNEL ACTION(BACKOUT)
    then puts the messages back on the xmitq.  spec: aliases-channels-storage 4.17; aliases-channels-storage 2.9"""
    qm1, qm2, qm3 = make_qmgr("QM1"), make_qmgr("QM2"), make_qmgr("QM3")
    async with trio.open_nursery() as nursery:
        await _left_in_doubt(qm1, qm2, nursery,
                             once("r2s", SegmentType.STATUS_DATA, "drop-and-cut"))
        r3 = await start_chinit(nursery, qm3, listen=True)
        qm3.define("CHANNEL", CHANNEL, CHLTYPE="RCVR")
        qm3.define("QLOCAL", "TARGET")
        qm1.engine.alter("CHANNEL", CHANNEL, {"CONNAME": f"127.0.0.1({r3.port})"})
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        assert ChannelState.RUNNING not in st1.history
        assert ChannelState.RETRYING not in st1.history
        assert len(indoubt_keys(qm1)) == 1
        assert browse(qm3, "TARGET") == []
        result = await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(BACKOUT)")
        assert result.ok, result.lines
        assert len(browse(qm1, "QM2")) == BATCH
        finish(nursery)
