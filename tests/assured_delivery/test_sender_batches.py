"""The sending MCA's batch decisions (sender_batch.SenderBatches), driven through the
simulator (sim.py) without sockets: where batches end, in doubt then commit or back out
(a crash at each step), the pipelined batch in flight, fast batches, sequence numbers and
their wrap, dead-lettering at the sender, NETTIME. Numbers are spec dqm-intercommunication §9's.
"""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH
from mqpy.fap.statuscodes import StatusCode
from mqpy.syncrecord import parse_prepare_key
from mqpy_chinit.sender_batch import (
    HOLD,
    NO_LUWID,
    TOO_BIG,
    TOO_BIG_REASON,
    BackOut,
    CommitGets,
    Confirmed,
    Harden,
    Idle,
    InFlight,
    SenderBatches,
)
from tests.assured_delivery.sim import (
    STEPS,
    Crash,
    Ended,
    Log,
    Msg,
    Receiver,
    SimSender,
    World,
    run_to_the_end,
)

LENGTH = Msg(0).length


def _world(*msgs: Msg, **receiver: object) -> World:
    world = World(receiver=Receiver(**receiver))
    world.xmitq.put(*msgs)
    return world


def _confirms(world: World) -> list[int]:
    """The sequence numbers that carried a confirm request: each batch's last."""
    return [seq for seq, confirm in world.receiver.seen if confirm]


def _everything_once_in_order(world: World, count: int) -> None:
    assert [m.n for m in world.receiver.delivered] == list(range(count))
    assert world.xmitq.ready == world.xmitq.uow == [] and world.xmitq.prepared == {}
    assert world.receiver.sequence_errors == []


# ------------------------------------------------------------------ where a batch ends

def test_given_batchsz_3_when_7_messages_wait_then_batches_of_3_3_and_1():
    """Given BATCHSZ 3 and 7 messages on the transmission queue, when the channel runs, then
    the batches end at the 3rd and 6th message (BATCHSZ) and at the 7th (the queue empty);
    the sequence numbers are 1..7 and both records end at 7 (9.28)."""
    world = _world(*[Msg(i) for i in range(7)])
    run_to_the_end(world, batchsz=3)
    assert _confirms(world) == [3, 6, 7]
    assert [seq for seq, _ in world.receiver.seen] == list(range(1, 8))
    assert world.xmitq.record.seq == world.receiver.record[0] == 7
    _everything_once_in_order(world, 7)


def test_given_batchint_0_when_3_messages_wait_then_one_batch_of_3_ends_when_the_queue_empties():
    """Given BATCHSZ 50 and BATCHINT 0, when 3 messages wait, then one batch of 3 is
    committed when the transmission queue empties (9.29)."""
    world = _world(*[Msg(i) for i in range(3)])
    run_to_the_end(world, batchsz=50)
    assert _confirms(world) == [3]
    _everything_once_in_order(world, 3)


def test_given_batchlim_when_a_message_reaches_it_then_the_batch_ends_with_that_message():
    """Given BATCHLIM just over two messages' bytes, when 7 messages wait, then each batch
    ends with the message that reaches the limit (the 3rd), not before it."""
    world = _world(*[Msg(i) for i in range(7)])
    run_to_the_end(world, batchsz=50, batchlim=2 * LENGTH + 1)
    assert _confirms(world) == [3, 6, 7]
    _everything_once_in_order(world, 7)


def test_given_batchint_when_messages_arrive_within_it_then_they_join_the_batch():
    """Given BATCHINT 5 s, when messages arrive 1 s and 3 s after the batch's first and
    another 7 s after, then the first three make one batch that ends 5 s after its first
    message (only the waiting counts), and the late one makes its own (9.30)."""
    world = _world(Msg(0))
    t0 = world.clock.now
    world.xmitq.arrivals = [(t0 + 1, Msg(1)), (t0 + 3, Msg(2)), (t0 + 7, Msg(3))]
    sender = SimSender(world, batchsz=50, batchint=5.0)
    sender.start()
    sender.transfer()
    assert _confirms(world) == [3]
    assert world.clock.now == t0 + 5
    world.clock.now = t0 + 7
    sender.transfer()
    assert _confirms(world) == [3, 4]
    _everything_once_in_order(world, 4)


def test_given_batchint_when_batchsz_messages_come_first_then_the_batch_ends_without_waiting():
    """Given BATCHINT 5 s and BATCHSZ 2, when 2 messages are there, then the batch ends at
    once (30: "or until 50 messages")."""
    world = _world(Msg(0), Msg(1))
    t0 = world.clock.now
    run_to_the_end(world, batchsz=2, batchint=5.0)
    assert _confirms(world) == [2] and world.clock.now == t0


# ------------------------------------------------------------------ in doubt

def test_given_a_normal_channel_when_a_batch_ends_then_it_is_hardened_in_doubt_then_committed():
    """Given a normal-speed channel, when a batch of 3 ends, then its sync record (3, its
    LUWID) is replaced and its unit of work prepared under a key naming the last hardened
    batch (0) and its own last number, before the confirm request; after the partner's
    STATUS 0 it is committed: nothing stays in doubt (9.28)."""
    world = _world(*[Msg(i) for i in range(3)])
    sender = SimSender(world, batchsz=3)
    sender.start()
    sender.transfer()
    [harden] = sender.actions
    assert isinstance(harden, Harden) and harden.commit is None
    key = parse_prepare_key(harden.key)
    assert (key.prev_seq, key.prev_luwid, key.seq, key.partner) == (0, NO_LUWID, 3, "QM2")
    assert (harden.record.seq, harden.record.luwid) == (3, key.luwid)
    assert world.xmitq.most_in_doubt == 1 and world.xmitq.prepared == {}
    assert world.xmitq.record == harden.record
    assert sender.m.hardened == (3, key.luwid)


@pytest.mark.parametrize("step, pipeline", [(step, 1) for step in STEPS] + [
    (step, 2) for step in STEPS[:3]])  # a pipelined batch has no step after its send
def test_given_a_crash_at_any_step_of_a_batch_when_the_channel_restarts_then_nothing_is_lost_or_doubled(
        step, pipeline):
    """Given the sending queue manager crashes at ``step`` of the second batch (pipelined:
    while the first is in doubt), when the channel starts again, then the in-doubt batch is
    committed or backed out as the receiver's record says and every message arrives once, in
    order (9.31)."""
    world = _world(*[Msg(i) for i in range(8)])
    world.log = Log(step, 2)
    assert run_to_the_end(world, batchsz=3, pipeline=pipeline) == 2
    _everything_once_in_order(world, 8)
    assert world.xmitq.most_in_doubt == 1
    assert world.xmitq.record.seq == world.receiver.record[0] == 8


@pytest.mark.parametrize("step, commit", [("prepared", False), ("confirm-sent", True),
                                          ("answered", True)])
def test_given_a_batch_in_doubt_at_a_crash_when_the_channel_restarts_then_the_receivers_record_decides(
        step, commit):
    """Given a crash with the batch prepared (in doubt): before its confirm request went, or
    after the receiver committed it, when the channel starts again, then it is committed if
    the receiver committed it (its record has the batch's LUWID) and backed out, to be sent
    again, if not (9.31, 9.32)."""
    world = _world(*[Msg(i) for i in range(3)])
    world.log = Log(step)
    sender = SimSender(world, batchsz=3)
    sender.start()
    with pytest.raises(Crash):
        sender.transfer()
    world.crash()
    assert world.xmitq.indoubt() is not None
    decided = SimSender(world, batchsz=3).start()
    assert decided.commit is commit
    assert len(world.xmitq.ready) == (0 if commit else 3)


def test_given_a_crash_before_the_prepare_then_nothing_is_in_doubt_and_the_gets_are_backed_out():
    """Given a crash before the batch is prepared, then nothing is in doubt at the restart:
    the gets were backed out and the whole batch is sent again."""
    world = _world(*[Msg(i) for i in range(3)])
    world.log = Log("harden")
    assert run_to_the_end(world, batchsz=3) == 2
    assert world.xmitq.most_in_doubt == 1  # the second run's batch only
    _everything_once_in_order(world, 3)


def test_given_a_status_error_when_a_batch_ends_then_it_is_backed_out_and_the_channel_ends():
    """Given a receiver that refuses the second batch, when it answers its confirm request
    with an error STATUS, then the batch is backed out (its messages stay on the transmission
    queue, in order) and the channel ends with that STATUS."""
    world = _world(*[Msg(i) for i in range(6)], refuse={2})
    sender = SimSender(world, batchsz=3)
    sender.start()
    with pytest.raises(Ended) as ended:
        sender.transfer()
    assert ended.value.code == StatusCode.CAN_NOT_STORE
    assert [m.n for m in world.xmitq.ready] == [3, 4, 5] and world.xmitq.prepared == {}
    assert world.xmitq.record.seq == 3


def test_given_an_answer_that_is_not_a_status_then_the_channel_ends_with_a_protocol_error():
    """Given the partner answers a confirm request with something other than a STATUS, then
    the channel ends (AMQ9504E) without resolving the batch: it stays in doubt for the next
    start to resolve."""
    m = SenderBatches("C", batchsz=2)
    m.begin(0.0)
    m.message(LENGTH)
    m.close()
    m.harden(b"L" * 8, True, None)
    m.confirm_sent(0.0)
    assert m.answered(None, 1.0) == BackOut(None, False, None)


# ------------------------------------------------------------------ pipelining

def test_given_pipelining_when_batch_n_is_in_flight_then_batch_n1_is_sent_before_its_status():
    """Given PipeLineLength 2, when batch N's confirm request has gone, then N+1's messages
    are got and sent before N's STATUS is read; N is committed in the same step as N+1's sync
    record (before N+1 is prepared), so at most one batch is ever in doubt (9.33)."""
    world = _world(*[Msg(i) for i in range(9)])
    sender = SimSender(world, batchsz=3, pipeline=2)
    sender.start()
    sender.transfer()
    first, second, third = sender.actions
    assert second.commit == first.key and third.commit == second.key
    assert world.xmitq.most_in_doubt == 1
    assert world.receiver.seen[:6] == [(1, False), (2, False), (3, True), (4, False),
                                       (5, False), (6, True)]
    _everything_once_in_order(world, 9)


def test_given_pipelining_when_batch_n_is_refused_then_n_and_n1_are_backed_out_in_order():
    """Given PipeLineLength 2 and a receiver that refuses batch N (the first), when its STATUS
    error is read at the end of N+1, then N (in doubt) and N+1's gets (the unit of work in
    progress) are both backed out: every message is back on the transmission queue, in
    order, and the channel ends with that STATUS."""
    world = _world(*[Msg(i) for i in range(6)], refuse={1})
    sender = SimSender(world, batchsz=3, pipeline=2)
    sender.start()
    with pytest.raises(Ended) as ended:
        sender.transfer()
    assert ended.value.code == StatusCode.CAN_NOT_STORE
    assert [m.n for m in world.xmitq.ready] == list(range(6))
    assert world.xmitq.prepared == {} and world.xmitq.uow == []
    assert world.xmitq.record.seq == 0 and world.receiver.delivered == []


def test_given_pipelining_when_the_queue_drains_then_the_batch_in_flight_is_settled_before_waiting():
    """Given PipeLineLength 2, when the transmission queue is empty after a batch, then the
    batch in flight is confirmed and committed before the channel waits: nothing is left in
    doubt while idle."""
    world = _world(*[Msg(i) for i in range(2)])
    sender = SimSender(world, batchsz=3, pipeline=2)
    sender.start()
    sender.transfer()
    assert sender.m.inflight is None and world.xmitq.prepared == {}
    assert sender.m.seq == 2


def test_given_pipelining_and_batchint_when_the_batch_waits_then_the_one_in_flight_is_settled():
    """Given PipeLineLength 2 and BATCHINT, when a batch waits for more messages, then the
    batch in flight is confirmed and committed first (the channel never waits with a batch
    in flight)."""
    world = _world(*[Msg(i) for i in range(4)])
    world.xmitq.arrivals = [(world.clock.now + 1, Msg(4))]
    sender = SimSender(world, batchsz=3, pipeline=2, batchint=2.0)
    sender.start()
    sender.transfer()
    assert not world.xmitq.waited_in_doubt and world.xmitq.most_in_doubt == 1
    _everything_once_in_order(world, 5)


# ------------------------------------------------------------------ fast batches

def test_given_a_fast_channel_when_batches_are_non_persistent_then_their_gets_are_committed_never_in_doubt():
    """Given NPMSPEED(FAST) at both ends, when batches hold only non-persistent messages,
    then their gets are committed without a prepare (never in doubt) and the sync records
    are not replaced; the sequence numbers carry on (47; seed 000 "Fast, nonpersistent")."""
    world = _world(*[Msg(i, persistent=False) for i in range(6)], fast=True)
    sender = SimSender(world, batchsz=3, fast=True)
    sender.start()
    sender.transfer()
    assert [type(a) for a in sender.actions] == [CommitGets, CommitGets]
    assert world.xmitq.most_in_doubt == 0
    assert world.xmitq.record.seq == 0 and sender.m.hardened == (0, NO_LUWID)
    assert sender.m.seq == 6
    _everything_once_in_order(world, 6)


def test_given_a_fast_channel_when_a_batch_has_one_persistent_message_then_it_is_hardened_after_the_last_hardened():
    """Given a fast channel, when a batch has one persistent message after a fast batch,
    then it is hardened in doubt, its key naming the last *hardened* batch (the record's
    number, 0), not the fast batch before it (what the receiver's record holds)."""
    msgs = [Msg(i, persistent=False) for i in range(3)] + [Msg(3, persistent=False), Msg(4),
                                                          Msg(5, persistent=False)]
    world = _world(*msgs, fast=True)
    sender = SimSender(world, batchsz=3, fast=True)
    sender.start()
    sender.transfer()
    fast, hardened = sender.actions
    assert isinstance(fast, CommitGets) and isinstance(hardened, Harden)
    key = parse_prepare_key(hardened.key)
    assert (key.prev_seq, key.seq) == (0, 6)
    assert world.xmitq.record.seq == world.receiver.record[0] == 6


def test_given_pipelining_when_a_fast_batch_is_refused_then_only_the_next_batchs_gets_are_backed_out():
    """Given PipeLineLength 2 on a fast channel, when the partner refuses a batch of
    non-persistent messages, then that batch is not backed out (its gets were committed
    before its confirm request: such messages "may be lost", seed 000) and the gets of the
    batch after it are: they stay on the transmission queue, in order."""
    world = _world(*[Msg(i, persistent=False) for i in range(6)], fast=True, refuse={1})
    sender = SimSender(world, batchsz=3, pipeline=2, fast=True)
    sender.start()
    with pytest.raises(Ended):
        sender.transfer()
    assert [m.n for m in world.xmitq.ready] == [3, 4, 5]
    assert world.xmitq.most_in_doubt == 0 and world.xmitq.uow == []


def test_given_a_fast_batch_when_its_confirm_request_has_gone_then_the_next_is_got_before_the_answer():
    """Given an unpipelined fast channel, when a full fast batch's confirm request has gone,
    then the next batch's messages are got while the partner puts it (nothing to commit
    with them), unless NETTIME is measured or a stop is asked."""
    m = SenderBatches("C", batchsz=2, fast=True)
    m.begin(0.0)
    m.message(LENGTH)
    m.message(LENGTH)
    m.close()
    assert isinstance(m.harden(b"L" * 8, False, None), CommitGets)
    assert m.confirm_sent(0.0) is False
    assert m.ahead(stopping=False) == 2 and m.ahead(stopping=True) == 0
    assert m.gets_before_answer(2, monitoring=False)
    assert not m.gets_before_answer(2, monitoring=True)


def test_given_a_batch_that_was_not_full_then_nothing_is_got_with_its_commit():
    """Given a batch that ended before BATCHSZ (the queue drained: the channel is about to
    wait), then no next batch is got with its commit, which therefore waits for its log
    force; a full one gets the next batch's first messages with it."""
    m = SenderBatches("C", batchsz=3)
    m.begin(0.0)
    m.message(LENGTH)
    m.close()
    assert m.ahead(stopping=False) == 0
    m.begin(0.0)
    for _ in range(3):
        m.message(LENGTH)
    m.close()
    assert m.ahead(stopping=False) == 3


def test_given_a_normal_batch_when_its_confirm_request_has_gone_then_nothing_is_got_before_the_answer():
    """Given a batch hardened in doubt, then the next batch's gets wait for the answer (they
    go with the commit)."""
    m = SenderBatches("C", batchsz=2)
    m.begin(0.0)
    m.message(LENGTH)
    m.message(LENGTH)
    m.close()
    assert isinstance(m.harden(b"L" * 8, False, None), Harden)
    m.confirm_sent(0.0)
    assert not m.gets_before_answer(m.ahead(stopping=False), monitoring=False)


# ------------------------------------------------------------------ sequence numbers

def test_given_seqwrap_100_when_messages_pass_it_then_the_numbers_wrap_to_1():
    """Given SEQWRAP 100 at both ends and records at 98, when 5 messages move, then their
    sequence numbers are 99, 100, 1, 2, 3 and the receiver finds no sequence error."""
    world = _world(*[Msg(i) for i in range(5)], wrap=100, record=(98, NO_LUWID))
    world.xmitq.record.seq = 98
    run_to_the_end(world, batchsz=2, wrap=100)
    assert [seq for seq, _ in world.receiver.seen] == [99, 100, 1, 2, 3]
    assert _confirms(world) == [100, 2, 3]
    _everything_once_in_order(world, 5)
    assert world.xmitq.record.seq == 3


def test_given_a_batch_whose_last_message_is_at_the_wrap_then_the_next_starts_at_1():
    """Given SEQWRAP 100 and a batch whose held last message takes number 100, then the
    batch after it starts at 1."""
    m = SenderBatches("C", batchsz=2, wrap=100, seq=98)
    m.begin(0.0)
    assert m.message(LENGTH) == HOLD
    assert m.message(LENGTH) == 99
    assert m.close() == 100
    m.confirmed(InFlight(None, NO_LUWID, 100, 2, 0.0))
    m.begin(0.0)
    m.message(LENGTH)
    assert m.close() == 1


# ------------------------------------------------------------------ dead letters at the sender

def test_given_a_message_too_long_for_the_channel_then_it_is_dead_lettered_at_the_sender():
    """Given a message longer than the channel's MAXMSGL among others, when the batch is
    sent, then it goes to the sending queue manager's dead-letter queue in the batch's unit
    of work (MQRC_MSG_TOO_BIG_FOR_CHANNEL) and the others' numbers follow on, unbroken."""
    big = Msg(1, length=XQH_WITH_MD_LENGTH + 2000)
    world = _world(Msg(0), big, Msg(2))
    run_to_the_end(world, batchsz=50, max_msg=1024)
    assert world.xmitq.dlq == [big]
    assert [m.n for m in world.receiver.delivered] == [0, 2]
    assert [seq for seq, _ in world.receiver.seen] == [1, 2]
    assert SenderBatches("C", max_msg=1024).message(XQH_WITH_MD_LENGTH + 1025) == TOO_BIG
    assert TOO_BIG_REASON == CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL


def test_given_no_dead_letter_queue_when_a_message_is_too_long_then_the_channel_stops_with_the_batch_kept():
    """Given no dead-letter queue, when a message is too long for the channel, then the
    batch is backed out (every message stays on the transmission queue) and the channel
    ends with AMQ9565E (IBM's "No dead-letter queue defined"), not to be retried."""
    world = _world(Msg(0), Msg(1, length=XQH_WITH_MD_LENGTH + 2000), Msg(2))
    world.xmitq.dlq = None
    sender = SimSender(world, batchsz=50, max_msg=1024)
    sender.start()
    with pytest.raises(Ended) as ended:
        sender.transfer()
    assert (ended.value.end.msgid, ended.value.end.retry) == ("AMQ9565E", False)
    assert [m.n for m in world.xmitq.ready] == [0, 1, 2]


def test_given_a_batch_of_nothing_but_messages_too_long_then_it_is_committed_without_a_confirm():
    """Given only messages too long for the channel, then they are dead-lettered and
    committed; nothing is sent, nothing is in doubt."""
    world = _world(Msg(0, length=XQH_WITH_MD_LENGTH + 2000))
    sender = SimSender(world, max_msg=1024)
    sender.start()
    sender.transfer()
    assert sender.actions == [] and world.receiver.seen == []
    assert len(world.xmitq.dlq) == 1 and world.xmitq.most_in_doubt == 0


# ------------------------------------------------------------------ NETTIME and BATCHHB

def test_given_an_unpipelined_batch_then_nettime_is_its_confirm_requests_round_trip():
    """Given a batch whose confirm request went at t, when its STATUS 0 is read at t + 3 ms,
    then NETTIME is 3 ms (aliases-channels-storage "Monitor fields")."""
    m = SenderBatches("C")
    m.begin(0.0)
    m.message(LENGTH)
    m.close()
    m.harden(b"L" * 8, True, None)
    m.confirm_sent(10.0)
    answer = m.answered(0, 10.003)
    assert isinstance(answer, Confirmed) and answer.micros == 3000


def test_given_a_pipelined_batch_then_nettime_is_to_when_its_answer_was_first_seen():
    """Given PipeLineLength 2, when the answer to the batch in flight is seen on the socket
    4 ms after its confirm request and read 500 ms later, then NETTIME is 4 ms; a second
    sighting does not move it."""
    m = SenderBatches("C", pipeline=2)
    m.inflight = InFlight(b"key", NO_LUWID, 50, 50, 1000.0)
    m.answer_seen(1000.004)
    m.answer_seen(1000.1)
    answer = m.confirmation(0, 1000.5)
    assert isinstance(answer, Confirmed) and answer.micros == 4000 and m.inflight is None


def test_given_batchhb_when_the_partner_was_silent_longer_then_a_heartbeat_comes_first():
    """Given BATCHHB 0.5 s, then a batch checks its partner with a heartbeat before going in
    doubt only when nothing was received for longer than that (seed 003 §2.10)."""
    m = SenderBatches("C", batchhb=0.5)
    assert m.batch_heartbeat_due(10.0, 9.4) and not m.batch_heartbeat_due(10.0, 9.6)
    assert not SenderBatches("C").batch_heartbeat_due(10.0, 0.0)


# ------------------------------------------------------------------ an empty transmission queue

def test_given_discint_when_the_queue_stays_empty_that_long_after_a_batch_then_the_channel_ends():
    """Given DISCINT 60 s, when nothing is got for 60 s after the last batch ended, then the
    channel ends normally (DISCINT is measured from the end of a batch); a heartbeat in
    between does not restart it."""
    m = SenderBatches("C", discint=60, hbint=300)
    m.active(1000.0)
    assert m.when_idle(1059.9) is None
    m.heartbeat_done(1030.0)
    assert m.when_idle(1060.0) is Idle.DISCONNECT
    assert SenderBatches("C").when_idle(10**9) is None  # DISCINT 0: never


def test_given_hbint_when_nothing_flowed_for_that_long_then_a_heartbeat_is_sent():
    """Given HBINT 5 s and no DISCINT, when the transmission queue stays empty 5 s after the
    last flow, then a heartbeat is sent, and the next one 5 s after it (heartbeats flow
    only when the xmitq has no messages)."""
    m = SenderBatches("C", hbint=5)
    m.active(1000.0)
    assert m.when_idle(1004.9) is None
    assert m.when_idle(1005.0) is Idle.HEARTBEAT
    m.heartbeat_done(1005.0)
    assert m.when_idle(1009.0) is None and m.when_idle(1010.0) is Idle.HEARTBEAT
