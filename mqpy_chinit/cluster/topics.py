"""Clustered topics in the repository (a part of :class:`repository.Repository`, kept apart).

IBM's rules, as built here (publish/subscribe clusters, direct routing):

1. A TOPIC object with CLUSTER(name) is a *cluster topic*; the queue manager that defines it
   (the cluster topic host) publishes a :class:`ClusterTopicRecord` to its full repositories,
   as it does a cluster queue's record; ALTER ... CLUSTER(' ') or DELETE TOPIC withdraws it
   (a deletion record).
2. Full repositories *push* cluster topic records to every member of the cluster, asked or
   not ("the full repositories then propagate the cluster topic definition to all queue
   managers within the cluster").
3. With direct routing, "knowledge of all other queue managers in the cluster is
   automatically pushed to all queue managers in the cluster by the full repository queue
   managers": once a cluster has a direct-routed topic, a full repository sends every
   member's queue-manager record to every other member (so each defines a cluster-sender
   channel to each), and a member that joins later is sent all of them and every topic.

What is not built: topic host routing (CLROUTE(TOPICHOST) topics are published and shown,
but routed as DIRECT), CLUSNL on topics.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable

import attrs

from mqpy.mqsc import display

from .actions import Action
from .records import ClusterQmgrRecord, ClusterTopicRecord, DeletionRecord, Record

__all__ = ["ClusterTopics", "TopicDef"]


@attrs.frozen
class TopicDef:
    """A local TOPIC object with CLUSTER: what its record says."""

    topicstr: str
    clusters: frozenset[str]
    clroute: str = "DIRECT"
    pub_enabled: bool = True
    sub_enabled: bool = True


class ClusterTopics:
    """The cluster-topic part of a repository (mixed into ``Repository``)."""

    qmgr: str
    qmid: str
    _clock: Callable[[], float]
    _records: dict[tuple[str, ...], Record]
    _topic_defs: dict[str, TopicDef]

    # provided by Repository
    clusters: frozenset[str]
    is_full: Callable[[str], bool]
    _publish_own: Callable[[Record, list[Action]], None]
    _live_qmgr_records: Callable[..., list[ClusterQmgrRecord]]
    _send: Callable[..., None]

    # --- configuration ------------------------------------------------------------------

    def advertise_topic(self, topic: str, topicstr: str, clusters: Iterable[str], *,
                        clroute: str = "DIRECT", pub_enabled: bool = True,
                        sub_enabled: bool = True) -> list[Action]:
        """DEFINE/ALTER TOPIC(topic) with CLUSTER(...): publish (or withdraw) its record."""
        new = TopicDef(topicstr, frozenset(c for c in clusters if c.strip()),
                       clroute.upper() or "DIRECT", pub_enabled, sub_enabled)
        old = self._topic_defs.get(topic)
        self._topic_defs[topic] = new
        actions: list[Action] = []
        for cluster in sorted(new.clusters & self.clusters):
            self._publish_topic_if_changed(topic, cluster, actions)
        for cluster in sorted((old.clusters if old else frozenset()) - new.clusters):
            self._withdraw_topic(topic, cluster, actions)
        if not new.clusters:
            del self._topic_defs[topic]
        return actions

    def withdraw_topic(self, topic: str) -> list[Action]:
        """DELETE TOPIC of a cluster topic: a deletion marker in every cluster it was in."""
        old = self._topic_defs.pop(topic, None)
        actions: list[Action] = []
        for cluster in sorted(old.clusters if old else ()):
            self._withdraw_topic(topic, cluster, actions)
        return actions

    def local_topics(self) -> dict[str, TopicDef]:
        return dict(self._topic_defs)

    # --- queries ------------------------------------------------------------------------

    def cluster_topics(self) -> list[ClusterTopicRecord]:
        """The live cluster topic records of the clusters this queue manager is in, its own
        included (DISPLAY TCLUSTER, and the topics proxy subscriptions are made for)."""
        now = self._clock()
        found = [r for r in self._records.values()
                 if isinstance(r, ClusterTopicRecord) and now < r.expiry
                 and r.cluster in self.clusters]
        return sorted(found, key=lambda r: (r.topicstr, r.cluster, r.qmgr))

    def display_tcluster(self, pattern: str = "*") -> list[dict[str, object]]:
        """DISPLAY TCLUSTER(pattern): every cluster topic known, own included."""
        rows = []
        for r in self.cluster_topics():
            if not fnmatch.fnmatchcase(r.topic, pattern):
                continue
            date, time_ = display.date_time(r.published)
            rows.append({"TOPIC": r.topic, "TYPE": "CLUSTER", "CLUSTER": r.cluster,
                         "CLUSQMGR": r.qmgr, "TOPICSTR": r.topicstr, "CLROUTE": r.clroute,
                         "QMID": r.qmid, "CLSTATE": "ACTIVE",
                         "PUB": "ENABLED" if r.pub_enabled else "DISABLED",
                         "SUB": "ENABLED" if r.sub_enabled else "DISABLED",
                         "CLUSDATE": date, "CLUSTIME": time_})
        return rows

    def members(self, cluster: str) -> list[ClusterQmgrRecord]:
        """The other live members of ``cluster`` this queue manager knows."""
        return [r for r in self._live_qmgr_records(cluster) if r.qmid != self.qmid]

    # --- internals ----------------------------------------------------------------------

    def _publish_topics_on_join(self, cluster: str, actions: list[Action]) -> None:
        for topic in sorted(self._topic_defs):
            if cluster in self._topic_defs[topic].clusters:
                self._publish_topic_if_changed(topic, cluster, actions)

    def _publish_topic_if_changed(self, topic: str, cluster: str,
                                  actions: list[Action]) -> None:
        d = self._topic_defs[topic]
        record = ClusterTopicRecord(cluster, topic, d.topicstr, self.qmgr, self.qmid,
                                    d.clroute, d.pub_enabled, d.sub_enabled)
        current = self._records.get(record.key)
        if isinstance(current, ClusterTopicRecord) and attrs.evolve(
                current, published=0.0, sequence=0, expiry=0.0) == record:
            return
        self._publish_own(record, actions)

    def _withdraw_topic(self, topic: str, cluster: str, actions: list[Action]) -> None:
        current = self._records.get(("TOPIC", cluster, topic, self.qmid))
        if isinstance(current, ClusterTopicRecord):
            self._publish_own(DeletionRecord("TOPIC", cluster, topic, self.qmid), actions)

    def _has_direct_topics(self, cluster: str) -> bool:
        now = self._clock()
        return any(isinstance(r, ClusterTopicRecord) and r.cluster == cluster
                   and now < r.expiry for r in self._records.values())

    def _push_to_members(self, record: Record, old: Record | None, skip: set[str],
                         actions: list[Action]) -> None:
        """A full repository's pushes (rules 2 and 3) after ``record`` changed here."""
        cluster = record.cluster
        if not self.is_full(cluster):
            return
        kind = record.key[0]
        members = [m for m in self.members(cluster) if m.qmid not in skip
                   and m.qmid != record.qmid]
        if kind == "TOPIC":
            for member in members:
                self._send(member.channel, member.qmgr, record, actions, forwarded=True)
            if old is None and isinstance(record, ClusterTopicRecord):
                self._push_all_members(cluster, actions)
            return
        if kind != "QMGR" or not self._has_direct_topics(cluster):
            return
        for member in members:
            self._send(member.channel, member.qmgr, record, actions, forwarded=True)
        if isinstance(record, ClusterQmgrRecord) and not isinstance(old, ClusterQmgrRecord) \
                and record.qmid != self.qmid:
            self._push_everything_to(record, actions)

    def _push_all_members(self, cluster: str, actions: list[Action]) -> None:
        """Every member's queue-manager record to every other member (rule 3)."""
        members = self.members(cluster)
        for target in members:
            for other in members:
                if other.qmid != target.qmid:
                    self._send(target.channel, target.qmgr, other, actions, forwarded=True)

    def _push_everything_to(self, newcomer: ClusterQmgrRecord, actions: list[Action]) -> None:
        """A member that joins a cluster with cluster topics: every other member and every
        topic (rules 2 and 3)."""
        now = self._clock()
        for other in self._live_qmgr_records(newcomer.cluster):
            if other.qmid not in (newcomer.qmid, self.qmid):
                self._send(newcomer.channel, newcomer.qmgr, other, actions, forwarded=True)
        for topic in self._records.values():
            if isinstance(topic, ClusterTopicRecord) and topic.cluster == newcomer.cluster \
                    and now < topic.expiry and topic.qmid != newcomer.qmid:
                self._send(newcomer.channel, newcomer.qmgr, topic, actions, forwarded=True)
