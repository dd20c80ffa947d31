"""Message channel agents: the sending and the receiving end of a message channel (trio).

This module only moves bytes, runs timers and calls the MQI: segments go through
``framing.py``, the initial-data negotiation through ``negotiation.py``, channel states through
``states.py``, sync records and in-doubt keys through ``mqpy/syncrecord.py`` (an MCA's own
record on its open handle through ``syncq.py``). MQI calls block, so they run
in worker threads -- except a batch's runs of calls over a bindings connection (the receiver's
puts with its sync record and commit, the sender's gets, record and prepare), made from the
event loop without a thread once nothing but the run itself is left to call
(``xmitgets.call_in_loop``); a channel's MQI connection is used by one task at a time.

The assured-delivery cycle (seed 000 ch. 3 and seed 003 §2.9):

1. The sender gets up to BATCHSZ messages from its transmission queue in one unit of work,
   sending each as it gets the next (so it knows which is the last one).
2. Before the last, it replaces its sync record in that unit of work and *prepares* it under a
   key naming the channel, the batch's last sequence number and a fresh LUWID. From here it is
   in doubt. The last message carries CONFIRM_REQUEST.
3. The receiver puts every message (persistent ones, and all ones on an NPMSPEED(NORMAL)
   channel, in one unit of work), replaces its own sync record (sequence number, LUWID) in the
   same unit of work, commits, and answers STATUS 0.
4. The sender commits its prepared unit of work: the messages leave the transmission queue.

A batch of nothing but non-persistent messages on a fast channel (NPMSPEED(FAST) at both ends:
the ID flows' FAST_MESSAGES_REQUIRED; "if the other end of the channel does not support the
option, the channel runs at normal speed", seed 000) is not a unit of work at either end
(IBM: such messages "are not transferred within transactions", and FAST "can minimize the
SYSTEM.CHANNEL.SYNCQ updates"). The sender commits its gets before the confirm request
instead of preparing them, the receiver has put them outside syncpoint, and neither end
replaces its sync record: the records stay those of the last batch that had a persistent
message, the same at both ends, and the sequence numbers carry on in memory. A restart of
either end starts both from the records again, as after any batch. A channel that fails
with such a batch in flight is never in doubt over it: once the sender has committed the
gets its messages may be lost (seed 000, "Fast, nonpersistent messages": they "may be
lost"); a failure the sender sees before that backs the gets out, and a message the
receiver had already put is then sent again.
A sender's in-doubt key names the last *hardened* batch (its record's number and LUWID),
which is what the receiver's record holds if it did not commit the batch in doubt.

If anything breaks between 2 and 4, the next start resynchronises: the sender sends RESYNC with
its in-doubt sequence number and LUWID, the receiver answers with its record, and the sender
commits if the receiver has that LUWID, backs out if the receiver is still at the previous
sequence number, and stops the channel otherwise. Nothing is lost and nothing is delivered
twice.

Pipelining (qm.ini ``Channels: PipeLineLength``; IBM: "the maximum number of concurrent
threads a channel will use. The default is 1. Any value greater than 1 is treated as 2",
and "Each MCA is limited to a maximum of two threads", Channels stanza of the qm.ini file
and "Multiple thread support - pipelining" in IBM MQ's documentation). With 1 the cycle is
as above, step after step. With 2 the sending MCA does not wait at step 3: once batch N's
confirm request has gone it gets and sends batch N+1's messages while the partner puts and
commits N. Before N+1 goes in doubt it reads N's STATUS; N's commit then goes in the same
round trip as N+1's sync-record replacement, and N+1's prepare forces both to the log. So:

- Two units of work at the sender, one connection: a prepared unit of work belongs to the
  queue manager, not to the connection that prepared it (``Connection.prepare``), so N stays
  in doubt under its key while the connection's next unit of work holds N+1's gets; N is
  committed (or backed out) by its key. No second MQI connection is needed, and the
  transmission queue stays open once, for exclusive input.
- At most one batch in doubt (spec dqm-intercommunication 9.33): N+1 is prepared only after
  N is committed. A crash leaves N in doubt and N+1's gets merely uncommitted (backed out at
  restart); the receiver never saw N+1's confirm request, so N+1 is not committed there
  either. The resynchronisation at the next start, RESOLVE CHANNEL and DISPLAY CHSTATUS
  SAVED are those of an unpipelined channel. For the same reason one sync record per
  channel still serves: N+1 replaces the record N's commit made visible.
- Sequence numbers and LUWIDs stay per batch and in order: N+1's numbers follow N's last.
- A STATUS error for N (the receiver backed N out) backs out N and the unit of work holding
  N+1's gets: every message is back on the transmission queue, in order, and the channel
  ends as it would have. A failure while N+1 is being sent (the partner closed the
  connection after refusing N) first reads N's STATUS if it came, so that N is backed out
  rather than left in doubt.
- The channel never waits with a batch in flight: when the transmission queue is empty
  (before the waiting MQGET, BATCHINT's wait, the disconnect interval, heartbeats) and
  before a stop, the batch in flight is confirmed and committed with its log force.
- The receiver needs no change: it reads the stream in order, so N+1's messages wait in
  the socket buffers while it commits N (the sender only writes; the STATUS it sends is
  small), and a batch's sequence numbers check against the one before as always.
"""

from __future__ import annotations

import collections
import functools
import os
import time
from collections.abc import Callable
from typing import Any

import attrs
import trio

import mqpy
from mqpy import CMQC, messages, syncrecord
from mqpy.engine import reports
from mqpy.fap import channeldefs as D
from mqpy.fap import mqiflows
from mqpy.fap.mqicalls import Step
from mqpy.fap.negotiation import negotiate, reproposal
from mqpy.fap.segments import (
    OUR_FAP_LEVEL,
    XQH_LENGTH,
    XQH_WITH_MD_LENGTH,
    ByteOrder,
    CapFlags1,
    CapFlags2,
    ControlFlags1,
    Event,
    Heartbeat,
    InitialData,
    MessageData,
    Ping,
    Reset,
    Resync,
    SegmentType,
    Status,
    StatusCode,
    message_event,
)
from mqpy.mqstruct import StructError
from mqpy_chinit import distribution, syncq, xmitgets
from mqpy_chinit.conversation import MAX_TRANSMISSION_SIZE, ChannelEnded, Conversation
from mqpy_chinit.monitor import ChannelMonitor, effective_level
from mqpy_chinit.putaut import PutAuthority
from mqpy_chinit.states import ChannelEvent, ChannelState, ChannelStatus
from mqpy_chinit.tlsstream import KeyRepository, open_channel_stream

CONNECT_TIMEOUT = 20.0
_NO_LUWID = bytes(8)
CONFIRM_TIMEOUT = 60.0  # when no heartbeat interval bounds the wait for a confirmation
_CONFIRM_REQUEST = int(ControlFlags1.CONFIRM_REQUEST)
PUT_RUN = 64  # arrivals a receiver puts in one worker-thread call, at most
BATCH_HANDLES = 8  # destinations (and put users) a receiver opens for a batch, at most
POLL_MS = 500  # longest single MQGET wait, so that a stop request is seen promptly

QmFactory = Callable[[], mqpy.QueueManager]


async def mqi(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """Run one blocking MQI call in a worker thread."""
    return await trio.to_thread.run_sync(functools.partial(fn, *args, **kw))


_luw_counter = [0]


def keepalive(stream: Any, definition: dict[str, object], hbint: int) -> int:
    """KAINT: TCP keepalive on the channel's socket; AUTO is the negotiated HBINT + 60 s
    (seed 003 §2.8). Returns the value in force (0: off)."""
    raw = str(D.attr(definition, "KAINT")).upper()
    kaint = (hbint + 60 if hbint else 0) if raw == "AUTO" else int(raw or 0)
    sock = getattr(stream, "socket", None)
    if sock is not None and kaint > 0:
        import socket

        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            if hasattr(socket, "TCP_KEEPIDLE"):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, kaint)
        except OSError:
            pass
    return kaint


async def monitoring(qm: mqpy.QueueManager, definition: dict[str, object]) -> ChannelMonitor:
    """A fresh monitor for an instance starting now, at the channel's MONCHL level (or the
    queue manager's, asked by MQINQ, for MONCHL(QMGR))."""
    try:
        qmgr_level = await mqi(qm.inquire, CMQC.MQIA_MONITORING_CHANNEL)
    except mqpy.MQMIError:
        qmgr_level = None
    return ChannelMonitor(level=effective_level(definition.get("MONCHL"), qmgr_level))


def peer_address(stream: Any) -> str:
    """The partner's "host:port" ("" when the stream has no socket)."""
    stream = getattr(stream, "transport_stream", stream)  # under TLS, the TCP stream
    try:
        host, port = stream.socket.getpeername()[:2]
        return f"{host}:{port}"
    except (AttributeError, OSError):
        return ""


def _peer_host(stream: Any) -> str:
    """The partner's address as DISPLAY CHSTATUS shows a receiver's CONNAME."""
    return peer_address(stream).rsplit(":", 1)[0]


def new_luwid() -> bytes:
    """An 8-byte LUWID: the time in milliseconds (6 bytes, wrapping) and a counter."""
    _luw_counter[0] = (_luw_counter[0] + 1) & 0xFFFF
    return (int(time.time() * 1000) & 0xFFFFFFFFFFFF).to_bytes(6, "big") + \
        _luw_counter[0].to_bytes(2, "big")


def next_seq(seq: int, wrap: int) -> int:
    return 1 if seq >= wrap else seq + 1


def _status_error(ev: Status) -> ChannelEnded:
    texts = {
        StatusCode.NO_CHANNEL: ("AMQ9520E", "Channel not defined remotely.", True),
        StatusCode.CHANNEL_WRONG_TYPE: ("AMQ9502E",
                                        "Type of channel not suitable for action requested.",
                                        False),
        StatusCode.MSG_SEQUENCE_ERROR: ("AMQ9526E", "Message sequence number error for "
                                        "channel.", False),
        StatusCode.WRAP_VALUE_ERROR: ("AMQ9527E", "Cannot send message through channel: "
                                      "sequence number wrap values differ.", False),
        StatusCode.QM_TERMINATING: ("AMQ9228E", "The remote queue manager is ending.", True),
        StatusCode.USER_CLOSED: ("AMQ9528I", "User requested closure of channel.", True),
    }
    msgid, text, retry = texts.get(ev.code, ("AMQ9999E", f"Channel program ended abnormally "
                                    f"(remote status {int(ev.code)}).", True))
    return ChannelEnded(msgid, text, retry, ev.code if isinstance(ev.code, StatusCode) else None)


def agreed_fast(agreed: Any) -> bool:
    """Does the channel run fast for non-persistent messages: NPMSPEED(FAST) at both ends?"""
    return bool(agreed.cap_flags2 & CapFlags2.FAST_MESSAGES_REQUIRED)


def _our_id(name: str, definition: dict[str, object], qmgr: str) -> InitialData:
    return InitialData(
        fap_level=OUR_FAP_LEVEL, channel_name=name, qmgr_name=qmgr,
        max_msg_batch=D.int_attr(definition, "BATCHSZ"),
        max_transmission_size=MAX_TRANSMISSION_SIZE,
        max_msg_size=D.int_attr(definition, "MAXMSGL"),
        seq_wrap_value=D.int_attr(definition, "SEQWRAP"),
        heartbeat_interval=D.int_attr(definition, "HBINT"),
        cap_flags1=CapFlags1.MSG_SEQ | CapFlags1.SPLIT_MESSAGE,
        cap_flags2=CapFlags2.DIST_LIST_CAPABLE | (
            CapFlags2.FAST_MESSAGES_REQUIRED
            if D.str_attr(definition, "NPMSPEED") == "FAST" else CapFlags2.NONE),
        process_id=os.getpid(), product_id="MQPY0100")


# ---------------------------------------------------------------------------- negotiation


async def call_id(conv: Conversation, ours: InitialData) -> tuple[Any, str]:
    """The caller's side of the initial-data exchange: (agreed values, partner qmgr)."""
    for _ in range(4):
        await conv.send(ours)
        ev = await conv.recv(CONFIRM_TIMEOUT)
        if isinstance(ev, Status):
            raise _status_error(ev)
        if not isinstance(ev, InitialData):
            await conv.close(StatusCode.PROTOCOL_SEGMENT_TYPE)
            raise ChannelEnded("AMQ9504E", "Protocol error: initial data expected.")
        if ev.init_error_flags1:
            nxt = reproposal(ours, ev)
            if nxt is None:
                raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", retry=False)
            ours = nxt
            continue
        n = negotiate(ours, ev)
        if n.agreed is None:
            raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", retry=False)
        conv.agreed(n.agreed.max_transmission_size, n.agreed.max_msg_size)
        return n.agreed, ev.qmgr_name.strip()
    raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", retry=False)


async def respond_id(conv: Conversation, ev: InitialData, ours: InitialData, *,
                     adopt_seq_wrap: bool = False) -> tuple[Any, str]:
    """The responder's side: answer the caller's ID (counter-proposals included)."""
    for _ in range(4):
        n = negotiate(ours, ev, adopt_seq_wrap=adopt_seq_wrap)
        if n.status is not None:
            await conv.close(n.status)
            raise ChannelEnded("AMQ9503E", f"Channel negotiation failed for "
                               f"'{ours.channel_name}'.", False, n.status)
        await conv.send(n.reply)
        if n.agreed is not None:
            conv.agreed(n.agreed.max_transmission_size, n.agreed.max_msg_size)
            return n.agreed, ev.qmgr_name.strip()
        nxt = await conv.recv(CONFIRM_TIMEOUT)
        if not isinstance(nxt, InitialData):
            raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", False)
        ev = nxt
    raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", False)


async def open_conversation(definition: dict[str, object], status: ChannelStatus,
                            key_repository: KeyRepository | None = None) -> Conversation:
    """Connect to the channel's CONNAME (the first address that answers); TLS with the
    certificate of ``key_repository`` when the channel has an SSLCIPH."""
    last: Exception | None = None
    for host, port in D.parse_conname(D.str_attr(definition, "CONNAME")):
        status.conname = f"{host}({port})"
        try:
            with trio.fail_after(CONNECT_TIMEOUT):
                stream = await open_channel_stream(host, port, definition, key_repository)
            return Conversation(stream, status)
        except (OSError, trio.TooSlowError) as exc:
            last = exc
    raise ChannelEnded("AMQ9202E", f"Remote host '{status.conname}' not available: {last}.")


# ---------------------------------------------------------------------------- sender


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
        self.pipeline = 2 if pipeline > 1 else 1
        self._inflight: _InFlight | None = None  # PipeLineLength 2: the batch awaiting STATUS
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
        self.seq = 0
        # the number and LUWID of the sync record: of the last batch with a persistent
        # message, or of any batch on a normal-speed channel (see the module docstring)
        self.hardened: tuple[int, bytes] = (0, bytes(8))
        self.fast = False  # NPMSPEED(FAST) at both ends (agreed_fast)
        self.partner = ""
        self.hbint = 0
        self.batchsz = D.int_attr(definition, "BATCHSZ")
        self.max_msg = D.int_attr(definition, "MAXMSGL")
        self.wrap = D.int_attr(definition, "SEQWRAP")
        self.correl_id: bytes | None = None  # a CLUSSDR gets only messages keyed to it
        self.dist_lists = False  # the partner takes distribution lists (ID negotiation)
        self.syncq: syncq.ChannelSyncQ | None = None  # this run's sync record
        self._gets: xmitgets.XmitqGets | None = None  # see _xmitq_gets
        self.clock: Callable[[], float] = time.perf_counter  # NETTIME's (a test's own)

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
                if not self.correl_id:  # a cluster transmission queue serves many partners
                    await mqi(distribution.mark_xmitq, qm, xmitq_name, self.dist_lists)
                await self._resync(conv, qm)
                self.status.move(ChannelEvent.NEGOTIATED)
                await self._transfer(conv, qm, xq)
            finally:
                with trio.CancelScope(shield=True):
                    await stream.aclose()
        finally:
            with trio.CancelScope(shield=True):
                await mqi(_disconnect, qm)

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
        agreed, partner = await call_id(conv, _our_id(self.name, self.definition,
                                                      self.local_qm))
        self._agreed(agreed, partner)

    async def _respond(self, conv: Conversation, first: InitialData) -> None:
        agreed, partner = await respond_id(conv, first, _our_id(self.name, self.definition,
                                                                self.local_qm))
        self._agreed(agreed, partner)

    def _agreed(self, agreed: Any, partner: str) -> None:
        self.partner = partner
        self.fast = agreed_fast(agreed)
        self.status.npmspeed = "FAST" if self.fast else "NORMAL"
        self.hbint = agreed.heartbeat_interval
        self.batchsz = agreed.max_msg_batch
        self.max_msg = agreed.max_msg_size or self.max_msg
        self.dist_lists = distribution.partner_takes_lists(agreed)
        st = self.status
        st.rqmname, st.hbint, st.batchsz, st.maxmsgl = (self.partner, self.hbint,
                                                       self.batchsz, self.max_msg)
        st.kaint = keepalive(self.conversation_stream, self.definition, self.hbint)

    async def _resync(self, conv: Conversation, qm: mqpy.QueueManager) -> None:
        rec = await mqi(syncrecord.read, qm, self.name, "S") \
            or syncrecord.SyncRecord(self.name, "S")
        indoubt = await mqi(syncrecord.indoubt_batch, qm, self.name)
        if indoubt is not None and indoubt.partner and indoubt.partner != self.partner:
            raise ChannelEnded("AMQ9510E", f"Channel {self.name} is in doubt with queue manager "
                               f"{indoubt.partner}, not {self.partner}: resolve it with "
                               f"RESOLVE CHANNEL.", retry=False)
        if indoubt is not None:
            # the committed record is locked by the in-doubt unit of work: the key says
            # what it holds
            rec.seq, rec.luwid = indoubt.prev_seq, indoubt.prev_luwid
        if rec.reset and indoubt is None:
            # RESET CHANNEL was issued here: the receiver takes the new number (RESET_DATA)
            await conv.send(Reset(seqnum=rec.seq))
            ev = await conv.recv(CONFIRM_TIMEOUT)
            if isinstance(ev, Status):
                raise _status_error(ev)
            if not isinstance(ev, Reset) or ev.seqnum != rec.seq:
                raise ChannelEnded("AMQ9504E", "Protocol error: reset not acknowledged.")
            rec.reset = False
            await mqi(self.syncq.replace_in_uow, rec)
            await mqi(qm.commit)
        seq, luwid = (indoubt.seq, indoubt.luwid) if indoubt else (rec.seq, rec.luwid)
        await conv.send(Resync(seqnum=seq, luwid=luwid))
        ev = await conv.recv(CONFIRM_TIMEOUT)
        if isinstance(ev, Status):
            raise _status_error(ev)
        if not isinstance(ev, Resync):
            raise ChannelEnded("AMQ9504E", "Protocol error: resynchronisation expected.")
        if indoubt is not None:
            key = indoubt.key
            if ev.seqnum == seq and ev.luwid == luwid:
                await mqi(qm.get_handle().resolve, key, True)
                rec.seq, rec.luwid = seq, luwid
            elif ev.seqnum == rec.seq:
                await mqi(qm.get_handle().resolve, key, False)
            else:
                await conv.close(StatusCode.MSG_SEQUENCE_ERROR)
                raise ChannelEnded("AMQ9526E", f"Message sequence number error for channel "
                                   f"{self.name}: sent {seq}, expected {ev.seqnum}.", False)
        elif ev.seqnum != rec.seq:
            await conv.close(StatusCode.MSG_SEQUENCE_ERROR)
            raise ChannelEnded("AMQ9526E", f"Message sequence number error for channel "
                               f"{self.name}: sent {rec.seq + 1}, expected {ev.seqnum + 1}.",
                               False)
        self.seq = rec.seq
        self.hardened = (rec.seq, rec.luwid)
        self.status.indoubt = False
        self.status.last_seqno = self.status.cur_seqno = rec.seq
        self.status.last_luwid = rec.luwid

    async def _get(self, qm: mqpy.QueueManager, xq: mqpy.Queue, wait_ms: int
                   ) -> tuple[mqpy.MD, bytes] | None:
        md = mqpy.MD(CorrelId=self.correl_id) if self.correl_id else mqpy.MD()
        opts = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING
        if wait_ms > 0:
            opts |= CMQC.MQGMO_WAIT
        try:
            # a wait that STOP CHANNEL MODE(FORCE) may abandon: the connection's backout at
            # the end of the channel undoes whatever the abandoned call got
            data = await trio.to_thread.run_sync(
                functools.partial(xq.get, None, md, mqpy.GMO(Options=opts,
                                                              WaitInterval=wait_ms)),
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
                     max_bytes: int) -> list[xmitgets.Got]:
        """In a worker thread: up to ``count`` messages already on the transmission queue
        (about ``max_bytes``, 0 no limit) in one round trip (xmitgets: an SPI RUN whose
        MQMDs stay packed). The run stops at the first get that fails (none left, or a
        failure the next single MQGET will report) and after the message that reaches
        max_bytes. A message over RUN_BYTES is left for the next single MQGET, so that the
        run's reply stays small."""
        limit = max_bytes if max_bytes else mqiflows.RUN_BYTES
        if limit <= 0 or count <= 0:
            return []
        return self._xmitq_gets(xq).run(qm.get_handle(), count, limit)

    async def _run_of_gets_in_loop(self, qm: mqpy.QueueManager, xq: mqpy.Queue, count: int,
                                   max_bytes: int) -> list[xmitgets.Got]:
        """:meth:`_run_of_gets`, its round trip made from the event loop when it can be
        (xmitgets.XmitqGets.run_in_loop), else in a worker thread."""
        limit = max_bytes if max_bytes else mqiflows.RUN_BYTES
        if limit <= 0 or count <= 0:
            return []
        got = await self._xmitq_gets(xq).run_in_loop(qm.get_handle(), count, limit)
        return got if got is not None else await mqi(self._run_of_gets, qm, xq, count,
                                                     max_bytes)

    def _xmitq_gets(self, xq: mqpy.Queue) -> xmitgets.XmitqGets:
        """The runs of gets of the transmission queue: one MQGMO for all, packed once
        (nothing of its output is read), and the request's MQMD (a fresh one or, for a
        cluster sender, one with its CorrelId) packed once too."""
        gets = self._gets
        if gets is None or gets.hobj != xq.get_handle():
            md = mqpy.MD(CorrelId=self.correl_id) if self.correl_id else mqpy.MD()
            gets = self._gets = xmitgets.XmitqGets(xq.get_handle(), mqiflows.Packed.of(md),
                                                   _XMITQ_GMO, self.correl_id)
        return gets

    def _confirmed(self, qm: mqpy.QueueManager, xq: mqpy.Queue, key: bytes, count: int,
                   max_bytes: int) -> list[xmitgets.Got]:
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
        return self._xmitq_gets(xq).run(qm.get_handle(), gets, limit,
                                        resolve=(key, True, count <= 0))

    async def _confirmed_in_loop(self, qm: mqpy.QueueManager, xq: mqpy.Queue, key: bytes,
                                 count: int, max_bytes: int) -> list[xmitgets.Got]:
        """:meth:`_confirmed`, its round trip made from the event loop when it can be,
        else in a worker thread."""
        limit = max_bytes if max_bytes else mqiflows.RUN_BYTES
        gets = count if count > 0 and limit > 0 else 0
        got = await self._xmitq_gets(xq).run_in_loop(qm.get_handle(), gets, limit,
                                                     resolve=(key, True, count <= 0))
        return got if got is not None else await mqi(self._confirmed, qm, xq, key, count,
                                                     max_bytes)

    async def _transfer(self, conv: Conversation, qm: mqpy.QueueManager, xq: mqpy.Queue) -> None:
        discint = D.int_attr(self.definition, "DISCINT")
        idle_since = time.monotonic()
        last_flow = time.monotonic()
        # the next batch's first messages, got with the last batch's commit when that batch
        # was full (more were probably waiting)
        firsts: list[tuple[mqpy.MD, bytes]] = []
        while True:
            if self.stop_requested.is_set():
                if self._inflight is not None:
                    await self._settle(conv, qm, force=True)  # QUIESCE ends the batch first
                await conv.send(Status(code=StatusCode.USER_CLOSED,
                                       flags=ControlFlags1.CLOSE_CHANNEL))
                return  # (the end of the channel backs out whatever firsts holds)
            self.status.substate = "MQGET"
            if self._inflight is not None and not firsts:
                # pipelined: the next batch's first messages, those already there; none
                # (the queue drained): the batch in flight is ended before any wait
                firsts = await self._run_of_gets_in_loop(
                    qm, xq, self.batchsz, D.int_attr(self.definition, "BATCHLIM") * 1024)
                self._note_answer(conv)
                if not firsts:
                    await self._settle(conv, qm, force=True)
                    continue
            got = firsts[0] if firsts else await self._get(qm, xq, POLL_MS)
            if got is None:
                now = time.monotonic()
                if discint and now - idle_since >= discint:
                    await conv.send(Status(code=StatusCode.USER_CLOSED,
                                           flags=ControlFlags1.CLOSE_CHANNEL))
                    return
                if self.hbint and now - last_flow >= self.hbint:
                    await self._heartbeat(conv)
                    last_flow = time.monotonic()
                continue
            try:
                firsts = await self._batch(conv, qm, xq, got, firsts[1:])
            except ChannelEnded:
                if self._inflight is None:
                    raise
                # pipelined: whatever ended this batch (the partner closed the connection
                # after refusing the batch in flight, say), the batch in flight is settled
                # first, its STATUS read if it came: an error there is the one to report
                await self._settle(conv, qm, force=True)
                raise
            idle_since = last_flow = time.monotonic()

    async def _heartbeat(self, conv: Conversation) -> None:
        self.status.substate = "HEARTBEAT"
        t0 = time.perf_counter()
        await conv.send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST))
        ev = await conv.recv(D.receive_timeout(self.hbint) or CONFIRM_TIMEOUT)
        if isinstance(ev, Status):
            raise _status_error(ev)
        self.status.round_trip(int((time.perf_counter() - t0) * 1e6))

    async def _dead_letter_at_sender(self, qm: mqpy.QueueManager, md: Any, data: bytes,
                                     reason: int) -> bool:
        """A message the channel cannot carry (too long) goes to the local DLQ (seed 003)."""
        xqh = mqpy.XQH().unpack(data)
        put_date, put_time = xmitgets.put_stamp(md)
        deadq = (await mqi(qm.inquire, CMQC.MQCA_DEAD_LETTER_Q_NAME)).strip(b" \x00")
        if not deadq:
            return False
        dmd, body = reports.build_dead_letter(
            xqh.MsgDesc, data[XQH_WITH_MD_LENGTH:], reason,
            xqh.RemoteQName.rstrip(b" \x00").decode("latin-1"),
            xqh.RemoteQMgrName.rstrip(b" \x00").decode("latin-1"),
            put_appl_name=b"mqpy sender MCA", put_date=put_date, put_time=put_time)
        await mqi(qm.put1, deadq, body, dmd,
                  mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_SET_ALL_CONTEXT))
        return True

    async def _batch(self, conv: Conversation, qm: mqpy.QueueManager, xq: mqpy.Queue,
                     first: tuple[mqpy.MD, bytes],
                     more: list[tuple[mqpy.MD, bytes]] | None = None
                     ) -> list[tuple[mqpy.MD, bytes]]:
        """One batch, from its first message (and ``more`` got with it). When it was full
        (BATCHSZ messages, or BATCHLIM reached), the messages already waiting for the next
        one are got with its commit: those (none when it was not full)."""
        batchint = D.int_attr(self.definition, "BATCHINT") / 1000.0
        # BATCHLIM: KB of data after which the batch ends, with the message that reached it
        batchlim = D.int_attr(self.definition, "BATCHLIM") * 1024
        started = time.monotonic()
        got = collections.deque([first, *(more or ())])
        held: tuple[mqpy.MD, bytes] | None = None  # the latest message: the batch's last?
        out: list[Event] = []  # messages ready to go, written together
        recoverable = not self.fast  # a unit of work at both ends (module docstring)
        sent = 0
        batch_bytes = 0
        # pipelined, this batch's numbers follow those of the batch still in flight
        seq = self._inflight.last_seq if self._inflight is not None else self.seq
        while got:
            md, data = got.popleft()
            if not self.dist_lists and distribution.is_dh_message(data):
                # a partner without distribution lists gets a copy per destination (seed 000)
                got.extendleft(reversed(distribution.per_destination(md, data)))
                md, data = got.popleft()
            if len(data) - XQH_WITH_MD_LENGTH > self.max_msg:
                if not await self._dead_letter_at_sender(qm, md, data,
                                                         CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL):
                    await mqi(qm.backout)
                    raise ChannelEnded("AMQ9544E", "Message larger than the channel's maximum "
                                       "message length and no dead-letter queue.", False)
            else:
                batch_bytes += len(data)
                if self.status.monitor.on:  # XQTIME
                    self.status.monitor.message_got(*xmitgets.put_stamp(md))
                if held is not None:
                    seq = next_seq(seq, self.wrap)
                    ev = self._message(seq, held[1], confirm=False)
                    recoverable = recoverable or ev.persistent
                    out.append(ev)
                    sent += 1
                held = (md, data)
            room = self.batchsz - sent - (held is not None)
            if got or room <= 0 or (batchlim and batch_bytes >= batchlim):
                continue
            if out:
                await self._send_messages(conv, out)  # before waiting for more
            left = batchlim - batch_bytes if batchlim else 0
            wait = max(0.0, batchint - (time.monotonic() - started))
            if wait > 0 and self._inflight is not None:
                # BATCHINT keeps this batch open: the batch in flight is not left waiting
                # with it, once nothing more is there already
                got.extend(await self._get_many(qm, xq, 0, room, left))
                self._note_answer(conv)
                if got:
                    continue
                await self._settle(conv, qm, force=True)
                wait = max(0.0, batchint - (time.monotonic() - started))
            got.extend(await self._get_many(qm, xq, int(wait * 1000), room, left))
            self._note_answer(conv)
        if out:
            await self._send_messages(conv, out)
        if held is None and sent == 0:
            await mqi(qm.commit)  # only dead-lettered messages
            return []
        full = sent + (held is not None) >= self.batchsz or bool(
            batchlim and batch_bytes >= batchlim)
        # Pipelined: the batch in flight is confirmed before this one goes in doubt (at most
        # one batch in doubt, spec dqm-intercommunication 9.33); its commit goes with this
        # batch's sync record (_harden).
        settled = await self._confirmation(conv, qm) if self._inflight is not None else None
        # Batch heartbeat (seed 003 §2.10): if the partner has been silent longer than BATCHHB,
        # check it is still there before going in doubt; a dead partner ends the channel with
        # the batch merely backed out, not in doubt.
        batchhb = D.int_attr(self.definition, "BATCHHB") / 1000.0
        if batchhb and time.monotonic() - conv.last_received > batchhb:
            self.status.batch_heartbeats += 1
            await self._heartbeat(conv)
        # The end of the batch: sync record and in-doubt key, then the confirm request.
        luwid = new_luwid()
        last_seq = next_seq(seq, self.wrap) if held is not None else seq
        last = self._message(last_seq, held[1], confirm=True, luwid=luwid) \
            if held is not None else None
        recoverable = recoverable or (last is not None and last.persistent)
        key: bytes | None = None
        if recoverable:
            # should the receiver not have committed this batch, its record is that of
            # the last batch hardened (the one confirmed just now, if it was)
            prev_seq, prev_luwid = (settled.last_seq, settled.luwid) \
                if settled is not None and settled.key is not None else self.hardened
            key = syncrecord.prepare_key(self.name, prev_seq, last_seq, luwid, self.partner,
                                         prev_luwid=prev_luwid)
            record = syncrecord.SyncRecord(self.name, "S", last_seq, luwid, self.partner)
            await self._harden_in_loop(qm, record, key,
                                       settled.key if settled is not None else None)
        else:
            # fast non-persistent messages only: the gets are committed now, not prepared
            await self._commit_gets(qm, settled.key if settled is not None else None)
        if settled is not None:
            self._batch_confirmed(settled)
        self.status.indoubt = recoverable
        self.status.cur_luwid = luwid
        self.status.cur_seqno = last_seq
        t0 = self.clock()
        if last is not None:
            await self._send_messages(conv, [last])
            sent += 1
        else:
            await conv.send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST, luwid=luwid))
        if self.pipeline > 1:
            # the STATUS is read when the next batch ends (or the queue drains): meanwhile
            # the next batch's messages are got and sent
            self._inflight = _InFlight(key, luwid, last_seq, sent, t0)
            return []
        # the next batch's first messages, if they are there already (not once a stop is
        # asked: the end of the channel would only back them out): got with the commit, or,
        # when there is nothing to commit (fast non-persistent messages only), while the
        # partner puts this batch -- unless NETTIME is measured, which that would lengthen
        ahead = self.batchsz if full and not self.stop_requested.is_set() else 0
        early = None
        if key is None and ahead and not self.status.monitor.on:
            early = await self._run_of_gets_in_loop(qm, xq, ahead, batchlim)
        self.status.substate = "RECEIVE"
        ev = await conv.recv(D.receive_timeout(self.hbint) or CONFIRM_TIMEOUT)
        if isinstance(ev, Status) and ev.code == 0:
            self.status.round_trip(int((self.clock() - t0) * 1e6))
            if early is not None:
                firsts = early
            elif key is not None:
                firsts = await self._confirmed_in_loop(qm, xq, key, ahead, batchlim)
            else:
                firsts = await self._run_of_gets_in_loop(qm, xq, ahead, batchlim)
            self._batch_confirmed(_InFlight(key, luwid, last_seq, sent, t0))
            return firsts
        if isinstance(ev, Status):
            # The receiver backed its batch out: so do we; the messages stay on the xmitq
            # (fast non-persistent ones were committed: seed 000, they "may be lost")
            if key is not None:
                await mqi(qm.get_handle().resolve, key, False)
            self.status.indoubt = False
            raise _status_error(ev)
        raise ChannelEnded("AMQ9504E", "Protocol error: batch confirmation expected.")

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
            qm.get_handle().prepare(key)

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
            await mqi(qm.get_handle().prepare, key)

    async def _confirmation(self, conv: Conversation, qm: mqpy.QueueManager) -> _InFlight:
        """Pipelining: the partner's STATUS for the batch in flight, which is returned (no
        longer in flight; the caller commits it). An error STATUS: the partner backed that
        batch out, so this end backs it out too, with the batch being got after it (every
        message stays on the transmission queue, in order), and the channel ends as it does
        without pipelining."""
        flight, self._inflight = self._inflight, None
        assert flight is not None
        self.status.substate = "RECEIVE"
        ev = await conv.recv(D.receive_timeout(self.hbint) or CONFIRM_TIMEOUT)
        if isinstance(ev, Status) and ev.code == 0:
            # NETTIME: to when the answer was first seen (_note_answer), not to now: the
            # batch after it was being got and sent meanwhile
            answered = flight.answered if flight.answered is not None else self.clock()
            self.status.round_trip(round((answered - flight.t0) * 1e6))
            return flight
        if isinstance(ev, Status):
            await mqi(self._back_out, qm, flight.key)
            self.status.indoubt = False
            raise _status_error(ev)
        raise ChannelEnded("AMQ9504E", "Protocol error: batch confirmation expected.")

    async def _settle(self, conv: Conversation, qm: mqpy.QueueManager, *, force: bool) -> None:
        """Pipelining: confirm and commit the batch in flight before the channel waits,
        stops or ends. ``force``: the commit waits for its log force (nothing follows that
        would force it)."""
        flight = await self._confirmation(conv, qm)
        if flight.key is not None:
            await mqi(qm.get_handle().resolve, flight.key, True, force)
        self._batch_confirmed(flight)

    def _batch_confirmed(self, flight: _InFlight) -> None:
        self.seq = flight.last_seq
        if flight.key is not None:
            self.hardened = (flight.last_seq, flight.luwid)
        self.status.indoubt = False
        self.status.last_luwid = flight.luwid
        self.status.last_seqno = flight.last_seq
        self.status.batch_done(flight.sent, self.batchsz)

    @staticmethod
    def _back_out(qm: mqpy.QueueManager, key: bytes | None) -> None:
        """In a worker thread: back out the in-doubt batch ``key`` (None: a batch of fast
        non-persistent messages, committed already) and the unit of work in progress (the
        next batch's gets)."""
        if key is not None:
            qm.get_handle().resolve(key, False)
        qm.backout()

    async def _commit_gets(self, qm: mqpy.QueueManager, settled: bytes | None) -> None:
        """The end of a batch of fast non-persistent messages: its gets committed (no log
        force: nothing in them is persistent), in one round trip from the event loop when it
        can be. ``settled``: the in-doubt key of the batch before, confirmed by the partner
        (pipelining), committed first and forced, since no prepare follows to force it."""
        handle = qm.get_handle()
        if settled is None:
            if xmitgets.in_loop(handle) and await xmitgets.call_in_loop(
                    handle, SegmentType.MQCMIT, ()) is not None:
                return
            await mqi(qm.commit)
            return
        ran = await xmitgets.run_quiet_in_loop(handle, [("resolve", (settled, True, True))],
                                               commit=True)
        if ran is None:
            ran = await mqi(xmitgets.run_quiet, handle, [("resolve", (settled, True, True))],
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
            return message_event(flags, _NO_LUWID if luwid is None else luwid, seq,
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
        flight = self._inflight
        if flight is not None and flight.answered is None and self.status.monitor.on \
                and conv.arrived():
            flight.answered = self.clock()


@attrs.define
class _InFlight:
    """PipeLineLength 2: a batch prepared (in doubt) whose confirm request has gone, while
    the next batch is got and sent."""

    key: bytes | None  # its in-doubt key; None: fast non-persistent messages only
    luwid: bytes
    last_seq: int
    sent: int  # messages
    t0: float  # when its confirm request went (the round trip, NETTIME)
    answered: float | None = None  # when its answer was first seen on the socket


#: The MQGMO of a sending MCA's run of gets, packed once (mqiflows.Packed): the gets of a
#: batch, under syncpoint, none waiting (the batch's first get, which may wait, is _get's).
_XMITQ_GMO = mqiflows.Packed.of(mqpy.GMO(
    Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING))


def _disconnect(qm: mqpy.QueueManager) -> None:
    """End an MCA's connection *abnormally*: whatever its unit of work holds is backed out,
    atomically with the disconnect. (A normal MQDISC commits; an MQGET the channel abandoned
    at a forced stop could otherwise slip a message into the unit of work and have it
    committed, and lost, on the way out.)"""
    try:
        qm.get_handle().abend()
    except (mqpy.MQMIError, mqpy.PYIFError, AttributeError):
        try:
            qm.backout()
            qm.disconnect()
        except (mqpy.MQMIError, mqpy.PYIFError):
            pass


# ---------------------------------------------------------------------------- receiver


def _as_user(od: mqpy.OD, user: str | None) -> tuple[mqpy.OD, int]:
    """``od`` naming ``user`` as its AlternateUserId, and the MQPUT1 option that makes the
    queue manager judge that user (None: the MCA's own authority, no option)."""
    if user is None:
        return od, 0
    od.AlternateUserId = user.encode("latin-1", "replace")[:12]
    return od, CMQC.MQPMO_ALTERNATE_USER_AUTHORITY


ChannelLookup = Callable[[str], "dict[str, object] | None"]


def _field(cls: Any, name: str, base: int = 0) -> slice:
    """Where field ``name`` of MQ structure ``cls`` lies, ``base`` bytes into a buffer."""
    at = base + cls.offset_of(name)
    return slice(at, at + cls._layout_.by_name[name].size)


# what a receiving MCA reads of each arrival, in place in its MQXQH
_REMOTE_Q = _field(mqpy.XQH, "RemoteQName")
_REMOTE_QMGR = _field(mqpy.XQH, "RemoteQMgrName")
_MD_STRUC_ID = _field(mqpy.MD, "StrucId", XQH_LENGTH)
_MD_VERSION = _field(mqpy.MD, "Version", XQH_LENGTH)
_MD_FORMAT = _field(mqpy.MD, "Format", XQH_LENGTH)
_MD_USER = _field(mqpy.MD, "UserIdentifier", XQH_LENGTH)
_MD_V1 = {ByteOrder.LITTLE: (1).to_bytes(4, "little"), ByteOrder.BIG: (1).to_bytes(4, "big")}


def _arrival(ev: MessageData) -> tuple[bytes, bytes, Any, bytes, bytes]:
    """An arrival's destination queue and queue manager, its MQMD, Format and
    UserIdentifier, read in place in the transmission header. The MQMD is passed on as it
    arrived (mqiflows.Packed: a bindings put carries those bytes as they are, rather than
    decoding and encoding them again) when it is an MQMD version 1, as an MQXQH's is;
    anything else is decoded as before."""
    raw = ev.xqh
    if raw[_MD_STRUC_ID] == CMQC.MQMD_STRUC_ID and raw[_MD_VERSION] == _MD_V1[ev.byte_order]:
        md: Any = mqiflows.Packed(mqpy.MD, raw[XQH_LENGTH:], ev.byte_order)
        return (raw[_REMOTE_Q].rstrip(b" \x00"), raw[_REMOTE_QMGR].rstrip(b" \x00"), md,
                raw[_MD_FORMAT], raw[_MD_USER])
    xqh = _transmission_header(ev)
    md = xqh.MsgDesc
    return (xqh.RemoteQName.rstrip(b" \x00"), xqh.RemoteQMgrName.rstrip(b" \x00"), md,
            md.Format, md.UserIdentifier)


def _transmission_header(ev: MessageData) -> Any:
    """An arrival's MQXQH decoded, its MQMD one the queue manager can take (a StrucId and
    Version an MQMD has); StructError (a ValueError) if not: the partner's protocol error."""
    xqh = ev.transmission_header
    if xqh.MsgDesc.header_error():
        raise StructError(f"its MQMD's StrucId {xqh.MsgDesc.StrucId!r} and Version "
                          f"{xqh.MsgDesc.Version} are not an MQMD's")
    return xqh


_PMOS: dict[int, mqiflows.Packed] = {}


def _arrival_pmo(options: int) -> mqiflows.Packed:
    """The MQPMO of an arrival's put with ``options``, packed once (the bindings flow's byte
    order): nothing of a receiving MCA's puts' output is kept, so one serves every put."""
    pmo = _PMOS.get(options)
    if pmo is None:
        pmo = _PMOS[options] = mqiflows.Packed.of(mqpy.PMO(Options=options))
    return pmo


class ReceiverMCA:
    """The responder end of a message channel (RCVR), for one inbound connection."""

    def __init__(self, stream: trio.abc.Stream, local_qm: str, connect_qm: QmFactory,
                 lookup: ChannelLookup, register: Callable[[str, str, ChannelStatus], None]
                 | None = None, *, conversation: Conversation | None = None,
                 first: Event | None = None,
                 autodefine: Callable[[str, InitialData], dict[str, object] | None]
                 | None = None, call_out: tuple[str, dict[str, object]] | None = None,
                 mca_user: str | None = None, log: Callable[[str, str], None] | None = None,
                 key_repository: KeyRepository | None = None) -> None:
        """``call_out`` (name, definition): a requester (RQSTR) calling its server.
        ``mca_user``: the user CHLAUTH admitted the channel as (None: its MCAUSER), whose
        authority the puts use (``putaut``); ``log(msgid, text)``: the channel initiator's
        error log, for messages that do not end the channel. ``key_repository``: the channel
        initiator's QMGR SSLKEYR (a requester with an SSLCIPH calls out with TLS)."""
        self.key_repository = key_repository
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
        self.seq = 0
        self.fast = False  # NPMSPEED(FAST) at both ends (agreed_fast)
        self._delivered = False  # this batch has had a put beyond a plain run (_deliver)
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
                ours = attrs.evolve(_our_id(self.name, self.definition, self.local_qm),
                                    cap_flags1=CapFlags1.MSG_SEQ | CapFlags1.SPLIT_MESSAGE
                                    | CapFlags1.REQUEST_INITIATION)
                agreed, self.partner = await call_id(conv, ours)
                self._agreed(agreed)
            else:
                await self._negotiate(conv)
            qm = await mqi(self.connect_qm)
            self.status.monitor = await monitoring(qm, self.definition)
            if self.status.state is ChannelState.INACTIVE:  # (a requester's is BINDING)
                self.status.move(ChannelEvent.START)
                self.status.move(ChannelEvent.BIND)
            self.status.move(ChannelEvent.NEGOTIATED)
            await self._serve(conv, qm)
            self.status.move(ChannelEvent.ENDED)
        except ChannelEnded:
            if self.status.state is not ChannelState.INACTIVE:
                self.status.move(ChannelEvent.ENDED)  # a responder does not retry
            raise
        finally:
            with trio.CancelScope(shield=True):
                if self.stream is not None:
                    await self.stream.aclose()
                if qm is not None:
                    await mqi(_disconnect, qm)

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
        if self.register is not None:
            self.register(name, ev.qmgr_name.strip(), self.status)
        agreed, self.partner = await respond_id(conv, ev, _our_id(name, definition,
                                                                  self.local_qm),
                                                adopt_seq_wrap=autodefined)
        self._agreed(agreed)

    def _agreed(self, agreed: Any) -> None:
        self.conname = _peer_host(self.stream)  # kept in each batch's sync record
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

    async def _serve(self, conv: Conversation, qm: mqpy.QueueManager) -> None:
        self.syncq = syncq.ChannelSyncQ(qm)
        # a partner's own record, else one RESET CHANNEL made before any partner was known
        rec = await mqi(syncrecord.read, qm, self.name, "R", self.partner) \
            or await mqi(syncrecord.read, qm, self.name, "R", "") \
            or syncrecord.SyncRecord(self.name, "R")
        rec.partner_qm = self.partner
        self.seq = rec.seq
        self.status.last_seqno = self.status.cur_seqno = rec.seq
        self.status.last_luwid = rec.luwid
        fast = self.fast
        recoverable = not fast  # this batch is a unit of work (module docstring)
        in_batch = 0
        timeout = D.receive_timeout(self.hbint)
        pending: list[MessageData] = []  # received, not yet put: one worker-thread call puts many
        pending_bytes = 0
        visible = False  # pending holds a message that is to be visible at once
        while True:
            self.status.substate = "RECEIVE"
            ev = await conv.recv(timeout)
            if type(ev) is MessageData:  # nearly every flow: first
                expected = next_seq(self.seq, self.wrap)
                if ev.seqnum != expected:
                    await mqi(qm.backout)
                    await conv.close(StatusCode.MSG_SEQUENCE_ERROR)
                    raise ChannelEnded("AMQ9526E", f"Message sequence number error for "
                                       f"channel {self.name}: sent {ev.seqnum}, expected "
                                       f"{expected}.", False, StatusCode.MSG_SEQUENCE_ERROR)
                self.seq = ev.seqnum
                in_batch += 1
                self.status.cur_seqno = ev.seqnum
                pending.append(ev)
                pending_bytes += len(ev.data)
                if ev.persistent:
                    recoverable = True  # a unit of work at both ends
                elif fast:
                    visible = True
                # (an int's test: an IntFlag's & is Python code, and this is every message)
                confirm = bool(int(ev.flags) & _CONFIRM_REQUEST)
                # the batch's end: its sync record and commit go with the last puts when
                # they can
                record = self._record(ev.seqnum, ev.luwid) if confirm and recoverable \
                    else None
                committed = False
                if confirm or len(pending) >= PUT_RUN or pending_bytes >= mqiflows.RUN_BYTES \
                        or (visible and not conv.received_more()):
                    # before waiting for the network: a fast non-persistent message is
                    # visible as soon as it has arrived (seed 000 §3), in order -- with those
                    # that have arrived behind it meanwhile, read without waiting, so that a
                    # run is what the socket holds and not only what the last read brought;
                    # puts under syncpoint wait for the batch's end (nobody sees them before
                    # it), one round trip
                    committed = await self._flush(conv, qm, pending, fast, record)
                    pending_bytes, visible = 0, False
                if confirm:
                    if recoverable:
                        rec = await self._commit_batch(qm, ev.seqnum, ev.luwid,
                                                       committed=committed)
                    else:
                        await self._end_unrecoverable(qm, ev.seqnum, ev.luwid)
                    recoverable = not fast
                    await conv.send(Status(code=0))
                    self.status.batch_done(in_batch, self.status.batchsz or 50)
                    in_batch = 0
                    self._qtypes.clear()  # definitions may change between batches
                    self._may_put.clear()  # and so may authorities
                    unused = self._unused_handles()
                    if unused:  # after the answer: the sender need not wait for this
                        await mqi(self._close_handles, qm, unused)
                continue
            if pending:
                await self._flush(conv, qm, pending, fast)
                pending_bytes, visible = 0, False
            if isinstance(ev, Resync):
                await conv.send(Resync(seqnum=rec.seq, luwid=rec.luwid))
                continue
            if isinstance(ev, Reset):
                # the sender's operator reset the channel: take its number (RESET CHANNEL)
                await mqi(qm.backout)
                rec = await self._commit_batch(qm, ev.seqnum, bytes(8))
                self.status.cur_seqno = ev.seqnum
                await conv.send(Reset(seqnum=ev.seqnum))
                if self._handles:
                    await mqi(self._close_handles, qm)
                continue
            if isinstance(ev, Ping):
                await conv.send(Ping(data=ev.data))  # PING CHANNEL: the data comes back
                continue
            if isinstance(ev, Heartbeat):
                if ev.flags & ControlFlags1.CONFIRM_REQUEST and ev.luwid != bytes(8):
                    # an empty batch end (every message was dead-lettered at the sender)
                    rec = await self._commit_batch(qm, self.seq, ev.luwid)
                    await conv.send(Status(code=0))
                elif ev.flags & ControlFlags1.CONFIRM_REQUEST:
                    await conv.send(Heartbeat())
                if in_batch == 0 and self._handles:
                    # the sender had nothing to send for a heartbeat interval: the channel
                    # is idle, and its destinations are not held open meanwhile
                    await mqi(self._close_handles, qm)
                continue
            if isinstance(ev, Status):
                if ev.code == StatusCode.USER_CLOSED:
                    await mqi(qm.backout)
                    return
                await mqi(qm.backout)
                raise _status_error(ev)

    async def _flush(self, conv: Conversation, qm: mqpy.QueueManager,
                     pending: list[MessageData], fast: bool,
                     record: syncrecord.SyncRecord | None = None) -> bool:
        """Put the received messages in order: plain puts in one worker-thread call, and
        whatever that call could not put through :meth:`_deliver` (retry, report, DLQ).
        With ``record`` (the batch ends with these messages), the run that puts the last of
        them replaces the sync record too when it can, and the same worker-thread call
        commits the batch: whether it did (else :meth:`_commit_batch` does both)."""
        done = 0
        committed = False
        while done < len(pending):
            sizes, committed = await self._put_run_in_loop(qm, pending[done:], fast, record)
            if sizes:
                self.status.messages_moved(len(sizes), sum(sizes), sent=False)
            done += len(sizes)
            if done == len(pending):
                break
            self._delivered = True  # (it may put a report under syncpoint)
            problem = await self._deliver(qm, pending[done], fast)
            if problem is not None:
                pending.clear()
                await mqi(qm.backout)
                await conv.close(problem.status_code or StatusCode.CAN_NOT_STORE)
                raise problem
            done += 1
            committed = False  # the record and commit are for the end: after _deliver's put
        pending.clear()
        return committed

    def _put_run(self, qm: mqpy.QueueManager, evs: list[MessageData], fast: bool,
                 record: syncrecord.SyncRecord | None = None
                 ) -> tuple[list[int], bool]:
        """In a worker thread: put arrivals until one needs more than a plain put (a put that
        fails, or rule 6); the sizes of those put. The puts go as one round trip
        (xmitgets.run_quiet: one SPI RUN_QUIET of packed flows over the bindings socket),
        which stops at the first that fails, as one by one would. When all of them are
        plain puts, the same round trip replaces ``record`` (the sync record of the batch
        they end) if the MCA's record is known and commits the batch (an MQCMIT may end an
        SPI RUN, mqiflows.RUN_LAST_VERBS): whether it was."""
        steps, sizes, tail = self._put_steps(qm, evs, fast, record)
        if not steps:
            return [], False  # the first arrival needs _deliver: no round trip for nothing
        # the commit ends the same round trip: made only if every call completed, which
        # is when syncq.done holds
        done, committed = xmitgets.run_quiet(qm.get_handle(), steps + tail, bool(tail))
        put, replaced = self._run_done(sizes, tail, done)
        if replaced and not committed:
            qm.commit()
        return put, replaced

    async def _put_run_in_loop(self, qm: mqpy.QueueManager, evs: list[MessageData],
                               fast: bool, record: syncrecord.SyncRecord | None = None
                               ) -> tuple[list[int], bool]:
        """:meth:`_put_run`, from the event loop when it can be: when every arrival's put
        is ready without a call to the queue manager first (its destination open and its
        checks made earlier: every batch but a channel's first), the run's round trip is
        made on the bindings socket without a worker thread (xmitgets.run_quiet_in_loop),
        else by :meth:`_put_run` in one, as before."""
        handle = qm.get_handle()
        if xmitgets.in_loop(handle):
            made = self._put_steps(qm, evs, fast, record, may_call=False)
            if made is not None and made[0]:
                steps, sizes, tail = made
                ran = await xmitgets.run_quiet_in_loop(handle, steps + tail, bool(tail))
                if ran is not None:
                    done, committed = ran
                    put, replaced = self._run_done(sizes, tail, done)
                    if replaced and not committed:
                        await mqi(qm.commit)
                    return put, replaced
        return await mqi(self._put_run, qm, evs, fast, record)

    def _put_steps(self, qm: mqpy.QueueManager, evs: list[MessageData], fast: bool,
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
        for ev in evs:
            try:
                dest_q, dest_qm, md, fmt, context_user = _arrival(ev)
            except ValueError:  # a transmission header that does not decode: _deliver's
                break
            if fmt == CMQC.MQFMT_DIST_HEADER:
                break  # for every destination it names: _deliver, after the run's puts
            if steps and carried + len(ev.data) > mqiflows.RUN_BYTES:
                break  # the rest in the next run: one round trip stays a modest flow
            if not may_call and not self._ready(dest_q, dest_qm, context_user, local):
                return None
            sync = CMQC.MQPMO_NO_SYNCPOINT if (
                fast and not ev.persistent) else CMQC.MQPMO_SYNCPOINT
            try:
                self._second_check(qm, dest_q, dest_qm)
                hobj = self._destination(qm, dest_q, dest_qm, context_user) \
                    if dest_qm in (b"", local) else None
            except mqpy.MQMIError:
                # refused by PUTAUT's second check, or the destination cannot be opened:
                # _deliver takes it from here (its MQPUT1 gives the reason)
                break
            if hobj is not None:
                # a local queue of that name, open for the batch: an MQPUT, and rule 6
                # holds (the open resolved to no remote-queue definition)
                step: Step = ("put", (hobj, md, _arrival_pmo(
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
        qm.get_handle().put1(*self._arrival_put1(qm, dest_q, dest_qm, md, data, sync,
                                                  md.UserIdentifier))

    def _arrival_put1(self, qm: mqpy.QueueManager, dest_q: bytes, dest_qm: bytes,
                      md: Any, data: bytes, sync: int, context_user: bytes
                      ) -> tuple[Any, ...]:
        """The MQPUT1 arguments (od, md, pmo, data) of one arrival, with the authority PUTAUT
        names (``context_user``: the MQMD's UserIdentifier); MQMIError 2035 when ALTMCA's
        check of the MCA user refuses it (blocking)."""
        self._second_check(qm, dest_q, dest_qm)
        od, options = _as_user(mqpy.OD(ObjectName=dest_q, ObjectQMgrName=dest_qm),
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
        """The batch's handle for arrivals to a local queue named ``dest_q`` (blocking).

        The first arrival for a destination (and put user) opens it as its MQPUT1 would --
        output, set-all context, the PUTAUT user as alternate user, not bound to one
        cluster instance -- so the batch's puts are MQPUTs, without an open, a name
        resolution and an authority check each. The open's resolved names say whether the
        name is a local queue: resolved to itself at this queue manager, it is neither a
        remote-queue definition (rule 6: those always resolve to another queue manager)
        nor an alias or a model; anything else is closed again and goes by MQPUT1 after
        :meth:`_qtype`'s check, as before. A failed open raises its MQMIError (the caller
        leaves the arrival to _deliver). While it is open the queue cannot be deleted, so
        what the open found holds for every put through it. The handle stays open from
        batch to batch while each batch puts there (:meth:`_unused_handles`), and is closed
        after the commit of a batch that did not, when the channel idles (a heartbeat), at
        RESET CHANNEL and at the end of the channel: IBM's receiving MCAs also keep their
        destination queues open between batches ("MCAs for receiver channels ... may keep
        the destination queues open even when messages are not being transmitted", IBM MQ
        reason 2042, MQRC_OBJECT_IN_USE), and an open and a close a batch were two of its
        four round trips. As for any application holding a handle, what the open checked
        (the put user's authority) holds until the handle is closed: an authority taken
        away applies from the next open, after a batch that does not put there, an idle
        heartbeat interval or the channel's end. At most BATCH_HANDLES at once: beyond them (PUTAUT(CTX) with
        many users) an open each would cost more round trips than it saves, and arrivals
        go by MQPUT1."""
        user = self.put_authority.put_user(context_user)
        key = (dest_q, dest_qm, user)
        self._used.add(key)
        if key in self._handles:
            return self._handles[key]
        if len(self._handles) >= BATCH_HANDLES:
            return None  # (PUTAUT(CTX) and many users, say): an open each would not pay
        # version 3: the open's answer carries the resolved names
        od, alternate = _as_user(mqpy.OD(Version=CMQC.MQOD_VERSION_3, ObjectName=dest_q,
                                         ObjectQMgrName=dest_qm), user)
        options = CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT | CMQC.MQOO_BIND_NOT_FIXED
        if alternate:
            options |= CMQC.MQOO_ALTERNATE_USER_AUTHORITY
        handle = qm.get_handle()
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
        handle = qm.get_handle()
        try:
            for hobj in handles.values():
                if hobj is not None:
                    handle.close(hobj)
        except mqpy.MQMIError:
            pass  # the next call says what became of the connection

    @staticmethod
    def _probe_put(qm: mqpy.QueueManager, dest_q: bytes, dest_qm: bytes, user: str) -> int:
        """May ``user`` put to the destination? 0, or the MQOPEN's reason (ALTMCA)."""
        od, _ = _as_user(mqpy.OD(ObjectName=dest_q, ObjectQMgrName=dest_qm), user)
        try:
            q = mqpy.Queue(qm, od, CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY)
        except mqpy.MQMIError as e:
            return e.reason if e.reason == CMQC.MQRC_NOT_AUTHORIZED else 0
        q.close()
        return 0

    def _record(self, seq: int, luwid: bytes) -> syncrecord.SyncRecord:
        return syncrecord.SyncRecord(self.name, "R", seq, luwid, self.partner,
                                     conname=self.conname)

    async def _commit_batch(self, qm: mqpy.QueueManager, seq: int, luwid: bytes, *,
                            committed: bool = False) -> syncrecord.SyncRecord:
        """Commit the batch with its sync record: one worker-thread call, none when the run
        of its last puts did both (``committed``)."""
        rec = self._record(seq, luwid)

        def harden() -> None:
            self.syncq.replace_in_uow(rec)
            qm.commit()

        if not committed:
            await mqi(harden)
        self._delivered = False
        self.seq = seq
        self.status.last_seqno = seq
        self.status.last_luwid = luwid
        return rec

    async def _end_unrecoverable(self, qm: mqpy.QueueManager, seq: int, luwid: bytes
                                 ) -> None:
        """The end of a batch of fast non-persistent messages, put outside syncpoint: no
        sync record (the sender replaces none either), and a commit only when a report
        went under syncpoint (:meth:`_deliver`)."""
        if self._delivered:
            await mqi(qm.commit)
        self._delivered = False
        self.seq = seq
        self.status.last_seqno = seq
        self.status.last_luwid = luwid

    async def _deliver(self, qm: mqpy.QueueManager, ev: MessageData, fast: bool
                       ) -> ChannelEnded | None:
        """Put one arriving message where its transmission header says; on failure retry,
        return it to its sender, or dead-letter it; a ChannelEnded when none of that works
        (a transmission header that does not decode is the partner's protocol error)."""
        try:
            xqh = _transmission_header(ev)
        except ValueError as exc:  # (mqstruct.StructError)
            return ChannelEnded("AMQ9504E", f"Protocol error: the transmission header of "
                                f"message {ev.seqnum} does not decode: {exc}.", True,
                                StatusCode.PROTOCOL_INVALID_DATA)
        md = xqh.MsgDesc
        if md.Format == CMQC.MQFMT_DIST_HEADER:
            return await distribution.deliver_list(self, qm, ev, fast, mqi)
        dest_q = xqh.RemoteQName.rstrip(b" \x00").decode("latin-1")
        dest_qm = xqh.RemoteQMgrName.rstrip(b" \x00").decode("latin-1")
        persistent = md.Persistence == CMQC.MQPER_PERSISTENT
        sync = CMQC.MQPMO_NO_SYNCPOINT if (fast and not persistent) else CMQC.MQPMO_SYNCPOINT
        od = mqpy.OD(ObjectName=dest_q.encode("latin-1"), ObjectQMgrName=dest_qm.encode("latin-1"))
        retries = D.int_attr(self.definition, "MRRTY")
        interval = D.int_attr(self.definition, "MRTMR") / 1000.0
        reason = 0
        if dest_qm in ("", self.local_qm) and await self._is_remote_definition(qm, dest_q):
            # Arrivals are resolved like an open naming both queue and queue manager, but a
            # remote-queue definition never applies to them (seed 000 §1 rule 6).
            return await self._undeliverable(qm, md, ev.data, CMQC.MQRC_UNKNOWN_OBJECT_NAME,
                                             dest_q, dest_qm, sync)
        while True:
            try:
                await mqi(self._put_arrival, qm, od.ObjectName, od.ObjectQMgrName, md, ev.data,
                          sync)
                self.status.message_moved(len(ev.data), sent=False)
                if self.status.state is ChannelState.PAUSED:
                    self.status.move(ChannelEvent.MESSAGE_RETRY_ENDED)
                return None
            except mqpy.MQMIError as e:
                reason = e.reason
            if reason in (CMQC.MQRC_Q_FULL, CMQC.MQRC_PUT_INHIBITED) and retries > 0:
                retries -= 1
                if self.status.state is ChannelState.RUNNING:
                    self.status.move(ChannelEvent.MESSAGE_RETRY)
                await trio.sleep(interval)
                continue
            break
        if self.status.state is ChannelState.PAUSED:
            self.status.move(ChannelEvent.MESSAGE_RETRY_ENDED)
        return await self._undeliverable(qm, md, ev.data, reason, dest_q, dest_qm, sync)

    async def _is_remote_definition(self, qm: mqpy.QueueManager, name: str) -> bool:
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

    async def _undeliverable(self, qm: mqpy.QueueManager, md: mqpy.MD, data: bytes,
                             reason: int, dest_q: str, dest_qm: str, sync: int
                             ) -> ChannelEnded | None:
        if md.Report & CMQC.MQRO_EXCEPTION and md.ReplyToQ.strip(b" \x00"):
            # An exception report as asked (with none, some or all of the data); with
            # MQRO_DISCARD_MSG that is all (return to sender), else the message is
            # dead-lettered as well (seed 000 §8).
            built = reports.build_report("EXCEPTION", md, data, feedback=reason,
                                         qmgr_name=self.local_qm, msgid=bytes(24))
            if built is not None:
                rmd, body = built
                # the sender names the reply-to queue: the report goes there with the
                # authority PUTAUT names for the message itself, never the MCA's own
                rod, options = _as_user(
                    mqpy.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr),
                    self.put_authority.put_user(md.UserIdentifier))
                try:
                    await mqi(qm.put1, rod, body, rmd,
                              mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT | options))
                    if md.Report & CMQC.MQRO_DISCARD_MSG:
                        return None
                except mqpy.MQMIError:
                    pass
        deadq = (await mqi(qm.inquire, CMQC.MQCA_DEAD_LETTER_Q_NAME)).strip(b" \x00")
        dlq_problem = "no dead-letter queue"
        if deadq:
            dmd, body = reports.build_dead_letter(md, data, reason, dest_q, dest_qm,
                                                  put_appl_name=b"mqpy receiver MCA",
                                                  put_date=md.PutDate, put_time=md.PutTime)
            dod, options = _as_user(mqpy.OD(ObjectName=deadq),
                                    self.put_authority.dead_letter_user())
            try:
                await mqi(qm.put1, dod, body, dmd,
                          mqpy.PMO(Options=sync | options | CMQC.MQPMO_SET_ALL_CONTEXT))
            except mqpy.MQMIError as e:
                # the operator is told why the DLQ would not take it, not that there is none
                dlq_problem = (f"the dead-letter queue {deadq.decode('latin-1')} refused it "
                               f"(reason {e.reason})")
            else:
                self.log(messages.AMQ9544.msgid, f"Messages not put to destination queue. "
                         f"During the processing of channel '{self.name}' a message for "
                         f"queue '{dest_q}' at '{dest_qm or self.local_qm}' could not be "
                         f"put (reason {reason}) and was put to the dead-letter queue "
                         f"'{deadq.decode('latin-1')}'. The location of the queue is 1, "
                         f"where 1 is the local dead-letter queue and 2 is the remote "
                         f"dead-letter queue.")
                return None
        if sync == CMQC.MQPMO_NO_SYNCPOINT:
            return None  # a fast non-persistent message is discarded (seed 000 §8)
        return ChannelEnded("AMQ9544E", f"Messages not put to destination queue {dest_q} "
                            f"at {dest_qm}: reason {reason}; {dlq_problem}.", True,
                            StatusCode.CAN_NOT_STORE)
