"""Publish/subscribe between queue managers: what the engine itself knows of it.

IBM's distributed publish/subscribe, as built here for clustered topics with direct routing
(the work is the channel initiator's publish/subscribe task, ``mqpy_chinit.cluster.
pubsubdaemon``; this module holds the names and the engine's two rules):

- The system queues: SYSTEM.INTER.QMGR.CONTROL (proxy subscriptions from other queue
  managers), SYSTEM.INTER.QMGR.PUBS (publications from other queue managers),
  SYSTEM.INTER.QMGR.FANREQ (the proxy-subscription fan-out requests).
- A *proxy subscription* is the subscription the task makes here on behalf of another queue
  manager: durable, SUBTYPE(PROXY), its destination SYSTEM.INTER.QMGR.PUBS at that queue
  manager (DESTQMGR), so each matching publication is sent there through the cluster
  channels, persistent ones exactly once as any message. The task's MQSUB, made under the
  connection name :data:`PUBSUB_DAEMON_APPL`, is what makes a subscription a proxy one.
- A local subscription made or ended at or below a cluster topic asks the channel
  initiator's task for a fan-out (:func:`request_fan_out`: a non-persistent message on
  SYSTEM.INTER.QMGR.FANREQ, as IBM's queue manager asks its publish/subscribe engine), so
  the proxy subscriptions follow at once and the task has no clock to watch.
- A publication that came from another queue manager (the task republishes it here under
  that connection name) goes to the local subscriptions only, never to a proxy
  subscription: with direct routing the publishing queue manager sends it to every queue
  manager that wants it, so it must not travel on.
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.structs.tables import MD

__all__ = ["CONTROL_QUEUE", "cluster_topic_of", "FANREQ_FORMAT", "FANREQ_QUEUE", "PROXY_FORMAT",
           "PUBS_QUEUE", "PUBSUB_DAEMON_APPL", "by_pubsub_daemon", "proxy_name",
           "request_fan_out"]

CONTROL_QUEUE = "SYSTEM.INTER.QMGR.CONTROL"
PUBS_QUEUE = "SYSTEM.INTER.QMGR.PUBS"
FANREQ_QUEUE = "SYSTEM.INTER.QMGR.FANREQ"
#: the application name the channel initiator's publish/subscribe task connects with
PUBSUB_DAEMON_APPL = "mqpy PUBSUB DAEMON"
#: MQMD.Format of a proxy subscription request on SYSTEM.INTER.QMGR.CONTROL (mqpy's own:
#: IBM's internal format is not published)
PROXY_FORMAT = "MQPYPROX"
#: MQMD.Format of a fan-out request on SYSTEM.INTER.QMGR.FANREQ (mqpy's own, as above)
FANREQ_FORMAT = "MQPYFANR"


def by_pubsub_daemon(conn: Any) -> bool:
    """Whether ``conn`` is the publish/subscribe task's connection."""
    return bytes(conn.appl_name).rstrip(b" \x00").decode("latin-1") == PUBSUB_DAEMON_APPL


def cluster_topic_of(eng: Any, topic: str) -> dict[str, str] | None:
    """The cluster topic ``topic`` is at or below (the deepest one), as the repository
    manager's cluster cache gives them; None when it is in no cluster topic's subtree."""
    known = getattr(eng.cluster, "cluster_topics", None)
    found = None
    for t in known() if known is not None else ():
        base = t.get("TOPICSTR", "")
        if (topic == base or topic.startswith(base + "/")) and \
                (found is None or len(base) > len(found["TOPICSTR"])):
            found = t
    return found


def request_fan_out(eng: Any, sub: Any) -> bool:
    """Ask the channel initiator's task to fan out, if ``sub`` (a subscription just made or
    ended, under the engine's lock) is one whose proxy subscriptions it sends: a local one
    (not a proxy subscription, not delivered to SYSTEM.INTER.QMGR.PUBS) at or below a
    cluster topic. Whether the request was put (none without a cluster topic above it, or
    without the queue; the task also fans out at every repository change)."""
    if sub.proxy or sub.dest == PUBS_QUEUE or cluster_topic_of(eng, sub.topic) is None:
        return False
    md = MD(Format=FANREQ_FORMAT.encode(), Persistence=CMQC.MQPER_NOT_PERSISTENT)
    return eng._system_put(FANREQ_QUEUE, "", md, b"", dead_letter=False)


def proxy_name(origin: str, cluster: str, topicstr: str) -> str:
    """A proxy subscription's SUBNAME, as IBM names them: SYSTEM.PROXY.<qmgr> <cluster>
    <topic string>."""
    return f"SYSTEM.PROXY.{origin} {cluster} {topicstr}"
