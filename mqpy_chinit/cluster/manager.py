"""The repository manager (IBM's amqrrmfa): the channel initiator's task that runs the cluster
repository (``repository.py``) against real queues and channels.

- It reads SYSTEM.CLUSTER.COMMAND.QUEUE: records and subscriptions from other repositories
  (Format MQPYCLUS, ``records.py``) and local requests (Format MQPYCLRQ, ``mqpy.engine.
  cluster``): ``CONFIG`` when the command processor changed a cluster-relevant definition,
  ``WANT`` when an application opened a name nobody here knows.
- It keeps the repository on SYSTEM.CLUSTER.REPOSITORY.QUEUE, one persistent message per
  record, keyed by CorrelId (a digest of the record's key), so a restart of either process
  finds what was learned (:meth:`Repository.load`). The subscriptions a full repository
  holds for others, and the names this queue manager asked for, are kept there too and
  replayed at start (answered again: duplicates change nothing).
- It carries out the repository's actions: a message for another repository goes on
  SYSTEM.CLUSTER.TRANSMIT.QUEUE behind an MQXQH naming SYSTEM.CLUSTER.COMMAND.QUEUE at that
  queue manager, with CorrelId = the cluster-sender channel, and that channel is started.
  Auto-defined cluster senders live here (they are not queue-manager objects, as in MQ), made
  from SYSTEM.DEF.CLUSSDR with the CONNAME and workload attributes of the CLUSRCVR record.
- Every change of what is known, and every change of a cluster sender's status, rewrites the
  engine's cluster cache (``directory.py``).
- A watcher browses SYSTEM.CLUSTER.TRANSMIT.QUEUE and starts the cluster sender of every
  channel with messages waiting (unless STOPPED), so application messages routed by the engine
  start their channels too; a failed channel's messages are re-routed or dead-lettered
  (``transmitq.py``).

Nothing here looks at a clock to find work. The command queue is waited on by a browse of a
connection of its own, outside the lock (an operator's command never waits for that wait),
and its message got under the lock without a wait. The watcher looks when a message arrives
on an empty transmission queue (a waiting browse), when a channel's state changes
(``states.add_state_observer``), when the repository changes, and at each minute (records
expire); only while messages wait on the transmission queue, or a cluster channel is between
states, does it look every WATCH_INTERVAL as well. A task that waits in a worker thread is
woken by a wake message when it is cancelled (``mqpy_chinit.wakes``).

Every step that gets a command message, changes the repository queue and puts on the
transmission queue is one unit of work: a crash in between redoes it, and records are
versioned, so a redelivered update changes nothing. The unit of work covers the manager's
memory too: if it is backed out, the repository goes back to where it was, so the update
that comes again is applied again (``_unit_of_work``). The channel initiator restarts the
manager if it fails (``supervisor.run_repository_manager``).
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import trio

import mqpy
from mqpy import CMQC, wake
from mqpy.engine import reports
from mqpy.engine.cluster import COMMAND_QUEUE, REQUEST_FORMAT
from mqpy.fap import channeldefs as D
from mqpy_chinit import wakes
from mqpy_chinit.states import ChannelState, add_state_observer
from mqpy_chinit.supervision import qmgr_gone

from . import transmitq
from .actions import (
    Action,
    ClusterCommandError,
    DefineAutoClussdr,
    DeleteAutoClussdr,
    PersistRecord,
    RemoveRecord,
    SendCommand,
    StopClusterReceivers,
)
from .config import LocalConfig, read_config
from .directory import Cache, instance_to_dict, write_cache
from .pubsubdaemon import PubSubDaemon
from .records import (
    CLUSTER_RECORD_FORMAT,
    ClusterCommand,
    ClusterQmgrRecord,
    ClusterQueueRecord,
    ClusterTopicRecord,
    DeletionRecord,
    RecordFormatError,
    Subscription,
    decode,
    encode,
)
from .repository import Repository
from .workload import RoundRobinState

REPOSITORY_QUEUE = "SYSTEM.CLUSTER.REPOSITORY.QUEUE"
#: how long one wait for the command queue (a browse) lasts before it is made again, in
#: milliseconds: a message ends it, and the manager, cancelled, wakes it (``_serve_commands``)
COMMAND_WAIT_MS = 60_000
#: how often the watcher looks while messages wait on the transmission queue or a cluster
#: channel is between states, seconds (else it looks when something happens)
WATCH_INTERVAL = 0.3
#: how long one wait for a message on an empty transmission queue lasts, milliseconds
ARRIVAL_WAIT_MS = 60_000
#: a cluster channel in one of these states stays in it until something happens to it
STEADY_STATES = frozenset({ChannelState.INACTIVE, ChannelState.RUNNING, ChannelState.STOPPED,
                           ChannelState.RETRYING})
TICK_INTERVAL = 60.0


def _mqi(fn: Callable[..., Any], *args: Any) -> Any:
    return trio.to_thread.run_sync(lambda: fn(*args))


def record_correl_id(key: tuple[str, ...]) -> bytes:
    """Where a record is kept on the repository queue: a digest of its key."""
    return hashlib.sha1(json.dumps(list(key)).encode()).digest() + b"MQCL"


class RepositoryManager:
    """One queue manager's repository manager, run by its channel initiator."""

    def __init__(self, chinit: Any, cache_file: str, *,
                 clock: Callable[[], float] = time.time) -> None:
        self.chinit = chinit
        self.qmgr: str = chinit.qmgr_name
        self.cache_file = cache_file
        self.clock = clock
        self.repo: Repository | None = None
        self.config: LocalConfig | None = None
        self.auto: dict[str, DefineAutoClussdr] = {}
        self.lock = trio.Lock()
        self._qm: mqpy.QueueManager | None = None
        self._cmdq: mqpy.Queue | None = None
        self._reposq: mqpy.Queue | None = None
        self._xmitq: mqpy.Queue | None = None
        self._cache: bytes | None = None
        self._cache_seen: tuple[object, ...] = ()
        self._cache_lock = trio.Lock()
        self._rr = RoundRobinState()  # for re-routing only; MQPUTs use the engine's
        self._also_keep: list[tuple[bytes, bytes | None, str]] = []  # with the next actions
        self._held_now: dict[bytes, tuple[bytes, str] | None] = {}  # as on the queue
        #: set when the repository changed (a unit of work ran), then replaced: what the
        #: pub/sub tasks and the watcher wait on (``changes``)
        self._changed = trio.Event()
        #: set when the watcher should look now (a channel's state changed, a message came)
        self._look = trio.Event()
        #: set while the transmission queue was empty at the watcher's last look: only then
        #: does the arrivals task wait for a message on it
        self._xmitq_empty = trio.Event()

    # ------------------------------------------------------------------ lifecycle

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        qm = self._qm = await _mqi(self.chinit.connect_qm)
        try:
            self._cmdq = await _mqi(mqpy.Queue, qm, COMMAND_QUEUE, CMQC.MQOO_INPUT_SHARED)
            self._reposq = await _mqi(mqpy.Queue, qm, REPOSITORY_QUEUE,
                                      CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_OUTPUT
                                      | CMQC.MQOO_BROWSE)
            self._xmitq = await _mqi(mqpy.Queue, qm, D.CLUSTER_XMITQ, CMQC.MQOO_OUTPUT)
            records, subscriptions, wanted = await _mqi(self._read_repository)
            config = await self._read_config()
            self.repo = Repository(self.qmgr, config.qmid, self.clock, repos=config.repos,
                                   reposnl=config.reposnl)
            repo = self.repo

            async def start() -> list[Action]:
                actions = repo.load(records)
                actions += self._reconfigure(config)
                now = self.clock()
                for sub in subscriptions:  # held for others: answered again, kept
                    if now < sub.expiry:
                        actions += repo.receive(ClusterCommand(sub.subscriber,
                                                               sub.subscriber_qmid, sub))
                for want in wanted:  # asked for by this queue manager's applications
                    if "cluster" in want:
                        actions += repo.load_wanted(
                            str(want["cluster"]), str(want.get("kind", "QUEUE")),
                            str(want["queue"]), float(want.get("made", now)),
                            bool(want.get("referenced")))
                    else:  # kept by name only (an older repository queue)
                        actions += repo.resolve_queue(str(want["queue"])).actions
                return actions

            async with self.lock:
                await self._unit_of_work(start)
            self.chinit.log("AMQ9410I", "Repository manager started.")
            task_status.started()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._serve_commands)
                nursery.start_soon(self._watch)
                nursery.start_soon(self._tick)
                nursery.start_soon(PubSubDaemon(self).run)
        finally:
            with trio.CancelScope(shield=True):
                await _mqi(_disconnect, qm)

    async def _read_config(self) -> LocalConfig:
        display = self.chinit.admin.display
        return await trio.to_thread.run_sync(read_config, display, self.qmgr)

    def _read_repository(self) -> tuple[list[Any], list[Subscription], list[dict[str, Any]]]:
        """The repository queue (browsed; it stays as it is): the records, the subscriptions
        held for others, and those this queue manager made (``_held``)."""
        assert self._reposq is not None
        out: list[Any] = []
        subscriptions: list[Subscription] = []
        wanted: list[dict[str, Any]] = []
        options = CMQC.MQGMO_BROWSE_FIRST
        while True:
            md = mqpy.MD()
            try:
                data = self._reposq.get(None, md, mqpy.GMO(Options=options
                                                          | CMQC.MQGMO_NO_SYNCPOINT))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return out, subscriptions, wanted
                raise
            options = CMQC.MQGMO_BROWSE_NEXT
            if md.Format.rstrip(b" \x00").decode("latin-1") == REQUEST_FORMAT:
                self._held_now[md.CorrelId] = None  # rewritten, or removed, at start
                try:
                    want = json.loads(data)
                    if isinstance(want, dict) and "queue" in want:
                        wanted.append(want)
                except ValueError:
                    pass
                continue
            try:
                body = decode(data)
            except RecordFormatError:
                continue
            if isinstance(body, (ClusterQmgrRecord, ClusterQueueRecord, ClusterTopicRecord,
                                 DeletionRecord)):
                out.append(body)
            elif isinstance(body, Subscription):
                self._held_now[md.CorrelId] = None
                subscriptions.append(body)

    # ------------------------------------------------------------------ local definitions

    def _reconfigure(self, config: LocalConfig) -> list[Action]:
        """Give the repository what changed in the local definitions."""
        repo = self.repo
        assert repo is not None
        old = self.config
        self.config = config
        actions: list[Action] = []
        if old is None or (old.repos, old.reposnl) != (config.repos, config.reposnl):
            actions += repo.set_repos(config.repos, config.reposnl)
        for r in config.receivers:
            actions += repo.define_cluster_receiver(
                r.name, r.conname, r.clusters, clwlprty=r.clwlprty, clwlrank=r.clwlrank,
                clwlwght=r.clwlwght, netprty=r.netprty, channel_attrs=dict(r.channel_attrs))
        for name in sorted({r.name for r in (old.receivers if old else ())}
                           - {r.name for r in config.receivers}):
            actions += repo.delete_cluster_receiver(name)
        for q in config.queues:
            actions += repo.advertise_queue(
                q.name, q.clusters, put_enabled=q.put_enabled, defbind=q.defbind,
                defpsist=q.defpsist, defprty=q.defprty, clwlprty=q.clwlprty,
                clwlrank=q.clwlrank, clwluseq=q.clwluseq, qtype=q.qtype)
        for name in sorted({q.name for q in (old.queues if old else ())}
                           - {q.name for q in config.queues}):
            actions += repo.withdraw_queue(name)
        actions += _reconfigure_topics(repo, old, config)
        for s in config.senders:
            actions += repo.define_cluster_sender(s.name, s.conname, s.clusters)
        for name in sorted({s.name for s in (old.senders if old else ())}
                           - {s.name for s in config.senders}):
            actions += repo.delete_cluster_sender(name)
        return actions

    # ------------------------------------------------------------------ channels

    def definition(self, channel: str) -> dict[str, object] | None:
        """A cluster sender's definition: the explicit CLUSSDR, else the auto-defined one."""
        config = self.config
        if config is not None and channel in config.channels and \
                D.str_attr(config.channels[channel], "CHLTYPE") == "CLUSSDR":
            return {**config.channels[channel], "CHANNEL": channel}
        auto = self.auto.get(channel)
        if auto is None:
            return None
        base = dict(config.channels.get("SYSTEM.DEF.CLUSSDR", {})) if config else {}
        # IBM: an auto-defined CLUSSDR is made from its partner's CLUSRCVR definition;
        # SYSTEM.DEF.CLUSSDR gives only what that does not say
        return {**base, **dict(auto.channel_attrs), "CHANNEL": channel, "CHLTYPE": "CLUSSDR",
                "CONNAME": auto.conname,
                "CLUSTER": ",".join(auto.clusters), "CLWLPRTY": auto.clwlprty,
                "CLWLRANK": auto.clwlrank, "CLWLWGHT": auto.clwlwght,
                "NETPRTY": auto.netprty, "DESCR": f"Auto-defined to {auto.qmgr}"}

    def _start(self, channel: str) -> None:
        chinit = self.chinit
        if channel in chinit.running:
            return
        status = chinit.statuses.get(channel)
        if status is not None and status.state is ChannelState.STOPPED:
            return  # STOPPED stays stopped until START CHANNEL
        definition = self.definition(channel)
        if definition is None:
            return
        err = chinit.start_channel(channel, definition)
        if err:
            chinit.log("AMQ9999E", f"Cluster channel '{channel}' not started: {err}")

    def channel_states(self) -> dict[str, str]:
        out = {}
        for name, st in list(self.chinit.statuses.items()):
            if st.chltype == "CLUSSDR" or name in self.auto:
                out[name] = st.state.name
        return out

    # ------------------------------------------------------------------ actions

    def _held(self) -> dict[bytes, tuple[bytes, str]]:
        """What the repository queue keeps besides records, so a restart finds it: the
        subscriptions held for others, and those this queue manager made, with their age.
        A unit of work writes what changed and removes what went (expired, REFRESH,
        FORCEREMOVE)."""
        repo = self.repo
        assert repo is not None
        out: dict[bytes, tuple[bytes, str]] = {}
        for sub in repo.subscribers():
            out[record_correl_id(("SUB", *sub.key))] = (encode(sub), CLUSTER_RECORD_FORMAT)
        for (cluster, kind, name), (made, referenced) in repo.wanted().items():
            body = json.dumps({"request": "WANT", "queue": name, "cluster": cluster,
                               "kind": kind, "made": made, "referenced": referenced})
            out[record_correl_id(("WANT", cluster, kind, name))] = (body.encode(),
                                                                    REQUEST_FORMAT)
        return out

    def _memento(self) -> tuple[Any, ...]:
        assert self.repo is not None
        return (self.repo.snapshot(), dict(self.auto), list(self._also_keep), self.config)

    def _undo(self, memento: tuple[Any, ...]) -> None:
        assert self.repo is not None
        state, auto, also_keep, config = memento
        self.repo.restore(state)
        self.auto, self._also_keep, self.config = auto, also_keep, config

    async def _unit_of_work(self, compute: Callable[[], Awaitable[list[Action]]]) -> None:
        """Work out actions (``compute`` may get a command message, in syncpoint), carry them
        out in one unit of work and commit, then start, stop and refresh what they name. If
        anything fails before the commit, the unit of work is backed out and the manager's
        memory (the repository, the auto-defined channels, what is still to be kept) goes
        back to where it was: what comes again is applied again. Caller holds ``self.lock``."""
        memento = self._memento()
        try:
            actions = await compute()
            held = self._held()
            for correl_id in sorted(set(self._held_now) - set(held)):
                self._also_keep.append((correl_id, None, CLUSTER_RECORD_FORMAT))
            for correl_id, (body, fmt) in sorted(held.items()):
                if self._held_now.get(correl_id) != (body, fmt):
                    self._also_keep.append((correl_id, body, fmt))
            started, stopped, receivers = await _mqi(self._execute_sync, actions)
        except BaseException:
            self._undo(memento)
            raise
        self._held_now = held
        for channel in started:
            self._start(channel)
        for channel in stopped:
            if self.definition(channel) is None and channel in self.chinit.running:
                self.chinit.stop_channel(channel, "FORCE", "INACTIVE")
        for channel in receivers:
            for (name, _partner), entry in list(self.chinit.receivers.items()):
                if name == channel:
                    entry[0].cancel()
        await self._write_cache()
        self._changed.set()
        self._changed = trio.Event()

    def changes(self) -> trio.Event:
        """What is set at the repository's next change (a unit of work carried out): take it
        before looking at the repository, then wait on it."""
        return self._changed

    def _execute_sync(self, actions: list[Action]) -> tuple[list[str], list[str], list[str]]:
        assert self._qm is not None
        started: list[str] = []
        stopped: list[str] = []
        receivers: list[str] = []
        try:
            keep, self._also_keep = self._also_keep, []
            for correl_id, body, fmt in keep:
                self._keep(correl_id, body, fmt)
            for action in actions:
                if isinstance(action, PersistRecord):
                    self._keep(record_correl_id(action.record.key), encode(action.record))
                elif isinstance(action, RemoveRecord):
                    self._keep(record_correl_id(action.key), None)
                elif isinstance(action, SendCommand):
                    self._send(action)
                    if action.channel not in started:
                        started.append(action.channel)
                elif isinstance(action, DefineAutoClussdr):
                    self.auto[action.channel] = action
                elif isinstance(action, DeleteAutoClussdr):
                    self.auto.pop(action.channel, None)
                    stopped.append(action.channel)
                elif isinstance(action, StopClusterReceivers):
                    receivers.extend(action.channels)
            self._qm.commit()
        except Exception:
            try:
                self._qm.backout()
            except mqpy.MQMIError:
                pass  # the connection went: nothing was committed
            raise
        return started, stopped, receivers

    def _keep(self, correl_id: bytes, body: bytes | None,
              fmt: str = CLUSTER_RECORD_FORMAT) -> None:
        """Replace (or, with None, remove) the repository message with this CorrelId."""
        assert self._reposq is not None
        while True:
            try:
                self._reposq.get(None, mqpy.MD(CorrelId=correl_id),
                                 mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT,
                                          MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
        if body is not None:
            md = mqpy.MD(CorrelId=correl_id, Persistence=CMQC.MQPER_PERSISTENT,
                         Format=fmt.encode())
            self._reposq.put(body, md, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))

    def _send(self, action: SendCommand) -> None:
        """A command for SYSTEM.CLUSTER.COMMAND.QUEUE at ``action.qmgr``, on its channel."""
        assert self._xmitq is not None
        inner = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CLUSTER_RECORD_FORMAT.encode())
        xqh = mqpy.XQH()
        xqh.RemoteQName = COMMAND_QUEUE.encode()
        xqh.RemoteQMgrName = (action.qmgr or "").encode()
        xqh.MsgDesc = inner
        outer = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_XMIT_Q_HEADER,
                        CorrelId=D.cluster_correl_id(action.channel))
        self._xmitq.put(xqh.pack() + encode(action.command), outer,
                        mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))

    # ------------------------------------------------------------------ the cache

    def cache(self) -> Cache:
        repo = self.repo
        assert repo is not None and self.config is not None
        names = sorted({r.queue for r in repo.records().values()
                        if isinstance(r, ClusterQueueRecord) and r.qtype != "QMGR"})
        queues = {}
        for name in names:
            records = {r.qmid: r for r in repo.records().values()
                       if isinstance(r, ClusterQueueRecord) and r.queue == name}
            found = [instance_to_dict(i, defpsist=records[i.qmid].defpsist,
                                      defprty=records[i.qmid].defprty)
                     for i in repo.queue_instances(name)]
            if found:
                queues[name] = found
        now = self.clock()
        qmgrs = {}
        for r in repo.records().values():
            if isinstance(r, ClusterQmgrRecord) and now < r.expiry and r.qmid != repo.qmid \
                    and r.cluster in repo.clusters:
                qmgrs[r.qmgr] = {"channel": r.channel, "qmid": r.qmid}
        for r in repo.records().values():
            # a clustered queue-manager alias: the way to it is its host's (seed 002 uses 1, 2)
            if isinstance(r, ClusterQueueRecord) and r.qtype == "QMGR" and now < r.expiry \
                    and r.qmid != repo.qmid and r.queue not in qmgrs:
                host = repo.records().get(("QMGR", r.cluster, r.qmid))
                if isinstance(host, ClusterQmgrRecord) and now < host.expiry:
                    qmgrs[r.queue] = {"channel": host.channel, "qmid": r.qmid,
                                      "host": host.qmgr, "defbind": r.defbind}
        return Cache(qmgr=self.qmgr, clusters=sorted(repo.clusters),
                     clwluseq=self.config.clwluseq, clwlmruc=self.config.clwlmruc,
                     queues=queues, qmgrs=qmgrs, channels=self.channel_states(),
                     topics=[{"TOPIC": t.topic, "TOPICSTR": t.topicstr, "CLUSTER": t.cluster,
                              "CLROUTE": t.clroute, "CLUSQMGR": t.qmgr}
                             for t in repo.cluster_topics()])

    def _cache_inputs(self) -> tuple[object, ...]:
        """What the cache depends on besides the repository (whose every change goes
        through a unit of work, which writes the cache): the channels' states, and the
        clock (records expire), by the minute. The watcher rebuilds only when they moved."""
        return (self.channel_states(), int(self.clock() // 60))

    async def _write_cache(self) -> None:
        async with self._cache_lock:
            self._cache_seen = self._cache_inputs()
            data = self.cache()
            raw = data.to_bytes()
            if raw != self._cache:
                await trio.to_thread.run_sync(write_cache, self.cache_file, data)
                self._cache = raw

    # ------------------------------------------------------------------ tasks

    async def _serve_commands(self) -> None:
        """Carry out the command queue's messages, each in a unit of work, until cancelled.
        The wait for a message is a browse on a connection of its own, outside the lock
        (``_await_command``); the message is then got under the lock, without a wait, in
        the unit of work. The browse waits in a worker thread, which a cancel cannot
        interrupt: cancelled while it waits, a wake message (``mqpy_chinit.wakes``) ends
        that wait at once."""
        qm = await _mqi(self.chinit.connect_qm)
        try:
            browse = await _mqi(mqpy.Queue, qm, COMMAND_QUEUE, CMQC.MQOO_BROWSE)
            await wakes.run_woken(
                functools.partial(self._serve_command_queue, browse,
                                  functools.partial(_take_wake, qm, COMMAND_QUEUE)),
                functools.partial(wake.put_wakes_through, self.chinit.connect_qm,
                                  COMMAND_QUEUE))
        finally:
            with trio.CancelScope(shield=True):
                await _mqi(_disconnect, qm)

    async def _serve_command_queue(self, browse: mqpy.Queue,
                                   take_wake: Callable[[bytes], None]) -> None:
        seen = False  # the browse saw a message
        while True:
            async with self.lock:
                got = await _mqi(self._get_command)
                if got is not None and got is not _WOKEN:
                    try:
                        await self._unit_of_work(functools.partial(self._on_command, *got))
                    except Exception as exc:  # noqa: BLE001 - backed out, tried again, DLQ
                        if qmgr_gone(exc):
                            raise
                        await self._failed_command(*got, exc)
            if got is not None:
                seen = False
                continue
            if seen:
                # the browse saw a message the get did not take: not looked for again at
                # once, so that the two cannot turn round and round
                await trio.sleep(WATCH_INTERVAL)
            seen = await _mqi(_await_message, browse, COMMAND_WAIT_MS, take_wake)

    async def _failed_command(self, md: mqpy.MD, data: bytes, exc: Exception) -> None:
        """A command that could not be carried out is backed out and tried again; the third
        time it goes to the dead-letter queue, so one bad message cannot stop the manager."""
        await _mqi(self._qm.backout)  # type: ignore[union-attr]
        self.chinit.log("AMQ9409E", f"Repository manager: a command from {COMMAND_QUEUE} "
                        f"failed ({exc!r}); backout count {md.BackoutCount}.")
        if md.BackoutCount >= 2:
            got = await _mqi(self._get_command, md.MsgId)
            if got is not None and got is not _WOKEN:
                await _mqi(self._dead_letter, *got)
                await _mqi(self._qm.commit)  # type: ignore[union-attr]

    def _get_command(self, msgid: bytes | None = None) -> Any:
        """The next command message (or the one of ``msgid``) as (MD, data), got in
        syncpoint without a wait; None if there is none; _WOKEN if it was a wake message
        (taken off the queue: the unit of work has nothing else in it yet)."""
        assert self._cmdq is not None and self._qm is not None
        md = mqpy.MD(MsgId=msgid) if msgid else mqpy.MD()
        try:
            data = self._cmdq.get(None, md, mqpy.GMO(
                Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_SYNCPOINT
                | CMQC.MQGMO_FAIL_IF_QUIESCING, MatchOptions=CMQC.MQMO_MATCH_MSG_ID))
        except mqpy.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        if wake.is_wake(md):
            self._qm.commit()
            return _WOKEN
        return md, data

    async def _on_command(self, md: mqpy.MD, data: bytes) -> list[Action]:
        """What a command message asks for (a message nobody can use is dead-lettered in
        the unit of work that got it)."""
        repo = self.repo
        assert repo is not None
        fmt = md.Format.rstrip(b" \x00").decode("latin-1")
        actions: list[Action] = []
        if fmt == REQUEST_FORMAT:
            try:
                request = json.loads(data)
                kind = request.get("request")
            except (ValueError, AttributeError):
                kind = None
            if kind == "CONFIG":
                actions = self._reconfigure(await self._read_config())
            elif kind == "WANT":
                queue = str(request.get("queue", ""))
                actions = list(repo.resolve_queue(queue).actions)
            else:
                await self._not_a_repository_message(md, data)
        else:
            try:
                command = decode(data)
            except RecordFormatError:
                command = None
            if isinstance(command, ClusterCommand):
                actions = repo.receive(command)
            else:
                await self._not_a_repository_message(md, data)
        return actions

    async def _not_a_repository_message(self, md: mqpy.MD, data: bytes) -> None:
        """A message the repository manager cannot use: dead-lettered, or discarded when
        there is no dead-letter queue; either way the error log says which."""
        if await _mqi(self._dead_letter, md, data):
            self.chinit.log("AMQ9430E", "A message that is not a repository message was "
                            f"found on {COMMAND_QUEUE}; it was put on the dead-letter queue.")
            return
        self.chinit.log("AMQ9565E", f"No dead-letter queue defined. The queue manager "
                        f"'{self.qmgr}' does not have a defined dead-letter queue. A message "
                        f"that is not a repository message (reason "
                        f"{CMQC.MQFB_NOT_A_REPOSITORY_MSG}) was found on {COMMAND_QUEUE}: "
                        f"the repository manager discarded it.")

    def _dead_letter(self, md: mqpy.MD, data: bytes) -> bool:
        """A message the repository manager cannot use goes to the DLQ (MQDLH reason
        MQFB_NOT_A_REPOSITORY_MSG), in the unit of work that got it: whether it went (no
        dead-letter queue: it is discarded, nothing else can use it)."""
        assert self._qm is not None
        deadq = self._qm.inquire(CMQC.MQCA_DEAD_LETTER_Q_NAME).strip(b" \x00")
        if not deadq:
            return False
        dmd, body = reports.build_dead_letter(md, data, CMQC.MQFB_NOT_A_REPOSITORY_MSG,
                                              COMMAND_QUEUE, self.qmgr,
                                              put_appl_name=b"mqpy repository manager",
                                              put_date=md.PutDate, put_time=md.PutTime)
        self._qm.put1(deadq.decode("latin-1"), body, dmd,
                      mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        return True

    async def _watch(self) -> None:
        """Start cluster senders with messages waiting; keep channel states in the cache.
        It looks when told to (``_look``: a message came on an empty transmission queue, a
        channel's state changed, the repository changed) and at each minute's turn (the
        cache's records expire by the minute); every WATCH_INTERVAL as well only while
        messages wait on the transmission queue or a cluster channel is between states."""
        qm = await _mqi(self.chinit.connect_qm)
        token = trio.lowlevel.current_trio_token()

        def state_changed(status: Any) -> None:
            if status.chltype == "CLUSSDR" or status.channel in self.auto:
                try:
                    token.run_sync_soon(self._want_look)
                except trio.RunFinishedError:
                    pass

        stop_observing = add_state_observer(state_changed)
        try:
            xq = await _mqi(mqpy.Queue, qm, D.CLUSTER_XMITQ, CMQC.MQOO_BROWSE)
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._arrivals)
                while True:
                    self._look = trio.Event()
                    waiting = await _mqi(transmitq.waiting_channels, xq)
                    await self._look_at(qm, waiting)
                    there = bool(waiting) or await _mqi(transmitq.anything_waiting, xq)
                    if there:
                        self._not_empty()
                    else:
                        self._xmitq_empty.set()
                    member = self.repo is not None and bool(self.repo.clusters)
                    between = any(s.state not in STEADY_STATES
                                  for n, s in list(self.chinit.statuses.items())
                                  if s.chltype == "CLUSSDR" or n in self.auto)
                    if there or between:
                        # a queue manager in no cluster has little to watch
                        wait = WATCH_INTERVAL if member else 4 * WATCH_INTERVAL
                    else:
                        wait = 60 - self.clock() % 60 + 0.01
                    with trio.move_on_after(wait):
                        await self._look.wait()
        finally:
            stop_observing()
            with trio.CancelScope(shield=True):
                await _mqi(_disconnect, qm)

    def _want_look(self) -> None:
        self._look.set()

    def _not_empty(self) -> None:
        if self._xmitq_empty.is_set():
            self._xmitq_empty = trio.Event()

    async def _look_at(self, qm: mqpy.QueueManager, waiting: list[str]) -> None:
        """One look: the channels messages wait for started, a failed one's re-routed; the
        cache rewritten if a channel's state changed or a minute turned."""
        for channel in waiting:
            self._start(channel)
            status = self.chinit.statuses.get(channel)
            # a channel no longer defined (its queue manager was removed) has failed
            # for good: its unbound messages go elsewhere, its bound ones to the DLQ
            gone = channel not in self.chinit.running and \
                self.definition(channel) is None
            if gone or status is not None and status.state in (
                    ChannelState.RETRYING, ChannelState.STOPPED):
                cache = self.cache()
                if gone:
                    cache.channels[channel] = ChannelState.STOPPED.name
                moved = await _mqi(self._reroute, qm, channel, cache)
                if moved:
                    # AMQ8942I / AMQ8943W: mqpy's own message ids for these events
                    self.chinit.log("AMQ8942I", f"{moved} unbound message(s) for "
                                    f"failed cluster channel '{channel}' re-routed.")
                dead = await _mqi(transmitq.dead_letter_bound, qm, channel) \
                    if gone else 0
                if dead:
                    self.chinit.log("AMQ8943W", f"{dead} message(s) bound to the "
                                    f"queue manager of deleted cluster channel "
                                    f"'{channel}' put on the dead-letter queue.")
        if self._cache is not None and self.repo is not None and \
                self._cache_inputs() != self._cache_seen:
            await self._write_cache()  # a channel's state changed, or time passed

    async def _arrivals(self) -> None:
        """Tell the watcher when a message comes on the transmission queue it last found
        empty: a browse waits for it in a worker thread, on a connection of its own (woken
        by a wake message when cancelled: ``mqpy_chinit.wakes``)."""
        qm = await _mqi(self.chinit.connect_qm)
        try:
            browse = await _mqi(mqpy.Queue, qm, D.CLUSTER_XMITQ, CMQC.MQOO_BROWSE)
            take_wake = functools.partial(_take_wake, qm, D.CLUSTER_XMITQ)

            async def wait_for_arrivals() -> None:
                while True:
                    await self._xmitq_empty.wait()
                    if await _mqi(_await_message, browse, ARRIVAL_WAIT_MS, take_wake):
                        self._not_empty()
                        self._want_look()

            await wakes.run_woken(wait_for_arrivals, functools.partial(
                wake.put_wakes_through, self.chinit.connect_qm, D.CLUSTER_XMITQ))
        finally:
            with trio.CancelScope(shield=True):
                await _mqi(_disconnect, qm)

    def _reroute(self, qm: mqpy.QueueManager, channel: str, cache: Cache) -> int:
        """The unbound messages of failed cluster sender ``channel`` re-routed
        (``transmitq.reroute_unbound``), this manager's round-robin state carried on; how many
        moved. Runs in a worker thread: ``cache`` was taken in the trio thread, which owns the
        repository."""
        moved, self._rr = transmitq.reroute_unbound(qm, channel, cache, self.qmgr, self._rr)
        return moved

    def _waiting(self) -> list[str]:
        """The channels messages on SYSTEM.CLUSTER.TRANSMIT.QUEUE wait for."""
        assert self._qm is not None
        xq = mqpy.Queue(self._qm, D.CLUSTER_XMITQ, CMQC.MQOO_BROWSE)
        try:
            return transmitq.waiting_channels(xq)
        finally:
            xq.close()

    async def _tick(self) -> None:
        while True:
            await trio.sleep(TICK_INTERVAL)
            try:
                await self.tick()
            except mqpy.MQMIError as e:
                if qmgr_gone(e):
                    raise
                self.chinit.log("AMQ9409E", f"Repository manager: the record lifetimes "
                                f"could not be run (reason {e.reason}); tried again in "
                                f"{TICK_INTERVAL:g} seconds.")

    async def tick(self) -> None:
        """Run the record lifetimes now (every TICK_INTERVAL seconds anyway)."""
        repo = self.repo
        assert repo is not None

        async def lifetimes() -> list[Action]:
            return repo.tick()

        async with self.lock:
            await self._unit_of_work(lifetimes)

    # ------------------------------------------------------------------ operator commands

    async def command(self, request: dict[str, Any]) -> dict[str, Any]:
        """DISPLAY CLUSQMGR / QCLUSTER, SUSPEND, RESUME, REFRESH, RESET CLUSTER."""
        repo = self.repo
        if repo is None:
            return {"ok": False, "reason": CMQC.MQRC_CLUSTER_RESOLUTION_ERROR,
                    "message": "The repository manager is not running."}
        verb = request["command"]
        cluster = str(request.get("cluster", ""))
        if verb == "CLUSTER_CLUSQMGR":
            rows = repo.display_clusqmgr(str(request.get("name", "*")), self.channel_states())
            return {"ok": True, "rows": [_row(r) for r in rows
                                         if not cluster or r["CLUSTER"] == cluster]}
        if verb in ("CLUSTER_QCLUSTER", "CLUSTER_TCLUSTER"):
            rows = (repo.display_qcluster if verb == "CLUSTER_QCLUSTER" else
                    repo.display_tcluster)(str(request.get("name", "*")))
            return {"ok": True, "rows": [_row(r) for r in rows
                                         if not cluster or r["CLUSTER"] == cluster]}
        if verb not in ("CLUSTER_SUSPEND", "CLUSTER_RESUME", "CLUSTER_REFRESH",
                        "CLUSTER_RESET"):
            return {"ok": False, "reason": CMQC.MQRC_FUNCTION_NOT_SUPPORTED,
                    "message": f"unknown cluster command {verb}"}

        async def operator() -> list[Action]:
            if verb == "CLUSTER_SUSPEND":
                return repo.suspend(cluster, force=bool(request.get("force")))
            if verb == "CLUSTER_RESUME":
                return repo.resume(cluster)
            if verb == "CLUSTER_REFRESH":
                # auto-defined channels in doubt or with messages waiting stay (IBM: "it
                # removes channels that do not have messages on the cluster transmission
                # queue"); a generic name refreshes every cluster it matches
                keep = [n for n, s in self.chinit.statuses.items() if s.indoubt]
                keep += await _mqi(self._waiting)
                names = sorted(c for c in repo.clusters if fnmatch.fnmatchcase(c, cluster)) \
                    if "*" in cluster else [cluster]
                actions: list[Action] = []
                for name in names or [cluster]:
                    actions += repo.refresh(name, repos=bool(request.get("repos")),
                                            in_doubt_channels=keep)
                return actions
            return repo.reset_cluster(cluster, qmname=str(request.get("qmname", "")),
                                      qmid=str(request.get("qmid", "")),
                                      queues=bool(request.get("queues")))

        async with self.lock:
            try:
                await self._unit_of_work(operator)
            except ClusterCommandError as e:
                return {"ok": False, "reason": e.reason, "message": e.text}
            except mqpy.MQMIError as e:  # backed out: nothing changed
                if qmgr_gone(e):
                    raise
                return {"ok": False, "reason": e.reason,
                        "message": f"AMQ9409E: The repository manager could not carry out "
                                   f"the command: reason {e.reason}; nothing was changed."}
        return {"ok": True}

    def dump(self) -> list[dict[str, Any]]:
        """Every record held, as its JSON body (dumprepos)."""
        assert self.repo is not None
        return [json.loads(encode(r)) for _, r in sorted(self.repo.records().items())]


def _reconfigure_topics(repo: Repository, old: LocalConfig | None,
                        config: LocalConfig) -> list[Action]:
    """Give the repository the cluster topics defined here (``topics.py``)."""
    actions: list[Action] = []
    for t in config.topics:
        actions += repo.advertise_topic(t.name, t.topicstr, t.clusters, clroute=t.clroute,
                                        pub_enabled=t.pub_enabled, sub_enabled=t.sub_enabled)
    for name in sorted({t.name for t in (old.topics if old else ())}
                       - {t.name for t in config.topics}):
        actions += repo.withdraw_topic(name)
    return actions


def _row(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (round(v) if isinstance(v, float) else v) for k, v in row.items()}


#: what ``_get_command`` answers for a wake message
_WOKEN = object()


def _await_message(browse: mqpy.Queue, wait_ms: int,
                   take_wake: Callable[[bytes], None] | None = None) -> bool:
    """Wait up to ``wait_ms`` for a message on the queue ``browse`` is open on (for
    browsing); whether one is there. With ``take_wake``, a wake message (this wait's, its
    task cancelled, or a cancelled one's, on a queue nothing else gets it from) is taken off
    by it (given its MsgId) and counts as none."""
    md = mqpy.MD()
    try:
        browse.get(0, md, mqpy.GMO(
            Options=CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
            | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG | CMQC.MQGMO_FAIL_IF_QUIESCING,
            WaitInterval=wait_ms))
    except mqpy.MQMIError as e:
        if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            return False
        if e.reason != CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
            raise
    if take_wake is None or not wake.is_wake(md):
        return True
    take_wake(md.MsgId)
    return False


def _take_wake(qm: mqpy.QueueManager, queue: str, msgid: bytes) -> None:
    """Take the wake message ``msgid`` off ``queue`` (opened for input only meanwhile)."""
    q = mqpy.Queue(qm, queue, CMQC.MQOO_INPUT_SHARED)
    try:
        q.get(0, mqpy.MD(MsgId=msgid), mqpy.GMO(
            Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG,
            MatchOptions=CMQC.MQMO_MATCH_MSG_ID))
    except mqpy.MQMIError as e:
        if e.reason not in (CMQC.MQRC_NO_MSG_AVAILABLE, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED):
            raise
    finally:
        q.close()


def _disconnect(qm: mqpy.QueueManager) -> None:
    try:
        qm.backout()
        qm.disconnect()
    except (mqpy.MQMIError, mqpy.PYIFError):
        pass


