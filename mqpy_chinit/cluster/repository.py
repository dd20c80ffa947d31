"""The cluster repository of one queue manager, as a sans-IO state machine (IBM's amqrrmfa).

Rule 1 (after h11): everything that changes what this queue manager knows about its clusters
happens in :class:`Repository`; every method returns the *actions* the channel initiator must
carry out, and nothing here puts a message, defines a channel or reads the time (the clock is
passed in). Spec: operations-dlq-clusters §4, dqm-intercommunication §5, seed 001 2.3.

Theory of operation
-------------------
A queue manager joins a cluster by defining a CLUSRCVR naming it: that advertises a
*queue-manager record* (name, QMID, CLUSRCVR name, CONNAME, CLWL channel attributes, full or
partial repository, suspended). Each clustered queue it hosts is a *queue record*. Records are
owned by the queue manager they describe; only the owner changes them (a full repository's
RESET CLUSTER ACTION(FORCEREMOVE) is the one exception), and every copy keeps the newest
version (``records.py``).

Full and partial repositories. A queue manager is a full repository for the clusters named by
its REPOS or REPOSNL; it holds everything about them. A partial repository holds its own
records and what it asked for:
- it *publishes* its own records to two full repositories (those its explicit CLUSSDRs reach
  first, then others it knows of by name);
- it *subscribes* at those full repositories to the full repositories of the cluster (REPOS,
  at join), to every queue name it opens (QUEUE) and, implicitly, to the queue managers that
  host them (QMGR); a full repository answers a subscription at once and then forwards every
  change that matches it.
Whenever a full repository becomes one of its targets (explicit CLUSSDR defined, record
received, the old one demoted by ALTER QMGR REPOS(' ')), it is sent all own records and all
subscriptions held (``_register_all``), so a partial repository follows a moved repository.
A full repository sends its own records to every other full repository and forwards each
update it receives *directly* (``forwarded`` clear) to the other full repositories; it never
re-forwards a forwarded update, and an update that changes nothing is not passed on, so
updates cannot circle. A full repository joining (or REFRESHing) asks the others for ALL.

Channels. For every queue manager it holds a record of, a repository defines an auto CLUSSDR
named like that queue manager's CLUSRCVR, with its CONNAME; it is deleted when the last record
naming it goes. Every message to another repository is a :class:`SendCommand` on a channel:
the integrator puts it on SYSTEM.CLUSTER.TRANSMIT.QUEUE for that channel with SYSTEM.CLUSTER.
COMMAND.QUEUE at the queue manager as destination.

Lifetimes (seed 001 2.1.4). Records carry expiry = publication + 30 days. :meth:`tick`
re-publishes own records 27 days after publication, drops an expired record from every use,
removes it 90 days after its expiry, remakes a subscription at 27 days only if it was
referenced meanwhile, and forgets subscriptions held for others when they expire.

Not done: queue-manager-alias and topic records, CLUSNL namelist resolution (the integrator
passes the cluster names), the cluster workload exit, DLQ handling of a full command queue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import attrs

from mqpy import CMQC, CMQCFC

from . import display
from .actions import (
    Action,
    ClusterCommandError,
    DefineAutoClussdr,
    DeleteAutoClussdr,
    PersistRecord,
    RemoveRecord,
    Resolution,
    SendCommand,
    StopClusterReceivers,
)
from .records import (
    RECORD_LIFETIME,
    REMOVE_AFTER_EXPIRY,
    REPUBLISH_AFTER,
    ClusterCommand,
    ClusterQmgrRecord,
    ClusterQueueRecord,
    ClusterTopicRecord,
    DeletionRecord,
    Record,
    RepositoryType,
    Subscription,
    SubscriptionKind,
    channel_attr_pairs,
)
from .topics import ClusterTopics, TopicDef
from .workload import QueueInstance

__all__ = ["Repository"]

#: A partial repository publishes to this many full repositories.
PUBLISH_TO_FULL_REPOSITORIES = 2


@attrs.frozen
class _Receiver:
    channel: str
    conname: str
    clusters: frozenset[str]
    clwlprty: int = 0
    clwlrank: int = 0
    clwlwght: int = 50
    netprty: int = 0
    channel_attrs: tuple[tuple[str, str | int], ...] = ()


@attrs.frozen
class _Sender:
    channel: str
    conname: str
    clusters: frozenset[str]


@attrs.define
class _Wanted:
    made: float
    referenced: bool = False


@attrs.frozen
class _QueueDef:
    clusters: frozenset[str]
    attributes: Mapping[str, object]


def _unversioned(record: Record) -> Record:
    return attrs.evolve(record, published=0.0, sequence=0, expiry=0.0)


class Repository(ClusterTopics):
    """One queue manager's view of its clusters. Not thread-safe: one caller at a time.
    Clustered topics are in ``topics.ClusterTopics``."""

    def __init__(self, qmgr: str, qmid: str, clock: Callable[[], float], *,
                 repos: str = "", reposnl: Iterable[str] = ()) -> None:
        self.qmgr = qmgr
        self.qmid = qmid
        self._clock = clock
        self._full: frozenset[str] = self._full_set(repos, reposnl)
        self._receivers: dict[str, _Receiver] = {}
        self._senders: dict[str, _Sender] = {}
        self._queue_defs: dict[str, _QueueDef] = {}
        self._topic_defs: dict[str, TopicDef] = {}
        self._records: dict[tuple[str, ...], Record] = {}
        self._auto: dict[str, DefineAutoClussdr] = {}
        self._wanted: dict[tuple[str, SubscriptionKind, str], _Wanted] = {}
        self._subscribers: dict[tuple[str, ...], Subscription] = {}
        self._registered: dict[str, set[str]] = {}  # cluster -> channels of full repositories
        self._sequence = 0

    # --- units of work ----------------------------------------------------------------

    _STATE = ("_full", "_receivers", "_senders", "_queue_defs", "_records", "_auto",
              "_wanted", "_subscribers", "_registered", "_sequence", "_topic_defs")

    def snapshot(self) -> dict[str, object]:
        """Everything a call may change, copied. The integrator carries out a call's actions
        in one unit of work; if that is backed out it restores this, so the command comes
        again to a repository that has not seen it (a record "already held" would otherwise
        never be kept or forwarded)."""
        state: dict[str, object] = {name: getattr(self, name) for name in self._STATE}
        for name in ("_receivers", "_senders", "_queue_defs", "_records", "_auto",
                     "_subscribers", "_topic_defs"):
            state[name] = dict(state[name])  # type: ignore[call-overload]
        state["_wanted"] = {k: attrs.evolve(w) for k, w in self._wanted.items()}
        state["_registered"] = {k: set(v) for k, v in self._registered.items()}
        return state

    def restore(self, state: dict[str, object]) -> None:
        """Back to a :meth:`snapshot` (used once: take another to go back again)."""
        for name in self._STATE:
            setattr(self, name, state[name])

    # --- queries ----------------------------------------------------------------------

    @property
    def clusters(self) -> frozenset[str]:
        """The clusters this queue manager is a member of (it has a CLUSRCVR naming them)."""
        return frozenset(c for r in self._receivers.values() for c in r.clusters)

    def is_full(self, cluster: str) -> bool:
        return cluster in self._full

    def records(self) -> dict[tuple[str, ...], Record]:
        """Every stored record, expired ones and deletion markers included (dumprepos)."""
        return dict(self._records)

    def auto_channels(self) -> dict[str, DefineAutoClussdr]:
        return dict(self._auto)

    def subscriptions(self) -> list[tuple[str, str, str]]:
        """Subscriptions this partial repository holds: (cluster, kind, name)."""
        return sorted((c, k.value, n) for c, k, n in self._wanted)

    def subscribers(self) -> list[Subscription]:
        """Subscriptions this full repository holds for others."""
        return sorted(self._subscribers.values(), key=lambda s: s.key)

    def wanted(self) -> dict[tuple[str, str, str], tuple[float, bool]]:
        """Subscriptions this partial repository made: (cluster, kind, name) -> (when
        made, referenced since), what a restart needs to keep their lifetimes."""
        return {(c, k.value, n): (w.made, w.referenced) for (c, k, n), w in
                self._wanted.items()}

    def load_wanted(self, cluster: str, kind: str, name: str, made: float,
                    referenced: bool) -> list[Action]:
        """Restart: a subscription this queue manager made (``wanted``), kept with its age
        and sent again to the full repositories (a duplicate changes nothing there)."""
        if cluster not in self.clusters or self.is_full(cluster):
            return []
        sub_kind = SubscriptionKind(kind)
        self._wanted[(cluster, sub_kind, name)] = _Wanted(made, referenced)
        actions: list[Action] = []
        self._subscribe_targets(self._subscription(cluster, sub_kind, name), actions)
        return actions

    # --- configuration: CLUSRCVR, CLUSSDR, REPOS, clustered queues ------------------------

    def define_cluster_receiver(self, channel: str, conname: str, clusters: Iterable[str], *,
                                clwlprty: int = 0, clwlrank: int = 0, clwlwght: int = 50,
                                netprty: int = 0,
                                channel_attrs: Mapping[str, object] | None = None
                                ) -> list[Action]:
        """DEFINE/ALTER CHANNEL(channel) CHLTYPE(CLUSRCVR) CLUSTER(...): join or leave.

        Naming a cluster joins it (the queue manager "broadcasts its details"); dropping one
        (``CLUSTER(' ')``) leaves it and "notifies the repository" (seed 001 2.3.4, 2.3.6).
        """
        actions: list[Action] = []
        old = self._receivers.get(channel)
        new = _Receiver(channel, conname, frozenset(c for c in clusters if c.strip()),
                        clwlprty, clwlrank, clwlwght, netprty,
                        channel_attr_pairs(dict(channel_attrs or {})))
        before = self.clusters
        self._receivers[channel] = new
        for cluster in sorted(new.clusters):
            record = self._own_qmgr_record(cluster)
            current = self._records.get(record.key)
            if isinstance(current, ClusterQmgrRecord) and \
                    _unversioned(current) == _unversioned(record):
                continue  # unchanged (a restart re-reading its definitions)
            if cluster not in before:
                self._registered[cluster] = set()  # joining: tell them everything
            self._publish_own(record, actions)
            if cluster not in before:
                for queue in sorted(self._queue_defs):
                    if cluster in self._queue_defs[queue].clusters:
                        self._publish_queue_if_changed(queue, cluster, actions)
                self._publish_topics_on_join(cluster, actions)
        for cluster in sorted((old.clusters if old else frozenset()) - new.clusters):
            self._leave(cluster, actions)
        self._register_all(actions)
        return actions

    def delete_cluster_receiver(self, channel: str) -> list[Action]:
        """DELETE CHANNEL of a CLUSRCVR: leave every cluster it served."""
        actions: list[Action] = []
        old = self._receivers.pop(channel, None)
        for cluster in sorted(old.clusters if old else ()):
            self._leave(cluster, actions)
        return actions

    def define_cluster_sender(self, channel: str, conname: str,
                              clusters: Iterable[str]) -> list[Action]:
        """DEFINE CHANNEL(channel) CHLTYPE(CLUSSDR): an explicit way to a full repository.

        Own records for the clusters it serves go down it at once, with the join
        subscription, so defining CLUSRCVR and CLUSSDR in either order joins the cluster.
        """
        actions: list[Action] = []
        self._senders[channel] = _Sender(channel, conname,
                                         frozenset(c for c in clusters if c.strip()))
        self._sync_auto_channels(actions)
        self._register_all(actions)
        return actions

    def delete_cluster_sender(self, channel: str) -> list[Action]:
        """DELETE CHANNEL of an explicit CLUSSDR."""
        self._senders.pop(channel, None)
        actions: list[Action] = []
        self._sync_auto_channels(actions)
        self._register_all(actions)
        return actions

    def set_repos(self, repos: str = "", reposnl: Iterable[str] = ()) -> list[Action]:
        """ALTER QMGR REPOS(...) / REPOSNL(...): become, or stop being, a full repository.

        Seed 001 2.3.7: the new role is published; a new full repository asks the others for
        everything; one that stops forgets what it held for subscribers.
        """
        new = self._full_set(repos, reposnl)
        gained, lost = new - self._full, self._full - new
        self._full = new
        actions: list[Action] = []
        for cluster in sorted((gained | lost) & self.clusters):
            self._registered[cluster] = set()  # a new role: tell them everything again
            self._publish_own(self._own_qmgr_record(cluster), actions)
            if cluster in lost:
                self._subscribers = {k: s for k, s in self._subscribers.items()
                                     if s.cluster != cluster}
        self._register_all(actions)
        return actions

    def advertise_queue(self, queue: str, clusters: Iterable[str], *,
                        put_enabled: bool = True, defbind: int = CMQC.MQBND_BIND_ON_OPEN,
                        defpsist: bool = False, defprty: int = 0, clwlprty: int = 0,
                        clwlrank: int = 0, clwluseq: str = "QMGR",
                        qtype: str = "QLOCAL") -> list[Action]:
        """DEFINE/ALTER a local queue with CLUSTER(...): publish (or withdraw) its instance.

        Every attribute the cluster sees is here, so ALTER QL PUT(DISABLED) is published
        (seed 001 2.1.3) and CLUSTER(' ') withdraws the queue (seed 001 2.3.5).
        """
        attributes = {"put_enabled": put_enabled, "defbind": defbind, "defpsist": defpsist,
                      "defprty": defprty, "clwlprty": clwlprty, "clwlrank": clwlrank,
                      "clwluseq": clwluseq.upper(), "qtype": qtype}
        new = _QueueDef(frozenset(c for c in clusters if c.strip()), attributes)
        old = self._queue_defs.get(queue)
        self._queue_defs[queue] = new
        actions: list[Action] = []
        for cluster in sorted(new.clusters & self.clusters):
            self._publish_queue_if_changed(queue, cluster, actions)
        for cluster in sorted((old.clusters if old else frozenset()) - new.clusters):
            self._withdraw_queue(queue, cluster, actions)
        if not new.clusters:
            del self._queue_defs[queue]
        return actions

    def withdraw_queue(self, queue: str) -> list[Action]:
        """DELETE QLOCAL of a cluster queue: a deletion marker in every cluster it was in."""
        old = self._queue_defs.pop(queue, None)
        actions: list[Action] = []
        for cluster in sorted(old.clusters if old else ()):
            self._withdraw_queue(queue, cluster, actions)
        return actions

    # --- operator commands ------------------------------------------------------------

    def suspend(self, cluster: str, *, force: bool = False) -> list[Action]:
        """SUSPEND QMGR CLUSTER(cluster) [MODE(FORCE)] (spec operations-dlq-clusters 7.23).

        The queue manager stays a member; others avoid it while they have an alternative.
        FORCE also stops the inbound cluster channels.
        """
        actions = self._set_suspended(cluster, True)
        if force:
            channels = tuple(sorted(r.channel for r in self._receivers.values()
                                    if cluster in r.clusters))
            actions.append(StopClusterReceivers(cluster, channels))
        return actions

    def resume(self, cluster: str) -> list[Action]:
        """RESUME QMGR CLUSTER(cluster): available again."""
        return self._set_suspended(cluster, False)

    def refresh(self, cluster: str, *, repos: bool = False,
                in_doubt_channels: Iterable[str] = ()) -> list[Action]:
        """REFRESH CLUSTER(cluster) [REPOS(YES)] (spec operations-dlq-clusters 7.24).

        Destroys what this queue manager learned about the cluster (keeping its own records
        and, without REPOS(YES), what it knows of the full repositories), deletes the
        auto-defined CLUSSDRs except ``in_doubt_channels`` (the integrator names those in
        doubt and those with messages waiting), then re-publishes itself and re-subscribes.
        REPOS(YES) is refused on a full repository.
        """
        if cluster not in self.clusters:
            raise ClusterCommandError(CMQC.MQRC_CLUSTER_RESOLUTION_ERROR,
                                      f"Queue manager is not a member of cluster {cluster}.")
        if repos and self.is_full(cluster):
            raise ClusterCommandError(CMQCFC.MQRCCF_REPOS_VALUE_ERROR,
                                      "REFRESH CLUSTER REPOS(YES) is not allowed on a full "
                                      "repository.")
        now = self._clock()
        actions: list[Action] = []
        for key, record in list(self._records.items()):
            if record.cluster != cluster or record.qmid == self.qmid:
                continue
            if (not repos and isinstance(record, ClusterQmgrRecord)
                    and record.repository is RepositoryType.FULL and now < record.expiry):
                continue
            del self._records[key]
            actions.append(RemoveRecord(key))
        self._wanted = {k: w for k, w in self._wanted.items() if k[0] != cluster}
        self._subscribers = {k: s for k, s in self._subscribers.items() if s.cluster != cluster}
        self._sync_auto_channels(actions, keep=frozenset(in_doubt_channels))
        self._registered[cluster] = set()
        for record in self._own_live_records(cluster):
            self._publish_own(record, actions)
        self._register_all(actions)
        return actions

    def reset_cluster(self, cluster: str, *, qmname: str = "", qmid: str = "",
                      queues: bool = False) -> list[Action]:
        """RESET CLUSTER(cluster) QMNAME|QMID ACTION(FORCEREMOVE) [QUEUES(NO|YES)] (7.25).

        Full repositories only. Every member is told the queue manager is deleted; that
        deletes the auto-defined CLUSSDRs to it everywhere. Its cluster queues go too only
        with QUEUES(YES) (IBM's default is NO: they stay known, unusable without their host).
        If it is still alive and publishes again, it rejoins (its newer records win).
        """
        if not self.is_full(cluster):
            raise ClusterCommandError(CMQCFC.MQRCCF_ACTION_VALUE_ERROR,
                                      "RESET CLUSTER ACTION(FORCEREMOVE) can be issued only "
                                      "on a full repository queue manager.")
        if bool(qmname) == bool(qmid):
            raise ClusterCommandError(CMQCFC.MQRCCF_Q_MGR_NAME_ERROR,
                                      "Specify one of QMNAME and QMID.")
        victims = [r for r in self._records.values()
                   if isinstance(r, ClusterQmgrRecord) and r.cluster == cluster
                   and r.qmid != self.qmid and (r.qmgr == qmname if qmname else r.qmid == qmid)]
        if not victims or len({v.qmid for v in victims}) > 1:
            raise ClusterCommandError(CMQCFC.MQRCCF_Q_MGR_NAME_ERROR,
                                      f"Queue manager {qmname or qmid} not known uniquely in "
                                      f"cluster {cluster}; use QMID.")
        victim = victims[0]
        now = self._clock()
        marker = DeletionRecord("QMGR", cluster, victim.qmgr, victim.qmid, forced=True,
                                published=now, sequence=victim.sequence + 1,
                                expiry=now + RECORD_LIFETIME, queues=queues)
        # everyone who may hold it: every known member, the victim excepted
        audience = sorted((r for r in self._live_qmgr_records(cluster)
                           if r.qmid not in (self.qmid, victim.qmid)), key=lambda r: r.qmgr)
        actions: list[Action] = []
        self._apply(marker, actions)
        self._subscribers = {k: s for k, s in self._subscribers.items()
                             if s.subscriber_qmid != victim.qmid}
        for record in audience:
            self._send(record.channel, record.qmgr, marker, actions, forwarded=True)
        return actions

    # --- messages from other repositories, and time -------------------------------------

    def receive(self, command: ClusterCommand) -> list[Action]:
        """A message got from SYSTEM.CLUSTER.COMMAND.QUEUE."""
        actions: list[Action] = []
        body = command.body
        if isinstance(body, Subscription):
            self._on_subscription(body, actions)
            return actions
        if body.qmid == self.qmid:
            return actions  # this queue manager is the authority on itself
        changed, old = self._apply(body, actions)
        if changed and isinstance(body, (ClusterQmgrRecord, DeletionRecord)):
            self._register_all(actions)  # the full repositories may have changed
        if not changed or not self.is_full(body.cluster):
            return actions
        skip = {self.qmid, command.sender_qmid, body.qmid}
        if not command.forwarded:
            self._push_to_members(body, old, skip, actions)
            for channel, qmgr, qmid in self._repository_targets(body.cluster, limit=None):
                if qmid not in skip:
                    self._send(channel, qmgr, body, actions, forwarded=True)
        for sub in self._subscribers_for(body, old):
            if sub.subscriber_qmid not in skip:
                self._deliver(sub, body, actions)
        return actions

    def tick(self) -> list[Action]:
        """Run the lifetimes (seed 001 2.1.4; spec operations-dlq-clusters 7.26)."""
        now = self._clock()
        actions: list[Action] = []
        for record in sorted(self._own_records(), key=lambda r: r.key):
            if not isinstance(record, DeletionRecord) and now >= record.published + \
                    REPUBLISH_AFTER and record.cluster in self.clusters:
                self._publish_own(record, actions)
        for (cluster, kind, name), wanted in list(self._wanted.items()):
            if now < wanted.made + REPUBLISH_AFTER:
                continue
            if wanted.referenced and cluster in self.clusters:  # remade
                self._wanted[(cluster, kind, name)] = _Wanted(now)
                self._subscribe_targets(self._subscription(cluster, kind, name), actions)
            else:  # left to expire; made again if needed
                del self._wanted[(cluster, kind, name)]
        self._subscribers = {k: s for k, s in self._subscribers.items() if now < s.expiry}
        for key, record in list(self._records.items()):
            own_live = record.qmid == self.qmid and not isinstance(record, DeletionRecord)
            if not own_live and now >= record.expiry + REMOVE_AFTER_EXPIRY:
                del self._records[key]
                actions.append(RemoveRecord(key))
        self._sync_auto_channels(actions)
        self._register_all(actions)
        return actions

    def load(self, records: Iterable[Record]) -> list[Action]:
        """Restart: the messages of SYSTEM.CLUSTER.REPOSITORY.QUEUE, in any order."""
        for record in records:
            current = self._records.get(record.key)
            if current is None or current.version < record.version:
                self._records[record.key] = record
            if record.qmid == self.qmid:
                self._sequence = max(self._sequence, record.sequence)
        actions: list[Action] = []
        self._sync_auto_channels(actions)
        return actions

    # --- the engine's hook -----------------------------------------------------------

    def resolve_queue(self, queue: str) -> Resolution:
        """MQOPEN/MQPUT1 of a queue not defined locally, or a clustered local queue.

        Returns the instances known now (none: the caller fails MQRC_UNKNOWN_OBJECT_NAME,
        and a retry may succeed once the answer arrives, seed 001 2.3.8) and, on a partial
        repository, the subscription to the queue name at the full repositories.
        """
        actions: list[Action] = []
        for cluster in sorted(self.clusters):
            if not self.is_full(cluster):
                self._want(cluster, SubscriptionKind.QUEUE, queue, actions)
        return Resolution(self.queue_instances(queue), tuple(actions))

    def queue_instances(self, queue: str) -> tuple[QueueInstance, ...]:
        """The usable instances of ``queue``: live records in clusters this qmgr is in."""
        now = self._clock()
        found: dict[str, QueueInstance] = {}
        for record in sorted(self._records.values(), key=lambda r: r.key):
            if not (isinstance(record, ClusterQueueRecord) and record.queue == queue
                    and record.cluster in self.clusters and now < record.expiry):
                continue
            host = self._records.get(("QMGR", record.cluster, record.qmid))
            if not isinstance(host, ClusterQmgrRecord) or now >= host.expiry:
                continue  # no usable way to it (yet)
            local = record.qmid == self.qmid
            found.setdefault(record.qmid, QueueInstance(
                queue=queue, qmgr=record.qmgr, qmid=record.qmid, cluster=record.cluster,
                channel="" if local else host.channel, local=local,
                put_enabled=record.put_enabled, queue_rank=record.clwlrank,
                queue_priority=record.clwlprty, channel_rank=host.clwlrank,
                channel_priority=host.clwlprty, channel_weight=host.clwlwght,
                netprty=host.netprty, suspended=host.suspended, defbind=record.defbind,
                clwluseq=record.clwluseq))
        return tuple(sorted(found.values(), key=lambda i: (i.qmgr, i.qmid)))

    # --- DISPLAY ---------------------------------------------------------------------

    def display_clusqmgr(self, pattern: str = "*",
                         channel_states: Mapping[str, str] | None = None) -> list[dict]:
        """DISPLAY CLUSQMGR(pattern): every known member, itself included (one per cluster);
        STATUS from ``channel_states`` (``display.clusqmgr_rows``)."""
        return display.clusqmgr_rows(self._live_qmgr_records(), self.qmid,
                                     self._senders.values(), self._auto, self._clock(), pattern,
                                     channel_states)

    def display_qcluster(self, pattern: str = "*") -> list[dict]:
        """DISPLAY QCLUSTER(pattern): every known cluster queue instance, own included
        (``display.qcluster_rows``)."""
        return display.qcluster_rows(self._records, self._clock(), pattern)

    # --- internals: own records --------------------------------------------------------

    @staticmethod
    def _full_set(repos: str, reposnl: Iterable[str]) -> frozenset[str]:
        names = [n for n in reposnl if n.strip()]
        if repos.strip() and names:
            raise ClusterCommandError(CMQCFC.MQRCCF_REPOS_NAME_CONFLICT,
                                      "REPOS and REPOSNL cannot both be set.")
        return frozenset(names) | ({repos.strip()} if repos.strip() else frozenset())

    def _receiver_for(self, cluster: str) -> _Receiver:
        for receiver in sorted(self._receivers.values(), key=lambda r: r.channel):
            if cluster in receiver.clusters:
                return receiver
        raise ClusterCommandError(CMQC.MQRC_CLUSTER_RESOLUTION_ERROR,
                                  f"Queue manager is not a member of cluster {cluster}.")

    def _own_qmgr_record(self, cluster: str, suspended: bool | None = None) -> ClusterQmgrRecord:
        receiver = self._receiver_for(cluster)
        current = self._records.get(("QMGR", cluster, self.qmid))
        if suspended is None:
            suspended = isinstance(current, ClusterQmgrRecord) and current.suspended
        role = RepositoryType.FULL if self.is_full(cluster) else RepositoryType.PARTIAL
        return ClusterQmgrRecord(cluster, self.qmgr, self.qmid, receiver.channel,
                                 receiver.conname, role, suspended, receiver.clwlprty,
                                 receiver.clwlrank, receiver.clwlwght, receiver.netprty,
                                 channel_attrs=receiver.channel_attrs)

    def _own_records(self) -> list[Record]:
        return [r for r in self._records.values() if r.qmid == self.qmid]

    def _own_live_records(self, cluster: str) -> list[Record]:
        """Own records of ``cluster`` to (re)send: the queue-manager record first."""
        own = [r for r in self._own_records()
               if r.cluster == cluster and not isinstance(r, DeletionRecord)]
        return sorted(own, key=lambda r: (not isinstance(r, ClusterQmgrRecord), r.key))

    def _publish_own(self, record: Record, actions: list[Action]) -> None:
        """Stamp a new version of an own record, keep it, and send it where it must go."""
        now = self._clock()
        self._sequence += 1
        record = attrs.evolve(record, published=now, sequence=self._sequence,
                              expiry=now + RECORD_LIFETIME)
        old = self._records.get(record.key)
        self._records[record.key] = record
        actions.append(PersistRecord(record))
        for channel, qmgr, _ in self._registered_targets(record.cluster):
            self._send(channel, qmgr, record, actions)
        if self.is_full(record.cluster):
            for sub in self._subscribers_for(record, old):
                self._deliver(sub, record, actions)
            self._push_to_members(record, old, {self.qmid}, actions)

    def _leave(self, cluster: str, actions: list[Action]) -> None:
        """The owner's deletions: its queues first, then itself."""
        for record in self._own_live_records(cluster)[::-1]:
            name = record.queue if isinstance(record, ClusterQueueRecord) else \
                record.topic if isinstance(record, ClusterTopicRecord) else self.qmgr
            kind = record.key[0]
            self._publish_own(DeletionRecord(kind, cluster, name, self.qmid), actions)
        self._wanted = {k: w for k, w in self._wanted.items() if k[0] != cluster}
        self._registered.pop(cluster, None)

    def _publish_queue_if_changed(self, queue: str, cluster: str,
                                  actions: list[Action]) -> None:
        attributes = dict(self._queue_defs[queue].attributes)
        record = ClusterQueueRecord(cluster, queue, self.qmgr, self.qmid, **attributes)
        current = self._records.get(record.key)
        if isinstance(current, ClusterQueueRecord) and \
                _unversioned(current) == _unversioned(record):
            return
        self._publish_own(record, actions)

    def _withdraw_queue(self, queue: str, cluster: str, actions: list[Action]) -> None:
        current = self._records.get(("QUEUE", cluster, queue, self.qmid))
        if isinstance(current, ClusterQueueRecord):
            self._publish_own(DeletionRecord("QUEUE", cluster, queue, self.qmid), actions)

    def _set_suspended(self, cluster: str, suspended: bool) -> list[Action]:
        if cluster not in self.clusters:
            raise ClusterCommandError(CMQC.MQRC_CLUSTER_RESOLUTION_ERROR,
                                      f"Queue manager is not a member of cluster {cluster}.")
        actions: list[Action] = []
        self._publish_own(self._own_qmgr_record(cluster, suspended), actions)
        return actions

    # --- internals: where things go ---------------------------------------------------

    def _live_qmgr_records(self, cluster: str | None = None) -> list[ClusterQmgrRecord]:
        now = self._clock()
        found = [r for r in self._records.values()
                 if isinstance(r, ClusterQmgrRecord) and now < r.expiry
                 and (cluster is None or r.cluster == cluster)]
        return sorted(found, key=lambda r: (r.qmgr, r.cluster, r.qmid))

    def _partner(self, channel: str, cluster: str) -> ClusterQmgrRecord | None:
        for record in self._live_qmgr_records(cluster):
            if record.channel == channel and record.qmid != self.qmid:
                return record
        return None

    def _repository_targets(self, cluster: str, limit: int | None = -1
                            ) -> list[tuple[str, str | None, str]]:
        """(channel, qmgr, qmid) of the full repositories to publish to.

        A full repository uses all of them; a partial one two (``limit`` -1 = by role):
        explicit CLUSSDRs first (unless their partner is known to be partial), then the
        others by name.
        """
        if limit == -1:
            limit = None if self.is_full(cluster) else PUBLISH_TO_FULL_REPOSITORIES
        targets: list[tuple[str, str | None, str]] = []
        seen: set[str] = set()
        for sender in sorted(self._senders.values(), key=lambda s: s.channel):
            if cluster not in sender.clusters:
                continue
            partner = self._partner(sender.channel, cluster)
            if partner is not None and partner.repository is not RepositoryType.FULL:
                continue
            targets.append((sender.channel, partner.qmgr if partner else None,
                            partner.qmid if partner else ""))
            seen.add(sender.channel)
        for record in self._live_qmgr_records(cluster):
            if record.repository is RepositoryType.FULL and record.qmid != self.qmid \
                    and record.channel not in seen:
                targets.append((record.channel, record.qmgr, record.qmid))
                seen.add(record.channel)
        return targets if limit is None else targets[:limit]

    def _send(self, channel: str, qmgr: str | None, body: object, actions: list[Action], *,
              forwarded: bool = False) -> None:
        command = ClusterCommand(self.qmgr, self.qmid, body, forwarded)  # type: ignore[arg-type]
        actions.append(SendCommand(channel, qmgr, command))

    # --- internals: subscriptions ------------------------------------------------------

    def _subscription(self, cluster: str, kind: SubscriptionKind, name: str) -> Subscription:
        now = self._clock()
        return Subscription(cluster, kind, name, self.qmgr, self.qmid,
                            self._receiver_for(cluster).channel, published=now,
                            expiry=now + RECORD_LIFETIME)

    def _join_subscription(self, cluster: str) -> Subscription:
        kind = SubscriptionKind.ALL if self.is_full(cluster) else SubscriptionKind.REPOS
        return self._subscription(cluster, kind, "")

    def _subscribe_targets(self, sub: Subscription, actions: list[Action]) -> None:
        for channel, qmgr, _ in self._registered_targets(sub.cluster):
            self._send(channel, qmgr, sub, actions)

    def _registered_targets(self, cluster: str) -> list[tuple[str, str | None, str]]:
        registered = self._registered.get(cluster, set())
        return [t for t in self._repository_targets(cluster) if t[0] in registered]

    def _register_all(self, actions: list[Action]) -> None:
        """Bring every full repository this queue manager publishes to up to date.

        A full repository becomes a target when an explicit CLUSSDR to it is defined or its
        record arrives (a partial repository uses two). A new target gets all own records,
        the join subscription (REPOS, or ALL from a full repository) and every subscription
        held, so it can answer and forward; a partial repository whose full repository
        stops being one (seed 001 2.3.7) thereby moves its records and subscriptions on.
        """
        for cluster in sorted(self.clusters):
            targets = self._repository_targets(cluster)
            registered = self._registered.setdefault(cluster, set())
            registered.intersection_update(t[0] for t in targets)
            for channel, qmgr, _ in targets:
                if channel in registered:
                    continue
                registered.add(channel)
                for record in self._own_live_records(cluster):
                    self._send(channel, qmgr, record, actions)
                self._send(channel, qmgr, self._join_subscription(cluster), actions)
                for (c, kind, name) in sorted(self._wanted, key=lambda k: (k[1].value, k[2])):
                    if c == cluster:
                        self._send(channel, qmgr, self._subscription(c, kind, name), actions)

    def _want(self, cluster: str, kind: SubscriptionKind, name: str,
              actions: list[Action]) -> None:
        key = (cluster, kind, name)
        if key in self._wanted:
            self._wanted[key].referenced = True
            return
        self._wanted[key] = _Wanted(self._clock())
        self._subscribe_targets(self._subscription(cluster, kind, name), actions)

    def _on_subscription(self, sub: Subscription, actions: list[Action]) -> None:
        """A full repository answers at once with what matches, then keeps it for updates."""
        if not self.is_full(sub.cluster) or sub.subscriber_qmid == self.qmid:
            return
        now = self._clock()
        if sub.kind is not SubscriptionKind.ALL:
            self._subscribers[sub.key] = sub
        live = [r for r in self._records.values()
                if r.cluster == sub.cluster and not isinstance(r, DeletionRecord)
                and now < r.expiry and r.qmid != sub.subscriber_qmid]
        if sub.kind is SubscriptionKind.ALL:
            answer = sorted(live, key=lambda r: (not isinstance(r, ClusterQmgrRecord), r.key))
            for record in answer:
                self._send(sub.channel, sub.subscriber, record, actions, forwarded=True)
            return
        for record in sorted(live, key=lambda r: r.key):
            if self._matches(sub, record):
                self._deliver(sub, record, actions, with_host=True)

    @staticmethod
    def _matches(sub: Subscription, record: Record, old: Record | None = None) -> bool:
        if sub.kind is SubscriptionKind.QUEUE:
            return record.key[0] == "QUEUE" and record.key[2] == sub.name
        if record.key[0] != "QMGR":
            return False
        name = record.qmgr if isinstance(record, ClusterQmgrRecord) else \
            getattr(record, "name", "")
        if sub.kind is SubscriptionKind.QMGR:
            return name == sub.name
        if sub.kind is SubscriptionKind.REPOS:
            return any(isinstance(r, ClusterQmgrRecord) and r.repository is RepositoryType.FULL
                       for r in (record, old))
        return False

    def _subscribers_for(self, record: Record, old: Record | None) -> list[Subscription]:
        now = self._clock()
        return [s for s in sorted(self._subscribers.values(), key=lambda s: s.key)
                if s.cluster == record.cluster and now < s.expiry
                and s.subscriber_qmid != record.qmid and self._matches(s, record, old)]

    def _deliver(self, sub: Subscription, record: Record, actions: list[Action], *,
                 with_host: bool = False) -> None:
        """Send a record to a subscriber; for a queue, the way to its host comes first.

        The subscriber is subscribed to the host implicitly, so it hears of SUSPEND, CONNAME
        changes and removal; an answer (``with_host``) always carries the host's record,
        since the subscriber may have lost it (REFRESH CLUSTER).
        """
        if isinstance(record, ClusterQueueRecord) and record.qmid != sub.subscriber_qmid:
            host = self._records.get(("QMGR", record.cluster, record.qmid))
            implicit = attrs.evolve(sub, kind=SubscriptionKind.QMGR, name=record.qmgr)
            if isinstance(host, ClusterQmgrRecord) and \
                    (with_host or implicit.key not in self._subscribers):
                self._subscribers[implicit.key] = implicit
                self._send(sub.channel, sub.subscriber, host, actions, forwarded=True)
        self._send(sub.channel, sub.subscriber, record, actions, forwarded=True)

    # --- internals: applying records and keeping channels ------------------------------

    def _apply(self, record: Record, actions: list[Action]) -> tuple[bool, Record | None]:
        """Newest version wins; a forced queue-manager deletion with QUEUES(YES) takes its
        queues with it."""
        old = self._records.get(record.key)
        if old is not None and old.version >= record.version:
            return False, old
        self._records[record.key] = record
        actions.append(PersistRecord(record))
        if isinstance(record, DeletionRecord) and record.kind == "QMGR" and record.forced \
                and record.queues:
            for key, queue in list(self._records.items()):
                if isinstance(queue, ClusterQueueRecord) and queue.cluster == record.cluster \
                        and queue.qmid == record.qmid:
                    marker = DeletionRecord("QUEUE", queue.cluster, queue.queue, queue.qmid,
                                            forced=True, published=record.published,
                                            sequence=record.sequence, expiry=record.expiry)
                    self._records[key] = marker
                    actions.append(PersistRecord(marker))
        self._sync_auto_channels(actions)
        return True, old

    def _sync_auto_channels(self, actions: list[Action],
                            keep: frozenset[str] = frozenset()) -> None:
        """One auto CLUSSDR per remote CLUSRCVR this repository holds a record of."""
        wanted: dict[str, DefineAutoClussdr] = {}
        by_channel: dict[str, list[ClusterQmgrRecord]] = {}
        for record in self._records.values():
            if isinstance(record, ClusterQmgrRecord) and record.qmid != self.qmid:
                by_channel.setdefault(record.channel, []).append(record)
        for channel, recs in by_channel.items():
            recs.sort(key=lambda r: r.version, reverse=True)
            top = recs[0]
            wanted[channel] = DefineAutoClussdr(
                channel, top.qmgr, top.qmid, top.conname,
                tuple(sorted({r.cluster for r in recs})), top.clwlprty, top.clwlrank,
                top.clwlwght, top.netprty, top.channel_attrs)
        for channel in sorted(set(self._auto) - set(wanted)):
            if channel in keep:
                continue  # in doubt: REFRESH leaves it
            actions.append(DeleteAutoClussdr(channel, self._auto.pop(channel).qmgr))
        for channel in sorted(wanted):
            if self._auto.get(channel) != wanted[channel]:
                self._auto[channel] = wanted[channel]
                actions.append(wanted[channel])
