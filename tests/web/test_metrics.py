"""/metrics: OpenMetrics text with IBM mq_prometheus's names and labels, read live from the
running queue manager at each scrape, parsed with prometheus_client's own parser."""

from __future__ import annotations

import time

from prometheus_client.openmetrics.parser import text_string_to_metric_families

import mqpy
from tests.support.web import QM


def _samples(text: str) -> dict[tuple[str, tuple], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def _depth(samples: dict, queue: str) -> float | None:
    for (name, labels), value in samples.items():
        if name == "ibmmq_queue_depth" and ("queue", queue) in labels:
            return value
    return None


def test_a_scrape_shows_the_depth_of_a_queue_the_test_filled(web):
    """Given APP.METRICS filled with 7 messages, when Prometheus scrapes /metrics, then the
    text parses and ibmmq_queue_depth{qmgr="QMS",queue="APP.METRICS"} is 7, its MAXDEPTH
    is there, and the queue manager shows running with its uptime."""
    web.site.mqsc("DEFINE QLOCAL(APP.METRICS) MAXDEPTH(100)\n")
    qm = web.site.bindings()
    try:
        for n in range(7):
            qm.put1("APP.METRICS", b"m%d" % n)
    finally:
        qm.disconnect()
    with web.client() as c:
        r = c.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/openmetrics-text")
    samples = _samples(r.text)
    assert _depth(samples, "APP.METRICS") == 7
    labels = (("description", ""), ("qmgr", QM), ("queue", "APP.METRICS"), ("usage", "NORMAL"))
    assert samples[("ibmmq_queue_attribute_max_depth", labels)] == 100
    qmgr = (("platform", "UNIX"), ("qmgr", QM))
    assert samples[("ibmmq_qmgr_status", qmgr)] == 1
    assert samples[("ibmmq_qmgr_uptime", qmgr)] >= 0
    assert samples[("ibmmq_qmgr_channel_initiator_status", qmgr)] == 2


def test_the_depth_is_read_live(web):
    """A second scrape after one more put shows the new depth (no cached export)."""
    web.site.mqsc("DEFINE QLOCAL(APP.LIVE)\n")
    with web.client() as c:
        before = _depth(_samples(c.get("/metrics").text), "APP.LIVE")
        qm = web.site.bindings()
        try:
            qm.put1("APP.LIVE", b"one")
        finally:
            qm.disconnect()
        after = _depth(_samples(c.get("/metrics").text), "APP.LIVE")
    assert (before, after) == (0, 1)


def test_the_grafana_example_uses_only_metrics_the_server_serves(web):
    """examples/grafana's dashboard asks for ibmmq_* names that a scrape has."""
    import json
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    text = (root / "examples" / "grafana" / "mqpy-mqweb-dashboard.json").read_text()
    wanted = set(re.findall(r"ibmmq_[a-z0-9_]+", json.dumps(json.loads(text))))
    with web.client() as c:
        served = {f.name for f in text_string_to_metric_families(c.get("/metrics").text)}
    assert wanted and wanted <= served, wanted - served


def _sample(samples: dict, name: str, queue: str) -> float | None:
    for (n, labels), value in samples.items():
        if n == name and ("queue", queue) in labels:
            return value
    return None


def test_puts_and_gets_are_counted_from_the_resource_statistics_publications(web):
    """Given /metrics scraped once (the web server then subscribes to APP.COUNTED's
    $SYS/.../STATQ/APP.COUNTED/PUT and GET), when 5 messages are put and 2 got, then
    within a few publications ibmmq_queue_mqput_mqput1_count is 5, ibmmq_queue_mqget_count
    2 and ibmmq_queue_mqput_bytes 5 times the message's length, as mq_prometheus names
    them."""
    web.site.mqsc("DEFINE QLOCAL(APP.COUNTED)\n")
    with web.client() as c:
        assert c.get("/metrics").status_code == 200
        time.sleep(1.5)  # the interval in progress when the subscriptions were made
        c.get("/metrics")
        qm = web.site.bindings()
        try:
            for n in range(5):
                qm.put1("APP.COUNTED", b"counted%d" % n)
            q = mqpy.Queue(qm, "APP.COUNTED")
            q.get()
            q.get()
            q.close()
        finally:
            qm.disconnect()
        deadline = time.monotonic() + 15
        while True:
            samples = _samples(c.get("/metrics").text)
            puts = _sample(samples, "ibmmq_queue_mqput_mqput1_count", "APP.COUNTED")
            gets = _sample(samples, "ibmmq_queue_mqget_count", "APP.COUNTED")
            if (puts, gets) == (5, 2) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    assert (puts, gets) == (5, 2)
    assert _sample(samples, "ibmmq_queue_mqput_bytes", "APP.COUNTED") == 5 * len(b"counted0")
