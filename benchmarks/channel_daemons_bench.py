"""Channel throughput as deployed: two queue-manager daemons, each with its own channel
initiator process (strmqm), one SDR-RCVR channel on loopback, 1 KB messages, BATCHSZ 50.

    python -m benchmarks.channel_daemons_bench [--count N] [--out FILE] [--pipeline N]

The messages are put on QM1 first (persistent or not), then the channel is started and the
run is timed until an application on QM2 has got every one of them. Unlike
benchmarks/channel_bench.py, the two ends do not share one interpreter (one GIL); every MQI
call of an MCA crosses its queue manager's bindings socket, as in a real installation.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import types

import mqpy
from mqpy import CMQC, config
from mqpy.mqsc.client import MQSCClient

BIN = os.path.dirname(sys.executable)


def _run(cmd: str, *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run([os.path.join(BIN, cmd), *args], input=stdin, text=True,
                          capture_output=True, timeout=300)
    if proc.returncode not in (0, 10):
        raise RuntimeError(f"{cmd} {' '.join(args)}: {proc.stdout}{proc.stderr}")
    return proc.stdout


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _processes(root: str) -> dict[str, int]:
    """The pids of each queue manager's daemon (qm.lock) and channel initiator."""
    out = {}
    for qm in ("QM1", "QM2"):
        qmdir = os.path.join(root, "qmgrs", qm)
        for what, name in (("daemon", "qm.lock"), ("chinit", "chinit.pid")):
            try:
                with open(os.path.join(qmdir, name), encoding="ascii") as f:
                    out[f"{qm}.{what}"] = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
    return out


def scenario(count: int, persistent: bool, watch: str = "get", pipeline: int = 0,
             start: str = "runmqsc") -> dict:
    """``watch``: "get", an application gets every message in units of work of 50 (as the
    putting application puts them), so a persistent message costs QM2 one share of a log
    force, not a force of its own; "get1", one MQGET outside syncpoint each (a persistent one
    is then a log force each, which caps the rate near the disk's fdatasync rate); "depth",
    it only watches TARGET's depth (MQINQ every 5 ms), so the rate is the channel's alone.
    CURDEPTH counts a batch's puts before its commit: the last batch's commit (a few
    milliseconds) may fall outside the timing. ``pipeline`` > 0: QM1's qm.ini gets
    Channels: PipeLineLength=``pipeline`` before strmqm (0: qm.ini as crtmqm wrote it).
    ``start``: "runmqsc" runs ``runmqsc QM1`` with START CHANNEL(C), so the timing includes
    that process's start (about 0.5 s of interpreter and imports); "mqsc" sends the same
    command to QM1's command server from a connection made before the timing starts, so
    the timing is the command's and the channel's alone."""
    root = tempfile.mkdtemp(prefix="mqpy-chldaemons-")
    os.environ["MQPY_DATA_PATH"] = root
    try:
        for qm in ("QM1", "QM2"):
            _run("crtmqm", qm)
            if qm == "QM1" and pipeline:  # read by its channel initiator at strmqm
                config.set_channels_value(qm, "PipeLineLength", str(pipeline))
            _run("strmqm", qm)
        port = _free_port()
        _run("runmqsc", "QM2", stdin=f"""
            DEFINE LISTENER(L) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
            START LISTENER(L)
            DEFINE CHANNEL(C) CHLTYPE(RCVR) TRPTYPE(TCP)
            SET CHLAUTH(C) TYPE(BLOCKUSER) USERLIST('nobody')
            DEFINE QLOCAL(TARGET) MAXDEPTH(10000000)
        """)
        _run("runmqsc", "QM1", stdin=f"""
            DEFINE QLOCAL(QM2) USAGE(XMITQ) MAXDEPTH(10000000)
            DEFINE CHANNEL(C) CHLTYPE(SDR) TRPTYPE(TCP) XMITQ(QM2) BATCHSZ(50) +
                   CONNAME('127.0.0.1({port})')
            DEFINE QREMOTE(TARGET) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
        """)
        qm1 = mqpy.connect("QM1")
        out = mqpy.Queue(qm1, "TARGET", CMQC.MQOO_OUTPUT)
        md_persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
        pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        loaded = time.perf_counter()
        for i in range(count):
            out.put(b"x" * 1024, mqpy.MD(Persistence=md_persistence), pmo)
            if i % 50 == 49:
                qm1.commit()
        qm1.commit()
        local_rate = count / (time.perf_counter() - loaded)
        qm1.disconnect()
        qm2 = mqpy.connect("QM2")
        target = mqpy.Queue(qm2, "TARGET", CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_INQUIRE)
        pids = _processes(root)
        if start == "mqsc":  # connected beforehand: the timing starts at the command
            admin = mqpy.connect("QM1")
            client = MQSCClient(admin)
        t0 = time.perf_counter()
        if start == "mqsc":
            result = client.execute(types.SimpleNamespace(text="START CHANNEL(C)"))
            if not result.ok:
                raise RuntimeError(f"START CHANNEL: {result.lines}")
        else:
            _run("runmqsc", "QM1", stdin="START CHANNEL(C)\n")
        accepted = time.perf_counter()
        got = 0
        syncpoint = CMQC.MQGMO_SYNCPOINT if watch == "get" else CMQC.MQGMO_NO_SYNCPOINT
        gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT | syncpoint, WaitInterval=30000)
        first = 0.0
        cpu_first: dict[str, float] = {}
        app_first = 0.0
        while got < count:
            if watch in ("get", "get1"):
                target.get(None, mqpy.MD(), gmo)
                got += 1
                if watch == "get" and (got % 50 == 0 or got == count):
                    qm2.commit()
            else:
                depth = target.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
                if got == 0 and depth:
                    got = 1
                elif depth >= count:
                    got = count
                else:
                    time.sleep(0.005)
                    continue
            if got == 1:
                first = time.perf_counter()
                cpu_first = {name: _cpu_seconds(pid) for name, pid in pids.items()}
                app_first = time.process_time()
        last = time.perf_counter()
        per_msg = 1e6 / max(count - 1, 1)
        cpu = {name: round((_cpu_seconds(pid) - cpu_first[name]) * per_msg)
               for name, pid in pids.items()}
        # the channel's cost: both queue managers and both channel initiators (with
        # --watch get, QM2's daemon also serves the application's gets)
        cpu["channel_total"] = sum(cpu.values())
        cpu["application"] = round((time.process_time() - app_first) * per_msg)
        seconds = last - t0
        qm2.disconnect()
        if start == "mqsc":
            client.close()
            admin.disconnect()
        return {"scenario": "channel_daemons_" + ("persistent" if persistent
                                                  else "nonpersistent")
                + {"get": "", "get1": "_got_one_by_one", "depth": "_depth_watched"}[watch]
                + (f"_pipeline{pipeline}" if pipeline else ""),
                "messages": count, "seconds": round(seconds, 3),
                # START CHANNEL accepted (its reply from the command server), first message
                "accepted_s": round(accepted - t0, 3), "first_s": round(first - t0, 3),
                "msgs_per_s": round(count / seconds, 1),
                # beside it, the same run's local rate: the application's puts of these
                # messages on QM1 (to the transmission queue, units of work of 50, the same
                # persistence), one bindings connection
                "local_put_msgs_per_s": round(local_rate, 1),
                # from the first message got to the last: the channel's steady rate, without
                # runmqsc's start-up and the channel's negotiation
                "steady_msgs_per_s": round((count - 1) / max(last - first, 1e-9), 1),
                # CPU microseconds per message of each process over the steady part (the
                # application's includes its gets; its queue manager's daemon serves them)
                "cpu_us_per_msg": cpu,
                "targets": {"msgs_per_s": 5000 if persistent else 20000}}
    finally:
        for qm in ("QM1", "QM2"):
            subprocess.run([os.path.join(BIN, "endmqm"), "-i", qm], capture_output=True,
                           timeout=120)
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--out", default=None)
    parser.add_argument("--watch", choices=("get", "get1", "depth"), default="get",
                        help="get every message at QM2 in units of work of 50 (default), "
                             "get each outside syncpoint, or only watch its depth")
    parser.add_argument("--repeat", type=int, default=1,
                        help="run each scenario this many times (alternating); a last line "
                             "gives each one's median channel_total CPU per message, steadier "
                             "than one run on a shared machine")
    parser.add_argument("--pipeline", type=int, nargs="+", default=[0], metavar="N",
                        help="write PipeLineLength=N into QM1's qm.ini before strmqm; several "
                             "values (e.g. 1 2) alternate run by run")
    parser.add_argument("--start", choices=("runmqsc", "mqsc"), default="runmqsc",
                        help="START CHANNEL by running runmqsc (default; its process start "
                             "is timed) or from a command-server connection made before")
    args = parser.parse_args()
    results = []
    for _ in range(max(args.repeat, 1)):
        for persistent in (True, False):
            for pipeline in args.pipeline:
                results.append(scenario(args.count, persistent, args.watch, pipeline,
                                        args.start))
                print(json.dumps(results[-1]), flush=True)
    if args.repeat > 1:
        medians = {}
        for name in dict.fromkeys(r["scenario"] for r in results):
            totals = sorted(r["cpu_us_per_msg"]["channel_total"] for r in results
                            if r["scenario"] == name)
            medians[name] = totals[len(totals) // 2]
        print(json.dumps({"median_channel_total_cpu_us_per_msg": medians}))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
