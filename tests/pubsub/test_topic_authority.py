"""Authority on topics (setmqaut -t topic +pub +sub): publishing needs pub, subscribing
sub, on the topic's closest administrative topic object or one above it up to
SYSTEM.BASE.TOPIC; a managed destination needs no authority of its own."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.security.policy import set_authority
from tests.mqi._support import raises_mq
from tests.security.conftest import SecuredQMgr


@pytest.fixture
def dave(tmp_path):
    h = SecuredQMgr(str(tmp_path))
    try:
        h.users.add("dave", "dave-pw", ["apps"])
        set_authority(h.eng, "qmgr", h.eng.name, ["+connect"], principal="dave")
        h.eng.define("TOPIC", "SPORT", {"TOPICSTR": "Sport"})
        h.conn = h.eng.connect("app", user="dave", password="dave-pw")
        yield h
    finally:
        inprocess.stop("QMSEC", h.root)


def _open(conn, topic: str) -> int:
    od = mqpy.OD(Version=CMQC.MQOD_VERSION_4, ObjectType=CMQC.MQOT_TOPIC)
    od.set_vs("ObjectString", topic)
    return conn.open(od, CMQC.MQOO_OUTPUT)


def _sub(conn, topic: str) -> tuple[int, int]:
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", topic)
    return conn.sub(sd, CMQC.MQHO_NONE)


def test_given_pub_on_a_parent_topic_object_then_its_subtopics_may_be_published(dave):
    with raises_mq(CMQC.MQRC_NOT_AUTHORIZED):
        _open(dave.conn, "Sport/Football")
    set_authority(dave.eng, "topic", "SPORT", ["+pub"], principal="dave")
    dave.conn.close(_open(dave.conn, "Sport/Football"), 0)
    with raises_mq(CMQC.MQRC_NOT_AUTHORIZED):  # not under SPORT: SYSTEM.BASE.TOPIC decides
        _open(dave.conn, "Weather")
    with raises_mq(CMQC.MQRC_NOT_AUTHORIZED):  # pub is not sub
        _sub(dave.conn, "Sport/Football")


def test_given_sub_on_the_base_topic_then_any_topic_may_be_subscribed_with_a_managed_queue(
        dave):
    set_authority(dave.eng, "topic", "SYSTEM.BASE.TOPIC", ["+sub"], principal="dave")
    hobj, hsub = _sub(dave.conn, "Weather/today")  # no authority on the model queue needed
    dave.conn.close(hsub, 0)
    dave.conn.close(hobj, 0)
