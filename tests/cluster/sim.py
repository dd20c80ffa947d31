"""A simulated network of repositories: each one's SendCommand actions are delivered to the
owner of the CLUSRCVR named by the channel, through the byte form (encode/decode), until quiet.
"""

from __future__ import annotations

from collections import deque

from mqpy_chinit.cluster import (
    ClusterCommand,
    DefineAutoClussdr,
    DeleteAutoClussdr,
    Repository,
    SendCommand,
    decode,
    encode,
)
from mqpy_chinit.cluster.records import DAY

CLUSTER = "INVENTORY"


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, days: float) -> None:
        self.now += days * DAY


class Network:
    def __init__(self) -> None:
        self.clock = Clock()
        self.repos: dict[str, Repository] = {}
        self.owner: dict[str, str] = {}  # CLUSRCVR name -> queue manager
        self.offline: set[str] = set()
        self.actions: dict[str, list] = {}  # every non-send action, per queue manager
        self.delivered: list[tuple[str, str, ClusterCommand]] = []  # (from, to, command)
        self.held: list[tuple[str, SendCommand]] = []

    def add(self, name: str, *, repos: str = "") -> Repository:
        repo = Repository(name, f"{name}_2024-01-01_00.00.00", self.clock, repos=repos)
        self.repos[name] = repo
        self.owner[f"TO.{name}"] = name
        self.actions[name] = []
        return repo

    def do(self, name: str, actions: list) -> None:
        """Carry out ``name``'s actions and everything they cause."""
        work = deque((name, a) for a in actions)
        while work:
            sender, action = work.popleft()
            if not isinstance(action, SendCommand):
                self.actions[sender].append(action)
                continue
            target = self.owner[action.channel]
            assert action.qmgr in (None, target), (action.qmgr, target)
            if sender in self.offline or target in self.offline:
                self.held.append((sender, action))
                continue
            command = decode(encode(action.command))
            assert command == action.command
            self.delivered.append((sender, target, command))
            work.extend((target, a) for a in self.repos[target].receive(command))

    def join(self, name: str, full_repository: str | None = None, **clwl) -> None:
        """Seed 001 2.3.6: DEF CHL CLUSRCVR, DEF CHL CLUSSDR to a full repository."""
        repo = self.repos[name]
        self.do(name, repo.define_cluster_receiver(f"TO.{name}", f"{name.lower()}(1414)",
                                                   [CLUSTER], **clwl))
        if full_repository:
            self.do(name, repo.define_cluster_sender(
                f"TO.{full_repository}", f"{full_repository.lower()}(1414)", [CLUSTER]))

    def tick(self, *names: str) -> None:
        for name in names or list(self.repos):
            if name not in self.offline:
                self.do(name, self.repos[name].tick())

    def auto_channels(self, name: str) -> set[str]:
        return set(self.repos[name].auto_channels())

    def defined_or_deleted(self, name: str, kind: type) -> list:
        return [a for a in self.actions[name] if isinstance(a, kind)]


def four_qmgr_cluster() -> Network:
    """FR1 and FR2 full repositories (explicit CLUSSDRs both ways), P1 -> FR1, P2 -> FR2."""
    net = Network()
    net.add("FR1", repos=CLUSTER)
    net.add("FR2", repos=CLUSTER)
    net.add("P1")
    net.add("P2")
    net.join("FR1", "FR2")
    net.join("FR2", "FR1")
    net.join("P1", "FR1")
    net.join("P2", "FR2")
    return net


def clusqmgrs(net: Network, name: str) -> dict[str, dict]:
    return {row["CLUSQMGR"]: row for row in net.repos[name].display_clusqmgr()}


__all__ = ["CLUSTER", "Clock", "DefineAutoClussdr", "DeleteAutoClussdr", "Network",
           "clusqmgrs", "four_qmgr_cluster"]
