"""One bindings application against a queue manager started by strmqm; JSON results.

    python -m benchmarks.bindings_bench [--out FILE] [--quick] [--count N] [--profile FILE]

As users deploy it: ``crtmqm`` and ``strmqm`` in a temporary data path, then one application
in a process of its own (``mqpy.connect(qm)``: the MQI over the daemon's Unix socket) doing,
with 1 KB messages:

- ``persistent``: N times MQPUT (persistent, in syncpoint), MQCMIT, MQGET (in syncpoint),
  MQCMIT;
- ``nonpersistent``: N times MQPUT then MQGET, outside syncpoint; beside it
  ``app_python_us_per_call``, the application's own CPU per call with its socket replaced
  by one replaying the replies (no socket, no queue manager: its Python alone, steadier
  than the CPU per call of a busy machine).

Each call is timed from the application's side; the result gives the median and the 90th
percentile of each call, and the CPU per call of the application and of the daemon (user +
system, /proc), so that a figure taken on a busy machine can still be read. Beside them the
same run measures the floors: ``fdatasync_us`` (a 1 KB append then fdatasync in the data
path's file system, median; ``fdatasync_after_us`` the same after the calls: a disk shared
with other work shows it) and ``round_trip_us``, a bare Python round trip of a 1 KB request
and a short reply over a Unix socket between two processes (blocking on both sides), and
``trio_round_trip_us``, the same with the serving side in trio as the bindings listener
drives its socket (``wait_readable``, ``recv``, ``send``). Targets (2 cores, a quiet
machine): MQPUT at most 75 us, MQCMIT at most fdatasync + 60 us. Nothing is asserted. The
daemon is stopped by its pid (qm.lock). ``--profile FILE``: a cProfile of the application.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from mqpy import spinwait

QMGR = "BBENCH"
QUEUE = "BENCH.Q"
SIZE = 1024
TARGETS = {"put_us": 75, "commit_over_fdatasync_us": 60}
_RUN = ("import sys; from mqpy_cli import control; "
        "getattr(control, sys.argv[1]).main(args=sys.argv[2:], prog_name=sys.argv[1])")


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by process ``pid`` (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _summary(samples: list[int]) -> dict:
    """Median, 90th percentile and mean of nanosecond samples, in microseconds (the mean is
    what a run of calls one after another takes a call: its tail counts)."""
    ordered = sorted(samples)
    return {"median_us": round(statistics.median(ordered) / 1000, 1),
            "p90_us": round(ordered[int(len(ordered) * 0.9)] / 1000, 1),
            "mean_us": round(statistics.fmean(ordered) / 1000, 1)}


# -- the application (a process of its own) ------------------------------------------------


def application(qmgr: str, count: int, daemon_pid: int) -> dict:
    """The timed calls, in this process: {scenario: figures}."""
    import mqpy
    from mqpy import CMQC

    qm = mqpy.QueueManager(None)
    qm.connect(qmgr)
    out = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
    inq = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    data = b"x" * SIZE
    clock = time.perf_counter_ns
    results = {}

    def phase(name: str, calls: dict[str, list[int]], run) -> None:
        cpu0, dcpu0 = time.process_time(), _process_cpu(daemon_pid)
        t = time.perf_counter()
        run()
        wall = time.perf_counter() - t
        cpu, dcpu = time.process_time() - cpu0, _process_cpu(daemon_pid) - dcpu0
        n = sum(len(v) for v in calls.values())
        results[name] = {
            "messages": count, "calls": n, "msgs_per_s": round(count / wall, 1),
            **{call: _summary(v) for call, v in calls.items()},
            "app_cpu_us_per_call": round(cpu / n * 1e6, 1),
            "daemon_cpu_us_per_call": round(dcpu / n * 1e6, 1)}

    pers: dict[str, list[int]] = {"put": [], "put_commit": [], "get": [], "get_commit": []}

    def persistent() -> None:
        pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        gmo = mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
        for _ in range(count):
            md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
            t0 = clock()
            out.put(data, md, pmo)
            t1 = clock()
            qm.commit()
            t2 = clock()
            inq.get(None, mqpy.MD(), gmo)
            t3 = clock()
            qm.commit()
            t4 = clock()
            pers["put"].append(t1 - t0)
            pers["put_commit"].append(t2 - t1)
            pers["get"].append(t3 - t2)
            pers["get_commit"].append(t4 - t3)

    nonp: dict[str, list[int]] = {"put": [], "get": []}

    def nonpersistent() -> None:
        pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
        gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
        for _ in range(count):
            md = mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
            t0 = clock()
            out.put(data, md, pmo)
            t1 = clock()
            inq.get(None, mqpy.MD(), gmo)
            t2 = clock()
            nonp["put"].append(t1 - t0)
            nonp["get"].append(t2 - t1)

    phase("persistent", pers, persistent)
    phase("nonpersistent", nonp, nonpersistent)
    results["nonpersistent"]["app_python_us_per_call"] = python_only(qm, out, inq, count)
    out.close()
    inq.close()
    qm.disconnect()
    return results


class _Replayed:
    """A bindings connection's socket that answers each request at once with the reply its
    verb got last (from the real socket, ``recorded``): no peer, no system call."""

    def __init__(self, real, recorded: dict[int, bytes]) -> None:
        self.real, self.recorded, self.next = real, recorded, None

    def sendall(self, data: bytes) -> None:
        self.next = self.recorded[data[9]]  # (the TSH's segment type)

    def recv(self, size: int, flags: int = 0) -> bytes:
        reply, self.next = self.next, None
        if reply is None:
            raise BlockingIOError
        return reply

    def __getattr__(self, name: str):
        return getattr(self.real, name)


class _Recording(_Replayed):
    """The real socket, each verb's last reply recorded."""

    def sendall(self, data: bytes) -> None:
        self.verb = data[9]
        self.real.sendall(data)

    def recv(self, size: int, flags: int = 0) -> bytes:
        reply = self.recorded[self.verb] = self.real.recv(size, flags)
        return reply


def python_only(qm, out, inq, count: int) -> float:
    """The application's own CPU per non-persistent MQPUT or MQGET (a fresh MQMD each,
    as ``nonpersistent`` calls them), its socket replaced by one replaying the replies
    (``_Replayed``): the Python of a call, without the socket and the queue manager; the
    least of five runs of ``count`` puts and gets, in microseconds."""
    import mqpy
    from mqpy import CMQC

    conn = qm._conn
    real = conn._sock
    pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
    gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
    data = b"x" * SIZE

    def calls() -> None:
        for _ in range(count):
            out.put(data, mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT), pmo)
            inq.get(None, mqpy.MD(), gmo)

    conn._sock = recording = _Recording(real, {})
    try:
        for _ in range(3):
            out.put(data, mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT), pmo)
            inq.get(None, mqpy.MD(), gmo)
        conn._sock = _Replayed(real, recording.recorded)
        runs = []
        for _ in range(5):
            cpu = time.process_time()
            calls()
            runs.append(time.process_time() - cpu)
    finally:
        conn._sock = real
    return round(min(runs) / (2 * count) * 1e6, 2)


# -- the floors ----------------------------------------------------------------------------


def fdatasync_us(root: str, count: int) -> float:
    """Median time of a 1 KB append then fdatasync in ``root``'s file system."""
    path = os.path.join(root, "fsync.dat")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND)
    rec = b"x" * SIZE
    samples = []
    try:
        for _ in range(count):
            t = time.perf_counter_ns()
            os.write(fd, rec)
            os.fdatasync(fd)
            samples.append(time.perf_counter_ns() - t)
    finally:
        os.close(fd)
        os.unlink(path)
    return _summary(samples)["median_us"]


def _echo_blocking(sock: socket.socket) -> None:
    while sock.recv(1 << 16):
        sock.sendall(b"r" * 64)


def _echo_trio(sock: socket.socket) -> None:
    import trio

    from mqpy.loopcalls import send_all

    async def serve() -> None:
        sock.setblocking(False)
        while True:
            await trio.lowlevel.wait_readable(sock)
            if not sock.recv(1 << 16):
                return
            await send_all(sock, b"r" * 64)

    trio.run(serve)


def round_trip(count: int, serve) -> dict:
    """A 1 KB request and a 64-byte reply between this process and a forked one serving
    with ``serve``: median and CPU of both sides per trip."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's life
        ours.close()
        try:
            serve(theirs)
        finally:
            os._exit(0)
    theirs.close()
    request = b"q" * SIZE
    samples = []
    try:
        for _ in range(50):
            ours.sendall(request)
            ours.recv(1 << 16)
        cpu0, ccpu0 = time.process_time(), _process_cpu(pid)
        for _ in range(count):
            t = time.perf_counter_ns()
            ours.sendall(request)
            ours.recv(1 << 16)
            samples.append(time.perf_counter_ns() - t)
        cpu, ccpu = time.process_time() - cpu0, _process_cpu(pid) - ccpu0
    finally:
        ours.close()
        os.waitpid(pid, 0)
    return {**_summary(samples), "app_cpu_us": round(cpu / count * 1e6, 1),
            "server_cpu_us": round(ccpu / count * 1e6, 1)}


# -- the queue manager ---------------------------------------------------------------------


def _control(env: dict, command: str, *args: str) -> None:
    proc = subprocess.run([sys.executable, "-c", _RUN, command, *args], env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"{command} {' '.join(args)}: {proc.stdout}{proc.stderr}")


def _daemon_pid(root: str) -> int:
    with open(os.path.join(root, "qmgrs", QMGR, "qm.lock")) as f:
        return int(f.read().split()[0])


def _stop(pid: int) -> None:
    """End the daemon by its pid: SIGTERM (endmqm -i), SIGKILL if it lingers."""
    try:
        os.kill(pid, signal.SIGTERM)
        for _ in range(200):
            os.kill(pid, 0)
            time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def run(count: int, profile: str | None) -> dict:
    from mqpy import inprocess

    with tempfile.TemporaryDirectory(prefix="mqpy-bindings-bench-") as root:
        env = {**os.environ, "MQPY_DATA_PATH": root, "MQPY_NO_CHINIT": "1"}
        _control(env, "crtmqm", QMGR)
        eng = inprocess.start(QMGR, root)  # the queue, before the daemon owns the data
        try:
            eng.define("QLOCAL", QUEUE, {"MAXDEPTH": 999999999})
        finally:
            inprocess.stop(QMGR, root)
        _control(env, "strmqm", QMGR)
        pid = _daemon_pid(root)
        try:
            fsync = fdatasync_us(root, max(200, count // 4))
            floor = round_trip(count, _echo_blocking)
            floor_trio = round_trip(count, _echo_trio)
            cmd = [sys.executable, "-m", "benchmarks.bindings_bench", "--app", QMGR,
                   "--count", str(count), "--daemon-pid", str(pid)]
            if profile:
                cmd += ["--profile", profile]
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True,
                                  cwd=os.path.dirname(os.path.dirname(os.path.abspath(
                                      __file__))), timeout=3600)
            if proc.returncode != 0:
                raise RuntimeError(proc.stderr)
            app = json.loads(proc.stdout.strip().splitlines()[-1])
            fsync_after = fdatasync_us(root, max(200, count // 4))
        finally:
            _stop(pid)
    commit = app["persistent"]["put_commit"]["median_us"]
    return {"fdatasync_us": fsync, "fdatasync_after_us": fsync_after, "round_trip_us": floor, "trio_round_trip_us": floor_trio,
            **app, "targets": TARGETS,
            "put_over_target_us": round(app["persistent"]["put"]["median_us"]
                                        - TARGETS["put_us"], 1),
            "commit_over_fdatasync_us": round(commit - fsync, 1)}


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, cwd=os.path.dirname(os.path.abspath(__file__))
                              ).stdout.strip()
    except OSError:
        return ""


def spinning() -> dict:
    """How this run's bindings waits spin (``mqpy.spinwait``: the budget and the CPU
    pressure that stops them, as ``MQPY_SPIN_US`` and ``MQPY_SPIN_PRESSURE`` give them to
    the processes it starts) and how busy the cores were at its start (Linux's CPU pressure,
    per cent of the last ten seconds some task waited for a core; None where unknown)."""
    try:
        with open(spinwait.PRESSURE_PATH, "rb") as f:
            busy: float | None = spinwait.some_pressure(f.read())[0]
    except OSError:
        busy = None
    return {"spin_us": spinwait.SPIN_US, "spin_stops_at_cpu_pressure": spinwait.BUSY_PRESSURE,
            "cpu_pressure_avg10": busy}


def emit(doc: dict, out: str | None) -> None:
    """Print a benchmark's JSON document, and write it to ``out`` if given."""
    text = json.dumps(doc, indent=2)
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="also write the JSON document here")
    ap.add_argument("--quick", action="store_true", help="300 messages, for a smoke run")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--profile", default=None, help="cProfile the application into FILE")
    ap.add_argument("--app", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--daemon-pid", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    count = 300 if args.quick else args.count
    if args.app:
        if args.profile:
            import cProfile  # only when asked: the profiled run is not a timed one

            prof = cProfile.Profile()
            result = prof.runcall(application, args.app, count, args.daemon_pid)
            prof.dump_stats(args.profile)
        else:
            result = application(args.app, count, args.daemon_pid)
        print(json.dumps(result))
        return
    doc = {"benchmark": "bindings_bench", "python": platform.python_version(),
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": _commit(),
           "results": run(count, args.profile)}
    emit(doc, args.out)


if __name__ == "__main__":
    main()
