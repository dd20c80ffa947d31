"""The sending MCA's batches as a sans-IO state machine: what to send, harden, commit or back
out, told what happened (a message got, the transmission queue empty, a STATUS, the time).

:class:`SenderBatches` owns one channel instance's assured-delivery decisions (docs/channels.md):
where a batch ends (BATCHSZ, BATCHLIM, BATCHINT, the queue empty), the sequence numbers and
their wrap (SEQWRAP), the in-doubt key and sync record that harden a batch, fast batches of
non-persistent messages that are never in doubt, the pipelined batch in flight (at most one
batch in doubt, spec dqm-intercommunication 9.33) and NETTIME's round trips. Nothing here
gets, sends, calls the MQI or reads a clock: the thin trio driver (``sender_mca.SenderMCA``)
carries out the actions and passes the time in.
"""

from __future__ import annotations

import enum

import attrs

from mqpy import CMQC
from mqpy.fap import channeldefs as D
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH
from mqpy.fap.statuscodes import StatusCode
from mqpy.syncrecord import SyncRecord, prepare_key

NO_LUWID = bytes(8)
#: :meth:`SenderBatches.message`'s answer for a message longer than the channel's MAXMSGL
TOO_BIG = -1
#: :meth:`SenderBatches.message`'s answer for the batch's first message: held, nothing to send
HOLD = 0


# --- actions: what the driver does for the machine -----------------------------------------

class Idle(enum.Enum):
    """What the channel does when its transmission queue stays empty."""

    DISCONNECT = "DISCONNECT"  # DISCINT passed since the last batch: end normally
    HEARTBEAT = "HEARTBEAT"  # HBINT passed since the last flow: check the partner


@attrs.frozen
class Harden:
    """Replace the sync record with ``record`` in the batch's unit of work and prepare it under
    ``key`` (the batch is in doubt from then). ``commit``: the key of the batch before it,
    confirmed by the partner (pipelining), committed first in the same round trip."""

    record: SyncRecord
    key: bytes
    commit: bytes | None = None


@attrs.frozen
class CommitGets:
    """A fast batch (non-persistent messages on an NPMSPEED(FAST) channel): commit its gets
    without a log force, never in doubt. ``commit``: the key of the batch before it, confirmed
    by the partner (pipelining), committed first with its log force."""

    commit: bytes | None = None


@attrs.frozen
class BackOut:
    """Back out the in-doubt batch ``key`` (None: none is prepared) and, with ``uow``, the unit
    of work in progress (the gets of the batch after it); then end the channel as the partner's
    STATUS ``code`` says (``code`` None: a protocol error, AMQ9504E)."""

    key: bytes | None
    uow: bool
    code: int | None


@attrs.frozen
class EndChannel:
    """End the channel abnormally with this AMQ message (``retry`` False: STOPPED), the
    partner told ``close`` first when it is set."""

    msgid: str
    text: str
    retry: bool = True
    close: StatusCode | None = None


@attrs.frozen
class Confirmed:
    """The partner committed ``flight``: commit it here (the driver), NETTIME ``micros``."""

    flight: InFlight
    micros: int


#: the answer that was not a STATUS where a batch's confirmation was expected
CONFIRMATION_EXPECTED = EndChannel("AMQ9504E", "Protocol error: batch confirmation expected.")


#: why a message the channel does not send goes to the sender's dead-letter queue
TOO_LONG = (f"is longer than the channel's maximum message length (reason code "
            f"{CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL}, MQRC_MSG_TOO_BIG_FOR_CHANNEL)")
SUPPRESSED = "was suppressed by the channel's message exit (MQXCC_SUPPRESS_FUNCTION)"


def not_dead_lettered(head: str, dest_q: str, dest_qm: str, why: str = "") -> EndChannel:
    """A message the channel does not send (``why``: TOO_LONG, SUPPRESSED) that its
    sender's dead-letter queue did not take: the channel stops with IBM's message for what
    failed (``head``: AMQ9565E's or AMQ9511E's line and explanation,
    ``receiver_batch.not_stored_head``), naming the message's destination and the reason."""
    msgid = "AMQ9565E" if head.startswith("No dead-letter") else "AMQ9511E"
    return EndChannel(
        msgid, f"{head} A message for queue '{dest_q}' at '{dest_qm}' {why or TOO_LONG} and "
        f"could not be put to the dead-letter queue: the batch is backed out, the message "
        f"stays on the transmission queue and the channel stops.", False)
#: the reason a message too long for the channel is dead-lettered at the sender with
TOO_BIG_REASON = CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL


@attrs.define
class InFlight:
    """A batch whose confirm request has gone: in doubt (``key``) until the partner's STATUS.
    With PipeLineLength 2 it stays in flight while the next batch is got and sent."""

    key: bytes | None  # its in-doubt key; None: fast non-persistent messages only
    luwid: bytes
    last_seq: int
    sent: int  # messages
    t0: float  # when its confirm request went (the round trip, NETTIME)
    answered: float | None = None  # when its answer was first seen on the socket


@attrs.define
class SenderBatches:
    """One sending channel instance's batches, from its resynchronisation to its end."""

    channel: str
    # the channel's attributes as agreed with the partner (a definition's defaults here)
    batchsz: int = D.int_attr({}, "BATCHSZ")
    max_msg: int = D.int_attr({}, "MAXMSGL")
    wrap: int = D.int_attr({}, "SEQWRAP")
    batchlim: int = 0  # BATCHLIM in bytes (0: no limit)
    batchint: float = 0.0  # BATCHINT in seconds
    batchhb: float = 0.0  # BATCHHB in seconds
    pipeline: int = 1  # PipeLineLength: 1, or 2
    discint: int = 0  # DISCINT in seconds (0: never)
    hbint: int = 0  # the negotiated HBINT in seconds (0: no heartbeats)
    fast: bool = False  # NPMSPEED(FAST) at both ends
    partner: str = ""
    seq: int = 0  # the last sequence number of the last batch confirmed
    #: the number and LUWID of the sync record: of the last batch with a persistent message,
    #: or of any batch on a normal-speed channel
    hardened: tuple[int, bytes] = (0, NO_LUWID)
    inflight: InFlight | None = None  # PipeLineLength 2: the batch awaiting its STATUS
    # the batch being built
    started: float = 0.0
    cur_seq: int = 0  # the number of the last message sent in it
    sent: int = 0  # messages sent in it (the held one not counted)
    nbytes: int = 0
    recoverable: bool = True  # a unit of work at both ends: hardened and in doubt
    held: bool = False  # a message is held: it may be the batch's last
    full: bool = False
    pending: InFlight | None = None  # the batch ended, its confirm request being sent
    idle_since: float = 0.0  # when the last batch ended (DISCINT)
    last_flow: float = 0.0  # when the last batch or heartbeat flowed (HBINT)

    # ------------------------------------------------------------------ building a batch

    def begin(self, now: float) -> None:
        """A batch begins with a message got at ``now``; pipelined, its numbers follow those of
        the batch still in flight."""
        self.started = now
        self.cur_seq = self.inflight.last_seq if self.inflight is not None else self.seq
        self.sent = self.nbytes = 0
        self.recoverable = not self.fast
        self.held = False

    def message(self, length: int) -> int:
        """A message of ``length`` bytes (its MQXQH included) got: :data:`TOO_BIG` (dead-letter
        it at the sender), :data:`HOLD` (hold it: it may be the last), or the sequence number
        the message held before it goes with now, without a confirm request."""
        if length - XQH_WITH_MD_LENGTH > self.max_msg:
            return TOO_BIG
        self.nbytes += length
        if not self.held:
            self.held = True
            return HOLD
        seq = self.cur_seq = 1 if self.cur_seq >= self.wrap else self.cur_seq + 1
        self.sent += 1
        return seq

    def too_big(self, length: int) -> bool:
        """Is a message of ``length`` bytes (its MQXQH included) longer than the channel's
        agreed maximum message length?"""
        return length - XQH_WITH_MD_LENGTH > self.max_msg

    def persistent_sent(self) -> None:
        """The message just sent is persistent: the batch is a unit of work at both ends."""
        self.recoverable = True

    @property
    def room(self) -> int:
        return self.batchsz - self.sent - self.held

    def drained(self, now: float) -> float | None:
        """No more messages got: None, the batch ends (BATCHSZ messages, BATCHLIM bytes); else
        how long it may wait for more (BATCHINT: only the waiting since its first message
        counts), :attr:`room` messages and :meth:`bytes_left` at most."""
        if self.room <= 0 or (self.batchlim and self.nbytes >= self.batchlim):
            return None
        return max(0.0, self.batchint - (now - self.started))

    def bytes_left(self) -> int:
        """What BATCHLIM leaves for this batch (0: no limit)."""
        return self.batchlim - self.nbytes if self.batchlim else 0

    def confirm_before_waiting(self, wait: float) -> bool:
        """The channel never waits with a batch in flight: BATCHINT's wait first confirms it."""
        return wait > 0 and self.inflight is not None

    # ------------------------------------------------------------------ ending a batch

    def nothing_sent(self) -> bool:
        """Was every message of the batch dead-lettered (commit, nothing to confirm)?"""
        return not self.held and self.sent == 0

    def close(self) -> int:
        """The batch ends: the sequence number of its last message (the held one, if any)."""
        self.full = self.sent + self.held >= self.batchsz or bool(
            self.batchlim and self.nbytes >= self.batchlim)
        if self.held:
            self.cur_seq = 1 if self.cur_seq >= self.wrap else self.cur_seq + 1
        return self.cur_seq

    def batch_heartbeat_due(self, now: float, last_received: float) -> bool:
        """BATCHHB (seed 003 §2.10): the partner silent longer than it, checked before the
        batch goes in doubt."""
        return bool(self.batchhb) and now - last_received > self.batchhb

    def harden(self, luwid: bytes, last_persistent: bool,
               settled: InFlight | None) -> Harden | CommitGets:
        """The end of the batch under ``luwid``, its last message persistent or not; ``settled``:
        the batch before it, confirmed just now (pipelining), committed with it. A batch with
        a persistent message, or any on a normal-speed channel, is hardened in doubt under a
        key naming the last batch hardened (what the receiver's record holds if it did not
        commit this one); a fast batch's gets are committed."""
        self.recoverable = self.recoverable or last_persistent
        commit = settled.key if settled is not None else None
        if settled is not None:
            self.confirmed(settled)
        last_seq = self.cur_seq
        self.pending = InFlight(None, luwid, last_seq, self.sent + self.held, 0.0)
        if not self.recoverable:
            return CommitGets(commit)
        prev_seq, prev_luwid = self.hardened
        key = self.pending.key = prepare_key(self.channel, prev_seq, last_seq, luwid,
                                             self.partner, prev_luwid=prev_luwid)
        return Harden(SyncRecord(self.channel, "S", last_seq, luwid, self.partner), key, commit)

    def confirm_sent(self, t0: float) -> bool:
        """The batch's confirm request went at ``t0``: is it left in flight (pipelining) while
        the next batch is got, rather than waited for?"""
        flight, self.pending = self.pending, None
        assert flight is not None
        flight.t0 = t0
        if self.pipeline > 1:
            self.inflight = flight
            return True
        self.pending = flight
        return False

    def ahead(self, stopping: bool) -> int:
        """Unpipelined: how many of the next batch's messages to get with this one's commit:
        a batch when this one was full (more are probably waiting), none once a stop is
        asked (the end of the channel would only back them out)."""
        return self.batchsz if self.full and not stopping else 0

    def gets_before_answer(self, ahead: int, monitoring: bool) -> bool:
        """Unpipelined: get the next batch while the partner puts this one? Only when there
        is nothing to commit with the gets (a fast batch) and NETTIME is not measured (it
        would lengthen it)."""
        return self.pending is not None and self.pending.key is None and bool(ahead) \
            and not monitoring

    def answered(self, code: int | None, now: float) -> Confirmed | BackOut:
        """Unpipelined: the partner's answer to the batch waited for (``code`` None: not a
        STATUS). A STATUS error: the receiver backed its batch out, and so does this end (the
        messages stay on the transmission queue; fast non-persistent ones were committed:
        they "may be lost", seed 000)."""
        flight, self.pending = self.pending, None
        assert flight is not None
        if code == 0:
            return Confirmed(flight, int((now - flight.t0) * 1e6))
        if code is None:
            return BackOut(None, False, None)
        return BackOut(flight.key, False, code)

    # ------------------------------------------------------------------ pipelining

    def answer_seen(self, now: float) -> None:
        """The answer to the batch in flight is on the socket (asked without waiting): NETTIME
        is to when it was first seen, not to when it is read."""
        flight = self.inflight
        if flight is not None and flight.answered is None:
            flight.answered = now

    def confirmation(self, code: int | None, now: float) -> Confirmed | BackOut:
        """Pipelining: the partner's answer to the batch in flight (``code`` None: not a
        STATUS), which is no longer in flight. An error STATUS: the partner backed it out, so
        this end backs it out with the unit of work of the batch being got after it (every
        message stays on the transmission queue, in order)."""
        flight, self.inflight = self.inflight, None
        assert flight is not None
        if code == 0:
            answered = flight.answered if flight.answered is not None else now
            return Confirmed(flight, round((answered - flight.t0) * 1e6))
        if code is None:
            return BackOut(None, False, None)
        return BackOut(flight.key, True, code)

    def confirmed(self, flight: InFlight) -> None:
        """``flight`` is committed at both ends: the channel's numbers move on."""
        self.seq = flight.last_seq
        if flight.key is not None:
            self.hardened = (flight.last_seq, flight.luwid)

    # ------------------------------------------------------------------ between batches

    def active(self, now: float) -> None:
        """A batch ended at ``now`` (or the channel started): DISCINT and HBINT count from
        here."""
        self.idle_since = self.last_flow = now

    def when_idle(self, now: float) -> Idle | None:
        """Nothing on the transmission queue at ``now``: disconnect after DISCINT (measured
        from the end of the last batch), a heartbeat after HBINT without a flow (spec
        dqm-intercommunication §2, "Heartbeats ... when the xmitq has no messages")."""
        if self.discint and now - self.idle_since >= self.discint:
            return Idle.DISCONNECT
        if self.hbint and now - self.last_flow >= self.hbint:
            return Idle.HEARTBEAT
        return None

    def heartbeat_done(self, now: float) -> None:
        self.last_flow = now

    def resynced(self, seq: int, luwid: bytes) -> None:
        """The channel starts from its record (after the resynchronisation)."""
        self.seq = seq
        self.hardened = (seq, luwid)
        self.inflight = self.pending = None
