"""An installation as an operator has it: one data path, control commands (crtmqm, strmqm,
...) and the channel initiator's commands (runmqlsr, runmqchi, ...) run as subprocesses, and
every daemon started recorded by pid (from qm.lock) and killed at teardown."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

from mqpy import inprocess

QM = "QM1"
QUEUES = ("Q1", "Q2", "Q3", "Q4", "Q5", "WAITQ", "KILLQ", "CONCQ")

_RUN = ("import sys; from mqpy_cli import control; "
        "getattr(control, sys.argv[1]).main(args=sys.argv[2:], prog_name=sys.argv[1])")


class Installation:
    """One data path: run control commands against it, start and stop its daemons."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.pids: set[int] = set()
        self.started: set[str] = set()  # queue managers strmqm started here
        self.env = {**os.environ, "MQPY_DATA_PATH": root, "MQPY_NO_CHINIT": "1"}

    def run(self, command: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        """Run a control command (crtmqm, strmqm, ...); record any daemon it started."""
        proc = subprocess.run([sys.executable, "-c", _RUN, command, *args], env=self.env,
                              capture_output=True, text=True, timeout=timeout)
        if command == "strmqm" and proc.returncode == 0:
            self.started.add(args[-1])
            pid = self.pid(args[-1])
            if pid:
                self.pids.add(pid)
        return proc

    def qmdir(self, name: str = QM) -> str:
        return os.path.join(self.root, "qmgrs", name)

    def pid(self, name: str = QM) -> int | None:
        try:
            with open(os.path.join(self.qmdir(name), "qm.lock")) as f:
                return int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def create(self, name: str = QM, queues: tuple[str, ...] = QUEUES) -> None:
        proc = self.run("crtmqm", name)
        assert proc.returncode == 0, proc.stderr
        eng = inprocess.start(name, self.root)  # define the test queues before the daemon owns it
        try:
            for q in queues:
                eng.define("QLOCAL", q, {})
        finally:
            inprocess.stop(name, self.root)

    def start(self, name: str = QM) -> int:
        proc = self.run("strmqm", name)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        pid = self.pid(name)
        assert pid is not None
        return pid

    def wait_ended(self, name: str = QM, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while inprocess.is_locked(self.qmdir(name)):
            assert time.monotonic() < deadline, "the queue manager did not end"
            time.sleep(0.05)

    def chinit_pid(self, name: str = QM) -> int | None:
        """The channel initiator a daemon of this data path started (its own session, so
        not killed with the daemon), if that process is still it: chinit.pid is checked
        against the process's command line so that a reused pid is never killed."""
        try:
            with open(os.path.join(self.qmdir(name), "chinit.pid")) as f:
                pid = int(f.read().split()[0])
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            return None
        if b"mqpy_cli.chinit" in argv and name.encode() in argv and \
                self.root.encode() in argv:
            return pid
        return None

    def kill_all(self) -> None:
        """SIGKILL every daemon started here, then (once the daemons are gone and can
        restart nothing) the channel initiators they started."""
        _kill(self.pids)
        _kill({pid for name in self.started if (pid := self.chinit_pid(name))})


def gone(pid: int) -> bool:
    """Ended (or a zombie waiting for a parent that is not us)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def _kill(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:  # not our child (strmqm's daemon): wait for it to end
            deadline = time.monotonic() + 10
            while not gone(pid) and time.monotonic() < deadline:
                time.sleep(0.02)


def started(inst: Installation) -> Iterator[Installation]:
    """A module fixture's body: ``inst``'s queue manager started by strmqm, this process's
    own connections pointed at it (MQPY_DATA_PATH), and every process killed at the end."""
    inst.start()
    old = os.environ.get("MQPY_DATA_PATH")
    os.environ["MQPY_DATA_PATH"] = inst.root
    try:
        yield inst
    finally:
        if old is None:
            os.environ.pop("MQPY_DATA_PATH", None)
        else:
            os.environ["MQPY_DATA_PATH"] = old
        inst.kill_all()


def client(inst: Installation, code: str) -> subprocess.Popen:
    """Start a Python client process running ``code`` against ``inst``."""
    return subprocess.Popen([sys.executable, "-c", code], env=inst.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


_CHINIT = ("import sys; from mqpy_cli import chinit; "
           "getattr(chinit, sys.argv[1]).main(args=sys.argv[2:], prog_name=sys.argv[1])")


def chinit_command(inst: Installation, command: str, *args: str) -> list[str]:
    """The command line of a channel initiator command (runmqlsr, runmqchi, runmqchl)."""
    return [sys.executable, "-c", _CHINIT, command, *args]


def run_chinit(inst: Installation, command: str, *args: str) -> subprocess.CompletedProcess:
    """runmqlsr, runmqchi or runmqchl run to its end, as an operator runs it."""
    return subprocess.run(chinit_command(inst, command, *args), env=inst.env,
                          capture_output=True, text=True, timeout=30)


_CLI = ("import sys, importlib; m = importlib.import_module('mqpy_cli.' + sys.argv[1]); "
        "getattr(m, sys.argv[2]).main(args=sys.argv[3:], prog_name=sys.argv[2])")


def cli(inst: Installation, module: str, command: str, *args: str, stdin: str | None = None
        ) -> subprocess.CompletedProcess:
    """Any command of ``mqpy_cli.<module>`` (runmqsc, dmpmqcfg, ...) run to its end."""
    return subprocess.run([sys.executable, "-c", _CLI, module, command, *args], env=inst.env,
                          input=stdin, capture_output=True, text=True, timeout=120)
