"""The machine's measured sustainable rates the report weighs the load against.

A rate nobody measured stays None: headroom and utilisation are then reported as unknown,
never computed against an invented figure.
"""

from __future__ import annotations

import json
import os
from typing import Any

import attrs

NOT_MEASURED = "not measured"


@attrs.frozen
class Capacity:
    """The machine's measured sustainable rates, from benchmarks/results.json or given; a rate
    nobody measured is None, and what depends on it is reported as unknown."""

    fsync_per_s: float | None = None
    log_bytes_per_s: float | None = None
    persistent_msgs_per_s: float | None = None
    nonpersistent_msgs_per_s: float | None = None
    source: str = NOT_MEASURED

    @classmethod
    def from_bench(cls, path: str | None, **overrides: Any) -> Capacity:
        """Read ``make bench`` results (scenarios fsync_raw, persistent_8, nonpersistent)."""
        given = {k: v for k, v in overrides.items() if v is not None}
        if not path or not os.path.exists(path):
            return cls(**given, source="given as options" if given else NOT_MEASURED)
        with open(path) as f:
            doc = json.load(f)
        res = {r.get("scenario"): r for r in doc.get("results", [])}
        found: dict[str, Any] = {"source": f"benchmark results {path}"}
        raw = res.get("fsync_raw", {})
        if raw.get("fdatasync_per_s_1kb"):
            found["fsync_per_s"] = float(raw["fdatasync_per_s_1kb"])
        if raw.get("msgs_per_s_100_per_fsync"):
            found["log_bytes_per_s"] = float(raw["msgs_per_s_100_per_fsync"]) * 1024
        if res.get("persistent_8", {}).get("msgs_per_s"):
            found["persistent_msgs_per_s"] = float(res["persistent_8"]["msgs_per_s"])
        if res.get("nonpersistent", {}).get("msgs_per_s"):
            found["nonpersistent_msgs_per_s"] = float(res["nonpersistent"]["msgs_per_s"])
        return cls(**{**found, **given})
