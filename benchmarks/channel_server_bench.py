"""What a channel's MQI calls cost the queue manager: its bindings server serving the SPI
RUNs a channel's two MCAs send, in this process, without sockets or the other processes.

    python -m benchmarks.channel_server_bench [--persistent] [--batches N]

A receiving MCA's batch is one RUN_QUIET of 50 MQPUTs (1 KB, MQPMO_SET_ALL_CONTEXT, each
arrival's MQMD packed as it came) ending with MQCMIT; a sending MCA's is one RUN of 50 MQGETs
of its transmission queue (the request's MQMD and MQGMO packed once) ending with MQCMIT. Each
is served as ``mqpy.server`` serves a request (decode, engine, reply packed) and timed in CPU
time (``time.process_time``), best of five rounds: microseconds a message. Unlike
``channel_daemons_bench`` it does not depend on what else the machine runs, so it can tell a
change of a few microseconds in the queue manager's part of a channel.
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
from mqpy import CMQC, mqiproto, serving
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.server import BindingsServer, _Session
from mqpy_chinit import xmitgets
from mqpy_chinit.wire import SegmentType

BATCH = 50
ROUNDS = 5


def _session(root: str) -> _Session:
    eng = QueueManagerEngine.create(os.path.join(root, "QM"), "QM")
    eng.define("QLOCAL", "Q", {"MAXDEPTH": 100_000_000})
    server = BindingsServer(eng, os.path.join(root, "qm.sock"))
    ours, _theirs = socket.socketpair()
    ours.setblocking(False)
    session = _Session(server, ours)
    session.conn = eng.connect("channel_server_bench")
    session.verbs = serving.EngineVerbs(session.conn, server.limiter, session.gone)
    session._theirs = _theirs  # kept open while the session lives
    return session


def _put_run(hobj: int, persistence: int) -> mqiproto.MQIRequest:
    """A receiving MCA's batch: 50 arrivals' puts and the commit, as xmitgets.run_quiet."""
    pmo = mqiproto.Packed.of(mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT
                                      | CMQC.MQPMO_SET_ALL_CONTEXT))
    flows = b"".join(xmitgets._put_flow(hobj, mqiproto.Packed.of(mqpy.MD(
        MsgId=os.urandom(24), Persistence=persistence, Format=CMQC.MQFMT_STRING,
        PutApplName=b"channel_server_bench", UserIdentifier=b"mqm", PutDate=b"20260101",
        PutTime=b"12000000")), pmo, b"x" * 1024) for _ in range(BATCH))
    commit = mqiproto.pack_flows([mqiproto.encode_request(SegmentType.MQCMIT)])
    return mqiproto.encode_request(SegmentType.SPI,
                                   [mqiproto.SpiVerb.RUN_QUIET, flows + commit, 0])


def _get_run(hobj: int) -> mqiproto.MQIRequest:
    """A sending MCA's batch: 50 transmission-queue gets and the commit, as XmitqGets."""
    gets = xmitgets.XmitqGets(hobj, mqiproto.Packed.of(mqpy.MD()), mqiproto.Packed.of(
        mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_FAIL_IF_QUIESCING)))
    commit = mqiproto.pack_flows([mqiproto.encode_request(SegmentType.MQCMIT)])
    return mqiproto.encode_request(SegmentType.SPI, [mqiproto.SpiVerb.RUN,
                                                     gets._get_flow() * BATCH + commit, 0])


async def _measure(session: _Session, persistent: bool, batches: int) -> dict:
    conn = session.conn
    out = conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    inp = conn.open(mqpy.OD(ObjectName=b"Q"), CMQC.MQOO_INPUT_AS_Q_DEF)
    persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
    puts = [_put_run(out, persistence) for _ in range(batches * ROUNDS)]
    gets = _get_run(inp)
    best_put = best_get = float("inf")
    for r in range(ROUNDS):
        t0 = time.process_time()
        for request in puts[r * batches:(r + 1) * batches]:
            session.writer.send(await session._dispatch(request))
        best_put = min(best_put, time.process_time() - t0)
        t0 = time.process_time()
        for _ in range(batches):
            reply = await session._dispatch(gets)
            session.writer.send(reply)
        best_get = min(best_get, time.process_time() - t0)
    per_msg = 1e6 / (batches * BATCH)
    return {"scenario": "channel_server_" + ("persistent" if persistent else "nonpersistent"),
            "put_run_us_per_msg": round(best_put * per_msg, 1),
            "get_run_us_per_msg": round(best_get * per_msg, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persistent", action="store_true")
    parser.add_argument("--batches", type=int, default=40, help="batches a round")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="mqpy-chlserver-")
    try:
        session = _session(root)
        print(json.dumps(trio.run(_measure, session, args.persistent, args.batches)))
        session.conn.disconnect()
        session.engine.close()
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
