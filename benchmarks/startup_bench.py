"""What a process of mqpy pays before any work: its imports, and a control command's answer; JSON.

    python -m benchmarks.startup_bench [--out FILE] [--quick] [--runs N]
                                       [--against PYTHON] [--against-path DIR]

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

IMPORTS = ["mqpy", "mqpy.daemon", "mqpy.cmdserver", "mqpy_chinit.chinit",
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
        subprocess.run([sys.executable, "-c", "from mqpy_cli.control import crtmqm; crtmqm()",
                        "BENCH"], env=env, check=True, capture_output=True)
        for run in range(runs):
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
