"""The chaos run's applications as processes (tests.chaos.apps): started, restarted by an
operator when they die, stopped in two groups (the putting side first, so that what it put
can drain and be consumed before the consumers stop) and read back as histories."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import time

import attrs

from tests.chaos.topology import Topology, kill

#: name -> (role, qmgr, through a client connection, group, consumer's queues)
APPS = {
    "prodA": ("producer", "QMA", False, "put", ""),
    "prodAc": ("producer", "QMA", True, "put", ""),
    "request": ("requester", "QMA", True, "put", ""),
    "respond": ("responder", "QMB", False, "get", ""),
    "consB": ("consumer", "QMB", False, "get", "DEST.B,CQ,PARKED"),
    "consC": ("consumer", "QMC", True, "get", "CQ"),
}


@attrs.define
class Running:
    name: str  # the instance: app name and restart number
    proc: subprocess.Popen


class Workload:
    def __init__(self, net: Topology, work: str, seed: int) -> None:
        self.net = net
        self.work = work
        self.seed = seed
        self.histories = os.path.join(work, "histories")
        os.makedirs(self.histories, exist_ok=True)
        self.running: dict[str, Running] = {}
        self.restarts = {name: 0 for name in APPS}
        self.stopped: set[str] = set()
        self.pace_file = os.path.join(work, "pace")

    def pace(self, rate: float | None) -> None:
        """Hold each producer to ``rate`` messages a second (0: as fast as it can, None: its
        own pace), from its next unit of work on."""
        text = "" if rate is None else "max" if rate == 0 else f"{rate:.3f}"
        with open(self.pace_file + ".new", "w") as f:
            f.write(text)
        os.replace(self.pace_file + ".new", self.pace_file)

    def producers(self) -> list[str]:
        return [app for app, (role, *_) in APPS.items() if role == "producer"]

    def stopfile(self, group: str) -> str:
        return os.path.join(self.work, f"stop.{group}")

    def start(self, app: str) -> None:
        role, qmgr, client, group, queues = APPS[app]
        self.restarts[app] += 1
        instance = f"{app}{self.restarts[app]}"
        argv = [sys.executable, "-m", "tests.chaos.apps", role, instance,
                os.path.join(self.histories, instance), self.stopfile(group), str(self.seed),
                qmgr, self.net.site.root]
        if client:
            argv.append(f"127.0.0.1({self.net.app_ports[qmgr]})")
        env = {**self.net.site.env, "CHAOS_QUEUES": queues, "CHAOS_PACE": self.pace_file,
               "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.dirname(
                   os.path.abspath(__file__))))}
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                stderr=open(os.path.join(self.histories, instance + ".err"), "w"))
        self.running[app] = Running(instance, proc)

    def start_all(self) -> None:
        for app in APPS:
            self.start(app)

    def kill(self, app: str) -> str:
        """SIGKILL ``app``'s process: the instance killed."""
        running = self.running[app]
        kill(running.proc.pid)
        running.proc.wait(10)
        return running.name

    def heal(self) -> list[str]:
        """Restart every application that died (unless its group was told to stop)."""
        done = []
        for app, running in self.running.items():
            if running.proc.poll() is not None and APPS[app][3] not in self.stopped:
                self.start(app)
                done.append(f"restart {app}")
        return done

    def stop(self, group: str, timeout: float = 30) -> list[str]:
        """Tell ``group``'s applications to stop after their unit of work; kill those still
        running after ``timeout`` seconds. The applications killed."""
        self.stopped.add(group)
        with open(self.stopfile(group), "w"):
            pass
        deadline = time.monotonic() + timeout
        killed = []
        for app, running in self.running.items():
            if APPS[app][3] != group:
                continue
            try:
                running.proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                killed.append(self.kill(app))
        return killed

    def idle(self) -> list[str]:
        """The applications of the putting side that have committed nothing yet."""
        histories = self.read_histories()
        return [app for app, (_, _, _, group, _) in APPS.items() if group == "put" and
                not any(line.startswith("C ") for name, lines in histories.items()
                        if name.rstrip("0123456789") == app for line in lines)]

    def wait_committing(self, timeout: float = 90) -> bool:
        """Wait until every application of the putting side has committed a unit of work
        (the run is under load): whether they all did within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self.idle():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.5)
        return True

    def pids(self) -> dict[str, int]:
        return {app: r.proc.pid for app, r in self.running.items() if r.proc.poll() is None}

    def teardown(self) -> None:
        for running in self.running.values():
            if running.proc.poll() is None:
                running.proc.kill()
                running.proc.wait(10)

    def read_histories(self) -> dict[str, list[str]]:
        out = {}
        for path in sorted(glob.glob(os.path.join(self.histories, "*"))):
            if not path.endswith(".err"):
                with open(path) as f:
                    out[os.path.basename(path)] = f.read().splitlines()
        return out

    def errors(self) -> dict[str, str]:
        """What an application wrote to stderr (a traceback is a finding), by instance."""
        out = {}
        for path in glob.glob(os.path.join(self.histories, "*.err")):
            with open(path) as f:
                text = f.read().strip()
            if text:
                out[os.path.basename(path)[:-4]] = text[-2000:]
        return out
