"""Benchmark of the mqweb server (strmqweb) as REST clients and Prometheus use it; JSON results.

    python -m benchmarks.web_bench [--out FILE] [--quick] [--count N] [--queues 10,100,1000]

As an operator runs it: ``crtmqm`` and ``strmqm`` in a temporary data path, a user in the
queue manager's user file (group mqm) given the roles MQWebAdmin and MQWebUser in mqweb.ini,
``strmqweb``; then one HTTP client with keep-alive (httpx), as a script would be:

- ``rest_put``: N messaging REST puts (POST .../message) of 1 KB text, non-persistent;
- ``rest_get``: N destructive gets (DELETE .../message) of those messages;
- ``admin_queue_list``: GET /admin/qmgr/{qmgr}/queue?status=* (every queue, with its status),
  for each queue count;
- ``metrics_first_scrape``: the first GET /metrics after the queues were defined (the web
  server then subscribes to their resource statistics);
- ``metrics_scrape``: GET /metrics (every gauge of every queue and channel), for each queue
  count (the local queues defined in addition to the queue manager's own).

Each result gives requests a second, each request's median, 90th percentile and maximum
in milliseconds, and the CPU milliseconds a request cost the web server's process
(``web_cpu_ms``) and the queue manager's (``qmgr_cpu_ms``: its daemon and channel
initiator): on a shared machine the rates follow the load, the CPU figures much less. The server is ended by endmqweb, then by its pid; the queue manager by endmqm,
then by the pids of its processes. Targets (2 cores) are printed beside the figures; nothing
is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import tempfile
import time

from benchmarks.bindings_bench import _process_cpu
from benchmarks.channel_daemons_bench import _free_port, _run
from benchmarks.report_bench import _commit

QMGR = "WEBBENCH"
QUEUE = "BENCH.Q"
USER, PASSWORD = "bench", "bench-pw"
SIZE = 1024
CSRF = {"ibm-mq-rest-csrf-token": "x"}
REST = "/ibmmq/rest/v2"
TARGETS = {"rest_put": {"requests_per_s": 500}, "metrics_scrape_1000": {"median_ms": 1000}}


def _pids_of(root: str) -> list[int]:
    """The processes whose command line names the data path (the daemon, its channel
    initiator, the web server)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if root.encode() in f.read():
                        pids.append(int(entry))
            except OSError:
                pass
    return pids


def serve(root: str) -> str:
    """crtmqm, strmqm, the user, mqweb.ini, strmqweb: the server's base URL."""
    from mqpy import config
    from mqpy.security.users import UserFile, users_path
    from mqpy_cli.web import config as webconfig

    os.environ["MQPY_DATA_PATH"] = root
    _run("crtmqm", QMGR)
    _run("strmqm", QMGR)
    _run("runmqsc", QMGR, stdin=f"DEFINE QLOCAL({QUEUE}) MAXDEPTH(999999999)\n")
    UserFile(users_path(config.qmgr_dir(QMGR, root))).add(USER, PASSWORD, ["mqm"])
    port = _free_port()
    webconfig.write(f"[server]\nhost = 127.0.0.1\nport = {port}\nkeyRepository =\n\n"
                    f"[roles]\nMQWebAdmin = {USER}\nMQWebAdminRO =\nMQWebUser = {USER}\n",
                    root)
    _run("strmqweb")
    return f"http://127.0.0.1:{port}"


def stop(root: str) -> None:
    for cmd, args in (("endmqweb", ()), ("endmqm", ("-i", QMGR))):
        try:
            _run(cmd, *args)
        except (RuntimeError, subprocess.TimeoutExpired):
            pass
    for pid in _pids_of(root):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


class Processes:
    """The web server's and the queue manager's CPU over a scenario: ms a request."""

    def __init__(self, root: str) -> None:
        from mqpy_cli.web.control import running_pid

        self.web = running_pid(root)
        self.qmgr = [p for p in _pids_of(root) if p != self.web]
        self.start = self._now()

    def _now(self) -> tuple[float, float]:
        return _process_cpu(self.web), sum(_process_cpu(p) for p in self.qmgr)

    def per_request(self, requests: int) -> dict:
        now = self._now()
        web, qmgr = (round((b - a) * 1000 / requests, 3) for a, b in zip(self.start, now,
                                                                           strict=True))
        self.start = now
        return {"web_cpu_ms": web, "qmgr_cpu_ms": qmgr}


def _figures(name: str, samples: list[float], **extra: object) -> dict:
    ordered = sorted(samples)
    total = sum(ordered)
    return {"scenario": name, "requests": len(ordered),
            "requests_per_s": round(len(ordered) / total, 1) if total else None,
            "median_ms": round(ordered[len(ordered) // 2] * 1000, 2),
            "p90_ms": round(ordered[int(len(ordered) * 0.9)] * 1000, 2),
            "max_ms": round(ordered[-1] * 1000, 2), **extra}


def _timed(client, method: str, url: str, n: int, expect: int, **kwargs) -> list[float]:
    """``n`` requests, each timed; RuntimeError when one answers another status."""
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        r = client.request(method, url, **kwargs)
        samples.append(time.perf_counter() - t)
        if r.status_code != expect:
            raise RuntimeError(f"{method} {url}: {r.status_code} {r.text[:300]}")
    return samples


def messaging(client, count: int, cpu: Processes) -> list[dict]:
    url = f"{REST}/messaging/qmgr/{QMGR}/queue/{QUEUE}/message"
    headers = {**CSRF, "content-type": "text/plain;charset=utf-8",
               "ibm-mq-md-persistence": "nonPersistent"}
    body = b"x" * SIZE
    _timed(client, "POST", url, 20, 201, content=body, headers=headers)  # warm the pool
    _timed(client, "DELETE", url, 20, 200, headers=CSRF)
    cpu.per_request(1)
    puts = _timed(client, "POST", url, count, 201, content=body, headers=headers)
    put_cpu = cpu.per_request(count)
    gets = _timed(client, "DELETE", url, count, 200, headers=CSRF)
    return [_figures("rest_put", puts, size=SIZE, **put_cpu),
            _figures("rest_get", gets, size=SIZE, **cpu.per_request(count))]


def define_queues(have: int, want: int) -> None:
    if want > have:
        _run("runmqsc", QMGR, stdin="".join(f"DEFINE QLOCAL(BENCH.LIST.{i:05d})\n"
                                            for i in range(have, want)))


def inquiries(client, queues: int, repeat: int, cpu: Processes) -> list[dict]:
    cpu.per_request(1)
    listing = _timed(client, "GET", f"{REST}/admin/qmgr/{QMGR}/queue", repeat, 200,
                     params={"status": "*"})
    listing_cpu = cpu.per_request(repeat)
    # the first scrape of new queues subscribes to their resource statistics (two MQSUB a
    # queue), as mq_prometheus does once at its start: timed apart from the others
    first = _timed(client, "GET", "/metrics", 1, 200)
    first_cpu = cpu.per_request(1)
    scrape = _timed(client, "GET", "/metrics", repeat, 200)
    return [_figures("admin_queue_list", listing, queues=queues, **listing_cpu),
            _figures("metrics_first_scrape", first, queues=queues, **first_cpu),
            _figures("metrics_scrape", scrape, queues=queues, **cpu.per_request(repeat))]


def run(args: argparse.Namespace) -> list[dict]:
    import httpx

    root = tempfile.mkdtemp(prefix="mqpy-web-bench-")
    results = []
    try:
        base = serve(root)
        cpu = Processes(root)
        with httpx.Client(base_url=base, auth=(USER, PASSWORD), timeout=120) as client:
            results += messaging(client, 200 if args.quick else args.count, cpu)
            for r in results:
                print(json.dumps(r), flush=True)
            have = 0
            for queues in [int(n) for n in args.queues.split(",")]:
                define_queues(have, queues)
                have = max(have, queues)
                for r in inquiries(client, queues, 3 if args.quick else args.repeat, cpu):
                    results.append(r)
                    print(json.dumps(r), flush=True)
    finally:
        stop(root)
        shutil.rmtree(root, ignore_errors=True)
    return results


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/web_results.json")
    ap.add_argument("--quick", action="store_true", help="few requests, for a smoke run")
    ap.add_argument("--count", type=int, default=2000, help="messages put, then got")
    ap.add_argument("--repeat", type=int, default=7, help="queue lists and scrapes a count")
    ap.add_argument("--queues", default="10,100,1000", help="queue counts, comma-separated")
    args = ap.parse_args()
    results = run(args)
    doc = {"benchmark": "web_bench",
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "platform": platform.platform()},
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": _commit(),
           "targets": TARGETS, "results": results}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=2)
    print(f"results written to {args.out}")


if __name__ == "__main__":
    main()
