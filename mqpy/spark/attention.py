"""The report's first section: what needs attention, in sentences, from the report's tables.

Pure: tables in, sentences out. Application queues are named for every finding; SYSTEM.* and
temporary dynamic (AMQ.*) queues only when they reached MAXDEPTH.
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC

#: a growing queue is named when its trend reaches MAXDEPTH within this many hours
GROWTH_HORIZON_H = 30 * 24
#: peak fsync use of the measured capacity worth a sentence
FSYNC_BUSY_PCT = 80.0
#: headroom (busiest hour's capacity over its load) below which the queue manager is named
HEADROOM_LOW_X = 2.0
MOST_ERRORS = 3
#: average time on queue worth naming the queue whose messages waited longest
WAIT_WORTH_US = 1_000_000


def _duration(hours: float) -> str:
    if hours < 1:
        return f"{hours * 60:.0f} minutes"
    if hours < 48:
        return f"{hours:.1f} hours"
    return f"{hours / 24:.1f} days"


def _queue(q: dict[str, Any]) -> str | None:
    name, qm, limit = q["queue"], q["queue_manager"], q["maxdepth"]
    failed = q.get("puts_failed") or 0
    if q["depth_hwm"] is not None and q["depth_hwm"] >= limit:
        said = f"{name} reached MAXDEPTH {limit} on {qm}"
        if failed:
            said += (f"; {failed} puts failed (a put to a full queue fails with reason "
                     f"{CMQC.MQRC_Q_FULL}, MQRC_Q_FULL)")
        return said + "."
    if q["kind"] != "application":
        return None
    if failed:
        return f"{name} on {qm}: {failed} puts failed."
    if q["attention"] == 2:
        return f"{name} reached {q['depth_pct']:.0f}% of MAXDEPTH {limit} on {qm}."
    hours = q.get("hours_to_maxdepth")
    if hours is not None and hours <= GROWTH_HORIZON_H:
        return (f"{name} on {qm} grows {q['depth_slope_per_h']:,.0f} messages an hour: at "
                f"this rate it reaches MAXDEPTH {limit} in {_duration(hours)}.")
    return None


def _oldest(queues: list[dict[str, Any]]) -> str | None:
    waited = [q for q in queues if q["kind"] == "application"
              and (q.get("avg_time_on_q_us") or 0) >= WAIT_WORTH_US]
    if not waited:
        return None
    q = max(waited, key=lambda r: r["avg_time_on_q_us"])
    return (f"Messages waited longest on {q['queue']} on {q['queue_manager']}: "
            f"{q['avg_time_on_q_us'] / 1e6:,.1f} s on average.")


def _capacity(tables: dict[str, list[dict[str, Any]]]) -> list[str]:
    said = []
    known = [h for h in tables["headroom"] if h["headroom_x"] is not None]
    if tables["headroom"] and not known:
        said.append("Headroom unknown: no measured sustainable rate (run `make bench` and give "
                    "--bench benchmarks/results.json, or --persistent-rate and "
                    "--nonpersistent-rate).")
    for h in known:
        if h["headroom_x"] < HEADROOM_LOW_X:
            said.append(f"{h['queue_manager']}'s busiest hour ({h['busiest_hour']}) used "
                        f"{h['utilisation_pct']:.0f}% of the measured sustainable rate "
                        f"(headroom {h['headroom_x']:.1f}x).")
    for lg in tables["log"]:
        pct = lg.get("peak_fsync_utilisation_pct")
        if pct is not None and pct >= FSYNC_BUSY_PCT:
            said.append(f"{lg['queue_manager']}'s log forces peaked at {pct:.0f}% of the "
                        "disk's measured fsync rate.")
    return said


def findings(tables: dict[str, list[dict[str, Any]]]) -> list[str]:
    """What needs attention, most important first."""
    said = [s for s in map(_queue, tables["queues"]) if s]
    oldest = _oldest(tables["queues"])
    if oldest:
        said.append(oldest)
    for e in tables["errors_top"][:MOST_ERRORS]:
        said.append(f"{e['queue_manager']} logged {e['amq_id']} ({e['severity']}) "
                    f"{e['count']} times: {e['text']}")
    for c in tables["channels"]:
        if c.get("put_retries"):
            said.append(f"Channel {c['channel']} on {c['queue_manager']} retried "
                        f"{c['put_retries']} puts (the destination queue was full or "
                        "put-inhibited).")
    return said + _capacity(tables)
