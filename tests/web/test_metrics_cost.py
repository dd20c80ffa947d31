"""What a /metrics scrape asks the command server: the queues' status every time, their
attributes (MAXDEPTH, description, usage) only when they may have changed (a queue not
known yet, or attributes older than the refresh interval), as mq_prometheus rediscovers
them."""

from __future__ import annotations

import contextlib

from prometheus_client import CollectorRegistry
from prometheus_client.openmetrics.exposition import generate_latest
from prometheus_client.openmetrics.parser import text_string_to_metric_families

from mqpy import CMQCFC
from mqpy_cli.web.metrics import MQCollector
from mqpy_cli.web.pool import ConnectionPool


class RecordingPool(ConnectionPool):
    """The server's pool, remembering the PCF commands each scrape sends."""

    def __init__(self, data_path: str) -> None:
        super().__init__(data_path)
        self.commands: list[int] = []

    @contextlib.contextmanager
    def command_server(self, qmgr, user=None, password=None):  # noqa: ANN001, ANN201
        with super().command_server(qmgr, user, password) as server:
            ask = server.ask

            def recording(command, params):  # noqa: ANN001, ANN202
                self.commands.append(command)
                return ask(command, params)

            server.ask = recording
            try:
                yield server
            finally:
                server.ask = ask


def _scrape(registry: CollectorRegistry) -> dict[tuple[str, str], float]:
    text = generate_latest(registry).decode()
    return {(s.name, s.labels.get("queue", "")): s.value
            for f in text_string_to_metric_families(text) for s in f.samples}


def _collector(web, refresh: float = 60.0) -> tuple[RecordingPool, CollectorRegistry]:  # noqa: ANN001
    pool = RecordingPool(web.root)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(MQCollector(web.root, pool, attributes_max_age=refresh))
    return pool, registry


def test_a_second_scrape_asks_for_queue_status_but_not_attributes_again(web):
    """Given a scrape that read every queue's attributes, when Prometheus scrapes again
    within the refresh interval, then the command server is asked for queue status only
    (no Inquire Queue: 1,000 queues are 1,000 replies fewer) and the figures are the same
    shape."""
    web.site.mqsc("DEFINE QLOCAL(APP.COST) MAXDEPTH(321)\n")
    pool, registry = _collector(web)
    try:
        first = _scrape(registry)
        pool.commands.clear()
        second = _scrape(registry)
    finally:
        pool.close()
    assert CMQCFC.MQCMD_INQUIRE_Q not in pool.commands
    assert CMQCFC.MQCMD_INQUIRE_Q_STATUS in pool.commands
    assert second[("ibmmq_queue_attribute_max_depth", "APP.COST")] == 321
    assert set(first) == set(second)


def test_a_queue_defined_after_a_scrape_shows_with_its_attributes_at_the_next(web):
    """Given a scrape, when a queue is defined, then the next scrape (within the refresh
    interval) shows it with its MAXDEPTH: a queue not known yet makes the attributes read
    again."""
    pool, registry = _collector(web)
    try:
        _scrape(registry)
        web.site.mqsc("DEFINE QLOCAL(APP.COST.NEW) MAXDEPTH(77)\n")
        after = _scrape(registry)
    finally:
        pool.close()
    assert after[("ibmmq_queue_attribute_max_depth", "APP.COST.NEW")] == 77


def test_an_altered_maxdepth_shows_once_the_refresh_interval_passed(web):
    """Given attributes at most 0 s old (refresh interval 0), when MAXDEPTH is altered
    between scrapes, then the next scrape shows the new MAXDEPTH; a deleted queue is gone
    from it."""
    web.site.mqsc("DEFINE QLOCAL(APP.COST.ALTER) MAXDEPTH(10)\nDEFINE QLOCAL(APP.COST.GONE)\n")
    pool, registry = _collector(web, refresh=0.0)
    try:
        before = _scrape(registry)
        web.site.mqsc("ALTER QLOCAL(APP.COST.ALTER) MAXDEPTH(20)\nDELETE QLOCAL(APP.COST.GONE)\n")
        after = _scrape(registry)
    finally:
        pool.close()
    assert before[("ibmmq_queue_attribute_max_depth", "APP.COST.ALTER")] == 10
    assert after[("ibmmq_queue_attribute_max_depth", "APP.COST.ALTER")] == 20
    assert ("ibmmq_queue_depth", "APP.COST.GONE") in before
    assert ("ibmmq_queue_depth", "APP.COST.GONE") not in after
