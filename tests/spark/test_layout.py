"""The report page's layout: charts that say when they cannot draw a line, legends that
cover no line, buckets that follow the span, and a page no wider than 1,400 pixels."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from mqpy.spark import html
from mqpy.spark.capacity import Capacity
from mqpy.spark.report import bucket_seconds

T0 = 1764322800.0
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-headless-shell", "chromium-browser",
                                           "google-chrome", "headless_shell") if shutil.which(n)), None)


@pytest.mark.parametrize(("span", "interval", "bucket"), [
    (360, 60, 60),                 # six minutes of one-minute intervals: a point a minute
    (360, 10, 10),                 # six minutes at STATINT 10
    (2 * 86400, 1800, 1800),       # two days at STATINT 1800
    (7 * 86400, 1800, 3 * 3600),   # a week: at most 120 points
    (365 * 86400, 600, 7 * 86400),  # a year: weekly
])
def test_buckets_follow_the_span_of_the_data(span, interval, bucket):
    """Given a span and its statistics interval, then the bucket is the shortest that is no
    shorter than an interval and draws at most 120 points."""
    assert bucket_seconds(span, interval) == bucket


def test_a_chart_with_one_point_says_there_is_not_enough_data():
    """Given a series of one point, then the chart is an explicit 'not enough data' note,
    not a dot on an empty plot."""
    out = html.line_chart("Put rate per 1 h (msgs/s)", {"QM1": [(T0, 5.0)]})
    assert "Not enough data" in out and "<svg" not in out


def test_the_legend_stands_below_the_plot_so_it_covers_no_maxdepth_line():
    """Given a depth chart with a MAXDEPTH line at the top of the plot and two series, then
    every legend entry is below the x axis, and the MAXDEPTH line inside the plot."""
    out = html.line_chart("Depth", {"QM1 APP.REQUEST QMaxDepth": [(T0, 4000), (T0 + 60, 5000)],
                                    "trend (least squares)": [(T0, 4000), (T0 + 60, 5000)]},
                          hlines=[("MAXDEPTH", 5000.0)])
    axis_y = html.H - html.PAD_B
    legend_ys = [float(y) for y in re.findall(r'<text x="[\d.]+" y="([\d.]+)" class="tk lg"',
                                              out)]
    assert len(legend_ys) == 2 and all(y > axis_y + 16 for y in legend_ys)
    (line_y,) = re.findall(r'<line x1="[\d.]+" y1="([\d.]+)"[^>]*stroke-dasharray', out)
    assert html.PAD_T <= float(line_y) < axis_y


def _page(rows: int) -> str:
    q = {c: 123456.789 for c in html.COLUMNS["queues"]}
    queues = [dict(q, queue_manager="QM1", queue=f"APP.A.RATHER.LONG.QUEUE.NAME.{i:04d}",
                   kind="application", attention=4) for i in range(rows)]
    tables = {name: [] for name in html.COLUMNS}
    tables.update(queues=queues, bucket_seconds=[{"seconds": 60}])
    series = {"rates": [], "log_rates": [], "channel_rates": [], "depth": []}
    return html.render(tables, series, Capacity())


def test_the_queue_table_shows_few_columns_in_a_box_that_scrolls():
    """Given many queues, then the page's queue table shows the columns a planner reads
    (the rest are in queues.csv) inside a box that scrolls rather than widen the page."""
    page = _page(3)
    assert len(html.QUEUE_VIEW) <= 11
    table = re.search(r'<div class="tw"><table class="t" data-table="queues">.*?</table>',
                      page, re.S).group(0)
    assert table.count("<th>") == len(html.QUEUE_VIEW)
    assert ".tw{max-width:100%;overflow-x:auto}" in page


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on this machine")
def test_at_1400_pixels_no_element_is_wider_than_the_page(tmp_path):
    """Given the report page in headless Chromium 1,400 pixels wide, then the document is no
    wider than the window."""
    probe = ("<script>document.body.setAttribute('data-sw',"
             "document.documentElement.scrollWidth)</script></body>")
    path = tmp_path / "report.html"
    path.write_text(_page(40).replace("</body>", probe), encoding="utf-8")
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                          "--window-size=1400,900", "--dump-dom", path.as_uri()],
                         capture_output=True, text=True, timeout=60).stdout
    width = int(re.search(r'data-sw="(\d+)"', dom).group(1))
    assert width <= 1400


def test_given_ten_thousand_queues_the_page_lists_those_that_matter_first_and_names_the_csv():
    """Given 20 queue managers with 500 queues each, then the page's queue table holds the
    first PAGE_QUEUES of them (in the report's order: what needs attention first) and says
    how many more are in queues.csv, so the page stays a page."""
    page = _page(10_000)
    table = re.search(r'<table class="t" data-table="queues">.*?</table>', page, re.S).group(0)
    assert table.count("<tr>") == html.PAGE_QUEUES + 1  # the heading's row and the queues
    assert f"{10_000 - html.PAGE_QUEUES:,} more application queues in queues.csv" in page
    assert "more application queues" not in _page(3)
