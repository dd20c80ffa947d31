"""The sending MCA: a SDR, SVR or CLUSSDR channel's end that gets messages from its
transmission queue and sends them in batches (trio). The thin driver of
``sender_batch.SenderBatches`` (the batch decisions) and ``resync`` (the start's in-doubt
decision): it gets, sends, receives and calls the MQI as they say (docs/channels.md)."""

from __future__ import annotations

import collections
import functools
import time
from collections.abc import Callable
from typing import Any

import trio

import mqpy
from mqpy import CMQC, syncrecord
from mqpy.engine import reports
from mqpy.fap import channeldefs as D
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.controlflows import Heartbeat, Ping, Reset, Resync, Status
from mqpy.fap.initialdata import InitialData
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH, MessageData, message_event
from mqpy.fap.mqicalls import Step
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import TSH_LENGTH, ByteOrder, ControlFlags1, Event, SegmentType
from mqpy.properties import channelcarry
from mqpy.waitingget import WaitingGets
from mqpy_chinit import batchcalls, chlstop, distribution, resync, syncq
from mqpy_chinit.channelexit import ChannelExits
from mqpy_chinit.conversation import ChannelEnded, Conversation
from mqpy_chinit.mca import (
    CONFIRM_TIMEOUT,
    CONNECT_TIMEOUT,
    QmFactory,
    agreed_fast,
    call_id,
    disconnect_abnormally,
    keepalive,
    monitoring,
    mqi,
    new_luwid,
    open_conversation,
    our_id,
    respond_id,
    status_error,
)
from mqpy_chinit.receiver_batch import not_stored_head
from mqpy_chinit.sender_batch import (
    CONFIRMATION_EXPECTED,
    NO_LUWID,
    SUPPRESSED,
    TOO_BIG_REASON,
    TOO_LONG,
    BackOut,
    Confirmed,
    EndChannel,
    Harden,
    Idle,
    InFlight,
    SenderBatches,
    not_dead_lettered,
)
from mqpy_chinit.states import ChannelEvent, ChannelStatus
from mqpy_chinit.tlsstream import KeyRepository, open_channel_stream

#: longest single MQGET wait of an idle channel: its heartbeat and disconnect intervals are
#: looked at that often (a stop request wakes the wait: ``chlstop``)
POLL_MS = 500
#: why a message is not sent to a partner without message properties (``channelcarry``)
UNSUPPORTED = (f"has a property that requires support, which the partner queue manager "
               f"(FAP level below {channelcarry.PROPERTIES_FAP_LEVEL}) does not give (reason "
               f"code {CMQC.MQRC_UNSUPPORTED_PROPERTY}, MQRC_UNSUPPORTED_PROPERTY)")


class SenderMCA:
    """One run of a sending channel (SDR, SVR), from connect to a normal or abnormal end."""

    def __init__(self, name: str, definition: dict[str, object], local_qm: str,
                 connect_qm: QmFactory, status: ChannelStatus, *,
                 conversation: Conversation | None = None,
                 first: InitialData | None = None,
                 key_repository: KeyRepository | None = None, pipeline: int = 1) -> None:
        """``conversation`` and ``first``: a server (SVR) answering a requester's call.
        ``key_repository``: the channel initiator's QMGR SSLKEYR (for an SSLCIPH).
        ``pipeline``: qm.ini PipeLineLength, batches in flight at once (1, or 2 above 1)."""
        self.batches = SenderBatches(
            name, batchsz=D.int_attr(definition, "BATCHSZ"),
            max_msg=D.int_attr(definition, "MAXMSGL"), wrap=D.int_attr(definition, "SEQWRAP"),
            # BATCHLIM: KB of data after which the batch ends, with the message that reached it
            batchlim=D.int_attr(definition, "BATCHLIM") * 1024,
            batchint=D.int_attr(definition, "BATCHINT") / 1000.0,
            batchhb=D.int_attr(definition, "BATCHHB") / 1000.0,
            pipeline=2 if pipeline > 1 else 1)
        self.key_repository = key_repository
        self.conversation = conversation
        self.conversation_stream: Any = None
        self.first = first
        self.name = name
        self.definition = definition
        self.local_qm = local_qm
        self.connect_qm = connect_qm
        self.status = status
        self.stop_requested = trio.Event()
        self.hbint = 0
        self.correl_id: bytes | None = None  # a CLUSSDR gets only messages keyed to it
        self.dist_lists = False  # the partner takes distribution lists (ID negotiation)
        self.propctl = D.str_attr(definition, "PROPCTL") or "COMPAT"  # toward an old partner
        self.fap_level = channelcarry.PROPERTIES_FAP_LEVEL  # the FAP level negotiated
        self.syncq: syncq.ChannelSyncQ | None = None  # this run's sync record
        self._gets: batchcalls.XmitqGets | None = None  # see _xmitq_gets
        self._waiting_gets: WaitingGets | None = None  # the gets that wait (see _get)
        self.clock: Callable[[], float] = time.perf_counter  # NETTIME's (a test's own)
        self.exits: ChannelExits | None = None  # MSGEXIT, SENDEXIT, RCVEXIT, SCYEXIT

    async def run(self) -> None:
        """Returns when the channel ends normally (disconnect interval, stop); raises
        ChannelEnded otherwise."""
        qm = await mqi(self.connect_qm)
        self.syncq = syncq.ChannelSyncQ(qm)
        try:
            self.status.monitor = await monitoring(qm, self.definition)
            xmitq_name, self.correl_id = D.transmission_queue(
                {**self.definition, "CHANNEL": self.name})
            shared = CMQC.MQOO_INPUT_SHARED if self.correl_id else CMQC.MQOO_INPUT_EXCLUSIVE
            try:
                xq = await mqi(mqpy.Queue, qm, xmitq_name, shared
                               | CMQC.MQOO_FAIL_IF_QUIESCING)
            except mqpy.MQMIError as e:
                raise ChannelEnded("AMQ9511E", f"Messages cannot be put to a queue: "
                                   f"transmission queue {xmitq_name} unusable, reason "
                                   f"{e.reason}.", retry=e.reason == CMQC.MQRC_OBJECT_IN_USE) \
                    from None
            self.status.xmitq = xmitq_name
            if self.conversation is None:
                conv = await open_conversation(self.definition, self.status,
                                               self.key_repository)
            else:
                conv = self.conversation
                conv.status = self.status
            stream = conv.stream
            self.conversation_stream = stream
            try:
                if self.first is None:
                    await self._negotiate(conv)
                else:
                    await self._respond(conv, self.first)
                self.exits = ChannelExits.start(self.name, self.definition,
                                                self.batches.partner, conv, self.status)
                if not self.correl_id:  # a cluster transmission queue serves many partners
                    await mqi(distribution.mark_xmitq, qm, xmitq_name, self.dist_lists)
                await self._resync(conv, qm)
                self.status.move(ChannelEvent.NEGOTIATED)
                await self._transfer(conv, qm, xq)
            finally:
                if self.exits is not None:
                    self.exits.end()
                with trio.CancelScope(shield=True):
                    await stream.aclose()
        finally:
            with trio.CancelScope(shield=True):
                await mqi(disconnect_abnormally, qm)

    async def ping(self, data: bytes = b"mqpy PING CHANNEL test data") -> float:
        """PING CHANNEL: connect, negotiate, send PING data, expect it back; the round trip
        in seconds. Raises ChannelEnded when the partner cannot be reached or answers wrong."""
        host, port = D.parse_conname(D.str_attr(self.definition, "CONNAME"))[0]
        try:
            with trio.fail_after(CONNECT_TIMEOUT):
                stream = await open_channel_stream(host, port, self.definition,
                                                   self.key_repository)
        except (OSError, trio.TooSlowError) as exc:
            raise ChannelEnded("AMQ9202E", f"Remote host '{host}({port})' not available: "
                               f"{exc}.") from None
        conv = Conversation(stream, self.status)
        try:
            await self._negotiate(conv)
            # the data one transmission carries, at most (IBM: "the actual number of bytes
            # might be less than the amount requested", by the protocol)
            data = data[:conv.writer.max_transmission_size - TSH_LENGTH - 4]
            t0 = time.perf_counter()
            await conv.send(Ping(data=data))
            ev = await conv.recv(CONFIRM_TIMEOUT)
            if not isinstance(ev, Ping) or ev.data != data:
                raise ChannelEnded("AMQ9504E", "Protocol error: PING data did not come back.")
            elapsed = time.perf_counter() - t0
            await conv.send(Status(code=StatusCode.USER_CLOSED,
                                   flags=ControlFlags1.CLOSE_CHANNEL))
            return elapsed
        finally:
            with trio.CancelScope(shield=True):
                await stream.aclose()

    async def _negotiate(self, conv: Conversation) -> None:
        agreed, partner = await call_id(conv, our_id(self.name, self.definition,
                                                      self.local_qm))
        self._agreed(agreed, partner)

    async def _respond(self, conv: Conversation, first: InitialData) -> None:
        agreed, partner = await respond_id(conv, first, our_id(self.name, self.definition,
                                                                self.local_qm))
        self._agreed(agreed, partner)

    def _agreed(self, agreed: Any, partner: str) -> None:
        b = self.batches
        b.partner = partner
        b.fast = agreed_fast(agreed)
        self.status.npmspeed = "FAST" if b.fast else "NORMAL"
        self.hbint = agreed.heartbeat_interval
        b.batchsz = agreed.max_msg_batch
        b.max_msg = agreed.max_msg_size or b.max_msg
        self.dist_lists = distribution.partner_takes_lists(agreed)
        self.fap_level = agreed.fap_level
        st = self.status
        st.rqmname, st.hbint, st.batchsz, st.maxmsgl = (partner, self.hbint, b.batchsz,
                                                       b.max_msg)
        st.kaint = keepalive(self.conversation_stream, self.definition, self.hbint)

    async def _resync(self, conv: Conversation, qm: mqpy.QueueManager) -> None:
        """The start's resynchronisation: the in-doubt batch, if any, resolved as the
        partner's record says (``resync``)."""
        rec = await mqi(syncrecord.read, qm, self.name, "S") \
            or syncrecord.SyncRecord(self.name, "S")
        indoubt = await mqi(syncrecord.indoubt_batch, qm, self.name)
        wrong = resync.wrong_partner(self.name, indoubt, self.batches.partner)
        if wrong is not None:
            raise _ended(wrong)
        rec = resync.committed_record(rec, indoubt)
        if resync.reset_first(rec, indoubt):
            await self._reset(conv, qm, rec)
        seq, luwid = resync.proposal(rec, indoubt)
        await conv.send(Resync(seqnum=seq, luwid=luwid))
        ev = await conv.recv(CONFIRM_TIMEOUT)
        if isinstance(ev, Status):
            raise status_error(ev)
        if not isinstance(ev, Resync):
            raise ChannelEnded("AMQ9504E", "Protocol error: resynchronisation expected.")
        decided = resync.resolve(self.name, rec, indoubt, ev.seqnum, ev.luwid)
        if isinstance(decided, EndChannel):
            await conv.close(decided.close)
            raise _ended(decided)
        if indoubt is not None and decided.commit is not None:
            await mqi(qm.connection().resolve, indoubt.key, decided.commit)
        self.batches.resynced(decided.seq, decided.luwid)
        self.status.indoubt = False
        self.status.last_seqno = self.status.cur_seqno = decided.seq
        self.status.last_luwid = decided.luwid

    async def _reset(self, conv: Conversation, qm: mqpy.QueueManager,
                     rec: syncrecord.SyncRecord) -> None:
        """RESET CHANNEL was issued here: the receiver takes the new number (RESET_DATA)."""
        await conv.send(Reset(seqnum=rec.seq))
        ev = await conv.recv(CONFIRM_TIMEOUT)
        if isinstance(ev, Status):
            raise status_error(ev)
        if not isinstance(ev, Reset) or ev.seqnum != rec.seq:
            raise ChannelEnded("AMQ9504E", "Protocol error: reset not acknowledged.")
        rec.reset = False
        await mqi(self.syncq.replace_in_uow, rec)
        await mqi(qm.commit)

    async def _get(self, qm: mqpy.QueueManager, xq: mqpy.Queue, wait_ms: int,
                   stop: trio.Event | None = None) -> tuple[mqpy.MD, bytes] | None:
        """One message, waiting up to ``wait_ms`` for it; None when none came. A wait ends
        at once when ``stop`` is set or the MCA is cancelled (``chlstop``)."""
        md = mqpy.MD(CorrelId=self.correl_id) if self.correl_id else mqpy.MD()
        opts = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING
        if wait_ms > 0:
            opts |= CMQC.MQGMO_WAIT
        gmo = mqpy.GMO(Options=opts, WaitInterval=wait_ms)
        try:
            # a get that STOP CHANNEL MODE(FORCE) may end: the connection's backout at the
            # end of the channel undoes whatever it got
            if wait_ms > 0:
                gets = self._waiting_gets
                if gets is None:
                    gets = self._waiting_gets = WaitingGets(qm)
                data = await chlstop.waiting_get(
                    gets, functools.partial(gets.get, xq, md, gmo), stop)
            else:
                data = await trio.to_thread.run_sync(functools.partial(xq.get, None, md, gmo),
                                                     abandon_on_cancel=True)
        except mqpy.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            if e.reason == CMQC.MQRC_GET_INHIBITED:
                return None
            raise ChannelEnded("AMQ9999E", f"Channel program ended abnormally: MQGET from the "
                               f"transmission queue failed with reason {e.reason}.") from None
        return md, data

    async def _get_many(self, qm: mqpy.QueueManager, xq: mqpy.Queue, wait_ms: int, count: int,
                        max_bytes: int) -> list[tuple[mqpy.MD, bytes]]:
        """Up to ``count`` messages (and about ``max_bytes``, 0 no limit) in one worker-thread
        call: the first waits up to ``wait_ms``, the others are only those already there. Never
        more than the batch has room for: every message got is in the batch's unit of work."""
        first = await self._get(qm, xq, wait_ms)
        if first is None:
            return []
        if count <= 1 or (max_bytes and len(first[1]) >= max_bytes):
            return [first]
        limit = max_bytes - len(first[1]) if max_bytes else 0
        return [first, *await self._run_of_gets_in_loop(qm, xq, count - 1, limit)]

    def _run_of_gets(self, qm: mqpy.QueueManager, xq: mqpy.Queue, count: int,
                     max_bytes: int) -> list[batchcalls.Got]:
        """In a worker thread: up to ``count`` messages already on the transmission queue
        (about ``max_bytes``, 0 no limit) in one round trip (batchcalls: an SPI RUN whose
        MQMDs stay packed). The run stops at the first get that fails (none left, or a
        failure the next single MQGET will report) and after the message that reaches
        max_bytes. A message over RUN_BYTES is left for the next single MQGET, so that the
        run's reply stays small."""
        limit = max_bytes if max_bytes else mqiflows.RUN_BYTES
        if limit <= 0 or count <= 0:
            return []
        return self._xmitq_gets(xq).run(qm.connection(), count, limit)

    async def _run_of_gets_in_loop(self, qm: mqpy.QueueManager, xq: mqpy.Queue, count: int,
                                   max_bytes: int) -> list[batchcalls.Got]:
        """:meth:`_run_of_gets`, its round trip made from the event loop when it can be
        (batchcalls.XmitqGets.run_in_loop), else in a worker thread."""
        limit = max_bytes if max_bytes else mqiflows.RUN_BYTES
        if limit <= 0 or count <= 0:
            return []
        got = await self._xmitq_gets(xq).run_in_loop(qm.connection(), count, limit)
        return got if got is not None else await mqi(self._run_of_gets, qm, xq, count,
                                                     max_bytes)

    def _xmitq_gets(self, xq: mqpy.Queue) -> batchcalls.XmitqGets:
        """The runs of gets of the transmission queue: one MQGMO for all, packed once
        (nothing of its output is read), and the request's MQMD (a fresh one or, for a
        cluster sender, one with its CorrelId) packed once too."""
        gets = self._gets
        if gets is None or gets.hobj != xq.get_handle():
            md = mqpy.MD(CorrelId=self.correl_id) if self.correl_id else mqpy.MD()
            gets = self._gets = batchcalls.XmitqGets(xq.get_handle(), mqiparams.Packed.of(md),
                                                   _XMITQ_GMO, self.correl_id)
        return gets

    def _confirmed(self, qm: mqpy.QueueManager, xq: mqpy.Queue, key: bytes, count: int,
                   max_bytes: int) -> list[batchcalls.Got]:
        """In a worker thread: commit the batch the partner confirmed and (``count`` > 0,
        the batch was full) get the next batch's first messages already on the transmission
        queue, all in one round trip.

        When a next batch is likely (``count`` > 0) the commit does not wait for the log
        force of its commit record: the prepare was forced before the confirm request went,
        should the commit record be lost in a crash the batch is in doubt at the next start
        and the partner's sync record (which has its LUWID) resolves it to commit again
        (:meth:`_resync`), and the next batch's prepare forces the log, commit record
        included, before anything more is asked of the partner. A batch that was not full
        (the queue drained: the channel is about to wait) is committed with its force, so
        that an idle channel does not stay in doubt until the log's next force."""
        limit = max_bytes if max_bytes else mqiflows.RUN_BYTES
        gets = count if count > 0 and limit > 0 else 0
        return self._xmitq_gets(xq).run(qm.connection(), gets, limit,
                                        resolve=(key, True, count <= 0))

    async def _confirmed_in_loop(self, qm: mqpy.QueueManager, xq: mqpy.Queue, key: bytes,
                                 count: int, max_bytes: int) -> list[batchcalls.Got]:
        """:meth:`_confirmed`, its round trip made from the event loop when it can be,
        else in a worker thread."""
        limit = max_bytes if max_bytes else mqiflows.RUN_BYTES
        gets = count if count > 0 and limit > 0 else 0
        got = await self._xmitq_gets(xq).run_in_loop(qm.connection(), gets, limit,
                                                     resolve=(key, True, count <= 0))
        return got if got is not None else await mqi(self._confirmed, qm, xq, key, count,
                                                     max_bytes)

    async def _transfer(self, conv: Conversation, qm: mqpy.QueueManager, xq: mqpy.Queue) -> None:
        b = self.batches
        b.discint, b.hbint = D.int_attr(self.definition, "DISCINT"), self.hbint
        b.active(time.monotonic())
        # the next batch's first messages, got with the last batch's commit when that batch
        # was full (more were probably waiting)
        firsts: list[tuple[mqpy.MD, bytes]] = []
        while True:
            if self.stop_requested.is_set():
                if self.batches.inflight is not None:
                    await self._settle(conv, qm, force=True)  # QUIESCE ends the batch first
                await conv.send(Status(code=StatusCode.USER_CLOSED,
                                       flags=ControlFlags1.CLOSE_CHANNEL))
                return  # (the end of the channel backs out whatever firsts holds)
            self.status.substate = "MQGET"
            if b.inflight is not None and not firsts:
                # pipelined: the next batch's first messages, those already there; none
                # (the queue drained): the batch in flight is ended before any wait
                firsts = await self._run_of_gets_in_loop(qm, xq, b.batchsz, b.batchlim)
                self._note_answer(conv)
                if not firsts:
                    await self._settle(conv, qm, force=True)
                    continue
            # idle: the wait a stop request ends at once
            got = firsts[0] if firsts else await self._get(qm, xq, POLL_MS,
                                                           self.stop_requested)
            if got is None:
                if self.stop_requested.is_set():
                    continue
                idle = b.when_idle(time.monotonic())
                if idle is Idle.DISCONNECT:
                    await conv.send(Status(code=StatusCode.USER_CLOSED,
                                           flags=ControlFlags1.CLOSE_CHANNEL))
                    return
                if idle is Idle.HEARTBEAT:
                    await self._heartbeat(conv)
                    b.heartbeat_done(time.monotonic())
                continue
            try:
                firsts = await self._batch(conv, qm, xq, got, firsts[1:])
            except ChannelEnded:
                if self.batches.inflight is None:
                    raise
                # pipelined: whatever ended this batch (the partner closed the connection
                # after refusing the batch in flight, say), the batch in flight is settled
                # first, its STATUS read if it came: an error there is the one to report
                await self._settle(conv, qm, force=True)
                raise
            b.active(time.monotonic())

    async def _heartbeat(self, conv: Conversation) -> None:
        self.status.substate = "HEARTBEAT"
        t0 = time.perf_counter()
        await conv.send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST))
        ev = await conv.recv(D.receive_timeout(self.hbint) or CONFIRM_TIMEOUT)
        if isinstance(ev, Status):
            raise status_error(ev)
        self.status.round_trip(int((time.perf_counter() - t0) * 1e6))

    async def _dead_letter_at_sender(self, qm: mqpy.QueueManager, md: Any, data: bytes,
                                     reason: int, why: str = "") -> EndChannel | None:
        """A message the channel cannot carry (too long) goes to the local DLQ (seed 003);
        when it cannot (no DLQ: AMQ9565E; the put refused: AMQ9511E), how the channel ends."""
        xqh = mqpy.XQH().unpack(data)
        put_date, put_time = batchcalls.put_stamp(md)
        dest_q = xqh.RemoteQName.rstrip(b" \x00").decode("latin-1")
        dest_qm = xqh.RemoteQMgrName.rstrip(b" \x00").decode("latin-1")
        deadq = (await mqi(qm.inquire, CMQC.MQCA_DEAD_LETTER_Q_NAME)).strip(b" \x00")
        if not deadq:
            return not_dead_lettered(not_stored_head("AMQ9565E", "", reason, self.local_qm),
                                     dest_q, dest_qm, why)
        dmd, body = reports.build_dead_letter(
            xqh.MsgDesc, data[XQH_WITH_MD_LENGTH:], reason, dest_q, dest_qm,
            put_appl_name=b"mqpy sender MCA", put_date=put_date, put_time=put_time)
        try:
            await mqi(qm.put1, deadq, body, dmd,
                      mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_SET_ALL_CONTEXT))
        except mqpy.MQMIError as e:
            return not_dead_lettered(not_stored_head("AMQ9511E", deadq.decode("latin-1"),
                                                     e.reason, self.local_qm),
                                     dest_q, dest_qm, why)
        return None

    async def _to_send(self, qm: mqpy.QueueManager, md: Any, data: bytes) -> bytes | None:
        """A message got from the transmission queue as the message exits leave it (MSGEXIT,
        MQXR_MSG), or None when it is not sent: suppressed by an exit (its Feedback, else
        MQRC_SUPPRESSED_BY_EXIT) or too long for the channel (MQRC_MSG_TOO_BIG_FOR_CHANNEL),
        it goes to this queue manager's dead-letter queue in the batch's unit of work, and
        the channel stops when it cannot. Before the exits, the channel's PROPCTL for a
        partner without message properties (``channelcarry``): a message with a property
        that requires support goes to the dead-letter queue (MQRC_UNSUPPORTED_PROPERTY)."""
        reason, why = TOO_BIG_REASON, TOO_LONG
        carried = channelcarry.for_partner(self.propctl, self.fap_level, data)
        if carried is None:  # a property the partner cannot take requires support
            reason, why = CMQC.MQRC_UNSUPPORTED_PROPERTY, UNSUPPORTED
        else:
            data = carried
        if self.exits is not None and carried is not None:
            outcome = self.exits.message(data)
            if outcome.suppressed:
                reason, why = outcome.feedback or CMQC.MQRC_SUPPRESSED_BY_EXIT, SUPPRESSED
            else:
                data = outcome.buffer or data
        if why is TOO_LONG and not self.batches.too_big(len(data)):
            return data
        problem = await self._dead_letter_at_sender(qm, md, data, reason, why)
        if problem is not None:
            await mqi(qm.backout)
            raise _ended(problem)
        return None

    async def _batch(self, conv: Conversation, qm: mqpy.QueueManager, xq: mqpy.Queue,
                     first: tuple[mqpy.MD, bytes],
                     more: list[tuple[mqpy.MD, bytes]] | None = None
                     ) -> list[tuple[mqpy.MD, bytes]]:
        """One batch, from its first message (and ``more`` got with it), as the machine
        says. When it was full (BATCHSZ messages, or BATCHLIM reached), the messages already
        waiting for the next one are got with its commit: those (none when it was not full)."""
        b = self.batches
        b.begin(time.monotonic())
        got = collections.deque([first, *(more or ())])
        held: bytes | None = None  # the latest message: the batch's last?
        out: list[Event] = []  # messages ready to go, written together
        monitor = self.status.monitor
        while got:
            md, data = got.popleft()
            if not self.dist_lists and distribution.is_dh_message(data):
                # a partner without distribution lists gets a copy per destination (seed 000)
                got.extendleft(reversed(distribution.per_destination(md, data)))
                md, data = got.popleft()
            data = await self._to_send(qm, md, data)
            if data is not None:
                seq = b.message(len(data))
                if monitor.on:  # XQTIME
                    monitor.message_got(*batchcalls.put_stamp(md))
                if seq:
                    ev = self._message(seq, held, confirm=False)
                    if ev.persistent:
                        b.persistent_sent()
                    out.append(ev)
                held = data
            if got:
                continue
            wait = b.drained(time.monotonic())
            if wait is None:
                break
            if out:
                await self._send_messages(conv, out)  # before waiting for more
            if b.confirm_before_waiting(wait):
                # BATCHINT keeps this batch open: the batch in flight is not left waiting
                # with it, once nothing more is there already
                got.extend(await self._get_many(qm, xq, 0, b.room, b.bytes_left()))
                self._note_answer(conv)
                if got:
                    continue
                await self._settle(conv, qm, force=True)
                wait = b.drained(time.monotonic()) or 0.0
            got.extend(await self._get_many(qm, xq, int(wait * 1000), b.room, b.bytes_left()))
            self._note_answer(conv)
        if out:
            await self._send_messages(conv, out)
        if b.nothing_sent():
            await mqi(qm.commit)  # only dead-lettered messages
            return []
        return await self._end_batch(conv, qm, xq, held)

    async def _end_batch(self, conv: Conversation, qm: mqpy.QueueManager, xq: mqpy.Queue,
                         held: bytes | None) -> list[tuple[mqpy.MD, bytes]]:
        """The end of the batch: hardened (or its gets committed), its last message sent with
        the confirm request; unpipelined, the partner's answer waited for."""
        b = self.batches
        last_seq = b.close()
        # Pipelined: the batch in flight is confirmed before this one goes in doubt (at most
        # one batch in doubt, spec dqm-intercommunication 9.33); its commit goes with this
        # batch's sync record (_harden).
        settled = await self._confirmation(conv, qm) if b.inflight is not None else None
        # Batch heartbeat (seed 003 §2.10): a dead partner ends the channel with the batch
        # merely backed out, not in doubt.
        if b.batch_heartbeat_due(time.monotonic(), conv.last_received):
            self.status.batch_heartbeats += 1
            await self._heartbeat(conv)
        luwid = new_luwid()
        last = self._message(last_seq, held, confirm=True, luwid=luwid) \
            if held is not None else None
        action = b.harden(luwid, last is not None and last.persistent, settled)
        if isinstance(action, Harden):
            await self._harden_in_loop(qm, action.record, action.key, action.commit)
        else:
            await self._commit_gets(qm, action.commit)
        if settled is not None:
            self._batch_confirmed(settled)
        self.status.indoubt = b.recoverable
        self.status.cur_luwid = luwid
        self.status.cur_seqno = last_seq
        t0 = self.clock()
        if last is not None:
            await self._send_messages(conv, [last])
        else:
            await conv.send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST, luwid=luwid))
        if b.confirm_sent(t0):
            return []  # pipelined: its STATUS is read when the next batch ends
        # the next batch's first messages, if they are there already: got with the commit,
        # or, for a fast batch, while the partner puts this one
        ahead = b.ahead(self.stop_requested.is_set())
        early = await self._run_of_gets_in_loop(qm, xq, ahead, b.batchlim) \
            if b.gets_before_answer(ahead, self.status.monitor.on) else None
        self.status.substate = "RECEIVE"
        ev = await conv.recv(D.receive_timeout(self.hbint) or CONFIRM_TIMEOUT)
        answer = b.answered(ev.code if isinstance(ev, Status) else None, self.clock())
        if not isinstance(answer, Confirmed):
            await self._backed_out(qm, ev, answer)
        self.status.round_trip(answer.micros)
        key = answer.flight.key
        if early is not None:
            firsts = early
        elif key is not None:
            firsts = await self._confirmed_in_loop(qm, xq, key, ahead, b.batchlim)
        else:
            firsts = await self._run_of_gets_in_loop(qm, xq, ahead, b.batchlim)
        b.confirmed(answer.flight)
        self._batch_confirmed(answer.flight)
        return firsts

    def _harden(self, qm: mqpy.QueueManager, record: syncrecord.SyncRecord, key: bytes,
                commit: bytes | None = None) -> None:
        """In a worker thread: the batch's sync record into its unit of work, then the unit
        of work prepared (in doubt) under ``key``. ``commit``: the in-doubt key of the batch
        before it, confirmed by the partner (pipelining), committed first in the same round
        trip as the record's replacement; its commit record is forced with the prepare,
        which ends that round trip too when it can (syncq.ChannelSyncQ.replace_in_uow)."""
        before: list[Step] = [("resolve", (commit, True, False))] if commit is not None \
            else []
        if not self.syncq.replace_in_uow(record, before, prepare=key):
            qm.connection().prepare(key)

    async def _harden_in_loop(self, qm: mqpy.QueueManager, record: syncrecord.SyncRecord,
                              key: bytes, commit: bytes | None = None) -> None:
        """:meth:`_harden`, its round trip made from the event loop when it can be
        (syncq.ChannelSyncQ.replace_in_uow_in_loop), else in a worker thread."""
        before: list[Step] = [("resolve", (commit, True, False))] if commit is not None \
            else []
        prepared = await self.syncq.replace_in_uow_in_loop(record, before, prepare=key)
        if prepared is None:
            await mqi(self._harden, qm, record, key, commit)
        elif not prepared:
            await mqi(qm.connection().prepare, key)

    async def _confirmation(self, conv: Conversation, qm: mqpy.QueueManager) -> InFlight:
        """Pipelining: the partner's STATUS for the batch in flight, which is returned (no
        longer in flight; the caller commits it); an error STATUS backs it out, with the
        batch being got after it, and ends the channel."""
        self.status.substate = "RECEIVE"
        ev = await conv.recv(D.receive_timeout(self.hbint) or CONFIRM_TIMEOUT)
        answer = self.batches.confirmation(ev.code if isinstance(ev, Status) else None,
                                           self.clock())
        if not isinstance(answer, Confirmed):
            await self._backed_out(qm, ev, answer)
        self.status.round_trip(answer.micros)
        return answer.flight

    async def _backed_out(self, qm: mqpy.QueueManager, ev: Event, action: BackOut) -> None:
        """The partner refused a batch (or answered out of turn): back out what ``action``
        says, then end the channel."""
        if action.code is None:
            raise _ended(CONFIRMATION_EXPECTED)
        if action.uow:
            await mqi(self._back_out, qm, action.key)
        elif action.key is not None:
            await mqi(qm.connection().resolve, action.key, False)
        self.status.indoubt = False
        raise status_error(ev)

    async def _settle(self, conv: Conversation, qm: mqpy.QueueManager, *, force: bool) -> None:
        """Pipelining: confirm and commit the batch in flight before the channel waits,
        stops or ends. ``force``: the commit waits for its log force (nothing follows that
        would force it)."""
        flight = await self._confirmation(conv, qm)
        if flight.key is not None:
            await mqi(qm.connection().resolve, flight.key, True, force)
        self.batches.confirmed(flight)
        self._batch_confirmed(flight)

    def _batch_confirmed(self, flight: InFlight) -> None:
        """DISPLAY CHSTATUS after a batch confirmed and committed."""
        self.status.indoubt = False
        self.status.last_luwid = flight.luwid
        self.status.last_seqno = flight.last_seq
        self.status.batch_done(flight.sent, self.batches.batchsz)

    @staticmethod
    def _back_out(qm: mqpy.QueueManager, key: bytes | None) -> None:
        """In a worker thread: back out the in-doubt batch ``key`` (None: a batch of fast
        non-persistent messages, committed already) and the unit of work in progress (the
        next batch's gets)."""
        if key is not None:
            qm.connection().resolve(key, False)
        qm.backout()

    async def _commit_gets(self, qm: mqpy.QueueManager, settled: bytes | None) -> None:
        """The end of a batch of fast non-persistent messages: its gets committed (no log
        force: nothing in them is persistent), in one round trip from the event loop when it
        can be. ``settled``: the in-doubt key of the batch before, confirmed by the partner
        (pipelining), committed first and forced, since no prepare follows to force it."""
        handle = qm.connection()
        if settled is None:
            if batchcalls.in_loop(handle) and await batchcalls.call_in_loop(
                    handle, SegmentType.MQCMIT, ()) is not None:
                return
            await mqi(qm.commit)
            return
        ran = await batchcalls.run_quiet_in_loop(handle, [("resolve", (settled, True, True))],
                                               commit=True)
        if ran is None:
            ran = await mqi(batchcalls.run_quiet, handle, [("resolve", (settled, True, True))],
                            True)
        done, committed = ran
        if done and isinstance(done[0], mqpy.MQMIError):
            raise done[0]
        if not committed:
            await mqi(qm.commit)

    @staticmethod
    def _message(seq: int, data: bytes, *, confirm: bool, luwid: bytes | None = None
                 ) -> MessageData:
        flags = ControlFlags1.CONFIRM_REQUEST if confirm else ControlFlags1.NONE
        if type(data) is bytes and len(data) >= XQH_WITH_MD_LENGTH and (
                luwid is None or (type(luwid) is bytes and len(luwid) == 8)):
            # the usual message: the event its constructor makes, without its converters
            return message_event(flags, NO_LUWID if luwid is None else luwid, seq,
                                 data[:XQH_WITH_MD_LENGTH], data[XQH_WITH_MD_LENGTH:],
                                 ByteOrder.LITTLE)
        extra = {"luwid": luwid} if luwid is not None else {}
        return MessageData(seqnum=seq, xqh=data[:XQH_WITH_MD_LENGTH],
                           data=data[XQH_WITH_MD_LENGTH:], flags=flags, **extra)

    async def _send_messages(self, conv: Conversation, out: list[Event]) -> None:
        await conv.send_many(out)
        self.status.messages_moved(len(out), sum(len(ev.xqh) + len(ev.data) for ev in out),
                                   sent=True)
        out.clear()
        self._note_answer(conv)

    def _note_answer(self, conv: Conversation) -> None:
        """Pipelining with monitoring on: whether the answer to the batch in flight has come,
        asked of the socket without waiting (after each round trip to the queue manager
        and each send of the next batch), so that NETTIME is the partner's answer time and
        not that plus the time the next batch took to get and send before the answer was
        read."""
        flight = self.batches.inflight
        if flight is not None and flight.answered is None and self.status.monitor.on \
                and conv.arrived():
            self.batches.answer_seen(self.clock())


#: The MQGMO of a sending MCA's run of gets, packed once (mqiparams.Packed): the gets of a
#: batch, under syncpoint, none waiting (the batch's first get, which may wait, is _get's).
_XMITQ_GMO = mqiparams.Packed.of(mqpy.GMO(
    Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING))



def _ended(end: EndChannel) -> ChannelEnded:
    """The machine's end of the channel, as the exception that ends the MCA."""
    return ChannelEnded(end.msgid, end.text, end.retry)
