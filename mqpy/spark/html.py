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

from mqpy.spark import attention
from mqpy.spark.capacity import NOT_MEASURED

COLUMNS: dict[str, list[str]] = {
    "queues": ["queue_manager", "queue", "kind", "intervals", "peak_put_rate", "p95_put_rate",
               "peak_get_rate", "p95_get_rate", "depth_hwm", "maxdepth", "depth_pct",
               "puts_failed", "avg_time_on_q_us", "depth_slope_per_h", "depth_trend_now",
               "hours_to_maxdepth", "days_to_maxdepth"],
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
    "errors_top": ["queue_manager", "rank", "amq_id", "severity", "count", "text"],
    "info_top": ["queue_manager", "rank", "amq_id", "count", "text"],
    "errors_over_time": ["t", "severity", "amq_id", "count", "text"],
}
#: the queue columns shown on the page (all of COLUMNS["queues"] are in queues.csv)
QUEUE_VIEW = ["queue_manager", "queue", "depth_hwm", "maxdepth", "depth_pct", "puts_failed",
              "peak_put_rate", "peak_get_rate", "avg_time_on_q_us", "depth_slope_per_h",
              "hours_to_maxdepth"]

TITLES = {
    "queues": "Queues: rates, depth and time until MAXDEPTH",
    "queues-application": "Application queues, those that need attention first",
    "queues-system": "SYSTEM and temporary dynamic queues",
    "channels": "Channels: throughput, batch fill and retries",
    "call_mix": "Queue managers: MQI call mix",
    "log": "Queue managers: log, checkpoints and storage",
    "headroom": "Headroom: the busiest hour against measured sustainable rates",
    "errors_top": "Most frequent warnings and errors",
    "info_top": "Most frequent informational messages",
    "errors_over_time": "AMQ messages over time, by severity",
}

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f"]
W, H, PAD_L, PAD_B, PAD_T, PAD_R = 720, 260, 64, 40, 28, 16
LEGEND_ROW = 14


def _fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.2f}"
    return str(v)


def _cell(c: str, v: Any) -> str:
    cls = ' class="txt"' if c == "text" else ""
    return f"<td{cls}>{html.escape(_fmt(v))}</td>"


def table(name: str, rows: Sequence[dict[str, Any]], *, ident: str | None = None,
          columns: Sequence[str] | None = None, more: str = "") -> str:
    """A table in a section of its own, inside a box that scrolls sideways on a narrow page;
    ``more``: a line under it saying what the CSV holds beyond it."""
    ident = ident or name
    cols = list(columns or COLUMNS[name])
    head = "".join(f"<th>{html.escape(c.replace('_', ' '))}</th>" for c in cols)
    body = "".join("<tr>" + "".join(_cell(c, r.get(c)) for c in cols) + "</tr>" for r in rows)
    if not rows:
        body = f'<tr><td colspan="{len(cols)}">no data</td></tr>'
    return (f'<section id="{ident}"><h2>{html.escape(TITLES[ident])}</h2>\n'
            f'<div class="tw"><table class="t" data-table="{name}"><thead><tr>{head}</tr>'
            f"</thead><tbody>{body}</tbody></table></div>\n"
            + (f"<p>{html.escape(more)}</p>\n" if more else "")
            + f'<p class="csv">CSV: {name}.csv</p></section>\n')


def _scale(lo: float, hi: float, a: float, b: float):
    span = (hi - lo) or 1.0
    return lambda v: a + (v - lo) / span * (b - a)


def bucket_label(seconds: int) -> str:
    """10 s, 5 min, 3 h, 1 day, 1 week."""
    for unit, n in (("week", 7 * 86400), ("day", 86400), ("h", 3600), ("min", 60)):
        if seconds >= n and seconds % n == 0:
            return f"{seconds // n} {unit}"
    return f"{seconds} s"


def time_label(ts: float, span: float = 86400.0) -> str:
    """A UTC time, as precise as the chart's span needs (span 0: date and time in full)."""
    fmt = ("%Y-%m-%d %H:%M:%S" if span <= 0 else "%H:%M:%S" if span < 3600
           else "%m-%d %H:%M" if span < 30 * 86400 else "%Y-%m-%d")
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).strftime(fmt)


def not_enough(title: str, why: str) -> str:
    return (f'<div class="chart"><h3>{html.escape(title)}</h3>'
            f'<p class="nodata">Not enough data: {html.escape(why)}</p></div>')


def line_chart(title: str, series: dict[str, list[tuple[float, float]]], *,
               hlines: Sequence[tuple[str, float]] = (), y_label: str = "") -> str:
    """An SVG line chart of time series (x: epoch seconds), with optional horizontal limits.
    The legend stands below the plot, so it never covers a line; a chart whose series have
    fewer than two points says so instead of drawing a dot."""
    if max((len(s) for s in series.values()), default=0) < 2:
        n = max((len(s) for s in series.values()), default=0)
        return not_enough(title, f"{n} time bucket(s) in the data; a line needs two.")
    pts = [p for s in series.values() for p in s]
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts] + [v for _, v in hlines] + [0.0]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys) * 1.05 or 1.0
    sx = _scale(x0, x1, PAD_L, W - PAD_R)
    sy = _scale(y0, y1, H - PAD_B, PAD_T)
    legend = list(series)
    height = H + LEGEND_ROW * len(legend)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" '
           f'viewBox="0 0 {W} {height}" role="img" aria-label="{html.escape(title)}">',
           f'<text x="{W / 2}" y="16" text-anchor="middle" class="ct">{html.escape(title)}</text>',
           f'<line x1="{PAD_L}" y1="{H - PAD_B}" x2="{W - PAD_R}" y2="{H - PAD_B}" class="ax"/>',
           f'<line x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{H - PAD_B}" class="ax"/>']
    for i in range(5):
        v = y0 + (y1 - y0) * i / 4
        out.append(f'<text x="{PAD_L - 4}" y="{sy(v) + 4:.1f}" text-anchor="end" '
                   f'class="tk">{html.escape(_fmt(v))}</text>')
        xv = x0 + (x1 - x0) * i / 4
        anchor = "end" if i == 4 else "middle"  # the last label ends at the plot's edge
        out.append(f'<text x="{sx(xv):.1f}" y="{H - PAD_B + 16}" text-anchor="{anchor}" '
                   f'class="tk">{time_label(xv, x1 - x0)}</text>')
    if y_label:
        out.append(f'<text x="12" y="{H / 2}" transform="rotate(-90 12 {H / 2})" '
                   f'text-anchor="middle" class="tk">{html.escape(y_label)}</text>')
    for name, v in hlines:
        out.append(f'<line x1="{PAD_L}" y1="{sy(v):.1f}" x2="{W - PAD_R}" y2="{sy(v):.1f}" '
                   f'stroke="#555" stroke-dasharray="4 3"/><text x="{PAD_L + 4}" '
                   f'y="{sy(v) - 3:.1f}" class="tk">{html.escape(name)} {_fmt(v)}</text>')
    for n, (name, s) in enumerate(series.items()):
        color = PALETTE[n % len(PALETTE)]
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in sorted(s))
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5" points="{path}">'
                   f"<title>{html.escape(name)}</title></polyline>")
        y = H + LEGEND_ROW * n - 6
        out.append(f'<line x1="{PAD_L}" y1="{y - 4}" x2="{PAD_L + 16}" y2="{y - 4}" '
                   f'stroke="{color}" stroke-width="2" class="lg"/><text x="{PAD_L + 22}" '
                   f'y="{y}" class="tk lg">{html.escape(name)}</text>')
    out.append("</svg>")
    return '<div class="chart">' + "\n".join(out) + "</div>"


def bar_chart(title: str, bars: Sequence[tuple[str, float]]) -> str:
    """A horizontal SVG bar chart."""
    if not bars:
        return not_enough(title, "no records of this kind.")
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
    return '<div class="chart">' + "\n".join(out) + "</div>"


_CSS = """body{font-family:sans-serif;margin:24px;color:#222;max-width:1352px}
table.t{border-collapse:collapse;font-size:12px;margin-bottom:4px}
table.t td,table.t th{border:1px solid #ccc;padding:2px 6px;text-align:right}
table.t th{background:#eee;white-space:normal;max-width:7em}
table.t td:first-child,table.t td:nth-child(2),td.txt{text-align:left}
td.txt{max-width:40em;overflow-wrap:anywhere}.tw{max-width:100%;overflow-x:auto}
.ct{font-size:13px;font-weight:bold}.tk{font-size:10px}.ax{stroke:#333}
p.csv{font-size:11px;color:#666}svg{display:block;margin:12px 0;max-width:100%;height:auto}
p.nodata{color:#a40;font-style:italic}section#attention li{margin:4px 0}
@media print{.tw{overflow:visible}body{margin:0;max-width:none}section{break-inside:avoid}}"""


def _section(ident: str, *parts: str) -> str:
    return f'<section id="{ident}">' + "\n".join(parts) + "</section>"


def _attention(tables: dict[str, list[dict[str, Any]]]) -> str:
    said = attention.findings(tables)
    items = "".join(f"<li>{html.escape(s)}</li>" for s in said) or (
        "<li>Nothing needs attention: no queue reached or approached MAXDEPTH, no put failed, "
        "no warning or error was logged.</li>")
    return _section("attention", "<h2>What needs attention</h2>", f"<ul>{items}</ul>")


def _capacity_line(cap: Any) -> str:
    if cap.source == NOT_MEASURED:
        return ("<p>Sustainable rates: not measured, so headroom unknown (run <code>make "
                "bench</code> and give <code>--bench</code>, or the rate options).</p>")
    known = [f"{what} {_fmt(v)}{unit}" for what, v, unit in (
        ("fsync", cap.fsync_per_s, "/s"), ("persistent", cap.persistent_msgs_per_s, " msgs/s"),
        ("non-persistent", cap.nonpersistent_msgs_per_s, " msgs/s")) if v]
    return (f"<p>Sustainable rates ({html.escape(cap.source)}): "
            f"{html.escape(', '.join(known))}; what was not measured is shown as unknown.</p>")


def _by(rows: Sequence[dict[str, Any]], key: Any, y: str) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {}
    for r in rows:
        out.setdefault(key(r), []).append((r["t"], r[y] or 0.0))
    return out


def _depth(d: dict[str, Any]) -> str:
    pts = d["points"]
    s = {f"{d['queue_manager']} {d['queue']} QMaxDepth": pts}
    if len(pts) > 1 and d["slope_per_h"] is not None:
        mt = sum(p[0] for p in pts) / len(pts)
        md = sum(p[1] for p in pts) / len(pts)
        s["trend (least squares)"] = [(t, max(0.0, md + d["slope_per_h"] * (t - mt) / 3600))
                                      for t in (pts[0][0], pts[-1][0])]
    return line_chart(f"Depth of {d['queue']} against MAXDEPTH", s,
                      hlines=[("MAXDEPTH", float(d["maxdepth"]))], y_label="messages")


def _errors_chart(rows: Sequence[dict[str, Any]], bucket: str) -> str:
    per: dict[str, dict[float, float]] = {}
    for r in rows:
        per.setdefault(r["severity"], {}).setdefault(r["t"], 0.0)
        per[r["severity"]][r["t"]] += r["count"]
    times = sorted({r["t"] for r in rows})
    series = {sev: [(t, counts.get(t, 0.0)) for t in times] for sev, counts in per.items()}
    return line_chart(f"AMQ messages per {bucket}, by severity", series, y_label="messages")


def _channel_charts(rows: Sequence[dict[str, Any]], bucket: str) -> list[str]:
    """Each channel's throughput and batch fill over time, and its put retries."""
    def name(r: dict[str, Any]) -> str:
        return f"{r['queue_manager']} {r['channel']}"

    return [line_chart(f"Channel messages per second, per {bucket}",
                       _by(rows, name, "msgs_per_s"), y_label="msgs/s"),
            line_chart(f"Batch fill (achieved batch size, % of BATCHSZ), per {bucket}",
                       _by(rows, name, "batch_fill_pct"), hlines=[("BATCHSZ", 100.0)],
                       y_label="%"),
            line_chart(f"Message retries (MRRTY) per {bucket}", _by(rows, name, "put_retries"),
                       y_label="retries")]


#: queues the page lists of each kind (in the report's order, what needs attention first);
#: queues.csv holds them all
PAGE_QUEUES = 200


def _queue_table(queues: Sequence[dict[str, Any]], ident: str, what: str) -> str:
    rest = len(queues) - PAGE_QUEUES
    return table("queues", queues[:PAGE_QUEUES], ident=ident, columns=QUEUE_VIEW,
                 more=f"{rest:,} more {what} in queues.csv." if rest > 0 else "")


def render(tables: dict[str, list[dict[str, Any]]], series: dict[str, Any], cap: Any) -> str:
    bucket = bucket_label(tables["bucket_seconds"][0]["seconds"])
    app = [q for q in tables["queues"] if q["kind"] == "application"]
    other = [q for q in tables["queues"] if q["kind"] != "application"]
    totals: dict[str, float] = {}
    for r in tables["call_mix"]:
        totals[r["call"]] = totals.get(r["call"], 0) + (r["count"] or 0)
    fsync = [("measured fsync capacity", float(cap.fsync_per_s))] if cap.fsync_per_s else []
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        "<title>mqpy capacity report</title>", f"<style>{_CSS}</style></head><body>",
        "<h1>mqpy capacity report</h1>", _attention(tables), _capacity_line(cap),
        _section("rates", line_chart(f"Put rate per {bucket} (msgs/s)", _by(
            series["rates"], lambda r: r["queue_manager"], "put_rate"), y_label="msgs/s")),
        table("headroom", tables["headroom"]),
        _queue_table(app, "queues-application", "application queues"),
        _section("depth", *map(_depth, series["depth"])),
        _queue_table(other, "queues-system", "system and temporary dynamic queues"),
        _section("channel-charts", *_channel_charts(series["channel_rates"], bucket)),
        table("channels", tables["channels"]),
        _section("calls", bar_chart("MQI calls (all queue managers)",
                                    sorted(totals.items(), key=lambda kv: -kv[1]))),
        table("call_mix", tables["call_mix"]),
        _section("log-chart", line_chart(
            f"Log forces (fsyncs) per second, per {bucket}",
            _by(series["log_rates"], lambda r: f"{r['queue_manager']} fsyncs/s", "fsyncs_per_s"),
            hlines=fsync, y_label="fsyncs/s")),
        _section("checkpoint-chart", line_chart(
            f"Checkpoints per {bucket}",
            _by(series["log_rates"], lambda r: f"{r['queue_manager']} checkpoints",
                "checkpoints"), y_label="checkpoints")),
        table("log", tables["log"]),
        _section("errors-chart", _errors_chart(tables["errors_over_time"], bucket)),
        table("errors_top", tables["errors_top"]),
        table("info_top", tables["info_top"]),
        table("errors_over_time", [dict(r, t=time_label(r["t"], 0)) for r in
                                   tables["errors_over_time"]]),
        "</body></html>\n"]
    return "\n".join(parts)
