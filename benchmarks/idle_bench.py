"""What an idle queue manager costs, and what its start costs; JSON.

    python -m benchmarks.idle_bench [--out FILE] [--quick] [--runs N] [--settle S]
                                    [--window S] [--against-path DIR] [--against PYTHON]
                                    [--cluster]

Each run starts a queue manager of its own (``crtmqm`` once, default configuration:
``strmqm`` starts its channel initiator and command server; no application connects),
times ``strmqm`` until it returns (the daemon serves and its channel initiator serves
SYSTEM.CHANNEL.INITQ: the command's own CPU from ``wait4``, its wall time, and the CPU the
daemon and the channel initiator had used by then), waits ``--settle`` seconds, then reads,
over ``--window`` seconds of idleness, for the daemon and for the channel initiator:

- ``cpu_s_per_min``: CPU seconds (user+system, all threads: ``/proc/PID/stat``, 10 ms
  ticks) per idle minute;
- ``wakeups_per_min``: context switches per idle minute, summed over the process's
  threads (``/proc/PID/task/TID/status``: voluntary ones are the sleeps a timer, a poll or
  a wait ended, involuntary ones the preemptions). A thread that ended within the window
  takes its count with it, so this is a floor.

With ``--cluster`` the queue manager is, once started, made the full repository of a
cluster of its own (ALTER QMGR REPOS, a CLUSRCVR; runmqsc, not timed), so that its
repository manager and cluster publish/subscribe tasks are at work in the idle window.

``endmqm -i`` ends it. ``--against-path`` runs a second side with ``PYTHONPATH`` set to
another checkout (a ``git worktree`` of an older commit), with this interpreter unless
``--against`` names another: each run starts the two sides one after the other, alternating
which goes first, and measures their idle windows together, so that the load of a shared
machine falls on both alike. Figures are medians over the runs; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks.bindings_bench import _commit
from benchmarks.startup_bench import proc_cpu

QMGR = "IDLEB"
CONTROL = "import sys\nfrom mqpy_cli.control import {0}\nsys.argv[0] = '{0}'\n{0}()"
RUNMQSC = "import sys\nfrom mqpy_cli.runmqsc import runmqsc\nsys.argv[0] = 'runmqsc'\nrunmqsc()"
CLUSTER = "IDLEBC"
#: what --cluster runs once strmqm has returned
JOIN = (f"ALTER QMGR REPOS({CLUSTER})\n"
        f"DEFINE CHANNEL(TO.{QMGR}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1(1)') "
        f"CLUSTER({CLUSTER}) REPLACE\n")


def thread_switches(pid: int | None) -> dict[int, int]:
    """Each live thread of ``pid``: its context switches so far (voluntary + involuntary)."""
    out: dict[int, int] = {}
    if pid is None:
        return out
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                text = f.read()
        except OSError:
            continue
        count = 0
        for line in text.splitlines():
            if "ctxt_switches:" in line:
                count += int(line.split()[1])
        out[int(tid)] = count
    return out


def switches_between(before: dict[int, int], after: dict[int, int]) -> int:
    """Context switches from ``before`` to ``after``: a thread new since counts whole."""
    return sum(n - before.get(tid, 0) for tid, n in after.items())


def read_pid(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class Side:
    """One side of the comparison: its interpreter, environment and queue manager."""

    def __init__(self, name: str, python: str, env: dict[str, str]) -> None:
        self.name, self.python, self.env = name, python, env
        self.root = env["MQPY_DATA_PATH"]
        self.qmdir = os.path.join(self.root, "qmgrs", QMGR)
        self.samples: dict[str, list[float]] = {}
        self._before: tuple = ()

    def command(self, verb: str, *args: str) -> tuple[float, float]:
        """(CPU seconds, wall seconds) of one control command, as its console script runs."""
        t = time.perf_counter()
        proc = subprocess.Popen([self.python, "-c", CONTROL.format(verb), *args],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=self.env, cwd=self.root)
        _, status, ru = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) not in (0, 5):
            raise RuntimeError(f"{verb} {args}: exit {os.waitstatus_to_exitcode(status)}")
        return ru.ru_utime + ru.ru_stime, time.perf_counter() - t

    def pids(self) -> tuple[int | None, int | None]:
        return (read_pid(os.path.join(self.qmdir, "qm.lock")),
                read_pid(os.path.join(self.qmdir, "chinit.pid")))

    def add(self, name: str, value: float) -> None:
        self.samples.setdefault(name, []).append(value)

    def create(self) -> None:
        os.makedirs(self.root, exist_ok=True)
        self.command("crtmqm", QMGR)

    def start(self, cluster: bool = False) -> None:
        cpu, wall = self.command("strmqm", QMGR)
        daemon, chinit = self.pids()
        self.add("strmqm_cpu_s", cpu)
        self.add("strmqm_wall_s", wall)
        self.add("daemon_cpu_at_start_s", proc_cpu(daemon))
        self.add("chinit_cpu_at_start_s", proc_cpu(chinit))
        if cluster:
            subprocess.run([self.python, "-c", RUNMQSC, QMGR], input=JOIN.encode(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=self.env, cwd=self.root, check=True, timeout=120)

    def begin_window(self) -> None:
        daemon, chinit = self.pids()
        self._before = (time.monotonic(), proc_cpu(daemon), proc_cpu(chinit),
                        thread_switches(daemon), thread_switches(chinit))

    def end_window(self) -> None:
        daemon, chinit = self.pids()
        began, dcpu, ccpu, dsw, csw = self._before
        minutes = (time.monotonic() - began) / 60
        self.add("daemon_cpu_s_per_min", (proc_cpu(daemon) - dcpu) / minutes)
        self.add("chinit_cpu_s_per_min", (proc_cpu(chinit) - ccpu) / minutes)
        self.add("daemon_wakeups_per_min",
                 switches_between(dsw, thread_switches(daemon)) / minutes)
        self.add("chinit_wakeups_per_min",
                 switches_between(csw, thread_switches(chinit)) / minutes)

    def stop(self) -> None:
        daemon = self.pids()[0]
        try:
            self.command("endmqm", "-i", QMGR)
        except RuntimeError:
            pass
        deadline = time.monotonic() + 30
        while daemon is not None and os.path.exists(f"/proc/{daemon}") \
                and time.monotonic() < deadline:
            time.sleep(0.05)

    def kill_left(self) -> None:
        """A run that failed half way: its processes end."""
        for pid in self.pids():
            if pid is not None and os.path.exists(f"/proc/{pid}"):
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass

    def summary(self) -> dict[str, float]:
        return {k: round(statistics.median(v), 4) for k, v in self.samples.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/idle_results.json")
    ap.add_argument("--quick", action="store_true", help="1 run, a 15 s window")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--settle", type=float, default=10.0,
                    help="seconds after strmqm before the window")
    ap.add_argument("--window", type=float, default=60.0, help="seconds of idleness read")
    ap.add_argument("--against", help="a second interpreter, measured alongside")
    ap.add_argument("--against-path", help="PYTHONPATH of the second side (another checkout)")
    ap.add_argument("--cluster", action="store_true",
                    help="each queue manager the full repository of a cluster of its own")
    args = ap.parse_args()
    runs, window = (1, 15.0) if args.quick else (args.runs, args.window)
    against = args.against or (sys.executable if args.against_path else None)
    root = tempfile.mkdtemp(prefix="mqpy-idle-bench-")
    env = {**os.environ, "MQPY_DATA_PATH": os.path.join(root, "this")}
    env.pop("MQPY_NO_CHINIT", None)
    sides = [Side("this", sys.executable, env)]
    if against:
        other = {**env, "MQPY_DATA_PATH": os.path.join(root, "against")}
        if args.against_path:
            other["PYTHONPATH"] = args.against_path
        sides.append(Side("against", against, other))
    try:
        for side in sides:
            side.create()
        for run in range(runs):
            order = sides if run % 2 == 0 else sides[::-1]
            try:
                for side in order:
                    side.start(args.cluster)
                time.sleep(args.settle)
                for side in sides:
                    side.begin_window()
                time.sleep(window)
                for side in sides:
                    side.end_window()
            finally:
                for side in order:
                    side.stop()
    finally:
        for side in sides:
            side.kill_left()
        shutil.rmtree(root, ignore_errors=True)
    doc = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "platform": platform.platform()},
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": _commit(),
           "runs": runs, "settle_s": args.settle, "window_s": window,
           "cluster": args.cluster, "loadavg": os.getloadavg(),
           "results": sides[0].summary()}
    if against:
        doc["against"] = {"python": against, "pythonpath": args.against_path,
                          "results": sides[1].summary()}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
    print(json.dumps(doc["results"]))
    if against:
        print(json.dumps({"against": doc["against"]["results"]}))
    print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
