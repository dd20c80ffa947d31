"""The web server names the figures of resource-statistics publications as IBM's
mq_prometheus names them, from the element descriptions of the metadata (pure)."""

from __future__ import annotations

from mqpy.monitor.elements import STATQ
from mqpy_cli.web.resources import metric_name


def test_given_statq_descriptions_when_named_then_they_are_mq_prometheus_names():
    names = {e.description: metric_name(e.description)
             for t in STATQ.types for e in t.elements}
    assert names["MQPUT/MQPUT1 count"] == "mqput_mqput1_count"
    assert names["MQPUT byte count"] == "mqput_bytes"
    assert names["MQGET count"] == "mqget_count"
    assert names["MQGET byte count"] == "mqget_bytes"
    assert names["non-persistent byte count"] == "non_persistent_bytes"
    assert names["destructive MQGET persistent byte count"] == \
        "destructive_mqget_persistent_bytes"
    assert names["messages expired"] == "expired_messages"
    assert names["average queue time"] == "average_queue_time_seconds"
    assert names["Queue depth"] is None  # ibmmq_queue_depth comes from DISPLAY QSTATUS


def test_given_a_log_description_when_named_then_the_dash_separator_goes():
    assert metric_name("Log - write latency") == "log_write_latency"
