"""An idle queue manager sleeps: with no application connected, its daemon and its channel
initiator wake only for work that is there (a statistics interval's end, a monitor
interval's publications, a checkpoint wanted), not every fraction of a second to look.

Wakes are counted, not timed: each thread's voluntary context switches (Linux's
``/proc/PID/task/TID/status``), which are the waits (a sleep, a poll's timeout, a get's
WaitInterval) that ended, whatever the load of the machine."""

from __future__ import annotations

import os
import time

import pytest

from tests.support.installation import Installation

#: how long the queue manager is left before the count begins (its start's own work ends)
SETTLE_S = 3.0
#: how long the count lasts
WINDOW_S = 12.0
#: wakes a minute the daemon may take while idle, its threads together: what stays (the
#: monitor interval's publications, the statistics interval's end) with room for a loaded
#: machine; an idle daemon that polled took 6000, one whose cluster tasks and trace watcher
#: still looked on timers 1500
DAEMON_WAKES_PER_MIN = 400
#: the same for the channel initiator; one that polled took 2600, one whose repository
#: manager still waited 250 ms a get 2200
CHINIT_WAKES_PER_MIN = 300


def _wakes(pid: int) -> dict[str, int]:
    """Each live thread of ``pid`` ("TID name"): its voluntary context switches so far."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    if line.startswith("voluntary_ctxt_switches:"):
                        out[f"{tid} {name}"] = int(line.split()[1])
        except OSError:
            continue  # ended meanwhile
    return out


def _per_minute(before: dict[str, int], after: dict[str, int], seconds: float
                ) -> tuple[float, dict[str, int]]:
    """Wakes a minute over the window, and each thread's wakes in it (a thread new since
    ``before`` counts whole; one that ended takes its count with it)."""
    each = {t: n - before.get(t, 0) for t, n in after.items()}
    return sum(each.values()) * 60 / seconds, {t: n for t, n in each.items() if n}


def test_an_idle_queue_manager_wakes_its_processes_seldom(install: Installation):
    """Given a queue manager started by strmqm in its default configuration (its channel
    initiator and command server running) and no application, when it is left idle for
    12 s, then its daemon wakes fewer than 400 times a minute and its channel initiator
    fewer than 300, all threads together (a daemon that polled its channel initiator, its
    engine's failure, the command server's control file and requests, the statistics
    intervals and new metadata subscribers woke 6000)."""
    if not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/status"):
        pytest.skip("no /proc/PID/task/TID/status here: the wakes cannot be counted")
    install.env = {k: v for k, v in install.env.items() if k != "MQPY_NO_CHINIT"}
    install.create(queues=())
    daemon = install.start()
    chinit = install.chinit_pid()
    assert chinit is not None, "strmqm started no channel initiator"
    time.sleep(SETTLE_S)
    before = (_wakes(daemon), _wakes(chinit))
    began = time.monotonic()
    time.sleep(WINDOW_S)
    after = (_wakes(daemon), _wakes(chinit))
    seconds = time.monotonic() - began
    daemon_rate, daemon_threads = _per_minute(before[0], after[0], seconds)
    chinit_rate, chinit_threads = _per_minute(before[1], after[1], seconds)
    assert daemon_rate < DAEMON_WAKES_PER_MIN, (round(daemon_rate), daemon_threads)
    assert chinit_rate < CHINIT_WAKES_PER_MIN, (round(chinit_rate), chinit_threads)
