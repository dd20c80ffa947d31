"""The faults of a chaos run, chosen at random (seeded) and applied at random moments, each
followed by what an operator does about it. A fault is recorded with its time (seconds
since the run began), its kind, its target and what was done.

Kinds: SIGKILL of a queue manager's daemon (then strmqm), of its channel initiator (the
daemon restarts it), of its runmqlsr (then runmqlsr again) or of an application (restarted,
a new instance); a link cut, delayed, reset or partitioned one way for a while; STOP
CHANNEL then START CHANNEL; an operator's RESOLVE CHANNEL (the channel stopped, the
sender's batch in doubt compared with the receiver's last committed one, as IBM's procedure
says); a full file system for a while (only where the run has one of its own: root); traffic
control on a queue manager's veth pair for a while -- delay, loss, reordering with netem, a
narrow link without it, a partition one way or both (only where the queue managers have
hosts of their own, tests.chaos.netns: root).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable

import attrs

from mqpy import CMQCFC
from tests.chaos.faultproxy import DIRECTIONS
from tests.chaos.topology import NAMES, Topology, kill
from tests.chaos.workload import APPS, Workload

#: kind -> weight
KINDS = {"kill_daemon": 2, "kill_chinit": 2, "kill_listener": 1, "kill_app": 2,
         "net_cut": 2, "net_delay": 1, "net_reset": 2, "net_one_way": 1,
         "stop_start_channel": 1, "resolve_channel": 1, "full_fs": 1, "net_tc": 2}
#: a net_tc fault's directions: one way, or both
TC_DIRECTIONS = ("s2r", "r2s", "both")
#: sending channels an operator may stop, resolve or restart: channel -> (sender, receiver)
SENDERS = {"A.TO.B": ("QMA", "QMB"), "B.TO.A": ("QMB", "QMA"), "TO.QMC": ("QMB", "QMC"),
           "TO.QMB": ("QMC", "QMB")}


@attrs.define
class Fault:
    at: float
    kind: str
    target: str
    detail: str = ""
    until: float = 0.0  # when its effect ends (a link fault, a full file system)


class Faults:
    def __init__(self, net: Topology, apps: Workload, rng, began: float,
                 filler: Callable[[float], str] | None = None) -> None:
        """``filler(seconds)``: fills the run's file system for that long (None: there is
        none of the run's own, and no full_fs fault)."""
        self.net = net
        self.apps = apps
        self.rng = rng
        self.began = began
        self.filler = filler
        self.done: list[Fault] = []
        self.kinds = {k: w for k, w in KINDS.items()
                      if (k != "full_fs" or filler is not None)
                      and (k != "net_tc" or net.hosts is not None)}
        self.timers: list[threading.Timer] = []

    def now(self) -> float:
        return round(time.monotonic() - self.began, 2)

    def inject(self) -> Fault:
        """One fault of a random kind; the operator's answer to it."""
        kind = self.rng.choices(list(self.kinds), list(self.kinds.values()))[0]
        fault = Fault(self.now(), kind, "")
        getattr(self, kind)(fault)
        if not fault.until:
            fault.until = self.now()
        healed = self.net.heal() + self.apps.heal()
        if healed:
            fault.detail += ("; " if fault.detail else "") + ", ".join(healed)
        self.done.append(fault)
        return fault

    def effects_end(self) -> float:
        """When the last fault's effect ends (run seconds)."""
        return max((f.until for f in self.done), default=0.0)

    # -- processes ---------------------------------------------------------------------

    def kill_daemon(self, fault: Fault) -> None:
        fault.target = self.rng.choice(NAMES)
        pid = self.net.kill_daemon(fault.target)
        fault.detail = f"pid {pid}"
        time.sleep(self.rng.uniform(0.2, 2.0))

    def kill_chinit(self, fault: Fault) -> None:
        fault.target = self.rng.choice(NAMES)
        pid = self.net.site.chinit_pid(fault.target)
        if pid is not None:
            kill(pid)
        fault.detail = f"pid {pid} (the daemon restarts it)"

    def kill_listener(self, fault: Fault) -> None:
        """The runmqlsr for client applications, or, with hosts of their own, the one for
        channels in the queue manager's namespace."""
        fault.target = self.rng.choice(NAMES)
        hosted = bool(self.net.hosted) and self.rng.random() < 0.5
        proc = (self.net.hosted if hosted else self.net.listeners)[fault.target]
        kill(proc.pid)
        proc.wait(10)
        fault.detail = f"runmqlsr{' (channels, its namespace)' if hosted else ''} pid {proc.pid}"
        time.sleep(self.rng.uniform(0.2, 2.0))

    def kill_app(self, fault: Fault) -> None:
        apps = [*APPS, "runmqdlq"]
        fault.target = self.rng.choice(apps)
        if fault.target == "runmqdlq":
            proc = self.net.dlq_handler
            kill(proc.pid)
            proc.wait(10)
            fault.detail = f"pid {proc.pid}"
        else:
            fault.detail = f"instance {self.apps.kill(fault.target)}"

    # -- the network -------------------------------------------------------------------

    def _link(self, fault: Fault):
        fault.target = self.rng.choice(NAMES)
        return self.net.links[fault.target]

    def net_cut(self, fault: Fault) -> None:
        seconds = self.rng.uniform(1, 6)
        self._link(fault).cut(seconds)
        fault.detail, fault.until = f"{seconds:.1f}s", self.now() + seconds

    def net_delay(self, fault: Fault) -> None:
        seconds, latency = self.rng.uniform(2, 8), self.rng.uniform(0.05, 0.5)
        self._link(fault).delay(seconds, latency)
        fault.detail = f"{seconds:.1f}s of {latency * 1000:.0f} ms"
        fault.until = self.now() + seconds

    def net_reset(self, fault: Fault) -> None:
        self._link(fault).reset()

    def net_one_way(self, fault: Fault) -> None:
        seconds, direction = self.rng.uniform(2, 10), self.rng.choice(DIRECTIONS)
        self._link(fault).one_way(direction, seconds)
        fault.detail = f"{direction} blocked {seconds:.1f}s"
        fault.until = self.now() + seconds

    def net_tc(self, fault: Fault) -> None:
        """A queue manager's veth pair shaped one way or both for 2-8 s, then cleared."""
        hosts = self.net.hosts
        fault.target = self.rng.choice(NAMES)
        shape = self.rng.choice(sorted(hosts.shapes))
        way = self.rng.choice(TC_DIRECTIONS)
        seconds = self.rng.uniform(2, 8)
        ms, percent = self.rng.randint(50, 400), self.rng.randint(5, 30)
        kbit = self.rng.choice((64, 128, 256))
        args = hosts.shapes[shape].format(ms=ms, jitter=ms // 4, percent=percent, kbit=kbit)
        ways = DIRECTIONS if way == "both" else (way,)
        for direction in ways:
            hosts.shape(fault.target, direction, args)
        timer = threading.Timer(seconds, self._clear_tc, (fault.target, ways))
        timer.start()
        self.timers.append(timer)
        fault.detail = f"{shape} {way} ({args}) {seconds:.1f}s"
        fault.until = self.now() + seconds

    def _clear_tc(self, name: str, ways: tuple[str, ...]) -> None:
        for direction in ways:
            self.net.hosts.clear(name, direction)

    def heal_network(self) -> None:
        """Every traffic control of the run's cleared now (the run's end)."""
        for timer in self.timers:
            timer.cancel()
        if self.net.hosts is not None:
            self.net.hosts.clear_all()

    def full_fs(self, fault: Fault) -> None:
        seconds = self.rng.uniform(2, 6)
        fault.target = "file system"
        fault.detail = self.filler(seconds)
        fault.until = self.now() + seconds

    # -- operators' commands -----------------------------------------------------------

    def stop_start_channel(self, fault: Fault) -> None:
        fault.target = self.rng.choice(list(SENDERS))
        sender = SENDERS[fault.target][0]
        stop = self.operator(sender, f"STOP CHANNEL({fault.target})")
        time.sleep(self.rng.uniform(0.5, 3))
        start = self.operator(sender, f"START CHANNEL({fault.target})")
        fault.detail = f"{_ids(stop)} / {_ids(start)}"

    def resolve_channel(self, fault: Fault) -> None:
        """STOP CHANNEL MODE(FORCE); once it is STOPPED (IBM's procedure: a running
        channel's batch is not the operator's to resolve), if its batch is in doubt, COMMIT
        when the receiver's last committed unit of work is it (LSTLUWID = the sender's
        CURLUWID), else BACKOUT; START CHANNEL. The receiver's LSTLUWID is read once its end
        of the channel has ended too: until then the batch may still arrive (bytes a
        partitioned network delivers late) and be committed there, and a BACKOUT would
        send it again -- IBM: a resolution unlike the receiving end's loses or duplicates
        messages."""
        fault.target = self.rng.choice(list(SENDERS))
        sender, receiver = SENDERS[fault.target]
        self.operator(sender, f"STOP CHANNEL({fault.target}) MODE(FORCE)")
        self.wait_stopped(sender, fault.target)
        mine = _saved(self.net.command(sender, f"DISPLAY CHSTATUS({fault.target}) SAVED"))
        action = "BACKOUT"
        if mine.get("INDOUBT") == "YES":
            if not self.wait_ended(receiver, fault.target):
                fault.detail = "receiving end still running after 30 s; "
            theirs = _saved(self.net.command(
                receiver, f"DISPLAY CHSTATUS({fault.target}) SAVED"))
            if theirs.get("LSTLUWID") == mine.get("CURLUWID"):
                action = "COMMIT"
        answer = self.net.command(sender, f"RESOLVE CHANNEL({fault.target}) ACTION({action})")
        start = self.operator(sender, f"START CHANNEL({fault.target})")
        fault.detail += (f"in doubt {mine.get('INDOUBT', '?')}: {action} {_ids(answer)} / "
                         f"{_ids(start)}")

    def wait_stopped(self, qmgr: str, channel: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self.net.command(qmgr, f"DISPLAY CHSTATUS({channel}) STATUS")
            if "STATUS(STOPPED)" in reply:
                return
            time.sleep(0.2)

    def wait_ended(self, qmgr: str, channel: str, timeout: float = 30) -> bool:
        """Whether ``channel`` at ``qmgr`` (its receiving end) has no running instance
        within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            reply = self.net.command(qmgr, f"DISPLAY CHSTATUS({channel}) STATUS")
            if not _ACTIVE.search(reply):
                return True
            time.sleep(0.2)
        return False

    def operator(self, qmgr: str, command: str, timeout: float = 30) -> str:
        """``command`` issued again, as an operator would, while the channel initiator is
        not there to take it (it was just killed and its daemon is restarting it)."""
        deadline = time.monotonic() + timeout
        while True:
            reply = self.net.command(qmgr, command)
            if f"({CMQCFC.MQRCCF_NO_CHANNEL_INITIATOR:X})" not in reply or \
                    time.monotonic() > deadline:
                return reply
            time.sleep(1)


#: a channel instance's states while it runs
_ACTIVE = re.compile(r"STATUS\((?:RUNNING|STOPPING|STARTING|BINDING|INITIALIZING|REQUESTING|"
                     r"PAUSED|SWITCHING)\)")


def _ids(reply: str) -> str:
    """The AMQ message ids of a reply."""
    return ",".join(re.findall(r"AMQ\d{4}[IWE]", reply)) or reply[:60]


def _saved(reply: str) -> dict[str, str]:
    """DISPLAY CHSTATUS SAVED's first row, as keyword -> value."""
    return dict(re.findall(r"(\w+)\(([^)]*)\)", reply.split("AMQ8417I", 2)[1])) \
        if "AMQ8417I" in reply else {}


class Filler:
    """Fills a file system of the run's own for a while (a thread frees it)."""

    def __init__(self, mount: str) -> None:
        self.path = f"{mount}/filler"

    def __call__(self, seconds: float) -> str:
        stats = os.statvfs(os.path.dirname(self.path))
        free = stats.f_bavail * stats.f_frsize
        with open(self.path, "wb") as f:
            try:
                os.posix_fallocate(f.fileno(), 0, max(free - 64 * 1024, 4096))
            except OSError:
                pass
        threading.Timer(seconds, self.free).start()
        return f"{free >> 20} MB filled for {seconds:.1f}s"

    def free(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
