"""The capacity report as one self-contained HTML file: tables and inline SVG charts.

No script, no stylesheet or font from a CDN: the file opens offline and can be mailed. Charts
are drawn here as SVG text (line charts of time series, bar charts), escaped as HTML. Pure:
tables in, text out.
"""

from __future__ import annotations

import datetime as _dt
import html
from collections.abc import Sequence
from typing import Any

COLUMNS: dict[str, list[str]] = {
    "queues": ["queue_manager", "queue", "intervals", "peak_put_rate", "p95_put_rate",
               "peak_get_rate", "p95_get_rate", "depth_hwm", "avg_time_on_q_us", "maxdepth",
               "depth_slope_per_h", "depth_trend_now", "hours_to_maxdepth", "days_to_maxdepth"],
    "channels": ["queue_manager", "channel", "msgs", "msgs_per_s", "peak_msgs_per_s",
                 "bytes_per_s", "batches", "achieved_batch_size", "batchsz", "batch_fill_pct",
                 "full_batch_pct", "net_time_avg_us", "put_retries"],
    "call_mix": ["queue_manager", "call", "count", "share_pct"],
    "log": ["queue_manager", "seconds", "log_bytes_per_s", "peak_log_bytes_per_s",
            "fsyncs_per_s", "peak_fsyncs_per_s", "fsync_capacity_per_s",
            "peak_fsync_utilisation_pct", "records_per_fsync", "checkpoints_per_hour",
            "avg_checkpoint_ms", "buffer_hit_pct", "pages_used", "pages_free"],
    "headroom": ["queue_manager", "busiest_hour", "p_rate", "np_rate", "sustainable_p_rate",
                 "sustainable_np_rate", "utilisation_pct", "headroom_x"],
    "errors_top": ["queue_manager", "rank", "amq_id", "count", "text"],
    "errors_daily": ["date", "amq_id", "count"],
}

TITLES = {
    "queues": "Queues: rates, depth and time until MAXDEPTH",
    "channels": "Channels: throughput and batching",
    "call_mix": "Queue managers: MQI call mix",
    "log": "Queue managers: log, checkpoints and storage",
    "headroom": "Headroom: the busiest hour against sustainable rates",
    "errors_top": "Most frequent AMQ messages",
    "errors_daily": "AMQ messages per day",
}

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f"]
W, H, PAD_L, PAD_B, PAD_T, PAD_R = 720, 260, 64, 40, 28, 16


def _fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.2f}"
    return str(v)


def table(name: str, rows: Sequence[dict[str, Any]]) -> str:
    cols = COLUMNS[name]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(c)))}</td>" for c in cols)
                   + "</tr>" for r in rows)
    if not rows:
        body = f'<tr><td colspan="{len(cols)}">no data</td></tr>'
    return (f'<h2 id="{name}">{html.escape(TITLES[name])}</h2>\n'
            f'<table class="t" data-table="{name}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>\n<p class=\"csv\">CSV: {name}.csv</p>\n")


def _scale(lo: float, hi: float, a: float, b: float):
    span = (hi - lo) or 1.0
    return lambda v: a + (v - lo) / span * (b - a)


def _time_label(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).strftime("%m-%d %H:%M")


def line_chart(title: str, series: dict[str, list[tuple[float, float]]], *,
               hlines: Sequence[tuple[str, float]] = (), y_label: str = "") -> str:
    """An SVG line chart of time series (x: epoch seconds), with optional horizontal limits."""
    pts = [p for s in series.values() for p in s]
    if not pts:
        return f"<h3>{html.escape(title)}</h3><p>no data</p>"
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts] + [v for _, v in hlines] + [0.0]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys) * 1.05 or 1.0
    sx = _scale(x0, x1, PAD_L, W - PAD_R)
    sy = _scale(y0, y1, H - PAD_B, PAD_T)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'viewBox="0 0 {W} {H}" role="img" aria-label="{html.escape(title)}">',
           f'<text x="{W / 2}" y="16" text-anchor="middle" class="ct">{html.escape(title)}</text>',
           f'<line x1="{PAD_L}" y1="{H - PAD_B}" x2="{W - PAD_R}" y2="{H - PAD_B}" class="ax"/>',
           f'<line x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{H - PAD_B}" class="ax"/>']
    for i in range(5):
        v = y0 + (y1 - y0) * i / 4
        out.append(f'<text x="{PAD_L - 4}" y="{sy(v) + 4:.1f}" text-anchor="end" '
                   f'class="tk">{html.escape(_fmt(v))}</text>')
        xv = x0 + (x1 - x0) * i / 4
        out.append(f'<text x="{sx(xv):.1f}" y="{H - PAD_B + 16}" text-anchor="middle" '
                   f'class="tk">{_time_label(xv)}</text>')
    if y_label:
        out.append(f'<text x="12" y="{H / 2}" transform="rotate(-90 12 {H / 2})" '
                   f'text-anchor="middle" class="tk">{html.escape(y_label)}</text>')
    for n, (name, s) in enumerate(series.items()):
        color = PALETTE[n % len(PALETTE)]
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in sorted(s))
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{path}">'
                   f"<title>{html.escape(name)}</title></polyline>")
        out.append(f'<text x="{W - PAD_R - 4}" y="{PAD_T + 12 + 12 * n}" text-anchor="end" '
                   f'fill="{color}" class="tk">{html.escape(name)}</text>')
    for name, v in hlines:
        out.append(f'<line x1="{PAD_L}" y1="{sy(v):.1f}" x2="{W - PAD_R}" y2="{sy(v):.1f}" '
                   f'stroke="#555" stroke-dasharray="4 3"/><text x="{PAD_L + 4}" '
                   f'y="{sy(v) - 3:.1f}" class="tk">{html.escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def bar_chart(title: str, bars: Sequence[tuple[str, float]]) -> str:
    """A horizontal SVG bar chart."""
    if not bars:
        return f"<h3>{html.escape(title)}</h3><p>no data</p>"
    row = 18
    height = PAD_T + row * len(bars) + 10
    top = max(v for _, v in bars) or 1.0
    sx = _scale(0, top, 180, W - 80)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" '
           f'viewBox="0 0 {W} {height}" role="img" aria-label="{html.escape(title)}">',
           f'<text x="{W / 2}" y="16" text-anchor="middle" class="ct">{html.escape(title)}</text>']
    for i, (label, v) in enumerate(bars):
        y = PAD_T + i * row
        out.append(f'<text x="174" y="{y + 12}" text-anchor="end" class="tk">'
                   f"{html.escape(label)}</text>")
        out.append(f'<rect x="180" y="{y + 2}" width="{max(sx(v) - 180, 0.5):.1f}" '
                   f'height="{row - 5}" fill="{PALETTE[0]}"/>')
        out.append(f'<text x="{sx(v) + 4:.1f}" y="{y + 12}" class="tk">'
                   f"{html.escape(_fmt(float(v)))}</text>")
    out.append("</svg>")
    return "\n".join(out)


_CSS = """body{font-family:sans-serif;margin:24px;color:#222}table.t{border-collapse:collapse;
font-size:12px;margin-bottom:4px}table.t td,table.t th{border:1px solid #ccc;padding:2px 6px;
text-align:right}table.t th{background:#eee}table.t td:first-child,table.t td:nth-child(2){
text-align:left}.ct{font-size:13px;font-weight:bold}.tk{font-size:10px}.ax{stroke:#333}
p.csv{font-size:11px;color:#666}svg{display:block;margin:12px 0}"""


def render(tables: dict[str, list[dict[str, Any]]], series: dict[str, Any], cap: Any) -> str:
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>mqpy capacity report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>mqpy capacity report</h1>",
             f"<p>Sustainable rates: {html.escape(cap.source)} — fsync "
             f"{_fmt(cap.fsync_per_s)}/s, persistent {_fmt(cap.persistent_msgs_per_s)} msgs/s, "
             f"non-persistent {_fmt(cap.nonpersistent_msgs_per_s)} msgs/s.</p>"]
    by_qm: dict[str, list[tuple[float, float]]] = {}
    for r in series.get("hourly", []):
        by_qm.setdefault(r["queue_manager"], []).append((r["hour"], r["put_rate"]))
    parts.append(line_chart("Put rate per hour (msgs/s)", by_qm, y_label="msgs/s"))
    parts.append(table("headroom", tables["headroom"]))
    parts.append(table("queues", tables["queues"]))
    depth = series.get("depth")
    if depth:
        pts = depth["points"]
        trend: list[tuple[float, float]] = []
        if pts and depth["slope_per_h"] is not None and len(pts) > 1:
            t0 = pts[0][0]
            mt = sum(p[0] for p in pts) / len(pts)
            md = sum(p[1] for p in pts) / len(pts)
            trend = [(t, md + depth["slope_per_h"] * (t - mt) / 3600) for t in (t0, pts[-1][0])]
        s = {f"{depth['queue_manager']} {depth['queue']} QMaxDepth": pts}
        if trend:
            s["trend (least squares)"] = trend
        parts.append(line_chart(f"Depth of {depth['queue']} against MAXDEPTH", s,
                                hlines=[("MAXDEPTH", float(depth["maxdepth"]))],
                                y_label="messages"))
    parts.append(table("channels", tables["channels"]))
    totals: dict[str, float] = {}
    for r in tables["call_mix"]:
        totals[r["call"]] = totals.get(r["call"], 0) + (r["count"] or 0)
    parts.append(bar_chart("MQI calls (all queue managers)",
                           sorted(totals.items(), key=lambda kv: -kv[1])))
    parts.append(table("call_mix", tables["call_mix"]))
    log_s: dict[str, list[tuple[float, float]]] = {}
    for r in series.get("log_hourly", []):
        log_s.setdefault(f"{r['queue_manager']} fsyncs/s", []).append((r["hour"],
                                                                      r["fsyncs_per_s"]))
    parts.append(line_chart("Log forces (fsyncs) per second against the disk", log_s,
                            hlines=[("measured fsync capacity", float(cap.fsync_per_s))],
                            y_label="fsyncs/s"))
    parts.append(table("log", tables["log"]))
    per_day: dict[str, float] = {}
    for r in tables["errors_daily"]:
        per_day[r["date"]] = per_day.get(r["date"], 0) + r["count"]
    parts.append(bar_chart("AMQ messages per day", sorted(per_day.items())))
    parts.append(table("errors_top", tables["errors_top"]))
    parts.append(table("errors_daily", tables["errors_daily"]))
    parts.append("</body></html>\n")
    return "\n".join(parts)
