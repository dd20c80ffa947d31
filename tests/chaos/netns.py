"""Hosts of their own for the chaos run's queue managers: a network namespace each, joined
to the machine's namespace by a veth pair, so that traffic control (``tc``) on the pair acts
on real TCP -- delay, loss, reordering, a one-way partition -- and nothing leaves the
machine. The run puts each queue manager's channel listener (a runmqlsr started with
``ip netns exec``) inside its namespace, on the inner end's address; every channel into that
queue manager then crosses the pair (see docs/chaos.md, "The network").

Names and addresses are unique per run (a random tag; the namespace's name also carries the
pid of the process that made it), and :func:`hosts_for` removes every namespace and veth
pair it made whatever happens (a ``finally``); a run killed outright (SIGKILL, where no
``finally`` runs) leaves them, and the next run's :func:`sweep` removes them. Where namespaces cannot be
made (not root, no ``ip`` or ``tc``, a kernel without veth), :func:`unavailable` says why.

Directions, as the links name them: ``s2r`` is toward the queue manager (the outer end's
egress), ``r2s`` back from it (the inner end's egress, set inside the namespace). The kernel
may lack ``netem`` (a container's): shapes are then built from the queueing disciplines it
has -- a one-way partition from a FIFO that holds nothing (``pfifo limit 0``: every packet
that way dropped, TCP retransmitting until it heals), a narrow link from a token bucket
(``tbf``: queueing delay, then tail drop); reordering needs netem and is left out.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shutil
import subprocess
from collections.abc import Iterator

import attrs

TOOLS = ("ip", "tc")
DIRECTIONS = ("s2r", "r2s")
#: the shapes a kernel with netem offers: name -> tc qdisc arguments (a format, filled by
#: :meth:`Hosts.shape_args`)
NETEM_SHAPES = {
    "delay": "netem delay {ms}ms {jitter}ms",
    "loss": "netem loss {percent}%",
    "reorder": "netem delay {ms}ms reorder {percent}% 50%",
    "partition": "netem loss 100%",
}
#: what a kernel without netem still offers
PLAIN_SHAPES = {
    "narrow": "tbf rate {kbit}kbit burst 1540 latency {ms}ms",
    "partition": "pfifo limit 0",
}


def unavailable() -> str | None:
    """Why namespaces cannot be made here (None: they can)."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    if missing:
        return f"no {' or '.join(missing)} on this machine"
    return None


def _run(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=30)
    if check and proc.returncode != 0:
        raise NamespaceError(f"{' '.join(argv)}: {proc.stderr.strip() or proc.returncode}")
    return proc


#: a namespace of a chaos run: the pid that made it
_OURS = re.compile(r"^mqchaos-(\d+)-[0-9a-f]+-\w+$")


def sweep() -> list[str]:
    """Every chaos run's namespace whose maker is no longer running, removed (its veth pair
    goes with it): their names."""
    out = _run("ip", "netns", "list", check=False).stdout
    gone = []
    for line in out.splitlines():
        name = line.split()[0] if line.split() else ""
        m = _OURS.match(name)
        if m and not os.path.exists(f"/proc/{m.group(1)}"):
            _run("ip", "netns", "del", name, check=False)
            gone.append(name)
    return gone


class NamespaceError(RuntimeError):
    """An ip or tc command failed."""


@attrs.define
class Host:
    """One queue manager's namespace and the veth pair into it."""

    name: str
    netns: str
    outer: str  # the veth end in the machine's namespace
    inner: str  # the end inside the namespace
    outer_addr: str
    addr: str  # the inner end's address: where the listener binds

    def device(self, direction: str) -> tuple[list[str], str]:
        """The command prefix and the device whose egress carries ``direction``."""
        if direction == "s2r":
            return [], self.outer
        return ["ip", "netns", "exec", self.netns], self.inner


class Hosts:
    """The namespaces of one run, by queue manager name."""

    def __init__(self, names: tuple[str, ...], tag: str | None = None) -> None:
        r = random.SystemRandom().getrandbits(24)
        self.tag = tag or f"{r:06x}"
        net = f"10.{100 + (r >> 8) % 100}.{r % 250}"
        self.hosts = {name: Host(name, f"mqchaos-{os.getpid()}-{self.tag}-{name}",
                                 f"mqc{self.tag}{i}o",
                                 f"mqc{self.tag}{i}i", f"{net}.{4 * i + 1}",
                                 f"{net}.{4 * i + 2}")
                      for i, name in enumerate(names)}
        self.netem = False
        self.made: list[Host] = []
        self.shaped: set[tuple[str, str]] = set()

    def __getitem__(self, name: str) -> Host:
        return self.hosts[name]

    @property
    def shapes(self) -> dict[str, str]:
        return NETEM_SHAPES if self.netem else PLAIN_SHAPES

    def open(self) -> None:
        for host in self.hosts.values():
            _run("ip", "netns", "add", host.netns)
            self.made.append(host)
            _run("ip", "link", "add", host.outer, "type", "veth", "peer", "name", host.inner,
                 "netns", host.netns)
            _run("ip", "addr", "add", f"{host.outer_addr}/30", "dev", host.outer)
            _run("ip", "link", "set", host.outer, "up")
            inside = ["ip", "-n", host.netns]
            _run(*inside, "addr", "add", f"{host.addr}/30", "dev", host.inner)
            _run(*inside, "link", "set", host.inner, "up")
            _run(*inside, "link", "set", "lo", "up")
        self.netem = self._has_netem()

    def _has_netem(self) -> bool:
        host = next(iter(self.hosts.values()))
        ok = _run("tc", "qdisc", "add", "dev", host.outer, "root", "netem", "delay", "1ms",
                  check=False).returncode == 0
        _run("tc", "qdisc", "del", "dev", host.outer, "root", check=False)
        return ok

    def close(self) -> None:
        """Every namespace and veth pair made, removed (errors ignored: a cleanup)."""
        for host in reversed(self.made):
            _run("ip", "link", "del", host.outer, check=False)
            _run("ip", "netns", "del", host.netns, check=False)
        self.made.clear()
        self.shaped.clear()

    def exec_in(self, name: str, argv: list[str]) -> list[str]:
        """``argv`` run inside ``name``'s namespace."""
        return ["ip", "netns", "exec", self.hosts[name].netns, *argv]

    # -- traffic control ---------------------------------------------------------------

    def shape(self, name: str, direction: str, args: str) -> None:
        """``args`` (a root qdisc) on the egress carrying ``direction`` of ``name``'s pair."""
        prefix, device = self.hosts[name].device(direction)
        _run(*prefix, "tc", "qdisc", "replace", "dev", device, "root", *args.split())
        self.shaped.add((name, direction))

    def clear(self, name: str, direction: str) -> None:
        """That direction as the veth pair is made: no qdisc of the run's."""
        prefix, device = self.hosts[name].device(direction)
        _run(*prefix, "tc", "qdisc", "del", "dev", device, "root", check=False)
        self.shaped.discard((name, direction))

    def clear_all(self) -> None:
        for name, direction in list(self.shaped):
            self.clear(name, direction)

    def names(self) -> set[str]:
        """The namespaces of this run that exist now (``ip netns list``)."""
        out = _run("ip", "netns", "list", check=False).stdout
        return {line.split()[0] for line in out.splitlines()
                if line.split() and line.split()[0].endswith(
                    tuple(f"-{self.tag}-{name}" for name in self.hosts))}

    def links(self) -> set[str]:
        """The veth ends of this run in the machine's namespace now."""
        out = _run("ip", "-o", "link", "show", check=False).stdout
        ends = {line.split(":", 2)[1].strip().split("@")[0]
                for line in out.splitlines() if line.count(":") >= 2}
        return {end for end in ends if end.startswith(f"mqc{self.tag}")}


@contextlib.contextmanager
def hosts_for(names: tuple[str, ...]) -> Iterator[Hosts]:
    """The namespaces of ``names``, made; removed when the block ends, however it ends."""
    sweep()
    hosts = Hosts(names)
    try:
        hosts.open()
        yield hosts
    finally:
        hosts.close()
