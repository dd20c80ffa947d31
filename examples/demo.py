"""`make demo`: two queue managers, a channel between them, messages moved, status shown.

Everything runs as an operator would run it, in a scratch data directory: crtmqm, strmqm
(which also starts each queue manager's channel initiator), runmqsc scripts, a triggered
sender channel, an application putting 100 persistent messages to a remote queue, DISPLAY
CHSTATUS, the receiving queue manager's queue, the error log, endmqm. It then shows crash
recovery: a writer killed with SIGKILL in the middle of a unit of work loses nothing committed.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time

import mqpy
from examples import web_demo
from mqpy import CMQC, errorlog

BIN = os.path.dirname(sys.executable)


BOLD, PLAIN = "\033[1m", "\033[0m"  # ANSI, for headings on a terminal only


def say(text: str) -> None:
    """A heading: bold on a terminal, plain where the output is a file or a pipe."""
    bold = sys.stdout.isatty()
    print(f"\n{BOLD if bold else ''}== {text}{PLAIN if bold else ''}", flush=True)


def run(cmd: str, *args: str, stdin: str | None = None, show: bool = True) -> str:
    proc = subprocess.run([os.path.join(BIN, cmd), *args], input=stdin, text=True,
                          capture_output=True, timeout=120)
    out = (proc.stdout + proc.stderr).rstrip()
    if show:
        print(f"$ {cmd} {' '.join(args)}" + ("  <<EOF" if stdin else ""))
        for line in out.splitlines():
            print("  " + line)
    return out


def mqsc(qmgr: str, script: str) -> str:
    return run("runmqsc", qmgr, stdin=textwrap.dedent(script))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bindings(qmgr: str) -> mqpy.QueueManager:
    return mqpy.connect(qmgr)


def depth(qmgr: str, queue: str) -> int:
    qm = bindings(qmgr)
    try:
        return mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        qm.disconnect()


def main() -> None:
    data = tempfile.mkdtemp(prefix="mqpy-demo-")
    os.environ["MQPY_DATA_PATH"] = data
    port = free_port()
    try:
        say(f"create and start two queue managers (data path {data})")
        for qm in ("QM1", "QM2"):
            run("crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", qm)
            run("strmqm", qm)
        run("dspmq")

        say("QM2: a listener, the receiving end of channel QM1.TO.QM2 (CHLAUTH lets it run "
            "as the channel initiator's own, privileged, user), the target queue")
        mqsc("QM2", f"""
            DEFINE LISTENER(TCP.LISTENER) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
            START LISTENER(TCP.LISTENER)
            DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) TRPTYPE(TCP)
            SET CHLAUTH(QM1.TO.QM2) TYPE(BLOCKUSER) USERLIST('nobody')
            DEFINE QLOCAL(APP.ORDERS) MAXDEPTH(100000)
            """)

        say("QM1: a triggered transmission queue, the sender, a remote-queue definition")
        mqsc("QM1", f"""
            DEFINE QLOCAL(QM2) USAGE(XMITQ) TRIGGER TRIGTYPE(FIRST) +
                   INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(QM1.TO.QM2)
            DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) TRPTYPE(TCP) +
                   CONNAME('127.0.0.1({port})') XMITQ(QM2) BATCHSZ(50) DISCINT(60) +
                   MONCHL(HIGH)
            DEFINE QREMOTE(ORDERS) RNAME(APP.ORDERS) RQMNAME(QM2) XMITQ(QM2)
            """)

        say("an application on QM1 puts 100 persistent messages to ORDERS (at QM2)")
        qm = bindings("QM1")
        out = mqpy.Queue(qm, "ORDERS", CMQC.MQOO_OUTPUT)
        for i in range(100):
            out.put(b"order %03d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
                    mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        qm.commit()
        out.close()
        qm.disconnect()
        print("  committed 100 messages; the first one triggered the channel")
        deadline = time.monotonic() + 60
        while depth("QM2", "APP.ORDERS") < 100 and time.monotonic() < deadline:
            time.sleep(0.2)

        say("status")
        mqsc("QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) STATUS MSGS BATCHES CURSEQNO LSTLUWID "
                    "XBATCHSZ NETTIME XQTIME\n")
        mqsc("QM2", "DISPLAY QSTATUS(APP.ORDERS) CURDEPTH IPPROCS OPPROCS\n")
        mqsc("QM2", "DISPLAY QMSTATUS CHINIT CMDSERV CONNS CURRLOG LOGINUSE\n")
        qm = bindings("QM2")
        q = mqpy.Queue(qm, "APP.ORDERS", CMQC.MQOO_INPUT_AS_Q_DEF)
        got = [q.get() for _ in range(depth("QM2", "APP.ORDERS"))]
        qm.disconnect()
        print(f"  QM2 got {len(got)} messages: {got[0]!r} ... {got[-1]!r}; "
              f"in order: {got == sorted(got)}")

        say("QM1's error log (last entries)")
        entries = errorlog.read_entries(os.path.join(data, "qmgrs", "QM1", "errors"))
        for entry in entries[-6:]:
            print(f"  {entry.msgid}: {entry.text}")

        say("crash recovery: a writer is killed with SIGKILL in its third unit of work")
        child = textwrap.dedent("""
            import os, signal, mqpy
            from mqpy import CMQC
            qm = mqpy.connect("QM1")
            q = mqpy.Queue(qm, "SYSTEM.DEFAULT.LOCAL.QUEUE", CMQC.MQOO_OUTPUT)
            pmo = mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT)
            for uow in range(3):
                for i in range(100):
                    q.put(b"x", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), pmo)
                if uow < 2:
                    qm.commit()
            os.kill(os.getpid(), signal.SIGKILL)
            """)
        proc = subprocess.run([sys.executable, "-c", child])
        print(f"  writer ended by {signal.Signals(-proc.returncode).name}; its open unit of "
              f"work backed out: CURDEPTH = {depth('QM1', 'SYSTEM.DEFAULT.LOCAL.QUEUE')} "
              f"(200 committed)")
        pid = int(open(os.path.join(data, "qmgrs", "QM1", "qm.lock")).read().split()[0])
        os.kill(pid, signal.SIGKILL)
        print(f"  QM1 itself killed with SIGKILL (pid {pid}); restarting it")
        run("strmqm", "QM1")
        print(f"  after restart: CURDEPTH = {depth('QM1', 'SYSTEM.DEFAULT.LOCAL.QUEUE')}")

        console = web_demo.start(run, say, data)
        if web_demo.KEEP:
            web_demo.finish(run, console)
            return
        say("end")
        for qm_name in ("QM1", "QM2"):
            run("endmqm", "-i", qm_name)
        run("dspmq")
        web_demo.finish(run, console)
    finally:
        if not web_demo.KEEP:
            run("endmqweb", show=False)
            for qm_name in ("QM1", "QM2"):
                run("endmqm", "-i", qm_name, show=False)
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
