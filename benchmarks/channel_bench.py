"""Channel throughput QM1 -> QM2 over one SDR-RCVR channel (1 KB messages, BATCHSZ 50).

    python -m benchmarks.channel_bench [--count N] [--out FILE]

    python -m benchmarks.channel_bench --mca receiver|sender [--persistent] [--count N]

Both queue managers and their channel initiators run in this process (two engines, TCP on
loopback). The messages are put first, then the channel is started and timed until the last
one is committed at QM2. Beside it, the same run's local persistent put+commit rate. Targets
(2 cores): >= 5,000 persistent and >= 20,000 non-persistent msgs/s.

``--mca``: one MCA alone, in this process, against a queue-manager daemon (strmqm, so its
MQI calls cross the bindings socket as in an installation), the other end of the channel a
scripted partner (prebuilt segments; a scan of headers answering confirm requests): the
MCA's CPU per message (the partner's small share included) and its daemon's, without the
other two processes of channel_daemons_bench competing for the two cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import tempfile
import time

import trio

import mqpy
from mqpy import CMQC, inprocess
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.engineadmin import EngineAdmin


def _make(root: str, name: str):
    inprocess.create(name, f"{root}/{name}")
    return inprocess.start(name, f"{root}/{name}")


async def _run(count: int, persistent: bool) -> dict:
    root = tempfile.mkdtemp(prefix="mqpy-chlbench-")
    try:
        e1, e2 = _make(root, "QM1"), _make(root, "QM2")
        qm1 = mqpy.embedded("QM1", data_path=f"{root}/QM1", create=False)
        e2.define("QLOCAL", "TARGET", {"MAXDEPTH": 10_000_000})
        e2.define("CHANNEL", "C", {"CHLTYPE": "RCVR"})
        e1.define("QLOCAL", "QM2", {"USAGE": "XMITQ", "MAXDEPTH": 10_000_000})
        out = mqpy.Queue(qm1, mqpy.OD(ObjectName=b"TARGET", ObjectQMgrName=b"QM2"),
                         CMQC.MQOO_OUTPUT)
        data = b"x" * 1024
        pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        t = time.perf_counter()
        for i in range(count):
            out.put(data, mqpy.MD(Persistence=1 if persistent else 0), pmo)
            if i % 50 == 49:
                qm1.commit()
        qm1.commit()
        local_rate = count / (time.perf_counter() - t)
        async with trio.open_nursery() as nursery:
            c2 = ChannelInitiator("QM2", lambda: mqpy.embedded("QM2", data_path=f"{root}/QM2",
                                                               create=False), EngineAdmin(e2))
            await nursery.start(c2.run, [("127.0.0.1", 0)])
            e1.define("CHANNEL", "C", {"CHLTYPE": "SDR", "XMITQ": "QM2", "BATCHSZ": 50,
                                       "CONNAME": f"127.0.0.1({c2.ports[0]})"})
            c1 = ChannelInitiator("QM1", lambda: mqpy.embedded("QM1", data_path=f"{root}/QM1",
                                                               create=False), EngineAdmin(e1))
            await nursery.start(c1.run)
            t = time.perf_counter()
            c1.start_channel("C")
            while True:
                st = e2.queue_status("TARGET")
                if st["CURDEPTH"] - st["UNCOM"] >= count:
                    break
                await trio.sleep(0.01)
            wall = time.perf_counter() - t
            nursery.cancel_scope.cancel()
        return {"scenario": f"channel_{'persistent' if persistent else 'nonpersistent'}",
                "messages": count, "seconds": round(wall, 3),
                "msgs_per_s": round(count / wall, 1),
                "local_put_commit_msgs_per_s": round(local_rate, 1),
                "targets": {"msgs_per_s": 5000 if persistent else 20000}}
    finally:
        inprocess.stop_all()
        shutil.rmtree(root, ignore_errors=True)


# ------------------------------------------------- one MCA against a queue manager daemon

def _daemon_cpu(root: str, qm: str) -> float:
    from benchmarks.channel_daemons_bench import _cpu_seconds, _processes

    return _cpu_seconds(_processes(root)[f"{qm}.daemon"])


async def _receiver_alone(count: int, persistent: bool) -> tuple[float, float]:
    """A ReceiverMCA of QM2 (this process) fed by a scripted sender: batches of 50 1 KB
    messages written as a pipelined sender writes them (the first 49, then batch k-1's
    STATUS read, then the last). CPU seconds of this process, and wall seconds."""
    from mqpy.fap.controlflows import Resync, Status
    from mqpy.fap.framing import SegmentWriter
    from mqpy.fap.messagedata import MessageData
    from mqpy.fap.statuscodes import StatusCode
    from mqpy.fap.tsh import ControlFlags1
    from mqpy_chinit.conversation import Conversation
    from mqpy_chinit.mca import call_id, our_id
    from mqpy_chinit.receiver_mca import ReceiverMCA
    from mqpy_chinit.states import ChannelStatus

    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        async def serve() -> None:
            stream = await listener.accept()
            rcv = ReceiverMCA(stream, "QM2", lambda: mqpy.connect("QM2"),
                              lambda name: {"CHLTYPE": "RCVR"})
            with contextlib.suppress(Exception):
                await rcv.run()
        nursery.start_soon(serve)
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        conv = Conversation(stream, ChannelStatus("C", "SDR"))
        await call_id(conv, our_id("C", {"CHLTYPE": "SDR"}, "QM1"))
        await conv.send(Resync(seqnum=0, luwid=bytes(8)))
        seq = (await conv.recv(30)).seqnum
        writer, batches = SegmentWriter(), []
        for start in range(0, count, 50):
            segments = []
            for i in range(min(50, count - start)):
                seq += 1
                last = i == min(50, count - start) - 1
                md = mqpy.MD(Persistence=int(persistent), PutApplName=b"bench",
                             MsgId=b"AMQ QM1 " + seq.to_bytes(16, "big"))
                xqh = mqpy.XQH(RemoteQName=b"TARGET", RemoteQMgrName=b"QM2", MsgDesc=md)
                segments.append(writer.send(MessageData(
                    seqnum=seq, xqh=xqh.pack(CMQC.MQENC_INTEGER_REVERSED), data=b"x" * 1024,
                    flags=ControlFlags1.CONFIRM_REQUEST if last else ControlFlags1.NONE,
                    luwid=seq.to_bytes(8, "big") if last else bytes(8))))
            batches.append((b"".join(segments[:-1]), segments[-1]))
        cpu, t = time.process_time(), time.perf_counter()
        for k, (body, last) in enumerate(batches):
            await stream.send_all(body)
            if k:
                assert (await conv.recv(30)).code == 0
            await stream.send_all(last)
        assert (await conv.recv(30)).code == 0
        cpu, wall = time.process_time() - cpu, time.perf_counter() - t
        await conv.send(Status(code=StatusCode.USER_CLOSED, flags=ControlFlags1.CLOSE_CHANNEL))
        await trio.sleep(0.2)
        nursery.cancel_scope.cancel()
    return cpu, wall


async def _sender_alone(count: int) -> tuple[float, float]:
    """A SenderMCA of QM1 (this process, PipeLineLength 2) whose partner answers each
    confirm request with STATUS 0 from a scan of the segments' headers. CPU seconds of
    this process from the first message received to the last, and wall seconds."""
    from mqpy.fap.controlflows import Resync, Status
    from mqpy.fap.framing import SegmentWriter
    from mqpy_chinit.conversation import Conversation
    from mqpy_chinit.mca import our_id, respond_id
    from mqpy_chinit.sender_mca import SenderMCA
    from mqpy_chinit.states import ChannelEvent, ChannelStatus

    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    status = ChannelStatus("C", "SDR")
    status.move(ChannelEvent.START)
    status.move(ChannelEvent.BIND)
    mca = SenderMCA("C", {"CHLTYPE": "SDR", "XMITQ": "QM2", "BATCHSZ": 50,
                          "CONNAME": f"127.0.0.1({port})"}, "QM1",
                    lambda: mqpy.connect("QM1"), status, pipeline=2)
    times: list[float] = []

    async def partner() -> None:
        stream = await listener.accept()
        conv = Conversation(stream, ChannelStatus("C", "RCVR"))
        await respond_id(conv, await conv.recv(30), our_id("C", {"CHLTYPE": "RCVR"}, "QM2"))
        ev = await conv.recv(30)
        await conv.send(Resync(seqnum=ev.seqnum, luwid=ev.luwid))
        ok, buf, moved = SegmentWriter().send(Status(code=0)), b"", 0
        while moved < count:
            data = await stream.receive_some(1 << 16)
            if not times:
                times[:] = [time.process_time(), time.perf_counter()]
            buf += data
            pos = acks = 0
            while len(buf) - pos >= 28 and len(buf) - pos >= int.from_bytes(
                    buf[pos + 4:pos + 8], "big"):
                if buf[pos + 9] == 0x04:  # MESSAGE_DATA
                    moved += 1
                    acks += buf[pos + 10] & 0x01  # CONFIRM_REQUEST
                pos += int.from_bytes(buf[pos + 4:pos + 8], "big")
            buf = buf[pos:]
            for _ in range(acks):
                await stream.send_all(ok)
        times[:] = [time.process_time() - times[0], time.perf_counter() - times[1]]
        mca.stop_requested.set()
        with contextlib.suppress(Exception):
            while data := await stream.receive_some(1 << 16):
                if data[10] & 0x01:
                    await stream.send_all(ok)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(partner)
        with contextlib.suppress(Exception):
            await mca.run()
        nursery.cancel_scope.cancel()
    return times[0], times[1]


def mca_alone(side: str, count: int, persistent: bool) -> dict:
    """One MCA in this process against a queue-manager daemon started here (strmqm): its
    CPU per message (this process, the scripted partner's small share included) and the
    daemon's, without the other three processes of channel_daemons_bench."""
    import os

    from benchmarks.channel_daemons_bench import _run as run_cmd

    qm = "QM2" if side == "receiver" else "QM1"
    root = tempfile.mkdtemp(prefix="mqpy-mcabench-")
    os.environ["MQPY_DATA_PATH"] = root
    try:
        run_cmd("crtmqm", qm)
        run_cmd("strmqm", qm)
        if side == "receiver":
            run_cmd("runmqsc", qm, stdin="DEFINE QLOCAL(TARGET) MAXDEPTH(100000000)\n")
        else:
            run_cmd("runmqsc", qm, stdin="DEFINE QLOCAL(QM2) USAGE(XMITQ) MAXDEPTH(100000000)\n"
                    "DEFINE QREMOTE(TARGET) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)\n")
            conn = mqpy.connect(qm)
            out = mqpy.Queue(conn, "TARGET", CMQC.MQOO_OUTPUT)
            for i in range(count):
                out.put(b"x" * 1024, mqpy.MD(Persistence=int(persistent)),
                        mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
                if i % 50 == 49:
                    conn.commit()
            conn.commit()
            conn.disconnect()
        qm_cpu = _daemon_cpu(root, qm)
        cpu, wall = trio.run(_receiver_alone, count, persistent) if side == "receiver" \
            else trio.run(_sender_alone, count)
        qm_cpu = _daemon_cpu(root, qm) - qm_cpu
        return {"scenario": f"{side}_mca_alone_{'persistent' if persistent else 'nonpersistent'}",
                "messages": count, "msgs_per_s": round(count / wall, 1),
                "mca_cpu_us_per_msg": round(cpu / count * 1e6, 1),
                f"{qm}_daemon_cpu_us_per_msg": round(qm_cpu / count * 1e6, 1)}
    finally:
        run_cmd("endmqm", "-i", qm)
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--out", default="benchmarks/channel_results.json")
    ap.add_argument("--mca", choices=("receiver", "sender"), default=None,
                    help="instead: that one MCA in this process against a queue-manager "
                         "daemon (strmqm), a scripted partner at the other end")
    ap.add_argument("--persistent", action="store_true", help="with --mca")
    args = ap.parse_args()
    if args.mca:
        print(json.dumps(mca_alone(args.mca, args.count, args.persistent)))
        return
    results = [trio.run(_run, args.count, True), trio.run(_run, args.count, False)]
    for r in results:
        print(json.dumps(r))
    with open(args.out, "w") as f:
        json.dump({"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
