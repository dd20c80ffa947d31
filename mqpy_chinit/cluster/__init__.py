"""Queue-manager clusters.

The pure core, with no I/O:

- ``records``: the records a repository holds and exchanges, and their byte form.
- ``repository``: one queue manager's repository as a state machine returning actions
  (``actions``), with its DISPLAY CLUSQMGR / QCLUSTER rows (``display``).
- ``workload``: IBM's cluster workload management algorithm.
- ``config``: the local definitions (CLUSRCVR, CLUSSDR, clustered queues, REPOS) from DISPLAYs.

Wired in:

- ``manager``: the repository manager, a task of the channel initiator, carries out the
  repository's actions (SYSTEM.CLUSTER.COMMAND.QUEUE, SYSTEM.CLUSTER.REPOSITORY.QUEUE,
  SYSTEM.CLUSTER.TRANSMIT.QUEUE, auto-defined cluster senders) and writes the cluster cache;
  ``transmitq``: its work on SYSTEM.CLUSTER.TRANSMIT.QUEUE (waiting channels, re-routing,
  dead-lettering); ``supervisor``: the channel initiator restarts it when it fails.
- ``directory``: the cache, and the engine's ``ClusterDirectory`` reading it
  (``mqpy.engine.cluster``), which runs ``workload.choose_destination`` at MQOPEN/MQPUT.
- ``utilities``: dumprepos and clusxq (MS0G).
"""

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
    ClusterCommand,
    ClusterQmgrRecord,
    ClusterQueueRecord,
    ClusterTopicRecord,
    DeletionRecord,
    RecordFormatError,
    RepositoryType,
    Subscription,
    SubscriptionKind,
    decode,
    encode,
)
from .repository import Repository
from .workload import (
    QueueInstance,
    RoundRobinState,
    WorkloadChoice,
    choose_destination,
    effective_bind,
    may_reroute,
    reroute,
)

__all__ = [
    "Action",
    "ClusterCommand",
    "ClusterCommandError",
    "ClusterQmgrRecord",
    "ClusterQueueRecord",
    "ClusterTopicRecord",
    "DefineAutoClussdr",
    "DeleteAutoClussdr",
    "DeletionRecord",
    "PersistRecord",
    "QueueInstance",
    "RecordFormatError",
    "RemoveRecord",
    "Repository",
    "RepositoryType",
    "Resolution",
    "RoundRobinState",
    "SendCommand",
    "StopClusterReceivers",
    "Subscription",
    "SubscriptionKind",
    "WorkloadChoice",
    "choose_destination",
    "decode",
    "effective_bind",
    "encode",
    "may_reroute",
    "reroute",
]
