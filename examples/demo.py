"""`make demo`: what mqpy does today, end to end, in a scratch data directory.

1. crtmqm-style creation of queue manager QM1 (pagesets, log, system objects);
2. a child process puts persistent messages in units of work and is killed with SIGKILL
   in the middle of one;
3. QM1 restarts: the committed messages are all there, the uncommitted ones are not;
4. request/reply by CorrelId, priorities, browse, and the queue's status.

It grows with each capability (daemon, channels between two queue managers, ...).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

import mqpy
from mqpy import CMQC, local

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def say(text: str) -> None:
    print(f"\n== {text}")


def main() -> None:
    data = tempfile.mkdtemp(prefix="mqpy-demo-")
    os.environ["MQPY_DATA_PATH"] = data
    say(f"crtmqm QM1 (data path {data})")
    local.create("QM1", data, dead_letter_queue="SYSTEM.DEAD.LETTER.QUEUE")
    eng = local.start("QM1", data)
    eng.define("QLOCAL", "APP.REQUEST", {"DEFPSIST": "YES", "MAXDEPTH": 100000})
    eng.define("QLOCAL", "APP.REPLY", {})
    local.stop("QM1", data)
    print("  queue manager created; objects:",
          ", ".join(sorted(n for (_, n) in _names(data))[:6]), "...")

    say("a child puts 3 units of work of 100 persistent messages, commits 2, is SIGKILLed in the 3rd")
    child = textwrap.dedent("""
        import os, signal, sys, mqpy
        from mqpy import CMQC
        qm = mqpy.embedded("QM1", data_path=sys.argv[1])
        q = mqpy.Queue(qm, "APP.REQUEST", CMQC.MQOO_OUTPUT)
        pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        for uow in range(3):
            for i in range(100):
                q.put(b"order %d-%03d" % (uow, i), mqpy.MD(), pmo)
            if uow < 2:
                qm.commit()
                print(f"  child: unit of work {uow} committed", flush=True)
        print("  child: third unit of work put, not committed -- kill -9 now", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    proc = subprocess.run([sys.executable, "-c", child, data], cwd=ROOT)
    print(f"  child exit status {proc.returncode} ({signal.Signals(-proc.returncode).name})")

    say("restart QM1: redo committed work from the log, undo the in-flight unit of work")
    t = time.perf_counter()
    qm = mqpy.embedded("QM1", data_path=data, create=False)
    print(f"  restarted in {time.perf_counter() - t:.3f} s")
    q = mqpy.Queue(qm, "APP.REQUEST", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE
                   | CMQC.MQOO_INQUIRE)
    depth = q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    print(f"  CURDEPTH(APP.REQUEST) = {depth}   (200 committed, 100 uncommitted gone)")
    first = q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    print(f"  first message: {first!r}")

    say("request/reply by CorrelId, with priorities")
    out = mqpy.Queue(qm, "APP.REPLY", CMQC.MQOO_OUTPUT)
    for prio, text in ((1, b"low"), (8, b"urgent"), (4, b"normal")):
        md = mqpy.MD(Priority=prio, CorrelId=b"REQ-42")
        out.put(b"reply: " + text, md)
    replies = mqpy.Queue(qm, "APP.REPLY", CMQC.MQOO_INPUT_AS_Q_DEF)
    for _ in range(3):
        md = mqpy.MD(CorrelId=b"REQ-42")
        data_ = replies.get(None, md)
        print(f"  got {data_!r:20} priority {md.Priority}")

    say("queue status")
    for name in ("APP.REQUEST", "APP.REPLY"):
        st = eng_status(name, data)
        print(f"  QUEUE({name:12}) CURDEPTH({st['CURDEPTH']}) IPPROCS({st['IPPROCS']}) "
              f"OPPROCS({st['OPPROCS']}) UNCOM({st['UNCOM']})")
    log_dir = os.path.join(data, "qmgrs", "QM1", "log")
    print("  log segments:", ", ".join(sorted(os.listdir(log_dir))))
    qm.disconnect()
    mqpy.stop_embedded("QM1", data_path=data)
    say("done: queue manager ended normally")


def eng_status(name: str, data: str) -> dict:
    return local.running("QM1", data).queue_status(name)


def _names(data: str):
    eng = local.start("QM1", data)
    try:
        with eng.lock:
            return list(eng.catalog.objects)
    finally:
        local.stop("QM1", data)


if __name__ == "__main__":
    main()
