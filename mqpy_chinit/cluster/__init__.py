"""Queue-manager clusters (issue 9): the pure core, with no I/O.

- ``records``: the records a repository holds and exchanges, and their byte form.
- ``repository``: one queue manager's repository as a state machine returning actions.
- ``workload``: IBM's cluster workload management algorithm.

The channel initiator carries out the repository's actions (puts on SYSTEM.CLUSTER.TRANSMIT.
QUEUE, auto-defined CLUSSDRs, SYSTEM.CLUSTER.REPOSITORY.QUEUE) and the engine calls
``Repository.resolve_queue`` and ``workload.choose_destination`` for cluster queues.
"""

from .records import (
    ClusterCommand,
    ClusterQmgrRecord,
    ClusterQueueRecord,
    DeletionRecord,
    RecordFormatError,
    RepositoryType,
    Subscription,
    SubscriptionKind,
    decode,
    encode,
)
from .repository import (
    Action,
    ClusterCommandError,
    DefineAutoClussdr,
    DeleteAutoClussdr,
    PersistRecord,
    RemoveRecord,
    Repository,
    Resolution,
    SendCommand,
    StopClusterReceivers,
)
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
