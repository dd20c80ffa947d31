"""The topic tree's attributes at work: PUB and SUB DISABLED, DURSUB(NO), DEFPSIST and
DEFPRTY inherited by a publication, WILDCARD(BLOCK), a TOPIC object named by MQOPEN and
MQSUB with an ObjectString below it."""

from __future__ import annotations

import time

import mqpy
from mqpy import CMQC
from tests.mqi._support import raises_mq

from .test_publish_subscribe import _got, _nothing, _publish, _subscribe


def test_given_pub_disabled_on_a_parent_then_a_put_to_a_child_is_put_inhibited(qmgr):
    qmgr.mqsc("DEFINE TOPIC(NOPUB) TOPICSTR('closed') PUB(DISABLED)\n")
    qm = qmgr.qm
    t = mqpy.Topic(qm, topic_string="closed/child", open_opts=CMQC.MQOO_OUTPUT)  # opens
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        t.pub(b"x")
    qmgr.mqsc("ALTER TOPIC(NOPUB) PUB(ENABLED)\n")
    t.pub(b"x")  # the next put obeys the change
    t.close()


def test_given_sub_disabled_or_dursub_no_then_mqsub_is_refused(qmgr):
    qmgr.mqsc("DEFINE TOPIC(NOSUB) TOPICSTR('nosub') SUB(DISABLED)\n"
              "DEFINE TOPIC(NODUR) TOPICSTR('nodur') DURSUB(NO)\n")
    with raises_mq(CMQC.MQRC_SUB_INHIBITED):
        _subscribe(qmgr.qm, "nosub/x")
    with raises_mq(CMQC.MQRC_DURABILITY_NOT_ALLOWED):
        _subscribe(qmgr.qm, "nodur/x", CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_DURABLE,
                   "refused")
    _subscribe(qmgr.qm, "nodur/x")  # non-durable is fine


def test_given_defpsist_and_defprty_on_the_topic_then_a_publication_as_q_def_takes_them(qmgr):
    qmgr.mqsc("DEFINE TOPIC(PERS) TOPICSTR('pers') DEFPSIST(YES) DEFPRTY(6)\n")
    sub = _subscribe(qmgr.qm, "pers/a", CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                     | CMQC.MQSO_DURABLE, "durable pers")[0]
    _publish(qmgr.qm, "pers/a", b"p")
    md = mqpy.MD()
    assert _got(sub, md) == b"p"
    assert (md.Persistence, md.Priority) == (CMQC.MQPER_PERSISTENT, 6)


def test_given_a_blocking_node_then_a_less_qualified_wildcard_misses_its_publications(qmgr):
    qmgr.mqsc("DEFINE TOPIC(BLOCKED) TOPICSTR('w/blocked') WILDCARD(BLOCK)\n")
    everything = _subscribe(qmgr.qm, "w/#")[0]
    exact = _subscribe(qmgr.qm, "w/blocked/#")[0]
    _publish(qmgr.qm, "w/blocked/x", b"b")
    _publish(qmgr.qm, "w/open", b"o")
    assert _got(everything) == b"o"
    _nothing(everything)
    assert _got(exact) == b"b"


def test_given_a_topic_object_and_an_object_string_then_both_name_one_topic(qmgr):
    qmgr.mqsc("DEFINE TOPIC(SPORT) TOPICSTR('Sport')\n")
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED, ObjectName=b"SPORT")
    sd.set_vs("ObjectString", "Football")
    sub = mqpy.Subscription(qmgr.qm)
    sub.sub(sub_desc=sd)
    assert sd.get_vs("ResObjectString") == b"Sport/Football"
    _publish(qmgr.qm, "Sport/Football", b"goal")
    assert _got(sub) == b"goal"
    t = mqpy.Topic(qmgr.qm, topic_name="SPORT", open_opts=CMQC.MQOO_OUTPUT)
    with raises_mq(CMQC.MQRC_NO_SUBS_MATCHED, CMQC.MQCC_WARNING):
        t.pub(b"to Sport", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED))
    t.close()
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        mqpy.Topic(qmgr.qm, topic_name="NO.SUCH.TOPIC", open_opts=CMQC.MQOO_OUTPUT)


def test_given_mqso_alter_then_the_subscription_takes_the_new_values(qmgr):
    qm = qmgr.qm
    sub, sd = _subscribe(qm, "alter/me", CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                         | CMQC.MQSO_DURABLE, "altered")
    sub.close()
    sd2 = mqpy.SD(Options=CMQC.MQSO_ALTER | CMQC.MQSO_DURABLE | CMQC.MQSO_SET_CORREL_ID
                  | CMQC.MQSO_MANAGED, SubCorrelId=b"MYCORREL".ljust(24, b"\0"))
    sd2.set_vs("SubName", "altered")
    sd2.set_vs("SubUserData", "user data")
    again = mqpy.Subscription(qm)
    again.sub(sub_desc=sd2)
    _publish(qm, "alter/me", b"a")
    md = mqpy.MD()
    assert _got(again, md) == b"a" and md.CorrelId == b"MYCORREL".ljust(24, b"\0")
    sd3 = mqpy.SD(Options=CMQC.MQSO_ALTER)  # durability cannot change
    sd3.set_vs("SubName", "altered")
    again.close()
    with raises_mq(CMQC.MQRC_DURABILITY_NOT_ALTERABLE):
        mqpy.Subscription(qm).sub(sub_desc=sd3)


def test_given_a_selection_string_then_only_the_publications_it_selects_arrive(qmgr):
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", "selected")
    sd.set_vs("SelectionString", "JMSPriority >= 5")
    sub = mqpy.Subscription(qmgr.qm)
    sub.sub(sub_desc=sd)
    _publish(qmgr.qm, "selected", b"low", md=mqpy.MD(Priority=1))
    _publish(qmgr.qm, "selected", b"high", md=mqpy.MD(Priority=7))
    assert _got(sub) == b"high"
    _nothing(sub)
    bad = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
    bad.set_vs("ObjectString", "selected")
    bad.set_vs("SelectionString", "JMSPriority >=")
    with raises_mq(CMQC.MQRC_SELECTOR_SYNTAX_ERROR):
        mqpy.Subscription(qmgr.qm).sub(sub_desc=bad)


def test_given_a_sub_expiry_then_the_subscription_gets_nothing_once_it_has_passed(qmgr):
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_DURABLE,
                 SubExpiry=3)  # tenths of a second
    sd.set_vs("ObjectString", "expiring")
    sd.set_vs("SubName", "EXPIRING")
    sub = mqpy.Subscription(qmgr.qm)
    sub.sub(sub_desc=sd)
    _publish(qmgr.qm, "expiring", b"in time")
    time.sleep(0.4)
    _publish(qmgr.qm, "expiring", b"too late")
    assert _got(sub) == b"in time"
    _nothing(sub)
    sub.close()
    resume = mqpy.SD(Options=CMQC.MQSO_RESUME | CMQC.MQSO_DURABLE)
    resume.set_vs("SubName", "EXPIRING")
    with raises_mq(CMQC.MQRC_NO_SUBSCRIPTION):
        mqpy.Subscription(qmgr.qm).sub(sub_desc=resume)
