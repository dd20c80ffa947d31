"""A monitor subscribes to the queue manager's system topics as amqsrua does (the metadata,
then a queue's STATQ/<queue>/PUT) and reads the queue's puts from the publications; a
subscription to ``#`` or to a wildcard queue gets none; without subscribers nothing is
published."""

from __future__ import annotations

import time

import mqpy
from mqpy import CMQC, CMQCFC, inprocess, pcf
from mqpy.monitor import topics
from mqpy.monitor.elements import CPU, DISK, STATMQI, STATQ
from mqpy.monitor.publisher import Publisher
from tests.support.site import QM as SITE_QM
from tests.support.site import Site

QM = "MONQM"
NOWAIT = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_WAIT)


def _subscribe(qm, topic: str) -> mqpy.Subscription:  # noqa: ANN001
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_NON_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    sub = mqpy.Subscription(qm)
    sub.sub(sub_desc=sd)
    return sub


def _metadata(publisher: Publisher, sub: mqpy.Subscription) -> pcf.PCFMessage:
    """The metadata publication a new subscription is sent (as the daemon's task sends it
    within a fifth of a second)."""
    assert publisher.serve_metadata() == 1
    assert publisher.serve_metadata() == 0  # once
    (msg,) = _messages(sub)
    return msg


def _messages(sub: mqpy.Subscription) -> list[pcf.PCFMessage]:
    out = []
    while True:
        try:
            out.append(pcf.parse(sub.get(None, mqpy.MD(), NOWAIT)))
        except mqpy.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out


def _started(tmp_path):  # noqa: ANN001, ANN202
    root = str(tmp_path)
    qm = mqpy.embedded(QM, data_path=root)
    eng = inprocess.running(QM, root)
    eng.define("QLOCAL", "APP.ORDERS", {})
    return root, qm, Publisher(eng)


def test_given_an_amqsrua_subscription_when_messages_are_put_then_the_put_count_is_published(
        tmp_path):
    root, qm, publisher = _started(tmp_path)
    try:
        classes = _metadata(publisher, _subscribe(qm, topics.classes_topic(QM)))
        types_topic = next(g.get(CMQC.MQCA_TOPIC_STRING) for g in
                           classes.groups(CMQCFC.MQGACF_MONITOR_CLASS)
                           if g.get(CMQCFC.MQCAMO_MONITOR_CLASS).rstrip() == b"STATQ")
        types = _metadata(publisher, _subscribe(qm, types_topic.decode().rstrip()))
        put_elements = next(g.get(CMQC.MQCA_TOPIC_STRING) for g in
                            types.groups(CMQCFC.MQGACF_MONITOR_TYPE)
                            if g.get(CMQCFC.MQCAMO_MONITOR_TYPE).rstrip() == b"PUT")
        elements = _metadata(publisher, _subscribe(qm, put_elements.decode().rstrip()))
        pattern = elements.get(CMQC.MQCA_TOPIC_STRING).decode().rstrip()
        data = _subscribe(qm, pattern.replace("%s", "APP.ORDERS"))
        assert publisher.tick() == 1
        _messages(data)  # the interval before the puts
        for _ in range(3):
            qm.put1("APP.ORDERS", b"order")
        assert publisher.tick() == 1
        (pub,) = _messages(data)
        assert pub.get(CMQC.MQCA_Q_NAME).rstrip() == b"APP.ORDERS"
        assert pub.get(STATQ.type_named("PUT").elements[0].index) == 3  # MQPUT/MQPUT1 count
        assert pub.get(STATQ.type_named("PUT").elements[1].index) == 15  # MQPUT byte count
    finally:
        mqpy.stop_embedded(QM, data_path=root)


def test_given_wildcard_subscriptions_when_an_interval_ends_then_nothing_is_published(tmp_path):
    """'#' gets neither metadata nor data (the $SYS/MQ branch is blocked to wildcards above
    it), nor does a wildcard in place of the queue."""
    root, qm, publisher = _started(tmp_path)
    try:
        every = _subscribe(qm, "#")
        queues = _subscribe(qm, topics.monitor_prefix(QM) + "STATQ/+/PUT")
        qm.put1("APP.ORDERS", b"order")
        assert publisher.serve_metadata() == 0
        assert publisher.tick() == 0
        assert _messages(queues) == []
        assert _messages(every) == []
    finally:
        mqpy.stop_embedded(QM, data_path=root)


def test_given_strmqm_when_a_monitor_subscribes_over_bindings_then_puts_are_published_each_interval(
        tmp_path):
    """The daemon's own publisher, every MQPY_MONINT seconds (1 here, IBM's 10 by
    default)."""
    site = Site(str(tmp_path))
    site.inst.env["MQPY_MONINT"] = "1"
    site.start()
    try:
        site.mqsc("DEFINE QLOCAL(APP.ORDERS)\n")
        qm = site.bindings()
        data = _subscribe(qm, f"$SYS/MQ/INFO/QMGR/{SITE_QM}/Monitor/STATQ/APP.ORDERS/PUT")
        gets = _subscribe(qm, f"$SYS/MQ/INFO/QMGR/{SITE_QM}/Monitor/STATQ/APP.ORDERS/GET")
        for _ in range(4):
            qm.put1("APP.ORDERS", b"order")
        seen = 0
        deadline = time.monotonic() + 15
        while seen < 4 and time.monotonic() < deadline:
            time.sleep(0.5)
            seen += sum(m.get(0) for m in _messages(data))
        assert seen == 4
        assert any(m.get(STATQ.type_named("GET").elements[-1].index) == 4  # Queue depth
                   for m in _messages(gets))
        qm.disconnect()
    finally:
        site.stop()


def test_given_qmgr_wide_subscriptions_when_a_persistent_message_is_put_then_mqi_and_log_figures_show_it(
        tmp_path):
    """STATMQI/PUT counts the persistent MQPUT1, DISK/Log the recovery log bytes it wrote,
    CPU/QMgrSummary the process's memory: the queue manager's own figures, no queue named."""
    root, qm, publisher = _started(tmp_path)
    prefix = topics.monitor_prefix(QM)
    try:
        mqi = _subscribe(qm, prefix + "STATMQI/PUT")
        log = _subscribe(qm, prefix + "DISK/Log")
        cpu = _subscribe(qm, prefix + "CPU/QMgrSummary")
        publisher.tick()
        for sub in (mqi, log, cpu):
            _messages(sub)
        qm.put1("APP.ORDERS", b"kept", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
        assert publisher.tick() == 3
        (put,) = _messages(mqi)
        by_desc = {e.description: put.get(e.index) for e in STATMQI.type_named("PUT").elements}
        assert by_desc["Persistent message MQPUT1 count"] == 1
        assert by_desc["Interval total MQPUT/MQPUT1 count"] >= 1
        (written,) = _messages(log)
        log_elements = {e.description: written.get(e.index)
                        for e in DISK.type_named("Log").elements}
        assert log_elements["Log - logical bytes written"] > 0
        assert log_elements["Log file system - bytes max"] > 0
        (usage,) = _messages(cpu)
        ram = CPU.type_named("QMgrSummary").elements[2]
        assert ram.description == "RAM total bytes - estimate for queue manager"
        assert usage.get(ram.index) > 0  # MB
        assert put.get(CMQC.MQCA_Q_NAME) is None
    finally:
        mqpy.stop_embedded(QM, data_path=root)
