"""The receiving end of a message channel's batches, as sans-IO state machines.

:class:`ReceiverBatch` is told what arrived (a message, RESYNC, RESET, a heartbeat, the
partner's STATUS) and answers with the actions to carry out. It owns the receiving end's
assured-delivery rules: the sequence-number check and its wrap, when a run of arrivals is
put (PUT_RUN, mqiflows.RUN_BYTES, the confirm request, a fast non-persistent message before
waiting for the network), which puts go outside syncpoint (NPMSPEED(FAST)), how a batch ends
(its sync record replaced and committed, or none for a fast batch; STATUS 0) and what the
answers to RESYNC, RESET, heartbeats and the partner's STATUS are, and where STOP CHANNEL
MODE(QUIESCE) ends the channel (:class:`Quiesced`: at the end of a batch, or at a heartbeat
when no batch is in progress, never inside one). :class:`Delivery` owns one
arrival a plain put did not take: message retry (MRRTY, MRTMR; the clock passed in), the
exception report, the dead-letter queue (USEDLQ), and whether the channel ends for it.

Nothing here calls the MQI, reads the clock or touches a socket: ``receiver_mca`` carries the
actions out (tests/assured_delivery/receiving.py does in a simulated queue manager).
"""

from __future__ import annotations

from typing import Union

import attrs

from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.messagedata import MessageData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ControlFlags1

__all__ = [
    "AnswerHeartbeat", "AnswerReset", "AnswerResync", "AnswerStatus", "BackOut", "BatchDone",
    "CloseHandles", "DeadLettered", "Delivered", "Delivery", "EndChannel", "EndFastBatch",
    "HardenBatch", "PartnerEnded", "PutArrivals", "PutDeadLetter", "PutExceptionReport",
    "Quiesced", "ReceiverBatch", "RetryPut", "PUT_RUN", "RETRIED_REASONS",
]

PUT_RUN = 64  # arrivals a receiver puts in one round trip, at most
NO_LUWID = bytes(8)
_CONFIRM_REQUEST = int(ControlFlags1.CONFIRM_REQUEST)
#: the put failures message retry waits out (seed 000 Fig. 31: "possibly transient")
RETRIED_REASONS = frozenset({CMQC.MQRC_Q_FULL, CMQC.MQRC_PUT_INHIBITED})


# --- actions -----------------------------------------------------------------------------

@attrs.frozen
class PutArrivals:
    """Put the arrivals held so far, in order (runs of plain puts; :class:`Delivery` for one a
    plain put does not take). ``unless_more``: only if nothing more has been received already
    (a fast non-persistent message is visible as soon as it arrives, with those read behind
    it); ``batch_end``: they end the batch (:meth:`ReceiverBatch.end_batch` follows)."""

    unless_more: bool = False
    batch_end: bool = False


PUT_NOW = PutArrivals()
PUT_UNLESS_MORE = PutArrivals(unless_more=True)
PUT_BATCH_END = PutArrivals(batch_end=True)


@attrs.frozen
class HardenBatch:
    """Replace the sync record with (``seq``, ``luwid``) and commit, in one unit of work
    (``made``: the run of the batch's last puts did both already)."""

    seq: int
    luwid: bytes
    made: bool = False


@attrs.frozen
class EndFastBatch:
    """A batch of fast non-persistent messages ended (put outside syncpoint): no sync record;
    ``commit`` when something (an exception report) went under syncpoint meanwhile."""

    seq: int
    luwid: bytes
    commit: bool


@attrs.frozen
class AnswerStatus:
    """Send STATUS with ``code`` (0: the batch is committed)."""

    code: int = 0


@attrs.frozen
class BatchDone:
    """A batch of ``size`` messages is over: count it; what was checked or looked up for it
    (queue types, authorities) is forgotten, and destinations it did not put to are closed."""

    size: int


@attrs.frozen
class AnswerResync:
    """Answer RESYNC with the sync record: the last hardened batch's number and LUWID."""

    seq: int
    luwid: bytes


@attrs.frozen
class AnswerReset:
    """Answer RESET CHANNEL's flow: the sequence number taken."""

    seq: int


@attrs.frozen
class AnswerHeartbeat:
    """Answer a heartbeat that asks for one."""


@attrs.frozen
class CloseHandles:
    """Close every destination the channel holds open (it is idle, or was reset)."""


@attrs.frozen
class BackOut:
    """Back out the unit of work: the batch's puts under syncpoint go."""


@attrs.frozen
class EndChannel:
    """End the channel with ``msgid``: ``text`` in the error log; ``status_code`` the code
    the partner is told (None: not told); ``retry``: whether the sender may retry."""

    msgid: str
    text: str
    retry: bool
    status_code: StatusCode | None


@attrs.frozen
class Quiesced:
    """STOP CHANNEL MODE(QUIESCE) ends the channel here, between batches: the partner is told
    USER_CLOSED (its STATUS, CLOSE_CHANNEL) and the instance ends. Nothing is in progress:
    the last batch is committed and confirmed, the next one not begun."""


@attrs.frozen
class PartnerEnded:
    """The partner ended the channel with STATUS ``code`` (USER_CLOSED: a normal end)."""

    code: int


@attrs.frozen
class RetryPut:
    """Message retry: put the arrival again at time ``at`` (the channel PAUSED meanwhile)."""

    at: float


@attrs.frozen
class PutExceptionReport:
    """Put an exception report (feedback ``reason``) to the arrival's ReplyToQ."""

    reason: int


@attrs.frozen
class PutDeadLetter:
    """Put the arrival to the dead-letter queue with an MQDLH whose Reason is ``reason``."""

    reason: int


@attrs.frozen
class DeadLettered:
    """The arrival is on the dead-letter queue ``queue``: AMQ9544 in the error log."""

    queue: str
    reason: int


def not_stored_head(msgid: str, queue: str, reason: int, qmgr: str) -> str:
    """IBM's message line and explanation for an arrival neither put nor dead-lettered:
    AMQ9565E (no dead-letter queue) or AMQ9511E (the put to ``queue`` failed, ``reason``)."""
    at = f" '{qmgr}'" if qmgr else ""
    if msgid == "AMQ9565E":
        return (f"No dead-letter queue defined. The queue manager{at} does not have a "
                f"defined dead-letter queue.")
    return (f"Messages cannot be put to a queue. The attempt to put messages to queue "
            f"'{queue}' on queue manager{at} failed with reason code {reason}.")


@attrs.frozen
class Discarded:
    """A fast non-persistent arrival neither put nor stored is discarded (behaviour 46);
    the error log says so with IBM's message for what failed last: ``msgid`` (AMQ9565E, no
    dead-letter queue; AMQ9511E, a put to ``queue`` refused with ``reason``)."""

    msgid: str
    queue: str
    reason: int
    problem: str

    def text(self, delivery: Delivery, channel: str, qmgr: str) -> str:
        """The error-log entry: IBM's message line and explanation, then the discard."""
        head = not_stored_head(self.msgid, self.queue, self.reason, qmgr)
        return (f"{head} Channel '{channel}' discarded a non-persistent message "
                f"(NPMSPEED(FAST)) for queue '{delivery.dest_q}' at "
                f"'{delivery.dest_qm or qmgr}' that could not be put (reason code "
                f"{delivery.reason}): {self.problem}.")


@attrs.frozen
class Delivered:
    """The arrival is dealt with: put, or returned to its sender, or (fast and
    non-persistent) discarded."""


BACK_OUT = BackOut()
CLOSE_HANDLES = CloseHandles()
ANSWER_OK = AnswerStatus(0)
ANSWER_HEARTBEAT = AnswerHeartbeat()
QUIESCED = Quiesced()
DELIVERED = Delivered()

Action = Union[PutArrivals, HardenBatch, EndFastBatch, AnswerStatus, BatchDone, AnswerResync,
               AnswerReset, AnswerHeartbeat, CloseHandles, BackOut, EndChannel, PartnerEnded,
               Quiesced]
DeliveryAction = Union[RetryPut, PutExceptionReport, PutDeadLetter, DeadLettered, Delivered,
                       Discarded, EndChannel]


# --- one arrival a plain put did not take --------------------------------------------------

@attrs.define
class Delivery:
    """One arrival for ``dest_q`` at ``dest_qm`` whose put failed, from its first failure to
    its end: retried, returned to its sender, dead-lettered, discarded or the channel ended
    (seed 000 Fig. 31, spec dqm-intercommunication §8 and behaviours 43-46)."""

    dest_q: str
    dest_qm: str
    outside_syncpoint: bool  # a fast non-persistent message: discarded when not stored
    report: int  # its MQMD's Report
    reply_to: bool  # its MQMD names a ReplyToQ
    retries_left: int  # MRRTY
    interval: float  # MRTMR, seconds
    use_dlq: bool  # USEDLQ
    reason: int = 0

    def put_failed(self, reason: int, now: float) -> DeliveryAction:
        """The put failed with ``reason`` at time ``now``."""
        self.reason = reason
        if reason in RETRIED_REASONS and self.retries_left > 0:
            self.retries_left -= 1
            return RetryPut(now + self.interval)
        return self.refused(reason)

    def refused(self, reason: int) -> DeliveryAction:
        """The arrival cannot be put (``reason``) and no retry would help: return it to its
        sender if asked (MQRO_EXCEPTION and a ReplyToQ), else dead-letter it."""
        self.reason = reason
        if self.report & CMQC.MQRO_EXCEPTION and self.reply_to:
            return PutExceptionReport(reason)
        return self._dead_letter()

    def report_put(self, ok: bool) -> DeliveryAction:
        """The exception report went (``ok``) or not: with MQRO_DISCARD_MSG that is all
        (return to sender), else the message is dead-lettered as well (seed 000 §8)."""
        if ok and self.report & CMQC.MQRO_DISCARD_MSG:
            return DELIVERED
        return self._dead_letter()

    def _dead_letter(self) -> DeliveryAction:
        if not self.use_dlq:
            return self._not_stored("the channel does not use the dead-letter queue "
                                    "(USEDLQ(NO))", "AMQ9511E", self.dest_q, self.reason)
        return PutDeadLetter(self.reason)

    def dead_letter_put(self, queue: str, refused: int | None) -> DeliveryAction:
        """The queue manager's dead-letter queue is ``queue`` ("" : none), and its put was
        ``refused`` with that reason (None: it took the message)."""
        if not queue:
            return self._not_stored("no dead-letter queue", "AMQ9565E", "", self.reason)
        if refused is not None:
            # the operator is told why the DLQ would not take it, not that there is none
            return self._not_stored(f"the dead-letter queue {queue} refused it (reason "
                                    f"{refused})", "AMQ9511E", queue, refused)
        return DeadLettered(queue, self.reason)

    def _not_stored(self, problem: str, msgid: str, queue: str, reason: int
                    ) -> DeliveryAction:
        """Neither put nor stored: a fast non-persistent message is discarded (behaviour 46)
        and logged (``msgid``: the put to ``queue`` failed with ``reason``), anything else
        backs the batch out and ends the channel (behaviour 45)."""
        if self.outside_syncpoint:
            return Discarded(msgid, queue, reason, problem)
        # IBM's message for what failed last (AMQ9565E, AMQ9511E); AMQ9544 is IBM's message
        # for a message the dead-letter queue took, never for one it did not
        return EndChannel(msgid, f"{not_stored_head(msgid, queue or self.dest_q, reason, '')}"
                          f" A message for queue {self.dest_q} at {self.dest_qm} could not be "
                          f"put (reason {self.reason}): {problem}; the batch is backed out.",
                          True, StatusCode.CAN_NOT_STORE)


# --- the batch -----------------------------------------------------------------------------

@attrs.define
class ReceiverBatch:
    """A receiving channel's batches, from its sync record (``seq``, ``luwid``) on."""

    channel: str
    seq: int  # the last sequence number accepted
    luwid: bytes  # the sync record's LUWID: the last hardened batch's
    wrap: int = 999999999  # SEQWRAP, as agreed
    fast: bool = False  # NPMSPEED(FAST) at both ends
    retries: int = 10  # MRRTY
    retry_interval: float = 1.0  # MRTMR, seconds
    use_dlq: bool = True  # USEDLQ
    hardened_seq: int = attrs.field()  # the sync record's sequence number
    recoverable: bool = attrs.field()  # this batch is a unit of work (mca module docstring)
    in_batch: int = 0  # messages this batch has had
    pending: list[MessageData] = attrs.Factory(list)  # received, not yet put
    pending_bytes: int = 0
    visible: bool = False  # pending holds a message that is to be visible at once
    done: int = 0  # of pending, those put (or delivered) already
    delivered: bool = False  # this batch had a put beyond a plain run (a report may be in it)
    last_luwid: bytes = NO_LUWID  # the LUWID of the last batch's end

    @hardened_seq.default
    def _hardened(self) -> int:
        return self.seq

    @recoverable.default
    def _recoverable(self) -> bool:
        return not self.fast

    # --- arrivals

    def message(self, ev: MessageData) -> PutArrivals | tuple[Action, ...] | None:
        """A message arrived: None to hold it (most do), or what to do now."""
        seq = self.seq
        expected = 1 if seq >= self.wrap else seq + 1
        if ev.seqnum != expected:
            return self.cannot_continue(EndChannel(
                "AMQ9526E", f"Message sequence number error for channel {self.channel}: "
                f"sent {ev.seqnum}, expected {expected}.", False, StatusCode.MSG_SEQUENCE_ERROR))
        self.seq = expected
        self.in_batch += 1
        pending = self.pending
        pending.append(ev)
        self.pending_bytes += len(ev.data)
        if ev.persistent:
            self.recoverable = True  # a unit of work at both ends
        elif self.fast:
            self.visible = True
        # (an int's test: an IntFlag's & is Python code, and this is every message)
        if int(ev.flags) & _CONFIRM_REQUEST:
            self.last_luwid = ev.luwid
            return PUT_BATCH_END
        if len(pending) >= PUT_RUN or self.pending_bytes >= mqiflows.RUN_BYTES:
            return PUT_NOW
        if self.visible:
            # before waiting for the network: a fast non-persistent message is visible as
            # soon as it has arrived (seed 000 §3), in order; puts under syncpoint wait for
            # the batch's end (nobody sees them before it)
            return PUT_UNLESS_MORE
        return None

    def outside_syncpoint(self, ev: MessageData) -> bool:
        """Is this arrival put outside syncpoint: a fast non-persistent message (behaviour 47)?"""
        return self.fast and not ev.persistent

    def batch_record(self) -> tuple[int, bytes] | None:
        """The sync record the puts ending this batch replace (None: a fast batch has none)."""
        return (self.seq, self.last_luwid) if self.recoverable else None

    # --- the put cycle

    def to_put(self) -> list[MessageData]:
        """The arrivals held and not yet put, in order (empty: none)."""
        return self.pending if not self.done else self.pending[self.done:]

    def run_put(self, count: int) -> MessageData | None:
        """A run of plain puts took the next ``count`` arrivals: the arrival that needs a
        :class:`Delivery` of its own (the run stopped at it), or None when all are put."""
        self.done += count
        if self.done >= len(self.pending):
            self.all_put()
            return None
        ev = self.pending[self.done]
        self.done += 1
        self.delivered = True  # (a Delivery may put a report under syncpoint)
        return ev

    def all_put(self) -> None:
        """Every arrival held is dealt with (or the batch is being backed out)."""
        self.pending.clear()
        self.pending_bytes = self.done = 0
        self.visible = False

    def delivery(self, ev: MessageData, dest_q: str, dest_qm: str, report: int,
                 reply_to: bool) -> Delivery:
        """The :class:`Delivery` of an arrival a plain put did not take."""
        return Delivery(dest_q, dest_qm, self.outside_syncpoint(ev), report, reply_to,
                        self.retries, self.retry_interval, self.use_dlq)

    def end_batch(self, made: bool, quiescing: bool = False) -> tuple[Action, ...]:
        """The confirm request's arrivals are put (``made``: the run of the last ones also
        replaced the sync record and committed): harden the batch, answer STATUS 0; then,
        ``quiescing`` (STOP CHANNEL MODE(QUIESCE) asked meanwhile), the channel ends."""
        if self.recoverable:
            end: Action = self._harden(self.seq, self.last_luwid, made)
        else:
            end = EndFastBatch(self.seq, self.last_luwid, self.delivered)
        self.delivered = False
        self.recoverable = not self.fast
        size, self.in_batch = self.in_batch, 0
        if quiescing:
            return end, ANSWER_OK, BatchDone(size), QUIESCED
        return end, ANSWER_OK, BatchDone(size)

    def _harden(self, seq: int, luwid: bytes, made: bool = False) -> HardenBatch:
        self.seq = self.hardened_seq = seq
        self.luwid = self.last_luwid = luwid
        self.delivered = False
        return HardenBatch(seq, luwid, made)

    # --- other flows

    def other_flow(self) -> PutArrivals | None:
        """Something other than a message arrived: the arrivals held are put first."""
        return PUT_NOW if self.pending else None

    def resync(self) -> AnswerResync:
        """RESYNC: the sender asks what the last hardened batch was."""
        return AnswerResync(self.hardened_seq, self.luwid)

    def reset(self, seq: int) -> tuple[Action, ...]:
        """RESET from the sender's operator: take its number (RESET CHANNEL SEQNUM)."""
        return BACK_OUT, self._harden(seq, NO_LUWID), AnswerReset(seq), CLOSE_HANDLES

    def heartbeat(self, flags: int, luwid: bytes, quiescing: bool = False
                  ) -> tuple[Action, ...]:
        """A heartbeat: a confirm request with a LUWID is an empty batch's end (every message
        was dead-lettered at the sender); one without asks for a heartbeat back. With no
        batch open the channel is idle: its destinations are not held open meanwhile, and
        ``quiescing`` (STOP CHANNEL MODE(QUIESCE) asked while idle) it ends here, the
        partner's heartbeat answered by the USER_CLOSED that ends it; a batch heartbeat
        inside a batch leaves the stop to that batch's end."""
        ends = quiescing and self.in_batch == 0
        actions: tuple[Action, ...] = ()
        if flags & _CONFIRM_REQUEST:
            if luwid != NO_LUWID:
                actions = (self._harden(self.seq, luwid), ANSWER_OK)
            elif not ends:
                actions = (ANSWER_HEARTBEAT,)
        if self.in_batch == 0:
            actions += (CLOSE_HANDLES,)
        if ends:
            actions += (QUIESCED,)
        return actions

    def partner_status(self, code: int) -> tuple[Action, ...]:
        """The partner sent STATUS (an error, or USER_CLOSED): the batch is backed out."""
        self.all_put()
        return BACK_OUT, PartnerEnded(code)

    def cannot_continue(self, end: EndChannel) -> tuple[Action, ...]:
        """A sequence error or an arrival that could not be stored: back out, end."""
        self.all_put()
        return BACK_OUT, end
