"""The channel initiator (IBM's runmqchi): the process that runs a queue manager's channels.

It is an ordinary MQI application of its queue manager ("distributed queuing is not part of
the queue manager", seed 004): it reads channel definitions through an *admin* object and
runs, as tasks of one nursery, its listeners, the initiation queue, channel statistics and the
repository manager. Its queue manager going ends it (AMQ9542I). Channel statuses live in
memory here; DISPLAY CHSTATUS reads them through :meth:`ChannelInitiator.status_of`.

:class:`ChannelInitiator` holds the state; each MQ concept it serves is a module of its own:

- ``listener``: TCP listeners and inbound connections until their channel is named;
- ``responder``: message channels their partner started (CHLAUTH, CHAD, adopt MCA);
- ``caller``: channels it starts itself (senders with their retries, requesters);
- ``startstop``: START CHANNEL and STOP CHANNEL;
- ``statestore``: the STOPPED and RETRYING states that survive a restart;
- ``channelstatistics``: STATCHL statistics messages;
- ``initq``: SYSTEM.CHANNEL.INITQ, trigger messages and channel commands (PING included);
- ``cluster.supervisor``: the repository manager, restarted when it fails;
- ``svrconn``: server-connection channels (``svrconn_handler``).

A controlled end of its queue manager (endmqm -c, -w: its initiation-queue get, or another
long-running task's call, fails MQRC_Q_MGR_QUIESCING) stands for STOP CHANNEL MODE(QUIESCE)
on its client channels, as IBM's: the initiation queue, statistics, the repository manager
and the message channels its partners started end, those it started end as STOP CHINIT
ends them (senders and servers at the end of their batch, requesters at once), it makes no
MQCONN of its own any more, a new client's MQCONN is refused MQRC_Q_MGR_QUIESCING and a new
message channel at once (``listener``), and the SVRCONN instances serving client
applications go on until each has ended (its client disconnected, or the queue manager's
final end ended it: ``svrconn.watch_qmgr_end``). The queue manager's controlled end waits
for those clients, whose MQI connections are this process's; then runmqchi lets go of its
own connection and goes on refusing new connections until the queue manager has ended
(:meth:`ChannelInitiator.qmgr_quiescing`).
"""

from __future__ import annotations

import collections
import functools
import importlib
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import trio

from mqpy import CMQC, config, events
from mqpy.admission import Admissions, LogLimiter
from mqpy.channelcommands import INITQ
from mqpy.engine.cluster import CLUSTER_RECEIVER_APPL
from mqpy.errors import MQMIError
from mqpy.fap.initialdata import InitialData
from mqpy.localqmgrs import is_locked
from mqpy.trace import TRACER
from mqpy_chinit import handoff, svrconn
from mqpy_chinit.access import ChannelAccess, blocked_event
from mqpy_chinit.caller import CallingChannels, RetryWait
from mqpy_chinit.channelstatistics import ChannelStatistics
from mqpy_chinit.initq import InitiationQueue
from mqpy_chinit.listener import Listener
from mqpy_chinit.mca import QmFactory
from mqpy_chinit.responder import Responder
from mqpy_chinit.sender_mca import SenderMCA
from mqpy_chinit.startstop import ChannelControl
from mqpy_chinit.states import (
    ChannelState,
    ChannelStatus,
    add_slot_observer,
    add_state_observer,
)
from mqpy_chinit.statestore import RememberedStates
from mqpy_chinit.supervision import mq_reasons, split_qmgr_gone


class Admin(Protocol):
    """What the channel initiator needs to know and change in its queue manager."""

    def channel(self, name: str) -> dict[str, object] | None: ...

    def channels(self) -> dict[str, dict[str, object]]: ...

    def alter_queue(self, name: str, attributes: dict[str, object]) -> None: ...

    def queue_attribute(self, name: str, key: str) -> object: ...


LogFn = Callable[[str, str], None]
#: while quiescing with clients served, how often the channel initiator looks whether its
#: queue manager's process still runs (a killed one writes no word of its end)
QMGR_WATCH_POLL = 1.0
SvrconnHandler = Callable[[Any, Any, InitialData, dict[str, object]], Awaitable[None]]


class ChannelInitiator(Listener, Responder, CallingChannels, ChannelControl, RememberedStates,
                       ChannelStatistics, InitiationQueue):
    """One queue manager's channel initiator: its state, its tasks, its channels' statuses."""

    def __init__(self, qmgr_name: str, connect_qm: QmFactory, admin: Admin, *,
                 log: LogFn | None = None, initq: str = INITQ,
                 channels: config.ChannelsConfig | None = None,
                 channels_stanza: dict[str, str] | None = None,
                 connect_for: Callable[[Any, str], Any] | None = None,
                 cluster_cache: str | None = None,
                 cluster_clock: Callable[[], float] = time.time,
                 connect_mca: Callable[[str], Any] | None = None,
                 command_key: bytes | None = None) -> None:
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
        name (default: the admin's ``connect_as``; without either, ``connect_qm``).
        ``command_key``: the queue manager's channel-command key
        (``mqpy.channelcommands.command_key``; default: the admin's)."""
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
        self.connect_qm = functools.partial(self._connect_unless_quiescing, connect_qm)
        self.admin = admin
        #: the key of the channel commands carried out (``InitiationQueue._command``)
        self.command_key = command_key
        self.initq = initq
        self.log = log or (lambda msgid, text: None)
        # PipeLineLength: batches a sending MCA may have in flight (sender_mca.SenderMCA)
        self.pipeline = limits.pipeline_length
        # channel name -> status; a receiver instance is keyed (name, partner queue manager)
        # because one generic RCVR definition serves many senders (seed 000 §2), and a
        # SVRCONN instance "name#n"
        self.statuses: dict[object, ChannelStatus] = {}
        self.senders: dict[str, SenderMCA] = {}
        #: sending channels waiting in RETRYING for their next attempt (``caller``)
        self.retrying: dict[str, RetryWait] = {}
        self.running: dict[str, trio.CancelScope] = {}
        #: START CHANNELs accepted while a STOP CHANNEL was ending the running instance: the
        #: definition to start with once it has ended (``startstop``, ``caller``)
        self.start_after_stop: dict[str, dict[str, object]] = {}
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
        #: channel -> the state to remember for it, last asked for; written one at a time
        self._wanted_states: dict[str, str | None] = {}
        self._state_writes = trio.Lock()
        # async (chinit, conversation, first InitialData, definition) serving a SVRCONN
        self.svrconn_handler: SvrconnHandler | None = None
        self.access = ChannelAccess(admin, connect_qm, connect_for, self._log)
        self.cluster_cache = cluster_cache
        self.cluster_clock = cluster_clock
        self.cluster: Any = None  # the repository manager, once running
        self._qmgr_gone = False  # its queue manager went: the channel initiator is ending
        #: its queue manager quiesces (a controlled end): only client channels are served
        self.quiescing = False
        #: the long-running tasks that hold an MQI connection (``_while_qmgr_runs``)
        self._qmgr_tasks: set[trio.CancelScope] = set()
        #: the message channels its partners started (``listener``), ended as it quiesces
        self._inbound_channels: set[trio.CancelScope] = set()
        #: SVRCONN instances being served here (``listener``), and set when that comes to
        #: none while quiescing
        self.clients_served = 0
        self.no_clients = trio.Event()
        #: channel definitions as the listeners last read them (``listener``): what a
        #: connection is served by while the queue manager quiesces
        self.definitions_seen: dict[str, dict[str, object]] = {}
        #: run (in a worker thread) once no client is served while quiescing: runmqchi lets
        #: go of its own connection, so that it goes on refusing new connections until its
        #: queue manager has ended without holding that end; None: the channel initiator
        #: ends once its clients have gone
        self.on_quiescing: Callable[[], None] | None = None
        self.connect_mca = connect_mca or getattr(admin, "connect_as", None)
        #: MQIBindType=FASTPATH: the queue manager's client host (``clienthost.py``) that
        #: plain SVRCONN sockets are handed to, and that serves them; None: STANDARD
        self.fastpath: str | None = None
        if limits.fastpath:
            qmdir = os.path.dirname(cluster_cache) if cluster_cache else \
                config.qmgr_dir(qmgr_name)
            self.fastpath = os.path.join(qmdir, handoff.SOCKET_NAME)

    def _connect_unless_quiescing(self, connect_qm: QmFactory) -> Any:
        """A further MQCONN of the channel initiator's own (a channel's, a state write's):
        refused here, MQRC_Q_MGR_QUIESCING, once its queue manager quiesces, as the queue
        manager would refuse it -- a connection it refuses is not left for the controlled
        end to wait for."""
        if svrconn.quiescing(self):
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_QUIESCING)
        return connect_qm()

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
                nursery.start_soon(self._while_qmgr_runs, self.channel_events)
                if self.cluster_cache and hasattr(self.admin, "display"):
                    nursery.start_soon(self._while_qmgr_runs, self._repository_manager)
                self.log("AMQ8024I", "IBM MQ channel initiator started.")
            task_status.started()

    async def channel_events(self) -> None:
        """Channel events (``mqpy.events.ChannelEvents``): this channel initiator's channels'
        state changes, kept by a state observer, the channels that wait for an active-channel
        slot and get one (a slot observer: Channel Not Activated, Activated), and the inbound
        channels CHLAUTH blocked (``access.on_blocked``: Channel Blocked), put on
        SYSTEM.ADMIN.CHANNEL.EVENT as the queue manager's CHLEV wants (asked of it each time,
        through its own MQI connection, made at the first event kept: asked through the
        command server's admin, the question held a controlled end), from a worker thread,
        each time some are kept; none once the queue manager quiesces (the events then are
        lost)."""
        token = trio.lowlevel.current_trio_token()
        ready = [trio.Event()]

        def wake() -> None:
            try:
                token.run_sync_soon(ready[0].set)
            except trio.RunFinishedError:
                pass

        kept = events.ChannelEvents(self.qmgr_name, on_pending=wake)

        def observe(status: ChannelStatus) -> None:
            if self.statuses.get(status.channel) is status:  # (not another's in-process)
                kept.observe(status)

        def blocked(query: dict[str, object], decision: dict[str, object]) -> None:
            msg = blocked_event(self.qmgr_name, query, decision)
            if msg is not None:
                kept.keep(msg)

        def slot(status: ChannelStatus, activated: bool) -> None:
            if self.statuses.get(status.channel) is status:
                kept.keep(events.channel_activated(
                    self.qmgr_name, status.channel, status.chltype, status.xmitq or "",
                    status.conname or "", activated=activated))

        stop = add_state_observer(observe)
        stop_slots = add_slot_observer(slot)
        self.access.on_blocked = blocked
        qm = None
        try:
            while True:
                await ready[0].wait()
                ready[0] = trio.Event()
                if svrconn.quiescing(self):  # (no question asked of a queue manager ending)
                    kept.pending.clear()
                    continue
                if qm is None:
                    qm = await trio.to_thread.run_sync(self._connect_for_events)
                await trio.to_thread.run_sync(kept.put_pending, qm)
        finally:
            stop()
            stop_slots()
            if self.access.on_blocked is blocked:
                self.access.on_blocked = None
            if qm is not None:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(_quietly_disconnect, qm)

    async def _repository_manager(self) -> None:
        """The repository manager (``cluster.supervisor``). Its modules (most of the cluster
        package) are loaded here, in a worker thread: the initiation queue is served
        meanwhile, and the queue manager's FASTPATH client host, which makes a
        ChannelInitiator too and never runs it, never loads them."""
        supervisor = await trio.to_thread.run_sync(importlib.import_module,
                                                   "mqpy_chinit.cluster.supervisor")
        await supervisor.run_repository_manager(self)

    async def _while_qmgr_runs(self, task: Callable[[], Awaitable[None]]) -> None:
        """Run one of the long-running tasks that hold an MQI connection (initiation queue,
        statistics, repository manager). Its queue manager going (an MQ reason of
        QMGR_GONE, alone or among the task's own children's errors) is the ordinary end of
        the channel initiator: logged once, and every task ends (MQRC_Q_MGR_QUIESCING: all
        but its client channels, :meth:`qmgr_quiescing`); anything else propagates."""
        scope = trio.CancelScope()
        self._qmgr_tasks.add(scope)
        try:
            with scope:
                await task()
        except BaseException as exc:
            gone, rest = split_qmgr_gone(exc)
            if gone is None:
                raise
            self.qmgr_ended(mq_reasons(gone)[0])
            if rest is not None:
                raise rest from None  # this task's own cancellation, as a rule
        finally:
            self._qmgr_tasks.discard(scope)

    def qmgr_ended(self, reason: int) -> None:
        """The queue manager went: AMQ9542I (as IBM's runmqchi logs it), once, and the
        channel initiator ends; MQRC_Q_MGR_QUIESCING, a controlled end, ends it once its
        client channels have ended (:meth:`qmgr_quiescing`)."""
        if self._qmgr_gone:
            return
        if reason == CMQC.MQRC_Q_MGR_QUIESCING and self.nursery is not None:
            self.qmgr_quiescing()
            return
        self._qmgr_gone = True
        if not self.quiescing:
            self._log_ending(reason)
        if self.nursery is not None:
            self.nursery.cancel_scope.cancel()

    def _log_ending(self, reason: int) -> None:
        self.log("AMQ9542I", f"Queue manager is ending. The channel initiator ends because "
                 f"queue manager {self.qmgr_name} is not available (reason {reason}).")

    def qmgr_quiescing(self) -> None:
        """A controlled end of the queue manager (IBM: client channels as STOP CHANNEL
        MODE(QUIESCE)): AMQ9542I, once; the initiation queue, statistics, the repository
        manager and the message channels its partners started end, and those it started
        itself (:meth:`_stop_started_channels`); the SVRCONN instances go on,
        new inbound connections are refused (``listener``), and the channel initiator ends
        once none is served (:meth:`_end_after_clients`)."""
        if self.quiescing or self.nursery is None:
            return
        self.quiescing = True
        self._log_ending(CMQC.MQRC_Q_MGR_QUIESCING)
        # ended as the channel initiator's end ends them: by a scope around each, never
        # their own (that one cancelled is a STOP CHANNEL, remembered STOPPED)
        for scope in self._qmgr_tasks:
            scope.cancel()
        self.end_message_channels()
        self.nursery.start_soon(self._end_after_clients)

    def end_message_channels(self) -> None:
        """A controlled end of the queue manager (its channel initiator's, or a runmqlsr's
        as the daemon's word says): the message channels its partners started end (a
        receiver's batch in progress backed out, resolved by its sender), and those it runs
        as :meth:`_stop_started_channels` ends them."""
        for scope in list(self._inbound_channels):
            scope.cancel()
        self._stop_started_channels()

    def _stop_started_channels(self) -> None:
        """The channels it started end as IBM's channel initiator ends them with its queue
        manager (STOP CHINIT): senders and servers as STOP CHANNEL MODE(QUIESCE)
        STATUS(INACTIVE) -- the batch in progress completed with the partner, none begun
        after it -- and the others (requesters) as MODE(FORCE), their partner's batch in
        progress backed out here and resolved by the partner at its next start; one
        RETRYING is left to the channel initiator's end (its state remembered)."""
        for name in list(self.running):
            status = self.statuses.get(name)
            if status is None or name in self.retrying:
                continue
            mode = "FORCE" if status.chltype == "RQSTR" else "QUIESCE"
            self.stop_channel(name, mode, "INACTIVE", chltype=status.chltype)

    def client_ended(self) -> None:
        """A SVRCONN instance served here has ended (``listener``)."""
        self.clients_served -= 1
        if self.clients_served <= 0:
            self.no_clients.set()
            self.no_clients = trio.Event()

    async def _end_after_clients(self) -> None:
        """While quiescing: the channel initiator ends once no SVRCONN instance is served
        here, or once its queue manager has gone (no process holds it: endmqm -p) -- an
        immediate or final end ends the instances themselves (``svrconn.watch_qmgr_end``,
        and runmqchi's signal). With ``on_quiescing`` it lets go of its own connection
        then, and its listeners go on refusing new connections, as the queue manager
        refuses new MQCONNs, until the queue manager has ended (the connection let go of
        only then: it keeps the queue manager's end behind the replies to its clients'
        last calls)."""
        qmdir = os.path.dirname(self.cluster_cache) if self.cluster_cache else ""
        while self.clients_served > 0:
            with trio.move_on_after(QMGR_WATCH_POLL):
                await self.no_clients.wait()
            if qmdir and not is_locked(qmdir):
                break
        if self.on_quiescing is not None and qmdir and is_locked(qmdir):
            await trio.to_thread.run_sync(self.on_quiescing)
            while is_locked(qmdir):
                await trio.sleep(QMGR_WATCH_POLL)
        self._qmgr_gone = True
        assert self.nursery is not None
        self.nursery.cancel_scope.cancel()

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

    def _instances(self) -> int:
        """Channel instances running: those it started, and the receiving ones."""
        return len(self.running) + len(self.receivers)

    def _active(self) -> int:
        """Channel instances past STARTING (the one asking included)."""
        waiting = sum(1 for n in self.running
                      if (st := self.statuses.get(n)) is not None
                      and st.state is ChannelState.STARTING)
        return self._instances() - waiting + 1

    def _connect_for_events(self) -> Any:
        """The channel events' own MQI connection (blocking)."""
        return self.connect_qm()

    def _qmgr_attr(self, key: str) -> object:
        """A queue-manager attribute, None when the admin cannot tell (blocking)."""
        return self.admin.qmgr_attribute(key) if hasattr(self.admin, "qmgr_attribute") else None

    def _key_repository(self) -> str:
        """QMGR SSLKEYR: the directory of the queue manager's PEM files (``tls``)."""
        return str(self._qmgr_attr("SSLKEYR") or "").strip()


def _quietly_disconnect(qm: Any) -> None:
    """MQDISC of a connection whose queue manager may have gone already."""
    try:
        qm.disconnect()
    except MQMIError:
        pass
