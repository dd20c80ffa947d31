"""The web server as a monitor of IBM's resource statistics, as mq_prometheus is one: per
queue manager a connection of its own (kept while the queue manager runs: a non-durable
subscription lives as long as its connection), a temporary dynamic queue the publications
arrive on, and non-durable subscriptions to each local queue's
``$SYS/MQ/INFO/QMGR/<qmgr>/Monitor/STATQ/<queue>/PUT`` and ``.../GET``. What to subscribe to
is discovered as amqsrua discovers it: the classes, then STATQ's types, then each type's
elements (their data types, descriptions and the data topic), all retained publications.

The publications are read when asked (a scrape of /metrics, the console's rates): each
DELTA element adds to its total (mq_prometheus's counters), any other one is its latest
value; the latest publication of each queue gives the rates (its count over its
interval). Metric names are mq_prometheus's, made from the element descriptions.
"""

from __future__ import annotations

import contextlib
import re
import struct
import threading
import time
from collections.abc import Iterable

import attrs

import mqpy
from mqpy import CMQC, CMQCFC, pcf
from mqpy.monitor.publications import Reading, decoded, read_data
from mqpy.structs.pubsubstructs import SD
from mqpy.structs.tables import GMO, MD, OD
from mqpy_cli.web.errors import RestError
from mqpy_cli.web.mqconn import REPLY_MODEL, connect
from mqpy_cli.web.pool import GONE, qmgr_pid

#: the per-queue types read (IBM's STATQ also has OPENCLOSE, INQSET, GENERAL)
MONITORED_TYPES = ("PUT", "GET")
#: queues not monitored: the web server's own reply queues, subscriptions' managed queues
UNMONITORED = ("MQWEB.", "SYSTEM.MANAGED.")
#: how long a retained metadata publication may take to arrive (ms)
METADATA_WAIT = 5000
#: seconds before a queue manager that could not be monitored is tried again (same run)
RETRY_AFTER = 60.0
#: mq_prometheus's names where its heuristic does not give them; None: not exported here
#: (the depth comes from DISPLAY QSTATUS as before)
_NAMES: dict[str, str | None] = {"messages_expired": "expired_messages",
                                  "average_queue_time": "average_queue_time_seconds",
                                  "queue_depth": None}
PUTS, GETS = "mqput_mqput1_count", "mqget_count"
#: the figures /metrics gives per queue: a sample a queue each, and a scrape of a thousand
#: queues writes every one of them (mq_prometheus's metric filter, set to the put and get
#: counts and bytes); the others are read, and given by the console's API
EXPORTED = (PUTS, "mqput_bytes", GETS, "mqget_bytes")


def metric_name(description: str) -> str | None:
    """mq_prometheus's metric name (after ``ibmmq_queue_``) of an element's description:
    lower case, words joined by ``_``, ``byte count`` as ``bytes``."""
    name = description.strip().lower().replace(" ", "_")
    if name in _NAMES:
        return _NAMES[name]
    name = re.sub(r"[-/]", "_", name.replace("_-_", "_")).replace("byte_count", "bytes")
    return re.sub("_+", "_", name)


def _text(value: object) -> str:
    return value.decode("utf-8", "replace").rstrip(" \0") if isinstance(value, bytes) \
        else str(value)


@attrs.define
class QueueFigures:
    """One queue's figures: ``totals`` (DELTA elements summed, others their latest value),
    the latest publication's values and the seconds it covered."""

    totals: dict[str, float] = attrs.Factory(dict)
    last: dict[str, float] = attrs.Factory(dict)
    interval: float = 0.0

    def rate(self, metric: str) -> float | None:
        """Per second over the latest publication's interval (None before one came)."""
        if not self.interval or metric not in self.last:
            return None
        return self.last[metric] / self.interval


@attrs.define
class ElementInfo:
    datatype: int
    metric: str | None


class Monitor:
    """One queue manager's resource-statistics subscriptions and figures."""

    def __init__(self, qmgr: str, data_path: str) -> None:
        self.qmgr, self.run_of = qmgr, qmgr_pid(qmgr, data_path)
        self.lock = threading.Lock()
        self.qm = connect(qmgr, data_path)
        od = OD(ObjectName=REPLY_MODEL.encode(), DynamicQName=b"MQWEB.MONITOR.*")
        self.queue = mqpy.Queue(self.qm, od, CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_READ_AHEAD)
        #: (class index, type index) -> element index -> its data type and metric name
        self.elements: dict[tuple[int, int], dict[int, ElementInfo]] = {}
        self.patterns: list[str] = []  #: the data topics, ``%s`` for the queue
        self.subs: dict[str, list[mqpy.Subscription]] = {}
        self.figures: dict[str, QueueFigures] = {}
        self._discover()

    def _subscribe(self, topic: str) -> mqpy.Subscription:
        sd = SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_FAIL_IF_QUIESCING)
        sd.set_vs("ObjectString", topic)
        sub = mqpy.Subscription(self.qm)
        sub.sub(sub_desc=sd, sub_queue=self.queue)
        return sub

    def _metadata(self, topic: str) -> pcf.PCFMessage:
        """The retained publication of a metadata topic."""
        sub = self._subscribe(topic)
        try:
            gmo = GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                      WaitInterval=METADATA_WAIT)
            return pcf.parse(self.queue.get(None, MD(), gmo))
        finally:
            sub.close()

    def _discover(self) -> None:
        classes = self._metadata(f"$SYS/MQ/INFO/QMGR/{self.qmgr}/Monitor/METADATA/CLASSES")
        statq = next(g for g in classes.groups(CMQCFC.MQGACF_MONITOR_CLASS)
                     if _text(g.get(CMQCFC.MQCAMO_MONITOR_CLASS)) == "STATQ")
        class_index = statq.get(CMQCFC.MQIAMO_MONITOR_CLASS)
        types = self._metadata(_text(statq.get(CMQC.MQCA_TOPIC_STRING)))
        for group in types.groups(CMQCFC.MQGACF_MONITOR_TYPE):
            if _text(group.get(CMQCFC.MQCAMO_MONITOR_TYPE)) not in MONITORED_TYPES:
                continue
            elements = self._metadata(_text(group.get(CMQC.MQCA_TOPIC_STRING)))
            self.patterns.append(_text(elements.get(CMQC.MQCA_TOPIC_STRING)))
            self.elements[(class_index, group.get(CMQCFC.MQIAMO_MONITOR_TYPE))] = {
                e.get(CMQCFC.MQIAMO_MONITOR_ELEMENT): ElementInfo(
                    e.get(CMQCFC.MQIAMO_MONITOR_DATATYPE),
                    metric_name(_text(e.get(CMQCFC.MQCAMO_MONITOR_DESC))))
                for e in elements.groups(CMQCFC.MQGACF_MONITOR_ELEMENT)}

    def follow(self, queues: Iterable[str]) -> None:
        """Subscriptions for exactly the queues named (those not to be monitored left
        out): new ones made, those of queues no longer there ended."""
        wanted = {q for q in queues if not q.startswith(UNMONITORED)}
        for gone in set(self.subs) - wanted:
            for sub in self.subs.pop(gone):
                with contextlib.suppress(mqpy.MQMIError, mqpy.PYIFError):
                    sub.close()
            self.figures.pop(gone, None)
        for name in sorted(wanted - set(self.subs)):
            level = name.replace("/", "&")
            self.subs[name] = [self._subscribe(p.replace("%s", level)) for p in self.patterns]

    def read(self) -> None:
        """Every publication that arrived since the last read, into the figures."""
        gmo = GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT)
        while True:
            try:
                data = self.queue.get(None, MD(), gmo)
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return
                raise
            try:
                self._take(read_data(data))
            except (ValueError, struct.error):
                continue  # not a publication of resource statistics: passed over

    def _take(self, reading: Reading) -> None:
        elements = self.elements.get((reading.cls, reading.typ))
        queue = reading.queue
        if elements is None or queue is None or queue not in self.subs:
            return
        figures = self.figures.setdefault(queue, QueueFigures())
        figures.interval = reading.interval
        for index, raw in reading.values.items():
            info = elements.get(index)
            if info is None or info.metric is None:
                continue
            value = max(0.0, decoded(info.datatype, raw))
            figures.last[info.metric] = value
            if info.datatype == CMQCFC.MQIAMO_MONITOR_DELTA:
                figures.totals[info.metric] = figures.totals.get(info.metric, 0.0) + value
            else:
                figures.totals[info.metric] = value

    def close(self) -> None:
        with contextlib.suppress(mqpy.MQMIError):
            self.qm.disconnect()


class Monitors:
    """The installation's monitors, one per running queue manager, made when first asked
    and made again after a restart of their queue manager or a lost connection."""

    def __init__(self, data_path: str) -> None:
        self.data_path = data_path
        self._monitors: dict[str, Monitor] = {}
        #: qmgr -> (the run that could not be monitored, when it was tried)
        self._failed: dict[str, tuple[str, float]] = {}
        self._lock = threading.Lock()

    def _monitor(self, qmgr: str) -> Monitor | None:
        with self._lock:
            found = self._monitors.get(qmgr)
            if found is not None and found.run_of == qmgr_pid(qmgr, self.data_path):
                return found
            self._monitors.pop(qmgr, None)
        if found is not None:
            found.close()
        run_of = qmgr_pid(qmgr, self.data_path)
        failed = self._failed.get(qmgr)
        if failed is not None and failed[0] == run_of \
                and time.monotonic() - failed[1] < RETRY_AFTER:
            return None
        try:
            made = Monitor(qmgr, self.data_path)
        except (RestError, mqpy.MQMIError, StopIteration):
            # not running, or it publishes no resource statistics: not asked again at once
            self._failed[qmgr] = (run_of, time.monotonic())
            return None
        with self._lock:
            self._monitors[qmgr] = made
        return made

    def queues(self, qmgr: str, names: Iterable[str] | None = None) -> dict[str, QueueFigures]:
        """The figures of ``qmgr``'s queues, read now; with ``names``, the queues followed
        become those. Empty when the queue manager cannot be monitored."""
        monitor = self._monitor(qmgr)
        if monitor is None:
            return {}
        try:
            with monitor.lock:
                if names is not None:
                    monitor.follow(names)
                monitor.read()
                return dict(monitor.figures)
        except mqpy.MQMIError as e:
            if e.reason in GONE:
                with self._lock:
                    if self._monitors.get(qmgr) is monitor:
                        del self._monitors[qmgr]
                monitor.close()
            return {}

    def metric_names(self, qmgr: str) -> list[str]:
        """The metric names of :data:`EXPORTED` that ``qmgr``'s per-queue publications give
        (none if it is not monitored yet)."""
        with self._lock:
            monitor = self._monitors.get(qmgr)
        if monitor is None:
            return []
        return sorted({e.metric for elements in monitor.elements.values()
                       for e in elements.values() if e.metric in EXPORTED})

    def close(self) -> None:
        with self._lock:
            monitors, self._monitors = list(self._monitors.values()), {}
        for m in monitors:
            m.close()
