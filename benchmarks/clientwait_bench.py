"""IBM's request/reply with client requesters, its daemon's CPU by thread.

``python -m benchmarks.clientwait_bench [--requesters N ...] [--round-trips N] [--strace]``
runs ``deployed_bench``'s ``reqresp_client_nonpersistent_4`` shape (client requesters over
TCP, bindings responders, as many of each) with 1, 4 or any number of requesters against one
queue manager as deployed (crtmqm's FASTPATH), and gives beside ``deployed_bench``'s figures
the daemon's CPU a round trip by thread (``/proc/<pid>/task/*/stat``: its event loop, its
busy connections' threads, its workers) and, with ``--strace``, its system calls a round
trip (``strace -c -f`` attached to the daemon for one more run of the same shape).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

from benchmarks import client_bench, deployed_bench

TICK = os.sysconf("SC_CLK_TCK")


def _threads(pid: int) -> dict[int, tuple[str, int]]:
    """Each thread of ``pid``: (its name, its user and system clock ticks)."""
    out: dict[int, tuple[str, int]] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        out[int(tid)] = (name, int(fields[11]) + int(fields[12]))
    return out


def _by_thread(before: dict[int, tuple[str, int]], after: dict[int, tuple[str, int]],
               main: int, trips: int) -> dict[str, float]:
    """µs a round trip by kind of thread: the loop (the main thread), the others by name."""
    spent: dict[str, float] = {}
    for tid, (name, ticks) in after.items():
        used = ticks - before.get(tid, (name, 0))[1]
        kind = "loop" if tid == main else name
        spent[kind] = spent.get(kind, 0.0) + used / TICK / trips * 1e6
    return {k: round(v, 1) for k, v in sorted(spent.items(), key=lambda kv: -kv[1])}


def run(requesters: int, round_trips: int, use_strace: bool) -> list[dict]:
    name = f"clientwait_{requesters}"
    deployed_bench.REQUEST_REPLY[name] = {"requesters": requesters, "client": True}
    results = []
    with deployed_bench.DeployedQueueManager() as qmgr:
        daemon = next(p for p in qmgr.pids if client_bench._process_role(p) == "qmgr")
        deployed_bench.run_request_reply(name, qmgr, 20)  # warm: connections, kept requests
        before = _threads(daemon)
        res = deployed_bench.run_request_reply(name, qmgr, round_trips)
        res["daemon_cpu_us_by_thread"] = _by_thread(before, _threads(daemon), daemon,
                                                    res["round_trips"])
        res["loadavg"] = os.getloadavg()[0]
        results.append(res)
        if use_strace:
            log = f"/tmp/clientwait-strace-{os.getpid()}.txt"
            tracer = subprocess.Popen(["strace", "-c", "-f", "-o", log, "-p", str(daemon)],
                                      stderr=subprocess.DEVNULL)
            time.sleep(1.0)
            traced = deployed_bench.run_request_reply(name, qmgr, round_trips)
            tracer.send_signal(signal.SIGINT)
            tracer.wait(30)
            calls: dict[str, float] = {}
            with open(log) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 5 and parts[0][0].isdigit() and parts[-1] != "total":
                        calls[parts[-1]] = round(int(parts[3]) / traced["round_trips"], 2)
            os.unlink(log)
            results.append({"scenario": name + "_strace", "syscalls_per_round_trip": calls})
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requesters", type=int, action="append")
    ap.add_argument("--round-trips", type=int, default=1000)
    ap.add_argument("--strace", action="store_true")
    ap.add_argument("--app", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    for n in args.requesters or [4]:
        for res in run(n, args.round_trips, args.strace):
            print(json.dumps(res), flush=True)


if __name__ == "__main__":
    sys.exit(main())
