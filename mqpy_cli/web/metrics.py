"""Prometheus metrics at /metrics, read live from every running queue manager of the
installation at each scrape (PCF to its command server), named and labelled as IBM's
mq_prometheus exporter (mq-metric-samples) names them: ``ibmmq_qmgr_*``, ``ibmmq_queue_*``,
``ibmmq_channel_*`` with labels ``qmgr``, ``queue``, ``channel``, ``type``, ``usage``,
``connname``, ``rqmname``. Every scrape asks for the queues' status (one Inquire Queue Status
of ``*``: the depth, handles, oldest message, uncommitted messages, and the queue file's size
and the most it may grow to, CURFSIZE and CURMAXFS in megabytes as the queue manager gives
them); their attributes (MAXDEPTH, description, usage) are read again only when a queue
is not known yet, the queue manager restarted, or they are older than
``ATTRIBUTES_MAX_AGE``, as mq_prometheus rediscovers queues."""

from __future__ import annotations

import contextlib
import datetime
import threading
import time

import attrs
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from mqpy import CMQC, CMQCFC, config, pcf
from mqpy.command.inquiries import CHS
from mqpy_cli.web import admin, subscriptions
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.mqconn import CommandServer
from mqpy_cli.web.pool import ConnectionPool, qmgr_pid
from mqpy_cli.web.resources import EXPORTED, Monitors, QueueFigures

PLATFORM = "UNIX"
#: seconds queue attributes are used before a scrape reads them again
ATTRIBUTES_MAX_AGE = 60.0


@attrs.define
class QueueAttributes:
    """The local queues' labels and MAXDEPTH as one run of a queue manager last showed
    them: name -> (usage, description, MAXDEPTH)."""

    run_of: str
    read_at: float
    queues: dict[str, tuple[str, str, int]]

    def fresh_for(self, run_of: str, names, max_age: float) -> bool:  # noqa: ANN001
        return (run_of == self.run_of and time.monotonic() - self.read_at < max_age
                and all(n in self.queues for n in names))


def _family(name: str, doc: str, labels: list[str]) -> GaugeMetricFamily:
    return GaugeMetricFamily(f"ibmmq_{name}", doc, labels=labels)


class MQCollector(Collector):
    """One scrape: every running queue manager's figures, as gauges."""

    def __init__(self, data_path: str, pool: ConnectionPool,
                 attributes_max_age: float = ATTRIBUTES_MAX_AGE,
                 monitors: Monitors | None = None) -> None:
        self.data_path = data_path
        self.pool = pool
        self.monitors = monitors
        self.attributes_max_age = attributes_max_age
        self._known: dict[str, QueueAttributes] = {}
        self._lock = threading.Lock()  # scrapes run in worker threads, maybe two at once

    def collect(self):  # noqa: ANN201 - prometheus_client's interface
        q_labels = ["qmgr", "queue", "usage", "description"]
        c_labels = ["qmgr", "channel", "type", "connname", "rqmname"]
        fam = {
            "qmgr_status": _family("qmgr_status", "Queue manager status (1 running)",
                                   ["qmgr", "platform"]),
            "qmgr_uptime": _family("qmgr_uptime", "Seconds since the queue manager started",
                                   ["qmgr", "platform"]),
            "qmgr_connection_count": _family("qmgr_connection_count", "Connections",
                                             ["qmgr", "platform"]),
            "qmgr_command_server_status": _family("qmgr_command_server_status",
                                                  "Command server status (2 running)",
                                                  ["qmgr", "platform"]),
            "qmgr_channel_initiator_status": _family("qmgr_channel_initiator_status",
                                                     "Channel initiator status (2 running)",
                                                     ["qmgr", "platform"]),
            "queue_depth": _family("queue_depth", "Messages on the queue", q_labels),
            "queue_attribute_max_depth": _family("queue_attribute_max_depth", "MAXDEPTH",
                                                 q_labels),
            "queue_oldest_message_age": _family("queue_oldest_message_age",
                                                "Age of the oldest message (seconds)",
                                                q_labels),
            "queue_uncommitted_messages": _family("queue_uncommitted_messages",
                                                  "Uncommitted messages", q_labels),
            "queue_input_handles": _family("queue_input_handles", "Handles open for input",
                                           q_labels),
            "queue_output_handles": _family("queue_output_handles",
                                            "Handles open for output", q_labels),
            "queue_qfile_current_size": _family("queue_qfile_current_size",
                                                "Queue file current size (CURFSIZE, MB)",
                                                q_labels),
            "queue_qfile_max_size": _family("queue_qfile_max_size",
                                            "Queue file maximum size (CURMAXFS, MB)",
                                            q_labels),
            **_pubsub_families(),
            "channel_status": _family("channel_status", "Channel status (MQCHS_*)", c_labels),
            "channel_messages": _family("channel_messages", "Messages sent or received",
                                        c_labels),
            "channel_bytes_sent": _family("channel_bytes_sent", "Bytes sent", c_labels),
            "channel_bytes_rcvd": _family("channel_bytes_rcvd", "Bytes received", c_labels),
            "channel_batches": _family("channel_batches", "Batches", c_labels),
            "channel_indoubt": _family("channel_indoubt", "1 while a batch is in doubt",
                                       c_labels),
        }
        for name in config.list_qmgrs(self.data_path):
            running = admin.qmgr_state(name, self.data_path) == "running"
            fam["qmgr_status"].add_metric([name, PLATFORM], 1 if running else 0)
            if running:
                with contextlib.suppress(RestError):
                    with self.pool.command_server(name) as server:
                        _qmgr(server, name, fam)
                        self._queues(server, name, fam)
                        _channels(server, name, fam)
                        _pubsub(server, name, fam)
        yield from fam.values()

    def _attributes(self, server: CommandServer, name: str,
                    names) -> QueueAttributes:  # noqa: ANN001
        """The queues' attributes, read again unless those known are fresh for ``names``."""
        run_of = qmgr_pid(name, self.data_path)
        with self._lock:
            known = self._known.get(name)
        if known is not None and known.fresh_for(run_of, names, self.attributes_max_age):
            return known
        read_at = time.monotonic()
        listed = admin.get_queues(server, None, attributes="general,storage",
                                  qtype="local")["queue"]
        known = QueueAttributes(run_of, read_at, {
            q["name"]: ("XMITQ" if q.get("general", {}).get("isTransmissionQueue")
                        else "NORMAL", q.get("general", {}).get("description", ""),
                        q.get("storage", {}).get("maximumDepth", 0)) for q in listed})
        with self._lock:
            self._known[name] = known
        return known

    def _queues(self, server: CommandServer, name: str, fam: dict) -> None:
        statuses = admin.queue_status(server, "*")
        statuses.pop(server.reply_q.rstrip(b" \0").decode("latin-1"), None)  # this scrape's own
        known = self._attributes(server, name, statuses)
        figures = {}
        if self.monitors is not None:
            figures = self.monitors.queues(name, known.queues)
            for metric in self.monitors.metric_names(name):
                _published_family(fam, metric)
        for qname, st in sorted(statuses.items()):
            usage, description, max_depth = known.queues.get(qname, ("NORMAL", "", 0))
            labels = [name, qname, usage, description]
            fam["queue_attribute_max_depth"].add_metric(labels, max_depth)
            fam["queue_depth"].add_metric(labels, st.get("CURDEPTH", 0))
            fam["queue_oldest_message_age"].add_metric(labels, max(0, st.get("MSGAGE", 0) or 0))
            fam["queue_uncommitted_messages"].add_metric(labels, st.get("UNCOM", 0))
            fam["queue_input_handles"].add_metric(labels, st.get("IPPROCS", 0))
            fam["queue_output_handles"].add_metric(labels, st.get("OPPROCS", 0))
            for keyword, family in _QFILE:
                if keyword in st:  # (a reply without it: no sample, as mq_prometheus)
                    fam[family].add_metric(labels, max(0, st[keyword]))
            if qname in figures:
                _published(fam, labels, figures[qname])


#: DISPLAY QSTATUS keyword -> its family, as mq_prometheus names them (``qfile_current_size``
#: and ``qfile_max_size``: its ATTR_Q_CURFSIZE and ATTR_Q_CURMAXFSIZE), megabytes
_QFILE = (("CURFSIZE", "queue_qfile_current_size"), ("CURMAXFS", "queue_qfile_max_size"))


def _published(fam: dict, labels: list[str], figures: QueueFigures) -> None:
    """A queue's figures from its resource-statistics publications, as mq_prometheus
    names them (``ibmmq_queue_mqput_mqput1_count``, ``ibmmq_queue_mqget_bytes``: those of
    ``EXPORTED``): totals since the web server began to follow the queue."""
    for metric in EXPORTED:
        if metric in figures.totals:
            _published_family(fam, metric).add_metric(labels, figures.totals[metric])


def _published_family(fam: dict, metric: str) -> GaugeMetricFamily:
    """The family of a metric of the resource-statistics publications, made when first
    needed (each queue manager publishes its own set)."""
    key = f"queue_{metric}"
    if key not in fam:
        fam[key] = _family(key, "Resource statistics: " + metric.replace("_", " "),
                           ["qmgr", "queue", "usage", "description"])
    return fam[key]


def _qmgr(server: CommandServer, name: str, fam: dict) -> None:
    status = admin.qmgr_status(server)
    labels = [name, PLATFORM]
    fam["qmgr_connection_count"].add_metric(labels, status.get("connectionCount", 0))
    svc = {"running": 2, "starting": 1, "stopping": 3, "stopped": 0}
    fam["qmgr_command_server_status"].add_metric(
        labels, svc.get(status.get("commandServerState", ""), 0))
    fam["qmgr_channel_initiator_status"].add_metric(
        labels, svc.get(status.get("channelInitiatorState", ""), 0))
    started = status.get("started")
    if started:
        with contextlib.suppress(ValueError):
            when = datetime.datetime.strptime(started, "%Y-%m-%dT%H:%M:%SZ")
            now = datetime.datetime.now()
            fam["qmgr_uptime"].add_metric(labels, max(0.0, (now - when).total_seconds()))


def _channels(server: CommandServer, name: str, fam: dict) -> None:
    types = {}
    with contextlib.suppress(RestError):
        for msg in server.run(CMQCFC.MQCMD_INQUIRE_CHANNEL,
                              [pcf.CFST(CMQCFC.MQCACH_CHANNEL_NAME, b"*")]):
            cname = admin._text(msg.get(CMQCFC.MQCACH_CHANNEL_NAME))
            types[cname] = msg.get(CMQCFC.MQIACH_CHANNEL_TYPE)
    for cname, row in admin.channel_status(server, "*").items():
        labels = [name, cname, _CHLTYPE.get(types.get(cname), "unknown"),
                  str(row.get("CONNAME", "")), str(row.get("RQMNAME", ""))]
        fam["channel_status"].add_metric(labels, CHS.get(row["STATUS"], 0))
        fam["channel_messages"].add_metric(labels, row.get("MSGS", 0))
        fam["channel_bytes_sent"].add_metric(labels, row.get("BYTSSENT", 0))
        fam["channel_bytes_rcvd"].add_metric(labels, row.get("BYTSRCVD", 0))
        fam["channel_batches"].add_metric(labels, row.get("BATCHES", 0))
        fam["channel_indoubt"].add_metric(labels, 1 if row.get("INDOUBT") == "YES" else 0)


_CHLTYPE = {CMQC.MQCHT_SENDER: "SENDER", CMQC.MQCHT_RECEIVER: "RECEIVER",
            CMQC.MQCHT_SERVER: "SERVER", CMQC.MQCHT_REQUESTER: "REQUESTER",
            CMQC.MQCHT_SVRCONN: "SVRCONN", CMQC.MQCHT_CLNTCONN: "CLNTCONN",
            CMQC.MQCHT_CLUSRCVR: "CLUSRCVR", CMQC.MQCHT_CLUSSDR: "CLUSSDR"}


def _pubsub_families() -> dict[str, GaugeMetricFamily]:
    """mqpy's own per-queue-manager counts (mq_prometheus has none: its topic and
    subscription metrics are per topic and per subscription)."""
    labels = ["qmgr", "platform"]
    return {"subscriptions": GaugeMetricFamily(
                "mqpy_qmgr_subscriptions", "Subscriptions with a name (DISPLAY SUB)", labels=labels),
            "topic_objects": GaugeMetricFamily(
                "mqpy_qmgr_topic_objects", "Topic objects (DISPLAY TOPIC), SYSTEM ones too",
                labels=labels)}


def _pubsub(server: CommandServer, name: str, fam: dict) -> None:
    n_subs, n_topics = subscriptions.counts(server)
    fam["subscriptions"].add_metric([name, PLATFORM], n_subs)
    fam["topic_objects"].add_metric([name, PLATFORM], n_topics)
