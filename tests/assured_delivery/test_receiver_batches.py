"""The receiving end's batches, decided by ReceiverBatch and carried out in a simulated queue
manager (no socket, no queue manager): a batch hardened with its sync record, the sequence
number check and its wrap, runs of puts, fast batches outside syncpoint, and the answers to
RESYNC, RESET, heartbeats and the partner's STATUS."""

from __future__ import annotations

from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ControlFlags1
from mqpy_chinit.receiver_batch import (
    NO_LUWID,
    PUT_RUN,
    AnswerHeartbeat,
    AnswerReset,
    AnswerResync,
    AnswerStatus,
    EndChannel,
    PartnerEnded,
)

from .receiving import QueueManager, Receiver, batch, luwid, message

CONFIRM = int(ControlFlags1.CONFIRM_REQUEST)


def test_given_a_batch_when_its_confirm_request_arrives_then_puts_and_record_commit_together():
    """Given three persistent messages, when the third asks for confirmation, then all three
    are put in one run under syncpoint, committed in one unit of work with the sync record
    (3, the batch's LUWID) in the same round trip, and STATUS 0 goes back; nothing was
    visible before.
    spec: dqm-intercommunication 9.28"""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(message(1), message(2))
    assert qm.depth("TARGET") == 0 and qm.commits == 0
    rcv.receive(message(3, confirm=True))
    assert qm.queues["TARGET"].messages == [b"m1", b"m2", b"m3"]
    assert qm.record == (3, luwid(3)) and qm.commits == 1
    assert rcv.runs == [3] and rcv.answers == [AnswerStatus(0)] and rcv.batches == [3]
    assert rcv.round_trips == 1


def test_given_batches_when_each_ends_then_the_record_follows_each_batchs_last_message():
    """Given two batches, when both are confirmed, then the record holds the second's last
    sequence number and LUWID, and each batch was one commit answered STATUS 0.
    spec: dqm-intercommunication 9.28"""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(*batch(1, 3), *batch(4, 5))
    assert qm.record == (5, luwid(5)) and qm.commits == 2
    assert rcv.answers == [AnswerStatus(0)] * 2 and rcv.batches == [3, 2]


def test_given_the_next_number_is_skipped_when_it_arrives_then_the_batch_ends_amq9526e():
    """Given message 1 held, when message 3 arrives instead of 2, then the batch is backed
    out (nothing committed, the record unchanged) and the channel ends with AMQ9526E, the
    partner told MSG_SEQUENCE_ERROR, no retry (an operator must RESET CHANNEL)."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(message(1), message(3, confirm=True))
    assert isinstance(rcv.ended, EndChannel)
    assert rcv.ended.msgid == "AMQ9526E" and "sent 3, expected 2" in rcv.ended.text
    assert rcv.ended.status_code == StatusCode.MSG_SEQUENCE_ERROR and not rcv.ended.retry
    assert qm.backouts == 1 and qm.depth("TARGET") == 0 and qm.record == (0, NO_LUWID)


def test_given_the_record_at_seqwrap_when_the_next_batch_comes_then_it_starts_at_one():
    """Given SEQWRAP(10) and a record at 10, when messages 1 and 2 arrive, then they are
    the next ones (the number wraps to 1) and the record holds 2; a message 11 instead
    would be a sequence error."""
    qm = QueueManager("TARGET")
    qm.record = (10, luwid(10))
    rcv = Receiver(qm, wrap=10).receive(*batch(1, 2))
    assert rcv.ended is None and qm.record == (2, luwid(2))
    wrong = Receiver(QueueManager("TARGET"), wrap=10)
    wrong.qm.record = (10, luwid(10))
    wrong.batch.seq = 10
    assert wrong.receive(message(11, confirm=True)).ended.msgid == "AMQ9526E"


def test_given_a_long_batch_when_put_run_arrivals_are_held_then_they_are_put_as_one_run():
    """Given a batch longer than PUT_RUN, when PUT_RUN arrivals are held, then they are put
    as one run at once (still under syncpoint, uncommitted), the rest at the batch's end."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(*batch(1, PUT_RUN + 10)[:PUT_RUN])
    assert rcv.runs == [PUT_RUN] and qm.depth("TARGET") == 0 and len(qm.uow) == PUT_RUN
    rcv.receive(*batch(1, PUT_RUN + 10)[PUT_RUN:])
    assert rcv.runs == [PUT_RUN, 10] and qm.depth("TARGET") == PUT_RUN + 10


def test_given_big_arrivals_when_run_bytes_are_held_then_they_are_put_as_one_run():
    """Given arrivals of half mqiflows.RUN_BYTES each, when two are held, then they are put
    as one run before the batch's end: a run stays a modest flow."""
    half = b"x" * (mqiflows.RUN_BYTES // 2)
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(message(1, data=half), message(2, data=half))
    assert rcv.runs == [2] and len(qm.uow) == 2


def test_given_a_fast_channel_when_non_persistent_messages_arrive_then_visible_at_once():
    """Given NPMSPEED(FAST), when non-persistent messages arrive, then each is put outside
    syncpoint as soon as nothing more has been received (those read behind it go with it),
    and at the batch's end no sync record is replaced and nothing is committed: the record
    stays the last hardened batch's.
    spec: dqm-intercommunication 9.47"""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm, fast=True).receive(message(1, persistent=False),
                                          message(2, persistent=False), more=True)
    assert qm.depth("TARGET") == 0  # more was received behind them: not yet
    rcv.receive(message(3, persistent=False))
    assert qm.queues["TARGET"].messages == [b"m1", b"m2", b"m3"] and rcv.runs == [3]
    rcv.receive(message(4, persistent=False, confirm=True))
    assert qm.depth("TARGET") == 4 and qm.commits == 0 and qm.record == (0, NO_LUWID)
    assert rcv.answers == [AnswerStatus(0)] and rcv.batch.seq == 4


def test_given_a_fast_channel_when_a_batch_has_a_persistent_message_then_it_is_hardened():
    """Given NPMSPEED(FAST), when a batch mixes a non-persistent and a persistent message,
    then the non-persistent one is visible at once, the persistent one only at the batch's
    commit, which replaces the sync record.
    spec: dqm-intercommunication 9.47"""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm, fast=True).receive(message(1, persistent=False), message(2))
    assert qm.queues["TARGET"].messages == [b"m1"]
    rcv.receive(message(3, persistent=False, confirm=True))
    assert qm.queues["TARGET"].messages == [b"m1", b"m3", b"m2"]
    assert qm.record == (3, luwid(3)) and qm.commits == 1


def test_given_a_normal_channel_when_non_persistent_messages_arrive_then_under_syncpoint():
    """Given NPMSPEED(NORMAL), when non-persistent messages arrive, then they wait for the
    batch's end and are committed with the sync record, as persistent ones are."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(message(1, persistent=False))
    assert qm.depth("TARGET") == 0
    rcv.receive(message(2, persistent=False, confirm=True))
    assert qm.depth("TARGET") == 2 and qm.record == (2, luwid(2))


def test_given_a_fast_batch_then_a_hardened_one_when_resync_then_the_hardened_is_answered():
    """Given a hardened batch (1-2) then a fast one (3-4), when the sender asks RESYNC, then
    the receiver answers with its record: 2 and the first batch's LUWID.
    spec: dqm-intercommunication 9.31"""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm, fast=True).receive(*batch(1, 2))
    rcv.receive(*batch(3, 4, persistent=False))
    rcv.flow("resync")
    assert rcv.answers[-1] == AnswerResync(2, luwid(2))


def test_given_held_arrivals_when_resync_arrives_then_they_are_put_first():
    """Given arrivals held (no confirm request yet), when another flow arrives, then they
    are put first (under syncpoint: not committed)."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(message(1)).flow("resync")
    assert rcv.runs == [1] and len(qm.uow) == 1 and rcv.answers == [AnswerResync(0, NO_LUWID)]


def test_given_a_batch_in_progress_when_reset_arrives_then_it_is_backed_out_and_numbered():
    """Given message 1 held, when the sender's RESET CHANNEL SEQNUM(40) arrives, then the
    batch is backed out, the record becomes (40, no LUWID), RESET is answered with 40 and the
    destinations are closed; the next message expected is 41."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(message(1)).flow("reset", 40)
    assert qm.backouts == 1 and qm.depth("TARGET") == 0 and qm.record == (40, NO_LUWID)
    assert rcv.answers == [AnswerReset(40)] and rcv.closed_handles == 1
    rcv.receive(*batch(41, 42))
    assert rcv.ended is None and qm.record == (42, luwid(42))


def test_given_an_empty_batch_end_when_a_heartbeat_confirms_then_its_luwid_is_hardened():
    """Given a hardened batch, when a heartbeat with a confirm request and a LUWID arrives
    (the sender dead-lettered every message of its batch), then the record takes that LUWID
    at the same sequence number and STATUS 0 goes back."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(*batch(1, 2))
    rcv.flow("heartbeat", CONFIRM, b"EMPTYLUW")
    assert qm.record == (2, b"EMPTYLUW") and rcv.answers[-1] == AnswerStatus(0)


def test_given_an_idle_channel_when_a_heartbeat_asks_then_one_goes_back_and_handles_close():
    """Given no batch open, when a heartbeat asking for an answer arrives, then a heartbeat
    goes back, nothing is committed, and the destinations held open are closed (idle); a
    heartbeat during a batch keeps them."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).flow("heartbeat", CONFIRM, NO_LUWID)
    assert rcv.answers == [AnswerHeartbeat()] and qm.commits == 0 and rcv.closed_handles == 1
    rcv.receive(message(1)).flow("heartbeat", 0, NO_LUWID)
    assert rcv.closed_handles == 1


def test_given_a_batch_in_progress_when_the_partner_ends_then_it_is_backed_out():
    """Given message 1 held, when the partner sends STATUS (an error), then the batch is
    backed out and the channel ends with the partner's code; USER_CLOSED is a normal end,
    also backing out what was not confirmed.
    spec: dqm-intercommunication 9.33 (the receiver is never in doubt)"""
    for code in (StatusCode.CAN_NOT_STORE, StatusCode.USER_CLOSED):
        qm = QueueManager("TARGET")
        rcv = Receiver(qm).receive(message(1)).flow("status", int(code))
        assert rcv.ended == PartnerEnded(int(code))
        assert qm.backouts == 1 and qm.depth("TARGET") == 0


def test_given_a_put_of_a_run_fails_when_the_rest_follow_then_order_is_kept():
    """Given arrivals for TARGET, MISSING (no such queue) and TARGET again, when the batch
    ends, then the first run stops at MISSING's (dead-lettered on its own) and the third
    goes in the next run: every arrival in order, the batch committed."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm).receive(message(1), message(2, "MISSING"),
                               message(3, confirm=True))
    assert rcv.runs == [1, 1] and qm.queues["TARGET"].messages == [b"m1", b"m3"]
    assert qm.queues[qm.dead_letter_queue].messages == [
        (CMQC.MQRC_UNKNOWN_OBJECT_NAME, "MISSING", b"m2")]
    assert qm.record == (3, luwid(3))
