"""Benchmark of the statistics pipeline: exporter throughput and capacity-report time against
input size.

    python -m benchmarks.report_bench [--out FILE] [--quick] [--full] [--days 1,7,30]
                                      [--qmgrs N] [--queues N] [--master URL]
                                      [--work DIR [--keep]]

Measures (1) the exporter draining statistics messages from an embedded queue manager, (2) the
generator (:mod:`mqpy.spark.generator`, Spark writing the records) and (3) the whole Spark
report, for each span of days at STATINT 600:

- one day as the exporter's JSON Lines: the report's first run converts them to its Parquet
  copy, the second finds nothing new (the whole path, incremental run included);
- every span written straight into the Parquet copy (``<store>/<RecordType>/date=/qmgr=/``),
  which the report then reads as a later run reads it: the JSON Lines of a month or a year of
  the full size do not fit on one machine's disk, and converting them is measured above.

The default is bounded (2 queue managers x 10 queues, 1, 7 and 30 days); ``--full`` is the
capacity-planning size, 20 queue managers x 500 queues (1.44 million queue records a day).
Each step runs in a process of its own, so its Spark session (and the JVM, sized for the input)
starts as `mqpy report`'s does; beside each figure: records per second, the peak memory of the
process and its JVM, the disk the data takes and the load average. Then how time grows with
size (:func:`growth`), and a span asked for but not run (``--extrapolate 365``) estimated
from it and marked so. Writes one JSON document; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

STATINT = 600
#: the span that goes the whole way as JSON Lines (760 MB a day at the full size: a month of
#: them is 23 GB, so the longer spans go straight into the Parquet copy)
JSON_DAYS = 1
BOUNDED = {"qmgrs": 2, "queues": 10}
FULL = {"qmgrs": 20, "queues": 500}


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


# ----------------------------------------------------------------------------- measuring


def _tree_rss_kb(root: int) -> int:
    """Resident memory of a process and its descendants (the report's JVM), in KB."""
    parent: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    parent[int(name)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    tree, grew = {root}, True
    while grew:
        more = {p for p, pp in parent.items() if pp in tree} - tree
        tree |= more
        grew = bool(more)
    total = 0
    for pid in tree:
        try:
            with open(f"/proc/{pid}/status") as f:
                total += next((int(line.split()[1]) for line in f
                               if line.startswith("VmRSS:")), 0)
        except OSError:
            continue
    return total


def _child(out: Any, fn: Callable[..., Any], args: tuple) -> None:
    out.put(fn(*args))


def measured(fn: Callable[..., Any], *args: Any) -> tuple[Any, dict]:
    """``fn(*args)`` in a fresh process; its result and the peak memory of that process tree
    and the load average at its end."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    p = ctx.Process(target=_child, args=(out, fn, args))
    p.start()
    peak, result = 0, None
    while True:
        peak = max(peak, _tree_rss_kb(p.pid))
        try:
            result = out.get(timeout=0.5)
            break
        except Exception:  # queue.Empty; also a child that died without an answer
            if not p.is_alive():
                break
    p.join()
    if p.exitcode != 0:
        raise RuntimeError(f"{fn.__name__} failed (exit code {p.exitcode})")
    return result, {"peak_rss_mb": round(peak / 1024), "loadavg": [
        round(x, 2) for x in os.getloadavg()]}


def _du(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)


def _spark(input_size: int, master: str) -> Any:
    from mqpy.spark.session import get_session

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return get_session(master, input_bytes=input_size)


def generate_step(out: str, days: int, qmgrs: int, queues: int, fmt: str, master: str) -> dict:
    from mqpy.spark.generator import generate

    spark = _spark(1 << 30, master)
    try:
        t = time.perf_counter()
        n = generate(spark, out, days=days, qmgrs=qmgrs, queues=queues, interval=STATINT,
                     fmt=fmt)
        return {"records": n, "seconds": time.perf_counter() - t}
    finally:
        spark.stop()


def report_step(src: str, store: str, out: str, master: str, runs: int) -> dict:
    """The report as `mqpy report` runs it: a session sized for the input, then ``runs``
    runs (the first converts what is new, the others find nothing new)."""
    from mqpy.spark.capacity import Capacity
    from mqpy.spark.inputs import input_bytes
    from mqpy.spark.report import run_report

    t = time.perf_counter()
    spark = _spark(max(input_bytes(src) or 0, _du(store)), master)
    start = time.perf_counter() - t
    times = []
    try:
        for _ in range(runs):
            t = time.perf_counter()
            tables = run_report(spark, src, out, Capacity.from_bench(None), store=store)
            times.append(time.perf_counter() - t)
    finally:
        spark.stop()
    return {"session_start_s": round(start, 3), "seconds": times,
            "queues": len(tables["queues"])}


# ----------------------------------------------------------------------------- the spans


def _row(scenario: str, size: dict, days: int, fmt: str, records: int, **more: Any) -> dict:
    return {"scenario": scenario, "input": fmt, "days": days, **size, "statint_s": STATINT,
            "records": records, **more}


def one_span(root: str, days: int, size: dict, master: str, fmt: str,
             keep: bool = False) -> list[dict]:
    """Generate ``days`` as ``fmt`` ("jsonl": the export; "parquet": the copy), then report.
    With ``keep`` a Parquet span stays below ``root`` and a later run reports on it again
    instead of generating it (``generated.json`` says what was generated, and when): a year
    generated once, timed on a quiet machine later."""
    keep = keep and fmt == "parquet"
    base = os.path.join(root, f"{fmt}-{days}d-{size['qmgrs']}x{size['queues']}")
    src = os.path.join(base, "export")
    store = os.path.join(base, "parquet")
    target = src if fmt == "jsonl" else store
    os.makedirs(src, exist_ok=True)
    kept = os.path.join(base, "generated.json")
    if keep and os.path.exists(kept):
        with open(kept) as f:
            rows = [json.load(f)]
        rows[0]["reused"] = True
    else:
        gen, gm = measured(generate_step, target, days, size["qmgrs"], size["queues"], fmt,
                           master)
        n = gen["records"]
        rows = [_row("generate", size, days, fmt, n, seconds=round(gen["seconds"], 1),
                     records_per_s=round(n / gen["seconds"]),
                     disk_mb=round(_du(target) / 1e6), **gm)]
        if keep:
            with open(kept, "w") as f:
                json.dump(rows[0], f)
    n, disk = rows[0]["records"], _du(target)
    print(json.dumps(rows[-1]), flush=True)
    rep, rm = measured(report_step, src, store, os.path.join(base, "report"), master,
                       2 if fmt == "jsonl" else 1)
    first = rep["seconds"][0]
    rows.append(_row("report", size, days, fmt, n, master=master,
                     session_start_s=rep["session_start_s"], first_seconds=round(first, 1),
                     again_seconds=round(rep["seconds"][1], 1) if fmt == "jsonl" else None,
                     records_per_s=round(n / first), input_mb=round(disk / 1e6),
                     parquet_mb=round(_du(store) / 1e6), queues_reported=rep["queues"], **rm))
    print(json.dumps(rows[-1]), flush=True)
    if keep:
        shutil.rmtree(os.path.join(base, "report"), ignore_errors=True)
    else:
        shutil.rmtree(base, ignore_errors=True)
    return rows


def growth(reports: list[dict], extrapolate: list[int]) -> dict:
    """How time grows with records, between the smallest and the largest span read from the
    Parquet copy: the exponent b of time = a * records^b, and the line time = fixed +
    records / marginal rate (Spark's start and per-job costs are the fixed part, which
    dominates a small input, so the exponent understates the growth further on); the spans
    in ``extrapolate`` estimated from the line (records in proportion to days), marked so."""
    pq = sorted((r for r in reports if r["input"] == "parquet"), key=lambda r: r["records"])
    if len(pq) < 2:
        return {}
    lo, hi = pq[0], pq[-1]
    b = math.log(hi["first_seconds"] / lo["first_seconds"]) / math.log(
        hi["records"] / lo["records"])
    per_record = max(hi["first_seconds"] - lo["first_seconds"], 0.0) / (
        hi["records"] - lo["records"])
    fixed = lo["first_seconds"] - per_record * lo["records"]
    steps = [{"from_days": x["days"], "to_days": y["days"],
              "records_x": round(y["records"] / x["records"], 1),
              "time_x": round(y["first_seconds"] / x["first_seconds"], 1)}
             for x, y in zip(pq, pq[1:], strict=False)]
    estimates = []
    for days in extrapolate:
        records = hi["records"] * days / hi["days"]
        estimates.append({"days": days, "records": round(records), "extrapolated": True,
                          "first_seconds": round(fixed + per_record * records),
                          "from_days": [lo["days"], hi["days"]]})
    return {"exponent": round(b, 2), "fixed_seconds": round(fixed, 1),
            "marginal_records_per_s": round(1 / per_record) if per_record else None,
            "steps": steps, "extrapolated": estimates}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/report_results.json")
    ap.add_argument("--quick", action="store_true", help="1 and 2 days, no exporter run")
    ap.add_argument("--full", action="store_true",
                    help="20 queue managers x 500 queues (the capacity-planning size)")
    ap.add_argument("--days", default="1,7,30", help="the spans, in days, comma-separated")
    ap.add_argument("--extrapolate", default="365",
                    help="spans to estimate from the growth measured, comma-separated")
    ap.add_argument("--qmgrs", type=int)
    ap.add_argument("--queues", type=int)
    ap.add_argument("--master", default="local[*]")
    ap.add_argument("--work", help="folder for the generated data (default: a temporary one)")
    ap.add_argument("--keep", action="store_true",
                    help="keep each generated Parquet span in --work and reuse it on later runs")
    args = ap.parse_args()
    size = dict(FULL if args.full else BOUNDED)
    size.update({k: v for k in ("qmgrs", "queues") if (v := getattr(args, k)) is not None})
    spans = [1, 2] if args.quick else [int(d) for d in args.days.split(",")]
    if args.keep and not args.work:
        ap.error("--keep needs --work: the folder the generated spans stay in")
    root = args.work if args.keep else tempfile.mkdtemp(prefix="mqpy-report-bench-",
                                                         dir=args.work)
    results: list[dict] = []
    try:
        if not args.quick:
            results.append(exporter_throughput(os.path.join(root, "qm"), 2000))
            print(json.dumps(results[-1]), flush=True)
        results += one_span(root, JSON_DAYS, size, args.master, "jsonl")
        for days in spans:
            results += one_span(root, days, size, args.master, "parquet", keep=args.keep)
    finally:
        shutil.rmtree(os.path.join(root, "qm") if args.keep else root, ignore_errors=True)
    grown = growth([r for r in results if r["scenario"] == "report"],
                   [int(d) for d in args.extrapolate.split(",") if d and int(d) > max(spans)])
    doc = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "platform": platform.platform()},
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": _commit(),
           "size": size, "results": results, "growth": grown}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
    print(json.dumps({"growth": grown}))
    print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
