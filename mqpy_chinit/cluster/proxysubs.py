"""Which proxy subscriptions a queue manager sends, as a sans-IO state machine.

IBM's rules for a direct-routed publish/subscribe cluster, as built here:

1. A subscription on this queue manager to a topic string at or below a cluster topic's
   topic string makes this queue manager send a *proxy subscription* for that topic string
   to every other queue manager in the cluster ("all queue managers with subscriptions to
   clustered topics create channels to all other queue managers in the cluster and inform
   them of their subscriptions"). One proxy subscription stands for every local
   subscription to the same topic string.
2. A subscription with wildcards resolves where its levels before the first wildcard end
   (``sports/+/goals`` at ``sports``): at or below a cluster topic it is sent with its own
   topic string; above every cluster topic (``#``, ``+/+/goals``, ``sports/#`` above
   ``sports/football``) it is sent nowhere and gets the local publications only, and
   those that other subscriptions here bring (IBM, "Defining cluster topics": wildcard
   subscriptions). A character-based wildcard is sent as ``#`` back to the nearest ``/``
   (``topicstrings.topic_based``; IBM, "Wildcards in proxy subscriptions").
3. When the last local subscription to a topic string goes, or the cluster topic does, or
   the queue manager leaves, its proxy subscriptions are withdrawn; a member that joins is
   sent every proxy subscription that stands.
4. Proxy subscriptions (those other queue managers made here), and subscriptions whose
   destination is SYSTEM.INTER.QMGR.PUBS, are not themselves sent on.
5. What was sent before a restart is not remembered: the first time this machine sees a
   member it sends it a *resync* first, which removes every proxy subscription this queue
   manager made there, then what stands now (IBM's queue managers resynchronise their
   proxy subscriptions in the same way); so a subscription removed while the channel
   initiator was down stops its flow too.

:meth:`ProxySubscriptions.update` takes the whole state (local subscriptions, cluster
topics, members) and returns what to send and withdraw; nothing here opens a queue. The
integrator (``pubsubdaemon``) carries the actions out and calls :meth:`done` for each one
carried out, so one that could not be made is tried again at the next update.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from mqpy.pubsub import topicstrings

__all__ = ["ProxySubscriptions", "Resync", "SendProxy", "WithdrawProxy", "proxy_topics"]


@attrs.frozen
class SendProxy:
    """Send a proxy subscription for ``topicstr`` (of ``cluster``) to ``qmgr``."""

    qmgr: str
    cluster: str
    topicstr: str


@attrs.frozen
class WithdrawProxy:
    """Withdraw the proxy subscription for ``topicstr`` (of ``cluster``) at ``qmgr``."""

    qmgr: str
    cluster: str
    topicstr: str


@attrs.frozen
class Resync:
    """Tell ``qmgr`` to drop every proxy subscription this queue manager made there (rule
    5); the sends that follow make those that stand again."""

    qmgr: str


Action = SendProxy | WithdrawProxy | Resync


def _below(topic: str, base: str) -> bool:
    return topic == base or topic.startswith(base + topicstrings.SEPARATOR)


def proxy_topics(subscription: str, cluster_topic: str) -> str | None:
    """The topic string of the proxy subscription a local subscription to ``subscription``
    (topic-based scheme) needs for the cluster topic at ``cluster_topic`` (rules 1, 2), or
    None: the subscription resolves where its levels before the first wildcard end."""
    fixed = topicstrings.levels(subscription)[:topicstrings.fixed_prefix_levels(subscription)]
    if fixed and _below(topicstrings.SEPARATOR.join(fixed), cluster_topic):
        return subscription
    return None


class ProxySubscriptions:
    """The proxy subscriptions one queue manager has sent (rule 3's memory)."""

    def __init__(self, qmgr: str) -> None:
        self.qmgr = qmgr
        self._sent: set[SendProxy] = set()
        self._synced: set[str] = set()  # members told to resync since start (rule 5)

    def sent(self) -> frozenset[SendProxy]:
        return frozenset(self._sent)

    def wanted(self, local: Iterable[str], topics: Iterable[tuple[str, str]],
               members: Mapping[str, Iterable[str]]) -> set[SendProxy]:
        """What should stand: ``local`` the topic strings of local subscriptions (rule 4's
        already left out), ``topics`` (cluster, topic string) of the cluster topics,
        ``members`` the other queue managers of each cluster."""
        out: set[SendProxy] = set()
        subs = set(local)
        for cluster, base in topics:
            for sub in subs:
                proxy = proxy_topics(sub, base)
                if proxy is None:
                    continue
                for qmgr in members.get(cluster, ()):
                    if qmgr != self.qmgr:
                        out.add(SendProxy(qmgr, cluster, proxy))
        return out

    def update(self, local: Iterable[str], topics: Iterable[tuple[str, str]],
               members: Mapping[str, Iterable[str]]) -> list[Action]:
        """The sends and withdrawals that bring what stands to what should (rules 1-3).
        A member not yet told to resync is told that alone; what it should have follows
        at the next update, once the resync is on its way (rule 5)."""
        topics = list(topics)
        clustered = {c for c, _ in topics}
        unsynced = {m for c, ms in members.items() if c in clustered for m in ms} \
            - self._synced - {self.qmgr}
        wanted = {w for w in self.wanted(local, topics, members) if w.qmgr not in unsynced}
        actions: list[Action] = [Resync(qmgr) for qmgr in sorted(unsynced)]
        for gone in sorted(self._sent - wanted, key=attrs.astuple):
            actions.append(WithdrawProxy(gone.qmgr, gone.cluster, gone.topicstr))
        actions.extend(sorted(wanted - self._sent, key=attrs.astuple))
        return actions

    def done(self, action: Action) -> None:
        """``action`` was carried out (its message is on its way)."""
        if isinstance(action, Resync):
            self._synced.add(action.qmgr)
        elif isinstance(action, SendProxy):
            self._sent.add(action)
        else:
            self._sent.discard(SendProxy(action.qmgr, action.cluster, action.topicstr))

    def forget(self, qmgr: str) -> None:
        """Send everything to ``qmgr`` again at the next update (it asked to be resynced,
        as a queue manager does after a REFRESH CLUSTER or a restart without its state)."""
        self._sent = {s for s in self._sent if s.qmgr != qmgr}
        self._synced.discard(qmgr)
