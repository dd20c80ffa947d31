"""The CPU, memory and disk figures of the CPU and DISK classes, read from this machine
(``/proc/stat``, ``/proc/meminfo``, the load average, file systems' usage) and this process
(``os.times``, its resident memory). Percentages of an interval are taken between two
readings. Where the machine does not give a figure (no ``/proc``), it is left out and
published as 0."""

from __future__ import annotations

import contextlib
import os
import shutil
import time


def _proc_cpu() -> tuple[float, float, float] | None:
    """(user, system, total) ticks of every CPU since boot."""
    try:
        with open("/proc/stat") as f:
            fields = [float(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    if len(fields) < 4:
        return None
    user = fields[0] + fields[1]
    system = fields[2] + sum(fields[5:7])
    return user, system, sum(fields[:8])


def _meminfo() -> dict[str, float]:
    out: dict[str, float] = {}
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/meminfo") as f:
            for line in f:
                key, rest = line.split(":", 1)
                out[key] = float(rest.split()[0]) * 1024
    return out


def _rss() -> float:
    with contextlib.suppress(OSError, ValueError, IndexError):
        with open("/proc/self/statm") as f:
            return float(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    return 0.0


def _disk(path: str, prefix: str, out: dict[str, float]) -> None:
    with contextlib.suppress(OSError):
        usage = shutil.disk_usage(path)
        out[prefix + ".used"] = usage.used
        out[prefix + ".max"] = usage.total
        out[prefix + ".free"] = usage.free * 100 / usage.total if usage.total else 0.0


class Platform:
    """Readings of the machine and the queue manager's process; each :meth:`sample` gives
    the CPU use since the one before."""

    def __init__(self, qmdir: str, log_dir: str) -> None:
        self.qmdir, self.log_dir = qmdir, log_dir
        self.errors_dir = os.path.join(qmdir, "errors")
        self._cpu = _proc_cpu()
        self._times = (os.times(), time.monotonic())

    def _cpu_figures(self, out: dict[str, float]) -> None:
        now = _proc_cpu()
        if now is not None and self._cpu is not None and now[2] > self._cpu[2]:
            span = now[2] - self._cpu[2]
            out["cpu.user"] = (now[0] - self._cpu[0]) * 100 / span
            out["cpu.system"] = (now[1] - self._cpu[1]) * 100 / span
        self._cpu = now
        times, wall = os.times(), time.monotonic()
        before, then = self._times
        capacity = (wall - then) * (os.cpu_count() or 1)
        if capacity > 0:
            out["qm.cpu.user"] = (times.user - before.user) * 100 / capacity
            out["qm.cpu.system"] = (times.system - before.system) * 100 / capacity
        self._times = (times, wall)
        with contextlib.suppress(OSError):
            out["cpu.load1"], out["cpu.load5"], out["cpu.load15"] = os.getloadavg()

    def sample(self) -> dict[str, float]:
        out: dict[str, float] = {}
        self._cpu_figures(out)
        mem = _meminfo()
        total = mem.get("MemTotal", 0.0)
        if total:
            out["ram.total"] = total
            out["ram.free"] = mem.get("MemAvailable", mem.get("MemFree", 0.0)) * 100 / total
        out["qm.ram"] = _rss()
        _disk(self.errors_dir, "errors", out)
        _disk(self.qmdir, "qmfs", out)
        _disk(self.log_dir, "logfs", out)
        with contextlib.suppress(OSError):
            out["fdc.count"] = sum(1 for n in os.listdir(self.errors_dir)
                                   if n.upper().endswith(".FDC"))
        return out
