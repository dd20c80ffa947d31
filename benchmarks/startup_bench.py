"""What a process of mqpy pays before any work: its imports, and a control command's answer; JSON.

    python -m benchmarks.startup_bench [--out FILE] [--quick] [--runs N]
                                       [--against PYTHON] [--against-path DIR] [--deployed]

Each figure is the median of ``--runs`` fresh interpreters (``python -c "import M"``, or a
command's entry point run as its console script does), as CPU seconds (user+system of the
child, from ``wait4``) and wall seconds, beside ``python -c pass`` (the interpreter's own
floor). ``connect`` is an application's start up to its first MQCONN's answer (bindings, to
a queue manager that is not running: MQRC 2059). ``dspmq`` lists one queue manager (created,
not started), ``runmqsc -v`` verifies one MQSC command, and ``crtmqm`` creates a queue manager
of its own (deleted again, unmeasured), all in a data root made for the run: what a user
waits for before the answer. ``--against`` names a second interpreter (another checkout's
venv, say) measured interleaved with this one, run for run, so that the load of a shared
machine falls on both alike; its figures are under ``"against"``. ``--against-path`` runs
that second side with ``PYTHONPATH`` set to another checkout (a ``git worktree`` of an older
commit), with this interpreter unless ``--against`` names one. Nothing is asserted.

``--deployed`` measures the deployed path instead, each side with a queue manager of its own
(crtmqm, a LISTENER CONTROL(QMGR) on a free port and a SVRCONN channel defined once), each
run: ``strmqm`` until it returns (the daemon serves, its channel initiator serves
SYSTEM.CHANNEL.INITQ) and until the listener accepts a TCP connection; ``dspmq``;
``runmqsc`` with one DISPLAY QMGR; an application's start, MQCONN and MQDISC over bindings
and over the client channel; ``endmqm -w``. For each: the command's own CPU (``wait4``),
its wall time, and the CPU the daemon and its channel initiator spent meanwhile
(``/proc/PID/stat``, 10 ms ticks): at start, the daemon's and the channel initiator's
CPU when the listener first accepts and again once they are idle (1 s later); at the end,
the daemon's whole life (this process is their subreaper, so ``wait4`` has it, its channel
initiator's included) less what it had used before endmqm.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks.bindings_bench import _commit

IMPORTS = ["mqpy", "mqpy.daemon", "mqpy.cmdserver", "mqpy_chinit.chinit", "mqpy_cli.chinit",
           "mqpy_cli.control", "mqpy_cli.runmqsc"]
#: a command's answer: (name, the code its console script runs, its arguments, its input)
COMMANDS = [
    ("connect", "import mqpy\ntry:\n    mqpy.connect('NOSUCHQM')\nexcept mqpy.MQMIError:\n"
     "    pass", [], b""),
    ("dspmq", "from mqpy_cli.control import dspmq; dspmq()", [], b""),
    ("runmqsc -v", "from mqpy_cli.runmqsc import runmqsc; runmqsc()", ["-v", "BENCH"],
     b"DISPLAY QMGR\n"),
]
#: crtmqm, given a new queue manager's name each run
CRTMQM = "from mqpy_cli.control import crtmqm; crtmqm()"


def _run(python: str, code: str, args: list[str], stdin: bytes, env: dict[str, str]
         ) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one fresh interpreter running ``code``."""
    t = time.perf_counter()
    proc = subprocess.Popen([python, "-c", code, *args], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            cwd=env["MQPY_DATA_PATH"])
    proc.stdin.write(stdin)
    proc.stdin.close()
    _, status, ru = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ru.ru_utime + ru.ru_stime, time.perf_counter() - t


def _cases(run: int) -> list[tuple[str, str, list[str], bytes]]:
    cases = [("python -c pass", "pass", [], b"")]
    cases += [(f"import {m}", f"import {m}", [], b"") for m in IMPORTS]
    return cases + COMMANDS + [("crtmqm", CRTMQM, [f"BENCH{run}"], b"")]


def _dltmqm(name: str, env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "-c", "from mqpy_cli.control import dltmqm; dltmqm()",
                    name], env=env, check=True, capture_output=True)


# --------------------------------------------------------------------------- the deployed path

QMGR = "STARTB"
CHANNEL = "STARTB.SVRCONN"
#: the commands of the deployed path, as their console scripts run them
CONTROL = "import sys\nfrom mqpy_cli.control import {0}\nsys.argv[0] = '{0}'\n{0}()"
RUNMQSC = "import sys\nfrom mqpy_cli.runmqsc import runmqsc\nsys.argv[0] = 'runmqsc'\nrunmqsc()"
BINDINGS_APP = "import mqpy\nmqpy.connect('{qmgr}').disconnect()"
CLIENT_APP = "import mqpy\nmqpy.connect('{qmgr}', '{channel}', '127.0.0.1({port})').disconnect()"
PR_SET_CHILD_SUBREAPER = 36
TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int | None) -> float:
    """A live process's CPU seconds so far (user+system, all its threads); 0 if gone."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def _read_pid(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class _Side:
    """One side of the comparison: its interpreter, environment and queue manager."""

    def __init__(self, python: str, env: dict[str, str]) -> None:
        self.python, self.env = python, env
        self.root = env["MQPY_DATA_PATH"]
        self.qmdir = os.path.join(self.root, "qmgrs", QMGR)
        self.port = 0
        self.samples: dict[str, list[tuple[float, float]]] = {}

    def run(self, code: str, args: list[str], stdin: bytes = b"") -> tuple[float, float]:
        return _run(self.python, code, args, stdin, self.env)

    def pids(self) -> tuple[int | None, int | None]:
        return (_read_pid(os.path.join(self.qmdir, "qm.lock")),
                _read_pid(os.path.join(self.qmdir, "chinit.pid")))

    def server_cpu(self) -> float:
        return sum(proc_cpu(pid) for pid in self.pids())

    def add(self, name: str, cpu: float, wall: float) -> None:
        self.samples.setdefault(name, []).append((cpu, wall))

    def setup(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        for code, args, stdin in [
                (CONTROL.format("crtmqm"), [QMGR], b""),
                (CONTROL.format("strmqm"), [QMGR], b""),
                (RUNMQSC, [QMGR], (
                    f"DEFINE LISTENER(STARTB) TRPTYPE(TCP) PORT({self.port}) "
                    f"IPADDR('127.0.0.1') CONTROL(QMGR)\n"
                    f"DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) TRPTYPE(TCP)\n"
                    f"SET CHLAUTH({CHANNEL}) TYPE(BLOCKUSER) USERLIST('nobody')\n"
                    "ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) "
                    "CHCKCLNT(NONE)\n").encode()),
                (CONTROL.format("endmqm"), ["-w", QMGR], b"")]:
            proc = subprocess.run([self.python, "-c", code, *args], input=stdin, env=self.env,
                                  cwd=self.root, capture_output=True)
            if proc.returncode not in (0, 10):
                raise RuntimeError(f"{code} {args}: {proc.stdout!r} {proc.stderr!r}")
        self._reap()

    def _reap(self) -> None:
        """Wait for the daemon (our orphan: this process is the subreaper)."""
        try:
            while os.waitpid(-1, os.WNOHANG) != (0, 0):
                pass
        except ChildProcessError:
            pass

    def _accepting(self, deadline: float) -> bool:
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                time.sleep(0.002)
        return False

    def one_run(self) -> None:
        t0 = time.perf_counter()
        cpu, wall = self.run(CONTROL.format("strmqm"), [QMGR])
        self.add("strmqm (its own CPU; wall until it returns)", cpu, wall)
        daemon, chinit = self.pids()
        self.add("daemon at strmqm's return", proc_cpu(daemon), wall)
        if not self._accepting(time.monotonic() + 60):
            raise RuntimeError("the listener never accepted")
        wall = time.perf_counter() - t0
        daemon, chinit = self.pids()
        self.add("daemon+chinit when the listener accepts (wall from strmqm)",
                 proc_cpu(daemon) + proc_cpu(chinit), wall)
        time.sleep(1.0)
        self.add("daemon+chinit once idle (1 s later)", self.server_cpu(), 0.0)
        self.add("chinit once idle", proc_cpu(self.pids()[1]), 0.0)
        for name, code, args, stdin in [
                ("dspmq", CONTROL.format("dspmq"), [], b""),
                ("runmqsc DISPLAY QMGR", RUNMQSC, [QMGR], b"DISPLAY QMGR\n"),
                ("bindings MQCONN+MQDISC", BINDINGS_APP.format(qmgr=QMGR), [], b""),
                ("client MQCONN+MQDISC",
                 CLIENT_APP.format(qmgr=QMGR, channel=CHANNEL, port=self.port), [], b"")]:
            before = self.server_cpu()
            cpu, wall = self.run(code, args, stdin)
            time.sleep(0.05)  # (the server's last work for it: the disconnect)
            self.add(name, cpu, wall)
            self.add(f"{name}: daemon+chinit", self.server_cpu() - before, 0.0)
        before = self.server_cpu()
        daemon = self.pids()[0]
        cpu, wall = self.run(CONTROL.format("endmqm"), ["-w", QMGR])
        self.add("endmqm -w", cpu, wall)
        _, _, ru = os.wait4(daemon, 0)
        self.add("endmqm -w: daemon+chinit", ru.ru_utime + ru.ru_stime - before, 0.0)
        self._reap()


def deployed(runs: int, sides: list[_Side]) -> None:
    """The deployed path's figures, the sides alternating run for run."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for side in sides:
        side.setup()
    for _ in range(runs):
        for side in sides:
            side.one_run()


def _summary(samples: dict[str, list[tuple[float, float]]]) -> list[dict]:
    return [{"scenario": name, "runs": len(runs),
             "cpu_s": round(statistics.median(c for c, _ in runs), 3),
             "wall_s": round(statistics.median(w for _, w in runs), 3)}
            for name, runs in samples.items()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/startup_results.json")
    ap.add_argument("--quick", action="store_true", help="3 runs each, for a smoke run")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--against", help="a second interpreter, measured interleaved")
    ap.add_argument("--against-path", help="PYTHONPATH of the second side (another checkout)")
    ap.add_argument("--deployed", action="store_true",
                    help="the deployed path: strmqm, dspmq, runmqsc, MQCONN, endmqm")
    args = ap.parse_args()
    runs = 3 if args.quick else args.runs
    against = args.against or (sys.executable if args.against_path else None)
    pythons = [sys.executable] + ([against] if against else [])
    root = tempfile.mkdtemp(prefix="mqpy-startup-bench-")
    env = {**os.environ, "MQPY_DATA_PATH": root}
    envs = [env] + ([{**env, "PYTHONPATH": args.against_path} if args.against_path else env]
                    if against else [])
    samples: list[dict[str, list[tuple[float, float]]]] = [{} for _ in pythons]
    try:
        if args.deployed:
            sides = [_Side(python, {**e, "MQPY_DATA_PATH": os.path.join(root, str(i))})
                     for i, (python, e) in enumerate(zip(pythons, envs, strict=True))]
            for side in sides:
                os.makedirs(side.root)
            try:
                deployed(runs, sides)
            finally:
                for side in sides:  # a run that failed half way: its daemon ends
                    daemon = side.pids()[0]
                    if daemon is not None and os.path.exists(f"/proc/{daemon}"):
                        os.kill(daemon, signal.SIGTERM)
            samples = [side.samples for side in sides]
        else:
            subprocess.run([sys.executable, "-c",
                            "from mqpy_cli.control import crtmqm; crtmqm()", "BENCH"],
                           env=env, check=True, capture_output=True)
        for run in range(0 if args.deployed else runs):
            for name, code, cargs, stdin in _cases(run):
                for i, python in enumerate(pythons):
                    samples[i].setdefault(name, []).append(
                        _run(python, code, cargs, stdin, envs[i]))
                    if code == CRTMQM:
                        _dltmqm(cargs[0], env)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    doc = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "platform": platform.platform()},
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": _commit(),
           "results": _summary(samples[0])}
    if against:
        doc["against"] = {"python": against, "pythonpath": args.against_path,
                          "results": _summary(samples[1])}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
    for i, res in enumerate(doc["results"]):
        other = doc["against"]["results"][i] if against else None
        print(json.dumps(res if other is None else {**res, "against_cpu_s": other["cpu_s"]}))
    print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
