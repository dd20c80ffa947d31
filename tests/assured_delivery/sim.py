"""A sending channel simulated without sockets: a transmission queue with its unit of work and
prepared (in-doubt) units of work, a log that can crash at any named step, a scripted receiver
that answers each confirm request with a STATUS, and a clock. :class:`SimSender` drives
``sender_batch.SenderBatches`` and ``resync`` the way ``sender_mca.SenderMCA`` does.
"""

from __future__ import annotations

from collections import Counter, deque

import attrs

from mqpy.fap import channeldefs as D
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH
from mqpy.fap.statuscodes import StatusCode
from mqpy.syncrecord import InDoubt, SyncRecord, parse_prepare_key
from mqpy_chinit import resync
from mqpy_chinit.receiver_batch import not_stored_head
from mqpy_chinit.sender_batch import (
    NO_LUWID,
    TOO_BIG,
    TOO_BIG_REASON,
    BackOut,
    Confirmed,
    EndChannel,
    Harden,
    InFlight,
    SenderBatches,
    not_dead_lettered,
)

CHANNEL = "QM1.TO.QM2"
PARTNER = "QM2"
#: the steps of a batch at which the sending queue manager may crash, in order
STEPS = ("harden", "prepared", "confirm-sent", "answered", "committed")


class Crash(Exception):  # noqa: N818 - it is an event
    """The sending queue manager stopped at a step (the connection is lost with it)."""


class Ended(Exception):  # noqa: N818 - it is an event
    """The channel ended abnormally: the machine's EndChannel, or the partner's STATUS."""

    def __init__(self, end: EndChannel | None = None, code: int | None = None) -> None:
        super().__init__(end.msgid if end is not None else f"STATUS {code}")
        self.end, self.code = end, code


@attrs.define(order=True)
class Msg:
    """A message on the transmission queue: ``n`` is its place in the queue's order."""

    n: int
    persistent: bool = True
    length: int = XQH_WITH_MD_LENGTH + 1024


class Clock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@attrs.define
class Log:
    """The sending queue manager's log: it crashes at the ``nth`` time it reaches step
    ``crash_at`` (None: never)."""

    crash_at: str | None = None
    nth: int = 1
    reached: Counter = attrs.Factory(Counter)

    def step(self, name: str) -> None:
        self.reached[name] += 1
        if name == self.crash_at and self.reached[name] == self.nth:
            self.crash_at = None
            raise Crash(name)


@attrs.define
class Xmitq:
    """A transmission queue: the messages ready, the connection's unit of work (gets, the
    sync record, dead letters), units of work prepared under in-doubt keys, the committed
    sync record and dead-letter queue, and messages that arrive later (``arrivals``)."""

    clock: Clock
    ready: list[Msg] = attrs.Factory(list)
    arrivals: list[tuple[float, Msg]] = attrs.Factory(list)
    uow: list[Msg] = attrs.Factory(list)
    uow_record: SyncRecord | None = None
    uow_dead: list[Msg] = attrs.Factory(list)
    prepared: dict[bytes, tuple[list[Msg], SyncRecord | None, list[Msg]]] = \
        attrs.Factory(dict)
    record: SyncRecord = attrs.Factory(lambda: SyncRecord(CHANNEL, "S"))
    dlq: list[Msg] | None = attrs.Factory(list)  # None: no dead-letter queue
    most_in_doubt: int = 0
    waited_in_doubt: bool = False  # a get waited with a batch prepared

    def put(self, *msgs: Msg) -> None:
        self.ready.extend(msgs)

    def get(self, count: int, max_bytes: int = 0, wait: float = 0.0) -> list[Msg]:
        """An MQGET (waiting up to ``wait`` seconds of the clock) and the run of gets after
        it, as the sending MCA gets a batch's messages: the first whatever ``count`` and
        ``max_bytes`` say, then up to ``count`` in all, the one reaching ``max_bytes`` (0: no
        limit) the last."""
        got = self.run(1, 0, wait)
        if got and count > 1 and not (max_bytes and got[0].length >= max_bytes):
            got += self.run(count - 1, max_bytes - got[0].length if max_bytes else 0)
        return got

    def run(self, count: int, max_bytes: int = 0, wait: float = 0.0) -> list[Msg]:
        """A run of gets: up to ``count`` messages already there (the one reaching
        ``max_bytes`` the last)."""
        self._arrive(self.clock.now)
        if not self.ready and wait > 0:
            self.waited_in_doubt = self.waited_in_doubt or bool(self.prepared)
            due = [t for t, _ in self.arrivals if t <= self.clock.now + wait]
            self.clock.now = min(due) if due else self.clock.now + wait
            self._arrive(self.clock.now)
        got: list[Msg] = []
        nbytes = 0
        while self.ready and len(got) < count and not (max_bytes and nbytes >= max_bytes):
            msg = self.ready.pop(0)
            got.append(msg)
            nbytes += msg.length
        self.uow.extend(got)
        return got

    def _arrive(self, now: float) -> None:
        self.ready.extend(m for t, m in self.arrivals if t <= now)
        self.arrivals = [(t, m) for t, m in self.arrivals if t > now]

    def commit(self) -> None:
        self._done(self.uow_record, self.uow_dead)
        self.uow, self.uow_record, self.uow_dead = [], None, []

    def prepare(self, key: bytes) -> None:
        self.prepared[key] = (self.uow, self.uow_record, self.uow_dead)
        self.uow, self.uow_record, self.uow_dead = [], None, []
        self.most_in_doubt = max(self.most_in_doubt, len(self.prepared))

    def resolve(self, key: bytes, commit: bool) -> None:
        msgs, record, dead = self.prepared.pop(key)
        if commit:
            self._done(record, dead)
        else:
            self.ready = sorted(self.ready + msgs)

    def backout(self) -> None:
        self.ready = sorted(self.ready + self.uow)
        self.uow, self.uow_record, self.uow_dead = [], None, []

    def _done(self, record: SyncRecord | None, dead: list[Msg]) -> None:
        if record is not None:
            self.record = record
        if dead:
            assert self.dlq is not None
            self.dlq.extend(dead)

    def indoubt(self) -> InDoubt | None:
        assert len(self.prepared) <= 1, "more than one batch in doubt"
        return parse_prepare_key(next(iter(self.prepared))) if self.prepared else None


@attrs.define
class Receiver:
    """A scripted receiving MCA: it checks each message's sequence number, commits a batch at
    its confirm request (its record replaced unless the batch was fast: nothing persistent on
    an NPMSPEED(FAST) channel) and answers STATUS 0, or refuses the batches numbered in
    ``refuse`` (counted from 1) with ``refusal``, dropping what follows until the next start."""

    fast: bool = False
    wrap: int = D.int_attr({}, "SEQWRAP")
    refuse: set[int] = attrs.Factory(set)
    refusal: int = StatusCode.CAN_NOT_STORE
    seq: int = 0
    record: tuple[int, bytes] = (0, NO_LUWID)
    delivered: list[Msg] = attrs.Factory(list)
    batch: list[Msg] = attrs.Factory(list)
    batches: int = 0
    answers: deque = attrs.Factory(deque)
    sequence_errors: list[tuple[int, int]] = attrs.Factory(list)  # (expected, got)
    refused: bool = False
    seen: list[tuple[int, bool]] = attrs.Factory(list)  # (seq, confirm request) as sent

    def message(self, seq: int, msg: Msg, confirm: bool, luwid: bytes) -> None:
        self.seen.append((seq, confirm))
        if self.refused:
            return
        expected = 1 if self.seq >= self.wrap else self.seq + 1
        if seq != expected:
            self.sequence_errors.append((expected, seq))
        self.seq = seq
        self.batch.append(msg)
        if not confirm:
            return
        self.batches += 1
        if self.batches in self.refuse:
            self.batch, self.refused, self.seq = [], True, self.record[0]
            self.answers.append(self.refusal)
            return
        if not self.fast or any(m.persistent for m in self.batch):
            self.record = (seq, luwid)
        self.delivered.extend(self.batch)
        self.batch = []
        self.answers.append(0)

    def answer(self) -> int | None:
        if not self.answers:
            raise Crash("no answer: the partner is gone")
        return self.answers.popleft()

    def restart(self) -> tuple[int, bytes]:
        """The link is lost and the channel starts again: the batch not committed is lost and
        the receiver answers a RESYNC with its record."""
        self.batch, self.refused, self.answers = [], False, deque()
        self.seq = self.record[0]
        return self.record


@attrs.define
class World:
    """The sending queue manager, its log and clock, and its partner."""

    clock: Clock = attrs.Factory(Clock)
    log: Log = attrs.Factory(Log)
    xmitq: Xmitq = attrs.Factory(lambda self: Xmitq(self.clock), takes_self=True)
    receiver: Receiver = attrs.Factory(Receiver)
    luwids: int = 0

    def new_luwid(self) -> bytes:
        self.luwids += 1
        return self.luwids.to_bytes(8, "big")

    def crash(self) -> None:
        """The sending queue manager stops: its unit of work in progress is backed out,
        prepared ones stay in doubt; the receiver loses the batch it had not committed."""
        self.xmitq.backout()


class SimSender:
    """One run of the sending channel over the simulated world, as SenderMCA runs it."""

    def __init__(self, world: World, **config: object) -> None:
        self.w = world
        self.m = SenderBatches(CHANNEL, partner=PARTNER, **config)
        self.actions: list[object] = []  # Harden / CommitGets, in order

    def start(self) -> resync.Resolution:
        xq = self.w.xmitq
        indoubt = xq.indoubt()
        wrong = resync.wrong_partner(CHANNEL, indoubt, PARTNER)
        if wrong is not None:
            raise Ended(wrong)
        rec = resync.committed_record(attrs.evolve(xq.record), indoubt)
        seq, luwid = resync.proposal(rec, indoubt)
        partner_seq, partner_luwid = self.w.receiver.restart()
        decided = resync.resolve(CHANNEL, rec, indoubt, partner_seq, partner_luwid)
        if isinstance(decided, EndChannel):
            raise Ended(decided)
        if indoubt is not None and decided.commit is not None:
            xq.resolve(indoubt.key, decided.commit)
        self.m.resynced(decided.seq, decided.luwid)
        return decided

    def transfer(self) -> None:
        """Batches until the transmission queue stays empty with nothing in flight."""
        firsts: list[Msg] = []
        while True:
            if self.m.inflight is not None and not firsts:
                firsts = self.w.xmitq.run(self.m.batchsz, self.m.batchlim)
                if not firsts:
                    self.settle()
                    continue
            if not firsts:
                firsts = self.w.xmitq.get(1)
                if not firsts:
                    return
            firsts = self.batch(firsts)

    def batch(self, first: list[Msg]) -> list[Msg]:
        m, xq = self.m, self.w.xmitq
        m.begin(self.w.clock.now)
        got = deque(first)
        held: Msg | None = None
        while got:
            msg = got.popleft()
            seq = m.message(msg.length)
            if seq == TOO_BIG:
                if xq.dlq is None:
                    xq.backout()
                    raise Ended(not_dead_lettered(
                        not_stored_head("AMQ9565E", "", TOO_BIG_REASON, "QM1"), "Q", "QM2"))
                xq.uow_dead.append(msg)
            else:
                if seq:
                    assert held is not None
                    self.w.receiver.message(seq, held, False, NO_LUWID)
                    if held.persistent:
                        m.persistent_sent()
                held = msg
            if got:
                continue
            wait = m.drained(self.w.clock.now)
            if wait is None:
                break
            if m.confirm_before_waiting(wait):
                got.extend(xq.get(m.room, m.bytes_left()))
                if got:
                    continue
                self.settle()
                wait = m.drained(self.w.clock.now) or 0.0
            got.extend(xq.get(m.room, m.bytes_left(), wait))
        if m.nothing_sent():
            xq.commit()
            return []
        return self.end_batch(held)

    def end_batch(self, held: Msg | None) -> list[Msg]:
        m, xq, log = self.m, self.w.xmitq, self.w.log
        last_seq = m.close()
        settled = self.confirmation() if m.inflight is not None else None
        luwid = self.w.new_luwid()
        action = m.harden(luwid, held is not None and held.persistent, settled)
        log.step("harden")
        if action.commit is not None:
            xq.resolve(action.commit, True)
        if isinstance(action, Harden):
            xq.uow_record = action.record
            xq.prepare(action.key)
        else:
            xq.commit()
        self.actions.append(action)
        log.step("prepared")
        if held is not None:
            self.w.receiver.message(last_seq, held, True, luwid)
        log.step("confirm-sent")
        if m.confirm_sent(self.w.clock.now):
            return []
        ahead = m.ahead(stopping=False)
        early = xq.run(ahead, m.batchlim) if m.gets_before_answer(ahead, False) else None
        answer = m.answered(self.w.receiver.answer(), self.w.clock.now)
        if isinstance(answer, BackOut):
            self.backed_out(answer)
        log.step("answered")
        if early is not None:
            firsts = early
        else:
            if answer.flight.key is not None:
                xq.resolve(answer.flight.key, True)
            firsts = xq.run(ahead, m.batchlim)
        m.confirmed(answer.flight)
        log.step("committed")
        return firsts

    def confirmation(self) -> InFlight:
        answer = self.m.confirmation(self.w.receiver.answer(), self.w.clock.now)
        if isinstance(answer, BackOut):
            self.backed_out(answer)
        assert isinstance(answer, Confirmed)
        return answer.flight

    def settle(self) -> None:
        flight = self.confirmation()
        if flight.key is not None:
            self.w.xmitq.resolve(flight.key, True)
        self.m.confirmed(flight)

    def backed_out(self, action: BackOut) -> None:
        if action.code is None:
            raise Ended(code=None)
        if action.key is not None:
            self.w.xmitq.resolve(action.key, False)
        if action.uow:
            self.w.xmitq.backout()
        raise Ended(code=action.code)


def run_to_the_end(world: World, **config: object) -> int:
    """Start the channel and move every message, starting it again after each crash; the
    number of starts."""
    starts = 0
    while True:
        starts += 1
        try:
            sender = SimSender(world, **config)
            sender.start()
            sender.transfer()
            return starts
        except Crash:
            world.crash()
