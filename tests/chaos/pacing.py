"""The sustained run's load: the network's maximum throughput measured in a calibration
phase -- the producers flat out, long enough for the consumers to have a backlog -- then the
producers held to half of it for the rest of the run.

The maximum is the smaller of two rates over the calibration window: the messages the
producers committed a second, and the messages the consumers committed a second (getting
from a backlog, as fast as they can). The network sustains no more than its slower side.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

from tests.chaos.workload import APPS, Workload

#: the share of the measured maximum the sustained run holds
LOAD = 0.5
#: the producers run flat out this long before the window opens (a backlog forms)
SETTLE_S = 10.0


def committed_messages(histories: Mapping[str, Iterable[str]], apps: set[str],
                       since: float, until: float) -> int:
    """The messages put or got in ``apps``' units of work committed between ``since`` and
    ``until`` (seconds since the epoch, as their ``L`` lines say)."""
    total = 0
    for instance, lines in histories.items():
        if instance.rstrip("0123456789") not in apps:
            continue
        pending: dict[str, int] = {}
        carried = 0
        for line in lines:
            words = line.split()
            if len(words) >= 4 and words[0] in ("p", "g"):
                pending[words[1]] = pending.get(words[1], 0) + len(words) - 3
            elif len(words) == 2 and words[0] == "C":
                carried = pending.pop(words[1], 0)
            elif len(words) == 3 and words[0] == "L":
                if since <= float(words[2]) < until:
                    total += carried
                carried = 0
    return total


def role_apps(role: str) -> set[str]:
    return {app for app, (r, *_) in APPS.items() if r == role}


def calibrate(apps: Workload, seconds: float, log=print) -> dict:
    """Measure the maximum throughput (producers flat out for SETTLE_S + ``seconds``), then
    hold the producers to LOAD of it, shared equally: the figures, for the report."""
    apps.pace(0)
    time.sleep(SETTLE_S)
    began = time.time()
    time.sleep(seconds)
    ended = time.time()
    histories = apps.read_histories()
    span = ended - began
    puts = committed_messages(histories, role_apps("producer"), began, ended) / span
    gets = committed_messages(histories, role_apps("consumer"), began, ended) / span
    maximum = min(puts, gets) if gets else puts
    target = LOAD * maximum
    producers = apps.producers()
    apps.pace(max(target / len(producers), 0.1))
    out = {"window_s": round(span, 1), "puts_per_s": round(puts, 1),
           "gets_per_s": round(gets, 1), "max_per_s": round(maximum, 1),
           "load": LOAD, "target_per_s": round(target, 1)}
    log(f"  calibrated: {out}")
    return out
