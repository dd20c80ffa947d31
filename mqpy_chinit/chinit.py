"""The channel initiator: listeners, channel starts (operator, trigger, inbound), retries.

It is an ordinary MQI application of its queue manager ("distributed queuing is not part of the
queue manager", seed 004): it reads channel definitions through an *admin* object, serves
SYSTEM.CHANNEL.INITQ (trigger messages naming a channel, and channel commands from the command
server: ``mqpy.channelcommands``), runs TCP listeners whose connections become receiving MCAs,
and runs sending channels through their states with IBM's retry rules:

- a sending channel that fails goes to RETRYING and tries again SHORTRTY times every SHORTTMR
  seconds, then LONGRTY times every LONGTMR seconds, then goes to STOPPED, where its transmission
  queue is GET(DISABLED) and its triggering off until START CHANNEL (seed 000 §8, 9.37-9.38);
- an error that retrying cannot cure (sequence numbers, wrong channel type, in doubt with
  another queue manager) stops the channel at once;
- a channel that ends normally (disconnect interval, STOP CHANNEL STATUS(INACTIVE)) is INACTIVE
  and a trigger message starts it again.

Statuses live in memory here; DISPLAY CHSTATUS reads them through :meth:`status_of`.
"""

from __future__ import annotations

import collections
import functools
import json
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import trio

import mqpy
from mqpy import CMQC, config, errorlog, syncrecord
from mqpy.admission import Admissions, LogLimiter
from mqpy.channelcommands import COMMAND_FORMAT, INITQ
from mqpy.engine.cluster import CLUSTER_RECEIVER_APPL
from mqpy.fap import channeldefs as D
from mqpy.fap import tls
from mqpy.fap.initialdata import CapFlags1, InitialData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import Event, SegmentType
from mqpy.trace import TRACER
from mqpy_chinit import handoff, sslrefresh, tlsstream
from mqpy_chinit.access import ChannelAccess
from mqpy_chinit.conversation import ChannelEnded, Conversation
from mqpy_chinit.mca import CONFIRM_TIMEOUT, QmFactory, mqi, peer_address
from mqpy_chinit.receiver_mca import ReceiverMCA
from mqpy_chinit.sender_mca import SenderMCA
from mqpy_chinit.states import ChannelEvent, ChannelState, ChannelStatus

#: the reasons that mean the queue manager went (killed, ending, or gone before MQCONN)
_QMGR_GONE = (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_QUIESCING,
              CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
#: The repository manager is started again this long after it failed, doubling to the max.
REPOS_RESTART_MIN = 1.0
REPOS_RESTART_MAX = 60.0


def _first_leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _split_qmgr_gone(exc: BaseException) -> tuple[BaseException | None, BaseException | None]:
    """``exc`` (or each leaf of an exception group) as (the MQ errors saying the queue
    manager went, everything else); either is None when there is none."""
    def gone(e: BaseException) -> bool:
        return isinstance(e, mqpy.MQMIError) and e.reason in _QMGR_GONE

    if isinstance(exc, BaseExceptionGroup):
        return exc.split(gone)
    return (exc, None) if gone(exc) else (None, exc)


def _mq_reasons(exc: BaseException) -> list[int]:
    """The MQ reasons of an exception (or of every leaf of an exception group); [] if any
    leaf is not an MQ error."""
    if isinstance(exc, BaseExceptionGroup):
        found = [_mq_reasons(e) for e in exc.exceptions]
        return [r for f in found for r in f] if all(found) else []
    return [exc.reason] if isinstance(exc, mqpy.MQMIError) else []


class Admin(Protocol):
    """What the channel initiator needs to know and change in its queue manager."""

    def channel(self, name: str) -> dict[str, object] | None: ...

    def channels(self) -> dict[str, dict[str, object]]: ...

    def alter_queue(self, name: str, attributes: dict[str, object]) -> None: ...

    def queue_attribute(self, name: str, key: str) -> object: ...


class EngineAdmin:
    """Admin for a queue manager running in this process (embedded mode, tests)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def channel(self, name: str) -> dict[str, object] | None:
        obj = self.engine.lookup("CHANNEL", name)
        return dict(obj.attributes) if obj is not None else None

    def channels(self) -> dict[str, dict[str, object]]:
        with self.engine.lock:
            return {o.name: dict(o.attributes) for o in self.engine.catalog.by_type("CHANNEL")}

    def alter_queue(self, name: str, attributes: dict[str, object]) -> None:
        self.engine.alter("QLOCAL", name, attributes)

    def queue_attribute(self, name: str, key: str) -> object:
        obj = self.engine.lookup("QLOCAL", name)
        return obj.attributes.get(key) if obj is not None else None

    def qmgr_attribute(self, key: str) -> object:
        return self.engine.catalog.qmgr.get(key)

    def channel_decision(self, query: dict[str, object]) -> dict[str, object]:
        from mqpy.security import channel_decision

        return channel_decision(self.engine, query)

    def connect_for(self, security: Any, appl: str = "") -> mqpy.QueueManager:
        """MQCONN as ``security`` says (the engine's policy checks it), for a client."""
        qm = mqpy.QueueManager(None)
        qm._conn = self.engine.connect(appl or None, **security.connect_args(None))
        qm._name = self.engine.name
        return qm

    def connect_as(self, appl: str) -> mqpy.QueueManager:
        """MQCONN as this process, under application name ``appl`` (a receiving MCA's)."""
        qm = mqpy.QueueManager(None)
        qm._conn = self.engine.connect(appl)
        qm._name = self.engine.name
        return qm

    def define_channel(self, name: str, like: str, attributes: dict[str, object]) -> None:
        self.engine.define("CHANNEL", name, attributes, like=like)

    def display(self, text: str) -> list[dict[str, object]]:
        """An MQSC DISPLAY, parsed (as MQSCAdmin answers it through the command server)."""
        from mqpy.mqsc.processor import MQSCProcessor
        from mqpy_chinit.admin import parse_display

        result = MQSCProcessor(self.engine).execute_text(text)
        return parse_display(result.lines) if result.ok else []


LogFn = Callable[[str, str], None]
SvrconnHandler = Callable[[Any, Any, InitialData, dict[str, object]], Awaitable[None]]


class ChannelInitiator:
    def __init__(self, qmgr_name: str, connect_qm: QmFactory, admin: Admin, *,
                 log: LogFn | None = None, initq: str = INITQ,
                 channels: config.ChannelsConfig | None = None,
                 channels_stanza: dict[str, str] | None = None,
                 connect_for: Callable[[Any, str], Any] | None = None,
                 cluster_cache: str | None = None,
                 cluster_clock: Callable[[], float] = time.time,
                 connect_mca: Callable[[str], Any] | None = None) -> None:
        """``channels``: qm.ini's Channels numbers (MaxChannels, MaxActiveChannels,
        AdoptNewMCATimeout, PipeLineLength, and the limits on unauthenticated peers,
        ``config.PeerLimits``) as ``QMgrConfig.load`` checked them, IBM's defaults when
        absent; or ``channels_stanza``, the stanza as written, checked here the same way (a
        value that is not valid is a ConfigError). ``connect_for(security, appl)``:
        MQCONN on behalf of a client conversation (default: the admin's). ``cluster_cache``:
        where the repository manager keeps the engine's cluster cache; None runs no
        repository manager (mqpy_chinit.cluster.manager). ``cluster_clock`` is its clock
        (record lifetimes are 27, 30 and 90 days: tests pass a clock they advance).
        ``connect_mca(appl)``: a blocking MQCONN like ``connect_qm`` under an application
        name (default: the admin's ``connect_as``; without either, ``connect_qm``)."""
        limits = channels or config.ChannelsConfig.parse(channels_stanza)
        TRACER.process_qmgr = qmgr_name  # strmqtrc -m qmgr -t comms traces its flows
        self.max_channels = limits.max_channels
        #: what an unauthenticated peer may hold (qm.ini Channels: MaxUnauthChannels ...)
        self.peer_limits = limits.peer
        #: inbound connections not yet admitted, counted for those limits (``_inbound``)
        self.unauthenticated = Admissions(limits.peer.max_unauth_channels,
                                          limits.peer.max_unauth_channels_per_address)
        #: AMQ9513E for those limits, a few lines a minute (``_log_refused``)
        self._refusals: dict[str, LogLimiter] = collections.defaultdict(LogLimiter)
        self.max_active = limits.max_active_channels
        self.qmgr_name = qmgr_name
        self.connect_qm = connect_qm
        self.admin = admin
        self.initq = initq
        self.log = log or (lambda msgid, text: None)
        # PipeLineLength: batches a sending MCA may have in flight (sender_mca.SenderMCA)
        self.pipeline = limits.pipeline_length
        # channel name -> status; a receiver instance is keyed (name, partner queue manager)
        # because one generic RCVR definition serves many senders (seed 000 §2), and a
        # SVRCONN instance "name#n"
        self.statuses: dict[object, ChannelStatus] = {}
        self.senders: dict[str, SenderMCA] = {}
        self.running: dict[str, trio.CancelScope] = {}
        self.nursery: trio.Nursery | None = None
        self.ports: list[int] = []
        self.listener_scopes: dict[str, trio.CancelScope] = {}
        # running receiving channels: (name, partner qmgr) -> (cancel scope, peer address)
        self.receivers: dict[tuple[str, str], tuple[trio.CancelScope, str]] = {}
        self._adopt_timeout = limits.adopt_timeout
        self._adopted: set[trio.CancelScope] = set()  # receivers' scopes ended by adoption
        self.listener_ports: dict[str, int] = {}
        self._disabled: dict[str, str] = {}  # xmitq -> its TRIGGER before an error stop
        # channel -> (xmitq, TRIGGER) its error stop disabled: remembered with its STOPPED
        self._disabled_by_channel: dict[str, tuple[str, str]] = {}
        # async (chinit, conversation, first InitialData, definition) serving a SVRCONN
        self.svrconn_handler: SvrconnHandler | None = None
        self.access = ChannelAccess(admin, connect_qm, connect_for, self._log)
        self.cluster_cache = cluster_cache
        self.cluster_clock = cluster_clock
        self.cluster: Any = None  # the repository manager, once running
        self._qmgr_gone = False  # its queue manager went: the channel initiator is ending
        self.connect_mca = connect_mca or getattr(admin, "connect_as", None)
        #: MQIBindType=FASTPATH: the queue manager's client host (``clienthost.py``) that
        #: plain SVRCONN sockets are handed to, and that serves them; None: STANDARD
        self.fastpath: str | None = None
        if limits.fastpath:
            qmdir = os.path.dirname(cluster_cache) if cluster_cache else \
                config.qmgr_dir(qmgr_name)
            self.fastpath = os.path.join(qmdir, handoff.SOCKET_NAME)

    def _log(self, msgid: str, text: str) -> None:
        self.log(msgid, text)

    async def channel_decision(self, query: dict[str, object]) -> dict[str, object]:
        """The queue manager's CHLAUTH decision for an inbound channel (``access``)."""
        return await self.access.decide(query)

    async def connect_for(self, security: Any, appl: str = "") -> Any:
        """MQCONN on behalf of a client conversation (``access``)."""
        return await self.access.connect_for(security, appl)

    def _receiver_connect(self, chltype: str) -> QmFactory:
        """A receiving MCA's MQCONN. A CLUSRCVR's connects under the name that makes its
        puts "put by a cluster channel" (mqpy.engine.cluster): they take the local
        instance of a cluster queue, whatever its CLWLUSEQ, so nothing ping-pongs."""
        if chltype != "CLUSRCVR" or self.connect_mca is None:
            return self.connect_qm
        return functools.partial(self.connect_mca, CLUSTER_RECEIVER_APPL)

    # ------------------------------------------------------------------ lifecycle

    async def run(self, listen: list[tuple[str, int]] = (), *, serve_initq: bool = True,
                  start_listeners: bool = False,
                  task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Run listeners (given, and with ``start_listeners`` every LISTENER object with
        CONTROL(QMGR)) and serve SYSTEM.CHANNEL.INITQ until cancelled."""
        async with trio.open_nursery() as nursery:
            self.nursery = nursery
            for host, port in listen:
                self.ports.append(await nursery.start(self.listener, host, port))
            if start_listeners and hasattr(self.admin, "listeners"):
                for lst in await trio.to_thread.run_sync(self.admin.listeners):
                    if lst.get("CONTROL") == "QMGR" and lst.get("TRPTYPE", "TCP") == "TCP":
                        err = await self.start_listener(str(lst.get("LISTENER")), lst)
                        if err:
                            self.log("AMQ9999E", err)
            if serve_initq:
                await self._restore_states()
                nursery.start_soon(self._while_qmgr_runs, self._serve_initq)
                nursery.start_soon(self._while_qmgr_runs, self._channel_statistics)
                if self.cluster_cache and hasattr(self.admin, "display"):
                    nursery.start_soon(self._while_qmgr_runs, self._repository_manager)
                self.log("AMQ8024I", "IBM MQ channel initiator started.")
            task_status.started()

    async def _while_qmgr_runs(self, task: Callable[[], Awaitable[None]]) -> None:
        """Run one of the long-running tasks that hold an MQI connection (initiation queue,
        statistics, repository manager). Its queue manager going (an MQ reason of
        _QMGR_GONE, alone or among the task's own children's errors) is the ordinary end of
        the channel initiator: logged once, and every task ends; anything else propagates."""
        try:
            await task()
        except BaseException as exc:
            gone, rest = _split_qmgr_gone(exc)
            if gone is None:
                raise
            self.qmgr_ended(_mq_reasons(gone)[0])
            if rest is not None:
                raise rest from None  # this task's own cancellation, as a rule

    def qmgr_ended(self, reason: int) -> None:
        """The queue manager went: AMQ9542I (as IBM's runmqchi logs it), once, and the
        channel initiator ends."""
        if self._qmgr_gone:
            return
        self._qmgr_gone = True
        self.log("AMQ9542I", f"Queue manager is ending. The channel initiator ends because "
                 f"queue manager {self.qmgr_name} is not available (reason {reason}).")
        if self.nursery is not None:
            self.nursery.cancel_scope.cancel()

    async def _repository_manager(self) -> None:
        """The cluster repository manager (IBM's amqrrmfa), supervised: whatever ends it
        (an MQ error, a bug, a stray message it cannot read) is logged (AMQ9448E, with an
        FDC for anything but an MQ reason) and it is started again after a pause that
        doubles up to REPOS_RESTART_MAX; channels go on meanwhile. It ends for good only with
        its queue manager."""
        from mqpy_chinit.cluster.manager import RepositoryManager

        delay = REPOS_RESTART_MIN
        while True:
            manager = RepositoryManager(self, str(self.cluster_cache), clock=self.cluster_clock)
            began = trio.current_time()
            try:
                self.cluster = manager
                await manager.run()
                return
            except Exception as exc:  # noqa: BLE001 - supervised: logged, then restarted
                reasons = _mq_reasons(exc)
                if reasons and all(r in _QMGR_GONE for r in reasons):
                    raise  # its queue manager went: so does the channel initiator
                if trio.current_time() - began > REPOS_RESTART_MAX:
                    delay = REPOS_RESTART_MIN  # it had been running well: a fresh failure
                first = _first_leaf(exc)
                cause = f"reason {reasons[0]}" if reasons else \
                    f"{type(first).__name__}: {first}"
                if not reasons:
                    fdc = self._record_failure("RM000001", exc)
                    cause += f" (FDC {fdc})" if fdc else ""
                self.log("AMQ9448E", f"Repository manager ended: {cause}; it is restarted "
                         f"in {delay:g} seconds.")
            finally:
                self.cluster = None
            await trio.sleep(delay)
            delay = min(delay * 2, REPOS_RESTART_MAX)

    def _record_failure(self, probe: str, exc: BaseException,
                        component: str = "rrmRepositoryManager") -> str | None:
        """An FDC in the queue manager's errors directory (next to the cluster cache)."""
        if not self.cluster_cache:
            return None
        directory = os.path.join(os.path.dirname(str(self.cluster_cache)), "errors")
        try:
            return errorlog.write_fdc(directory, probe, component, exc, qmgr=self.qmgr_name)
        except OSError:
            return None

    async def start_listener(self, name: str, definition: dict[str, object] | None = None
                             ) -> str | None:
        """START LISTENER: a TCP listener from a LISTENER object (PORT, IPADDR)."""
        if name in self.listener_scopes:
            return None
        if definition is None and hasattr(self.admin, "listeners"):
            found = [d for d in await trio.to_thread.run_sync(self.admin.listeners)
                     if d.get("LISTENER") == name]
            definition = found[0] if found else None
        if definition is None:
            return f"AMQ8147E: IBM MQ object {name} not found."
        assert self.nursery is not None
        scope = trio.CancelScope()
        self.listener_scopes[name] = scope

        async def run_listener(task_status=trio.TASK_STATUS_IGNORED):
            with scope:
                await self.listener(str(definition.get("IPADDR") or ""),
                                    int(definition.get("PORT") or D.DEFAULT_PORT),
                                    task_status=task_status)
        try:
            port = await self.nursery.start(run_listener)
        except OSError as exc:  # IBM's message for a listener that cannot bind, and why
            self.listener_scopes.pop(name, None)
            return (f"AMQ9218E: The TCP/IP listener program could not bind to port number "
                    f"{int(definition.get('PORT') or D.DEFAULT_PORT)}. "
                    f"({exc.strerror or exc}, listener {name})")
        self.listener_ports[name] = port
        return None

    def stop_listener(self, name: str) -> str | None:
        scope = self.listener_scopes.pop(name, None)
        if scope is None:
            return f"AMQ8730E: Listener {name} not active."
        scope.cancel()
        self.listener_ports.pop(name, None)
        self.log("AMQ9545I", f"Listener {name} stopped.")
        return None

    async def listener(self, host: str, port: int, *,
                       task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """A TCP listener (runmqlsr): every connection is a receiving MCA."""
        listeners = await trio.open_tcp_listeners(port, host=host or None)
        actual = listeners[0].socket.getsockname()[1]
        self.log("AMQ8021I", f"Request to start IBM MQ listener accepted: port {actual}.")
        task_status.started(actual)
        await trio.serve_listeners(self._inbound, listeners)

    async def _inbound(self, stream: trio.SocketStream) -> None:
        """An inbound connection: its first flow names the channel; a server-connection
        channel is served by the SVRCONN handler, a message channel by a receiving MCA.

        Until the channel is admitted (a message channel once CHLAUTH accepted it, a
        SVRCONN once its first MQCONN succeeded) the connection holds a place among the
        unauthenticated ones (``unauthenticated``: MaxUnauthChannels in all,
        MaxUnauthChannelsPerAddress from one address; over either it is closed unread,
        AMQ9513E), has UnauthTimeout seconds to get there (AMQ9259E) and MaxUnauthBytes of
        unfinished flows (``Conversation.inbound``).

        Whatever goes wrong with one connection is logged and closes that connection: it
        never reaches the listener, which goes on serving everyone else."""
        peer_host = "an unknown address"
        try:
            peer_host = peer_address(stream).rsplit(":", 1)[0]
            admission = self.unauthenticated.admit(peer_host)
            if isinstance(admission, str):
                self._log_refused("AMQ9513E", f"Maximum number of channels reached: the "
                                  f"connection from {peer_host} was refused ({admission}: "
                                  f"MaxUnauthChannels {self.peer_limits.max_unauth_channels}, "
                                  f"MaxUnauthChannelsPerAddress "
                                  f"{self.peer_limits.max_unauth_channels_per_address}).")
                with trio.CancelScope(shield=True):
                    await stream.aclose()  # not a byte read, not a byte answered
                return
            deadline = trio.CancelScope(
                deadline=trio.current_time() + self.peer_limits.unauth_timeout)

            def admitted() -> None:
                admission.release()
                deadline.deadline = float("inf")

            try:
                with deadline:
                    await self._unauthenticated(stream, peer_host, admitted)
            finally:
                admission.release()
            if deadline.cancelled_caught:
                self.log("AMQ9259E", f"Connection timed out from host {peer_host}: its "
                         f"channel was not started within {self.peer_limits.unauth_timeout} "
                         f"seconds (UnauthTimeout).")
                with trio.CancelScope(shield=True):
                    await stream.aclose()
        except Exception as exc:  # noqa: BLE001 - one connection's fault, not the listener's
            if isinstance(exc, mqpy.MQMIError):  # its queue manager could not be asked
                why = f"the queue manager answered reason {exc.reason}"
            else:
                why = f"an unexpected error: {exc!r}"
            self.log("AMQ9999E", f"Inbound connection from {peer_host} ended by {why}.")
            with trio.CancelScope(shield=True):
                try:
                    await stream.aclose()
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    pass

    def _log_refused(self, msgid: str, text: str) -> None:
        """A connection refused for a limit: logged, a few lines a minute at most."""
        more = self._refusals[msgid].allow()
        if more is not None:
            self.log(msgid, text + more)

    async def _unauthenticated(self, stream: trio.SocketStream, peer_host: str,
                               admitted: Callable[[], None]) -> None:
        """:meth:`_inbound` from the connection's admission to the listener's count on:
        ``admitted()`` once the channel is admitted."""
        if not await self.access.address_allowed(peer_host):
            with trio.CancelScope(shield=True):
                await stream.aclose()  # BLOCKADDR: not a byte read, not a byte answered
            return
        channel_stream = await tlsstream.accept(stream, self._key_repository, self.log,
                                                peer_host)
        if channel_stream is None:
            with trio.CancelScope(shield=True):
                await stream.aclose()
            return
        stream = channel_stream
        # FASTPATH: what is read from a plain connection is kept, for a hand-off
        recording = _Recording(stream) if self.fastpath is not None and \
            type(stream) is tlsstream.Prefixed else None
        conv = self.inbound_conversation(recording or stream, admitted)
        first = await self._first_flow(conv, stream, peer_host)
        if first is None:
            return
        if not isinstance(first, InitialData):
            # a channel starts with INITIAL_DATA and nothing else (seed 000): a partner that
            # sends anything first has broken the protocol before naming a channel
            self.log("AMQ9504E", f"A protocol error was detected for channel '????' from "
                     f"{peer_host}: its first flow was {SegmentType(first.segment_type).name}"
                     f", not INITIAL_DATA.")
            with trio.CancelScope(shield=True):
                await conv.close(StatusCode.PROTOCOL_SEGMENT_TYPE)
            return
        name = first.channel_name.strip()
        definition = await trio.to_thread.run_sync(self.admin.channel, name)
        if definition is None and not await trio.to_thread.run_sync(self._chad_enabled):
            # before CHLAUTH, which has no channel to judge: the partner learns it
            # (STATUS NO_CHANNEL: a client's MQCONN fails MQRC_UNKNOWN_CHANNEL_NAME, 2540;
            # a sender logs AMQ9520E). With CHAD the receiving MCA defines it once CHLAUTH
            # has let the partner in (``_autodefine``).
            self.log("AMQ9519E", f"Channel '{name}' not found. (The start came from "
                     f"{peer_host}.)")
            with trio.CancelScope(shield=True):
                await conv.close(StatusCode.NO_CHANNEL)
            return
        chltype = D.str_attr(definition, "CHLTYPE") if definition else ""
        definition = definition or {}
        refusal = tls.check_inbound(definition, name, peer_host,
                                    *tlsstream.tls_session(stream))
        if refusal is not None:
            self.log(refusal.msgid, refusal.text)
            with trio.CancelScope(shield=True):
                await conv.close(refusal.status)
            return
        if chltype == "SVRCONN" and self.svrconn_handler is not None:
            stopped = self.statuses.get(name)
            if stopped is not None and stopped.state is ChannelState.STOPPED:
                self.log("AMQ9558E", f"Channel '{name}' is STOPPED here: the client "
                         f"from {peer_host} was refused; use START CHANNEL.")
                with trio.CancelScope(shield=True):
                    await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
                return
            if recording is not None and await self._handed_off(recording, peer_host):
                admitted()  # the queue manager's client host serves it now
                return
        if recording is not None:
            # kept here: read again from what was read, on the plain socket's path
            conv = self.inbound_conversation(tlsstream.Prefixed(stream.stream, recording.read),
                                      admitted)
            first = await self._first_flow(conv, stream, peer_host)
            if first is None:
                return
        if chltype == "SVRCONN" and self.svrconn_handler is not None:
            await self.svrconn_handler(self, conv, first, definition)  # admitted at MQCONN
            return
        mca_user = await self._admitted(name, definition, first, peer_host, conv)
        if mca_user is None:
            return
        conv.authenticated()
        from_requester = bool(first.cap_flags1 & CapFlags1.REQUEST_INITIATION) and \
            not first.cap_flags1 & CapFlags1.MQREQUEST
        if chltype == "SVR" and from_requester:
            await self._serve_requester(name, definition, conv, first)
            return
        if chltype == "SDR" and from_requester:
            # a requester calling a sender: the sender ends the call and calls back
            # on its own CONNAME (seed 000 9.26)
            with trio.CancelScope(shield=True):
                await stream.aclose()
            err = self.start_channel(name, definition)
            self.log("AMQ9002I" if err is None else "AMQ9999E",
                     err or f"Channel '{name}' is calling back its requester.")
            return
        await self._receive(stream, conv, first, chltype, mca_user)

    async def _first_flow(self, conv: Conversation, stream: trio.abc.Stream,
                          peer_host: str) -> Event | None:
        """The connection's first flow; None when none came (logged, closed)."""
        try:
            return await conv.recv(CONFIRM_TIMEOUT)
        except ChannelEnded as e:
            self.log(e.msgid, f"Inbound connection from {peer_host}: {e.text}")
            with trio.CancelScope(shield=True):
                await stream.aclose()
            return None

    def _chad_enabled(self) -> bool:
        """QMGR CHAD(ENABLED), and an admin that can define channels: an unknown channel
        may be auto-defined (blocking: asks the queue manager)."""
        return hasattr(self.admin, "define_channel") and \
            str(self._qmgr_attr("CHAD")) == "ENABLED"

    def inbound_conversation(self, stream: trio.abc.Stream,
                             admitted: Callable[[], None] | None = None) -> Conversation:
        """An inbound connection's conversation, with the limits of a partner not yet
        admitted (MaxUnauthBytes); ``admitted()`` once it is (``Conversation.authenticated``).
        The queue manager's client host (FASTPATH) reads a handed-off socket with one."""
        conv = Conversation.inbound(stream, ChannelStatus("", ""),
                                    self.peer_limits.max_unauth_bytes)
        conv.on_authenticated = admitted
        return conv

    async def _receive(self, stream: trio.abc.Stream, conv: Conversation,
                       first: InitialData, chltype: str, mca_user: str) -> None:
        """A receiving MCA for an admitted message channel, to its end."""
        name = first.channel_name.strip()
        partner = first.qmgr_name.strip()
        key = (name, partner)
        peer = peer_address(stream)
        stopped = self.statuses.get(name)
        if stopped is not None and stopped.state is ChannelState.STOPPED \
                and name not in self.running:
            await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
            self.log("AMQ9558E", f"Channel '{name}' is STOPPED here: the start from {peer} was "
                     f"refused; use START CHANNEL.")
            return
        if key not in self.receivers and self._instances() >= self.max_active:
            await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
            self.log("AMQ9513E", f"Channel '{name}' from {peer} refused: MaxActiveChannels "
                     f"({self.max_active}) reached.")
            return
        if key in self.receivers:
            if not await self._adopt(key, peer):
                await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
                self.log("AMQ9514E", f"Channel '{name}' is in use: a second instance from "
                         f"{peer} was refused (adopt MCA not enabled or its checks failed).")
                return
        mca = ReceiverMCA(stream, self.qmgr_name, self._receiver_connect(chltype),
                          self.admin.channel,
                          self._register, conversation=conv, first=first,
                          autodefine=self._autodefine, mca_user=mca_user, log=self.log)
        scope = trio.CancelScope()
        if name:
            self.receivers[key] = (scope, peer)
        try:
            with scope:
                await mca.run()
        except ChannelEnded as e:  # (a channel never known by name: the text says it)
            self.log(e.msgid, f"Channel '{mca.name}': {e.text}" if mca.name else e.text)
        else:
            if mca.name and not scope.cancelled_caught:
                self.log("AMQ9002I", f"Channel '{mca.name}' is ended.")
        finally:
            adopted = scope in self._adopted
            self._adopted.discard(scope)
            if scope.cancelled_caught and mca.status.state is not ChannelState.INACTIVE:
                # ended from this side: adopted by a new start, or stopped (STOP CHANNEL,
                # REFRESH SECURITY, a withdrawn cluster receiver)
                mca.status.move(ChannelEvent.ADOPTED if adopted
                                else ChannelEvent.STOPPED_INACTIVE)
            if self.receivers.get(key, (None,))[0] is scope:
                del self.receivers[key]

    async def _handed_off(self, recording: _Recording, peer_host: str) -> bool:
        """FASTPATH: give a plain SVRCONN's socket, with what was read from it, to the queue
        manager's client host and close ours; False (logged) if it did not take it: the
        connection is then served here, as with STANDARD."""
        prefixed = recording.stream
        assert self.fastpath is not None
        try:
            await handoff.hand_off(self.fastpath, prefixed.stream.socket, recording.read,
                                   peer_host)
        except handoff.HandOffFailed as exc:
            self.log("AMQ9999E", f"A client connection from {peer_host} is served by the "
                     f"channel initiator: the queue manager did not take it ({exc}).")
            return False
        with trio.CancelScope(shield=True):
            await prefixed.stream.aclose()
        return True

    def _key_repository(self) -> str:
        """QMGR SSLKEYR: the directory of the queue manager's PEM files (``tls``)."""
        return str(self._qmgr_attr("SSLKEYR") or "").strip()

    async def _admitted(self, name: str, definition: dict[str, object], first: InitialData,
                        address: str, conv: Conversation) -> str | None:
        """CHLAUTH for a receiving message channel (RCVR, RQSTR, SVR, CLUSRCVR) once its
        INITIAL_DATA named it and its partner: the user it runs as (its puts' authority,
        PUTAUT), or None when refused: the partner gets STATUS SECURITY_FAILURE and the log
        AMQ9776E / AMQ9777E."""
        d = await self.access.decide({
            "channel": name, "address": address, "remote_qmgr": first.qmgr_name.strip(),
            "mcauser": D.str_attr(definition, "MCAUSER"), **tlsstream.tls_identity(conv.stream)})
        if d["allowed"]:
            if d.get("warning"):
                self.log(str(d["msgid"]), f"{d['text']} (WARN(YES): allowed)")
            return str(d.get("user") or "")
        self.log(str(d["msgid"]), str(d["text"]))
        with trio.CancelScope(shield=True):
            await conv.close(StatusCode.SECURITY_FAILURE)
        return None

    async def _adopt(self, key: tuple[str, str], peer: str) -> bool:
        """Adopt MCA (seed 003 §2.11): with ADOPTMCA(ALL), a new start of a receiving channel
        that is still running from the same partner ends the old instance, if the ADOPTCHK
        checks pass. An instance is known by channel and partner queue manager, so the QMNAME
        check always holds here; a start from another queue manager is an instance of its own
        (a generic receiver), never an adoption."""
        name = key[0]
        adoptmca = str(await trio.to_thread.run_sync(self._qmgr_attr, "ADOPTMCA") or "NO")
        if adoptmca.upper() not in ("ALL", "YES", "RCVR"):
            return False
        check = str(await trio.to_thread.run_sync(self._qmgr_attr, "ADOPTCHK") or "ALL").upper()
        running = self.receivers.get(key)
        if running is None:
            return True  # the old instance ended meanwhile: nothing is left to adopt
        scope, old_peer = running
        if check in ("NETADDR", "ALL") and old_peer.split(":")[0] != peer.split(":")[0]:
            return False
        self._adopted.add(scope)
        scope.cancel()
        self.log("AMQ9532I", f"Channel '{name}': the running instance was ended and replaced "
                 f"(adopted) by a new start from {peer}.")
        with trio.move_on_after(float(self._adopt_timeout)):
            while self.receivers.get(key, (None,))[0] is scope:
                await trio.sleep(0.01)
        return True

    def _instances(self) -> int:
        return len(self.running) + len(self.receivers)

    def _active(self) -> int:
        """Channel instances past STARTING (the one asking included)."""
        waiting = sum(1 for n in self.running
                      if (st := self.statuses.get(n)) is not None
                      and st.state is ChannelState.STARTING)
        return self._instances() - waiting + 1

    def _qmgr_attr(self, key: str) -> object:
        return self.admin.qmgr_attribute(key) if hasattr(self.admin, "qmgr_attribute") else None

    def _autodefine(self, name: str, first: InitialData) -> dict[str, object] | None:
        """CHAD: a receiver for an unknown channel, from SYSTEM.AUTO.RECEIVER (seed 000 9.25)."""
        if not hasattr(self.admin, "define_channel"):
            return None
        if str(self.admin.qmgr_attribute("CHAD")) != "ENABLED":
            return None
        if not D.valid_channel_name(name):
            return None
        stamp = time.strftime("%Y-%m-%d %H.%M.%S")
        descr = f"Auto-defined by {first.qmgr_name.strip()}"[:44].ljust(44) + stamp.rjust(20)
        self.admin.define_channel(name, "SYSTEM.AUTO.RECEIVER",
                                  {"CHLTYPE": "RCVR", "DESCR": descr,
                                   "SEQWRAP": first.seq_wrap_value})
        self.log("AMQ9002I", f"Channel '{name}' auto-defined from SYSTEM.AUTO.RECEIVER.")
        return self.admin.channel(name)

    async def _serve_requester(self, name: str, definition: dict[str, object],
                               conv: Conversation, first: InitialData) -> None:
        """A server (SVR) started by its requester's call: it sends on the same connection."""
        if name in self.running:
            await conv.close(StatusCode.CHANNEL_UNAVAILABLE)
            self.log("AMQ9514E", f"Channel '{name}' is in use: the requester's start fails.")
            return
        status = self.statuses[name] = ChannelStatus(name, "SVR")
        status.move(ChannelEvent.START)
        status.move(ChannelEvent.BIND)
        mca = SenderMCA(name, definition, self.qmgr_name, self.connect_qm, status,
                        conversation=conv, first=first, key_repository=self._key_repository,
                        pipeline=self.pipeline)
        self.senders[name] = mca
        scope = trio.CancelScope()
        self.running[name] = scope
        try:
            with scope:
                await self._supervised(name, mca)
                status.move(ChannelEvent.ENDED)
        except ChannelEnded as e:
            self.log(e.msgid, f"Channel '{name}': {e.text}")
            status.move(ChannelEvent.ENDED)  # a server its requester called does not retry
        finally:
            self.running.pop(name, None)
            self.senders.pop(name, None)
            if scope.cancelled_caught:
                self._forced_end(name, status)
            elif status.stop_requested == "STOPPED":  # quiesced: stopped once it has ended
                status.move(ChannelEvent.STOP)
            if status.state is ChannelState.STOPPED:
                self.nursery.start_soon(self._remember, name, "STOPPED")

    async def _run_requester(self, name: str, definition: dict[str, object],
                             status: ChannelStatus, scope: trio.CancelScope) -> None:
        """A requester (RQSTR): calls its server, then receives what it sends."""
        mca = ReceiverMCA(None, self.qmgr_name, self.connect_qm, self.admin.channel,
                          call_out=(name, definition), log=self.log,
                          key_repository=self._key_repository)
        mca.status = status
        try:
            with scope:
                status.move(ChannelEvent.BIND)
                await self._supervised(name, mca)
        except ChannelEnded as e:
            self.log(e.msgid, f"Channel '{name}': {e.text}")
            if not e.retry:
                status.move(ChannelEvent.STOP)
            elif status.state is not ChannelState.INACTIVE:  # (the MCA ended it already)
                status.move(ChannelEvent.ENDED)
        finally:
            self.running.pop(name, None)
            if scope.cancelled_caught:  # STOP CHANNEL MODE(FORCE|TERMINATE), as a sender's
                self._forced_end(name, status)

    def _register(self, name: str, partner: str, status: ChannelStatus) -> None:
        """A receiving MCA's status: a RCVR or CLUSRCVR instance per partner, a RQSTR by its
        name."""
        self.statuses[(name, partner) if status.chltype in ("RCVR", "CLUSRCVR")
                      else name] = status
        self.log("AMQ9002I", f"Channel '{name}' is starting.")

    # ------------------------------------------------------------------ commands

    def status_list(self, pattern: str) -> list[dict[str, object]]:
        """DISPLAY CHSTATUS: the statuses of the channels ``pattern`` names, MQSC's way."""
        return [s.as_mqsc() for s in self.statuses.values()
                if _generic_match(pattern, s.channel)]

    async def _ask_client_host(self, request: dict[str, Any]) -> dict[str, Any]:
        """FASTPATH: a STATUS or STOP for the SVRCONN instances the queue manager's client
        host serves; its reply ({} with STANDARD, or when it cannot be asked: logged)."""
        if self.fastpath is None:
            return {}
        try:
            return await handoff.ask(self.fastpath, request)
        except handoff.HandOffFailed as exc:
            self.log("AMQ9999E", f"Channel command {request.get('command')} for "
                     f"'{request.get('channel', '')}' did not reach the queue manager's "
                     f"client connections: {exc}.")
            return {}

    def status_of(self, name: str, partner: str | None = None) -> ChannelStatus | None:
        """The status of channel ``name``: of its instance from ``partner`` when given, else
        its own (a sending channel, or a STOPPED mark), else its most active instance."""
        if partner is not None:
            return self.statuses.get((name, partner))
        if name in self.statuses:
            return self.statuses[name]
        instances = [st for key, st in self.statuses.items()
                     if isinstance(key, tuple) and key[0] == name]
        instances.sort(key=lambda st: st.state is ChannelState.INACTIVE)
        return instances[0] if instances else None

    def start_channel(self, name: str, definition: dict[str, object] | None = None
                      ) -> str | None:
        """START CHANNEL: None if started (or already running), else the error message.

        ``definition`` comes with the request when the caller has it (the command server
        does): asking the command server for it while it waits for us would deadlock."""
        if definition is None:
            definition = self.admin.channel(name)
        if definition is None and self.cluster is not None:
            definition = self.cluster.definition(name)  # an auto-defined cluster sender
        if definition is None:
            return f"AMQ8147E: IBM MQ object {name} not found."
        chltype = D.str_attr(definition, "CHLTYPE")
        if chltype in ("RCVR", "SVRCONN"):
            # START CHANNEL on a receiver (or a server-connection channel) makes a STOPPED
            # one available to its partners (its clients) again
            status = self.statuses.get(name)
            if status is not None and status.state is ChannelState.STOPPED:
                status.move(ChannelEvent.ENABLED)
                if self.nursery is not None:
                    self.nursery.start_soon(self._remember, name, None)
            return None
        if chltype not in D.SENDING_TYPES and chltype != "RQSTR":
            return f"AMQ9502E: Type of channel not suitable for action requested ({chltype})."
        if not D.str_attr(definition, "CONNAME"):
            return f"AMQ9526E: Channel {name} has no CONNAME: it can only be started by its " \
                   f"partner."
        if name in self.running:
            return None
        if self._instances() >= self.max_channels:
            return f"AMQ9513E: Maximum number of channels reached ({self.max_channels})."
        assert self.nursery is not None
        status = self.statuses.get(name)
        if status is not None and status.state is ChannelState.STOPPED:
            # START CHANNEL re-enables what an error stop disabled (seed 000 9.38)
            self._enable_xmitq(definition, True)
            self._disabled_by_channel.pop(name, None)
            self.nursery.start_soon(self._remember, name, None)
        if status is None or status.state in (ChannelState.INACTIVE, ChannelState.STOPPED):
            status = self.statuses[name] = ChannelStatus(name, chltype)
        scope = trio.CancelScope()
        self.running[name] = scope
        if chltype == "RQSTR":
            status.move(ChannelEvent.START)
            self.nursery.start_soon(self._run_requester, name, definition, status, scope)
        else:
            self.nursery.start_soon(self._run_sender, name, definition, status, scope)
        return None

    def stop_channel(self, name: str, mode: str = "QUIESCE", status: str = "STOPPED",
                     qmname: str = "", conname: str = "", chltype: str = "") -> str | None:
        """STOP CHANNEL MODE(QUIESCE|FORCE|TERMINATE) STATUS(STOPPED|INACTIVE) [QMNAME()]
        [CONNAME()]: QMNAME and CONNAME pick instances of a receiver (seed 000 §2), CONNAME
        those of a SVRCONN (``svrconn.stop_instances``; FASTPATH: the client host's too,
        :meth:`_command`)."""
        if chltype == "SVRCONN":
            from mqpy_chinit import svrconn

            svrconn.stop_instances(self, name, mode, conname)
            if conname:
                return None
        instances = [(key, scope) for key, (scope, peer) in self.receivers.items()
                     if key[0] == name and qmname in ("", key[1])
                     and conname in ("", peer.rsplit(":", 1)[0])]
        if instances or qmname or conname:
            if not instances:
                return f"AMQ9533E: Channel '{name}' is not currently active."
            for key, scope in instances:
                st = self.statuses.get(key)
                if st is not None:
                    st.stop_requested = status
                scope.cancel()
            if qmname or conname or status != "STOPPED":
                return None  # the instances end; the channel itself is not marked STOPPED
        st = self.statuses.get(name)
        if st is None or st.state in (ChannelState.INACTIVE, ChannelState.STOPPED):
            if status == "STOPPED":
                st = self.statuses.setdefault(name, ChannelStatus(name, chltype or "SDR"))
                if st.state is not ChannelState.STOPPED:
                    st.move(ChannelEvent.STOP)
                if self.nursery is not None:
                    self.nursery.start_soon(self._remember, name, "STOPPED")
            return None
        st.stop_requested = status
        sender = self.senders.get(name)
        if mode == "QUIESCE" and sender is not None:
            sender.stop_requested.set()
        else:
            scope = self.running.get(name)
            if scope is not None:
                scope.cancel()
        return None

    def _enable_xmitq(self, definition: dict[str, object], enable: bool) -> None:
        """An error stop sets the xmitq GET(DISABLED) and its triggering off; START CHANNEL
        puts both back (seed 000 §8)."""
        xmitq = D.str_attr(definition, "XMITQ")
        if not xmitq:
            return
        try:
            if enable:
                if xmitq in self._disabled:
                    self.admin.alter_queue(xmitq, {"GET": "ENABLED",
                                                   "TRIGGER": self._disabled.pop(xmitq)})
            else:
                trigger = self.admin.queue_attribute(xmitq, "TRIGGER")
                self._disabled.setdefault(xmitq, str(trigger or "NO"))
                self.admin.alter_queue(xmitq, {"GET": "DISABLED", "TRIGGER": "NO"})
        except mqpy.MQMIError as e:
            self.log("AMQ9999E", f"Cannot change transmission queue {xmitq}: reason {e.reason}.")

    # ------------------------------------------------------------------ sending channels

    async def _run_sender(self, name: str, definition: dict[str, object],
                          status: ChannelStatus, scope: trio.CancelScope) -> None:
        short_left = D.int_attr(definition, "SHORTRTY")
        long_left = D.int_attr(definition, "LONGRTY")
        status.short_retries_left, status.long_retries_left = short_left, long_left
        try:
            with scope:
                if status.state is not ChannelState.STARTING:
                    status.move(ChannelEvent.START)
                if self._active() > self.max_active:
                    # MaxActiveChannels: wait in STARTING for a free slot (seed 000 9.41)
                    self.log("AMQ9514W", f"Channel '{name}' waits for an active-channel slot "
                             f"(MaxActiveChannels={self.max_active}).")
                    while self._active() > self.max_active:
                        await trio.sleep(0.1)
                    self.log("AMQ9515I", f"Channel '{name}' got an active-channel slot.")
                while True:
                    status.move(ChannelEvent.BIND)
                    mca = SenderMCA(name, definition, self.qmgr_name, self.connect_qm, status,
                                    key_repository=self._key_repository,
                                    pipeline=self.pipeline)
                    self.senders[name] = mca
                    try:
                        self.log("AMQ9002I", f"Channel '{name}' is starting.")
                        await self._supervised(name, mca)
                    except ChannelEnded as e:
                        self.log(e.msgid, f"Channel '{name}': {e.text}")
                        if not e.retry or status.stop_requested:
                            self._stopped(name, definition, status, error=e.retry is False)
                            return
                        if short_left > 0:
                            short_left -= 1
                            wait = D.int_attr(definition, "SHORTTMR")
                        elif long_left > 0:
                            long_left -= 1
                            wait = D.int_attr(definition, "LONGTMR")
                        else:
                            self.log("AMQ9553E", f"Channel '{name}' retries exhausted.")
                            self._stopped(name, definition, status, error=True)
                            return
                        status.short_retries_left, status.long_retries_left = (short_left,
                                                                               long_left)
                        status.move(ChannelEvent.RETRY)
                        if status.history.count(ChannelState.RETRYING) == 1:
                            await self._remember(name, "RETRYING")
                        self.log("AMQ9209W", f"Channel '{name}' is retrying in {wait} s.")
                        await trio.sleep(wait)
                        continue
                    # a normal end: disconnect interval or STOP CHANNEL MODE(QUIESCE). The
                    # state is remembered first and shown last: from the moment the status
                    # says STOPPED or INACTIVE, this instance is gone (no await before the
                    # finally), so a START CHANNEL or trigger that follows is never ignored
                    # as "already running"
                    if status.stop_requested == "STOPPED":
                        status.move(ChannelEvent.STOP_REQUESTED)
                        await self._remember(name, "STOPPED")
                        status.move(ChannelEvent.STOP)
                    else:
                        if ChannelState.RETRYING in status.history:
                            await self._remember(name, None)
                        status.move(ChannelEvent.ENDED)
                    self.log("AMQ9001I", f"Channel '{name}' ended normally.")
                    return
        finally:
            self.running.pop(name, None)
            self.senders.pop(name, None)
            if scope.cancelled_caught:
                self._forced_end(name, status)

    async def _supervised(self, name: str, mca: SenderMCA | ReceiverMCA) -> None:
        """One run of an MCA the channel initiator starts itself: a sending one (SDR, SVR,
        CLUSSDR, a SVR its requester called) or a requester (RQSTR). Anything that is not a
        channel error (a bug, an exception nobody expected) ends this channel only, as IBM's
        AMQ9999E "channel program ended abnormally" does: logged, an FDC written, and the
        channel retries (or stops when its retries are spent) like after any other error.
        It never reaches the channel initiator's nursery, so the other channels go on."""
        try:
            await mca.run()
        except ChannelEnded:
            raise
        except Exception as exc:  # noqa: BLE001 - supervised: this channel only
            first = _first_leaf(exc)
            if isinstance(first, ChannelEnded):
                raise first from exc
            fdc = self._record_failure("RM000002", exc, "rmmChannelProgram")
            raise ChannelEnded("AMQ9999E", f"Channel program ended abnormally: "
                               f"{type(first).__name__}: {first}"
                               + (f" (FDC {fdc})" if fdc else "")) from exc

    def _forced_end(self, name: str, status: ChannelStatus) -> None:
        """A channel this initiator runs, ended by cancelling it (STOP CHANNEL MODE(FORCE),
        REFRESH SECURITY): STOPPED, or INACTIVE when the stop asked for STATUS(INACTIVE)."""
        if status.state not in (ChannelState.INACTIVE, ChannelState.STOPPED):
            status.move(ChannelEvent.STOPPED_INACTIVE if status.stop_requested == "INACTIVE"
                        else ChannelEvent.STOP)
        self.log("AMQ9534I", f"Channel '{name}' is stopped (forced).")

    def _stopped(self, name: str, definition: dict[str, object], status: ChannelStatus,
                 *, error: bool) -> None:
        if status.state is not ChannelState.STOPPED:
            status.move(ChannelEvent.STOP)
        assert self.nursery is not None
        if error:
            self._enable_xmitq(definition, False)
            xmitq = D.str_attr(definition, "XMITQ")
            if xmitq in self._disabled:
                self._disabled_by_channel[name] = (xmitq, self._disabled[xmitq])
        self.nursery.start_soon(self._remember, name, "STOPPED")

    # ------------------------------------------------------------------ remembered states

    async def _remember(self, name: str, state: str | None) -> None:
        """STOPPED and RETRYING survive a restart of either process (seed 000 9.40); so does
        the transmission queue an error stop disabled, with the TRIGGER it had, for the
        START CHANNEL that puts both back."""
        disabled = self._disabled_by_channel.get(name) if state == "STOPPED" else None
        try:
            qm = await mqi(self.connect_qm)
            try:
                await mqi(syncrecord.write_state, qm, name, state, disabled)
            finally:
                await mqi(qm.disconnect)
        except mqpy.MQMIError as e:
            self.log("AMQ9999E", f"Channel '{name}' state not saved: reason {e.reason}.")

    async def _restore_states(self) -> None:
        """At start: a STOPPED channel stays STOPPED (START CHANNEL needed); a RETRYING one is
        started again with its retry counts reset."""
        try:
            qm = await mqi(self.connect_qm)
            try:
                states = await mqi(syncrecord.read_states, qm)
                disabled = await mqi(syncrecord.read_disabled_xmitqs, qm)
            finally:
                await mqi(qm.disconnect)
        except mqpy.MQMIError:
            return
        for channel, (xmitq, trigger) in disabled.items():
            self._disabled.setdefault(xmitq, trigger)
            self._disabled_by_channel[channel] = (xmitq, trigger)
        for name, state in states.items():
            definition = await trio.to_thread.run_sync(self.admin.channel, name)
            if definition is None:
                continue
            st = self.statuses[name] = ChannelStatus(name, D.str_attr(definition, "CHLTYPE"))
            if state == "STOPPED":
                st.move(ChannelEvent.RESTORED_STOPPED)
            elif state == "RETRYING":
                err = self.start_channel(name, definition)
                if err:
                    self.log("AMQ9999E", err)

    # ------------------------------------------------------------------ statistics

    async def _channel_statistics(self) -> None:
        """MQCMD_STATISTICS_CHANNEL messages every STATINT while STATCHL is not OFF."""
        if not hasattr(self.admin, "qmgr_attribute"):
            return
        from mqpy.stats.collector import STATISTICS_QUEUE, put_pcf
        from mqpy.stats.records import ChannelStatsTracker

        tracker = ChannelStatsTracker()
        tracker.messages(self.qmgr_name, list(self.statuses.values()))  # the baseline
        while True:
            try:
                interval = float(await trio.to_thread.run_sync(
                    self.admin.qmgr_attribute, "STATINT") or 1800)
            except (TypeError, ValueError):
                interval = 1800.0
            await trio.sleep(max(1.0, interval))
            statchl = str(await trio.to_thread.run_sync(self.admin.qmgr_attribute, "STATCHL"))
            wanted = []
            for st in list(self.statuses.values()):
                d = await trio.to_thread.run_sync(self.admin.channel, st.channel) or {}
                own = str(d.get("STATCHL", "QMGR") or "QMGR")
                level = statchl if own == "QMGR" else own  # the channel's own STATCHL wins
                if level not in ("OFF", "None", ""):
                    wanted.append(st)
            msgs = tracker.messages(self.qmgr_name, wanted)
            if not msgs:
                continue
            try:
                qm = await mqi(self.connect_qm)
                for msg in msgs:
                    await mqi(put_pcf, qm, STATISTICS_QUEUE, msg)
                await mqi(qm.disconnect)
            except mqpy.MQMIError as e:
                if e.reason in _QMGR_GONE:
                    raise
                self.log("AMQ9999E", f"Channel statistics not written: reason {e.reason}.")

    # ------------------------------------------------------------------ SYSTEM.CHANNEL.INITQ

    async def _serve_initq(self) -> None:
        qm = await mqi(self.connect_qm)
        q = await mqi(mqpy.Queue, qm, self.initq, CMQC.MQOO_INPUT_SHARED)
        try:
            while True:
                md = mqpy.MD()
                gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
                               | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=500)
                try:
                    data = await mqi(q.get, None, md, gmo)
                except mqpy.MQMIError as e:
                    if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                        continue
                    raise  # the queue manager going ends the channel initiator
                await self._initq_message(qm, md, data)
        finally:
            with trio.CancelScope(shield=True):
                await mqi(_close_quietly, qm, q)

    async def _initq_message(self, qm: mqpy.QueueManager, md: mqpy.MD, data: bytes) -> None:
        if md.Format == CMQC.MQFMT_TRIGGER:
            tm = mqpy.TM().unpack(data)
            name = tm.TriggerData.rstrip(b" \x00").decode("latin-1")
            xmitq = tm.QName.rstrip(b" \x00").decode("latin-1")
            if not name:
                # blank TriggerData: the first channel whose XMITQ is this queue (spec 9.49)
                for cname, d in sorted((await trio.to_thread.run_sync(
                    self.admin.channels)).items()):
                    if D.str_attr(d, "XMITQ") == xmitq and D.str_attr(d, "CHLTYPE") in \
                            D.SENDING_TYPES:
                        name = cname
                        break
            st = self.statuses.get(name) if name else None
            if st is not None and st.state is ChannelState.STOPPED:
                self.log("AMQ9531I", f"Channel '{name}' is STOPPED: a trigger does not start "
                         f"it; use START CHANNEL.")
                return
            if name:
                definition = await trio.to_thread.run_sync(self.admin.channel, name)
                err = self.start_channel(name, definition) if definition else \
                    f"AMQ9519E: Channel '{name}' named by a trigger message not found."
                if err:
                    self.log("AMQ9999E", err)
            return
        if md.Format == COMMAND_FORMAT:
            await self._command(qm, md, data)

    async def _command(self, qm: mqpy.QueueManager, md: mqpy.MD, data: bytes) -> None:
        try:
            req = json.loads(data)
            verb, name = req["command"], req.get("channel", "")
            if req.get("auto") and (self.cluster is None or
                                    self.cluster.definition(name) is None):
                # not a queue-manager object: an auto-defined cluster sender, or nothing
                reply: dict[str, Any] = {"ok": False,
                                         "message": f"AMQ8227E: Channel {name} not found."}
            elif verb == "START":
                err = self.start_channel(name, req.get("definition"))
                reply = {"ok": err is None, "message": err or ""}
            elif verb == "STOP":
                err = self.stop_channel(name, req.get("mode", "QUIESCE"),
                                        req.get("status", "STOPPED"), req.get("qmname", ""),
                                        req.get("conname", ""), req.get("chltype", ""))
                if err is None and req.get("chltype") == "SVRCONN":
                    await self._ask_client_host(req)
                reply = {"ok": err is None, "message": err or ""}
            elif verb == "PING":
                definition = req.get("definition") or await trio.to_thread.run_sync(
                    self.admin.channel, name)
                try:
                    mca = SenderMCA(name, definition, self.qmgr_name, self.connect_qm,
                                    ChannelStatus(name, "SDR"),
                                    key_repository=self._key_repository)
                    try:
                        await mca.ping()
                    except ValueError as exc:  # its CONNAME: blank, or not host(port)
                        raise ChannelEnded("AMQ9203E", f"A configuration error for TCP/IP "
                                           f"occurred: {exc}.", False) from None
                    reply = {"ok": True, "message": ""}
                except ChannelEnded as exc:
                    # as for a channel run: the operator finds why in the error log too
                    self.log(exc.msgid, f"PING CHANNEL({name}): {exc.text}")
                    reply = {"ok": False, "message": str(exc)}
            elif verb == "REFRESH_SSL":  # REFRESH SECURITY TYPE(SSL)
                reply = await sslrefresh.refresh_ssl(self)
            elif verb == "START_LISTENER":
                err = await self.start_listener(name, req.get("definition"))
                reply = {"ok": err is None, "message": err or ""}
            elif verb == "STOP_LISTENER":
                err = self.stop_listener(name)
                reply = {"ok": err is None, "message": err or ""}
            elif verb == "LSSTATUS":
                reply = {"ok": True, "status": [
                    {"LISTENER": n, "STATUS": "RUNNING", "PORT": p, "TRPTYPE": "TCP"}
                    for n, p in self.listener_ports.items()
                    if _generic_match(req.get("channel", "*"), n)]}
            elif verb.startswith("CLUSTER_"):
                if self.cluster is None:
                    reply = {"ok": False, "reason": CMQC.MQRC_CLUSTER_RESOLUTION_ERROR,
                             "message": "AMQ9456E: The repository manager is not running."}
                else:
                    reply = await self.cluster.command(req)
            elif verb == "STATUS":
                hosted = await self._ask_client_host(req)
                reply = {"ok": True, "status": self.status_list(req.get("channel", "*"))
                         + list(hosted.get("status") or [])}
            else:
                reply = {"ok": False, "message": f"AMQ8405E: unknown channel command {verb}"}
        except (ValueError, KeyError) as exc:
            reply = {"ok": False, "message": f"AMQ8405E: bad channel command: {exc}"}
        if md.ReplyToQ.strip(b" \x00"):
            rmd = mqpy.MD(CorrelId=md.MsgId, MsgType=CMQC.MQMT_REPLY, Format=COMMAND_FORMAT)
            od = mqpy.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
            try:
                await mqi(qm.put1, od, json.dumps(reply).encode(), rmd)
            except mqpy.MQMIError as e:
                if e.reason in _QMGR_GONE:
                    raise
                self.log("AMQ9999E", f"Reply to a channel command failed: reason {e.reason}.")


class _Recording(tlsstream.Forwarding):
    """A plain stream whose bytes received are kept (``read``): under a listener's first
    read of a connection that may be handed to the client host (FASTPATH)."""

    stream: tlsstream.Prefixed

    def __init__(self, stream: tlsstream.Prefixed) -> None:
        super().__init__(stream)
        self.read = b""

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = await self.stream.receive_some(max_bytes)
        self.read += data
        return data


def _generic_match(pattern: str, name: str) -> bool:
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return pattern == name


def _close_quietly(qm: mqpy.QueueManager, q: mqpy.Queue) -> None:
    try:
        q.close()
        qm.disconnect()
    except (mqpy.MQMIError, mqpy.PYIFError):
        pass
