"""The receiving MCA: a RCVR, RQSTR or CLUSRCVR channel's end (trio), the driver of its
batches. ``receiver_batch`` decides (sequence numbers, runs of puts, syncpoint, the batch's
end, message retry, dead-lettering); this module carries its actions out: the conversation,
the MQI calls (runs of puts in one round trip, destinations held open from batch to batch,
PUTAUT's users), the channel's status. STOP CHANNEL MODE(QUIESCE) is a stop request on that
status (``stop_requested``, set by ``startstop``), not a cancel: the batch machine is told of
it at each batch's end and at each heartbeat, and the channel ends there (:class:`Quiesced`);
MODE(FORCE) and TERMINATE cancel the MCA at once."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

import attrs
import trio

import mqpy
from mqpy import CMQC, amqmsgs, syncrecord
from mqpy.engine import reports
from mqpy.fap import channeldefs as D
from mqpy.fap import mqiflows
from mqpy.fap.controlflows import Heartbeat, Ping, Reset, Resync, Status
from mqpy.fap.initialdata import CapFlags1, InitialData
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH, MessageData
from mqpy.fap.mqicalls import Step
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ControlFlags1, Event, SegmentType
from mqpy_chinit import batchcalls, distribution, pings, syncq
from mqpy_chinit.arrivals import arrival, arrival_pmo, as_user, transmission_header
from mqpy_chinit.channelexit import ChannelExits, SuppressedArrival
from mqpy_chinit.conversation import ChannelEnded, Conversation
from mqpy_chinit.mca import (
    CONFIRM_TIMEOUT,
    QmFactory,
    agreed_fast,
    call_id,
    disconnect_abnormally,
    keepalive,
    monitoring,
    mqi,
    open_conversation,
    our_id,
    peer_host,
    respond_id,
    status_error,
)
from mqpy_chinit.putaut import PutAuthority
from mqpy_chinit.receiver_batch import (
    DELIVERED,
    NO_LUWID,
    RETRIED_REASONS,
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
    Quiesced,
    ReceiverBatch,
    RetryPut,
)
from mqpy_chinit.states import ChannelEvent, ChannelState, ChannelStatus
from mqpy_chinit.tlsstream import KeyRepository

BATCH_HANDLES = 8  # destinations (and put users) a receiver opens for a batch, at most
#: seconds a receiver quiesced by STOP CHANNEL goes on reading (and discarding) what its
#: sender sent after the batch it ended, so that the sender reads USER_CLOSED in answer to
#: its next confirm request rather than a connection reset by unread data
QUIESCE_DRAIN = 2.0


ChannelLookup = Callable[[str], "dict[str, object] | None"]


class ReceiverMCA:
    """The responder end of a message channel (RCVR), for one inbound connection."""

    def __init__(self, stream: trio.abc.Stream, local_qm: str, connect_qm: QmFactory,
                 lookup: ChannelLookup, register: Callable[[str, str, ChannelStatus], None]
                 | None = None, *, conversation: Conversation | None = None,
                 first: Event | None = None,
                 autodefine: Callable[[str, InitialData], dict[str, object] | None]
                 | None = None, call_out: tuple[str, dict[str, object]] | None = None,
                 mca_user: str | None = None, log: Callable[[str, str], None] | None = None,
                 key_repository: KeyRepository | None = None,
                 claim: Callable[[], Awaitable[None]] | None = None) -> None:
        """``call_out`` (name, definition): a requester (RQSTR) calling its server.
        ``claim()``: the responder's in-use and adopt rules, once the first flow shows a
        start, not a PING CHANNEL (``pings``); ChannelEnded to refuse it.
        ``mca_user``: the user CHLAUTH admitted the channel as (None: its MCAUSER), whose
        authority the puts use (``putaut``); ``log(msgid, text)``: the channel initiator's
        error log, for messages that do not end the channel. ``key_repository``: the channel
        initiator's QMGR SSLKEYR (a requester with an SSLCIPH calls out with TLS)."""
        self.key_repository = key_repository
        self.claim = claim
        self.exits: ChannelExits | None = None  # MSGEXIT, SENDEXIT, RCVEXIT, SCYEXIT
        self.pinged = False  # the conversation was a PING CHANNEL, answered
        self.stream = stream
        self.conversation = conversation
        self.first = first
        self.autodefine = autodefine
        self.call_out = call_out
        self._qtypes: dict[str, int] = {}  # destination queue -> MQQT_*, for rule 6
        self.local_qm = local_qm
        self.connect_qm = connect_qm
        self.lookup = lookup
        self.register = register
        self.status = ChannelStatus("", "RCVR")
        self.name = ""
        self.definition: dict[str, object] = {}
        self.fast = False  # NPMSPEED(FAST) at both ends (agreed_fast)
        self.wrap = 999999999
        self.hbint = 0
        self.partner = ""
        self.conname = ""  # the partner's address
        self.mca_user = mca_user
        self.log = log or (lambda msgid, text: None)
        self.put_authority = PutAuthority()
        self._may_put: dict[tuple[bytes, bytes], int] = {}  # ALTMCA: the MCA user's check
        # (queue, queue manager, alternate user) -> the batch's open handle for its puts, or
        # None: that destination's arrivals go by MQPUT1 (see _destination)
        self._handles: dict[tuple[bytes, bytes, str | None], int | None] = {}
        self._used: set[tuple[bytes, bytes, str | None]] = set()  # this batch's destinations
        self.syncq: syncq.ChannelSyncQ | None = None  # this run's sync record
        self.batch = self._new_batch(0, NO_LUWID)  # the decisions (_serve's: from the record)

    async def run(self) -> None:
        if self.call_out is not None:
            self.name, self.definition = self.call_out
            self.status.channel = self.name
            self.status.chltype = D.str_attr(self.definition, "CHLTYPE")
            self.conversation = await open_conversation(self.definition, self.status,
                                                        self.key_repository)
            self.stream = self.conversation.stream
        conv = self.conversation or Conversation(self.stream, self.status)
        conv.status = self.status
        qm = None
        try:
            if self.call_out is not None:
                ours = attrs.evolve(our_id(self.name, self.definition, self.local_qm),
                                    cap_flags1=CapFlags1.MSG_SEQ | CapFlags1.SPLIT_MESSAGE
                                    | CapFlags1.REQUEST_INITIATION)
                agreed, self.partner = await call_id(conv, ours)
                self._agreed(agreed)
            else:
                await self._negotiate(conv)
            self.exits = ChannelExits.start(self.name, self.definition, self.partner, conv,
                                            self.status)
            first = None
            if self.call_out is None:
                first = await pings.first_flow(conv, D.receive_timeout(self.hbint))
                if first is None:  # a PING CHANNEL, answered: nothing claimed or registered
                    self.pinged = True
                    return
                await self._claimed()
            qm = await mqi(self.connect_qm)
            self.status.monitor = await monitoring(qm, self.definition)
            if self.status.state is ChannelState.INACTIVE:  # (a requester's is BINDING)
                self.status.move(ChannelEvent.START)
                self.status.move(ChannelEvent.BIND)
            self.status.move(ChannelEvent.NEGOTIATED)
            await self._serve(conv, qm, first)
            self.status.move(ChannelEvent.ENDED)
        except ChannelEnded:
            if self.status.state is not ChannelState.INACTIVE:
                self.status.move(ChannelEvent.ENDED)  # a responder does not retry
            raise
        finally:
            if self.exits is not None:
                self.exits.end()
            with trio.CancelScope(shield=True):
                if self.stream is not None:
                    await self.stream.aclose()
                if qm is not None:
                    await mqi(disconnect_abnormally, qm)

    async def _negotiate(self, conv: Conversation) -> None:
        ev = self.first if self.first is not None else await conv.recv(CONFIRM_TIMEOUT)
        if not isinstance(ev, InitialData):
            await conv.close(StatusCode.PROTOCOL_SEGMENT_TYPE)
            raise ChannelEnded("AMQ9504E", "Protocol error: initial data expected.")
        name = ev.channel_name.strip()
        definition = await trio.to_thread.run_sync(self.lookup, name)
        autodefined = False
        if definition is None and self.autodefine is not None:
            definition = await trio.to_thread.run_sync(self.autodefine, name, ev)
            autodefined = definition is not None
        if definition is None:
            await conv.close(StatusCode.NO_CHANNEL)
            raise ChannelEnded("AMQ9519E", f"Channel '{name}' not found.", False,
                               StatusCode.NO_CHANNEL)
        if D.str_attr(definition, "CHLTYPE") not in ("RCVR", "RQSTR", "CLUSRCVR"):
            await conv.close(StatusCode.CHANNEL_WRONG_TYPE)
            raise ChannelEnded("AMQ9502E", f"Type of channel '{name}' not suitable for action "
                               f"requested.", False, StatusCode.CHANNEL_WRONG_TYPE)
        self.name, self.definition = name, definition
        self.status.channel = name
        self.status.chltype = D.str_attr(definition, "CHLTYPE")
        agreed, self.partner = await respond_id(conv, ev, our_id(name, definition,
                                                                  self.local_qm),
                                                adopt_seq_wrap=autodefined)
        self._agreed(agreed)

    async def _claimed(self) -> None:
        """A channel start: the responder claims the instance, then its status is shown."""
        if self.claim is not None:
            await self.claim()
        if self.register is not None:
            self.register(self.name, self.partner, self.status)

    def _agreed(self, agreed: Any) -> None:
        self.conname = peer_host(self.stream)  # kept in each batch's sync record
        if not self.status.conname:  # a responder's CONNAME in DISPLAY CHSTATUS: the partner's
            self.status.conname = self.conname  # address (a requester shows the one it called)
        self.put_authority = PutAuthority.of(self.definition, self.mca_user)
        self.status.mcauser = self.put_authority.mca_user
        self.fast = agreed_fast(agreed)
        self.status.npmspeed = "FAST" if self.fast else "NORMAL"
        self.hbint = agreed.heartbeat_interval
        self.wrap = agreed.seq_wrap_value
        st = self.status
        st.kaint = keepalive(self.stream, self.definition, self.hbint)
        st.rqmname, st.hbint, st.batchsz = self.partner, self.hbint, agreed.max_msg_batch
        st.maxmsgl = agreed.max_msg_size

    async def _serve(self, conv: Conversation, qm: mqpy.QueueManager,
                     first: Event | None = None) -> None:
        """Receive until the channel ends, carrying out what the batch decides (``first``:
        the flow already received, taken first)."""
        self.syncq = syncq.ChannelSyncQ(qm)
        # a partner's own record, else one RESET CHANNEL made before any partner was known
        rec = await mqi(syncrecord.read, qm, self.name, "R", self.partner) \
            or await mqi(syncrecord.read, qm, self.name, "R", "") \
            or syncrecord.SyncRecord(self.name, "R")
        self.batch = batch = self._new_batch(rec.seq, rec.luwid)
        self.status.last_seqno = self.status.cur_seqno = rec.seq
        self.status.last_luwid = rec.luwid
        timeout = D.receive_timeout(self.hbint)
        while True:
            self.status.substate = "RECEIVE"
            ev, first = (first, None) if first is not None else (await conv.recv(timeout), None)
            if type(ev) is MessageData:  # nearly every flow: first
                action = batch.message(ev if self.exits is None else self.exits.arrival(ev))
                self.status.cur_seqno = batch.seq
                if action is None:
                    continue
                if type(action) is PutArrivals:
                    # (unless_more: read what has arrived behind it without waiting, so
                    # that a run is what the socket holds, not only what the last read
                    # brought)
                    if action.unless_more and conv.received_more():
                        continue
                    made = await self._put_held(conv, qm, action.batch_end)
                    if not action.batch_end:
                        continue
                    action = batch.end_batch(made, bool(self.status.stop_requested))
                await self._carry_out(conv, qm, action)
                continue
            if batch.other_flow() is not None:
                await self._put_held(conv, qm)
            if isinstance(ev, Ping):
                await conv.send(Ping(data=ev.data))  # PING CHANNEL: the data comes back
                continue
            if isinstance(ev, Resync):
                actions: tuple[Action, ...] = (batch.resync(),)
            elif isinstance(ev, Reset):
                actions = batch.reset(ev.seqnum)
            elif isinstance(ev, Heartbeat):
                actions = batch.heartbeat(int(ev.flags), ev.luwid,
                                          bool(self.status.stop_requested))
            elif isinstance(ev, Status):
                actions = batch.partner_status(ev.code)
            else:
                await self._not_a_message_channel_flow(conv, ev)
            if await self._carry_out(conv, qm, actions):
                return

    async def _not_a_message_channel_flow(self, conv: Conversation, ev: Event) -> NoReturn:
        """A flow a sending MCA does not send once the channel has started -- the user-id
        flows of a client channel (USERID_DATA, CONAUTH_INFO), an MQI call, a SOCKET_ACTION,
        an INITIAL_DATA again: a protocol error, as IBM's MCA takes it. The partner is told
        with STATUS (PROTOCOL_SEGMENT_TYPE: IBM's failure type 10, its sender logs
        AMQ9523E) and the channel ends (AMQ9504E); the batch in progress is backed out
        (``run``), to be sent again."""
        segment_type = getattr(ev, "segment_type", None)
        name = segment_type.name if isinstance(segment_type, SegmentType) \
            else f"{type(ev).__name__} (segment type {segment_type!r})"
        code = StatusCode.PROTOCOL_SEGMENT_TYPE
        await conv.close(code)
        raise ChannelEnded("AMQ9504E", f"Protocol error: {name} segment on a message "
                           f"channel after its start (failure type {int(code)}).", True, code)

    def _new_batch(self, seq: int, luwid: bytes) -> ReceiverBatch:
        """The channel's batches from its sync record (``seq``, ``luwid``), as agreed and
        defined (SEQWRAP, NPMSPEED, MRRTY, MRTMR, USEDLQ)."""
        return ReceiverBatch(self.name, seq, luwid, wrap=self.wrap, fast=self.fast,
                             retries=D.int_attr(self.definition, "MRRTY"),
                             retry_interval=D.int_attr(self.definition, "MRTMR") / 1000.0,
                             use_dlq=D.str_attr(self.definition, "USEDLQ") != "NO")

    async def _carry_out(self, conv: Conversation, qm: mqpy.QueueManager,
                         actions: tuple[Action, ...]) -> bool:
        """Carry out the batch's actions, in order: True when the partner closed the channel
        normally; ChannelEnded when it ends otherwise."""
        for action in actions:
            kind = type(action)
            if kind is HardenBatch:
                await self._harden(qm, action)
            elif kind is EndFastBatch:
                if action.commit:
                    await mqi(qm.commit)
                self.status.last_seqno, self.status.last_luwid = action.seq, action.luwid
            elif kind is AnswerStatus:
                await conv.send(Status(code=action.code))
            elif kind is BatchDone:
                self.status.batch_done(action.size, self.status.batchsz or 50)
                self._qtypes.clear()  # definitions may change between batches
                self._may_put.clear()  # and so may authorities
                unused = self._unused_handles()
                if unused:  # after the answer: the sender need not wait for this
                    await mqi(self._close_handles, qm, unused)
            elif kind is AnswerResync:
                await conv.send(Resync(seqnum=action.seq, luwid=action.luwid))
            elif kind is AnswerReset:
                self.status.cur_seqno = action.seq
                await conv.send(Reset(seqnum=action.seq))
            elif kind is AnswerHeartbeat:
                await conv.send(Heartbeat())
            elif kind is CloseHandles:
                if self._handles:
                    await mqi(self._close_handles, qm)
            elif kind is BackOut:
                await mqi(qm.backout)
            elif kind is EndChannel:
                if action.status_code is not None:
                    await conv.close(action.status_code)
                raise ChannelEnded(action.msgid, action.text, action.retry, action.status_code)
            elif kind is PartnerEnded:
                if action.code == StatusCode.USER_CLOSED:
                    return True
                raise status_error(Status(code=action.code))
            elif kind is Quiesced:
                await self._quiesced(conv)
        return False

    async def _quiesced(self, conv: Conversation) -> NoReturn:
        """STOP CHANNEL MODE(QUIESCE) ends the channel between batches: the partner is told
        USER_CLOSED (a sender logs AMQ9528I and retries; a STOPPED channel refuses its
        retries, AMQ9558E there), this end logs AMQ9528I and the instance ends, INACTIVE
        (the channel's own STOPPED mark, when STATUS(STOPPED) was asked, is STOP CHANNEL's;
        a requester is left STOPPED by its ending: ``retry`` False)."""
        stopped = self.status.stop_requested == "STOPPED"
        try:  # (as a sender's quiesced end tells its receiver)
            await conv.send(Status(code=StatusCode.USER_CLOSED,
                                   flags=ControlFlags1.CLOSE_CHANNEL))
            # a sender already sending its next batch: what it sends is not put (the batch
            # is not begun here; the sender backs it out, or resolves it from this end's
            # sync record), only read until it has read the USER_CLOSED and gone
            with trio.move_on_after(QUIESCE_DRAIN):
                while True:
                    await conv.recv(None)
        except ChannelEnded:
            pass  # the partner went: the end is the same
        raise ChannelEnded("AMQ9528I", f"User requested closure of channel "
                           f"'{self.name}' (MODE(QUIESCE), between batches): "
                           f"{'STOPPED' if stopped else 'INACTIVE'}.", not stopped,
                           StatusCode.USER_CLOSED)

    async def _put_held(self, conv: Conversation | None, qm: mqpy.QueueManager,
                        batch_end: bool = False) -> bool:
        """Put the arrivals the batch holds, in order: runs of plain puts, each one
        worker-thread call (or none), and whatever a run could not put through
        :meth:`deliver` (retry, report, DLQ). At the ``batch_end``, the run that puts the
        last arrivals replaces the sync record too when it can, and commits the batch:
        whether it did (else the batch's HardenBatch does both)."""
        batch = self.batch
        end = batch.batch_record() if batch_end else None
        record = None if end is None else self._record(*end)
        committed = False
        while evs := batch.to_put():
            sizes, committed = await self._put_run_in_loop(qm, evs, record)
            if sizes:
                self.status.messages_moved(len(sizes), sum(sizes), sent=False)
            ev = batch.run_put(len(sizes))
            if ev is None:
                break
            problem = await self.deliver(qm, ev)
            if problem is not None:
                await self._carry_out(conv, qm, batch.cannot_continue(problem))
            committed = False  # the record and commit are for the end: after deliver's put
        return committed

    def _put_run(self, qm: mqpy.QueueManager, evs: list[MessageData],
                 record: syncrecord.SyncRecord | None = None
                 ) -> tuple[list[int], bool]:
        """In a worker thread: put arrivals until one needs more than a plain put (a put that
        fails, or rule 6); the sizes of those put. The puts go as one round trip
        (batchcalls.run_quiet: one SPI RUN_QUIET of packed flows over the bindings socket),
        which stops at the first that fails, as one by one would. When all of them are
        plain puts, the same round trip replaces ``record`` (the sync record of the batch
        they end) if the MCA's record is known and commits the batch (an MQCMIT may end an
        SPI RUN, mqiflows.RUN_LAST_VERBS): whether it was."""
        steps, sizes, tail = self._put_steps(qm, evs, record)
        if not steps:
            return [], False  # the first arrival needs deliver: no round trip for nothing
        # the commit ends the same round trip: made only if every call completed, which
        # is when syncq.done holds
        done, committed = batchcalls.run_quiet(qm.connection(), steps + tail, bool(tail))
        put, replaced = self._run_done(sizes, tail, done)
        if replaced and not committed:
            qm.commit()
        return put, replaced

    async def _put_run_in_loop(self, qm: mqpy.QueueManager, evs: list[MessageData],
                               record: syncrecord.SyncRecord | None = None
                               ) -> tuple[list[int], bool]:
        """:meth:`_put_run`, from the event loop when it can be: when every arrival's put
        is ready without a call to the queue manager first (its destination open and its
        checks made earlier: every batch but a channel's first), the run's round trip is
        made on the bindings socket without a worker thread (batchcalls.run_quiet_in_loop),
        else by :meth:`_put_run` in one, as before."""
        handle = qm.connection()
        if batchcalls.in_loop(handle):
            made = self._put_steps(qm, evs, record, may_call=False)
            if made is not None and made[0]:
                steps, sizes, tail = made
                ran = await batchcalls.run_quiet_in_loop(handle, steps + tail, bool(tail))
                if ran is not None:
                    done, committed = ran
                    put, replaced = self._run_done(sizes, tail, done)
                    if replaced and not committed:
                        await mqi(qm.commit)
                    return put, replaced
        return await mqi(self._put_run, qm, evs, record)

    def _put_steps(self, qm: mqpy.QueueManager, evs: list[MessageData],
                   record: syncrecord.SyncRecord | None, *, may_call: bool = True
                   ) -> tuple[list[Step], list[int], list[Step]] | None:
        """The steps of :meth:`_put_run`'s round trip: the puts of the arrivals up to the
        first that needs more than a plain put, their sizes, and the sync record's steps
        (``record``, when every arrival is in the run). ``may_call`` False: None when an
        arrival's put needs a call to the queue manager first (a destination not open yet,
        a check not made yet: :meth:`_ready`), nothing called."""
        steps: list[Step] = []
        sizes: list[int] = []
        carried = 0
        local = self.local_qm.encode("latin-1")
        outside_syncpoint = self.batch.outside_syncpoint
        for ev in evs:
            if type(ev) is SuppressedArrival:
                break  # a message exit's: deliver refuses it
            try:
                dest_q, dest_qm, md, fmt, context_user = arrival(ev)
            except ValueError:  # a transmission header that does not decode: deliver's
                break
            if fmt == CMQC.MQFMT_DIST_HEADER:
                break  # for every destination it names: deliver, after the run's puts
            if steps and carried + len(ev.data) > mqiflows.RUN_BYTES:
                break  # the rest in the next run: one round trip stays a modest flow
            if not may_call and not self._ready(dest_q, dest_qm, context_user, local):
                return None
            sync = CMQC.MQPMO_NO_SYNCPOINT if outside_syncpoint(ev) else CMQC.MQPMO_SYNCPOINT
            try:
                self._second_check(qm, dest_q, dest_qm)
                hobj = self._destination(qm, dest_q, dest_qm, context_user) \
                    if dest_qm in (b"", local) else None
            except mqpy.MQMIError:
                # refused by PUTAUT's second check, or the destination cannot be opened:
                # deliver takes it from here (its MQPUT1 gives the reason)
                break
            if hobj is not None:
                # a local queue of that name, open for the batch: an MQPUT, and rule 6
                # holds (the open resolved to no remote-queue definition)
                step: Step = ("put", (hobj, md, arrival_pmo(
                    sync | CMQC.MQPMO_SET_ALL_CONTEXT), ev.data), False)
            elif dest_qm in (b"", local) and \
                    self._qtype(qm, dest_q.decode("latin-1")) == CMQC.MQQT_REMOTE:
                break
            else:
                step = ("put1", self._arrival_put1(qm, dest_q, dest_qm, md, ev.data, sync,
                                                   context_user), False)
            # nothing of the put's output structures is kept: no need to decode them
            steps.append(step)
            sizes.append(len(ev.data))
            carried += len(ev.data)
        if record is None or len(steps) != len(evs):
            return steps, sizes, []
        if not may_call and self.syncq.msgid is None:
            return None  # the record's first replacement searches for it: calls
        return steps, sizes, self.syncq.steps(record)

    def _ready(self, dest_q: bytes, dest_qm: bytes, context_user: bytes,
               local: bytes) -> bool:
        """Can an arrival's put be made ready without a call to the queue manager: the
        second check (ALTMCA) made for its destination this batch, and a local
        destination open for its put user, or known not to be a remote-queue definition?"""
        if self.put_authority.also_checked() is not None and \
                (dest_q, dest_qm) not in self._may_put:
            return False
        if dest_qm not in (b"", local):
            return True
        key = (dest_q, dest_qm, self.put_authority.put_user(context_user))
        if key not in self._handles:
            return False
        return self._handles[key] is not None or \
            dest_q.decode("latin-1") in self._qtypes

    def _run_done(self, sizes: list[int], tail: list[Step], done: list[Any]
                  ) -> tuple[list[int], bool]:
        """What a run of puts did (``done``, its results): the sizes of the arrivals put,
        and whether it replaced the sync record (``tail``, its steps), so that the batch
        is to be committed now (if the run's MQCMIT was not made)."""
        put = [n for n, result in zip(sizes, done, strict=False)
               if not isinstance(result, mqpy.MQMIError)]
        return put, bool(tail) and self.syncq.done(done[len(sizes):])

    def _put_arrival(self, qm: mqpy.QueueManager, dest_q: bytes, dest_qm: bytes,
                     md: mqpy.MD, data: bytes, sync: int) -> None:
        """One arrival's MQPUT1 with the authority PUTAUT names (``putaut``); blocking."""
        qm.connection().put1(*self._arrival_put1(qm, dest_q, dest_qm, md, data, sync,
                                                  md.UserIdentifier))

    def _arrival_put1(self, qm: mqpy.QueueManager, dest_q: bytes, dest_qm: bytes,
                      md: Any, data: bytes, sync: int, context_user: bytes
                      ) -> tuple[Any, ...]:
        """The MQPUT1 arguments (od, md, pmo, data) of one arrival, with the authority PUTAUT
        names (``context_user``: the MQMD's UserIdentifier); MQMIError 2035 when ALTMCA's
        check of the MCA user refuses it (blocking)."""
        self._second_check(qm, dest_q, dest_qm)
        od, options = as_user(mqpy.OD(ObjectName=dest_q, ObjectQMgrName=dest_qm),
                               self.put_authority.put_user(context_user))
        return od, md, mqpy.PMO(Options=sync | options | CMQC.MQPMO_SET_ALL_CONTEXT), data

    def _second_check(self, qm: mqpy.QueueManager, dest_q: bytes, dest_qm: bytes) -> None:
        """ALTMCA's check of the MCA user (once a batch per destination): MQMIError 2035
        when it may not put there (blocking)."""
        second = self.put_authority.also_checked()
        if second is not None:
            reason = self._may_put.get((dest_q, dest_qm))
            if reason is None:
                reason = self._probe_put(qm, dest_q, dest_qm, second)
                self._may_put[(dest_q, dest_qm)] = reason
            if reason:
                raise mqpy.MQMIError(CMQC.MQCC_FAILED, reason)

    def _destination(self, qm: mqpy.QueueManager, dest_q: bytes, dest_qm: bytes,
                     context_user: bytes) -> int | None:
        """The batch's handle for arrivals to local queue ``dest_q`` (blocking), opened as
        their MQPUT1 would be (output, set-all context, PUTAUT's user, not bound), so that
        the batch's puts are MQPUTs; None when the name is not a local queue (an alias, a
        model, a remote-queue definition: rule 6), or beyond BATCH_HANDLES: those go by
        MQPUT1. A failed open raises its MQMIError (deliver takes the arrival). Handles
        stay open from batch to batch while batches put there (:meth:`_unused_handles`)."""
        user = self.put_authority.put_user(context_user)
        key = (dest_q, dest_qm, user)
        self._used.add(key)
        if key in self._handles:
            return self._handles[key]
        if len(self._handles) >= BATCH_HANDLES:
            return None  # (PUTAUT(CTX) and many users, say): an open each would not pay
        # version 3: the open's answer carries the resolved names
        od, alternate = as_user(mqpy.OD(Version=CMQC.MQOD_VERSION_3, ObjectName=dest_q,
                                         ObjectQMgrName=dest_qm), user)
        options = CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT | CMQC.MQOO_BIND_NOT_FIXED
        if alternate:
            options |= CMQC.MQOO_ALTERNATE_USER_AUTHORITY
        handle = qm.connection()
        try:
            hobj = handle.open(od, options)
        except mqpy.MQMIError:
            self._handles[key] = None  # the rest of the batch's arrivals there: MQPUT1
            raise
        if od.ObjectName.rstrip(b" \x00") != dest_q:
            # a model queue: the open made a dynamic queue, which goes again at once (an
            # arrival's MQPUT1 refuses a model, 2057)
            self._qtypes[dest_q.decode("latin-1")] = CMQC.MQQT_MODEL
            handle.close(hobj, CMQC.MQCO_DELETE_PURGE)
            self._handles[key] = None
            return None
        if (od.ResolvedQName.rstrip(b" \x00") != dest_q
                or od.ResolvedQMgrName.rstrip(b" \x00") != self.local_qm.encode("latin-1")):
            handle.close(hobj)
            self._handles[key] = None
            return None
        self._handles[key] = hobj
        return hobj

    def _unused_handles(self) -> list[tuple[bytes, bytes, str | None]]:
        """At a batch's end: the destinations it did not put to, whose handles go (and every
        MQPUT1-only entry, decided again next batch); the others stay open for the next
        batch, as IBM's receiving MCAs keep their destination queues open. What is left to
        close (nothing: no worker-thread call)."""
        used, self._used = self._used, set()
        unused = []
        for key, hobj in list(self._handles.items()):
            if hobj is None:
                del self._handles[key]
            elif key not in used:
                unused.append(key)
        return unused

    def _close_handles(self, qm: mqpy.QueueManager,
                       keys: list[tuple[bytes, bytes, str | None]] | None = None) -> None:
        """Close destination handles (blocking): those of ``keys``, or all of them; a close
        that fails (the connection is going) leaves the rest to the disconnect."""
        if keys is None:
            handles, self._handles = self._handles, {}
            self._used = set()
        else:
            handles = {key: self._handles.pop(key) for key in keys if key in self._handles}
        handle = qm.connection()
        try:
            for hobj in handles.values():
                if hobj is not None:
                    handle.close(hobj)
        except mqpy.MQMIError:
            pass  # the next call says what became of the connection

    @staticmethod
    def _probe_put(qm: mqpy.QueueManager, dest_q: bytes, dest_qm: bytes, user: str) -> int:
        """May ``user`` put to the destination? 0, or the MQOPEN's reason (ALTMCA)."""
        od, _ = as_user(mqpy.OD(ObjectName=dest_q, ObjectQMgrName=dest_qm), user)
        try:
            q = mqpy.Queue(qm, od, CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
        except mqpy.MQMIError as e:
            return e.reason if e.reason == CMQC.MQRC_NOT_AUTHORIZED else 0
        q.close()
        return 0

    def _record(self, seq: int, luwid: bytes) -> syncrecord.SyncRecord:
        return syncrecord.SyncRecord(self.name, "R", seq, luwid, self.partner,
                                     conname=self.conname)

    async def _harden(self, qm: mqpy.QueueManager, action: HardenBatch) -> None:
        """Commit the batch with its sync record: one worker-thread call, none when the run
        of its last puts did both (``action.made``)."""
        if not action.made:
            rec = self._record(action.seq, action.luwid)

            def harden() -> None:
                self.syncq.replace_in_uow(rec)
                qm.commit()

            await mqi(harden)
        self.status.last_seqno, self.status.last_luwid = action.seq, action.luwid

    async def deliver(self, qm: mqpy.QueueManager, ev: MessageData) -> EndChannel | None:
        """Put one arriving message where its transmission header says; on failure retry,
        return it to its sender, or dead-letter it (:class:`Delivery` decides); an
        EndChannel when none of that works (a transmission header that does not decode is
        the partner's protocol error)."""
        try:
            xqh = transmission_header(ev)
        except ValueError as exc:  # (fields.StructError)
            return EndChannel("AMQ9504E", f"Protocol error: the transmission header of "
                              f"message {ev.seqnum} does not decode: {exc}.", True,
                              StatusCode.PROTOCOL_INVALID_DATA)
        md = xqh.MsgDesc
        if md.Format == CMQC.MQFMT_DIST_HEADER:
            return await distribution.deliver_list(self, qm, ev, mqi)
        dest_q = xqh.RemoteQName.rstrip(b" \x00").decode("latin-1")
        dest_qm = xqh.RemoteQMgrName.rstrip(b" \x00").decode("latin-1")
        if dest_qm in ("", self.local_qm) and await self.is_remote_definition(qm, dest_q):
            # Arrivals are resolved like an open naming both queue and queue manager, but a
            # remote-queue definition never applies to them (seed 000 §1 rule 6).
            return await self.undeliverable(qm, ev, md, CMQC.MQRC_UNKNOWN_OBJECT_NAME,
                                            dest_q, dest_qm)
        if type(ev) is SuppressedArrival:
            return await self.undeliverable(qm, ev, md, ev.feedback, dest_q, dest_qm)
        delivery = self.batch.delivery(ev, dest_q, dest_qm, md.Report,
                                       bool(md.ReplyToQ.strip(b" \x00")))
        sync = CMQC.MQPMO_NO_SYNCPOINT if delivery.outside_syncpoint else CMQC.MQPMO_SYNCPOINT
        tries = 0
        while True:
            try:
                await mqi(self._put_arrival, qm, dest_q.encode("latin-1"),
                          dest_qm.encode("latin-1"), md, ev.data, sync)
            except mqpy.MQMIError as e:
                if self.exits is not None and self.exits.retry_chain is not None \
                        and e.reason in RETRIED_REASONS:  # MREXIT decides, not MRRTY
                    tries += 1
                    retried = await self._retried_by_exit(e.reason, ev, tries)
                    if retried is not None:
                        ev, dest_q, dest_qm, md = retried
                        continue
                    action = delivery.refused(e.reason)
                else:
                    action = delivery.put_failed(e.reason, trio.current_time())
                if type(action) is RetryPut:
                    if self.status.state is ChannelState.RUNNING:
                        self.status.move(ChannelEvent.MESSAGE_RETRY)
                    await trio.sleep_until(action.at)
                    continue
            else:
                self.status.message_moved(len(ev.data), sent=False)
                action = DELIVERED
            if self.status.state is ChannelState.PAUSED:
                self.status.move(ChannelEvent.MESSAGE_RETRY_ENDED)
            return await self._not_delivered(qm, delivery, action, md, ev.data)

    async def _retried_by_exit(self, reason: int, ev: MessageData, count: int
                               ) -> tuple[MessageData, str, str, Any] | None:
        """MREXIT: the message-retry exit's ``count``-th call for an arrival whose put
        failed with ``reason``; when it asks for a retry, the channel waits PAUSED
        (SUBSTATE(MREXIT)) the interval it set, and the arrival as it left it (its
        destination may be another) is returned with its destination and MQMD. None: it
        declined (SUPPRESS_FUNCTION), the arrival is refused as with no retry left."""
        if self.status.state is ChannelState.RUNNING:
            self.status.move(ChannelEvent.MESSAGE_RETRY)
        self.status.substate = "MREXIT"
        decision = self.exits.message_retry(reason, count, ev.xqh + ev.data,
                                            D.int_attr(self.definition, "MRTMR"))
        if not decision.retry or len(decision.buffer) < XQH_WITH_MD_LENGTH:
            return None
        await trio.sleep(decision.interval)
        ev = attrs.evolve(ev, xqh=decision.buffer[:XQH_WITH_MD_LENGTH],
                          data=decision.buffer[XQH_WITH_MD_LENGTH:])
        xqh = transmission_header(ev)
        return (ev, xqh.RemoteQName.rstrip(b" \x00").decode("latin-1"),
                xqh.RemoteQMgrName.rstrip(b" \x00").decode("latin-1"), xqh.MsgDesc)

    async def is_remote_definition(self, qm: mqpy.QueueManager, name: str) -> bool:
        return await mqi(self._qtype, qm, name) == CMQC.MQQT_REMOTE

    def _qtype(self, qm: mqpy.QueueManager, name: str) -> int:
        """The MQQT_* of a destination (0 when it cannot be opened), cached for a batch."""
        cached = self._qtypes.get(name)
        if cached is None:
            try:
                q = mqpy.Queue(qm, name, CMQC.MQOO_INQUIRE)
            except mqpy.MQMIError:
                cached = 0
            else:
                try:
                    cached = int(q.inquire(CMQC.MQIA_Q_TYPE))
                finally:
                    q.close()
            self._qtypes[name] = cached
        return cached

    async def undeliverable(self, qm: mqpy.QueueManager, ev: MessageData, md: mqpy.MD,
                            reason: int, dest_q: str, dest_qm: str) -> EndChannel | None:
        """An arrival (``md``, ``ev``'s data) that cannot be put for ``reason``, no retry
        helping: returned to its sender, dead-lettered, discarded, or the channel ends."""
        delivery = self.batch.delivery(ev, dest_q, dest_qm, md.Report,
                                       bool(md.ReplyToQ.strip(b" \x00")))
        return await self._not_delivered(qm, delivery, delivery.refused(reason), md,
                                         ev.data)

    async def _not_delivered(self, qm: mqpy.QueueManager, delivery: Delivery,
                             action: DeliveryAction, md: mqpy.MD, data: bytes
                             ) -> EndChannel | None:
        """Carry out ``delivery``'s actions from ``action`` until the arrival is dealt with
        (None) or the channel is to end (the EndChannel)."""
        while True:
            kind = type(action)
            if kind is PutExceptionReport:
                action = delivery.report_put(
                    await self._put_exception_report(qm, md, data, action.reason))
            elif kind is PutDeadLetter:
                queue, refused = await self._put_dead_letter(qm, delivery, md, data)
                action = delivery.dead_letter_put(queue, refused)
            elif kind is DeadLettered:
                self.log(amqmsgs.AMQ9544.msgid, f"Messages not put to destination queue. "
                         f"During the processing of channel '{self.name}' a message for "
                         f"queue '{delivery.dest_q}' at '{delivery.dest_qm or self.local_qm}' "
                         f"could not be put (reason {action.reason}) and was put to the "
                         f"dead-letter queue '{action.queue}'. The location of the queue is "
                         f"1, where 1 is the local dead-letter queue and 2 is the remote "
                         f"dead-letter queue.")
                return None
            elif kind is Discarded:
                self.log(action.msgid, action.text(delivery, self.name, self.local_qm))
                return None
            elif kind is EndChannel:
                # IBM's message for the failed put (AMQ9511E, AMQ9565E), then the end
                self.log(action.msgid, f"Channel '{self.name}': {action.text}")
                return attrs.evolve(action, msgid=amqmsgs.AMQ9999.msgid,
                                    text="channel program ended abnormally: a persistent "
                                         "message could be neither delivered nor "
                                         "dead-lettered, the batch is backed out.")
            else:
                return None

    async def _put_exception_report(self, qm: mqpy.QueueManager, md: mqpy.MD, data: bytes,
                                    reason: int) -> bool:
        """An exception report as asked (with none, some or all of the data) to the
        arrival's ReplyToQ, under syncpoint: whether it went."""
        built = reports.build_report("EXCEPTION", md, data, feedback=reason,
                                     qmgr_name=self.local_qm, msgid=bytes(24))
        if built is None:
            return False
        rmd, body = built
        # the sender names the reply-to queue: the report goes there with the authority
        # PUTAUT names for the message itself, never the MCA's own
        rod, options = as_user(mqpy.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr),
                                self.put_authority.put_user(md.UserIdentifier))
        try:
            await mqi(qm.put1, rod, body, rmd, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | options))
        except mqpy.MQMIError:
            return False
        return True

    async def _put_dead_letter(self, qm: mqpy.QueueManager, delivery: Delivery, md: mqpy.MD,
                               data: bytes) -> tuple[str, int | None]:
        """The arrival with an MQDLH on the queue manager's dead-letter queue, with the MCA
        user's authority: the queue's name ("": none) and the put's reason if refused."""
        deadq = (await mqi(qm.inquire, CMQC.MQCA_DEAD_LETTER_Q_NAME)).strip(b" \x00")
        if not deadq:
            return "", None
        dmd, body = reports.build_dead_letter(md, data, delivery.reason, delivery.dest_q,
                                              delivery.dest_qm,
                                              put_appl_name=b"mqpy receiver MCA",
                                              put_date=md.PutDate, put_time=md.PutTime)
        dod, options = as_user(mqpy.OD(ObjectName=deadq),
                                self.put_authority.dead_letter_user())
        sync = CMQC.MQPMO_NO_SYNCPOINT if delivery.outside_syncpoint else CMQC.MQPMO_SYNCPOINT
        try:
            await mqi(qm.put1, dod, body, dmd,
                      mqpy.PMO(Options=sync | options | CMQC.MQPMO_SET_ALL_CONTEXT))
        except mqpy.MQMIError as e:
            return deadq.decode("latin-1"), e.reason
        return deadq.decode("latin-1"), None
