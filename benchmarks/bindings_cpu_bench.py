"""The CPU of each end of a bindings call, without the socket; JSON results.

    python -m benchmarks.bindings_cpu_bench [--count N] [--repeat R] [--out FILE]

A bindings call costs the application's Python (``mqpy.bindings``: the MQI, its request and
reply codec), the daemon's Python (``mqpy.bindings_thread``: reading the request, the engine,
packing the reply), and the socket between them (``bindings_bench.py``'s ``round_trip_us``).
This measures the first two in this process, each alone: the application's MQPUT, MQGET and
MQCMIT of 1 KB messages against a socket that answers at once with a reply made beforehand,
and the daemon's busy-thread path serving request bytes made beforehand against an engine of
this process (a queue manager in a temporary directory), persistent and non-persistent.
Each figure is the least of ``repeat`` runs of ``count`` calls (CPU time, ``process_time``):
the least is what the code costs, the others what the machine's other work added, so the
figures can be compared across a loaded machine's runs. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import collections
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable

from benchmarks.bindings_bench import _commit, emit

SIZE = 1024


def least_us(fn: Callable[[], object], count: int, repeat: int, per: int = 1) -> float:
    """The least CPU time of ``repeat`` runs of ``count`` calls of ``fn``, in µs a call
    (``per`` calls each)."""
    fn()
    runs = []
    for _ in range(repeat):
        t = time.process_time()
        for _ in range(count):
            fn()
        runs.append((time.process_time() - t) / count / per * 1e6)
    return round(min(runs), 2)


class _AnsweringSocket:
    """A socket whose every recv gives ``reply``; what is sent goes nowhere."""

    reply = b""

    def sendall(self, data: bytes) -> None:
        pass

    def recv(self, n: int, *flags: int) -> bytes:
        return self.reply

    def close(self) -> None:
        pass


def application(count: int, repeat: int) -> dict:
    """The application's side of MQPUT, MQGET and MQCMIT (no socket, no daemon)."""
    import mqpy
    from mqpy import CMQC, bindings
    from mqpy.fap import mqiflows
    from mqpy.fap.framing import SegmentWriter
    from mqpy.fap.tsh import SegmentType as T

    writer = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE)
    sock = _AnsweringSocket()
    conn = bindings.BindingsConnection(sock, "QM")  # type: ignore[arg-type]
    pmo, gmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    data = b"x" * SIZE
    # as a queue manager answers: the message's own MsgId and time in the MQMD
    answered = mqpy.MD(MsgId=b"m" * 24, PutDate=b"20261129", PutTime=b"02000000",
                       UserIdentifier=b"app", PutApplName=b"bench", Persistence=1)
    replies = {
        "put": writer.send(mqiflows.encode_reply(T.MQPUT, [answered, pmo])),
        "get": writer.send(mqiflows.encode_reply(T.MQGET, [answered, gmo, SIZE, data])),
        "commit": writer.send(mqiflows.encode_reply(T.MQCMIT, [])),
    }
    calls = {"put": lambda: conn.put(5, mqpy.MD(Persistence=1), pmo, data),
             "get": lambda: conn.get(6, mqpy.MD(), gmo, None),
             "commit": conn.commit}
    out = {}
    for name, call in calls.items():
        sock.reply = replies[name]
        out[f"{name}_us"] = least_us(call, count, repeat)
    async_pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE)

    def put_async() -> None:
        conn._flows.unanswered = 0  # (no replies to read: none come)
        conn.put(5, mqpy.MD(), async_pmo, data)

    out["async_put_us"] = least_us(put_async, count, repeat)
    out["read_ahead_get_us"] = _read_ahead_gets(count, repeat)
    return out


class _StreamingSocket(_AnsweringSocket):
    """A socket that answers the MQOPEN with ``reply``, then each read with ``window``."""

    window = b""

    def recv(self, n: int, *flags: int) -> bytes:
        reply, self.reply = self.reply, b""
        return reply or self.window


def _read_ahead_gets(count: int, repeat: int) -> float:
    """The application's MQGET of a message read ahead: the queue opened MQOO_READ_AHEAD,
    each window of messages (made as the queue manager makes them) given by one read."""
    import mqpy
    from mqpy import CMQC, bindings, streamer
    from mqpy.engine.mqmd import _pack_md
    from mqpy.fap import asyncflows, mqiflows
    from mqpy.fap.framing import SegmentWriter
    from mqpy.fap.tsh import SegmentType as T

    md = _pack_md(mqpy.MD(MsgId=b"m" * 24, PutDate=b"20260101", PutTime=b"12000000"))
    per_window = 180  # about what a window of 256 KB holds of 1 KB messages
    sock = _StreamingSocket()
    sock.reply = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE).send(
        mqiflows.encode_reply(T.MQOPEN, [mqpy.OD(ObjectName="Q")], hobj=5))
    sock.window = b"".join(streamer.async_messages(
        5, 0, b"Q", [(md, b"x" * SIZE)] * per_window)) + asyncflows.notification(
        5, asyncflows.Notice.CLIENT_ASYNC_EMPTY, 0)
    conn = bindings.BindingsConnection(sock, "QM")  # type: ignore[arg-type]
    qm = mqpy.QueueManager(None)
    qm._conn = conn
    q = mqpy.Queue(qm, "Q", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD)
    gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
    try:
        return least_us(lambda: q.get(None, mqpy.MD(), gmo), count, repeat)
    finally:
        conn.abend()  # (the socket would stream windows for ever)


def daemon(count: int, repeat: int) -> dict:
    """The daemon's busy-thread side of a call (no socket): request bytes in, reply out."""
    import mqpy
    from mqpy import CMQC, bindings, bindings_thread, inprocess
    from mqpy.fap import mqiflows
    from mqpy.fap.framing import SegmentReader, SegmentWriter
    from mqpy.fap.tsh import ByteOrder
    from mqpy.fap.tsh import SegmentType as T

    root = tempfile.mkdtemp(prefix="mqpy-cpu-bench-")
    inprocess.create("CPUB", root)
    eng = inprocess.start("CPUB", root)
    try:
        eng.define("QLOCAL", "Q", {"MAXDEPTH": 999999999})
        conn = eng.connect("cpu-bench")
        od = mqpy.OD(ObjectName="Q")
        hout = conn.open(od, CMQC.MQOO_OUTPUT)
        hin = conn.open(od, CMQC.MQOO_INPUT_AS_Q_DEF)
        session = _Session(conn, eng)
        one = getattr(bindings_thread, "_one_request", None)

        def serve(request: bytes) -> bytes:
            decoded = one and one(session.reader, request)
            if not decoded:
                session.received.extend(session.reader.feed(request))
                decoded = mqiflows.decode_request(session.received.popleft(), ByteOrder.LITTLE)
            reply = bindings_thread._serve(session, decoded)
            return reply if type(reply) is bytes else session.writer.send(reply)

        flows = bindings.Flows()
        data = b"x" * SIZE

        def requests(persistence: int, put_opts: int, get_opts: int) -> list[bytes]:
            return [flows.request(T.MQPUT, [mqpy.MD(Persistence=persistence),
                                            mqpy.PMO(Options=put_opts), data], hout),
                    flows.request(T.MQGET, [mqpy.MD(), mqpy.GMO(Options=get_opts),
                                            mqiflows.WHOLE_MESSAGE], hin)]

        nonpersistent = requests(CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPMO_NO_SYNCPOINT,
                                 CMQC.MQGMO_NO_SYNCPOINT)
        put, get = requests(CMQC.MQPER_PERSISTENT, CMQC.MQPMO_SYNCPOINT, CMQC.MQGMO_SYNCPOINT)
        commit = flows.request(T.MQCMIT, (), 0)
        md, pmo = mqpy.MD, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
        gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
        session.reader = SegmentReader(bindings.MAX_TRANSMISSION_SIZE,
                                       max_msg_size=bindings.MAX_MSG_SIZE)
        session.writer = SegmentWriter(bindings.MAX_TRANSMISSION_SIZE)
        ahead = conn.open(od, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_READ_AHEAD)
        return {
            "async_put_us": _async_puts(session, conn, hout, hin, flows, count, repeat),
            "read_ahead_message_us": _read_ahead_windows(conn, hout, ahead, count, repeat),
            "nonpersistent_call_us": least_us(
                lambda: [serve(r) for r in nonpersistent], count, repeat, 2),
            "nonpersistent_spell_call_us": _spell_calls(session, nonpersistent, count, repeat),
            "engine_nonpersistent_call_us": least_us(
                lambda: (conn.put(hout, md(), pmo, data), conn.get(hin, md(), gmo, None)),
                count, repeat, 2),
            # two log forces in four calls: the syncs' CPU counts, not their waits
            "persistent_call_us": least_us(
                lambda: [serve(r) for r in (put, commit, get, commit)],
                max(1, count // 20), repeat, 4),
        }
    finally:
        inprocess.stop("CPUB", root)


#: Asynchronous puts one read brings the queue manager (as the application sends them)
ASYNC_BATCH = 32


class _ReadingSocket:
    """A socket whose next read gives ``data`` once, then finds nothing (the busy thread's
    spell ends); what is sent goes nowhere."""

    data = b""

    def setblocking(self, flag: bool) -> None:
        pass

    def setsockopt(self, *args: object) -> None:
        pass

    def recv(self, n: int, *flags: int) -> bytes:
        data, self.data = self.data, b""
        if not data:
            raise BlockingIOError
        return data

    def send(self, data: bytes, *flags: int) -> int:
        return len(data)


def _async_puts(session: _Session, conn: object, hout: int, hin: int, flows: object,
                count: int, repeat: int) -> float:
    """The busy thread's CPU an asynchronous put of 1 KB, ASYNC_BATCH of them read at once
    (the queue emptied between spells, not counted)."""
    import mqpy
    from mqpy import CMQC, asyncput, bindings_thread
    from mqpy.fap.tsh import SegmentType as T

    pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE)
    requests = []
    for _ in range(ASYNC_BATCH):
        md = mqpy.MD()
        sent = asyncput.prepare(md, pmo, "CPUB")
        requests.append(flows.request(T.MQPUT, [md, sent, b"x" * SIZE], hout))
    data = b"".join(requests)
    session.sock, session.replied_at = _ReadingSocket(), 0.0
    gmo = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
    runs = []
    for _ in range(repeat):
        spent = 0.0
        for _ in range(max(1, count // ASYNC_BATCH)):
            session.sock.data = data
            t = time.process_time()
            bindings_thread.serve_while_busy(session)
            spent += time.process_time() - t
            for _ in range(ASYNC_BATCH):
                conn.get(hin, None, gmo, None)
        runs.append(spent / (max(1, count // ASYNC_BATCH) * ASYNC_BATCH) * 1e6)
    return round(min(runs), 2)


class _CallingSocket(_ReadingSocket):
    """A socket whose reads give ``chunks`` one at a time (an application's calls, each
    after the reply to the one before), then find nothing."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks[::-1]

    def recv(self, n: int, *flags: int) -> bytes:
        if not self.chunks:
            raise BlockingIOError
        return self.chunks.pop()


def _spell_calls(session: _Session, requests: list[bytes], count: int, repeat: int) -> float:
    """The busy thread's CPU a call of ``requests`` (served in turn, ``count`` times, one
    read each) as it serves them in its spells (``serve_while_busy``: the read, the call,
    the reply's write)."""
    from mqpy import bindings_thread

    def spells() -> None:
        while session.sock.chunks:
            bindings_thread.serve_while_busy(session)

    runs = []
    for _ in range(repeat):
        session.sock, session.replied_at = _CallingSocket(requests * count), 0.0
        t = time.process_time()
        spells()
        runs.append((time.process_time() - t) / (count * len(requests)) * 1e6)
    return round(min(runs), 2)


def _read_ahead_windows(conn: object, hout: int, ahead: int, count: int,
                        repeat: int) -> float:
    """The queue manager's CPU a message of 1 KB read ahead: windows of 256 KB asked for
    and answered (``streamer.answer``; the queue filled between runs, not counted)."""
    import trio

    import mqpy
    from mqpy import CMQC, readahead, streamer
    from mqpy.fap import asyncflows
    from mqpy.fap.framing import SegmentReader

    request = asyncflows.message_request(asyncflows.MessageRequest(
        ahead, readahead.WINDOW, CMQC.MQGMO_NO_SYNCPOINT, 0, 0))
    (event,) = SegmentReader(1 << 20).feed(request)
    pmo = mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
    data = b"x" * SIZE

    async def windows() -> float:
        limiter = trio.CapacityLimiter(1)
        spent, sent = 0.0, 0
        while sent < count:
            t = time.process_time()
            answer = await streamer.answer(conn, event, limiter, 1 << 20)
            spent += time.process_time() - t
            got = answer.count(b"TSH ") - 1  # (the NOTIFICATION that ends it)
            if not got:
                break
            sent += got
        return spent / max(1, sent) * 1e6

    runs = []
    for _ in range(repeat):
        for _ in range(count):
            conn.put(hout, None, pmo, data)
        runs.append(trio.run(windows))
    return round(min(runs), 2)


class _Session:
    """What ``bindings_thread`` reads of a ``bindings_listener._Session``."""

    def __init__(self, conn: object, engine: object) -> None:
        self.conn, self.engine = conn, engine
        self.received: collections.deque = collections.deque()
        self.server = self

    def on_unexpected(self, exc: BaseException) -> None:
        raise exc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="also write the JSON document here")
    ap.add_argument("--count", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    doc = {"benchmark": "bindings_cpu_bench", "python": platform.python_version(),
           "machine": platform.machine(), "cpus": os.cpu_count(),
           "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "commit": _commit(),
           "load_average": os.getloadavg()[0], "message_bytes": SIZE,
           "results": {"application": application(args.count, args.repeat),
                       "daemon": daemon(args.count, args.repeat)}}
    emit(doc, args.out)


if __name__ == "__main__":
    sys.exit(main())
