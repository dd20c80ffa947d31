"""Segments and crashes, with real processes: a child puts persistent logical messages that
are segmented -- by the queue manager (MQMF_SEGMENTATION_ALLOWED outside syncpoint: a unit
of work of the call's own), and by itself in logical order in a unit of work it commits --
and gets them back whole (MQGMO_COMPLETE_MSG outside syncpoint: again the call's own unit of
work), and is SIGKILLed at random moments. After each restart every logical message on the
queue is all there, each segment once, and none whose put returned is lost but by a get.

The child is this module run as a program:
``python -m tests.mqi.test_segmentation_crash DATA_PATH ACKFILE SEED FIRST_ID``; its ack
file has ``p id`` before a put, ``P id`` once it returned or was committed, ``g`` before a
get, ``G id`` once it returned."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

import mqpy
from mqpy import CMQC, config, inprocess

QM, Q = "SEGCRASH", "SEG.Q"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PERSISTENT = CMQC.MQPER_PERSISTENT
SEGMENT, LAST_SEGMENT = CMQC.MQMF_SEGMENT, CMQC.MQMF_LAST_SEGMENT


def _body(msg_id: int, length: int) -> bytes:
    return (b"%d." % msg_id).ljust(length, b"x")


def workload(data_path: str, ackfile: str, seed: int, first: int) -> None:
    """The child: puts and gets until it is killed."""
    rng = random.Random(seed)
    next_id = first
    ack = open(ackfile, "a", buffering=1)
    qm = mqpy.embedded(QM, data_path=data_path, create=False)
    q = mqpy.Queue(qm, Q, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    while True:
        kind = rng.random()
        if kind < 0.4:  # the queue manager segments it, in the call's own unit of work
            ack.write(f"p {next_id}\n")
            q.put(_body(next_id, rng.choice((301, 900, 2500))),
                  mqpy.MD(Persistence=PERSISTENT, MsgFlags=CMQC.MQMF_SEGMENTATION_ALLOWED),
                  mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
            ack.write(f"P {next_id}\n")
        elif kind < 0.7:  # segmented here, in logical order, in a unit of work committed
            ack.write(f"p {next_id}\n")
            body = _body(next_id, 800)
            pmo = mqpy.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_SYNCPOINT)
            for at in range(0, 800, 200):
                flags = LAST_SEGMENT if at == 600 else SEGMENT
                q.put(body[at:at + 200], mqpy.MD(Persistence=PERSISTENT, MsgFlags=flags), pmo)
            qm.commit()
            ack.write(f"P {next_id}\n")
        else:  # a whole logical message got, in the call's own unit of work
            ack.write("g\n")
            try:
                data = q.get(None, mqpy.MD(), mqpy.GMO(
                    Options=CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_NO_SYNCPOINT))
            except mqpy.MQMIError as e:
                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    raise
                ack.write("G\n")
                continue
            msg_id = int(data.split(b".")[0])
            assert data == _body(msg_id, len(data)), "a reassembled message is not whole"
            ack.write(f"G {msg_id}\n")
            continue
        next_id += 1


def _ack(path: str) -> tuple[set[int], set[int], set[int], bool]:
    """Ids meant to be put, put, got; and whether a get was under way at the end."""
    meant, put, got = set(), set(), set()
    getting = False
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if not line.endswith("\n"):
                    break
                tag, *ids = line.split()
                if tag == "g":
                    getting = True
                    continue
                getting = False  # (a get answered, or a later life's first line)
                {"p": meant, "P": put, "G": got}[tag].update(int(i) for i in ids)
    return meant, put, got, getting


def _logical_messages(root: str) -> dict[bytes, bytes]:
    """Every logical message on the queue by GroupId, reassembled from its segments as
    browsed; a segment missing, repeated or out of place fails the test."""
    qm = mqpy.embedded(QM, data_path=root, create=False)
    q = mqpy.Queue(qm, Q, CMQC.MQOO_BROWSE)
    segments: dict[bytes, dict[int, tuple[bytes, int]]] = {}
    opts = CMQC.MQGMO_BROWSE_FIRST
    while True:
        md = mqpy.MD()
        try:
            data = q.get(None, md, mqpy.GMO(Options=opts))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
        opts = CMQC.MQGMO_BROWSE_NEXT
        parts = segments.setdefault(md.GroupId, {})
        assert md.Offset not in parts, "a segment is there twice"
        parts[md.Offset] = (data, md.MsgFlags)
    q.close()
    qm.disconnect()
    whole = {}
    for gid, parts in segments.items():
        at, out = 0, b""
        while True:
            assert at in parts, f"a logical message lacks its segment at {at}"
            data, flags = parts.pop(at)
            out += data
            at += len(data)
            if flags & LAST_SEGMENT:
                break
        assert not parts, "a segment beyond the last"
        whole[gid] = out
    return whole


def _make_qmgr(root: str) -> None:
    cfg = config.QMgrConfig(QM, config.qmgr_dir(QM, root))
    cfg.log.LogFilePages = 64
    cfg.tuning.LogLoad = 300
    inprocess.create(QM, root, cfg=cfg)
    eng = inprocess.start(QM, root)
    eng.define("QLOCAL", Q, {"MAXDEPTH": 1000000, "MAXMSGL": 300})
    inprocess.stop(QM, root)


@pytest.mark.system
@pytest.mark.timeout(300)
def test_sigkill_leaves_every_segmented_logical_message_whole_or_absent(tmp_path):
    """Given a child putting and getting persistent segmented messages, when it is SIGKILLed
    at random moments (5 times), then after every restart each logical message on the queue
    has all its segments once each, and every message whose put returned is there unless a
    get had it."""
    root = str(tmp_path)
    ackfile = os.path.join(root, "ack.log")
    _make_qmgr(root)
    rng = random.Random(3)
    env = dict(os.environ, PYTHONPATH=ROOT)
    next_id = 1
    in_flight = 0  # gets under way at a kill: each may have had a message, unacknowledged
    for n in range(5):
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.mqi.test_segmentation_crash", root, ackfile,
             str(100 + n), str(next_id)], cwd=ROOT, env=env, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while child.poll() is None and time.monotonic() < deadline:
            if len(_ack(ackfile)[1]) >= next_id:  # (something put in this life)
                break
            time.sleep(0.02)
        time.sleep(rng.uniform(0.1, 0.8))
        assert child.poll() is None, child.stderr.read().decode()[-2000:]  # type: ignore
        child.send_signal(signal.SIGKILL)
        child.wait()
        meant, put, got, getting = _ack(ackfile)
        present = {int(body.split(b".")[0]) for body in _logical_messages(root).values()}
        assert present <= meant, "a message nobody put appeared"
        assert not present & got, "a message got whole came back"
        in_flight += getting
        lost = put - present - got
        assert len(lost) <= in_flight, f"committed messages lost: {sorted(lost)}"
        inprocess.stop(QM, root)
        next_id = max(meant | {0}) + 1
    assert _ack(ackfile)[1], "the workload never put anything"


if __name__ == "__main__":
    workload(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
