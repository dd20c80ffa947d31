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

The package loads none of them itself: a name asked of it loads its module then.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: each name the package offers -> the module of the package that defines it. The modules
#: are loaded when a name is first asked for (:func:`__getattr__`), not with the package:
#: ``mqpy_cli.chinit`` needs only ``directory`` to start, and the repository manager
#: (``supervisor``, ``manager``) loads the rest as it starts
_WHERE = {
    **dict.fromkeys(("Action", "ClusterCommandError", "DefineAutoClussdr",
                     "DeleteAutoClussdr", "PersistRecord", "RemoveRecord", "Resolution",
                     "SendCommand", "StopClusterReceivers"), "actions"),
    **dict.fromkeys(("ClusterCommand", "ClusterQmgrRecord", "ClusterQueueRecord",
                     "ClusterTopicRecord", "DeletionRecord", "RecordFormatError",
                     "RepositoryType", "Subscription", "SubscriptionKind", "decode",
                     "encode"), "records"),
    "Repository": "repository",
    **dict.fromkeys(("QueueInstance", "RoundRobinState", "WorkloadChoice",
                     "choose_destination", "effective_bind", "may_reroute", "reroute"),
                    "workload"),
}


def __getattr__(name: str) -> Any:
    """A name of the package (:data:`_WHERE`), its module loaded now. (A submodule,
    ``from mqpy_chinit.cluster import utilities``, is the import system's: it loads it.)"""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # the next look finds it at once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


if TYPE_CHECKING:  # what a type checker and an editor see: the names, eagerly
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
