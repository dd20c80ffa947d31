"""Events whose reason is raised in the put and get paths (mqput.py, mqget.py) and in
publish/subscribe's authority check (mqsub.py): the hook functions are in
``mqpy.engine.instrumentation``, called there."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.engine import fastpath
from mqpy.errors import MQMIError

from ._support import get, high_then_full, params, perfm_events, put, read_events


def test_put_inhibited_is_an_event_while_inhibtev_is_enabled(qmev):
    """Given INHIBTEV(ENABLED) and a queue PUT(DISABLED), when an MQPUT is refused 2051, then a
    Put Inhibited event names the queue."""
    qmev.eng.alter_qmgr({"INHIBTEV": "ENABLED"})
    qmev.eng.define("QLOCAL", "EV.NOPUT", {"PUT": "DISABLED"}, replace=True)
    with pytest.raises(MQMIError) as failed:
        put(qmev.qm, "EV.NOPUT", 1)
    assert failed.value.reason == CMQC.MQRC_PUT_INHIBITED
    got = [(m.header.Reason, dict(params(m))) for _, m in read_events(qmev.qm)]
    assert [(r, p[CMQC.MQCA_Q_NAME]) for r, p in got] == [(CMQC.MQRC_PUT_INHIBITED, "EV.NOPUT")]


def test_get_inhibited_is_an_event_while_inhibtev_is_enabled(qmev):
    """Given INHIBTEV(ENABLED) and a queue GET(DISABLED), when an MQGET is refused 2016, then a
    Get Inhibited event names the queue."""
    qmev.eng.alter_qmgr({"INHIBTEV": "ENABLED"})
    qmev.eng.define("QLOCAL", "EV.NOGET", {"GET": "DISABLED"}, replace=True)
    q = mqpy.Queue(qmev.qm, "EV.NOGET", CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(MQMIError) as failed:
        q.get(None, mqpy.MD(), mqpy.GMO())
    q.close()
    assert failed.value.reason == CMQC.MQRC_GET_INHIBITED
    got = [(m.header.Reason, dict(params(m))) for _, m in read_events(qmev.qm)]
    assert [(r, p[CMQC.MQCA_Q_NAME]) for r, p in got] == [(CMQC.MQRC_GET_INHIBITED, "EV.NOGET")]


def test_queue_depth_high_on_the_fast_put_path(depthq):
    """Given the depth queue and the fast paths on (the usual put), when it fills, then Queue
    Depth High and Queue Full are events as on the general path."""
    high_then_full(depthq)


@pytest.mark.parametrize("fast", [True, False], ids=["fast paths", "general paths"])
def test_queue_depth_low_after_high(depthq, monkeypatch, fast):
    """Given the depth queue after a Queue Depth High event, when gets bring it to two
    messages (QDEPTHLO 20 of MAXDEPTH 10), then a Queue Depth Low event is put and High is
    enabled again, on the fast paths as on the general ones."""
    monkeypatch.setattr(fastpath, "ENABLED", fast)
    put(depthq.qm, "EV.DEPTH", 6)
    get(depthq.qm, "EV.DEPTH", 4)
    assert [r for r, _ in perfm_events(depthq.qm)] == [CMQC.MQRC_Q_DEPTH_HIGH, CMQC.MQRC_Q_DEPTH_LOW]
    a = depthq.eng.lookup("QLOCAL", "EV.DEPTH").attributes
    assert (a["QDPHIEV"], a["QDPLOEV"]) == ("ENABLED", "DISABLED")


class _RefusingTopics:
    """An authority that lets everything through but topics."""

    def check_connect(self, user, password, appl_name, channel, *, asserted, adopted=False):
        return asserted if password is not None else user

    def check_open(self, user, objtype, name, options, *, alternate_user=None):
        return None

    def check_topic(self, user, names, needed):
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED)


def test_a_subscription_refused_2035_is_not_authorized_type_5(qmev):
    """Given AUTHOREV(ENABLED) and a user with no sub authority on any topic, when MQSUB asks
    for a managed subscription to ev/prices, then it fails 2035 and a Not Authorized event
    with MQRQ_SUB_NOT_AUTHORIZED gives the MQSUB's options, the topic string and the topic
    objects judged."""
    eng = qmev.eng
    before, eng.authority = eng.authority, _RefusingTopics()
    eng.alter_qmgr({"AUTHOREV": "ENABLED"})
    opts = CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NON_DURABLE
    try:
        sd = mqpy.SD(Options=opts)
        sd.set_vs("ObjectString", "ev/prices")
        with pytest.raises(MQMIError) as failed:
            mqpy.Subscription(qmev.qm).sub(sub_desc=sd)
    finally:
        eng.authority = before
    assert failed.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    got = [(m.header.Reason, dict(params(m))) for _, m in read_events(qmev.qm)]
    assert len(got) == 1
    reason, p = got[0]
    assert (reason, p[CMQCFC.MQIACF_REASON_QUALIFIER], p[CMQCFC.MQIACF_SUB_OPTIONS],
            p[CMQC.MQCA_TOPIC_STRING]) == (CMQC.MQRC_NOT_AUTHORIZED,
                                            CMQCFC.MQRQ_SUB_NOT_AUTHORIZED, opts, "ev/prices")
    assert "SYSTEM.BASE.TOPIC" in p[CMQCFC.MQCACF_ADMIN_TOPIC_NAMES]
