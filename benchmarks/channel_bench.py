"""Channel throughput QM1 -> QM2 over one SDR-RCVR channel (1 KB messages, BATCHSZ 50).

    python -m benchmarks.channel_bench [--count N] [--out FILE]

Both queue managers and their channel initiators run in this process (two engines, TCP on
loopback). The messages are put first, then the channel is started and timed until the last
one is committed at QM2. Beside it, the same run's local persistent put+commit rate. Targets
(issue 5, 2 cores): >= 5,000 persistent and >= 20,000 non-persistent msgs/s.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time

import trio

import mqpy
from mqpy import CMQC, local
from mqpy_chinit.chinit import ChannelInitiator, EngineAdmin


def _make(root: str, name: str):
    local.create(name, f"{root}/{name}")
    return local.start(name, f"{root}/{name}")


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
        local.stop_all()
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--out", default="benchmarks/channel_results.json")
    args = ap.parse_args()
    results = [trio.run(_run, args.count, True), trio.run(_run, args.count, False)]
    for r in results:
        print(json.dumps(r))
    with open(args.out, "w") as f:
        json.dump({"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
