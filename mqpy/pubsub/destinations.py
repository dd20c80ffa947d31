"""Where a subscription's copies go when the destination is not a local queue.

IBM's rules, as built here:

1. A subscription's destination is a queue name and, optionally, a queue manager (MQSD: the
   queue the application opened, at the queue manager it named; DEFINE SUB: DEST and
   DESTQMGR). It is resolved at each publication as an MQOPEN for output would resolve it:
   a local queue; a remote queue definition (QREMOTE); a queue at another queue manager
   through the transmission queue for it; and, in a cluster, a cluster queue hosted
   elsewhere, or a queue at a cluster queue manager, through SYSTEM.CLUSTER.TRANSMIT.QUEUE
   on the cluster-sender channel to its host (the workload algorithm choosing an instance at
   each publication when the cluster queue's DEFBIND is NOTFIXED).
2. MQSUB with a provided destination opened at another queue manager (MQOD.ObjectQMgrName)
   keeps that queue and queue manager as DEST and DESTQMGR; a remote queue definition or an
   alias opened keeps its own name, so a later change to it applies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqpy import CMQC
from mqpy.engine import resolution
from mqpy.engine.cluster import ClusterRoute
from mqpy.errors import MQMIError

if TYPE_CHECKING:
    from mqpy.engine.connection import Connection
    from mqpy.engine.handle import Handle
    from mqpy.pubsub.subscription import Subscription

__all__ = ["dest_of", "in_cluster", "resolve"]


def dest_of(h: Handle) -> tuple[str, str]:
    """(DEST, DESTQMGR) of a provided destination opened as ``h`` (rule 2)."""
    if h.obj.objtype in ("QREMOTE", "QALIAS") or not h.remote_q:
        return h.obj.name, ""
    return h.remote_q, h.remote_qm or ""  # the opened object is the transmission queue


def in_cluster(eng: object, queue: str) -> bool:
    """Whether ``queue``, not defined here, is a cluster queue the cluster knows (DEFINE
    SUB DEST of a cluster queue hosted elsewhere, rule 1)."""
    cluster = getattr(eng, "cluster", None)
    if cluster is None:
        return False
    try:
        return cluster.open(queue, "", CMQC.MQOO_OUTPUT) is not None
    except MQMIError:
        return False


def resolve(conn: Connection, sub: Subscription
            ) -> tuple[resolution.Resolved, ClusterRoute | None]:
    """The destination of ``sub`` for one copy, and its cluster route if it goes through the
    cluster (None: a local queue, or a transmission queue of the queue manager's own)
    (rule 1). Raises MQMIError as MQOPEN would (2085, 2087 ...)."""
    eng = conn.engine
    try:
        return resolution.resolve(eng.catalog, eng.name, sub.dest, sub.dest_qmgr), None
    except MQMIError as err:
        if eng.cluster is None:
            raise
        res, route = conn._cluster_open(err, sub.dest, sub.dest_qmgr, CMQC.MQOO_OUTPUT)
    if not route.fixed:
        route = eng.cluster.put(route)
        if route.local:
            return resolution.resolve(eng.catalog, eng.name, route.queue, ""), None
        res = conn._cluster_resolved(sub.dest, route)
    return res, route
