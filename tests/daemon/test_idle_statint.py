"""The statistics tasks sleep to their interval's end: ALTER QMGR STATINT wakes them, and the
new interval applies to the interval in progress, with no poll of STATINT between.

The queue manager's own task (``mqpy.stats.collector``, a thread) is watched through its
thread's voluntary context switches; the channel initiator's (``channelstatistics``, a trio
task) through its reads of STATINT and STATCHL."""

from __future__ import annotations

import os
import threading
import time

import pytest
import trio

from mqpy import CMQCFC, inprocess
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.stats.collector import STATISTICS_QUEUE, start_statistics
from tests.stats._support import drain
from tests.support.channel_pair import make_chinit, mqsc
from tests.support.embedded import administered
from tests.support.qmgr import QMgr

#: how long each task is left idle with STATINT(1800) before the change
IDLE_S = 2.5


def _voluntary_switches(thread: threading.Thread) -> int:
    with open(f"/proc/{os.getpid()}/task/{thread.native_id}/status") as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches line")


def test_the_statistics_task_sleeps_until_statint_changes(tmp_path):
    """Given STATINT(1800), STATMQI(ON) and the statistics task running, when it is left
    idle for 2.5 s, then its thread does not wake (a task that polled STATINT woke five
    times); when ALTER QMGR STATINT(2) is issued, then the interval in progress, older than
    2 s, ends at once (its MQI statistics record comes), and the next 2 s later."""
    if not os.path.exists(f"/proc/{os.getpid()}/task/{threading.get_native_id()}/status"):
        pytest.skip("no /proc/PID/task/TID/status here: the wakes cannot be counted")
    with administered("IDLEST", str(tmp_path)) as (qm, eng, _root):
        eng.alter_qmgr({"STATINT": 1800, "STATMQI": "ON", "STATQ": "OFF"})
        stop = start_statistics(eng, qm)
        try:
            task = next(t for t in threading.enumerate() if t.name == "mqpy-stats-IDLEST")
            time.sleep(0.2)  # (its first wait has begun)
            before = _voluntary_switches(task)
            time.sleep(IDLE_S)
            woke = _voluntary_switches(task) - before
            changed = time.monotonic()
            result = MQSCProcessor(eng).execute_text("ALTER QMGR STATINT(2)")
            assert result.ok, result.lines
            seen: list[float] = []
            while len(seen) < 2 and time.monotonic() < changed + 4:
                seen += [time.monotonic() - changed for _, m in drain(qm, STATISTICS_QUEUE)
                         if m.header.Command == CMQCFC.MQCMD_STATISTICS_MQI]
                time.sleep(0.05)
        finally:
            eng.alter_qmgr({"STATINT": 1800})
            stop()
    assert woke <= 1, f"the idle statistics task woke {woke} times in {IDLE_S} s"
    assert len(seen) == 2 and seen[0] <= 0.6 and 1.5 <= seen[1] - seen[0] <= 2.6, seen


async def test_the_channel_statistics_task_sleeps_until_statint_changes(tmp_path):
    """Given STATINT(1800) and a channel initiator running, when it is left idle for 2.5 s,
    then its statistics task reads STATINT once, at the interval's start (a task that polled
    read it every second); when ALTER QMGR STATINT(2) is issued, then the task reads it
    again at once, the interval in progress, older than 2 s, ends at once (STATCHL is read
    for its records) and the next one 2 s later."""
    root = str(tmp_path / "QMIDLE")
    inprocess.create("QMIDLE", root)
    qm = QMgr("QMIDLE", root, inprocess.start("QMIDLE", root))
    try:
        qm.engine.alter_qmgr({"STATINT": 1800, "STATCHL": "OFF"})
        chinit = make_chinit(qm)
        reads: list[tuple[str, float]] = []
        asked = chinit.admin.qmgr_attribute

        def counted(key: str) -> object:
            if key in ("STATINT", "STATCHL"):
                reads.append((key, time.monotonic()))
            return asked(key)

        chinit.admin.qmgr_attribute = counted
        async with trio.open_nursery() as nursery:
            await nursery.start(chinit.run)
            await trio.sleep(0.3)  # (its first read is done)
            idle = len(reads)
            await trio.sleep(IDLE_S)
            idle_reads = [k for k, _ in reads[idle:]]
            changed = time.monotonic()
            result = await mqsc(qm, "ALTER QMGR STATINT(2)")
            assert result.ok, result.lines
            with trio.move_on_after(4):
                while sum(k == "STATCHL" and t > changed for k, t in reads) < 2:
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
    finally:
        inprocess.stop_all()
    assert idle_reads == [], f"the idle channel statistics task read {idle_reads}"
    after = [(k, round(t - changed, 1)) for k, t in reads if t > changed]
    assert after and after[0][0] == "STATINT" and after[0][1] <= 1.0, after
    ended = [t for k, t in after if k == "STATCHL"]
    assert len(ended) == 2 and ended[0] <= 1.0 and 1.5 <= ended[1] - ended[0] <= 2.6, after
