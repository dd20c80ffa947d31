"""Message sequence numbers: both ends must agree, and RESET CHANNEL puts them back in step."""

from __future__ import annotations

import trio

from mqpy.fap.controlflows import Status
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import SegmentType
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, mqsc, start_chinit
from tests.support.proxy import TapProxy
from tests.support.waiting import wait_until


async def _two_moved_then_stopped(qm1, qm2, nursery):
    """A channel that moved two messages (sequence number 2 at both ends), then STOPPED by the
    operator; its traffic goes through a TapProxy."""
    r2 = await start_chinit(nursery, qm2, listen=True)
    proxy = TapProxy(r2.port)
    await nursery.start(proxy.run)
    define_pair(qm1, qm2, proxy.port, SHORTRTY=3, HBINT=0)
    r1 = await start_chinit(nursery, qm1)
    qm1.put("TARGET", b"one", qmgr="QM2")
    qm1.put("TARGET", b"two", qmgr="QM2")
    r1.chinit.start_channel(CHANNEL)
    st1 = r1.chinit.status_of(CHANNEL)
    await wait_until(lambda: st1.last_seqno == 2 and r2.chinit.status_of(CHANNEL).last_seqno == 2)
    result = await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")
    assert result.ok, result.lines
    await wait_until(lambda: st1.state is ChannelState.STOPPED
                     and r2.chinit.status_of(CHANNEL).state is ChannelState.INACTIVE)
    return r1, r2, proxy


async def test_reset_at_one_end_only_stops_the_channel_with_a_sequence_error(qm1, qm2):
    """Given a channel at sequence number 2 at both ends, when RESET CHANNEL SEQNUM(1) is
    issued at the receiving end only and the channel is started, then the ends disagree at
    resynchronisation: STATUS MSG_SEQUENCE_ERROR crosses the link, AMQ9526 is logged, the
    sender goes to STOPPED without retrying and the new message stays on the xmitq.
    spec: operations-dlq-clusters 5 (sequence-number gap; RESET); dqm-intercommunication §3"""
    async with trio.open_nursery() as nursery:
        r1, r2, proxy = await _two_moved_then_stopped(qm1, qm2, nursery)
        result = await mqsc(qm2, f"RESET CHANNEL({CHANNEL}) SEQNUM(1)")
        assert result.ok and "AMQ8023I" in result.lines[0], result.lines
        qm1.put("TARGET", b"three", qmgr="QM2")
        proxy.segments.clear()
        result = await mqsc(qm1, f"START CHANNEL({CHANNEL})")
        assert result.ok, result.lines
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        assert ChannelState.RETRYING not in st1.history, st1.history
        # the receiver's AMQ9526E may be logged a moment after the sender has stopped
        await wait_until(lambda: any(m.startswith("AMQ9526") for m, _ in qm1.log + qm2.log))
        statuses = [e for d in ("s2r", "r2s") for e in proxy.events(d) if isinstance(e, Status)]
        assert any(e.code == StatusCode.MSG_SEQUENCE_ERROR for e in statuses), statuses
        assert qm1.depth("QM2") == 1 and qm2.committed("TARGET") == 2
        finish(nursery)


async def test_reset_at_both_ends_puts_the_channel_back_in_step(qm1, qm2):
    """Given a channel stopped by a sequence-number error (the receiver alone was reset), when
    RESET CHANNEL SEQNUM(1) is issued at the sender too and the channel is started, then it
    runs, delivers the waiting message as sequence number 1 at both ends.
    spec: aliases-channels-storage §5 (RESET CHANNEL SEQNUM fixes AMQ9526E);
    operations-dlq-clusters 5"""
    async with trio.open_nursery() as nursery:
        r1, r2, _ = await _two_moved_then_stopped(qm1, qm2, nursery)
        await mqsc(qm2, f"RESET CHANNEL({CHANNEL}) SEQNUM(1)")
        qm1.put("TARGET", b"three", qmgr="QM2")
        await mqsc(qm1, f"START CHANNEL({CHANNEL})")
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        result = await mqsc(qm1, f"RESET CHANNEL({CHANNEL}) SEQNUM(1)")
        assert result.ok, result.lines
        # the error stop disabled the xmitq; START CHANNEL enables it again
        assert qm1.engine.lookup("QLOCAL", "QM2").attributes["GET"] == "DISABLED"
        result = await mqsc(qm1, f"START CHANNEL({CHANNEL})")
        assert result.ok, result.lines
        await wait_until(lambda: qm2.committed("TARGET") == 3 and qm1.depth("QM2") == 0)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == 1
                         and r2.chinit.status_of(CHANNEL).last_seqno == 1)
        assert st1.state is ChannelState.RUNNING
        finish(nursery)
    assert qm2.drain("TARGET") == [b"one", b"two", b"three"]


async def test_reset_at_the_sender_is_carried_to_the_receiver_at_the_next_start(qm1, qm2):
    """Given a channel at sequence number 2 at both ends, when RESET CHANNEL SEQNUM(1) is
    issued at the sender only and the channel is started, then the new number flows to the
    receiver (RESET_DATA) and the channel runs: IBM resets the receiving end 'the next time
    this channel is initiated'. spec: operations-dlq-clusters 5 (RESET: the sender sends the
    new number at start); dqm-intercommunication §3 (reset of sequence numbers);
    operations-dlq-clusters 7.17"""
    async with trio.open_nursery() as nursery:
        r1, r2, proxy = await _two_moved_then_stopped(qm1, qm2, nursery)
        result = await mqsc(qm1, f"RESET CHANNEL({CHANNEL}) SEQNUM(1)")
        assert result.ok, result.lines
        qm1.put("TARGET", b"three", qmgr="QM2")
        proxy.segments.clear()
        await mqsc(qm1, f"START CHANNEL({CHANNEL})")
        # (the START reaches the channel initiator through its command queue: wait for the
        # flow itself, not for a status the old run may still show)
        await wait_until(lambda: proxy.of_type(SegmentType.RESET_DATA, "s2r"))
        await wait_until(lambda: qm2.committed("TARGET") == 3)
        # the receiver's status takes the number just after its commit: wait for it, as
        # for the sender's (which confirms after that)
        await wait_until(lambda: r2.chinit.status_of(CHANNEL).last_seqno == 1)
        st1 = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == 1 and not st1.indoubt)
        finish(nursery)
