"""What a cluster repository (``repository.py``) asks its driver to do, as immutable values:
the repository manager carries them out (``manager.py``), the simulator delivers them
(tests/cluster_core/sim.py). Also what a repository answers: the queue instances it knows
(:class:`Resolution`) and the refusal of a command (:class:`ClusterCommandError`).
"""

from __future__ import annotations

from typing import Union

import attrs

from .records import ClusterCommand, Record
from .workload import QueueInstance


@attrs.frozen
class SendCommand:
    """Put ``command`` for SYSTEM.CLUSTER.COMMAND.QUEUE at ``qmgr`` via CLUSSDR ``channel``.

    ``qmgr`` is None when only an explicit CLUSSDR is known (its partner's name arrives with
    the partner's own record): address the message by the channel alone.
    """

    channel: str
    qmgr: str | None
    command: ClusterCommand


@attrs.frozen
class DefineAutoClussdr:
    """Define (or replace) the auto-defined CLUSSDR to a queue manager (DEFTYPE CLUSSDRA)."""

    channel: str
    qmgr: str
    qmid: str
    conname: str
    clusters: tuple[str, ...]
    clwlprty: int = 0
    clwlrank: int = 0
    clwlwght: int = 50
    netprty: int = 0
    #: the partner's CLUSRCVR attributes it takes (channeldefs.CLUSRCVR_TO_CLUSSDR)
    channel_attrs: tuple[tuple[str, str | int], ...] = ()


@attrs.frozen
class DeleteAutoClussdr:
    """Delete an auto-defined CLUSSDR no record names any longer."""

    channel: str
    qmgr: str


@attrs.frozen
class StopClusterReceivers:
    """SUSPEND QMGR MODE(FORCE): stop every inbound channel of these CLUSRCVRs."""

    cluster: str
    channels: tuple[str, ...]


@attrs.frozen
class PersistRecord:
    """Keep ``record`` on SYSTEM.CLUSTER.REPOSITORY.QUEUE, replacing any message with its key."""

    record: Record


@attrs.frozen
class RemoveRecord:
    """Remove the message with this key from SYSTEM.CLUSTER.REPOSITORY.QUEUE."""

    key: tuple[str, ...]


Action = Union[SendCommand, DefineAutoClussdr, DeleteAutoClussdr, StopClusterReceivers,
               PersistRecord, RemoveRecord]


class ClusterCommandError(Exception):
    """A cluster command refused; ``reason`` is the MQRC/MQRCCF the command server returns."""

    def __init__(self, reason: int, text: str) -> None:
        super().__init__(reason, text)
        self.reason = reason
        self.text = text

    def __str__(self) -> str:
        return f"{self.text} (reason {self.reason})"


@attrs.frozen
class Resolution:
    """What :meth:`Repository.resolve_queue` knows now, and the subscriptions it made."""

    instances: tuple[QueueInstance, ...]
    actions: tuple[Action, ...]
