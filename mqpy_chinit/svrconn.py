"""The SVRCONN MCA: a server-connection channel instance serving MQI clients.

The channel initiator hands us an inbound connection whose first INITIAL_DATA names a channel
of type SVRCONN (``ChannelInitiator.svrconn_handler = serve_client``). One connection is one
*channel instance*; it carries up to SHARECNV *conversations* (client Hconns,
``svrconn_conversation``), each with its own MQI connection to the queue manager
(``chinit.connect_for``), its requests decoded and its replies encoded by
``mqpy.fap.mqiflows``, the codec of the bindings socket. Each MQI verb family is handled in
``svrconn_calls``; message traffic is served at once in the receiver (``svrconn_inline``) or
relayed to the queue manager's socket (``svrconn_relay``).

Theory of operation
-------------------
- Start: MAXINST (instances of this channel) and MAXINSTC (instances from one client address)
  are checked before anything else; over either, the client is refused with STATUS
  CHANNEL_UNAVAILABLE (its MQCONN fails with MQRC_CHANNEL_NOT_AVAILABLE, 2537) and the log
  gets AMQ9489E / AMQ9490E. Then INITIAL_DATA is negotiated (``negotiation.negotiate``): the
  lower SHARECNV, the larger HBINT, the lower MAXMSGL.
- One task receives every segment of the socket and routes MQI requests to the task of their
  conversation (created by its MQCONN), which calls the queue manager and sends the reply with
  the request's ConvId and RequestId. Keeping the receiver running while a call is in progress
  is how a client that disappears during a long MQGET wait is noticed at once. The receiver
  reads the socket before waiting for it and takes what one read brought together, so the
  replies to requests of several conversations read at once go in one write. A conversation
  holds QUEUED requests read and not yet served; a client that piles more behind a call
  that does not return (QUEUE_GRACE) breaks the protocol, and the instance ends (AMQ9504E)
  rather than read nothing more for its other conversations.
- A timer task sends a heartbeat when nothing has come from the client for HBINT (during
  MQGET waits and between calls), ends the instance when nothing has come from the client for
  the receive timeout (AMQ9259E), and ends it after DISCINT seconds without an MQI call in
  progress (SVRCONN's DISCINT applies between calls only; 0, IBM's SVRCONN default, never).
- STOP CHANNEL ends the instance (:meth:`SvrconnInstance.stop`): at once with MODE(FORCE) or
  MODE(TERMINATE), once the call in progress returns with MODE(QUIESCE).
- endmqm ends every instance (:func:`qmgr_ending`), telling its client first, so that a
  reconnectable client does not reconnect after a plain endmqm and does after ``endmqm -r``
  (IBM: "If you issue endmqm to stop a queue manager, reconnectable clients do not try to
  reconnect", unless -r): on an instance that shares conversations a SOCKET_ACTION
  QM_QUIESCE, or RECONNECT_CLIENTS with -r; on one that does not, a STATUS QM_TERMINATING,
  or nothing with -r (a plain end of the socket, which a client reconnects after).
- Each instance's INITIAL_DATA says the queue manager's QMID (MQMId, asked once a channel
  initiator and kept until its queue manager starts again), which a client reconnecting
  with MQCNO_RECONNECT_Q_MGR compares (IBM: MQRC_RECONNECT_QMID_MISMATCH for a queue
  manager of another QMID).
- A controlled endmqm (-c, -w) tells them as it begins (:func:`qmgr_quiescing`), as IBM's
  STOP CHANNEL MODE(QUIESCE) that it stands for: an instance that shares conversations gets
  the same SOCKET_ACTION at once and goes on serving (its client's calls with
  FAIL_IF_QUIESCING fail, MQRC_Q_MGR_QUIESCING, from the queue manager; its event handler
  is told; a reconnectable one told RECONNECT_CLIENTS leaves to reconnect), one started
  meanwhile as soon as it runs; one that does not share conversations can be told nothing
  between calls, and learns it from its next call. Where the instances run: in the
  daemon's client host (FASTPATH: the daemon calls both), in runmqchi (STANDARD) and in a
  runmqlsr (each watches the daemon's ``qm.clients``: :func:`watch_qmgr_end`).
- However the instance ends, each conversation that did not MQDISC is *abended*: its unit of
  work is backed out, as for a bindings application that ends without MQDISC.
- Each conversation's MQI connection is one async MQI (``mqpy.loopcalls.mqi_port``): through the
  queue manager's socket (``mqpy_chinit.qmconn``, a separate queue-manager process) every call
  is a send and a receive in this loop, and an MQGET waits in the queue manager; with the
  engine in this process, memory work runs in the loop and a waiting MQGET holds no thread.
  A call cut off because its client went drops that connection: the unit of work backs out.
- DISPLAY CHSTATUS: each running instance is a :class:`SvrconnStatus` in ``chinit.statuses``
  under the key ``CHANNEL#n`` (several instances of one channel coexist); it leaves when the
  instance ends, as IBM shows no status for an ended SVRCONN instance.
- BLOCKADDR was checked by the listener before the first byte was read. Until a
  conversation's MQCONN has succeeded the instance is not admitted: the listener's limits on
  unauthenticated connections hold it (``listener.Listener._inbound``).

Not here: asynchronous consume, XA.
"""

from __future__ import annotations

import itertools
import math
import os
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import trio

from mqpy import CMQC, connstate, fswatch, streamer
from mqpy.errors import MQMIError
from mqpy.fap import channeldefs as D
from mqpy.fap import mqiflows, mqiparams, sockact, tls, userid
from mqpy.fap.apiheader import (
    MQIReply,
    MQIRequest,
    mqi_event,
)
from mqpy.fap.controlflows import Heartbeat, Status
from mqpy.fap.initialdata import OUR_FAP_LEVEL, CapFlags1, InitialData
from mqpy.fap.mqicalls import AsyncMQIVerbs
from mqpy.fap.negotiation import negotiate
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import ByteOrder, ControlFlags1, Event, OtherSegment, SegmentType
from mqpy.qmstatus import CLIENTS_FILE, read_flag
from mqpy_chinit import svrconn_order, svrconn_stream, svrconn_wake, tlsstream
from mqpy_chinit.conversation import MAX_TRANSMISSION_SIZE, ChannelEnded, Conversation
from mqpy_chinit.mca import CONFIRM_TIMEOUT, partner_announced
from mqpy_chinit.qmconn import QMConnection
from mqpy_chinit.states import ChannelEvent, ChannelState, ChannelStatus
from mqpy_chinit.svrconn_calls import HANDLERS, MQICalls
from mqpy_chinit.svrconn_conversation import (
    A_REPLY,
    SUBSTATES,
    ClientConversation,
    Identity,
    definition_int,
)
from mqpy_chinit.svrconn_inline import Answer, CallsServedAtOnce
from mqpy_chinit.svrconn_relay import RELAYED, RelayedCalls
from mqpy_chinit.svrconn_sockact import ConvIds, SocketActions

__all__ = ["SvrconnInstance", "SvrconnStatus", "instances", "qmgr_ending", "qmgr_quiescing",
           "quiescing",
           "serve_client", "stop_instances", "watch_from_the_start", "watch_qmgr_end"]

#: STOP CHANNEL MODE(QUIESCE) waits this long at most for an instance's MQI call in progress
#: (an MQGET waiting, say) before it ends the instance anyway, as IBM's client "gets
#: CONNECTION_BROKEN after a few seconds"
QUIESCE_GRACE = 5.0

#: endmqm: an instance's notice to its client that the queue manager ends waits at most this
#: long for room in a socket its client does not read (endmqm waits for nobody)
NOTICE_GRACE = 0.5


#: The requests of one conversation read and not yet served that the receiver holds; the
#: next waits for room at most QUEUE_GRACE seconds (``SvrconnInstance._queue_behind``)
QUEUED = 16
QUEUE_GRACE = 5.0


#: Worker threads for MQI calls of all SVRCONN conversations of one channel initiator.
THREAD_LIMIT = 64


_T = SegmentType
_IDENTITY_FLOWS = (SegmentType.USERID_DATA, SegmentType.CONAUTH_INFO)
_FAILED = CMQC.MQCC_FAILED


@attrs.define
class SvrconnStatus(ChannelStatus):
    """A SVRCONN instance's CHSTATUS: the channel status plus its shared conversations."""

    current_conversations: int = 0
    max_conversations: int = 0
    remote_appl_tag: str = ""
    instance_key: str = ""
    mcauser: str = ""  #: the user the conversations run as (CHLAUTH's decision, MQCSP)
    sslciph: str = ""  #: the TLS cipher negotiated ("" when plain)
    sslpeer: str = ""  #: the client certificate's DN
    sslcerti: str = ""  #: its issuer's DN

    def as_mqsc(self) -> dict[str, object]:
        out = super().as_mqsc()
        for key in ("XMITQ", "RQMNAME", "CURSEQNO", "LSTSEQNO", "CURLUWID", "LSTLUWID",
                    "INDOUBT", "SHORTRTS", "LONGRTS", "BATCHES", "BATCHSZ", "XBATCHSZ",
                    "XQTIME"):
            out.pop(key, None)
        out.update(CURSHCNV=self.current_conversations, MAXSHCNV=self.max_conversations,
                   RAPPLTAG=self.remote_appl_tag, MCAUSER=self.mcauser, SSLCIPH=self.sslciph,
                   SSLPEER=self.sslpeer, SSLCERTI=self.sslcerti)
        return out


# ---------------------------------------------------------------------------- registry


class _Registry:
    """The running SVRCONN instances of one channel initiator (MAXINST, MAXINSTC, keys)."""

    def __init__(self) -> None:
        self.running: dict[str, list[SvrconnInstance]] = {}
        self.numbers = itertools.count(1)
        self.limiter = trio.CapacityLimiter(THREAD_LIMIT)
        #: a controlled endmqm has begun: whether its clients are to reconnect (-r); None
        #: while the queue manager does not quiesce (:func:`qmgr_quiescing`)
        self.quiescing: bool | None = None
        self.watching = False  # :func:`watch_qmgr_end` runs for this channel initiator
        self.qmdir = ""  #: the queue-manager directory it watches
        #: the queue manager's QMID, said in each instance's INITIAL_DATA (a client that
        #: reconnects with MQCNO_RECONNECT_Q_MGR compares it); None until first asked
        self.qmid: str | None = None


_registries: weakref.WeakKeyDictionary[Any, _Registry] = weakref.WeakKeyDictionary()


def _registry(chinit: Any) -> _Registry:
    registry = _registries.get(chinit)
    if registry is None:
        registry = _registries[chinit] = _Registry()
    return registry


def instances(chinit: Any, channel: str | None = None) -> list[SvrconnInstance]:
    """The running SVRCONN instances of ``chinit`` (of one channel, or all)."""
    running = _registry(chinit).running
    if channel is not None:
        return list(running.get(channel, []))
    return [i for group in running.values() for i in group]


def stop_instances(chinit: Any, channel: str, mode: str, conname: str = "") -> int:
    """STOP CHANNEL of a SVRCONN: end its running instances in ``chinit`` (those from
    ``conname`` only, when given) as :meth:`SvrconnInstance.stop` says; how many."""
    chosen = [i for i in instances(chinit, channel) if conname in ("", i.peer)]
    for instance in chosen:
        instance.stop(mode)
    return len(chosen)


def qmgr_ending(chinit: Any, reconnect: bool) -> int:
    """endmqm (``reconnect``: with -r): end every running SVRCONN instance of ``chinit``,
    each telling its client first (:meth:`SvrconnInstance.qmgr_ending`); how many."""
    chosen = instances(chinit)
    for instance in chosen:
        instance.qmgr_ending(reconnect)
    return len(chosen)


def qmgr_quiescing(chinit: Any, reconnect: bool) -> int:
    """A controlled endmqm begins (``reconnect``: with -r): every running SVRCONN instance of
    ``chinit`` tells its client, and goes on (:meth:`SvrconnInstance.qmgr_quiescing`); so
    does each one started from now on. How many were running."""
    registry = _registry(chinit)
    if registry.quiescing is not None:
        return 0  # (told already)
    registry.quiescing = reconnect
    chosen = instances(chinit)
    for instance in chosen:
        instance.qmgr_quiescing(reconnect)
    return len(chosen)


def quiescing(chinit: Any) -> bool:
    """Whether the queue manager of ``chinit`` quiesces, as its SVRCONN instances were told
    (:func:`qmgr_quiescing`) or its own long-running tasks found out
    (``ChannelInitiator.quiescing``): a new conversation's MQCONN is then refused as the
    queue manager refuses one, MQRC_Q_MGR_QUIESCING."""
    return bool(getattr(chinit, "quiescing", False)) \
        or _registry(chinit).quiescing is not None


def watch_from_the_start(nursery: trio.Nursery, chinit: Any, qmdir: str,
                         on_ending: Callable[[], None]) -> None:
    """runmqlsr: :func:`watch_qmgr_end` from now on, not from its first SVRCONN instance,
    and ``on_ending()`` (in a worker thread) as the queue manager quiesces or ends: the
    listener lets go of its own connections then, so that it holds no controlled end (IBM's
    listeners are not applications the end waits for)."""
    registry = _registry(chinit)
    registry.watching, registry.qmdir = True, qmdir
    nursery.start_soon(watch_qmgr_end, chinit, qmdir, on_ending)


async def watch_qmgr_end(chinit: Any, qmdir: str,
                         on_ending: Callable[[], None] | None = None) -> None:
    """runmqchi and runmqlsr, from their first SVRCONN instance on: the daemon's word in
    ``qm.clients`` in ``qmdir`` (``mqpy.qmstatus.CLIENTS_FILE``) carried out -- QUIESCING, a
    controlled endmqm begins (:func:`qmgr_quiescing`); ENDING, the queue manager ends
    (:func:`qmgr_ending`; runmqchi is also told as it is ended); no file, the queue manager
    runs (again). Either of the first two then calls ``on_ending``. inotify wakes it; where
    there is none it looks every :data:`WATCH_POLL` seconds."""
    registry = _registry(chinit)
    watch = fswatch.open_watch()
    try:
        if watch is not None and not watch.add(qmdir, _WATCHED):
            watch.close()
            watch = None
        last: str | None = None
        while True:
            word = read_flag(qmdir, CLIENTS_FILE)
            if word != last:
                last = word
                phase, _, how = (word or "").partition(" ")
                if phase == "QUIESCING":
                    qmgr_quiescing(chinit, how == "RECONNECT")
                elif phase == "ENDING":
                    qmgr_ending(chinit, how == "RECONNECT")
                elif word is None:  # the queue manager runs again (maybe created again)
                    registry.quiescing = registry.qmid = None
                if on_ending is not None and phase in ("QUIESCING", "ENDING"):
                    await trio.to_thread.run_sync(on_ending)
            if watch is None:
                await trio.sleep(WATCH_POLL)
            else:
                await trio.lowlevel.wait_readable(watch.fd)
                _drain(watch.fd)
    finally:
        if watch is not None:
            watch.close()


def _qmid_of(chinit: Any) -> str:
    """The queue manager's QMID (MQINQ through a connection of the channel initiator's
    own); "" when it cannot be asked (its instances then say none, and a client compares
    names)."""
    try:
        qm = chinit.connect_qm()
    except (MQMIError, OSError):
        return ""
    try:
        value = qm.inquire(CMQC.MQCA_Q_MGR_IDENTIFIER)
    except MQMIError:
        return ""
    finally:
        try:
            qm.disconnect()
        except MQMIError:
            pass
    text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
    return text.strip()


def _drain(fd: int) -> None:
    """The inotify events waiting on ``fd``, read and dropped (the file is read again)."""
    try:
        while os.read(fd, 4096):
            pass
    except OSError:  # (BlockingIOError: read them all)
        pass


#: what :func:`watch_qmgr_end` is woken by in the queue-manager directory
_WATCHED = fswatch.IN_MOVED_TO | fswatch.IN_DELETE
#: without inotify, how often :func:`watch_qmgr_end` looks for the daemon's file
WATCH_POLL = 1.0


async def serve_client(chinit: Any, conversation: Conversation, first: InitialData,
                       definition: dict[str, object]) -> None:
    """The ``svrconn_handler`` of a ChannelInitiator: run one SVRCONN instance to its end.
    In runmqchi and runmqlsr (a channel initiator with a cluster cache, in its
    queue-manager directory; not the daemon's client host, which the daemon tells itself)
    the first one starts :func:`watch_qmgr_end`."""
    registry = _registry(chinit)
    cache = getattr(chinit, "cluster_cache", None)
    if not registry.watching and cache and chinit.nursery is not None:
        registry.watching = True
        registry.qmdir = os.path.dirname(cache)
        chinit.nursery.start_soon(watch_qmgr_end, chinit, registry.qmdir)
    await SvrconnInstance(chinit, conversation, first, definition).run()


# ---------------------------------------------------------------------------- an instance


class SvrconnInstance(MQICalls, RelayedCalls, CallsServedAtOnce, SocketActions):
    """One SVRCONN channel instance: one client socket and its conversations."""

    def __init__(self, chinit: Any, conversation: Conversation, first: InitialData,
                 definition: dict[str, object]) -> None:
        self.chinit = chinit
        self.conv = conversation
        self.first = first
        self.definition = definition
        self.name = first.channel_name.strip()
        self.peer = _peer_host(conversation.stream)
        self.status = SvrconnStatus(self.name, "SVRCONN", conname=self.peer)
        cipher, _cert = tlsstream.tls_session(conversation.stream)
        tls_ids = tlsstream.tls_identity(conversation.stream)
        self.status.sslciph = tls.ibm_name(cipher)
        self.status.sslpeer = tls_ids.get("ssl_peer", "")
        self.status.sslcerti = tls_ids.get("ssl_issuer", "")
        partner_announced(self.status, first.product_id, conversation.stream)
        conversation.status = self.status
        self.registry = _registry(chinit)
        self.conversations: dict[int | None, ClientConversation] = {}
        self.identities: dict[int | None, Identity] = {}
        self.conv_ids = ConvIds()  # for the client's SOCKET_ACTIONs (svrconn_sockact)
        self.ending: dict[int | None, ClientConversation] = {}  # ended by END_CONV, serving
        # a semaphore as the lock: taken and given back without the owner bookkeeping of
        # trio.Lock, twice per MQI call; the same first-come order for a send that waits
        self.send_lock = trio.Semaphore(1, max_value=1)
        self.hbint = 0
        self.sharing = 0
        self.fap_level = 0  #: the negotiated FAP level
        self.max_msg_size = definition_int(definition, "MAXMSGL")
        self.discint = definition_int(definition, "DISCINT")
        self.busy = 0
        self.last_call = time.monotonic()
        self.last_probe = 0.0  # our last heartbeat asking for an answer
        self.nursery: trio.Nursery | None = None
        self.closing = False  # the instance is ending by our decision (already logged)
        self.stopping = False  # STOP CHANNEL asked it to end
        #: endmqm's notice to the client, sent as the instance ends (the send lock held for
        #: it from the moment it was decided: no other flow is begun meanwhile)
        self.notice: Event | None = None
        self.told_quiescing = False  # told that a controlled endmqm began
        #: ``notice`` was decided without the send lock (:meth:`_cut_notice`)
        self.notice_unlocked = False
        self.key = ""

    def log(self, msgid: str, text: str) -> None:
        self.chinit.log(msgid, text)

    async def run(self) -> None:
        refusal = self._refusal()
        if refusal is not None:
            self.log(*refusal)
            with trio.CancelScope(shield=True):
                await self.conv.close(StatusCode.CHANNEL_UNAVAILABLE)
            return
        group = self.registry.running.setdefault(self.name, [])
        group.append(self)
        try:
            await self._negotiate()
            self.key = f"{self.name}#{next(self.registry.numbers)}"
            self.status.instance_key = self.key
            self.chinit.statuses[self.key] = self.status
            for event in (ChannelEvent.START, ChannelEvent.BIND, ChannelEvent.NEGOTIATED):
                self.status.move(event)
            if self.stopping:  # STOP CHANNEL came while it negotiated
                return
            async with trio.open_nursery() as nursery:
                self.nursery = nursery
                nursery.start_soon(self._timers)
                nursery.start_soon(self._receive)
                if self.registry.quiescing is not None:  # a controlled endmqm has begun
                    self.qmgr_quiescing(self.registry.quiescing)
        except ChannelEnded as e:
            self.log(e.msgid, f"Channel '{self.name}' ({self.peer}): {e.text}")
        finally:
            # cut short by its channel initiator's end (runmqchi ends as its queue manager
            # quiesces): the client told as endmqm tells it, if that is why
            if self.nursery is not None and not self.closing \
                    and trio.current_effective_deadline() == -math.inf:
                self._cut_notice()
            # the instance's status goes only once its units of work are backed out
            with trio.CancelScope(shield=True):
                await self._send_notice()
                await self._abend_all()
                await self.conv.stream.aclose()
            group.remove(self)
            if not group and self.registry.running.get(self.name) is group:
                del self.registry.running[self.name]
            if self.key:
                self.chinit.statuses.pop(self.key, None)

    def stop(self, mode: str) -> None:
        """STOP CHANNEL: MODE(FORCE) and MODE(TERMINATE) end the instance now, MODE(QUIESCE)
        once no MQI call is in progress (at most QUIESCE_GRACE seconds). Its conversations'
        units of work are backed out and its socket closed: each client's next call gets
        MQRC_CONNECTION_BROKEN (2009)."""
        if self.stopping:
            return
        self.stopping = self.closing = True
        self.status.stop_requested = mode or "QUIESCE"
        if self.status.state is ChannelState.RUNNING:
            self.status.move(ChannelEvent.STOP_REQUESTED)
        self.log("AMQ9528I", f"User requested closure of channel '{self.name}' "
                 f"({self.peer}): STOP CHANNEL MODE({self.status.stop_requested}).")
        if self.nursery is None:
            return  # still negotiating: it ends once that is done
        if self.status.stop_requested == "QUIESCE" and self.busy:
            self.nursery.start_soon(self._end_when_idle)
        else:
            self._end()

    def qmgr_ending(self, reconnect: bool) -> None:
        """endmqm (``reconnect``: -r): the instance ends now, its client told first (the
        module docstring says how). The notice is sent as the instance ends, at most
        NOTICE_GRACE seconds; not at all when a flow of another task was being written (the
        client then finds its socket ended, as after a cut)."""
        if self.closing:
            return  # ending already (STOP CHANNEL, a refusal, the client's own end)
        self.stopping = self.closing = True
        notice = self._ending_notice(reconnect)
        if notice is not None and self.nursery is not None:
            try:
                self.send_lock.acquire_nowait()  # given back by _send_notice
                self.notice = notice
            except trio.WouldBlock:
                pass
        self._end()

    def qmgr_quiescing(self, reconnect: bool) -> None:
        """A controlled endmqm begins (``reconnect``: -r): an instance that shares
        conversations tells its client at once, in a task of its own (its send waits its
        turn, at most NOTICE_GRACE seconds), and goes on serving; one that does not can
        tell nothing between calls (module docstring)."""
        if self.closing or self.told_quiescing or self.sharing <= 0 or self.nursery is None:
            return
        self.told_quiescing = True
        notice = self._ending_notice(reconnect)
        if notice is not None:
            self.nursery.start_soon(self._send_quiescing, notice)

    async def _send_quiescing(self, notice: Event) -> None:
        with trio.move_on_after(NOTICE_GRACE):
            try:
                await self._send(notice)
            except ChannelEnded:
                pass  # the client went already

    def _ending_notice(self, reconnect: bool) -> Event | None:
        if self.sharing > 0:  # a SOCKET_ACTION of the instance (a TSHC, ConversationID 0)
            kind = sockact.SocketActionType.RECONNECT_CLIENTS if reconnect \
                else sockact.SocketActionType.QM_QUIESCE
            return sockact.event(sockact.SocketAction(0, kind),
                                 self._reply_order() == ByteOrder.LITTLE)
        if reconnect:
            return None
        return Status(code=StatusCode.QM_TERMINATING, flags=ControlFlags1.ERROR)

    def _cut_notice(self) -> None:
        """The instance is cut short by its channel initiator's end: when the daemon's word
        (``qm.clients``) says the queue manager quiesces or ends, the notice
        :meth:`qmgr_ending` would have sent is sent as it ends (its send lock taken then,
        at most NOTICE_GRACE seconds), so that a reconnectable client does not take the
        cut for a failure (or, after endmqm -r, does)."""
        qmdir = self.registry.qmdir
        word = read_flag(qmdir, CLIENTS_FILE) if qmdir else None
        phase, _, how = (word or "").partition(" ")
        if phase in ("QUIESCING", "ENDING"):
            self.closing = True
            self.notice = self._ending_notice(how == "RECONNECT")
            self.notice_unlocked = self.notice is not None

    async def _send_notice(self) -> None:
        notice, self.notice = self.notice, None
        if notice is None:
            return
        if self.notice_unlocked:  # (:meth:`_cut_notice`'s: the lock is taken now)
            self.notice_unlocked = False
            with trio.move_on_after(NOTICE_GRACE) as waited:
                await self.send_lock.acquire()
            if waited.cancelled_caught:
                return
        try:
            with trio.move_on_after(NOTICE_GRACE):
                await self.conv.send(notice)
        except ChannelEnded:
            pass  # the client went already
        finally:
            self.send_lock.release()

    async def _end_when_idle(self) -> None:
        with trio.move_on_after(QUIESCE_GRACE):
            while self.busy:
                await trio.sleep(0.05)
        self._end()

    def _refusal(self) -> tuple[str, str] | None:
        """MAXINST / MAXINSTC: the AMQ message refusing a new instance, or None."""
        running = self.registry.running.get(self.name, [])
        maxinst = definition_int(self.definition, "MAXINST")
        if len(running) >= maxinst:
            return ("AMQ9489E", f"The maximum number of instances, {maxinst}, of channel "
                    f"'{self.name}' was reached; connection from {self.peer} refused.")
        maxinstc = definition_int(self.definition, "MAXINSTC")
        if sum(1 for i in running if i.peer == self.peer) >= maxinstc:
            return ("AMQ9490E", f"The maximum number of instances, {maxinstc}, of channel "
                    f"'{self.name}' was reached for an individual client ({self.peer}).")
        return None

    async def _negotiate(self) -> None:
        qmid = self.registry.qmid
        if qmid is None:  # the first instance (since the queue manager started) asks
            qmid = self.registry.qmid = await trio.to_thread.run_sync(
                _qmid_of, self.chinit, limiter=self.registry.limiter)
        ours = InitialData(
            fap_level=OUR_FAP_LEVEL, channel_name=self.name, qmgr_name=self.chinit.qmgr_name,
            mqm_id=qmid,
            max_msg_batch=50, max_transmission_size=MAX_TRANSMISSION_SIZE,
            max_msg_size=self.max_msg_size, heartbeat_interval=definition_int(self.definition, "HBINT"),
            conv_per_socket=definition_int(self.definition, "SHARECNV"),
            cap_flags1=CapFlags1.SPLIT_MESSAGE | CapFlags1.MQREQUEST | CapFlags1.RUNTIME,
            product_id=sockact.SVRCONN_PRODUCT_ID)  # takes a client's SOCKET_ACTIONs
        ev: Event = self.first
        for _ in range(4):
            n = negotiate(ours, ev, adopt_seq_wrap=True)  # a SVRCONN numbers no messages
            if n.status is not None:
                await self.conv.close(n.status)
                raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", False, n.status)
            await self._send(n.reply)
            if n.agreed is not None:
                self.hbint = n.agreed.heartbeat_interval
                self.sharing = n.agreed.conv_per_socket
                self.fap_level = n.agreed.fap_level
                self.max_msg_size = n.agreed.max_msg_size or self.max_msg_size
                self.conv.agreed(n.agreed.max_transmission_size, self.max_msg_size)
                svrconn_order.speak_partners(self.conv)  # a big-endian client's flows
                st = self.status
                st.hbint, st.maxmsgl = self.hbint, self.max_msg_size
                st.max_conversations = self.sharing
                self.conv.control_tshc = self.sharing > 0  # its own flows: in a TSHC
                return
            ev = await self.conv.recv(CONFIRM_TIMEOUT)
            if not isinstance(ev, InitialData):
                raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", False)
        raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", False)

    async def _abend_all(self) -> None:
        """Conversations that did not MQDISC: back their units of work out."""
        for cc in list(self.conversations.values()):
            await self._abend(cc)
        self.conversations.clear()

    async def _abend(self, cc: ClientConversation) -> None:
        """A conversation that did not MQDISC: back its unit of work out."""
        if cc.backend is not None and not cc.ended:
            try:
                if isinstance(cc.backend, AsyncMQIVerbs):
                    cc.backend.abend()  # drops its socket: the queue manager backs out
                else:  # the engine here: a backout, temporary queues deleted (forces)
                    await trio.to_thread.run_sync(cc.backend.abend,
                                                  limiter=self.registry.limiter)
            except (MQMIError, OSError):
                pass

    async def _refuse(self, code: StatusCode, msgid: str, text: str) -> None:
        """End the instance for a client's fault: log why, tell it with STATUS, close."""
        if self.closing:
            return
        self.closing = True
        self.log(msgid, f"Channel '{self.name}' ({self.peer}): {text}")
        with trio.CancelScope(shield=True):
            async with self.send_lock:
                await self.conv.close(code)
        self._end()

    def _end(self) -> None:
        if self.nursery is not None:
            self.nursery.cancel_scope.cancel()

    def _control(self) -> dict[str, int]:
        """The ids of the instance's own flows (heartbeats, STATUS): none, a TSH, or a TSHC
        on an instance that shares conversations (``Conversation.send``)."""
        return {}

    async def _send(self, event: Event) -> None:
        await self._locked(self.conv.send, event)

    async def _send_segment(self, segment: bytes) -> None:
        """A segment made already (a relayed reply readdressed, ``_finish_relay``), sent as
        :meth:`_send` sends an event."""
        await self._locked(self.conv.send_made, segment, A_REPLY)

    async def _locked(self, send: Callable[..., Awaitable[None]], *args: Any) -> None:
        """``send(*args)`` under the send lock, one flow at a time on the socket."""
        lock = self.send_lock
        try:
            lock.acquire_nowait()  # free (nearly always): no scheduler round to take it
        except trio.WouldBlock:
            await lock.acquire()
        try:
            # on a plain socket the send is done at once when the socket takes it (it
            # waits, and the lock is held across, only when the socket's buffer is full)
            await send(*args)
        finally:
            lock.release()

    async def _receive(self) -> None:
        conv = self.conv
        replies: list[bytes] = []  # to the calls served at once, from what one read gave
        try:
            while True:
                for ev in await conv.take():
                    if type(ev) is MQIRequest:
                        segments = self._serve_now(ev)
                        if segments is not None:
                            replies += segments
                            continue
                    if replies:  # answered before anything that may wait
                        await self._send_replies(replies)
                        replies = []
                    if not await self._on_event(ev):
                        return
                if replies:
                    await self._send_replies(replies)
                    replies = []
        except ChannelEnded as e:
            if self.closing:
                pass  # we ended the instance ourselves and said why
            elif e.msgid == "AMQ9209E":
                await self._replies_owed()  # the client half-closed: it may read on
                if any(not cc.ended for cc in self.conversations.values()):
                    self.log("AMQ9209E", f"Connection to host '{self.peer}' for channel "
                             f"'{self.name}' closed: the client ended without MQDISC.")
            else:
                self.log(e.msgid, f"Channel '{self.name}' ({self.peer}): {e.text}")
        finally:
            self._end()

    async def _on_event(self, ev: Event) -> bool:
        """What the client sent, other than a call served at once; False: the instance
        ends (the client closed it, or sent what a SVRCONN does not take)."""
        if isinstance(ev, MQIRequest):
            try:
                await self._route(ev)
            except ProtocolError as exc:
                return await self._malformed(exc)
        elif isinstance(ev, Heartbeat):
            if ev.flags & ControlFlags1.CONFIRM_REQUEST:
                await self._send(Heartbeat(**self._control()))
        elif isinstance(ev, Status):
            return False  # the client closed the channel
        elif streamer.is_request(ev):  # read ahead (mqpy_chinit.svrconn_stream)
            try:
                await svrconn_stream.route(self, ev)
            except ProtocolError as exc:
                return await self._malformed(exc)
        elif type(ev) is OtherSegment and connstate.is_wake(ev, ev.byte_order):
            # the client's MQCTL: its get ends
            svrconn_wake.woken(self.conversations, ev, bool(self.sharing))
        elif isinstance(ev, OtherSegment) and ev.segment_type in _IDENTITY_FLOWS:
            try:
                await self._identity_flow(ev)
            except ProtocolError as exc:
                return await self._malformed(exc)
        elif type(ev) is OtherSegment and ev.segment_type == _T.SOCKET_ACTION and self.sharing:
            try:
                return await self._socket_action(ev)
            except ProtocolError as exc:
                return await self._malformed(exc)
        else:
            await self._refuse(StatusCode.PROTOCOL_SEGMENT_TYPE, "AMQ9504E",
                               f"Protocol error: {_flow_name(ev)} segment on a "
                               f"server-connection channel.")
            return False
        return True

    async def _malformed(self, exc: ProtocolError) -> bool:
        """A flow of the client's that breaks the protocol: the instance is refused
        (AMQ9504E, STATUS) and ends; False, for :meth:`_on_event`."""
        await self._refuse(exc.status_code, "AMQ9504E", f"Protocol error: {exc}")
        return False

    async def _malformed_call(self, verb: SegmentType, exc: ProtocolError) -> None:
        """An MQI flow of the client's that does not decode: the instance is refused
        (AMQ9504E naming the verb, STATUS) and ends (ChannelEnded, already logged)."""
        await self._refuse(exc.status_code, "AMQ9504E",
                           f"Protocol error in an {verb.name} flow: {exc}")
        raise ChannelEnded("", "", True, exc.status_code)

    async def _identity_flow(self, ev: OtherSegment) -> None:
        """USERID_DATA / CONAUTH_INFO (mqpy.fap.userid): who the client is, for its
        conversation's next MQCONN. It takes its place in the conversation's order: behind
        a call queued or in progress (an MQDISC written with it, the next MQCONN after it)
        the conversation's task takes it in turn (:meth:`_take_identity`)."""
        cc = self.conversations.get(ev.conv_id if self.sharing else None)
        if cc is None or not (cc.queued or cc.calling or cc.relayed is not None):
            self._take_identity(ev, cc)
            return
        idle = cc.idle
        if idle is not None:  # it waits on the queue manager's socket: a flow to take
            cc.idle = None
            idle.cancel()
        cc.queued += 1
        try:
            cc.send.send_nowait(ev)
        except trio.WouldBlock:
            await self._queue_behind(cc, ev)

    def _take_identity(self, ev: OtherSegment, cc: ClientConversation | None) -> None:
        """A user-id flow kept for its conversation's next MQCONN. On a conversation that is
        connected (its MQCONN done, no MQDISC since) a client sends none: ProtocolError
        (PROTOCOL_SEGMENT_TYPE), as any flow a client does not send there."""
        key = ev.conv_id if self.sharing else None
        if cc is not None and cc.backend is not None:
            raise ProtocolError(StatusCode.PROTOCOL_SEGMENT_TYPE,
                                f"{_flow_name(ev)} segment on conversation {key} after "
                                f"its MQCONN")
        little = ev.byte_order == ByteOrder.LITTLE
        if key not in self.identities and len(self.identities) >= max(self.sharing, 1):
            raise ProtocolError(StatusCode.CONV_ID_ERROR, "user-id flows for more "
                                "conversations than the channel shares")
        ident = self.identities.setdefault(key, Identity())
        if ev.segment_type == _T.USERID_DATA:
            ident.client_user = userid.parse_uid(ev.body, little=little)
        else:
            ident.credentials = userid.parse_caut(ev.body, little=little)[0]

    async def _identity_in_turn(self, cc: ClientConversation, ev: OtherSegment) -> None:
        """A user-id flow that waited behind conversation ``cc``'s calls, taken now; one
        that breaks the protocol ends the instance (AMQ9504E, STATUS; ChannelEnded, already
        logged)."""
        try:
            self._take_identity(ev, cc)
        except ProtocolError as exc:
            await self._refuse(exc.status_code, "AMQ9504E", f"Protocol error: {exc}")
            raise ChannelEnded("", "", True, exc.status_code) from None

    async def _route(self, request: MQIRequest) -> None:
        key = request.conv_id if self.sharing else None
        cc = self.conversations.get(key)
        if cc is None:
            if request.segment_type != _T.MQCONN:
                await self._reply(request, mqiflows.encode_reply(
                    _T(request.segment_type), comp=_FAILED, reason=CMQC.MQRC_HCONN_ERROR))
                return
            if len(self.conversations) >= max(self.sharing, 1):
                await self._reply(request, mqiflows.encode_reply(
                    _T.MQCONN, comp=_FAILED, reason=CMQC.MQRC_CHANNEL_NOT_AVAILABLE))
                return
            send, receive = trio.open_memory_channel[MQIRequest](QUEUED)
            cc = ClientConversation(key, send, receive, after=self.ending.get(key))
            self.conversations[key] = cc
            if key is not None:
                self.conv_ids.connected(key)
            self.status.current_conversations = len(self.conversations)
            assert self.nursery is not None
            self.nursery.start_soon(self._serve_conversation, cc)
        elif cc.idle is not None and cc.relayed is None and self._start_relay(cc, request):
            return  # sent on: the conversation's task wakes for the reply only
        idle = cc.idle
        if idle is not None:  # it waits on the queue manager's socket: a request to serve
            cc.idle = None  # (and no later request is relayed past this one)
            idle.cancel()
        cc.queued += 1
        try:
            cc.send.send_nowait(request)  # room (nearly always): read on without a yield
        except trio.WouldBlock:
            await self._queue_behind(cc, request)

    async def _queue_behind(self, cc: ClientConversation, request: MQIRequest) -> None:
        """A request for a conversation with QUEUED requests waiting already: it waits for
        room while that conversation's calls are served (a client's calls sent in a row).
        None made within QUEUE_GRACE: the client piled requests behind a call that does
        not return (a get waiting), which no MQI client does, and the receiver would
        read nothing more for the instance's other conversations: ProtocolError."""
        with trio.move_on_after(QUEUE_GRACE):
            await cc.send.send(request)
            return
        raise ProtocolError(StatusCode.PROTOCOL_GENERAL, f"more than {QUEUED} requests "
                            f"waiting on conversation {cc.conv_id} behind a call that does "
                            f"not return")

    async def _reply(self, request: MQIRequest, reply: MQIReply) -> None:
        conv_id = request.conv_id
        if conv_id is not None and (reply.conv_id != conv_id
                                    or reply.request_id != request.request_id):
            reply = mqi_event(MQIReply, reply.flags, reply.luwid, conv_id, request.request_id,
                              reply.segment_type, reply.comp, reply.reason, reply.hobj,
                              reply.body, reply.reply_length)
        await self._send(reply)

    async def _send_replies(self, replies: list[bytes]) -> None:
        """Replies made already (``_serve_now``), written together under the send lock
        (taken here as :meth:`_locked` takes it: one coroutine fewer a call)."""
        lock = self.send_lock
        try:
            lock.acquire_nowait()
        except trio.WouldBlock:
            await lock.acquire()
        try:
            await self.conv.send_segments(replies, A_REPLY * len(replies))
        finally:
            lock.release()

    async def _serve_conversation(self, cc: ClientConversation) -> None:
        """Conversation ``cc``'s calls, one at a time, until it ends; ended by the client's
        END_CONV (``svrconn_sockact``), it serves what came before that, and what it left
        is backed out. On a ConvId whose earlier conversation still serves what came
        before its END_CONV, nothing is served until that is done."""
        try:
            if cc.after is not None:
                await cc.after.done.wait()
                cc.after = None
            await self._serve_calls(cc)
        finally:
            if cc.dropped:
                with trio.CancelScope(shield=True):
                    await self._abend(cc)
            if self.ending.get(cc.conv_id) is cc:
                del self.ending[cc.conv_id]
            cc.done.set()

    async def _serve_calls(self, cc: ClientConversation) -> None:
        try:
            while True:
                if cc.relayed is not None:  # the receiver sent it on: the reply is ours
                    await self._finish_relay(cc)
                    continue
                try:
                    if cc.on_qm and not cc.queued:
                        await self._serve_relayed(cc)
                        continue
                    request = await cc.receive.receive()
                except trio.EndOfChannel:
                    break
                cc.queued -= 1
                cc.calling = True
                try:
                    if streamer.is_request(request):  # read ahead's request
                        await svrconn_stream.answer(self, cc, request)
                        continue
                    if type(request) is OtherSegment:  # a user-id flow (_identity_flow)
                        await self._identity_in_turn(cc, request)
                        continue
                    if type(request) is Answer:  # served at once, its log force still due
                        await self._answer(cc, request)
                        continue
                    self.busy += 1
                    try:
                        reply = await self._dispatch(cc, request)
                    finally:
                        self.busy -= 1
                        self.last_call = time.monotonic()
                    self.status.msgs += 1
                    await self._reply(request, reply)
                finally:
                    cc.calling = False
                    if not cc.queued:  # a wake no call waited for is nobody's
                        cc.wake_due = False
                if cc.refused and not any(c.backend is not None
                                          for c in self.conversations.values()):
                    self.closing = True  # CHLAUTH refused the channel: it ends (logged)
                    self._end()
                if cc.backend is None and not cc.queued:
                    break  # (requests queued behind its MQDISC are answered first)
        except ChannelEnded as e:
            if e.msgid and not self.closing:
                self.log(e.msgid, f"Channel '{self.name}' ({self.peer}): {e.text}")
            self._end()
        finally:
            if self.conversations.get(cc.conv_id) is cc and (cc.ended or cc.backend is None):
                del self.conversations[cc.conv_id]
                self.status.current_conversations = len(self.conversations)

    async def _timers(self) -> None:
        periods = [p for p in (self.hbint / 2, self.discint / 2) if p > 0]
        if not periods:
            return
        tick = max(0.1, min(1.0, *periods))
        timeout = D.receive_timeout(self.hbint)
        while True:
            await trio.sleep(tick)
            now = time.monotonic()
            if timeout is not None and now - self.conv.last_received > timeout:
                self.log("AMQ9259E", f"Connection timed out: channel '{self.name}' heard "
                         f"nothing from {self.peer} within {timeout:.0f} seconds.")
                self.closing = True
                self._end()
                return
            # a probe once nothing has been heard for HBINT (what we sent does not count:
            # after our reply the client owes us nothing), so that it has HBINT to answer
            # before the receive timeout; none again until that probe is HBINT old
            if self.hbint and now - max(self.conv.last_received, self.last_probe) >= self.hbint:
                self.last_probe = now
                self.status.substate = "HEARTBEAT"
                await self._send(Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST,
                                           **self._control()))
            if self.discint and not self.busy and now - self.last_call >= self.discint:
                self.log("AMQ9001I", f"Channel '{self.name}' ({self.peer}) ended: no MQI "
                         f"call for the disconnect interval of {self.discint} seconds.")
                self.closing = True
                await self._send(Status(code=StatusCode.USER_CLOSED,
                                        flags=ControlFlags1.CLOSE_CHANNEL, **self._control()))
                self._end()
                return

    async def _dispatch(self, cc: ClientConversation, request: MQIRequest) -> MQIReply:
        verb = request.segment_type  # a SegmentType already (MQIRequest converts it)
        if verb in RELAYED and type(cc.backend) is QMConnection and self._relayable(request):
            reply = await self._relay(cc, request, verb)
            if reply is not None:
                return reply
        cc.on_qm = False
        try:
            decoded = mqiflows.decode_request(request, request.byte_order)
        except mqiparams.BadStructure as exc:  # that call's error: the channel goes on
            return mqiflows.refusal_reply(verb, exc, cc.backend is not None)
        except ProtocolError as exc:
            await self._malformed_call(verb, exc)
        if verb == _T.MQCONN and decoded.values[1] is not None:
            # mqpy's CSEC tail is for the bindings socket: a client may not assert identities
            await self._refuse(StatusCode.PROTOCOL_INVALID_DATA, "AMQ9504E",
                               "Protocol error: an MQCONN from a client carried a security "
                               "context (CSEC).")
            raise ChannelEnded("", "", True, StatusCode.PROTOCOL_INVALID_DATA)
        self.status.substate = SUBSTATES[verb]
        if cc.backend is None and verb != _T.MQCONN:
            return mqiflows.encode_reply(verb, comp=_FAILED, reason=CMQC.MQRC_HCONN_ERROR)
        if cc.backend is None and quiescing(self.chinit):
            # a controlled end takes no new connection: refused as the queue manager's
            # MQCONN refuses one, whatever serves the client (CHLAUTH not asked: the
            # channel initiator may have let go of its own connection)
            return mqiflows.encode_reply(verb, comp=_FAILED,
                                         reason=CMQC.MQRC_Q_MGR_QUIESCING)
        handler = HANDLERS.get(verb)
        if handler is None:
            return mqiflows.encode_reply(verb, comp=_FAILED,
                                         reason=CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
        try:
            return await handler(self, cc, decoded)
        except MQMIError as e:
            return mqiflows.failure_reply(verb, decoded, e.comp, e.reason, self._reply_order())
        except (trio.Cancelled, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - a fault behind the MQI: the call fails 2195
            return self._unexpected(verb, exc)
        finally:
            self.status.substate = "RECEIVE"

    def _max_length(self, buffer_length: int) -> int | None:
        """An MQGET's longest message: its buffer length (-1: any), within MAXMSGL."""
        limit = self.max_msg_size or None
        if buffer_length < mqiflows.WHOLE_MESSAGE:
            return buffer_length  # the call's MQRC_BUFFER_LENGTH_ERROR, the engine's to say
        max_length = limit if buffer_length < 0 else buffer_length
        if limit is not None and max_length is not None:
            max_length = min(max_length, limit)
        return max_length

    def _unexpected(self, verb: SegmentType, exc: Exception) -> MQIReply:
        """A fault behind the MQI, logged: the call fails MQRC_UNEXPECTED_ERROR (2195)."""
        self.log("AMQ9999E", f"Channel '{self.name}': unexpected error in {verb.name}: "
                 f"{exc!r}.")
        return mqiflows.encode_reply(verb, comp=_FAILED, reason=CMQC.MQRC_UNEXPECTED_ERROR)

    def _reply_order(self) -> ByteOrder:
        """The byte order of what we write on the instance (``svrconn_order``)."""
        return self.conv.writer.byte_order


def _flow_name(ev: Event) -> str:
    """What the log calls a flow: its segment type's name (ASYNC_MESSAGE, NOTIFICATION ...)
    where it has one, else its kind."""
    segment_type = getattr(ev, "segment_type", None)
    return segment_type.name if isinstance(segment_type, SegmentType) \
        else type(ev).__name__


def _peer_host(stream: Any) -> str:
    try:
        return str(stream.socket.getpeername()[0])
    except (AttributeError, OSError, IndexError):
        return ""
