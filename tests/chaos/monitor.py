"""What each process of a chaos run uses, sampled in a thread every ``interval`` seconds:
resident memory and open files (from /proc) of every daemon, channel initiator, listener,
dead-letter handler and application, and each queue manager's log use (the bytes of its log
directory). The latencies come from the applications' histories (``L`` lines)."""

from __future__ import annotations

import os
import threading
import time

from tests.chaos.topology import NAMES, Topology
from tests.chaos.workload import Workload


def resident(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def open_files(pid: int) -> int | None:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None


def directory_bytes(path: str) -> int:
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(folder, name))
            except OSError:
                pass
    return total


class Monitor:
    def __init__(self, net: Topology, apps: Workload, interval: float, began: float) -> None:
        self.net = net
        self.apps = apps
        self.interval = interval
        self.began = began
        self.samples: list[dict] = []  # {t, process, pid, rss, fds}
        self.log_use: list[dict] = []  # {t, qmgr, bytes}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="chaos-monitor")

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(30)
        self.sample()  # the last figures, after the run

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def sample(self) -> None:
        t = round(time.monotonic() - self.began, 1)
        for label, pid in {**self.net.processes(), **self.apps.pids()}.items():
            rss, fds = resident(pid), open_files(pid)
            if rss is not None:
                self.samples.append({"t": t, "process": label, "pid": pid, "rss": rss,
                                     "fds": fds})
        for name in NAMES:
            self.log_use.append({"t": t, "qmgr": name, "bytes": directory_bytes(
                os.path.join(self.net.site.qmdir(name), "log"))})
