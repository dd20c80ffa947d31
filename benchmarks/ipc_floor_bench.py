"""The floor of each way a Python application can make a bindings call's round trip; JSON results.

    python -m benchmarks.ipc_floor_bench [--seconds S] [--runs R] [--clients 1,4,8]
                                         [--models threads,one] [--only NAME ...]
                                         [--work] [--out FILE]
    python -m benchmarks.ipc_floor_bench --table FILE

A bindings call is a synchronous request and reply between an application's process and the
queue manager's, which serves each connection on a thread of its own (one process, one
interpreter lock). This measures that shape with nothing else in it: N client processes each
send a 300-byte request and wait for a 100-byte reply, again and again, to a server process
that answers at once, over each transport Python can use:

- ``stream``: a blocking Unix stream socket (the bindings connection's);
- ``seqpacket``: a Unix SOCK_SEQPACKET socket (one ``recv`` a message);
- ``pipe``: a pair of pipes;
- ``eventfd``: a ring in shared memory (``mmap``, MAP_SHARED) for each direction, a sleeping
  reader woken through an eventfd;
- ``futex``: the same ring, a sleeping reader waiting on the ring's tail word with
  FUTEX_WAIT and woken with FUTEX_WAKE (``syscall(SYS_futex)`` through ctypes; the shared,
  not the _PRIVATE, forms: the word is in memory two processes map);
- ``-spinN``: the reader first polls for up to N µs (yielding the core between polls, as
  ``mqpy.spinwait`` does; on the server's side one thread at a time, as its token does)
  before it sleeps.

A ring is single-producer single-consumer: a tail the writer advances after it has copied
the message into a slot, a head the reader advances, and a flag the reader sets before it
sleeps (re-checking the tail after setting it), so that a writer makes the wake-up system
call only for a reader that sleeps. Python has no atomic operations on shared memory: a
FUTEX_WAIT has a 20 ms limit, and the waits that reached it with the word already changed
(a wake-up lost to the flag and the tail being read and written out of order, or a write
that came just as the limit did) are counted as ``missed_wakes``; an eventfd's read has no
limit.

Two server models: ``threads`` (a thread a connection, as the queue manager serves a busy
bindings connection) and ``one`` (one thread serves every connection: an epoll over the
sockets or pipes; for the rings, one doorbell word or eventfd that every client rings and
the server waits on, then scans every ring), so that the interpreter lock's part of the
threads' cost can be told from the kernel's.

Each configuration runs ``runs`` times in a fresh server process, the configurations taken
in turn (the order reversed every other round) so that a machine's changing load falls on
all of them alike. A run's window is ``seconds`` long after half a second of warm-up. Per
round trip: the clients' CPU (user and system, each client's getrusage over the window),
the server's (the process's getrusage, and each serving thread's from
``/proc/self/task/*/schedstat``), and the voluntary and involuntary context switches of
each side. Medians of the runs are reported, with every run beside them and the load
average and CPU pressure before and after; ``--table`` prints a document's medians as a
Markdown table. Nothing is asserted.

The transports carry nothing but bytes; the product is not used, except with ``--work``:
then each call also runs each side's Python of a real persistent MQPUT (the application's
MQI and codec, ``mqpy.bindings``, against a socket that answers at once; the queue
manager's reading, decoding and answering of the request, without the engine), so that what
waking up costs that code (caches gone cold while the process slept) shows beside the
transport's own cost; the document gives that work's CPU when run alone with hot caches.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import mmap
import os
import platform
import resource
import select
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from benchmarks.bindings_bench import _commit, emit

REQUEST = b"q" * 300
REPLY = b"r" * 100
STOP = b""
#: Round trips a client makes between two looks at the clock.
BATCH = 16
WARMUP_S = 0.5

TRANSPORTS = ("stream", "seqpacket", "pipe", "eventfd", "futex")
CONFIGS = {
    "threads": ["stream", "stream-spin20", "seqpacket", "pipe", "eventfd", "eventfd-spin20",
                "futex", "futex-spin5", "futex-spin20", "futex-spin50"],
    "one": ["stream", "seqpacket", "pipe", "eventfd", "futex", "futex-spin20"],
}

# ---------------------------------------------------------------------------------------
# futex through ctypes

SYS_FUTEX = {"x86_64": 202, "aarch64": 98}.get(platform.machine(), 202)
FUTEX_WAIT, FUTEX_WAKE = 0, 1
ETIMEDOUT = 110
_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_syscall.argtypes = [ctypes.c_long, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint,
                     ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


_WAIT_LIMIT = _Timespec(0, 20_000_000)
_WAIT_LIMIT_P = ctypes.addressof(_WAIT_LIMIT)


class Futex:
    """A 32-bit word of a shared mapping, waited on and woken across processes."""

    def __init__(self, mm: mmap.mmap, offset: int) -> None:
        self._word = ctypes.c_uint32.from_buffer(mm, offset)
        self.addr = ctypes.addressof(self._word)
        self.timeouts = 0

    def wait(self, expected: int) -> None:
        """Sleep while the word is ``expected`` (20 ms at most; a wait that reached its
        limit with the word already changed is a missed wake-up, counted)."""
        if (_syscall(SYS_FUTEX, self.addr, FUTEX_WAIT, expected, _WAIT_LIMIT_P, None, 0) < 0
                and ctypes.get_errno() == ETIMEDOUT and self._word.value != expected):
            self.timeouts += 1

    def wake(self) -> None:
        _syscall(SYS_FUTEX, self.addr, FUTEX_WAKE, 1, None, None, 0)


class EventFd:
    """An eventfd: ``wait`` blocks until some ``wake`` has been made since the last."""

    timeouts = 0

    def __init__(self) -> None:
        self.fd = os.eventfd(0)

    def wait(self, expected: int) -> None:
        os.eventfd_read(self.fd)

    def wake(self) -> None:
        os.eventfd_write(self.fd, 1)


# ---------------------------------------------------------------------------------------
# a ring in shared memory

SLOTS, SLOT = 8, 512
#: A ring's words (4-byte units from its start) and where its slots begin (bytes).
TAIL, WAITING, HEAD, SLOTS_AT = 0, 1, 2, 64
RING_SIZE = SLOTS_AT + SLOTS * SLOT
#: The shared header's words: the doorbell every client rings for the one-thread server,
#: the server's "I sleep" flag.
BELL, BELL_WAITING, HEADER_SIZE = 0, 1, 4096
MASK = 0xFFFFFFFF


def words(mm: mmap.mmap) -> memoryview:
    """The mapping as 32-bit words. A word is read and written through this view, one load
    or store each: ``struct.pack_into`` zeroes its field before it writes it, so a reader
    in another process could see 0 between the two."""
    return memoryview(mm).cast("I")


def _spin(ready: Callable[[], bool], spin_ns: int) -> bool:
    """Poll ``ready`` for up to ``spin_ns``, yielding the core between polls."""
    deadline = time.perf_counter_ns() + spin_ns
    while True:
        os.sched_yield()
        if ready():
            return True
        if time.perf_counter_ns() >= deadline:
            return False


class Ring:
    """One direction of a connection: slots, a tail (the writer's count, the futex word), a
    head (the reader's count), the reader's sleeping flag, and how to wake it."""

    def __init__(self, mm: mmap.mmap, offset: int, sleeper: Futex | EventFd,
                 spin_us: int = 0, spin_token: threading.Lock | None = None,
                 bell: Futex | EventFd | None = None) -> None:
        self.mv = memoryview(mm)
        self.w = words(mm)
        self.off = offset // 4
        self.slots = offset + SLOTS_AT
        self.sleeper = sleeper
        self.spin_ns = spin_us * 1000
        self.spin_token = spin_token
        # a writer ringing the one server's doorbell rather than this ring's reader
        self.bell = bell
        self.tail = 0
        self.head = 0

    def put(self, data: bytes) -> None:
        w, off, t = self.w, self.off, self.tail
        if (t - w[off + HEAD]) & MASK >= SLOTS:
            raise RuntimeError("ring full")  # a ping-pong never has two in flight
        s = self.slots + (t % SLOTS) * SLOT
        w[s // 4] = len(data)
        self.mv[s + 4:s + 4 + len(data)] = data
        t = self.tail = (t + 1) & MASK
        w[off + TAIL] = t
        if self.bell is None:
            if w[off + WAITING]:
                self.sleeper.wake()
        else:
            w[BELL] = (w[BELL] + 1) & MASK
            if w[BELL_WAITING]:
                self.bell.wake()

    def ready(self) -> bool:
        return self.w[self.off + TAIL] != self.head

    def take(self) -> bytes:
        w, h = self.w, self.head
        s = self.slots + (h % SLOTS) * SLOT
        data = bytes(self.mv[s + 4:s + 4 + w[s // 4]])
        h = self.head = (h + 1) & MASK
        w[self.off + HEAD] = h
        return data

    def wait(self) -> None:
        """Return once a message is there: at once, after a spin, or after a sleep."""
        if self.ready():
            return
        if self.spin_ns:
            token = self.spin_token
            if token is None:
                if _spin(self.ready, self.spin_ns):
                    return
            elif token.acquire(False):
                try:
                    if _spin(self.ready, self.spin_ns):
                        return
                finally:
                    token.release()
        w, flag = self.w, self.off + WAITING
        while True:
            w[flag] = 1
            if self.ready():
                w[flag] = 0
                return
            self.sleeper.wait(self.head)
            w[flag] = 0
            if self.ready():
                return


# ---------------------------------------------------------------------------------------
# connections: the client's call, the server's loop, and what the one-thread server needs


def _read_whole(read: Callable[[int], bytes], first: bytes, size: int) -> bytes:
    """``first`` and what follows it until ``size`` bytes (a stream may split a message);
    b"" at the end of the stream."""
    while first and len(first) < size:
        more = read(65536)
        if not more:
            return b""
        first += more
    return first


class _End:
    """One end of a socket pair or a pipe pair: how it reads, writes, reads without waiting
    and closes."""

    def __init__(self, read_fd: int, write_fd: int, sock: socket.socket | None) -> None:
        self.sock = sock
        if sock is not None:
            self.read, self.write = sock.recv, sock.sendall
            self.close = sock.close
        else:
            self.read = lambda n: os.read(read_fd, n)
            self.write = lambda data: os.write(write_fd, data)
            self.close = lambda: (os.close(read_fd), os.close(write_fd))
        self.read_fd = read_fd

    def read_soon(self, spin_ns: int) -> bytes:
        """A read that first polls without waiting for up to ``spin_ns`` (sockets only)."""
        if spin_ns and self.sock is not None:
            sock, deadline = self.sock, time.perf_counter_ns() + spin_ns
            while True:
                try:
                    return sock.recv(65536, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    if time.perf_counter_ns() >= deadline:
                        break
                    os.sched_yield()
        return self.read(65536)


class SocketConnection:
    """A socket pair, or a pipe pair: the client's end, the server's end."""

    #: What the server does with a request between reading it and answering (``--work``)
    work: Callable[[], object] | None = None

    def __init__(self, transport: str, spin_us: int) -> None:
        self.spin_ns = spin_us * 1000
        if transport == "pipe":
            s_read, c_write = os.pipe()
            c_read, s_write = os.pipe()
            self.client = _End(c_read, c_write, None)
            self.server = _End(s_read, s_write, None)
        else:
            kind = socket.SOCK_STREAM if transport == "stream" else socket.SOCK_SEQPACKET
            c_sock, s_sock = socket.socketpair(socket.AF_UNIX, kind)
            self.client = _End(c_sock.fileno(), c_sock.fileno(), c_sock)
            self.server = _End(s_sock.fileno(), s_sock.fileno(), s_sock)
        self.whole = transport != "seqpacket"
        self.s_read = self.server.read_fd
        self.served = 0

    def client_side(self) -> None:
        """In the client, after the fork: close the server's end."""
        self.server.close()

    def server_side(self) -> None:
        self.client.close()

    def call(self) -> None:
        end = self.client
        end.write(REQUEST)
        got = end.read_soon(self.spin_ns)
        if self.whole:
            _read_whole(end.read, got, len(REPLY))

    def close_client(self) -> None:
        self.client.close()

    def serve_one(self) -> bool:
        """Read a request and answer it; False at the end of the connection."""
        end = self.server
        got = end.read_soon(self.spin_ns)
        if self.whole:
            got = _read_whole(end.read, got, len(REQUEST))
        if not got:
            return False
        if self.work is not None:
            self.work()
        end.write(REPLY)
        self.served += 1
        return True

    def serve(self) -> None:
        while self.serve_one():
            pass


class RingConnection:
    """A request ring and a reply ring in a shared mapping."""

    work: Callable[[], object] | None = None

    def __init__(self, transport: str, spin_us: int, mm: mmap.mmap, offset: int,
                 spin_token: threading.Lock, bell: Futex | EventFd | None) -> None:
        def sleeper(at: int) -> Futex | EventFd:
            return Futex(mm, at + TAIL * 4) if transport == "futex" else EventFd()

        self.req = Ring(mm, offset, sleeper(offset), spin_us, spin_token, bell)
        self.rep = Ring(mm, offset + RING_SIZE, sleeper(offset + RING_SIZE), spin_us)
        self.served = 0

    def client_side(self) -> None:
        pass

    def server_side(self) -> None:
        pass

    def call(self) -> None:
        self.req.put(REQUEST)
        rep = self.rep
        rep.wait()
        rep.take()

    def close_client(self) -> None:
        self.req.put(STOP)

    def serve_one(self) -> bool:
        """Answer the request that is there; False for the client's last word."""
        if not self.req.take():
            return False
        if self.work is not None:
            self.work()
        self.rep.put(REPLY)
        self.served += 1
        return True

    def serve(self) -> None:
        req = self.req
        while True:
            req.wait()
            if not self.serve_one():
                return

    def missed_wakes(self) -> int:
        """The waits that reached their limit: on the server's side, the request ring's;
        on the client's, the reply ring's."""
        return self.req.sleeper.timeouts + self.rep.sleeper.timeouts


def serve_sockets_one_thread(conns: list[SocketConnection]) -> None:
    """Every socket or pipe served by this thread through an epoll."""
    ep = select.epoll()
    by_fd = {c.s_read: c for c in conns}
    for fd in by_fd:
        ep.register(fd, select.EPOLLIN)
    while by_fd:
        for fd, _ in ep.poll():
            if not by_fd[fd].serve_one():
                ep.unregister(fd)
                del by_fd[fd]


def serve_rings_one_thread(conns: list[RingConnection], mm: mmap.mmap,
                           bell: Futex | EventFd, spin_us: int) -> None:
    """Every ring served by this thread: scan them all, and when none has a request, spin
    (if asked) then sleep on the doorbell every client rings."""
    w = words(mm)
    live = list(conns)
    spin_ns = spin_us * 1000

    def any_ready() -> bool:
        return any(c.req.ready() for c in live)

    while live:
        served = False
        for c in list(live):
            if c.req.ready():
                served = True
                if not c.serve_one():
                    live.remove(c)
        if served or not live:
            continue
        if spin_ns and _spin(any_ready, spin_ns):
            continue
        w[BELL_WAITING] = 1
        rung = w[BELL]
        if not any_ready():
            bell.wait(rung)
        w[BELL_WAITING] = 0


# ---------------------------------------------------------------------------------------
# --work: each side's Python of a real call beside the transport


class _AnsweringSocket:
    """A socket whose every recv gives ``reply``; what is sent goes nowhere."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply

    def sendall(self, data: bytes) -> None:
        pass

    def recv(self, n: int, *flags: int) -> bytes:
        return self.reply


def codec_work() -> tuple[Callable[[], object], Callable[[], object]]:
    """The application's Python of a persistent MQPUT in syncpoint (``mqpy.bindings``: the
    MQI, its request and reply codec, against a socket that answers at once) and the
    queue manager's codec of the same call (the request's segment read and decoded, the
    reply encoded and framed; no engine): what each side of a bindings call does besides
    the transport, with the code's own footprint in the caches."""
    import mqpy
    from mqpy import CMQC, bindings
    from mqpy.fap import mqiflows
    from mqpy.fap.framing import SegmentReader, SegmentWriter
    from mqpy.fap.tsh import ByteOrder
    from mqpy.fap.tsh import SegmentType as T

    data = b"x" * 1024
    pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    answered = mqpy.MD(MsgId=b"m" * 24, PutDate=b"20261129", PutTime=b"02000000",
                       UserIdentifier=b"app", PutApplName=b"bench", Persistence=1)
    writer = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE)
    reply = writer.send(mqiflows.encode_reply(T.MQPUT, [answered, pmo]))
    app = bindings.BindingsConnection(_AnsweringSocket(reply), "QM")  # type: ignore[arg-type]
    request = bindings.Flows().request(T.MQPUT, [mqpy.MD(Persistence=1), pmo, data], 5)
    reader = SegmentReader(bindings.MAX_TRANSMISSION_SIZE, max_msg_size=bindings.MAX_MSG_SIZE)

    def application() -> object:
        return app.put(5, mqpy.MD(Persistence=1), pmo, data)

    def queue_manager() -> object:
        (event,) = reader.feed(request)
        call = mqiflows.decode_request(event, ByteOrder.LITTLE)
        return writer.send(mqiflows.encode_reply(T.MQPUT, [call.values[0], call.values[1]]))

    return application, queue_manager


def codec_hot_us(count: int = 5000, repeat: int = 5) -> dict:
    """Each side's work of ``codec_work`` alone in this process, again and again with the
    caches hot: the least CPU of ``repeat`` runs, µs a call."""
    out = {}
    for name, fn in zip(("application_us", "queue_manager_us"), codec_work(), strict=True):
        fn()
        runs = []
        for _ in range(repeat):
            t = time.process_time()
            for _ in range(count):
                fn()
            runs.append((time.process_time() - t) / count * 1e6)
        out[name] = round(min(runs), 2)
    return out


# ---------------------------------------------------------------------------------------
# one run: a server process and its clients


def _thread_stats(tid: int) -> dict:
    """A thread's CPU (ns, schedstat), user and system ticks, and context switches."""
    base = f"/proc/self/task/{tid}/"
    try:
        with open(base + "schedstat") as f:
            cpu_ns = int(f.read().split()[0])
        with open(base + "stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(base + "status") as f:
            status = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
    except OSError:
        return {}
    return {"cpu_ns": cpu_ns, "utime": int(fields[11]), "stime": int(fields[12]),
            "vcsw": int(status["voluntary_ctxt_switches"]),
            "ivcsw": int(status["nonvoluntary_ctxt_switches"])}


def _rusage(who: int) -> dict:
    ru = resource.getrusage(who)
    return {"user": ru.ru_utime, "sys": ru.ru_stime, "vcsw": ru.ru_nvcsw,
            "ivcsw": ru.ru_nivcsw}


def _delta(a: dict, b: dict) -> dict:
    return {k: b[k] - a[k] for k in a}


def _client(conn: SocketConnection | RingConnection, start_at: float, end_at: float,
            result_fd: int, release_fd: int,
            work: Callable[[], object] | None = None) -> None:
    """A client process's life: calls until ``end_at``, its figures for the window written
    to ``result_fd`` as one JSON line; it ends its connection once ``release_fd`` is
    closed (after the server has taken its own figures)."""
    call, clock = conn.call, time.monotonic
    if work is not None:
        ipc = call

        def call() -> None:
            work()
            ipc()

    trips = 0
    before: dict | None = None
    while True:
        for _ in range(BATCH):
            call()
        trips += BATCH
        now = clock()
        if before is None and now >= start_at:
            before, trips_at, began = _rusage(resource.RUSAGE_SELF), trips, now
        elif now >= end_at and before is not None:
            used = _delta(before, _rusage(resource.RUSAGE_SELF))
            line = {"trips": trips - trips_at, "seconds": now - began, **used}
            break
    if isinstance(conn, RingConnection):
        line["missed_wakes"] = conn.missed_wakes()
    os.write(result_fd, (json.dumps(line) + "\n").encode())
    os.read(release_fd, 1)
    conn.close_client()


def one_run(config: str, model: str, clients: int, seconds: float, work: bool = False) -> dict:
    """Serve ``clients`` forked client processes over ``config`` with the ``model`` server;
    the window's figures. ``work``: each side also runs its Python of a real call."""
    transport, _, spin = config.partition("-spin")
    spin_us = int(spin or 0)
    mm = mmap.mmap(-1, HEADER_SIZE + clients * 2 * RING_SIZE)
    token = threading.Lock()
    bell: Futex | EventFd | None = None
    if model == "one" and transport in ("eventfd", "futex"):
        bell = Futex(mm, BELL * 4) if transport == "futex" else EventFd()
    conns: list = []
    for i in range(clients):
        if transport in ("eventfd", "futex"):
            conns.append(RingConnection(transport, spin_us, mm, HEADER_SIZE + i * 2 * RING_SIZE,
                                        token, bell))
        else:
            conns.append(SocketConnection(transport, spin_us))
    app_work = None
    if work:
        app_work, qmgr_work = codec_work()
        for conn in conns:
            conn.work = qmgr_work
    results_r, results_w = os.pipe()
    release_r, release_w = os.pipe()
    start_at = time.monotonic() + WARMUP_S
    end_at = start_at + seconds
    pids = []
    for conn in conns:
        pid = os.fork()
        if pid == 0:  # the client: its own connection only
            code = 1
            try:
                os.close(results_r)
                os.close(release_w)
                for other in conns:
                    if other is not conn and isinstance(other, SocketConnection):
                        other.close_client()
                        other.client_side()
                conn.client_side()
                _client(conn, start_at, end_at, results_w, release_r, app_work)
                code = 0
            finally:
                os._exit(code)
        pids.append(pid)
    os.close(results_w)
    os.close(release_r)
    for conn in conns:
        conn.server_side()
    tids: list[int] = []

    def serving(target: Callable[..., None], *args: object) -> None:
        tids.append(threading.get_native_id())
        target(*args)

    if model == "threads":
        threads = [threading.Thread(target=serving, args=(c.serve,), daemon=True) for c in conns]
    elif bell is None:
        threads = [threading.Thread(target=serving, args=(serve_sockets_one_thread, conns),
                                    daemon=True)]
    else:
        threads = [threading.Thread(target=serving,
                                    args=(serve_rings_one_thread, conns, mm, bell, spin_us),
                                    daemon=True)]
    for t in threads:
        t.start()
    load_before = os.getloadavg()
    time.sleep(max(0.0, start_at - time.monotonic()))
    proc0 = _rusage(resource.RUSAGE_SELF)
    threads0 = {tid: _thread_stats(tid) for tid in tids}
    served0 = sum(c.served for c in conns)
    time.sleep(max(0.0, end_at - time.monotonic()))
    lines = []
    with os.fdopen(results_r) as f:
        for _ in conns:
            line = f.readline()
            if not line:
                break
            lines.append(json.loads(line))
        # every client has ended its window and waits: the server's window ends here
        proc1 = _rusage(resource.RUSAGE_SELF)
        threads1 = {tid: _thread_stats(tid) for tid in tids}
        served = sum(c.served for c in conns) - served0
        load_after = os.getloadavg()
        os.close(release_w)
    for t in threads:
        t.join(timeout=10)
    for pid in pids:
        os.waitpid(pid, 0)
    trips = sum(c["trips"] for c in lines)
    per = 1e6 / trips if trips else 0.0
    per_served = 1e6 / served if served else 0.0
    client_user = sum(c["user"] for c in lines)
    client_sys = sum(c["sys"] for c in lines)
    server = _delta(proc0, proc1)
    thread_us = []
    for tid in tids:
        a, b = threads0.get(tid, {}), threads1.get(tid, {})
        if a and b:
            thread_us.append(round((b["cpu_ns"] - a["cpu_ns"]) / 1000 * per_served / 1e6, 2))
    missed = sum(c.missed_wakes() for c in conns if isinstance(c, RingConnection))
    if bell is not None:
        missed += bell.timeouts
    missed_clients = sum(c.get("missed_wakes", 0) for c in lines)
    return {
        "config": config, "model": model, "work": work, "clients": len(lines), "trips": trips,
        "round_trips_per_s": round(sum(c["trips"] / c["seconds"] for c in lines), 1),
        "client_cpu_us": round((client_user + client_sys) * per, 2),
        "client_user_us": round(client_user * per, 2),
        "client_sys_us": round(client_sys * per, 2),
        "client_vcsw": round(sum(c["vcsw"] for c in lines) / trips, 3) if trips else None,
        "client_ivcsw": round(sum(c["ivcsw"] for c in lines) / trips, 3) if trips else None,
        "served": served,
        "server_cpu_us": round((server["user"] + server["sys"]) * per_served, 2),
        "server_user_us": round(server["user"] * per_served, 2),
        "server_sys_us": round(server["sys"] * per_served, 2),
        "server_vcsw": round(server["vcsw"] / served, 3) if served else None,
        "server_ivcsw": round(server["ivcsw"] / served, 3) if served else None,
        "server_thread_cpu_us": sorted(thread_us, reverse=True),
        "missed_wakes_server_side": missed, "missed_wakes_client_side": missed_clients,
        "loadavg_before": round(load_before[0], 2), "loadavg_after": round(load_after[0], 2),
    }


# ---------------------------------------------------------------------------------------
# the rounds

MEDIAN_FIELDS = ("round_trips_per_s", "client_cpu_us", "client_user_us", "client_sys_us",
                 "client_vcsw", "client_ivcsw", "server_cpu_us", "server_user_us",
                 "server_sys_us", "server_vcsw", "server_ivcsw")


def _cpu_pressure() -> float | None:
    try:
        with open("/proc/pressure/cpu") as f:
            return float(f.readline().split()[1].split("=")[1])
    except (OSError, IndexError, ValueError):
        return None


def _run_in_child(config: str, model: str, clients: int, seconds: float, work: bool) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.ipc_floor_bench", "--one-run", config,
           "--model", model, "--clients", str(clients), "--seconds", str(seconds)]
    if work:
        cmd.append("--work")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        done = subprocess.run(cmd, check=False, capture_output=True, text=True, cwd=root,
                              timeout=seconds + 60)
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, IndexError, ValueError) as e:
        return {"config": config, "model": model, "clients": clients, "error": repr(e)}


def _summary(runs: list[dict]) -> dict:
    good = [r for r in runs if "error" not in r]
    out: dict = {"runs_ok": len(good)}
    for field in MEDIAN_FIELDS:
        values = [r[field] for r in good if r.get(field) is not None]
        out[field] = round(statistics.median(values), 3) if values else None
    if out["client_cpu_us"] is not None and out["server_cpu_us"] is not None:
        out["total_cpu_us"] = round(statistics.median(
            [r["client_cpu_us"] + r["server_cpu_us"] for r in good]), 2)
    threads = [r["server_thread_cpu_us"] for r in good if r["server_thread_cpu_us"]]
    if threads:
        out["server_thread_cpu_us_median"] = round(statistics.median(
            [statistics.median(t) for t in threads]), 2)
    for side in ("server", "client"):
        key = f"missed_wakes_{side}_side"
        out[key] = sum(r.get(key, 0) for r in good)
    return out


def table(doc: dict) -> str:
    """The medians of a results document as a Markdown table."""
    rows = [("| server | transport | N | round trips/s | client µs | server µs | total µs "
             "| server thread µs | client vcsw/ivcsw | server vcsw/ivcsw | missed wakes |"),
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(doc["results"], key=lambda r: (r["model"] != "threads", r["clients"],
                                                  CONFIGS[r["model"]].index(r["config"]))):
        missed = r.get("missed_wakes_server_side", 0) + r.get("missed_wakes_client_side", 0)
        rows.append(
            f"| {r['model']} | {r['config']} | {r['clients']} | {r['round_trips_per_s']:,.0f} "
            f"| {r['client_cpu_us']} | {r['server_cpu_us']} | {r.get('total_cpu_us')} "
            f"| {r.get('server_thread_cpu_us_median')} "
            f"| {r['client_vcsw']:.2f}/{r['client_ivcsw']:.2f} "
            f"| {r['server_vcsw']:.2f}/{r['server_ivcsw']:.2f} | {missed} |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="also write the JSON document here")
    ap.add_argument("--seconds", type=float, default=2.0, help="each run's window")
    ap.add_argument("--runs", type=int, default=5, help="runs of each configuration")
    ap.add_argument("--clients", default="1,4,8", help="client counts, comma-separated")
    ap.add_argument("--models", default="threads,one", help="server models, comma-separated")
    ap.add_argument("--only", nargs="*", default=None, help="these configurations only")
    ap.add_argument("--work", action="store_true",
                    help="each side also runs its Python of a real MQPUT (mqpy's codec)")
    ap.add_argument("--table", default=None, metavar="FILE",
                    help="print the medians of a results FILE as a Markdown table")
    ap.add_argument("--one-run", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--model", default="threads", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.table:
        with open(args.table) as f:
            print(table(json.load(f)))
        return
    if args.one_run:
        print(json.dumps(one_run(args.one_run, args.model, int(args.clients), args.seconds,
                                 args.work)))
        return
    counts = [int(n) for n in args.clients.split(",")]
    plan = [(model, config) for model in args.models.split(",") for config in CONFIGS[model]
            if not args.only or config in args.only]
    runs: dict[tuple[str, str, int], list[dict]] = {}
    load = {"loadavg_start": os.getloadavg(), "cpu_pressure_avg10_start": _cpu_pressure()}
    hot = [codec_hot_us()] if args.work else []
    started = time.monotonic()
    for r in range(args.runs):
        for n in counts:
            order = plan if r % 2 == 0 else plan[::-1]
            for model, config in order:
                result = _run_in_child(config, model, n, args.seconds, args.work)
                runs.setdefault((model, config, n), []).append(result)
                print(f"run {r + 1} {model:7} {config:15} N={n}: "
                      f"{result.get('round_trips_per_s')}/s client "
                      f"{result.get('client_cpu_us')} server {result.get('server_cpu_us')} µs "
                      f"(load {result.get('loadavg_before')})", file=sys.stderr)
    if args.work:
        hot.append(codec_hot_us())
    load.update(loadavg_end=os.getloadavg(), cpu_pressure_avg10_end=_cpu_pressure(),
                wall_s=round(time.monotonic() - started, 1))
    doc = {
        "benchmark": "ipc_floor", "commit": _commit(), "python": platform.python_version(),
        "machine": platform.machine(), "cpus": os.cpu_count(), "seconds": args.seconds,
        "runs": args.runs, "request_bytes": len(REQUEST), "reply_bytes": len(REPLY),
        "work": args.work, "codec_hot_us_before_after": hot,
        "load": load,
        "results": [{"model": model, "config": config, "clients": n, **_summary(rs),
                     "each_run": rs}
                    for (model, config, n), rs in runs.items()],
    }
    emit(doc, args.out)


if __name__ == "__main__":
    main()
