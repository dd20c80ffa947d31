"""The SVRCONN MCA: client applications' MQI calls, served through the queue manager's MQI.

The channel initiator hands us an inbound connection whose first INITIAL_DATA names a channel
of type SVRCONN (``ChannelInitiator.svrconn_handler = serve_client``). One connection is one
*channel instance*; it carries up to SHARECNV *conversations* (client Hconns), each told apart
by the ConvId of its TSHM (SHARECNV(0): plain TSH, one conversation). Every conversation gets
its own MQI connection to the queue manager (``chinit.connect_qm()``), because the channel
initiator is an ordinary MQI application of its queue manager, and its requests are decoded
and its replies encoded by ``mqpy.fap.mqiflows``, the codec of the bindings socket.

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
  is how a client that disappears during a long MQGET wait is noticed at once.
- A client's message traffic with the queue manager in this process (an MQPUT, an MQGET
  without wait, of the common form) never waits, so the receiver makes such a call itself
  when the conversation's task has nothing to do, and answers it (``_serve_now``): no
  hand-over, no wake-up of the task. The receiver reads the socket before waiting for it and
  takes what one read brought together, so the replies to requests of several conversations
  read at once go in one write. A call that logged persistent work is answered only after
  its log force, made by the conversation's task (``_answer``), so that nothing is
  acknowledged before it is durable; calls queued for the task are never overtaken.
- A timer task sends a heartbeat when nothing has come from the client for HBINT (during
  MQGET waits and between calls), ends the instance when nothing has come from the client for
  the receive timeout (AMQ9259E), and ends it after DISCINT seconds without an MQI call in
  progress (SVRCONN's DISCINT applies between calls only; 0, IBM's SVRCONN default, never).
- STOP CHANNEL ends the instance (:meth:`SvrconnInstance.stop`): at once with MODE(FORCE) or
  MODE(TERMINATE), once the call in progress returns with MODE(QUIESCE).
- However the instance ends, each conversation that did not MQDISC is *abended*: its unit of
  work is backed out, as for a bindings application that ends without MQDISC.
- Each conversation's MQI connection is one async MQI (``mqpy.serving.mqi_port``): through the
  queue manager's socket (``mqpy_chinit.qmconn``, a separate queue-manager process) every call
  is a send and a receive in this loop, and an MQGET waits in the queue manager; with the
  engine in this process, memory work runs in the loop and a waiting MQGET holds no thread.
  A call cut off because its client went drops that connection: the unit of work backs out.
- Through the queue manager's socket, the calls of a client's message traffic (MQPUT, MQGET,
  MQCMIT, MQBACK) are *relayed*: the body the client sent goes on as it is and the queue
  manager's reply comes back as it is, since both sockets carry the same bodies; only an
  MQGET's buffer length may be capped at MAXMSGL. Everything else (MQCONN and its security,
  MQOPEN, a body of another byte order or shape) is decoded and called as before. Once a
  conversation's call has been relayed, its task waits between calls on the queue manager's
  socket: the receiver sends the next relayed call there itself at once, and the reply wakes
  the conversation's task, which passes it on (one task wake-up a call, not two); any other
  request is queued for the task, whose wait the receiver then cancels, so that calls of a
  conversation are still served in the order they came.
- DISPLAY CHSTATUS: each running instance is a :class:`SvrconnStatus` in ``chinit.statuses``
  under the key ``CHANNEL#n`` (several instances of one channel coexist); it leaves when the
  instance ends, as IBM shows no status for an ended SVRCONN instance.

Security: before its MQCONN a conversation may flow USERID_DATA (the client's user id) and
CONAUTH_INFO (an MQCSP). At MQCONN the queue manager's channel authentication records decide
(``chinit.channel_decision``: BLOCKUSER, USERMAP, ADDRESSMAP, USERSRC, the default back-stop
rules) whether it may run and as whom (MCAUSER, else the mapped or flowed user id); a refusal
is MQRC_NOT_AUTHORIZED (2035) with AMQ9776E / AMQ9777E in the log, and the instance ends when
no other conversation is connected. The conversation then connects *as that user*
(``chinit.connect_for``) so that CONNAUTH (CHCKCLNT) and the object authority manager apply to
it in the queue manager. BLOCKADDR was checked by the listener before the first byte was read.
Until a conversation's MQCONN has succeeded the instance is not admitted: the listener's
limits on unauthenticated connections hold it (``ChannelInitiator._inbound``); its first
successful MQCONN admits it (``Conversation.authenticated``).

Not here (later work): asynchronous consume, XA.
"""

from __future__ import annotations

import itertools
import struct
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import attrs
import trio

from mqpy import CMQC, serving
from mqpy.errors import MQMIError
from mqpy.fap import channeldefs as D
from mqpy.fap import mqiflows, tls, userid
from mqpy.fap.apiheader import (
    API_HEADER_LENGTH,
    MQIReply,
    MQIRequest,
    mqi_event,
    readdressed_mqi_reply,
)
from mqpy.fap.controlflows import Heartbeat, Status
from mqpy.fap.initialdata import OUR_FAP_LEVEL, CapFlags1, InitialData
from mqpy.fap.mqicalls import AsyncMQIVerbs
from mqpy.fap.negotiation import negotiate
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import (
    TSH_LENGTH,
    TSHM_LENGTH,
    ByteOrder,
    ControlFlags1,
    Event,
    OtherSegment,
    SegmentType,
)
from mqpy_chinit import tlsstream
from mqpy_chinit.conversation import MAX_TRANSMISSION_SIZE, ChannelEnded, Conversation
from mqpy_chinit.mca import CONFIRM_TIMEOUT
from mqpy_chinit.qmconn import QMConnection
from mqpy_chinit.states import ChannelEvent, ChannelState, ChannelStatus

__all__ = ["SVRCONN_DEFAULTS", "SvrconnInstance", "SvrconnStatus", "instances",
           "serve_client", "stop_instances"]

#: IBM's defaults for the attributes a SVRCONN uses (DISCINT is 0 for SVRCONN, not 6000).
SVRCONN_DEFAULTS: dict[str, object] = {
    "DISCINT": 0, "HBINT": 300, "SHARECNV": 10, "MAXINST": 999999999,
    "MAXINSTC": 999999999, "MAXMSGL": 4194304, "MCAUSER": "",
}
#: STOP CHANNEL MODE(QUIESCE) waits this long at most for an instance's MQI call in progress
#: (an MQGET waiting, say) before it ends the instance anyway, as IBM's client "gets
#: CONNECTION_BROKEN after a few seconds"
QUIESCE_GRACE = 5.0
#: Worker threads for MQI calls of all SVRCONN conversations of one channel initiator.
THREAD_LIMIT = 64

_T = SegmentType
_IDENTITY_FLOWS = (SegmentType.USERID_DATA, SegmentType.CONAUTH_INFO)
_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED


def _attr(definition: dict[str, object], key: str) -> object:
    value = definition.get(key)
    if value is None or value == "":
        return SVRCONN_DEFAULTS.get(key, D.DEFAULTS.get(key, value))
    return value


def _int(definition: dict[str, object], key: str) -> int:
    return int(_attr(definition, key))  # type: ignore[arg-type]


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


async def serve_client(chinit: Any, conversation: Conversation, first: InitialData,
                       definition: dict[str, object]) -> None:
    """The ``svrconn_handler`` of a ChannelInitiator: run one SVRCONN instance to its end."""
    await SvrconnInstance(chinit, conversation, first, definition).run()


# ---------------------------------------------------------------------------- an instance


@attrs.define(eq=False)
class _ClientConversation:
    """One client Hconn: its MQI connection to the queue manager and its request queue."""

    conv_id: int | None
    send: trio.MemorySendChannel[MQIRequest]
    receive: trio.MemoryReceiveChannel[MQIRequest]
    backend: Any = None  # its async MQI (mqpy.serving.mqi_port)
    ended: bool = False  # MQDISC done
    refused: bool = False  # CHLAUTH refused its MQCONN
    #: its last call was relayed: between calls its task waits on the queue manager's
    #: socket, so that the receiver can relay the next one at once (``_start_relay``)
    on_qm: bool = False
    idle: trio.CancelScope | None = None  # while it waits there: cancelled to wake it
    queued: int = 0  # requests sent to its task (``send``) and not yet taken
    calling: bool = False  # its task has taken a request and not yet sent the reply
    #: a call the receiver relayed, whose reply is the task's: (request, verb, data length)
    relayed: tuple[MQIRequest, SegmentType, int | None] | None = None


@attrs.define
class _Identity:
    """What a client said about itself before its MQCONN (USERID_DATA, CONAUTH_INFO)."""

    client_user: str | None = None
    credentials: userid.Credentials | None = None


class SvrconnInstance:
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
        conversation.status = self.status
        self.registry = _registry(chinit)
        self.conversations: dict[int | None, _ClientConversation] = {}
        self.identities: dict[int | None, _Identity] = {}
        # a semaphore as the lock: taken and given back without the owner bookkeeping of
        # trio.Lock, twice per MQI call; the same first-come order for a send that waits
        self.send_lock = trio.Semaphore(1, max_value=1)
        self.hbint = 0
        self.sharing = 0
        self.max_msg_size = _int(definition, "MAXMSGL")
        self.discint = _int(definition, "DISCINT")
        self.busy = 0
        self.last_call = time.monotonic()
        self.last_probe = 0.0  # our last heartbeat asking for an answer
        self.nursery: trio.Nursery | None = None
        self.closing = False  # the instance is ending by our decision (already logged)
        self.stopping = False  # STOP CHANNEL asked it to end
        self.key = ""

    def log(self, msgid: str, text: str) -> None:
        self.chinit.log(msgid, text)

    # -- lifecycle ------------------------------------------------------------------------

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
        except ChannelEnded as e:
            self.log(e.msgid, f"Channel '{self.name}' ({self.peer}): {e.text}")
        finally:
            # the instance's status goes only once its units of work are backed out
            with trio.CancelScope(shield=True):
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

    async def _end_when_idle(self) -> None:
        with trio.move_on_after(QUIESCE_GRACE):
            while self.busy:
                await trio.sleep(0.05)
        self._end()

    def _refusal(self) -> tuple[str, str] | None:
        """MAXINST / MAXINSTC: the AMQ message refusing a new instance, or None."""
        running = self.registry.running.get(self.name, [])
        maxinst = _int(self.definition, "MAXINST")
        if len(running) >= maxinst:
            return ("AMQ9489E", f"The maximum number of instances, {maxinst}, of channel "
                    f"'{self.name}' was reached; connection from {self.peer} refused.")
        maxinstc = _int(self.definition, "MAXINSTC")
        if sum(1 for i in running if i.peer == self.peer) >= maxinstc:
            return ("AMQ9490E", f"The maximum number of instances, {maxinstc}, of channel "
                    f"'{self.name}' was reached for an individual client ({self.peer}).")
        return None

    async def _negotiate(self) -> None:
        ours = InitialData(
            fap_level=OUR_FAP_LEVEL, channel_name=self.name, qmgr_name=self.chinit.qmgr_name,
            max_msg_batch=50, max_transmission_size=MAX_TRANSMISSION_SIZE,
            max_msg_size=self.max_msg_size, heartbeat_interval=_int(self.definition, "HBINT"),
            conv_per_socket=_int(self.definition, "SHARECNV"),
            cap_flags1=CapFlags1.SPLIT_MESSAGE | CapFlags1.MQREQUEST | CapFlags1.RUNTIME,
            product_id="MQPY0100")
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
                self.max_msg_size = n.agreed.max_msg_size or self.max_msg_size
                self.conv.agreed(n.agreed.max_transmission_size, self.max_msg_size)
                st = self.status
                st.hbint, st.maxmsgl = self.hbint, self.max_msg_size
                st.max_conversations = self.sharing
                return
            ev = await self.conv.recv(CONFIRM_TIMEOUT)
            if not isinstance(ev, InitialData):
                raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", False)
        raise ChannelEnded("AMQ9503E", "Channel negotiation failed.", False)

    async def _abend_all(self) -> None:
        """Conversations that did not MQDISC: back their units of work out."""
        for cc in list(self.conversations.values()):
            if cc.backend is not None and not cc.ended:
                try:
                    if isinstance(cc.backend, AsyncMQIVerbs):
                        cc.backend.abend()  # drops its socket: the queue manager backs out
                    else:  # the engine here: a backout, temporary queues deleted (forces)
                        await trio.to_thread.run_sync(cc.backend.abend,
                                                      limiter=self.registry.limiter)
                except (MQMIError, OSError):
                    pass
        self.conversations.clear()

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

    # -- bytes out ------------------------------------------------------------------------

    def _control(self) -> dict[str, int]:
        """Socket-level flows (heartbeats, STATUS) on a TSHM go on conversation 0."""
        return {"conv_id": 0, "request_id": 0} if self.sharing else {}

    async def _send(self, event: Event) -> None:
        await self._locked(self.conv.send, event)

    async def _send_segment(self, segment: bytes) -> None:
        """A segment made already (a relayed reply readdressed, ``_finish_relay``), sent as
        :meth:`_send` sends an event."""
        await self._locked(self.conv.send_made, segment, _A_REPLY)

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

    # -- bytes in -------------------------------------------------------------------------

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
            await self._route(ev)
        elif isinstance(ev, Heartbeat):
            if ev.flags & ControlFlags1.CONFIRM_REQUEST:
                await self._send(Heartbeat(**self._control()))
        elif isinstance(ev, Status):
            return False  # the client closed the channel
        elif isinstance(ev, OtherSegment) and ev.segment_type in _IDENTITY_FLOWS:
            try:
                self._identity_flow(ev)
            except ProtocolError as exc:
                await self._refuse(exc.status_code, "AMQ9504E", f"Protocol error: {exc}")
                return False
        else:
            await self._refuse(StatusCode.PROTOCOL_SEGMENT_TYPE, "AMQ9504E",
                               f"Protocol error: {type(ev).__name__} segment on a "
                               f"server-connection channel.")
            return False
        return True

    def _identity_flow(self, ev: OtherSegment) -> None:
        """USERID_DATA / CONAUTH_INFO before a conversation's MQCONN (mqpy.fap.userid)."""
        key = ev.conv_id if self.sharing else None
        little = self._byte_order() == ByteOrder.LITTLE
        if key not in self.identities and len(self.identities) >= max(self.sharing, 1):
            raise ProtocolError(StatusCode.CONV_ID_ERROR, "user-id flows for more "
                                "conversations than the channel shares")
        ident = self.identities.setdefault(key, _Identity())
        if ev.segment_type == _T.USERID_DATA:
            ident.client_user = userid.parse_uid(ev.body, little=little)
        else:
            ident.credentials = userid.parse_caut(ev.body, little=little)[0]

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
            send, receive = trio.open_memory_channel[MQIRequest](16)
            cc = _ClientConversation(key, send, receive)
            self.conversations[key] = cc
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
            await cc.send.send(request)

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
            await self.conv.send_segments(replies, _A_REPLY * len(replies))
        finally:
            lock.release()

    async def _serve_conversation(self, cc: _ClientConversation) -> None:
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
                    if type(request) is _Answer:  # served at once, its log force still due
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
                if cc.refused and not any(c.backend is not None
                                          for c in self.conversations.values()):
                    self.closing = True  # CHLAUTH refused the channel: it ends (logged)
                    self._end()
                if cc.ended or cc.backend is None:
                    break
        except ChannelEnded as e:
            if e.msgid and not self.closing:
                self.log(e.msgid, f"Channel '{self.name}' ({self.peer}): {e.text}")
            self._end()
        finally:
            if self.conversations.get(cc.conv_id) is cc and (cc.ended or cc.backend is None):
                del self.conversations[cc.conv_id]
                self.status.current_conversations = len(self.conversations)

    # -- timers ---------------------------------------------------------------------------

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

    # -- MQI calls ------------------------------------------------------------------------

    async def _dispatch(self, cc: _ClientConversation, request: MQIRequest) -> MQIReply:
        verb = request.segment_type  # a SegmentType already (MQIRequest converts it)
        if verb in _RELAYED and type(cc.backend) is QMConnection \
                and self.conv.reader.partner_byte_order in _LITTLE:
            reply = await self._relay(cc, request, verb)
            if reply is not None:
                return reply
        cc.on_qm = False
        try:
            decoded = mqiflows.decode_request(request, self._byte_order())
        except mqiflows.BadStructure as exc:  # that call's error: the channel goes on
            return mqiflows.refusal_reply(verb, exc, cc.backend is not None)
        except ProtocolError as exc:
            await self._refuse(exc.status_code, "AMQ9504E", f"Protocol error: {exc}")
            raise ChannelEnded("", "", True, exc.status_code) from None
        if verb == _T.MQCONN and decoded.values[1] is not None:
            # mqpy's CSEC tail is for the bindings socket: a client may not assert identities
            await self._refuse(StatusCode.PROTOCOL_INVALID_DATA, "AMQ9504E",
                               "Protocol error: an MQCONN from a client carried a security "
                               "context (CSEC).")
            raise ChannelEnded("", "", True, StatusCode.PROTOCOL_INVALID_DATA)
        self.status.substate = _NAMES[verb]
        if cc.backend is None and verb != _T.MQCONN:
            return mqiflows.encode_reply(verb, comp=_FAILED, reason=CMQC.MQRC_HCONN_ERROR)
        handler = _HANDLERS.get(verb)
        if handler is None:
            return mqiflows.encode_reply(verb, comp=_FAILED,
                                         reason=CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
        try:
            return await handler(self, cc, decoded)
        except MQMIError as e:
            return mqiflows.failure_reply(verb, decoded, e.comp, e.reason)
        except (trio.Cancelled, KeyboardInterrupt):
            raise
        except Exception as exc:  # noqa: BLE001 - a fault behind the MQI: the call fails 2195
            return self._unexpected(verb, exc)
        finally:
            self.status.substate = "RECEIVE"

    # -- MQI calls served at once ---------------------------------------------------------

    def _serve_now(self, request: MQIRequest) -> list[bytes] | None:
        """An MQPUT or MQGET without wait of the common form, on a conversation whose
        queue manager is in this process and whose task has nothing to do, served here in
        the receiver, in one go: decoded, called, its reply made and counted (the
        conversation's task would do the same, a hand-over and a wake-up later). Returns
        the reply's segments; none when the call logged persistent work whose force is due
        before it is answered (the task then forces and answers, :meth:`_answer`); None
        for anything else, which takes the task's way (:meth:`_route`) unchanged."""
        verb = request.segment_type
        if verb is not _T.MQPUT and verb is not _T.MQGET:
            return None
        cc = self.conversations.get(request.conv_id if self.sharing else None)
        if cc is None or cc.queued or cc.calling or type(cc.backend) is not serving.EngineVerbs:
            return None
        values = mqiflows.common_request(verb, request.body, self._byte_order())
        if values is None:
            return None
        if verb is _T.MQPUT:
            data = values[2]
            if len(data) > serving.INLINE_DATA_LIMIT or (
                    self.max_msg_size and len(data) > self.max_msg_size):
                return None  # a long put goes to a thread; one beyond MAXMSGL fails 2010
        elif values[1].Options & CMQC.MQGMO_WAIT:
            return None
        conn = cc.backend.conn
        serving.defer(conn)
        try:
            outcome = self._call_now(verb, request, values, conn)
        finally:
            lsn = serving.undefer(conn)
        self.last_call = time.monotonic()
        if lsn:
            cc.queued += 1
            cc.send.send_nowait(_Answer(request, values, outcome, lsn))  # (it was empty)
            return []
        return self._answered(request, values, outcome)

    def _call_now(self, verb: SegmentType, request: MQIRequest, values: tuple[Any, ...],
                  conn: Any) -> tuple[int, int, Any]:
        """The engine's call for :meth:`_serve_now`: (CompCode, Reason, the message an
        MQGET got) when it did not fail, else (CompCode, Reason, its reply)."""
        try:
            if verb is _T.MQPUT:
                md, pmo, data = values
                warning = conn.put(request.hobj, md, pmo, data)
                return (_WARNING if warning else _OK), warning, None
            md, gmo, buffer_length = values
            return _OK, 0, conn.get(request.hobj, md, gmo, self._max_length(buffer_length))
        except MQMIError as e:
            reply = mqiflows.truncation_reply(values[0], values[1], e) if verb is _T.MQGET \
                else None
            if reply is None:
                reply = mqiflows.failure_reply(verb, _decoded(request, values), e.comp,
                                               e.reason)
            return e.comp, e.reason, reply
        except Exception as exc:  # noqa: BLE001 - a fault behind the MQI: as _dispatch says
            return _FAILED, CMQC.MQRC_UNEXPECTED_ERROR, self._unexpected(verb, exc)

    def _answered(self, request: MQIRequest, values: tuple[Any, ...],
                  outcome: tuple[int, int, Any]) -> list[bytes]:
        """The reply segments of a call served at once, counted in the channel status as
        the task counts its calls (``_put``, ``_get``, ``_serve_conversation``)."""
        comp, reason, out = outcome
        verb = request.segment_type
        status = self.status
        status.msgs += 1
        if type(out) is MQIReply:  # it failed (or a truncated get): nothing moved
            reply = out
        else:
            if verb is _T.MQPUT:
                status.bytes_received += len(values[2])
                parts: tuple[Any, ...] = (values[0], values[1])
            else:
                status.message_moved(len(out), sent=True, counted=False)  # (counted above)
                parts = (values[0], values[1], len(out), out)
            order = self.conv.writer.byte_order  # the replies' bodies are in the TSH's
            body = mqiflows.common_reply_body(verb, parts, order)
            if body is not None:
                segment = self.conv.writer.reply(_REPLY_TYPES[verb], comp, reason, 0, (body,),
                                                 request.conv_id, request.request_id)
                if segment is not None:
                    return [segment]
            try:
                reply = mqiflows.encode_reply(verb, parts, comp=comp, reason=reason,
                                              byte_order=order)
            except Exception as exc:  # noqa: BLE001 - as _dispatch says of its handlers'
                reply = self._unexpected(verb, exc)
        return self.conv.writer.segments(mqi_event(
            MQIReply, reply.flags, reply.luwid, request.conv_id, request.request_id,
            reply.segment_type, reply.comp, reply.reason, reply.hobj, reply.body,
            reply.reply_length))

    async def _answer(self, cc: _ClientConversation, answer: _Answer) -> None:
        """A call :meth:`_serve_now` made whose log force is due: forced (on a worker
        thread, with the other calls of this loop waiting for one), then answered; a force
        that fails fails the call, as it fails a call made by :meth:`_dispatch`."""
        request, values = answer.request, answer.values
        verb = request.segment_type
        self.busy += 1
        self.status.substate = _NAMES[verb]
        outcome = answer.outcome
        try:
            await serving.force(cc.backend.conn, answer.lsn, self.registry.limiter)
        except MQMIError as e:
            outcome = (e.comp, e.reason, mqiflows.failure_reply(
                verb, _decoded(request, values), e.comp, e.reason))
        except Exception as exc:  # noqa: BLE001 - as _dispatch says
            outcome = (_FAILED, CMQC.MQRC_UNEXPECTED_ERROR, self._unexpected(verb, exc))
        finally:
            self.busy -= 1
            self.last_call = time.monotonic()
            self.status.substate = "RECEIVE"
        await self._send_replies(self._answered(request, values, outcome))

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

    # -- relayed MQI calls ----------------------------------------------------------------

    def _relay_body(self, request: MQIRequest, verb: SegmentType
                    ) -> tuple[bytes, int | None] | None:
        """What a relayed call sends the queue manager: the client's body (an MQGET's
        buffer length capped at the channel's MAXMSGL, as the decoding path caps it), and
        an MQPUT's message length. None: the body is not of the plain shape relaying needs
        (distribution-list records, longer than MAXMSGL, anything after an MQCMIT or MQBACK
        header), and the call goes the decoding way, which also answers a malformed one."""
        body = request.body
        data_length = None
        if verb == _T.MQPUT:
            data_length = _put_data_length(body)
            if data_length is None or (self.max_msg_size and data_length > self.max_msg_size):
                return None
        elif verb == _T.MQGET:
            if not _plain_get(body):
                return None
            (buffer_length,) = _LONG.unpack_from(body, len(body) - 4)
            max_length = self._max_length(buffer_length)
            if max_length != buffer_length:
                body = body[:-4] + _LONG.pack(-1 if max_length is None else max_length)
        elif body:  # MQCMIT, MQBACK: nothing follows the API header
            return None
        return body, data_length

    async def _relay(self, cc: _ClientConversation, request: MQIRequest,
                     verb: SegmentType) -> MQIReply | None:
        """An MQPUT, MQGET, MQCMIT or MQBACK passed to the queue manager's socket as the
        client sent it, its reply passed back as the queue manager sent it: both sides
        speak the same bodies (``mqpy.fap.mqiflows``) in the same byte order, and nothing in
        these calls is the channel's to change (``_relay_body``). None: the call goes the
        decoding way. Once a call of a conversation has been relayed its task waits between
        calls on the queue manager's socket, and the receiver relays the next call itself
        (``_start_relay``, ``_finish_relay``)."""
        prepared = self._relay_body(request, verb)
        if prepared is None:
            return None
        body, data_length = prepared
        self.status.substate = _NAMES[verb]
        try:
            reply = await cc.backend.relay(mqi_event(
                MQIRequest, ControlFlags1.NONE, _NO_LUW, None, None, verb, 0, 0, request.hobj,
                body, None))
        except MQMIError:  # MQRC_CONNECTION_BROKEN
            return await self._relay_failed(request, verb)
        finally:
            self.status.substate = "RECEIVE"
        cc.on_qm = cc.backend.usable
        return self._relayed(request, verb, data_length, reply)

    def _start_relay(self, cc: _ClientConversation, request: MQIRequest) -> bool:
        """The receiver's half of a relayed call of a conversation whose task waits on the
        queue manager's socket: the request goes there at once, and the reply wakes that
        task (``_finish_relay``), one task wake-up a call. False: not relayed this way (not
        a relayed call or shape, another byte order, the connection busy or gone): the
        request goes to the task as any other."""
        verb = request.segment_type
        if verb not in _RELAYED or self.conv.reader.partner_byte_order not in _LITTLE:
            return False
        prepared = self._relay_body(request, verb)
        if prepared is None:
            return False
        body, data_length = prepared
        backend = cc.backend
        if not backend.send_relayed(mqi_event(
                MQIRequest, ControlFlags1.NONE, _NO_LUW, None, None, verb, 0, 0, request.hobj,
                body, None)):
            return False
        cc.relayed = (request, verb, data_length)
        self.busy += 1
        self.status.substate = _NAMES[verb]
        idle = cc.idle
        if backend.unsent and idle is not None:
            cc.idle = None
            idle.cancel()  # the rest of the request is the task's to write
        return True

    async def _serve_relayed(self, cc: _ClientConversation) -> None:
        """Between calls of a conversation whose last call was relayed: wait on the queue
        manager's socket, and pass on the replies of the calls the receiver relays
        (``_start_relay``) as they come, until a request is queued for the task (the
        receiver cancels the wait: only while the task waits, so that a reply is never cut
        off half-way). One cancel scope serves the whole run: a scope a call costs about as
        much as the wake-up saved. Readable with no call relayed: the queue manager ended,
        and the connection is dropped (the next call fails 2009)."""
        backend = cc.backend
        with trio.CancelScope() as scope:
            while True:
                try:
                    cc.idle = scope
                    await backend.wait_readable()
                except (trio.ClosedResourceError, OSError):
                    cc.on_qm = False  # dropped meanwhile: calls go the task's way again
                    return
                finally:
                    cc.idle = None
                if scope.cancel_called or cc.relayed is None:
                    break  # woken for a request as the reply came: the reply is taken outside
                await self._finish_relay(cc)  # not cancelled: cc.idle is None meanwhile
                if cc.queued or not cc.on_qm:
                    return
        if scope.cancelled_caught or scope.cancel_called or cc.relayed is not None:
            return
        await backend.relayed_reply()  # readable, no call in progress: drops the connection
        cc.on_qm = False

    async def _finish_relay(self, cc: _ClientConversation) -> None:
        """The task's half of a call ``_start_relay`` relayed: the reply, to the client."""
        assert cc.relayed is not None
        request, verb, data_length = cc.relayed
        segment: bytes | None = None
        try:
            try:
                reply = await cc.backend.relayed_reply(self._readdresser(request, verb))
            finally:
                cc.relayed = None
                self.busy -= 1
                self.last_call = time.monotonic()
                self.status.substate = "RECEIVE"
            assert reply is not None
            if type(reply) is tuple:  # the client's segment, made from the bytes as they came
                segment, comp = reply
                body_at = (TSH_LENGTH if request.conv_id is None else TSHM_LENGTH) \
                    + API_HEADER_LENGTH
                self._count_relayed(verb, data_length, comp,
                                    memoryview(segment)[body_at:] if verb == _T.MQGET else b"")
            else:
                out = self._relayed(request, verb, data_length, reply)
        except MQMIError:  # MQRC_CONNECTION_BROKEN
            cc.on_qm = False
            out = await self._relay_failed(request, verb)
        self.status.msgs += 1
        if segment is not None:
            await self._send_segment(segment)
        else:
            await self._reply(request, out)

    def _readdresser(self, request: MQIRequest, verb: SegmentType
                     ) -> Callable[[bytes], tuple[bytes, int] | None] | None:
        """What makes the client's segment of a relayed reply straight from the queue
        manager's bytes (``wire.readdressed_mqi_reply``); None when our writer is not
        little-endian, as the queue manager's flows are."""
        writer = self.conv.writer
        if writer.byte_order != ByteOrder.LITTLE:
            return None
        reply_type, conv_id, request_id = _REPLY_TYPES[verb], request.conv_id, request.request_id

        def readdress(data: bytes) -> tuple[bytes, int] | None:
            return readdressed_mqi_reply(data, reply_type, conv_id, request_id, writer.encoding,
                                         writer.ccsid, writer.flags2,
                                         writer.max_transmission_size)

        return readdress

    async def _relay_failed(self, request: MQIRequest, verb: SegmentType) -> MQIReply:
        """The queue manager ended a relayed call's connection: it is gone, or this body
        did not decode there (its codec is ours); a malformed flow ends the channel as it
        always has, else the call fails MQRC_CONNECTION_BROKEN."""
        try:
            mqiflows.decode_request(request, ByteOrder.LITTLE)
        except mqiflows.BadStructure:
            pass  # the call's own error, were the queue manager there: it is not
        except ProtocolError as exc:
            await self._refuse(exc.status_code, "AMQ9504E", f"Protocol error: {exc}")
            raise ChannelEnded("", "", True, exc.status_code) from None
        return mqiflows.encode_reply(verb, comp=_FAILED, reason=CMQC.MQRC_CONNECTION_BROKEN)

    def _relayed(self, request: MQIRequest, verb: SegmentType, data_length: int | None,
                 reply: MQIReply) -> MQIReply:
        """A relayed call's reply for the client, counted in the channel status."""
        self._count_relayed(verb, data_length, reply.comp, reply.body)
        # ReplyLength is the flow's own length: the writer puts the client's (TSH or TSHM)
        return mqi_event(MQIReply, ControlFlags1.NONE, _NO_LUW, request.conv_id,
                         request.request_id, reply.segment_type, reply.comp, reply.reason,
                         reply.hobj, reply.body, None)

    def _count_relayed(self, verb: SegmentType, data_length: int | None, comp: int,
                       body: bytes | memoryview) -> None:
        """A relayed call in the channel status: a put's bytes, a got message (``body``:
        the MQGET reply's)."""
        if comp != _FAILED:
            if verb == _T.MQPUT:
                self.status.bytes_received += data_length or 0
            elif verb == _T.MQGET and comp == _OK:
                self.status.message_moved(_got_data_length(body), sent=True, counted=False)

    async def _conn(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        if cc.backend is not None:
            return mqiflows.encode_reply(d.verb, [(self.chinit.qmgr_name, "")],
                                         comp=_WARNING, reason=CMQC.MQRC_ALREADY_CONNECTED)
        qmgr, appl = d.values[0]
        qmgr = qmgr.strip()
        if qmgr and not qmgr.startswith("*") and qmgr != self.chinit.qmgr_name:
            raise MQMIError(_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
        ident = self.identities.pop(cc.conv_id, None) or _Identity()
        mcauser = str(_attr(self.definition, "MCAUSER") or "").strip()
        # CHLAUTH judges the user the conversation will run as: the queue manager works it
        # out in one place (mqpy.security.channel_decision: ADOPTCTX for the MQCSP user,
        # then MCAUSER, USERSRC(MAP), BLOCKUSER), and CONNAUTH then authenticates the MQCSP
        # before the connection runs as that same user
        decision = await self.chinit.channel_decision(
            {"channel": self.name, "address": self.peer, "client_user": ident.client_user,
             "csp_user": ident.credentials.user if ident.credentials else None,
             "mcauser": mcauser, **tlsstream.tls_identity(self.conv.stream)})
        if not decision["allowed"]:
            cc.refused = True
            self.log(str(decision["msgid"]), str(decision["text"]))
            raise MQMIError(_FAILED, CMQC.MQRC_NOT_AUTHORIZED)
        if decision.get("warning"):
            self.log(str(decision["msgid"]), f"{decision['text']} (WARN(YES): allowed)")
        security = mqiflows.ConnSecurity(ident.credentials, user=str(decision["user"]),
                                         channel=self.name, address=self.peer,
                                         adopted=bool(decision.get("adopted")))
        self.status.mcauser = security.user
        conn = await self.chinit.connect_for(security, appl)
        handle = conn.get_handle() if hasattr(conn, "get_handle") else conn
        if appl and isinstance(getattr(handle, "appl_name", None), bytes):
            handle.appl_name = appl.encode("latin-1", "replace")[:28]
        cc.backend = serving.mqi_port(handle, self.registry.limiter)
        self.status.remote_appl_tag = appl
        self.conv.authenticated()  # the channel is admitted: the listener's limits let go
        return mqiflows.encode_reply(d.verb, [(self.chinit.qmgr_name, appl)],
                                     hobj=int(getattr(handle, "hconn", 1) or 1))

    async def _disc(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        await cc.backend.disconnect()
        cc.ended = True
        return mqiflows.encode_reply(d.verb, [])

    async def _open(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        od, options = d.values
        hobj = await cc.backend.open(od, options)
        order = self.conv.writer.byte_order  # the reply's body is in our TSH's order
        reply = mqiflows.encode_reply(d.verb, [od], hobj=hobj, byte_order=order)
        # MQ's MQOPEN reply echoes the open options after the MQOD, as its request carries
        # them (Wireshark dissects both alike); mqiflows's reply shape stops at the MQOD.
        fmt = "<i" if order == ByteOrder.LITTLE else ">i"
        return attrs.evolve(reply, body=reply.body + struct.pack(fmt, options))

    def _byte_order(self) -> ByteOrder:
        return self.conv.reader.partner_byte_order or ByteOrder.LITTLE

    async def _close(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        await cc.backend.close(d.hobj, d.values[0])
        return mqiflows.encode_reply(d.verb, [])

    def _check_length(self, data: bytes) -> None:
        if self.max_msg_size and len(data) > self.max_msg_size:
            raise MQMIError(_FAILED, CMQC.MQRC_DATA_LENGTH_ERROR)

    async def _put(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        md, pmo, data = d.values
        self._check_length(data)
        warning = await cc.backend.put(d.hobj, md, pmo, data)
        self.status.bytes_received += len(data)
        return mqiflows.encode_reply(d.verb, [md, pmo], comp=_WARNING if warning else _OK,
                                     reason=warning)

    async def _put1(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        od, md, pmo, data = d.values
        self._check_length(data)
        warning = await cc.backend.put1(od, md, pmo, data)
        self.status.bytes_received += len(data)
        return mqiflows.encode_reply(d.verb, [od, md, pmo], comp=_WARNING if warning else _OK,
                                     reason=warning)

    async def _get(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        md, gmo, buffer_length = d.values
        try:
            data = await cc.backend.get(d.hobj, md, gmo, self._max_length(buffer_length))
        except MQMIError as e:
            reply = mqiflows.truncation_reply(md, gmo, e)
            if reply is None:
                raise
            return reply
        # (_serve_conversation counts the call in MSGS)
        self.status.message_moved(len(data), sent=True, counted=False)
        return mqiflows.encode_reply(d.verb, [md, gmo, len(data), data])

    async def _cmit(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        await cc.backend.commit()
        return mqiflows.encode_reply(d.verb, [])

    async def _back(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        await cc.backend.backout()
        return mqiflows.encode_reply(d.verb, [])

    async def _inq(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        (selectors,) = d.values
        backend = cc.backend
        if d.hobj == 0:
            values = [await backend.inquire_qmgr(s) for s in selectors]
        else:
            values = [await backend.inquire(d.hobj, s) for s in selectors]
        return mqiflows.encode_reply(d.verb, [values])

    async def _set(self, cc: _ClientConversation, d: mqiflows.Decoded) -> MQIReply:
        selector, value = d.values
        await cc.backend.set(d.hobj, selector, value)
        return mqiflows.encode_reply(d.verb, [])


# ---------------------------------------------------------------------------- relaying

#: The calls :meth:`SvrconnInstance._relay` passes through without decoding them.
_RELAYED = frozenset({_T.MQPUT, _T.MQGET, _T.MQCMIT, _T.MQBACK})
_NO_LUW = bytes(8)  # an MQI flow's LUW id: none
#: each relayed verb's reply segment type
_REPLY_TYPES = {verb: mqiflows.reply_type(verb) for verb in _RELAYED}
#: what the trace of a readdressed reply's send names (its kind: an MQIReply)
_A_REPLY = (MQIReply(segment_type=SegmentType.MQGET_REPLY),)
#: a partner byte order that is little-endian (None: none seen yet, little is assumed)
_LITTLE = frozenset({ByteOrder.LITTLE, None})
#: CHSTATUS SUBSTATE of a call in progress, by verb (``SegmentType.name`` is a property)
_NAMES = {t: t.name for t in SegmentType}
_LONG = struct.Struct("<i")


@attrs.frozen
class _Answer:
    """A call the receiver made at once (``_serve_now``) whose log force is due before it
    is answered: for the conversation's task, in its requests' order."""

    request: MQIRequest
    values: tuple[Any, ...]
    outcome: tuple[int, int, Any]  # as SvrconnInstance._call_now gives it
    lsn: int


def _decoded(request: MQIRequest, values: tuple[Any, ...]) -> mqiflows.Decoded:
    """What ``mqiflows.decode_request`` gives for ``request``, whose ``values`` are read."""
    return mqiflows.Decoded(request.segment_type, request.comp, request.reason, request.hobj,
                            values)


def _put_data_length(body: bytes) -> int | None:
    """An MQPUT body's message length when it is exactly MQMD, MQPMO (no records), length,
    data; else None."""
    md = mqiflows.size_at(body, 0, mqiflows.MD_SIZES)
    pmo = md and mqiflows.size_at(body, md, mqiflows.PMO_SIZES)
    if not pmo or md + pmo + 4 > len(body):
        return None
    (length,) = _LONG.unpack_from(body, md + pmo)
    return length if md + pmo + 4 + length == len(body) else None


def _plain_get(body: bytes) -> bool:
    """Is an MQGET body exactly MQMD, MQGMO, buffer length?"""
    md = mqiflows.size_at(body, 0, mqiflows.MD_SIZES)
    gmo = md and mqiflows.size_at(body, md, mqiflows.GMO_SIZES)
    return bool(gmo) and md + gmo + 4 == len(body)


def _got_data_length(body: bytes) -> int:
    """The message length in an MQGET reply (MQMD, MQGMO, DataLength, length, data)."""
    md = mqiflows.size_at(body, 0, mqiflows.MD_SIZES)
    gmo = md and mqiflows.size_at(body, md, mqiflows.GMO_SIZES)
    if not gmo or md + gmo + 8 > len(body):
        return 0
    return int(_LONG.unpack_from(body, md + gmo + 4)[0])


def _peer_host(stream: Any) -> str:
    try:
        return str(stream.socket.getpeername()[0])
    except (AttributeError, OSError, IndexError):
        return ""


_Handler = Callable[[SvrconnInstance, _ClientConversation, mqiflows.Decoded], Any]
_HANDLERS: dict[SegmentType, _Handler] = {
    _T.MQCONN: SvrconnInstance._conn,
    _T.MQDISC: SvrconnInstance._disc,
    _T.MQOPEN: SvrconnInstance._open,
    _T.MQCLOSE: SvrconnInstance._close,
    _T.MQPUT: SvrconnInstance._put,
    _T.MQPUT1: SvrconnInstance._put1,
    _T.MQGET: SvrconnInstance._get,
    _T.MQCMIT: SvrconnInstance._cmit,
    _T.MQBACK: SvrconnInstance._back,
    _T.MQINQ: SvrconnInstance._inq,
    _T.MQSET: SvrconnInstance._set,
}
