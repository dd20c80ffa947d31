"""Benchmark of the statistics pipeline: exporter throughput and capacity-report run time.

    python -m benchmarks.report_bench [--out FILE] [--quick] [--days N] [--master URL]

Measures (1) the exporter draining N statistics messages from an embedded queue manager
(messages/s and records/s, each batch fsynced and committed), (2) the generator, and (3) the
whole Spark report over the generated data. Writes one JSON document; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
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


def report_runtime(root: str, days: int, qmgrs: int, queues: int, master: str) -> list[dict]:
    from mqpy.spark.capacity import Capacity
    from mqpy.spark.report import run_report
    from mqpy.spark.session import get_session
    from mqpy.stats.generator import generate

    src = os.path.join(root, "gen")
    t = time.perf_counter()
    n = generate(src, days=days, qmgrs=qmgrs, queues=queues, seed=1)
    gen_s = time.perf_counter() - t
    t = time.perf_counter()
    spark = get_session(master)
    start_s = time.perf_counter() - t
    try:
        t = time.perf_counter()
        run_report(spark, src, os.path.join(root, "report"),
                   Capacity.from_bench("benchmarks/results.json"))
        report_s = time.perf_counter() - t
    finally:
        spark.stop()
    return [{"scenario": "generate", "records": n, "seconds": round(gen_s, 3),
             "records_per_s": round(n / gen_s, 1)},
            {"scenario": "report", "records": n, "days": days, "qmgrs": qmgrs,
             "queues": queues, "master": master, "session_start_s": round(start_s, 3),
             "seconds": round(report_s, 3)}]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/report_results.json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--master", default="local[*]")
    args = ap.parse_args()
    root = tempfile.mkdtemp(prefix="mqpy-report-bench-")
    try:
        results = [exporter_throughput(os.path.join(root, "qm"), 300 if args.quick else 2000)]
        print(json.dumps(results[-1]), flush=True)
        days = 2 if args.quick else args.days
        for res in report_runtime(root, days, 3, 10, args.master):
            results.append(res)
            print(json.dumps(res), flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    doc = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "platform": platform.platform()},
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "results": results}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
    print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
