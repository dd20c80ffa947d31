"""A chaos run's report: the JSON (seed, commit, faults with their times, the checker's
counts, the convergence time, the calibrated load, and per minute each process's resident
memory and open files, each queue manager's log use, each application's latency percentiles,
the committed puts a second and their put latency percentiles) and an HTML page charting
them, growth flagged.

Growth: a process's resident memory at its last minute more than ``GROWTH`` above its
figure at the end of warm-up (the 10th minute, or a third of a run shorter than 30
minutes); likewise p99 latency (an application's unit of work, or all puts') more than
twice its warm-up figure."""

from __future__ import annotations

import collections
import html
import json
import math
from collections.abc import Iterable

GROWTH = 0.10
LATENCY_GROWTH = 2.0
WARM_MINUTE = 10


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def latencies(histories: dict[str, list[str]], began_epoch: float, bucket: float
              ) -> dict[str, dict[int, list[float]]]:
    """Each application's unit-of-work latencies (ms) by bucket of ``bucket`` seconds."""
    out: dict[str, dict[int, list[float]]] = collections.defaultdict(
        lambda: collections.defaultdict(list))
    for instance, lines in histories.items():
        app = instance.rstrip("0123456789")
        for line in lines:
            words = line.split()
            if words[:1] == ["L"] and len(words) == 3:
                out[app][int((float(words[2]) - began_epoch) // bucket)].append(float(words[1]))
    return out


def puts(histories: dict[str, list[str]], began_epoch: float, bucket: float
         ) -> dict[int, list[float]]:
    """Every committed message's put latency (ms, from its MQPUT to the end of its MQCMIT:
    the producers' ``M`` lines) by bucket of ``bucket`` seconds."""
    out: dict[int, list[float]] = collections.defaultdict(list)
    for lines in histories.values():
        for line in lines:
            words = line.split()
            if words[:1] == ["M"] and len(words) > 2:
                out[int((float(words[1]) - began_epoch) // bucket)] += map(float, words[2:])
    return out


def _percentiles(values: list[float]) -> dict:
    return {f"p{p}": percentile(values, p) for p in (50, 95, 99)} | {"n": len(values)}


def per_minute(samples: Iterable[dict], log_use: Iterable[dict],
               lat: dict[str, dict[int, list[float]]], bucket: float,
               put_lat: dict[int, list[float]] | None = None) -> list[dict]:
    """One row per bucket: the largest figure of each process in it, and percentiles; the
    committed puts a second and their put latency percentiles."""
    rows: dict[int, dict] = collections.defaultdict(lambda: {
        "rss": {}, "fds": {}, "log_bytes": {}, "latency_ms": {}, "puts_per_s": 0.0,
        "put_latency_ms": {}})
    for s in samples:
        row = rows[int(s["t"] // bucket)]
        row["rss"][s["process"]] = max(row["rss"].get(s["process"], 0), s["rss"])
        row["fds"][s["process"]] = max(row["fds"].get(s["process"], 0), s["fds"] or 0)
    for s in log_use:
        row = rows[int(s["t"] // bucket)]
        row["log_bytes"][s["qmgr"]] = max(row["log_bytes"].get(s["qmgr"], 0), s["bytes"])
    for app, buckets in lat.items():
        for index, values in buckets.items():
            rows[index]["latency_ms"][app] = _percentiles(values)
    for index, values in (put_lat or {}).items():
        rows[index]["puts_per_s"] = round(len(values) / bucket, 1)
        rows[index]["put_latency_ms"] = _percentiles(values)
    return [{"minute": index, **rows[index]} for index in sorted(rows)]


def growth(minutes: list[dict]) -> list[str]:
    """Processes whose resident memory grew more than GROWTH after warm-up, applications
    whose p99 latency grew more than LATENCY_GROWTH times."""
    if len(minutes) < 3:
        return []
    warm = minutes[min(WARM_MINUTE, len(minutes) // 3)]
    last = minutes[-1]
    flags = []
    for proc, before in warm["rss"].items():
        after = last["rss"].get(proc)
        if after and before and after > before * (1 + GROWTH):
            flags.append(f"rss {proc}: {before >> 20} MB -> {after >> 20} MB")
    for app, before in [*warm["latency_ms"].items(),
                        ("put", warm.get("put_latency_ms"))]:
        after = (last.get("put_latency_ms") if app == "put" else
                 last["latency_ms"].get(app))
        if after and before and before["p99"] and \
                after["p99"] > before["p99"] * LATENCY_GROWTH:
            flags.append(f"p99 {app}: {before['p99']:.0f} ms -> {after['p99']:.0f} ms")
    return flags


def write(report: dict, json_path: str, html_path: str) -> None:
    with open(json_path, "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    with open(html_path, "w") as f:
        f.write(page(report))


def _chart(title: str, series: dict[str, list[tuple[float, float]]], unit: str,
           flagged: set[str]) -> str:
    """An SVG line chart: one line per series (flagged ones thick and red)."""
    w, h, pad = 720, 240, 40
    points = [p for line in series.values() for p in line]
    if not points:
        return ""
    xmax = max(x for x, _ in points) or 1
    ymax = max(y for _, y in points) or 1
    out = [f"<h3>{html.escape(title)}</h3><svg width='{w + 220}' height='{h + pad}'>",
           f"<text x='0' y='12' font-size='11'>{ymax:.0f} {unit}</text>",
           f"<line x1='{pad}' y1='{h}' x2='{w}' y2='{h}' stroke='black'/>",
           f"<text x='{pad}' y='{h + 14}' font-size='11'>0</text>",
           f"<text x='{w - 60}' y='{h + 14}' font-size='11'>point {xmax:.0f}</text>"]
    palette = ["#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
               "#17becf", "#ff7f0e"]
    for i, (name, line) in enumerate(sorted(series.items())):
        bad = name in flagged
        colour = "#d62728" if bad else palette[i % len(palette)]
        coords = " ".join(f"{pad + x / xmax * (w - pad):.0f},{h - y / ymax * (h - 20):.0f}"
                          for x, y in line)
        out.append(f"<polyline fill='none' stroke='{colour}' stroke-width='{3 if bad else 1}'"
                   f" points='{coords}'/>")
        out.append(f"<text x='{w + 10}' y='{14 + 13 * i}' font-size='11' fill='{colour}'>"
                   f"{html.escape(name)}{' (growth)' if bad else ''}</text>")
    out.append("</svg>")
    return "\n".join(out)


def page(report: dict) -> str:
    minutes = report.get("per_minute", [])
    flags = report.get("growth", [])
    flagged = {f.split(":")[0].split(" ", 1)[1] for f in flags}

    def series(key: str, scale: float = 1.0, field: str | None = None) -> dict:
        out: dict[str, list] = collections.defaultdict(list)
        for row in minutes:
            for name, value in row[key].items():
                out[name].append((row["minute"], (value[field] if field else value) / scale))
        return out

    head = {k: report.get(k) for k in ("seed", "commit", "date", "faults_injected",
                                       "convergence_s", "ok")}
    parts = [
        "<html><head><meta charset='utf-8'><title>mqpy chaos run</title></head><body>",
        f"<h1>mqpy chaos run, seed {html.escape(str(report.get('seed')))}</h1>",
        f"<pre>{html.escape(json.dumps(head, indent=1))}</pre>",
        f"<pre>{html.escape(json.dumps(report.get('checker', {}), indent=1))}</pre>",
        "<h2>Growth flagged</h2><ul>" + "".join(
            f"<li style='color:#d62728'>{html.escape(f)}</li>" for f in flags) +
        ("" if flags else "<li>none</li>") + "</ul>",
        f"<p>One point per {report.get('bucket_s', 60)} s.</p>",
        _chart("Resident memory (MB)", series("rss", 1 << 20), "MB", flagged),
        _chart("Open files", series("fds"), "", set()),
        _chart("Log use (MB)", series("log_bytes", 1 << 20), "MB", set()),
        _chart("p99 unit-of-work latency (ms)", series("latency_ms", 1, "p99"), "ms",
               flagged),
        _chart("Committed puts a second", {"puts": [
            (row["minute"], row.get("puts_per_s", 0)) for row in minutes]}, "/s", set()),
        _chart("p99 put latency (ms, from MQPUT to the end of its MQCMIT)", {"put": [
            (row["minute"], row["put_latency_ms"]["p99"]) for row in minutes
            if row.get("put_latency_ms")]}, "ms", flagged),
        f"<pre>load: {html.escape(json.dumps(report.get('load')))}</pre>",
        "<h2>Faults</h2><table border='1' cellspacing='0'><tr><th>t (s)</th><th>kind</th>"
        "<th>target</th><th>detail</th></tr>" + "".join(
            f"<tr><td>{f['at']}</td><td>{html.escape(f['kind'])}</td>"
            f"<td>{html.escape(f['target'])}</td><td>{html.escape(f['detail'])}</td></tr>"
            for f in report.get("faults", [])) + "</table></body></html>"]
    return "\n".join(parts)
