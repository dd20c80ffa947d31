"""The sustained run's load: the network's maximum throughput measured in a calibration
phase -- the producers flat out, long enough for every consumer to have a backlog -- then the
producers held to half of it for the rest of the run.

The maximum is what the slowest side sustains: the messages the producers committed a
second, or, for each consumer, the messages it committed a second (getting from a backlog,
as fast as it can) over its share of what the producers put -- the destinations it reads,
a destination read by several (the clustered queue, on two queue managers) shared equally
among them, as the cluster's round robin shares it.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterable, Mapping

from tests.chaos.workload import APPS, Workload

#: the share of the measured maximum the sustained run holds
LOAD = 0.5
#: the producers run flat out this long before the window opens (backlogs form)
SETTLE_S = 10.0


def committed(histories: Mapping[str, Iterable[str]], apps: set[str], since: float,
              until: float) -> collections.Counter:
    """The messages put or got in ``apps``' units of work committed between ``since`` and
    ``until`` (seconds since the epoch, as their ``L`` lines say), by place (a put's final
    destination, a get's ``qmgr/queue[#reason]``)."""
    total: collections.Counter = collections.Counter()
    for instance, lines in histories.items():
        if instance.rstrip("0123456789") not in apps:
            continue
        pending: dict[str, collections.Counter] = {}
        carried: collections.Counter = collections.Counter()
        for line in lines:
            words = line.split()
            if len(words) >= 4 and words[0] in ("p", "g"):
                pending.setdefault(words[1], collections.Counter())[words[2]] += \
                    len(words) - 3
            elif len(words) == 2 and words[0] == "C":
                carried = pending.pop(words[1], collections.Counter())
            elif len(words) == 3 and words[0] == "L":
                if since <= float(words[2]) < until:
                    total += carried
                carried = collections.Counter()
    return total


def committed_messages(histories: Mapping[str, Iterable[str]], apps: set[str],
                       since: float, until: float) -> int:
    return sum(committed(histories, apps, since, until).values())


def role_apps(role: str) -> set[str]:
    return {app for app, (r, *_) in APPS.items() if r == role}


def reads(app: str) -> set[str]:
    """The places (``qmgr/queue``) a consumer reads."""
    _, qmgr, _, _, queues = APPS[app]
    return {f"{qmgr}/{queue}" for queue in queues.split(",")}


def maximum(puts: Mapping[str, int], gets: Mapping[str, int], places: Mapping[str, set[str]],
            span: float) -> float:
    """The messages a second the network sustains: the producers' rate, or a consumer's
    (``gets``: its messages in ``span`` seconds) over its share of ``puts`` (by final
    destination, read where ``places`` says), whichever is smallest."""
    total = sum(puts.values())
    best = total / span
    if not total:
        return best
    readers = {dest: [app for app in gets if reads(app) & {p.split("#")[0] for p in where}]
               for dest, where in places.items()}
    for app, got in gets.items():
        share = sum(n / total / len(readers[dest]) for dest, n in puts.items()
                    if app in readers.get(dest, ()))
        if share:
            best = min(best, got / span / share)
    return best


def calibrate(apps: Workload, seconds: float, places: Mapping[str, set[str]],
              log=print) -> dict:
    """Measure the maximum throughput (producers flat out for SETTLE_S + ``seconds``), then
    hold the producers to LOAD of it, shared equally: the figures, for the report.
    ``places``: where each final destination's messages may be got."""
    apps.pace(0)
    time.sleep(SETTLE_S)
    began = time.time()
    time.sleep(seconds)
    ended = time.time()
    histories = apps.read_histories()
    span = ended - began
    puts = committed(histories, role_apps("producer"), began, ended)
    gets = {app: committed_messages(histories, {app}, began, ended)
            for app in sorted(role_apps("consumer"))}
    most = maximum(puts, gets, places, span)
    target = LOAD * most
    producers = apps.producers()
    apps.pace(max(target / len(producers), 0.1))
    out = {"window_s": round(span, 1), "puts_per_s": round(sum(puts.values()) / span, 1),
           "gets_per_s": {app: round(n / span, 1) for app, n in gets.items()},
           "max_per_s": round(most, 1), "load": LOAD, "target_per_s": round(target, 1)}
    log(f"  calibrated: {out}")
    return out
