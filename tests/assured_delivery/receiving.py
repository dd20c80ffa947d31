"""A simulated queue manager for the receiving end of a channel, and the driver that carries
out what a ``ReceiverBatch`` decides there, as ``ReceiverMCA`` does with the MQI: no socket,
no trio, no queue manager. Destination queues can be full, missing or put-inhibited; there is
a dead-letter queue or none, one unit of work, the channel's sync record and a clock that
message retry's waits advance (events can be set for a time: a queue drained, say)."""

from __future__ import annotations

from collections.abc import Callable

import attrs

import mqpy
from mqpy import CMQC
from mqpy.fap.messagedata import MessageData
from mqpy.fap.tsh import ControlFlags1
from mqpy_chinit.receiver_batch import (
    DELIVERED,
    NO_LUWID,
    Action,
    AnswerHeartbeat,
    AnswerReset,
    AnswerResync,
    AnswerStatus,
    BackOut,
    BatchDone,
    CloseHandles,
    DeadLettered,
    Delivery,
    DeliveryAction,
    Discarded,
    EndChannel,
    EndFastBatch,
    HardenBatch,
    PartnerEnded,
    PutArrivals,
    PutDeadLetter,
    PutExceptionReport,
    ReceiverBatch,
    RetryPut,
)

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
START = 1_000.0


class Clock:
    """The simulated time, and what is to happen at a time (run as the clock passes it)."""

    def __init__(self, now: float = START) -> None:
        self.now = now
        self.events: list[tuple[float, Callable[[], None]]] = []

    def at(self, when: float, event: Callable[[], None]) -> None:
        self.events.append((when, event))

    def advance_to(self, when: float) -> None:
        for due, event in sorted(self.events, key=lambda e: e[0]):
            if due <= when:
                self.events.remove((due, event))
                event()
        self.now = max(self.now, when)


@attrs.define
class Queue:
    """A destination queue: its committed messages (application data, or for the dead-letter
    queue (MQDLH Reason, destination, data))."""

    name: str
    max_depth: int = 1000
    put_inhibited: bool = False
    messages: list = attrs.Factory(list)


class Refused(Exception):
    def __init__(self, reason: int) -> None:
        super().__init__(reason)
        self.reason = reason


class QueueManager:
    """Queues, one unit of work (puts under syncpoint and the record's replacement) and the
    channel's sync record."""

    def __init__(self, *queues: str, dead_letter_queue: str | None = DLQ) -> None:
        self.queues = {name: Queue(name) for name in queues}
        self.dead_letter_queue = dead_letter_queue or ""
        if dead_letter_queue:
            self.queues[dead_letter_queue] = Queue(dead_letter_queue)
        self.record = (0, NO_LUWID)  # the committed sync record
        self.uow: list[tuple[str, object]] = []  # puts under syncpoint, not committed
        self.uow_record: tuple[int, bytes] | None = None
        self.commits = self.backouts = 0

    def depth(self, name: str) -> int:
        return len(self.queues[name].messages)

    def put(self, name: str, message: object, syncpoint: bool) -> None:
        q = self.queues.get(name)
        if q is None:
            raise Refused(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        if q.put_inhibited:
            raise Refused(CMQC.MQRC_PUT_INHIBITED)
        if len(q.messages) + sum(1 for n, _ in self.uow if n == name) >= q.max_depth:
            raise Refused(CMQC.MQRC_Q_FULL)
        if syncpoint:
            self.uow.append((name, message))
        else:
            q.messages.append(message)

    def replace_record(self, seq: int, luwid: bytes) -> None:
        self.uow_record = (seq, luwid)

    def commit(self) -> None:
        for name, message in self.uow:
            self.queues[name].messages.append(message)
        if self.uow_record is not None:
            self.record = self.uow_record
        self.uow, self.uow_record = [], None
        self.commits += 1

    def backout(self) -> None:
        self.uow, self.uow_record = [], None
        self.backouts += 1


def message(seq: int, queue: str = "TARGET", *, persistent: bool = True,
            confirm: bool = False, report: int = 0, reply_to: str = "",
            data: bytes | None = None) -> MessageData:
    """An arrival for ``queue`` (at this queue manager) with sequence number ``seq``; the
    batch's last one with ``confirm`` (its LUWID made of ``seq``)."""
    md = mqpy.MD(Persistence=int(persistent), Report=report,
                 ReplyToQ=reply_to.encode(), ReplyToQMgr=b"QM2" if reply_to else b"")
    xqh = mqpy.XQH(RemoteQName=queue.encode(), RemoteQMgrName=b"QM2", MsgDesc=md)
    return MessageData.from_xqh(
        seq, xqh, b"m%d" % seq if data is None else data,
        flags=ControlFlags1.CONFIRM_REQUEST if confirm else ControlFlags1.NONE,
        luwid=luwid(seq) if confirm else NO_LUWID)


def luwid(seq: int) -> bytes:
    return b"LUW" + seq.to_bytes(5, "big")


def batch(first: int, last: int, queue: str = "TARGET", **kw) -> list[MessageData]:
    """Messages ``first`` to ``last``, the last one asking for confirmation."""
    return [message(n, queue, confirm=n == last, **kw) for n in range(first, last + 1)]


class Ended(Exception):
    """The channel ended: how (EndChannel, or PartnerEnded)."""

    def __init__(self, how: object) -> None:
        super().__init__(how)
        self.how = how


class Receiver:
    """Carries out a ReceiverBatch's actions on a simulated queue manager, and records what
    it answered the sender, the runs of puts it made, its waits and its error log."""

    def __init__(self, qm: QueueManager, *, fast: bool = False, wrap: int = 999999999,
                 retries: int = 10, retry_interval: float = 1.0, use_dlq: bool = True,
                 clock: Clock | None = None) -> None:
        self.qm = qm
        self.clock = clock or Clock()
        seq, luw = qm.record
        self.batch = ReceiverBatch("TO.QM2", seq, luw, wrap=wrap, fast=fast, retries=retries,
                                   retry_interval=retry_interval, use_dlq=use_dlq)
        self.answers: list[Action] = []  # what went back to the sender
        self.runs: list[int] = []  # the size of each run of plain puts
        self.round_trips = 0  # calls to the queue manager: runs, hardenings apart
        self.retries: list[float] = []  # when each message retry was made
        self.log: list[DeadLettered | Discarded] = []  # what the error log says of them
        self.batches: list[int] = []  # the size of each batch counted
        self.closed_handles = 0
        self.ended: object = None

    # --- events in

    def receive(self, *events: MessageData, more: bool = False) -> Receiver:
        """The messages arrive in order (``more``: with more already received behind the
        last); the channel ending stops there (:attr:`ended`)."""
        try:
            for ev in events:
                action = self.batch.message(ev)
                if action is None:
                    continue
                if type(action) is PutArrivals:
                    if action.unless_more and more:
                        continue
                    made = self.put_held(action.batch_end)
                    if not action.batch_end:
                        continue
                    action = self.batch.end_batch(made)
                self.carry_out(action)
        except Ended as end:
            self.ended = end.how
        return self

    def flow(self, kind: str, *args: object) -> Receiver:
        """Another flow: ``resync``, ``reset`` (seq), ``heartbeat`` (flags, luwid) or
        ``status`` (code)."""
        try:
            if self.batch.other_flow() is not None:
                self.put_held()
            self.carry_out(getattr(self.batch, {"status": "partner_status"}.get(kind, kind))(
                *args))
        except Ended as end:
            self.ended = end.how
        return self

    # --- actions out

    def carry_out(self, actions: tuple[Action, ...] | Action) -> None:
        for action in actions if isinstance(actions, tuple) else (actions,):
            if isinstance(action, HardenBatch):
                if not action.made:
                    self.round_trips += 1
                    self.qm.replace_record(action.seq, action.luwid)
                    self.qm.commit()
            elif isinstance(action, EndFastBatch):
                if action.commit:
                    self.qm.commit()
            elif isinstance(action, AnswerStatus | AnswerResync | AnswerReset | AnswerHeartbeat):
                self.answers.append(action)
            elif isinstance(action, BatchDone):
                self.batches.append(action.size)
            elif isinstance(action, CloseHandles):
                self.closed_handles += 1
            elif isinstance(action, BackOut):
                self.qm.backout()
            elif isinstance(action, EndChannel | PartnerEnded):
                raise Ended(action)
            else:
                raise AssertionError(f"an action the simulator does not know: {action!r}")

    def put_held(self, batch_end: bool = False) -> bool:
        """Runs of plain puts, each stopping at a put that fails; that one delivered."""
        b = self.batch
        end = b.batch_record() if batch_end else None
        made = False
        while evs := b.to_put():
            count = 0
            for ev in evs:
                try:
                    self.qm.put(self._queue(ev), ev.data, not b.outside_syncpoint(ev))
                except Refused:
                    break
                count += 1
            self.runs.append(count)
            self.round_trips += 1
            made = end is not None and count == len(evs)
            if made:  # the record and the commit go with the run's puts
                self.qm.replace_record(*end)
                self.qm.commit()
            ev = b.run_put(count)
            if ev is None:
                break
            problem = self.deliver(ev)
            if problem is not None:
                self.carry_out(b.cannot_continue(problem))
            made = False
        return made

    @staticmethod
    def _queue(ev: MessageData) -> str:
        return ev.transmission_header.RemoteQName.rstrip(b" \x00").decode()

    def deliver(self, ev: MessageData) -> EndChannel | None:
        md = ev.md
        delivery = self.batch.delivery(ev, self._queue(ev), "QM2", md.Report,
                                       bool(md.ReplyToQ.strip(b" \x00")))
        while True:
            try:
                self.qm.put(delivery.dest_q, ev.data, not delivery.outside_syncpoint)
            except Refused as refused:
                action = delivery.put_failed(refused.reason, self.clock.now)
                if isinstance(action, RetryPut):
                    self.clock.advance_to(action.at)
                    self.retries.append(self.clock.now)
                    continue
            else:
                action = DELIVERED
            return self._not_delivered(delivery, action, ev)

    def _not_delivered(self, delivery: Delivery, action: DeliveryAction, ev: MessageData
                       ) -> EndChannel | None:
        while True:
            if isinstance(action, PutExceptionReport):
                try:
                    self.qm.put(ev.md.ReplyToQ.rstrip(b" \x00").decode(),
                                (action.reason, ev.data), True)
                except Refused:
                    action = delivery.report_put(False)
                else:
                    action = delivery.report_put(True)
            elif isinstance(action, PutDeadLetter):
                queue = self.qm.dead_letter_queue
                refused = None
                if queue:
                    try:
                        self.qm.put(queue, (action.reason, delivery.dest_q, ev.data),
                                    not delivery.outside_syncpoint)
                    except Refused as e:
                        refused = e.reason
                action = delivery.dead_letter_put(queue, refused)
            elif isinstance(action, (DeadLettered, Discarded)):
                self.log.append(action)
                return None
            elif isinstance(action, EndChannel):
                return action
            else:
                assert action is DELIVERED
                return None
