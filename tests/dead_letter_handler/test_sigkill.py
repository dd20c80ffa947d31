"""A runmqdlq process killed (SIGKILL) at random moments loses and duplicates nothing.

The queue manager runs as its own daemon (strmqm); runmqdlq is a child process connected in
bindings mode, forwarding a large DLQ. Each kill leaves at most one unit of work (put to the
forward queue + get from the DLQ) uncommitted, which the queue manager backs out when the
connection drops. Afterwards every message is on exactly one of the two queues, once.
"""

from __future__ import annotations

import io
import os
import random
import signal
import subprocess
import sys
import time

import mqpy
from mqpy import CMQC, inprocess
from mqpy.dlq import parse_rules
from mqpy.dlq.handler import DeadLetterHandler
from mqpy_cli import control

QMK = "QMKILL"
COUNT = 2000
KILLS = 5
DLH_LEN = 172
RULES = "WAIT(NO)\nACTION(FWD) FWDQ(FWDQ)\n"


def _daemon_pid(root: str) -> int:
    with open(os.path.join(root, "qmgrs", QMK, "qm.lock")) as f:
        return int(f.read().split()[0])


def _end_daemon(root: str, pid: int) -> None:
    os.kill(pid, signal.SIGTERM)
    qmdir = os.path.join(root, "qmgrs", QMK)
    deadline = time.monotonic() + 20
    while inprocess.is_locked(qmdir):
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            break
        time.sleep(0.05)


def _indexes(qm: mqpy.QueueManager, queue: str) -> list[int]:
    """The message numbers on ``queue`` (browsed), checking each message is intact."""
    q = mqpy.Queue(qm, queue, CMQC.MQOO_BROWSE)
    found = []
    opt = CMQC.MQGMO_BROWSE_FIRST
    while True:
        md = mqpy.MD()
        try:
            data = q.get(None, md, mqpy.GMO(Options=opt))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
        opt = CMQC.MQGMO_BROWSE_NEXT
        assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
        n = int(data[DLH_LEN:].split()[1])
        assert md.MsgId == b"M%023d" % n and data[DLH_LEN:] == b"msg %06d" % n
        found.append(n)
    q.close()
    return found


def test_sigkilled_runmqdlq_neither_loses_nor_duplicates(tmp_path):
    """Given 2000 persistent dead letters and a catch-all FWD rule, when runmqdlq (a child
    process, WAIT(NO)) is SIGKILLed at random moments five times, then every message is once
    on the forward queue or still on the DLQ, never both, never lost; and a final run moves
    the rest, leaving all 2000 exactly once on the forward queue."""
    root = str(tmp_path)
    inprocess.create(QMK, root, dead_letter_queue="DLQ")
    eng = inprocess.start(QMK, root)
    try:
        eng.alter("QLOCAL", "DLQ", {"MAXDEPTH": 100000})
        eng.define("QLOCAL", "FWDQ", {"MAXDEPTH": 100000})
        for n in range(COUNT):
            md = mqpy.MD(MsgId=b"M%023d" % n, Persistence=CMQC.MQPER_PERSISTENT,
                         Format=CMQC.MQFMT_STRING)
            assert eng.dead_letter(md, b"msg %06d" % n, CMQC.MQRC_Q_FULL, "TARGET", QMK)
    finally:
        inprocess.stop(QMK, root)

    rc, lines = control.start_daemon(QMK, root)
    assert rc == 0, lines
    pid = _daemon_pid(root)
    seed = int(time.time())
    rng = random.Random(seed)
    env = {**os.environ, "MQPY_DATA_PATH": root}
    try:
        for _ in range(KILLS):
            child = subprocess.Popen(
                [sys.executable, "-m", "mqpy_cli.runmqdlq", "DLQ", QMK],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                env=env)
            try:
                child.stdin.write(RULES.encode())
                child.stdin.close()
                first = child.stdout.readline()
                assert b"AMQ8708" in first, first + child.stdout.read()
                time.sleep(rng.uniform(0.02, 0.2))
            finally:
                child.kill()
                child.wait(10)
            assert child.returncode == -signal.SIGKILL, f"seed {seed}: the run ended by itself"
    finally:
        _end_daemon(root, pid)

    qm = mqpy.embedded(QMK, data_path=root, create=False)
    try:
        forwarded = _indexes(qm, "FWDQ")
        left = _indexes(qm, "DLQ")
        assert sorted(forwarded + left) == list(range(COUNT)), f"seed {seed}"
        assert 0 < len(forwarded) < COUNT, f"seed {seed}: the kills did not land mid-run"

        table = parse_rules(RULES)
        summary = DeadLetterHandler(qm, table, out=io.StringIO()).run()
        assert summary.forwarded == len(left)
        assert sorted(_indexes(qm, "FWDQ")) == list(range(COUNT))
        assert _indexes(qm, "DLQ") == []
    finally:
        mqpy.stop_embedded(QMK, data_path=root)
