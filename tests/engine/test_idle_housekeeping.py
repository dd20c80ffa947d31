"""The queue manager's housekeeping thread (checkpoints, expiry scans) sleeps until it has
work: an idle queue manager's thread does not wake every second to find none. Wakes are
counted (the thread's voluntary context switches, Linux's /proc), not timed."""

from __future__ import annotations

import os
import threading
import time

import pytest

import mqpy
from mqpy import inprocess


def _wakes(native_id: int) -> int:
    with open(f"/proc/self/task/{native_id}/status") as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches line")


def test_an_idle_queue_managers_housekeeping_thread_does_not_wake(tmp_path):
    """Given a queue manager of this process with nothing to do, when 3 s pass, then its
    housekeeping thread woke at most once (one that looked every second woke three times),
    and a checkpoint wanted still wakes it: the queue manager closes promptly."""
    if not os.path.exists(f"/proc/self/task/{threading.get_native_id()}/status"):
        pytest.skip("no /proc/self/task/TID/status here: the wakes cannot be counted")
    root = str(tmp_path)
    mqpy.embedded("QMIDLE", data_path=root)
    try:
        thread = next(t for t in threading.enumerate() if t.name == "checkpoint-QMIDLE")
        time.sleep(0.5)  # the start's own checkpoint, if any, is over
        before = _wakes(thread.native_id)
        time.sleep(3.0)
        assert _wakes(thread.native_id) - before <= 1
    finally:
        inprocess.stop("QMIDLE", root)
    thread.join(10.0)
    assert not thread.is_alive()
