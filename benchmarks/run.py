"""Benchmarks of the queue-manager engine, each scenario in a fresh process; JSON results.

    python -m benchmarks.run [--out FILE] [--quick] [--scenario NAME]

Every scenario reports msgs/s, CPU microseconds per message (user+system of the whole process,
all threads) and the process's peak RSS; the persistent ones also the log's figures: fsyncs
(``log_forces``), commits an fsync carried, the mean time of a round's write and sync
(``sync_us``; one ``pwritev`` with RWF_DSYNC, or ``pwrite`` then ``fdatasync``) and the share
of the wall clock some round was writing or syncing, and the share of rounds that first
waited for the forcers of the round before (``held_share``), the mean wait (``hold_us``) and
the share of those waits that ended at their limit (``hold_timeout_share``).
Beside them the same run measures the raw limits of
this disk (fdatasync rate of 1 KB appends, and of 100 x 1 KB per fsync) so the figures can be
read against the machine. Targets (2 cores) are from the engine issue and printed beside each
figure; nothing here is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SCENARIOS = ["fsync_raw", "nonpersistent", "persistent_1", "persistent_8", "restart"]
TARGETS = {
    "nonpersistent": {"msgs_per_s": 100_000},
    "persistent_8": {"msgs_per_s": 10_000},
    "restart": {"restart_s": 5.0, "rss_mb_with_queue": 300},
}


def _usage() -> tuple[float, float]:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0


def _result(name: str, n: int, wall: float, cpu: float, **extra: object) -> dict:
    _, rss = _usage()
    return {"scenario": name, "messages": n, "seconds": round(wall, 3),
            "msgs_per_s": round(n / wall, 1) if wall else None,
            "cpu_us_per_msg": round(cpu / n * 1e6, 2) if n else None,
            "peak_rss_mb": round(rss, 1), **extra}


def _qmgr(root: str, name: str = "BENCH", **qattrs: object):
    import mqpy
    from mqpy import inprocess

    qm = mqpy.embedded(name, data_path=root)
    eng = inprocess.running(name, root)
    eng.define("QLOCAL", "BENCH.Q", {"MAXDEPTH": 999999999, **qattrs})
    return qm, eng


def fsync_raw(root: str, quick: bool) -> dict:
    path = os.path.join(root, "fsync.dat")
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    os.write(fd, b"\0" * (64 * 1024 * 1024))
    os.fsync(fd)
    rec = b"x" * 1024
    n = 300 if quick else 2000
    t = time.perf_counter()
    for i in range(n):
        os.pwrite(fd, rec, i * 1024)
        os.fdatasync(fd)
    single = n / (time.perf_counter() - t)
    batch = rec * 100
    m = 50 if quick else 300
    t = time.perf_counter()
    for i in range(m):
        os.pwrite(fd, batch, i * len(batch))
        os.fdatasync(fd)
    grouped = m * 100 / (time.perf_counter() - t)
    os.close(fd)
    return {"scenario": "fsync_raw", "fdatasync_per_s_1kb": round(single, 1),
            "msgs_per_s_100_per_fsync": round(grouped, 1)}


def nonpersistent(root: str, quick: bool) -> dict:
    import mqpy
    from mqpy import CMQC

    qm, _ = _qmgr(root)
    out = mqpy.Queue(qm, "BENCH.Q", CMQC.MQOO_OUTPUT)
    inq = mqpy.Queue(qm, "BENCH.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    data = b"x" * 1024
    n = 20_000 if quick else 200_000
    cpu0, _ = _usage()
    t = time.perf_counter()
    for _ in range(n):
        out.put(data)
        inq.get()
    wall = time.perf_counter() - t
    cpu1, _ = _usage()
    return _result("nonpersistent", n, wall, cpu1 - cpu0, size=1024,
                   note="one put and one get of a 1 KB non-persistent message per count")


def _persistent(root: str, quick: bool, conns: int) -> dict:
    import mqpy
    from mqpy import CMQC

    _qmgr(root)
    per = (500 if quick else 5000) if conns == 1 else (300 if quick else 3000)
    data = b"x" * 1024
    pers = CMQC.MQPER_PERSISTENT
    errors: list[BaseException] = []
    start = threading.Barrier(conns + 1)

    def worker() -> None:
        try:
            qm = mqpy.embedded("BENCH", data_path=root)
            out = mqpy.Queue(qm, "BENCH.Q", CMQC.MQOO_OUTPUT)
            inq = mqpy.Queue(qm, "BENCH.Q", CMQC.MQOO_INPUT_SHARED)
            pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
            gmo_opts = CMQC.MQGMO_SYNCPOINT
            start.wait()
            for _ in range(per):
                md = mqpy.MD(Persistence=pers)
                out.put(data, md, pmo)
                qm.commit()
                inq.get(None, mqpy.MD(MsgId=md.MsgId), mqpy.GMO(Options=gmo_opts))
                qm.commit()
        except BaseException as e:  # noqa: BLE001 - reported in the result
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(conns)]
    for th in threads:
        th.start()
    start.wait()
    cpu0, _ = _usage()
    sys0 = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    t = time.perf_counter()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t
    cpu1, _ = _usage()
    sys1 = resource.getrusage(resource.RUSAGE_SELF).ru_stime
    n = per * conns
    from mqpy import inprocess

    stats = inprocess.running("BENCH", root).data.log.stats
    forces = stats.forces
    return _result(f"persistent_{conns}", n, wall, cpu1 - cpu0, connections=conns, size=1024,
                   log_forces=forces,
                   commits_per_force=round(stats.forced / forces, 2) if forces else None,
                   sync_share=round(stats.sync_seconds / wall, 2) if wall else None,
                   sync_us=round(stats.sync_seconds / forces * 1e6, 1) if forces else None,
                   held_share=round(stats.holds / forces, 2) if forces else None,
                   hold_us=round(stats.hold_seconds / stats.holds * 1e6, 1)
                   if stats.holds else None,
                   hold_timeout_share=round(stats.hold_timeouts / stats.holds, 2)
                   if stats.holds else None,
                   sys_cpu_us_per_msg=round((sys1 - sys0) / n * 1e6, 2),
                   errors=[repr(e) for e in errors[:3]],
                   note="put+commit then get(by MsgId)+commit of a 1 KB persistent message")


def persistent_1(root: str, quick: bool) -> dict:
    return _persistent(root, quick, 1)


def persistent_8(root: str, quick: bool) -> dict:
    return _persistent(root, quick, 8)


def restart(root: str, quick: bool) -> dict:
    """Fill a queue with committed persistent messages in a child, then time a restart here."""
    n = 50_000 if quick else 1_000_000
    code = (
        "import sys, mqpy\n"
        "from mqpy import CMQC, inprocess\n"
        "root, n = sys.argv[1], int(sys.argv[2])\n"
        "qm = mqpy.embedded('BENCH', data_path=root)\n"
        "inprocess.running('BENCH', root).define('QLOCAL', 'BENCH.Q', {'MAXDEPTH': 999999999})\n"
        "q = mqpy.Queue(qm, 'BENCH.Q', CMQC.MQOO_OUTPUT)\n"
        "pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)\n"
        "data = b'x' * 1024\n"
        "for i in range(n):\n"
        "    q.put(data, mqpy.MD(Persistence=1), pmo)\n"
        "    if i % 1000 == 999: qm.commit()\n"
        "qm.commit()\n"
        "mqpy.stop_embedded('BENCH', data_path=root)\n"
    )
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, root, str(n)], check=True)
    fill = time.perf_counter() - t
    from mqpy import inprocess

    cpu0, _ = _usage()
    t = time.perf_counter()
    eng = inprocess.start("BENCH", root)
    wall = time.perf_counter() - t
    cpu1, rss = _usage()
    depth = eng.queue_status("BENCH.Q")["CURDEPTH"]
    return {"scenario": "restart", "messages": n, "restart_s": round(wall, 3),
            "cpu_s": round(cpu1 - cpu0, 3), "rss_mb_with_queue": round(rss, 1),
            "depth_after_restart": depth, "fill_s": round(fill, 1),
            "fill_msgs_per_s": round(n / fill, 1),
            "note": "clean stop then restart with the queue full of 1 KB persistent messages"}


def run_one(name: str, quick: bool) -> dict:
    root = tempfile.mkdtemp(prefix=f"mqpy-bench-{name}-")
    try:
        return globals()[name](root, quick)
    finally:
        from mqpy import inprocess

        inprocess.stop_all()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/results.json")
    ap.add_argument("--quick", action="store_true", help="small counts, for a smoke run")
    ap.add_argument("--scenario", choices=SCENARIOS)
    args = ap.parse_args()
    if args.scenario:
        print(json.dumps(run_one(args.scenario, args.quick)))
        return
    results = []
    for name in SCENARIOS:
        cmd = [sys.executable, "-m", "benchmarks.run", "--scenario", name]
        if args.quick:
            cmd.append("--quick")
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            res = {"scenario": name, "error": proc.stderr.strip().splitlines()[-1:]}
        else:
            res = json.loads(proc.stdout.strip().splitlines()[-1])
        if name in TARGETS:
            res["targets"] = TARGETS[name]
        results.append(res)
        print(json.dumps(res), flush=True)
    doc = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "platform": platform.platform()},
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "results": results}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
    print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
