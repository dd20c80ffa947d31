"""How the threads that serve eight committing connections cost CPU; JSON results.

    python -m benchmarks.serving_model_bench [--out FILE] [--count N] [--pairs P]

A model of the daemon's side of ``deployed_bench``'s ``bindings_persistent_8`` without the
MQI: 8 client processes, each N times a 1 KB request then a commit, a short request then a
commit, over Unix sockets, every request awaiting its reply; the server does the same Python
work for each request (WORK_US of plain Python) and appends a record to a real
:class:`~mqpy.engine.recoverylog.RecoveryLog` in the temporary directory's file system, and a
commit forces it before its reply. Only how the server's threads are arranged changes:

- ``per_connection``: a thread a connection, blocking reads, each commit forcing through the
  log's group commit (as the daemon's busy bindings threads, ``mqpy.bindings_thread``);
- ``writer_replies``: the same, but a commit does not wait: the thread that finds no round
  in progress writes rounds and sends every committer's reply;
- ``one_thread``: one thread over all the sockets (epoll), serving what is ready, then
  looking once more for what came meanwhile, then one force for the commits among them and
  their replies.

Each result gives the server's CPU a message (user and system, ``getrusage``), its voluntary
context switches a message, messages a second and commits a force. The modes run in
alternation, ``pairs`` times (a shared machine: compare CPU, not rates). Run it under
``flock /tmp/mqpy-bench.lock``. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

from benchmarks.bindings_bench import emit
from mqpy.engine.recoverylog import RecoveryLog

CLIENTS = 8
WORK_US = 20.0  #: the Python of one request (the engine's and the framing's, about)
REPLY = b"r" * 300
#: one message: (request, its record's payload or None for a commit)
STEPS = ((b"P" * 1100, b"p" * 1100), (b"C", None), (b"G", b"g" * 60), (b"C", None))
_PAYLOAD = {step[0][:1]: step[1] for step in STEPS}
_COMMIT = b"c" * 40


def _loops_for(work_us: float) -> int:
    """Iterations of :func:`_work` that take ``work_us`` of CPU (least of 5 tries)."""
    n, per = 1000, float("inf")
    for _ in range(5):
        began = time.process_time()
        for _ in range(200):
            _work(n)
        per = min(per, (time.process_time() - began) / 200 / n)
    return max(1, int(work_us * 1e-6 / per))


def _work(n: int) -> dict:
    d: dict = {}
    for i in range(n):
        d[i & 7] = i
    return d


def _client(path: str, count: int) -> None:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(path)
        s.recv(1)  # the go
        for _ in range(count):
            for request, _payload in STEPS:
                s.sendall(request)
                s.recv(2048)


def _serve_request(log: RecoveryLog, data: bytes, loops: int) -> int | None:
    """The request's work and record: the LSN a commit must force (None: not a commit)."""
    _work(loops)
    payload = _PAYLOAD.get(data[:1])
    if payload is None:
        return log.append(3, _COMMIT)
    log.append(1, payload)
    return None


def per_connection(log: RecoveryLog, conns: list, loops: int) -> list[threading.Thread]:
    def serve(c: socket.socket) -> None:
        while data := c.recv(4096):
            lsn = _serve_request(log, data, loops)
            if lsn is not None:
                log.force(lsn)
            c.send(REPLY)
    return [threading.Thread(target=serve, args=(c,)) for c in conns]


def writer_replies(log: RecoveryLog, conns: list, loops: int) -> list[threading.Thread]:
    mu = threading.Lock()
    state: dict = {"pending": [], "writing": False}

    def rounds() -> None:
        while True:
            with mu:
                batch, state["pending"] = state["pending"], []
                if not batch:
                    state["writing"] = False
                    return
            log.force(max(lsn for _, lsn in batch))
            for c, _ in batch:
                c.send(REPLY)

    def serve(c: socket.socket) -> None:
        while data := c.recv(4096):
            lsn = _serve_request(log, data, loops)
            if lsn is None:
                c.send(REPLY)
                continue
            with mu:
                state["pending"].append((c, lsn))
                if state["writing"]:
                    continue
                state["writing"] = True
            rounds()
    return [threading.Thread(target=serve, args=(c,)) for c in conns]


def one_thread(log: RecoveryLog, conns: list, loops: int) -> list[threading.Thread]:
    by_fd = {c.fileno(): c for c in conns}

    def serve() -> None:
        with select.epoll() as ep:
            for fd in by_fd:
                ep.register(fd, select.EPOLLIN)
            left = len(by_fd)
            while left:
                commits: list = []
                for wait in (-1, 0):  # what is ready, then what came meanwhile
                    for fd, _ in ep.poll(wait):
                        c = by_fd[fd]
                        data = c.recv(4096)
                        if not data:
                            ep.unregister(fd)
                            left -= 1
                            continue
                        lsn = _serve_request(log, data, loops)
                        if lsn is None:
                            c.send(REPLY)
                        else:
                            commits.append((c, lsn))
                    if not commits:
                        break
                if commits:
                    log.force(max(lsn for _, lsn in commits))
                    for c, _ in commits:
                        c.send(REPLY)
    return [threading.Thread(target=serve)]


MODES = {"per_connection": per_connection, "writer_replies": writer_replies,
         "one_thread": one_thread}


def _usage() -> tuple[float, float, int]:
    """This process's user and system CPU and voluntary context switches, its threads that
    ended included."""
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime, u.ru_stime, u.ru_nvcsw


def run(mode: str, count: int, loops: int) -> dict:
    """One run of ``mode``: the server's figures a message."""
    root = tempfile.mkdtemp(prefix="mqpy-serving-model-")
    log = RecoveryLog(os.path.join(root, "log"))
    path = os.path.join(root, "s")
    try:
        with socket.socket(socket.AF_UNIX) as listener:
            listener.bind(path)
            listener.listen(CLIENTS)
            clients = [subprocess.Popen([sys.executable, "-m", __spec__.name, "--client",
                                         path, "--count", str(count)])
                       for _ in range(CLIENTS)]
            conns = [listener.accept()[0] for _ in range(CLIENTS)]
        threads = MODES[mode](log, conns, loops)
        for t in threads:
            t.start()
        (user, system, switches), forces = _usage(), log.stats.forces
        began = time.perf_counter()
        for c in conns:
            c.send(b"g")
        for p in clients:
            p.wait()
        seconds = time.perf_counter() - began
        user2, system2, switches2 = _usage()
        n = count * CLIENTS
        for t in threads:
            t.join()
        forces = log.stats.forces - forces
        return {"mode": mode, "msgs_per_s": round(n / seconds),
                "server_cpu_us_per_msg": [round((user2 - user) / n * 1e6, 1),
                                          round((system2 - system) / n * 1e6, 1)],
                "voluntary_switches_per_msg": round((switches2 - switches) / n, 2),
                "commits_per_force": round(2 * n / forces, 2) if forces else None}
    finally:
        for c in locals().get("conns", []):
            c.close()
        log.close()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="also write the JSON document here")
    ap.add_argument("--count", type=int, default=1500, help="messages a client")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--mode", action="append", choices=list(MODES))
    ap.add_argument("--client", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.client:
        _client(args.client, args.count)
        return
    loops = _loops_for(WORK_US)
    results = [run(mode, args.count, loops)
               for _ in range(args.pairs) for mode in (args.mode or list(MODES))]
    emit({"benchmark": "serving_model_bench", "clients": CLIENTS, "work_us": WORK_US,
          "load_average": os.getloadavg(), "results": results}, args.out)


if __name__ == "__main__":
    main()
