"""An arrival the receiving end cannot put, decided by Delivery and carried out in a
simulated queue manager: message retry (MRRTY, MRTMR), return to sender, the dead-letter
queue (USEDLQ), and when the channel ends instead (seed 000 Fig. 31)."""

from __future__ import annotations

from mqpy import CMQC
from mqpy.fap.statuscodes import StatusCode
from mqpy_chinit.receiver_batch import AnswerStatus, DeadLettered, Discarded, EndChannel

from .receiving import DLQ, START, Clock, QueueManager, Receiver, luwid, message

EXCEPTION_AND_DISCARD = CMQC.MQRO_EXCEPTION_WITH_FULL_DATA | CMQC.MQRO_DISCARD_MSG


def _full(qm: QueueManager, name: str = "TARGET") -> None:
    qm.queues[name].max_depth = 1
    qm.queues[name].messages.append(b"already there")


def test_given_a_full_queue_when_it_is_drained_during_retries_then_the_put_goes():
    """Given TARGET full, MRRTY(3) and MRTMR(1000), when TARGET is drained 1.5 s after the
    put failed, then the put is retried at +1 s (full again) and at +2 s, where it goes: the
    batch is committed with it and STATUS 0 answered, nothing dead-lettered.
    spec: dqm-intercommunication 9.43"""
    clock = Clock()
    qm = QueueManager("TARGET")
    _full(qm)
    clock.at(START + 1.5, lambda: qm.queues["TARGET"].messages.clear())
    rcv = Receiver(qm, retries=3, retry_interval=1.0, clock=clock)
    rcv.receive(message(1, confirm=True))
    assert rcv.retries == [START + 1, START + 2]
    assert qm.queues["TARGET"].messages == [b"m1"] and qm.depth(DLQ) == 0
    assert qm.record == (1, luwid(1)) and rcv.answers == [AnswerStatus(0)]


def test_given_a_full_queue_when_retries_run_out_then_the_message_is_dead_lettered():
    """Given TARGET full, MRRTY(3) and MRTMR(500), when it stays full, then the put is
    retried exactly 3 times, 0.5 s apart, and the message goes to the dead-letter queue
    with reason 2053 (MQRC_Q_FULL), in the batch's unit of work, and AMQ9544 is logged; the
    batch is committed.
    spec: dqm-intercommunication 9.43"""
    qm = QueueManager("TARGET")
    _full(qm)
    rcv = Receiver(qm, retries=3, retry_interval=0.5).receive(message(1, confirm=True))
    assert rcv.retries == [START + 0.5, START + 1.0, START + 1.5]
    assert qm.queues[DLQ].messages == [(CMQC.MQRC_Q_FULL, "TARGET", b"m1")]
    assert rcv.log == [DeadLettered(DLQ, CMQC.MQRC_Q_FULL)]
    assert qm.record == (1, luwid(1)) and rcv.answers == [AnswerStatus(0)]


def test_given_a_put_inhibited_queue_when_a_message_arrives_then_it_is_retried():
    """Given TARGET put-inhibited and MRRTY(2), when a message arrives, then its put is
    retried twice and it is dead-lettered with reason 2051 (MQRC_PUT_INHIBITED)."""
    qm = QueueManager("TARGET")
    qm.queues["TARGET"].put_inhibited = True
    rcv = Receiver(qm, retries=2).receive(message(1, confirm=True))
    assert len(rcv.retries) == 2
    assert qm.queues[DLQ].messages == [(CMQC.MQRC_PUT_INHIBITED, "TARGET", b"m1")]


def test_given_a_missing_queue_when_a_message_arrives_then_it_is_dead_lettered_at_once():
    """Given no queue MISSING and MRRTY(10), when a message for it arrives, then it is not
    retried (no retry would help) and goes to the dead-letter queue with reason 2085."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm, retries=10).receive(message(1, "MISSING", confirm=True))
    assert rcv.retries == []
    assert qm.queues[DLQ].messages == [(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "MISSING", b"m1")]


def test_given_no_dead_letter_queue_when_a_persistent_message_fails_then_the_channel_ends():
    """Given no dead-letter queue, when the second message of a batch cannot be put, then
    the batch is backed out (the first message too; the record unchanged) and the channel
    ends with AMQ9565E (IBM's "No dead-letter queue defined"; AMQ9544 is IBM's message for a
    message the dead-letter queue took), the partner told CAN_NOT_STORE so that the messages
    stay on its transmission queue.
    spec: dqm-intercommunication 9.45"""
    qm = QueueManager("TARGET", dead_letter_queue=None)
    rcv = Receiver(qm).receive(message(1), message(2, "MISSING", confirm=True))
    assert isinstance(rcv.ended, EndChannel) and rcv.ended.msgid == "AMQ9565E"
    assert rcv.ended.status_code == StatusCode.CAN_NOT_STORE and rcv.ended.retry
    assert "MISSING" in rcv.ended.text and "no dead-letter queue" in rcv.ended.text
    assert qm.backouts == 1 and qm.depth("TARGET") == 0 and qm.record == (0, b"\0" * 8)
    assert rcv.answers == []


def test_given_a_full_dead_letter_queue_when_a_message_fails_then_the_channel_ends():
    """Given the dead-letter queue full, when a message cannot be put, then the channel ends
    with AMQ9511E (IBM's "Messages cannot be put to a queue") naming the dead-letter queue
    and why it would not take it (reason 2053)."""
    qm = QueueManager("TARGET")
    _full(qm, DLQ)
    rcv = Receiver(qm).receive(message(1, "MISSING", confirm=True))
    assert rcv.ended.msgid == "AMQ9511E" and "refused it (reason 2053)" in rcv.ended.text
    assert f"put messages to queue '{DLQ}'" in rcv.ended.text
    assert qm.backouts == 1


def test_given_usedlq_no_when_a_message_fails_then_the_channel_ends_despite_a_dlq():
    """Given a dead-letter queue but the channel's USEDLQ(NO), when a persistent message
    cannot be put, then it is not dead-lettered: the batch is backed out and the channel
    ends with AMQ9511E for TARGET's put (IBM: USEDLQ(NO) treats such a message as a failure, "the channel
    ... ends, in accordance with the NPMSPEED setting")."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm, use_dlq=False).receive(message(1, "MISSING", confirm=True))
    assert rcv.ended.msgid == "AMQ9511E" and "USEDLQ(NO)" in rcv.ended.text
    assert "put messages to queue 'MISSING'" in rcv.ended.text
    assert qm.depth(DLQ) == 0 and qm.backouts == 1


def test_given_a_fast_channel_and_no_dlq_when_a_non_persistent_message_fails_it_is_lost():
    """Given NPMSPEED(FAST) and no dead-letter queue, when a non-persistent message for a
    missing queue arrives, then it is discarded and the channel carries on: the next
    message arrives and the batch ends with STATUS 0.
    spec: dqm-intercommunication 9.46"""
    qm = QueueManager("TARGET", dead_letter_queue=None)
    rcv = Receiver(qm, fast=True).receive(message(1, "MISSING", persistent=False),
                                          message(2, persistent=False, confirm=True))
    assert rcv.ended is None and qm.queues["TARGET"].messages == [b"m2"]
    assert rcv.answers == [AnswerStatus(0)] and qm.backouts == 0
    (discard,) = [a for a in rcv.log if isinstance(a, Discarded)]  # and the log says so
    assert discard.msgid == "AMQ9565E"  # no dead-letter queue


def test_given_usedlq_no_on_a_fast_channel_when_a_non_persistent_message_fails_it_is_lost():
    """Given NPMSPEED(FAST) and USEDLQ(NO), when a non-persistent message cannot be put,
    then it is discarded (not dead-lettered) and the channel carries on."""
    qm = QueueManager("TARGET")
    rcv = Receiver(qm, fast=True, use_dlq=False).receive(
        message(1, "MISSING", persistent=False, confirm=True))
    assert rcv.ended is None and qm.depth(DLQ) == 0 and rcv.answers == [AnswerStatus(0)]


def test_given_report_and_discard_when_the_put_fails_then_the_report_goes_not_the_dlq():
    """Given a message asking for an exception report with full data and MQRO_DISCARD_MSG,
    its ReplyToQ REPLIES, when it cannot be put, then the report (feedback 2085) goes to
    REPLIES under syncpoint and the message is not dead-lettered.
    spec: dqm-intercommunication 9.44"""
    qm = QueueManager("TARGET", "REPLIES")
    rcv = Receiver(qm).receive(message(1, "MISSING", confirm=True,
                                       report=EXCEPTION_AND_DISCARD, reply_to="REPLIES"))
    assert qm.queues["REPLIES"].messages == [(CMQC.MQRC_UNKNOWN_OBJECT_NAME, b"m1")]
    assert qm.depth(DLQ) == 0 and rcv.answers == [AnswerStatus(0)]


def test_given_a_report_without_discard_when_the_put_fails_then_report_and_dead_letter():
    """Given a message asking for an exception report without MQRO_DISCARD_MSG, when it
    cannot be put, then the report goes to its ReplyToQ and the message to the DLQ too."""
    qm = QueueManager("TARGET", "REPLIES")
    Receiver(qm).receive(message(1, "MISSING", confirm=True,
                                 report=CMQC.MQRO_EXCEPTION, reply_to="REPLIES"))
    assert qm.depth("REPLIES") == 1 and qm.depth(DLQ) == 1


def test_given_a_report_that_cannot_be_put_when_the_put_fails_then_it_is_dead_lettered():
    """Given a message asking for an exception report and MQRO_DISCARD_MSG whose ReplyToQ
    does not exist, when it cannot be put, then it goes to the dead-letter queue."""
    qm = QueueManager("TARGET")
    Receiver(qm).receive(message(1, "MISSING", confirm=True, report=EXCEPTION_AND_DISCARD,
                                 reply_to="NOWHERE"))
    assert qm.queues[DLQ].messages == [(CMQC.MQRC_UNKNOWN_OBJECT_NAME, "MISSING", b"m1")]


def test_given_a_fast_batch_with_a_report_when_it_ends_then_the_report_is_committed():
    """Given NPMSPEED(FAST), when a non-persistent message that cannot be put is returned to
    its sender (the report goes under syncpoint), then the fast batch's end commits it
    (with no sync record replaced)."""
    qm = QueueManager("TARGET", "REPLIES")
    rcv = Receiver(qm, fast=True).receive(message(
        1, "MISSING", persistent=False, confirm=True, report=EXCEPTION_AND_DISCARD,
        reply_to="REPLIES"))
    assert qm.depth("REPLIES") == 1 and qm.commits == 1 and qm.record == (0, b"\0" * 8)
    assert rcv.answers == [AnswerStatus(0)]
