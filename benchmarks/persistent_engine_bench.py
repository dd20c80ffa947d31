"""The engine's CPU for a persistent message, with no transport; JSON results.

    python -m benchmarks.persistent_engine_bench [--count N] [--repeat R] [--profile]

One embedded queue manager (``mqpy.embedded``) in a temporary directory and one connection
in this thread: MQPUT (syncpoint, persistent, 1 KB) then MQCMIT, MQGET then MQCMIT, in a
tight loop. Each operation's CPU is this thread's ``time.thread_time``; the log's own write
and sync calls (``pwritev`` with RWF_DSYNC, ``pwrite``, ``fdatasync``) are timed apart (their
thread CPU and wall time) and subtracted, so that what is left is the engine's Python around
the disk. Each figure is the least of ``repeat`` runs (what the code costs; the rest is the
machine's other work). ``--profile``: a cProfile of one run, the 25 costliest functions by
own time, instead of the figures. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import types

SIZE = 1024


class _TimedOs(types.SimpleNamespace):
    """``os`` for the group commit module, with the log's write and sync calls timed."""

    def __init__(self) -> None:
        super().__init__()
        self.cpu = 0.0
        self.wall = 0.0
        self.calls = 0

    def __getattr__(self, name: str):
        return getattr(os, name)

    def _timed(self, fn, *args):
        c, w = time.thread_time(), time.perf_counter()
        try:
            return fn(*args)
        finally:
            self.cpu += time.thread_time() - c
            self.wall += time.perf_counter() - w
            self.calls += 1

    def pwritev(self, *args):
        return self._timed(os.pwritev, *args)

    def pwrite(self, *args):
        return self._timed(os.pwrite, *args)

    def fdatasync(self, *args):
        return self._timed(os.fdatasync, *args)


def run(count: int, repeat: int, profile: bool = False) -> dict:
    import mqpy
    from mqpy import CMQC, inprocess
    from mqpy.engine import groupcommit

    timed = _TimedOs()
    groupcommit.os = timed  # type: ignore[attr-defined]
    root = tempfile.mkdtemp(prefix="mqpy-pbench-")
    qm = mqpy.embedded("PBENCH", data_path=root)
    eng = inprocess.running("PBENCH", root)
    eng.define("QLOCAL", "PBENCH.Q", {"MAXDEPTH": 999999999})
    out = mqpy.Queue(qm, "PBENCH.Q", CMQC.MQOO_OUTPUT)
    inq = mqpy.Queue(qm, "PBENCH.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    data = b"x" * SIZE
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    gmo = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    pers = CMQC.MQPER_PERSISTENT
    phases = ("put", "put_commit", "get", "get_commit")

    def one_run(n: int) -> dict[str, float]:
        spent = dict.fromkeys(phases, 0.0)
        disk = dict.fromkeys(phases, 0.0)
        disk_wall = 0.0
        tt = time.thread_time
        for _ in range(n):
            for phase in phases:
                d0 = timed.cpu
                t = tt()
                if phase == "put":
                    out.put(data, mqpy.MD(Persistence=pers), pmo)
                elif phase == "get":
                    inq.get(None, mqpy.MD(), gmo)
                else:
                    qm.commit()
                spent[phase] += tt() - t
                disk[phase] += timed.cpu - d0
        disk_wall = timed.wall
        return {**{f"{p}_us": (spent[p] - disk[p]) / n * 1e6 for p in phases},
                **{f"{p}_disk_cpu_us": disk[p] / n * 1e6 for p in phases},
                "disk_wall": disk_wall}

    one_run(200)
    if profile:
        import cProfile
        import io
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        one_run(count)
        prof.disable()
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
        mqpy.stop_embedded("PBENCH", data_path=root)
        shutil.rmtree(root, ignore_errors=True)
        return {"profile": s.getvalue()}
    best: dict[str, float] = {}
    syncs = []
    for _ in range(repeat):
        w0, c0 = timed.wall, timed.calls
        r = one_run(count)
        syncs.append((r.pop("disk_wall") - w0) / max(1, timed.calls - c0) * 1e6)
        for k, v in r.items():
            best[k] = min(best.get(k, v), v)
    stats = eng.data.log.stats
    mqpy.stop_embedded("PBENCH", data_path=root)
    shutil.rmtree(root, ignore_errors=True)
    engine = sum(best[f"{p}_us"] for p in phases)
    return {"count": count, "repeat": repeat, "size": SIZE,
            **{k: round(v, 2) for k, v in best.items()},
            "engine_us_per_message": round(engine, 2),
            "sync_wall_us_median": round(sorted(syncs)[len(syncs) // 2], 1),
            "forces": stats.forces, "load": os.getloadavg()[0],
            "python": sys.version.split()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    res = run(args.count, args.repeat, args.profile)
    if "profile" in res:
        print(res["profile"])
    else:
        print(json.dumps(res))


if __name__ == "__main__":
    main()
