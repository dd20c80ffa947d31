"""DISPLAY TPSTATUS, SBSTATUS and PUBSUB: the topic tree's status with resolved attributes,
a subscription's counts, the publish/subscribe engine's state."""

from __future__ import annotations

import mqpy
from mqpy import CMQC

from .test_publish_subscribe import _got, _publish, _subscribe


def _text(lines: list[str]) -> str:
    return "\n".join(lines)


def test_given_topics_in_use_then_tpstatus_shows_them_resolved_with_counts(qmgr):
    qmgr.mqsc("DEFINE TOPIC(FRUIT) TOPICSTR('fruit') DEFPRTY(3)\n")
    sub = _subscribe(qmgr.qm, "fruit/apple")[0]
    t = mqpy.Topic(qmgr.qm, topic_string="fruit/apple", open_opts=CMQC.MQOO_OUTPUT)
    out = _text(qmgr.mqsc("DISPLAY TPSTATUS('fruit/apple') ALL\n"))
    assert out.startswith("AMQ8754I: Display topic status details.")
    for item in ("TOPICSTR(fruit/apple)", "DEFPRTY(3)", "DURSUB(YES)", "PUB(ENABLED)",
                 "PUBCOUNT(1)", "SUBCOUNT(1)", "RETAINED(NO)"):
        assert item in out, item
    assert "ADMIN(FRUIT)" in _text(qmgr.mqsc("DISPLAY TPSTATUS('fruit') ADMIN\n"))
    everything = _text(qmgr.mqsc("DISPLAY TPSTATUS('#')\n"))
    assert "TOPICSTR(fruit/apple)" in everything and "TOPICSTR(fruit)" in everything
    subs = _text(qmgr.mqsc("DISPLAY TPSTATUS('fruit/apple') TYPE(SUB)\n"))
    assert "SUBID(" in subs
    t.close()
    sub.close()


def test_given_a_named_subscription_then_sbstatus_counts_its_publications(qmgr):
    sub = _subscribe(qmgr.qm, "counted", CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                     | CMQC.MQSO_DURABLE, "COUNTED")[0]
    _publish(qmgr.qm, "counted", b"1")
    _publish(qmgr.qm, "counted", b"2")
    assert _got(sub) == b"1"
    out = _text(qmgr.mqsc("DISPLAY SBSTATUS(COUNTED) ALL\n"))
    assert out.startswith("AMQ8099I: IBM MQ subscription status inquired.")
    assert "NUMMSGS(2)" in out and "DURABLE(YES)" in out and "SUBTYPE(API)" in out
    out = _text(qmgr.mqsc("DISPLAY PUBSUB ALL\n"))
    assert "STATUS(ACTIVE)" in out and "SUBCOUNT(1)" in out
