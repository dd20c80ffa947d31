"""Each monitor interval's counts, taken from the counters the engine already keeps for
statistics messages (``mqpy.engine.stats``): the queue manager's MQI counters and each local
queue's. Those counters start again at every statistics interval (STATINT, RESET QMGR
TYPE(STATISTICS)): :class:`IntervalCounts` remembers which counter objects it last read and
what they held, so that it adds what an ended statistics interval counted after its last
look to what the new one has counted since. The statistics messages are not disturbed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: counters split [non-persistent, persistent]
_PAIRS = ("puts", "put1s", "put_bytes", "gets", "get_bytes", "browses", "browse_bytes")
#: single counters (a counter object without one gives none)
_SINGLES = ("connects", "connect_fails", "disconnects", "opens", "open_fails", "closes",
            "close_fails", "inqs", "sets", "put_fails", "put1_fails", "get_fails",
            "browse_fails", "commits", "backouts", "expired", "purged")
#: the key of the queue manager's MQI counters (no queue has an empty name)
MQI = ""


def figures(counters: Any) -> dict[str, float]:
    """A counter object's figures by sample key (``puts.np``, ``gets.p``, ``opens``...)."""
    out: dict[str, float] = {}
    for name in _PAIRS:
        pair = getattr(counters, name, None)
        if pair is not None:
            out[name + ".np"], out[name + ".p"] = pair[0], pair[1]
    for name in _SINGLES:
        value = getattr(counters, name, None)
        if value is not None:
            out[name] = value
    total = getattr(counters, "time_on_q_total", None)
    if total is not None:
        out["time_on_q.seconds"] = total[0] + total[1]
        out["time_on_q.count"] = sum(counters.time_on_q_count)
    return out


def _difference(now: Mapping[str, float], before: Mapping[str, float]) -> dict[str, float]:
    return {k: v - before.get(k, 0) for k, v in now.items() if v != before.get(k, 0)}


def _add(into: dict[str, float], more: Mapping[str, float]) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


class IntervalCounts:
    """What the engine's counters counted between two looks (:meth:`take`)."""

    def __init__(self) -> None:
        #: key -> (the counter object last read, its figures then)
        self._seen: dict[str, tuple[object, dict[str, float]]] = {}

    def take(self, current: Mapping[str, object]) -> dict[str, dict[str, float]]:
        """The counts since the last look, by key (:data:`MQI`, or a queue name), from
        ``current``: the counter objects in use now (engine lock held). A key absent from
        the answer counted nothing."""
        out: dict[str, dict[str, float]] = {}
        for key in set(self._seen) | set(current):
            obj = current.get(key)
            seen = self._seen.get(key)
            counted: dict[str, float] = {}
            if seen is not None and seen[0] is not obj:  # its statistics interval ended
                _add(counted, _difference(figures(seen[0]), seen[1]))
                seen = None
            if obj is None:
                self._seen.pop(key, None)
            else:
                now = figures(obj)
                _add(counted, _difference(now, seen[1] if seen is not None else {}))
                self._seen[key] = (obj, now)
            if counted:
                out[key] = counted
        return out


def current_counters(stats: Any) -> dict[str, object]:
    """The engine's counter objects in use (``engine.stats``): MQI's and each queue's."""
    return {MQI: stats.mqi, **stats.queues}


def with_totals(counts: Mapping[str, float]) -> dict[str, float]:
    """``counts`` with IBM's combined figures: ``puts.all`` (MQPUT and MQPUT1, both
    persistences), ``put_bytes.all``, ``gets.all``, ``get_bytes.all``, and the average time
    on the queue (``time_on_q``, seconds) of the messages got."""
    out = dict(counts)
    g = counts.get
    out["puts.all"] = g("puts.np", 0) + g("puts.p", 0) + g("put1s.np", 0) + g("put1s.p", 0)
    for name in ("put_bytes", "gets", "get_bytes"):
        out[name + ".all"] = g(name + ".np", 0) + g(name + ".p", 0)
    n = g("time_on_q.count", 0)
    out["time_on_q"] = g("time_on_q.seconds", 0) / n if n else 0.0
    return out
