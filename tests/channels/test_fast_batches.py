"""Batches of fast non-persistent messages: not units of work at either end.

NPMSPEED(FAST) at both ends (the ID flows' FAST_MESSAGES_REQUIRED) makes a channel fast. A
batch of nothing but non-persistent messages on it replaces no sync record at either end
(IBM: FAST "can minimize the SYSTEM.CHANNEL.SYNCQ updates"): the records stay those of the
last batch with a persistent message, the same at both ends, so that a restart, an in-doubt
batch or a cut link still finds both ends agreeing.
"""

from __future__ import annotations

import pytest

from mqpy import syncrecord
from mqpy.fap import negotiation
from mqpy.fap.initialdata import CapFlags2
from mqpy.fap.tsh import SegmentType
from mqpy_chinit.mca import agreed_fast, our_id
from mqpy_chinit.states import ChannelState
from tests.support.waiting import wait_until

from .pairs import CHANNEL, running_pair


def _record(qm, role: str) -> syncrecord.SyncRecord | None:
    conn = qm.connect()
    try:
        return syncrecord.read(conn, CHANNEL, role, "QM1" if role == "R" else "")
    finally:
        conn.disconnect()


def _np(count: int, start: int = 0) -> list[tuple[str, bytes, bool]]:
    return [("TARGET", b"n%03d" % i, False) for i in range(start, start + count)]


def _p(count: int, start: int = 0) -> list[tuple[str, bytes, bool]]:
    return [("TARGET", b"p%03d" % i, True) for i in range(start, start + count)]


def test_the_id_flows_make_a_channel_fast_only_when_both_ends_are():
    """Given two channel definitions, when their IDs are weighed, then the channel is fast
    (FAST_MESSAGES_REQUIRED agreed) only when both say NPMSPEED(FAST): "if the other end of
    the channel does not support the option, the channel runs at normal speed" (seed 000,
    Fast, nonpersistent messages)."""
    def ident(speed: str):
        return our_id("C", {"CHLTYPE": "SDR", "NPMSPEED": speed}, "QM")

    assert ident("FAST").cap_flags2 & CapFlags2.FAST_MESSAGES_REQUIRED
    assert not ident("NORMAL").cap_flags2 & CapFlags2.FAST_MESSAGES_REQUIRED
    for ours, theirs, fast in [("FAST", "FAST", True), ("FAST", "NORMAL", False),
                               ("NORMAL", "FAST", False), ("NORMAL", "NORMAL", False)]:
        weighed = negotiation.negotiate(ident(ours), ident(theirs))
        assert agreed_fast(weighed.agreed) is fast, (ours, theirs)


async def test_fast_nonpersistent_batches_replace_no_sync_record(two_qmgrs):
    """Given a fast channel (BATCHSZ 10), when 30 non-persistent messages cross it, then
    every one arrives once and in order and the sequence number is 30 at both ends, but
    neither end has a sync record; when 10 persistent ones follow, both ends record 40 with
    the same LUWID; when 20 more non-persistent ones follow, the records stay at 40 while the
    sequence numbers go on to 60.  spec: dqm-intercommunication 9.47"""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, _np(30), BATCHSZ=10) as pair:
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: qm2.depth("TARGET") == 30 and st1.last_seqno == 30, 20)
        assert _record(qm1, "S") is None and _record(qm2, "R") is None
        assert st1.as_mqsc()["NPMSPEED"] == "FAST"
        assert pair.c2.status_of(CHANNEL, "QM1").as_mqsc()["NPMSPEED"] == "FAST"
        for _, body, persistent in _p(10):
            qm1.put("TARGET", body, qmgr="QM2", persistent=persistent)
        await wait_until(lambda: qm2.depth("TARGET") == 40 and st1.last_seqno == 40, 20)
        await wait_until(lambda: not st1.indoubt)
        sender, receiver = _record(qm1, "S"), _record(qm2, "R")
        assert sender.seq == receiver.seq == 40 and sender.luwid == receiver.luwid
        for _, body, persistent in _np(20, 30):
            qm1.put("TARGET", body, qmgr="QM2", persistent=persistent)
        await wait_until(lambda: qm2.depth("TARGET") == 60 and st1.last_seqno == 60, 20)
        assert pair.c2.status_of(CHANNEL, "QM1").last_seqno == 60
        assert _record(qm1, "S").seq == _record(qm2, "R").seq == 40
    assert qm2.drain("TARGET") == [b"n%03d" % i for i in range(30)] + \
        [b"p%03d" % i for i in range(10)] + [b"n%03d" % i for i in range(30, 50)]


async def test_one_normal_end_makes_every_batch_a_unit_of_work(two_qmgrs):
    """Given a channel whose sender says NPMSPEED(NORMAL) and whose receiver says FAST, when
    30 non-persistent messages cross it (BATCHSZ 10), then the channel runs at normal speed:
    both ends record every batch, 30 with the same LUWID, and DISPLAY CHSTATUS says
    NPMSPEED(NORMAL) at both."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, _np(30), BATCHSZ=10, NPMSPEED="NORMAL") as pair:
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: qm2.depth("TARGET") == 30 and st1.last_seqno == 30, 20)
        await wait_until(lambda: not st1.indoubt)
        sender, receiver = _record(qm1, "S"), _record(qm2, "R")
        assert sender.seq == receiver.seq == 30 and sender.luwid == receiver.luwid
        assert st1.as_mqsc()["NPMSPEED"] == "NORMAL"
        assert pair.c2.status_of(CHANNEL, "QM1").as_mqsc()["NPMSPEED"] == "NORMAL"
    assert qm2.drain("TARGET") == [b"n%03d" % i for i in range(30)]


def _nth_message(n: int, action: str):
    seen: list[int] = []

    def policy(d: str, t: int, i: int) -> str:
        if d == "s2r" and t == SegmentType.MESSAGE_DATA:
            seen.append(i)
            if len(seen) == n:
                return action
        return "pass"
    return policy


def _first_status_after(n: int):
    """Drop and cut the first STATUS that answers a batch ending at or after message ``n``."""
    messages: list[int] = []
    fired: list[int] = []

    def policy(d: str, t: int, i: int) -> str:
        if d == "s2r" and t == SegmentType.MESSAGE_DATA:
            messages.append(i)
        if d == "r2s" and t == SegmentType.STATUS_DATA and len(messages) >= n and not fired:
            fired.append(i)
            return "drop-and-cut"
        return "pass"
    return policy


async def test_a_persistent_batch_in_doubt_after_fast_batches_backs_out(two_qmgrs):
    """Given a fast channel (BATCHSZ 10, not pipelined) that has carried two batches of
    non-persistent messages, when the link drops with the confirm request of a third batch
    of persistent messages, then the sender, in doubt, finds the receiver still at the record
    before the fast batches, backs out and sends the batch again: no sequence error, every
    persistent message once, both records at the same number.
    spec: dqm-intercommunication 9.31"""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, _np(20) + _p(10), policy=_nth_message(30, "drop-and-cut"),
                            stanza=None, SHORTTMR=0, BATCHSZ=10) as pair:
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: qm2.depth("TARGET") == 30 and qm1.depth("QM2") == 0, 20)
        await wait_until(lambda: st1.state is ChannelState.RUNNING and not st1.indoubt, 20)
        assert pair.proxy.cuts == 1
        sender, receiver = _record(qm1, "S"), _record(qm2, "R")
        assert sender.seq == receiver.seq and sender.luwid == receiver.luwid
    assert not [m for m, _ in qm1.log if m == "AMQ9526E"]
    assert qm2.drain("TARGET") == [b"n%03d" % i for i in range(20)] + \
        [b"p%03d" % i for i in range(10)]


async def test_a_persistent_batch_in_doubt_after_fast_batches_commits(two_qmgrs):
    """Given the same channel, when the link drops with the receiver's answer to the third
    batch (it committed it), then the sender, in doubt, finds the batch's LUWID in the
    receiver's record and commits: every message once, both records at 30."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, _np(20) + _p(10), policy=_first_status_after(30),
                            stanza=None, SHORTTMR=0, BATCHSZ=10) as pair:
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: qm2.depth("TARGET") == 30 and qm1.depth("QM2") == 0, 20)
        await wait_until(lambda: st1.state is ChannelState.RUNNING and not st1.indoubt
                         and pair.proxy.cuts == 1, 20)
        assert _record(qm1, "S").seq == _record(qm2, "R").seq == 30
    assert not [m for m, _ in qm1.log if m == "AMQ9526E"]
    assert qm2.drain("TARGET") == [b"n%03d" % i for i in range(20)] + \
        [b"p%03d" % i for i in range(10)]


async def test_a_restarted_channel_carries_on_from_the_records(two_qmgrs):
    """Given a fast channel that carried 10 persistent then 20 non-persistent messages
    (records at 10, sequence numbers at 30), when the channel is stopped and started again,
    then both ends start from the records: 10 more messages cross without a sequence error
    and the sequence number is 20 at both ends."""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, _p(10) + _np(20), BATCHSZ=10) as pair:
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: qm2.depth("TARGET") == 30 and st1.last_seqno == 30, 20)
        assert pair.c1.stop_channel(CHANNEL) is None
        await wait_until(lambda: pair.c1.status_of(CHANNEL).state is ChannelState.STOPPED, 20)
        for _, body, persistent in _np(10, 20):
            qm1.put("TARGET", body, qmgr="QM2", persistent=persistent)
        assert pair.c1.start_channel(CHANNEL) is None
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: qm2.depth("TARGET") == 40 and st1.last_seqno == 20, 20)
        assert pair.c2.status_of(CHANNEL, "QM1").last_seqno == 20
    assert not [m for m, _ in qm1.log if m == "AMQ9526E"]
    assert qm2.drain("TARGET") == [b"p%03d" % i for i in range(10)] + \
        [b"n%03d" % i for i in range(30)]


async def _gets_ends_and_answers(two_qmgrs, monkeypatch, messages, **sdr) -> list[tuple]:
    """The order in which an unpipelined sending MCA got its runs of messages, ended each
    batch (before its confirm request) and read its partner's answer, over ``messages``
    (BATCHSZ 10)."""
    from mqpy_chinit.sender_mca import SenderMCA
    from mqpy_chinit.states import ChannelStatus

    qm1, qm2 = two_qmgrs
    log: list[tuple] = []
    runs, answered = SenderMCA._run_of_gets_in_loop, ChannelStatus.round_trip
    harden, commit = SenderMCA._harden_in_loop, SenderMCA._commit_gets

    async def logged_harden(self, *args):
        log.append(("end",))
        await harden(self, *args)

    async def logged_commit(self, *args):
        log.append(("end",))
        await commit(self, *args)

    async def logged_runs(self, *args):
        got = await runs(self, *args)
        log.append(("gets", len(got)))
        return got

    def logged_answer(self, micros):
        log.append(("answered",))
        answered(self, micros)

    monkeypatch.setattr(SenderMCA, "_run_of_gets_in_loop", logged_runs)
    monkeypatch.setattr(ChannelStatus, "round_trip", logged_answer)
    monkeypatch.setattr(SenderMCA, "_harden_in_loop", logged_harden)
    monkeypatch.setattr(SenderMCA, "_commit_gets", logged_commit)
    async with running_pair(qm1, qm2, messages, stanza=None, BATCHSZ=10, **sdr) as pair:
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: qm2.depth("TARGET") == len(messages)
                         and st1.last_seqno == len(messages), 20)
    return log


async def test_a_fast_batch_gets_the_next_one_while_the_partner_puts_it(two_qmgrs,
                                                                         monkeypatch):
    """Given an unpipelined fast channel (BATCHSZ 10) and 30 non-persistent messages, when a
    full batch has gone with its confirm request, then the next batch's messages are got
    before the partner's answer is read (there is nothing to commit with them), so the partner's
    puts and the queue manager's gets overlap; every message arrives once, in order."""
    log = await _gets_ends_and_answers(two_qmgrs, monkeypatch, _np(30))
    answered = log.index(("answered",))
    assert ("gets", 10) in log[log.index(("end",)):answered], log
    assert two_qmgrs[1].drain("TARGET") == [b"n%03d" % i for i in range(30)]


@pytest.mark.parametrize("persistent, sdr", [(True, {}), (False, {"MONCHL": "HIGH"})])
async def test_batches_to_commit_or_measured_get_the_next_one_after_the_answer(
        two_qmgrs, monkeypatch, persistent, sdr):
    """Given an unpipelined channel, when its batches are persistent (the next batch's gets
    go with the commit) or its NETTIME is measured (MONCHL: getting early would lengthen
    it), then no messages are got between a batch's end and the partner's answer."""
    messages = _p(30) if persistent else _np(30)
    log = await _gets_ends_and_answers(two_qmgrs, monkeypatch, messages, **sdr)
    answered = log.index(("answered",))
    assert [e for e in log[log.index(("end",)):answered] if e[0] == "gets"] == [], log
