"""Where a receiving channel's batch machine ends the channel when STOP CHANNEL MODE(QUIESCE)
asked it to (``quiescing``): after the batch in progress is hardened and confirmed, or at a
heartbeat when no batch is in progress, never inside a batch (IBM, STOP CHANNEL MODE
QUIESCE). The machine alone: no sockets, no queue manager."""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy.fap.messagedata import MessageData
from mqpy.fap.tsh import ControlFlags1
from mqpy_chinit.receiver_batch import (
    ANSWER_OK,
    NO_LUWID,
    AnswerHeartbeat,
    BatchDone,
    CloseHandles,
    HardenBatch,
    Quiesced,
    ReceiverBatch,
)

CONFIRM = int(ControlFlags1.CONFIRM_REQUEST)


def _message(seq: int, *, confirm: bool = False) -> MessageData:
    md = mqpy.MD(Persistence=1)
    xqh = mqpy.XQH(RemoteQName=b"TARGET", RemoteQMgrName=b"QM2", MsgDesc=md)
    return MessageData(seqnum=seq, xqh=xqh.pack(CMQC.MQENC_INTEGER_REVERSED),
                       data=b"%d" % seq, luwid=seq.to_bytes(8, "big") if confirm else bytes(8),
                       flags=ControlFlags1.CONFIRM_REQUEST if confirm else ControlFlags1.NONE)


def test_a_quiesced_batch_ends_the_channel_after_it_is_hardened_and_confirmed():
    """Given a batch of two messages in progress, when its confirm request arrives with a
    stop requested, then the batch is hardened, STATUS 0 answered and counted, and only
    then the channel ends (Quiesced last)."""
    batch = ReceiverBatch("QM1.TO.QM2", 0, NO_LUWID)
    assert batch.message(_message(1)) is None
    batch.message(_message(2, confirm=True))
    batch.all_put()
    actions = batch.end_batch(False, quiescing=True)
    assert [type(a) for a in actions] == [HardenBatch, type(ANSWER_OK), BatchDone, Quiesced]
    assert actions[0].seq == 2


def test_a_batch_without_a_stop_request_does_not_end_the_channel():
    """Given a batch ending with no stop requested, then no Quiesced is among its actions."""
    batch = ReceiverBatch("QM1.TO.QM2", 0, NO_LUWID)
    batch.message(_message(1, confirm=True))
    batch.all_put()
    assert not any(isinstance(a, Quiesced) for a in batch.end_batch(False))


def test_an_idle_channel_quiesced_ends_at_a_heartbeat_instead_of_answering_it():
    """Given no batch in progress and a stop requested, when a heartbeat asking for an
    answer arrives, then it is not answered with a heartbeat: the channel ends (its
    USER_CLOSED is the answer), its destinations closed first."""
    batch = ReceiverBatch("QM1.TO.QM2", 5, NO_LUWID)
    actions = batch.heartbeat(CONFIRM, NO_LUWID, quiescing=True)
    assert [type(a) for a in actions] == [CloseHandles, Quiesced]
    assert [type(a) for a in batch.heartbeat(CONFIRM, NO_LUWID)] == [AnswerHeartbeat,
                                                                      CloseHandles]


def test_an_empty_batch_ending_at_a_heartbeat_is_hardened_before_the_quiesced_end():
    """Given a stop requested, when a heartbeat ends an empty batch (a LUWID: every message
    dead-lettered at the sender), then it is hardened and answered STATUS 0 before the
    channel ends."""
    batch = ReceiverBatch("QM1.TO.QM2", 5, NO_LUWID)
    actions = batch.heartbeat(CONFIRM, (7).to_bytes(8, "big"), quiescing=True)
    assert [type(a) for a in actions] == [HardenBatch, type(ANSWER_OK), CloseHandles,
                                          Quiesced]


def test_a_batch_heartbeat_inside_a_batch_leaves_the_stop_to_the_batch_end():
    """Given a batch in progress (a message received, no confirm request yet) and a stop
    requested, when a batch heartbeat arrives, then it is answered and the channel goes on:
    the batch is not cut short."""
    batch = ReceiverBatch("QM1.TO.QM2", 0, NO_LUWID)
    batch.message(_message(1))
    actions = batch.heartbeat(CONFIRM, NO_LUWID, quiescing=True)
    assert [type(a) for a in actions] == [AnswerHeartbeat]
