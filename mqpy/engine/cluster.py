"""The engine's seam to queue-manager clusters: how MQOPEN/MQPUT1 reach a cluster queue.

The engine knows nothing of repositories (that is the channel initiator's repository manager,
``mqpy_chinit.cluster``) and must not import it. It asks a :class:`ClusterDirectory`, set on
``QueueManagerEngine.cluster`` by whoever starts the engine (``mqpy.inprocess.start``), only when a
name does not resolve locally: a queue not defined here (MQRC_UNKNOWN_OBJECT_NAME) or a queue
manager with no transmission queue (MQRC_UNKNOWN_REMOTE_Q_MGR). A directory answers with a
:class:`ClusterRoute`: the message goes on ``xmitq`` (SYSTEM.CLUSTER.TRANSMIT.QUEUE) with an
MQXQH naming ``remote_q`` at ``remote_qm`` and with CorrelId ``correl_id`` (the cluster-sender
channel, which gets only the messages keyed to it).

How the knowledge crosses processes: the repository manager writes what the repository knows
(the instances of every cluster queue, the cluster queue managers, the state of the cluster
senders) to a cache file in the queue-manager directory, replacing it atomically; the
directory reads it again when it changed, and runs the workload algorithm itself, so the
round-robin state lives with the queue manager that makes the choices. The file is derived
data, rebuilt from SYSTEM.CLUSTER.REPOSITORY.QUEUE whenever the channel initiator starts.

When a name is unknown, :meth:`ClusterDirectory.unknown` may give a request that the engine
puts on SYSTEM.CLUSTER.COMMAND.QUEUE (Format :data:`REQUEST_FORMAT`): the repository manager
then subscribes to the name at the full repositories, and a later MQOPEN finds it (seed 001:
"retry a put").
"""

from __future__ import annotations

from typing import Protocol

import attrs

COMMAND_QUEUE = "SYSTEM.CLUSTER.COMMAND.QUEUE"
#: MQMD.Format of a local request to the repository manager (a name wanted, definitions
#: changed); messages from other repositories carry the records' own format.
REQUEST_FORMAT = "MQPYCLRQ"


@attrs.frozen
class ClusterRoute:
    """Where messages for a cluster queue go. ``fixed`` False (BIND_NOT_FIXED): the
    destination is chosen again at every MQPUT through :meth:`ClusterDirectory.put`."""

    queue: str
    xmitq: str
    remote_q: str
    remote_qm: str
    correl_id: bytes
    fixed: bool = True
    defpsist: bool = False
    defprty: int = 0
    #: the queue has a local instance that competes with the others (CLWLUSEQ(ANY))
    with_local: bool = False
    #: this choice is that local instance: the message goes on the local queue ``queue``
    local: bool = False


#: The application name a CLUSRCVR's MCA connects with: its puts are "put by a cluster
#: channel" (IBM's MQWXP_PUT_BY_CLUSTER_CHL), which always take the local instance.
CLUSTER_RECEIVER_APPL = "mqpy CLUSRCVR MCA"


class ClusterDirectory(Protocol):
    def open(self, queue: str, qmgr: str, options: int, *,
             local_instance: bool = False) -> ClusterRoute | None:
        """MQOPEN/MQPUT1 of ``queue`` (at cluster queue manager ``qmgr``, or "" for any
        instance); None when the cluster knows no such queue. Raises MQMIError (2268...).
        ``local_instance``: the queue is also a local queue here, clustered with
        CLWLUSEQ(ANY): it competes with the remote instances, and a route with ``local``
        set means the local queue was chosen."""

    def put(self, route: ClusterRoute, *, local_enabled: bool = True) -> ClusterRoute:
        """The route for one MQPUT: ``route`` itself when bound, else a new choice (2051
        when every instance is put-inhibited). ``local_enabled``: for a route
        ``with_local``, whether the local queue is put-enabled now (the engine knows it
        before any cache does)."""

    def unknown(self, queue: str) -> bytes | None:
        """A request body for the repository manager about an unknown name, or None."""
