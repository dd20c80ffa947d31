"""Crash recovery with real processes: a workload is SIGKILLed at random moments, many times.

After every restart the queue must hold exactly the committed messages, once each, in order;
nothing from a unit of work that was backed out or never committed may be visible.
"""

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

pytestmark = pytest.mark.system

QM, Q = "CRASHQM", "CRASH.Q"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_ack(path: str) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {t: set() for t in "pPbBxgGr"}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            if not line.endswith("\n"):
                break  # a line torn by the kill
            tag, *ids = line.split()
            out[tag].update(int(i) for i in ids)
    return out


def browse_ids(root: str) -> list[int]:
    qm = mqpy.embedded(QM, data_path=root, create=False)
    q = mqpy.Queue(qm, Q, CMQC.MQOO_BROWSE)
    ids = []
    opts = CMQC.MQGMO_BROWSE_FIRST
    while True:
        try:
            data = q.get(None, mqpy.MD(), mqpy.GMO(Options=opts))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
        ids.append(int(data.split(b".")[0]))
        opts = CMQC.MQGMO_BROWSE_NEXT
    q.close()
    qm.disconnect()
    return ids


def check(ids: list[int], ack: dict[str, set[int]]) -> None:
    present = set(ids)
    assert len(ids) == len(present), "a message is duplicated"
    assert ids == sorted(ids), "committed messages are out of order"
    assert not present & (ack["b"] | ack["x"]), "uncommitted or backed-out work is visible"
    assert not present & ack["G"], "a message whose get was committed came back"
    assert present <= ack["p"], "a message nobody put appeared"
    lost = ack["P"] - present - ack["g"]
    assert not lost, f"committed messages lost: {sorted(lost)[:10]}"


def make_qmgr(root: str) -> None:
    cfg = config.QMgrConfig(QM, config.qmgr_dir(QM, root))
    # Small segments, frequent checkpoints and a tiny buffer pool, so kills land in segment
    # switches, checkpoints and evictions as well as in commits.
    cfg.log.LogFilePages = 64
    cfg.log.LogPrimaryFiles = 4
    cfg.log.LogSecondaryFiles = 4
    cfg.tuning.LogLoad = 300
    cfg.tuning.BufferPoolBytes = 256 * 1024
    inprocess.create(QM, root, cfg=cfg)
    eng = inprocess.start(QM, root)
    eng.define("QLOCAL", Q, {"MAXDEPTH": 1000000, "DEFPSIST": "YES"})
    inprocess.stop(QM, root)


def _wait_for_a_commit(child: subprocess.Popen, ackfile: str, start: int,
                      timeout: float = 60.0) -> None:
    """Until ``child`` has acknowledged a committed put (a whole "P" line in ``ackfile``
    after byte ``start``), while it runs."""
    deadline = time.monotonic() + timeout
    while child.poll() is None and time.monotonic() < deadline:
        if os.path.exists(ackfile):
            with open(ackfile) as f:
                f.seek(start)
                if any(line.startswith("P ") and line.endswith("\n") for line in f):
                    return
        time.sleep(0.01)
    assert child.poll() is None, child.stderr.read().decode()[-2000:]
    raise AssertionError(f"the workload committed nothing in {timeout} s")


def run_kills(root: str, kills: int, seed: int) -> None:
    rng = random.Random(seed)
    ackfile = os.path.join(root, "ack.log")
    make_qmgr(root)
    next_id = 1
    env = dict(os.environ, PYTHONPATH=ROOT)
    for n in range(kills):
        start = os.path.getsize(ackfile) if os.path.exists(ackfile) else 0
        child = subprocess.Popen(
            [sys.executable, "-m", "tests.recovery.workload", root, QM, Q, ackfile,
             str(seed * 1000 + n), str(next_id)], cwd=ROOT, env=env,
            stderr=subprocess.PIPE)
        if n % 2:
            # every other life is killed after it has committed something, however slowly a
            # loaded machine starts it; the others at a moment counted from the start, which
            # may land in its connect (the queue manager's restart)
            _wait_for_a_commit(child, ackfile, start)
            time.sleep(rng.uniform(0.0, 0.6))
        else:
            time.sleep(rng.uniform(0.3, 1.2))
        assert child.poll() is None, child.stderr.read().decode()[-2000:]
        child.send_signal(signal.SIGKILL)
        child.wait()
        ack = parse_ack(ackfile)
        check(browse_ids(root), ack)
        eng = inprocess.running(QM, root)
        assert eng is not None and not eng.indoubt()
        inprocess.stop(QM, root)
        next_id = max(ack["p"] | ack["b"] | ack["x"] | {0}) + 1
    assert parse_ack(ackfile)["P"], "the workload never committed anything"


def test_sigkill_at_random_moments_loses_and_duplicates_nothing(tmp_path):
    """Given a child running persistent puts and gets in and out of syncpoint, units of work
    backed out and left open, when it is SIGKILLed at random moments (4 times: twice after
    a commit, twice at a moment counted from its start; 150 times in ``make soak``), then
    after every restart the queue holds exactly the committed messages, in order, once each.
    spec: aliases-channels-storage 4.35; aliases-channels-storage 4.36; aliases-channels-storage 4.38"""
    run_kills(str(tmp_path), kills=4, seed=1)


#: the soak run's kills and seed (make soak: 150 and 7)
SOAK_KILLS = int(os.environ.get("MQPY_CRASH_KILLS", "150"))
SOAK_SEED = int(os.environ.get("MQPY_CRASH_SEED", "7"))


@pytest.mark.soak
@pytest.mark.timeout(1800)  # 150 kills, each a restart of a growing queue: beyond the default
def test_soak_sigkill_many_times(tmp_path):
    """The same, 150 times (make soak; MQPY_CRASH_KILLS and MQPY_CRASH_SEED to change)."""
    run_kills(str(tmp_path), kills=SOAK_KILLS, seed=SOAK_SEED)
