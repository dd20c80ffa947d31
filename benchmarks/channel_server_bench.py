"""What a channel's MQI calls cost the queue manager: its bindings server serving the SPI
RUNs a channel's two MCAs send, in this process, without sockets or the other processes.

    python -m benchmarks.channel_server_bench [--persistent] [--batches N] [--socket]
                                               [--sync-record]

A receiving MCA's batch is one RUN_QUIET of 50 MQPUTs (1 KB, MQPMO_SET_ALL_CONTEXT, each
arrival's MQMD packed as it came) ending with MQCMIT; a sending MCA's is one RUN of 50 MQGETs
of its transmission queue (the request's MQMD and MQGMO packed once) ending with MQCMIT. Each
is served as ``mqpy.bindings_listener`` serves a request (decode, engine, reply packed) and timed in CPU
time (``time.process_time``), best of five rounds: microseconds a message. Unlike
``channel_daemons_bench`` it does not depend on what else the machine runs, so it can tell a
change of a few microseconds in the queue manager's part of a channel.

``--sync-record``: each batch also replaces the channel's sync record, as the MCAs do in a
second run of the batch: the receiving MCA's RUN_QUIET of the record's MQGET (by MsgId and
CorrelId), the MQPUT of the new one (persistent) and the MQCMIT (then not in the run of
puts); the sending MCA's RUN_QUIET of the SPI RESOLVE of its batch before (a commit that
does not wait for its log force), the same MQGET and MQPUT and an SPI PREPARE (then no
MQCMIT after the gets).

``--socket``: the same runs sent by another process over a socket pair and served as the
daemon serves a connection (``_Session.run``: the socket read, the segments reassembled, the
reply written, the event loop between requests), this process's CPU time a message: the
part of a daemon's cost that the in-process figures leave out.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import tempfile
import time

import trio

import mqpy
from mqpy import CMQC, loopcalls
from mqpy.bindings import MAX_TRANSMISSION_SIZE
from mqpy.bindings_listener import BindingsServer, _Session
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import SegmentType
from mqpy_chinit import batchcalls

BATCH = 50
ROUNDS = 5


def _session(root: str) -> _Session:
    eng = QueueManagerEngine.create(os.path.join(root, "QM"), "QM")
    eng.define("QLOCAL", "Q", {"MAXDEPTH": 100_000_000})
    eng.define("QLOCAL", "SYNC", {})  # as SYSTEM.CHANNEL.SYNCQ (--sync-record)
    server = BindingsServer(eng, os.path.join(root, "qm.sock"))
    ours, _theirs = socket.socketpair()
    ours.setblocking(False)
    session = _Session(server, ours)
    session.conn = eng.connect("channel_server_bench")
    session.verbs = loopcalls.EngineVerbs(session.conn, server.limiter, session.gone)
    session._theirs = _theirs  # kept open while the session lives
    return session


def _put_run(hobj: int, persistence: int, commit: bool = True) -> mqiflows.MQIRequest:
    """A receiving MCA's batch: 50 arrivals' puts and the commit, as batchcalls.run_quiet."""
    pmo = mqiparams.Packed.of(mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT
                                      | CMQC.MQPMO_SET_ALL_CONTEXT))
    flows = b"".join(batchcalls._put_flow(hobj, mqiparams.Packed.of(mqpy.MD(
        MsgId=os.urandom(24), Persistence=persistence, Format=CMQC.MQFMT_STRING,
        PutApplName=b"channel_server_bench", UserIdentifier=b"mqm", PutDate=b"20260101",
        PutTime=b"12000000")), pmo, b"x" * 1024) for _ in range(BATCH))
    commit = _COMMIT if commit else b""
    return mqiflows.encode_request(SegmentType.SPI,
                                   [mqiflows.SpiVerb.RUN_QUIET, flows + commit, 0])


def _get_run(hobj: int, commit: bool = True) -> mqiflows.MQIRequest:
    """A sending MCA's batch: 50 transmission-queue gets and the commit, as XmitqGets."""
    gets = batchcalls.XmitqGets(hobj, mqiparams.Packed.of(mqpy.MD()), mqiparams.Packed.of(
        mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING)))
    commit = _COMMIT if commit else b""
    return mqiflows.encode_request(SegmentType.SPI, [mqiflows.SpiVerb.RUN,
                                                     gets._get_flow() * BATCH + commit, 0])


_COMMIT = mqiflows.pack_flows([mqiflows.encode_request(SegmentType.MQCMIT)])


def _sync_runs(hobj: int, role: str, count: int) -> list[mqiflows.MQIRequest]:
    """``count`` batches' replacements of a sync record put with MsgId 0 (its first is
    record 1), as syncq.ChannelSyncQ.steps makes them: a receiver's (``role`` "R") ends with
    MQCMIT, a sender's ("S") resolves the batch before (none for the first) and prepares."""
    cid = (role + ":C").encode().ljust(24)
    match = CMQC.MQMO_MATCH_CORREL_ID | CMQC.MQMO_MATCH_MSG_ID
    runs = []
    for n in range(1, count + 1):
        flows = []
        if role == "S" and n > 1:
            flows.append(mqiflows.encode_request(SegmentType.SPI, mqiflows.resolve_values(
                _luwid(n - 1), True, wait=False)))
        flows.append(mqiflows.encode_request(SegmentType.MQGET, [
            mqpy.MD(CorrelId=cid, MsgId=_msgid(n - 1)),
            mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT, MatchOptions=match), -1], hobj=hobj))
        flows.append(mqiflows.encode_request(SegmentType.MQPUT, [
            mqpy.MD(CorrelId=cid, MsgId=_msgid(n), Persistence=CMQC.MQPER_PERSISTENT),
            mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), b"r" * 200], hobj=hobj))
        flows.append(mqiflows.encode_request(SegmentType.SPI, [
            mqiflows.SpiVerb.PREPARE, _luwid(n), 0]) if role == "S"
                     else mqiflows.encode_request(SegmentType.MQCMIT))
        runs.append(mqiflows.encode_request(SegmentType.SPI, [
            mqiflows.SpiVerb.RUN_QUIET, mqiflows.pack_flows(flows), 0]))
    return runs


def _msgid(n: int) -> bytes:
    return n.to_bytes(24, "big")


def _luwid(n: int) -> bytes:
    return b"CH2:bench" + n.to_bytes(8, "big")


def _sync_queue(session: _Session, role: str) -> int:
    """The sync-record queue opened for ``role``'s records, its first record put."""
    conn = session.conn
    hobj = conn.open(mqpy.OD(ObjectName=b"SYNC"), CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED
                     | CMQC.MQOO_BROWSE)
    conn.put(hobj, mqpy.MD(CorrelId=(role + ":C").encode().ljust(24), MsgId=_msgid(0),
                           Persistence=CMQC.MQPER_PERSISTENT), mqpy.PMO(), b"r" * 200)
    return hobj


async def _measure(session: _Session, persistent: bool, batches: int,
                   sync: bool = False) -> dict:
    conn = session.conn
    out = conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    inp = conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_INPUT_AS_Q_DEF)
    persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    puts = [_put_run(out, persistence, not sync) for _ in range(batches * ROUNDS)]
    gets = _get_run(inp, not sync)
    no_sync = [None] * (batches * ROUNDS)
    put_syncs = _sync_runs(_sync_queue(session, "R"), "R", batches * ROUNDS) if sync \
        else no_sync
    get_syncs = _sync_runs(_sync_queue(session, "S"), "S", batches * ROUNDS) if sync \
        else no_sync
    best_put = best_get = float("inf")
    for r in range(ROUNDS):
        batch = slice(r * batches, (r + 1) * batches)
        t0 = time.process_time()
        for request, sync_run in zip(puts[batch], put_syncs[batch], strict=True):
            session.writer.send(await session._dispatch(request))
            if sync_run is not None:
                session.writer.send(await session._dispatch(sync_run))
        best_put = min(best_put, time.process_time() - t0)
        t0 = time.process_time()
        for sync_run in get_syncs[batch]:
            session.writer.send(await session._dispatch(gets))
            if sync_run is not None:
                session.writer.send(await session._dispatch(sync_run))
        best_get = min(best_get, time.process_time() - t0)
    per_msg = 1e6 / (batches * BATCH)
    return {"scenario": "channel_server_" + ("persistent" if persistent else "nonpersistent")
                        + ("_sync_record" if sync else ""),
            "put_run_us_per_msg": round(best_put * per_msg, 1),
            "get_run_us_per_msg": round(best_get * per_msg, 1)}


def _client(sock: socket.socket, requests: list[bytes]) -> None:
    """The other process of ``--socket``: each request written whole, its reply read whole
    (one SPI reply event) before the next, as an MCA makes its runs."""
    from mqpy.fap.framing import SegmentReader

    reader = SegmentReader(1 << 20, max_msg_size=1 << 30)
    for request in requests:
        sock.sendall(request)
        while not reader.feed(sock.recv(1 << 20)):
            pass


async def _measure_socket(session: _Session, persistent: bool, batches: int) -> dict:
    """:func:`_measure`'s runs, from another process over the session's socket: the CPU
    time of this process (the server alone) between the first request of a round and the
    first of the next."""
    conn = session.conn
    out = conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    inp = conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_INPUT_AS_Q_DEF)
    persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    writer = SegmentWriter(MAX_TRANSMISSION_SIZE)
    puts = [writer.send(_put_run(out, persistence)) for _ in range(batches * ROUNDS)]
    gets = writer.send(_get_run(inp))
    # a last put run ends the last round of gets
    requests = puts + [gets] * (batches * ROUNDS) + puts[:1]
    stamps: list[float] = []
    dispatch = session._dispatch

    async def timed(request: mqiflows.MQIRequest) -> mqiflows.MQIReply:
        if len(stamps) % batches == 0:
            stamps.append(time.process_time())
        else:
            stamps.append(0.0)
        return await dispatch(request)

    session._dispatch = timed  # type: ignore[method-assign]
    pid = os.fork()
    if pid == 0:  # the client
        try:
            session.sock.close()
            _client(session._theirs, requests)
        finally:
            os._exit(0)
    session._theirs.close()
    with trio.move_on_after(600):
        await session.run()  # until the client has gone
    os.waitpid(pid, 0)
    starts = stamps[::batches]
    rounds = [b - a for a, b in zip(starts, starts[1:], strict=False)]
    per_msg = 1e6 / (batches * BATCH)
    return {"scenario": "channel_server_socket_"
                        + ("persistent" if persistent else "nonpersistent"),
            "put_run_us_per_msg": round(min(rounds[:ROUNDS]) * per_msg, 1),
            "get_run_us_per_msg": round(min(rounds[ROUNDS:2 * ROUNDS]) * per_msg, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persistent", action="store_true")
    parser.add_argument("--batches", type=int, default=40, help="batches a round")
    parser.add_argument("--sync-record", action="store_true",
                        help="each batch also replaces a sync record (see above)")
    parser.add_argument("--socket", action="store_true",
                        help="the runs from another process over a socket (see above)")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="mqpy-chlserver-")
    try:
        session = _session(root)
        if args.socket:
            result = trio.run(_measure_socket, session, args.persistent, args.batches)
        else:
            result = trio.run(_measure, session, args.persistent, args.batches,
                              args.sync_record)
        print(json.dumps(result))
        if not args.socket:  # (else the session ended its connection: abend)
            session.conn.disconnect()
        session.engine.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
