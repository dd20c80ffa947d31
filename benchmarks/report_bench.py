"""Benchmark of the statistics pipeline: exporter throughput and capacity-report run time.

    python -m benchmarks.report_bench [--out FILE] [--quick] [--days 1,30,365]
                                      [--qmgrs N] [--queues N] [--master URL]

Measures (1) the exporter draining N statistics messages from an embedded queue manager
(messages/s and records/s, each batch fsynced and committed), (2) the generator, and (3) the
whole Spark report over the generated data (STATINT 600) for each span: its first run, which
converts the export to the Parquet copy, and a second, which finds nothing new; records per
second and how the time grows with the records. Each span runs in a process of its own, so
its Spark session (and the JVM, sized for the input) starts as `mqpy report`'s does. Writes
one JSON document; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import shutil
import subprocess
import tempfile
import time


def exporter_throughput(root: str, n: int, groups: int = 10) -> dict:
    import mqpy
    from mqpy import CMQC, inprocess
    from mqpy.engine.stats import QueueCounters
    from mqpy.pcf import build
    from mqpy.stats import records as R
    from mqpy.stats.collector import STATISTICS_QUEUE
    from mqpy.stats.exporter import Exporter

    qm = mqpy.embedded("BENCHST", data_path=root)
    try:
        queues = [(R.QueueInfo(f"APP.Q{i}"), QueueCounters(puts=[i, i]), i)
                  for i in range(groups)]
        data = build(R.queue_statistics("BENCHST", queues, time.time() - 60, time.time())[0])
        pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        for i in range(n):
            qm.put1(STATISTICS_QUEUE, data, mqpy.MD(Format=CMQC.MQFMT_ADMIN), pmo)
            if i % 200 == 199:
                qm.commit()
        qm.commit()
        t = time.perf_counter()
        r = Exporter(qm, os.path.join(root, "out"), data_path=root,
                     include_errors=False).run_once()
        wall = time.perf_counter() - t
    finally:
        qm.disconnect()
        inprocess.stop("BENCHST", root)
    return {"scenario": "exporter", "messages": r.messages, "records": r.records,
            "files": r.files, "seconds": round(wall, 3),
            "msgs_per_s": round(r.messages / wall, 1), "records_per_s": round(r.records / wall, 1)}


def report_runtime(root: str, days: int, qmgrs: int, queues: int, master: str,
                   interval: int = 600) -> list[dict]:
    """Generate ``days`` of records (STATINT ``interval``), then time the report twice: the
    first run converts the export to its Parquet copy, the second finds nothing new."""
    from mqpy.spark.capacity import Capacity
    from mqpy.spark.inputs import input_bytes
    from mqpy.spark.report import run_report
    from mqpy.spark.session import get_session
    from mqpy.stats.generator import generate

    src = os.path.join(root, f"gen-{days}d")
    t = time.perf_counter()
    n = generate(src, days=days, qmgrs=qmgrs, queues=queues, seed=1, interval=interval)
    gen_s = time.perf_counter() - t
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(src) for f in fs)
    t = time.perf_counter()
    spark = get_session(master, input_bytes=input_bytes(src))  # as `mqpy report` starts it
    start_s = time.perf_counter() - t
    runs = []
    try:
        for _label in ("first (converts to Parquet)", "again (nothing new)"):
            t = time.perf_counter()
            run_report(spark, src, os.path.join(root, "report"), Capacity.from_bench(None),
                       store=os.path.join(root, f"parquet-{days}d"))
            runs.append(time.perf_counter() - t)
    finally:
        spark.stop()
    shutil.rmtree(src, ignore_errors=True)
    return [{"scenario": "generate", "records": n, "seconds": round(gen_s, 3),
             "records_per_s": round(n / gen_s, 1)},
            {"scenario": "report", "records": n, "export_mb": round(size / 1e6, 1),
             "days": days, "qmgrs": qmgrs, "queues": queues, "statint_s": interval,
             "master": master, "session_start_s": round(start_s, 3),
             "first_seconds": round(runs[0], 3), "again_seconds": round(runs[1], 3),
             "records_per_s": round(n / runs[0], 1)}]


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/report_results.json")
    ap.add_argument("--quick", action="store_true", help="2 days only, for a smoke run")
    ap.add_argument("--days", default="1,30,365", help="the spans, in days, comma-separated")
    ap.add_argument("--qmgrs", type=int, default=2)
    ap.add_argument("--queues", type=int, default=10)
    ap.add_argument("--master", default="local[*]")
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="mqpy-report-bench-")
    try:
        results = [exporter_throughput(os.path.join(root, "qm"), 300 if args.quick else 2000)]
        print(json.dumps(results[-1]), flush=True)
        spans = [2] if args.quick else [int(d) for d in args.days.split(",")]
        for days in spans:
            with multiprocessing.get_context("spawn").Pool(1) as fresh:
                spanned = fresh.apply(report_runtime,
                                      (root, days, args.qmgrs, args.queues, args.master))
            for res in spanned:
                results.append(res)
                print(json.dumps(res), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    reports = [r for r in results if r["scenario"] == "report"]
    growth = [{"from_days": a["days"], "to_days": b["days"],
               "records_x": round(b["records"] / a["records"], 1),
               "time_x": round(b["first_seconds"] / a["first_seconds"], 1)}
              for a, b in zip(reports, reports[1:], strict=False)]
    doc = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "platform": platform.platform()},
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": _commit(),
           "results": results, "growth": growth}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
    print(json.dumps({"growth": growth}))
    print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
