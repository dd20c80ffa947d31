"""DEFINE / ALTER / DELETE / DISPLAY SUB and their PCF forms: administrative subscriptions
that applications resume with MQSUB."""

from __future__ import annotations

import mqpy
from mqpy import CMQC
from mqpy.cmdserver import start_command_server, stop_command_server
from tests.mqi._support import raises_mq

from .test_publish_subscribe import _got, _publish


def _resume(qm, name: str, queue: mqpy.Queue | None = None) -> mqpy.Subscription:
    sd = mqpy.SD(Options=CMQC.MQSO_RESUME)
    sd.set_vs("SubName", name)
    sub = mqpy.Subscription(qm)
    sub.sub(sub_desc=sd, sub_queue=queue)
    return sub


def test_given_define_sub_with_a_provided_queue_then_publications_reach_it(qmgr):
    out = qmgr.mqsc("DEFINE QLOCAL(ADMIN.DEST)\n"
                    "DEFINE SUB('admin sub') TOPICSTR('admin/topic') DEST(ADMIN.DEST)\n")
    assert out[-1] == "AMQ8094I: IBM MQ subscription created."
    _publish(qmgr.qm, "admin/topic", b"to the queue")
    q = mqpy.Queue(qmgr.qm, "ADMIN.DEST", CMQC.MQOO_INPUT_AS_Q_DEF)
    assert q.get(None, mqpy.MD(), mqpy.GMO()) == b"to the queue"
    shown = "\n".join(qmgr.mqsc("DISPLAY SUB('admin sub') ALL\n"))
    assert shown.startswith("AMQ8096I: IBM MQ subscription inquired.")
    for item in ("SUB(admin sub)", "TOPICSTR(admin/topic)", "DEST(ADMIN.DEST)",
                 "DESTCLAS(PROVIDED)", "DURABLE(YES)", "SUBTYPE(ADMIN)"):
        assert item in shown, item
    sub = _resume(qmgr.qm, "admin sub", q)
    assert "AMQ8147E" not in "".join(qmgr.mqsc("DISPLAY SUB('admin*')\n"))
    assert "AMQ8094I" not in "".join(qmgr.mqsc("DELETE SUB('admin sub')\n"))  # in use
    sub.close()
    q.close()
    assert qmgr.mqsc("DELETE SUB('admin sub')\n") == ["AMQ8093I: IBM MQ subscription deleted."]
    assert "AMQ8147E" in "".join(qmgr.mqsc("DISPLAY SUB('admin sub')\n"))


def test_given_define_sub_managed_then_mqsub_resume_returns_its_queue(qmgr):
    qmgr.mqsc("DEFINE SUB(MANAGED.ADMIN) TOPICSTR('admin/managed') DESTCLAS(MANAGED)\n")
    sub = _resume(qmgr.qm, "MANAGED.ADMIN")
    _publish(qmgr.qm, "admin/managed", b"managed")
    assert _got(sub) == b"managed"
    sub.close(close_sub_queue=True)
    qmgr.mqsc("DELETE SUB(MANAGED.ADMIN)\n")
    with raises_mq(CMQC.MQRC_NO_SUBSCRIPTION):
        _resume(qmgr.qm, "MANAGED.ADMIN")


def test_given_pcf_create_and_delete_subscription_then_they_do_as_define_and_delete_sub(
        qmgr):
    start_command_server(qmgr.eng.name, qmgr.root)
    try:
        pcf = mqpy.PCFExecute(qmgr.qm)
        pcf.MQCMD_CREATE_SUBSCRIPTION({
            mqpy.CMQCFC.MQCACF_SUB_NAME: b"pcf sub", CMQC.MQCA_TOPIC_STRING: b"pcf/topic",
            mqpy.CMQCFC.MQIACF_DESTINATION_CLASS: CMQC.MQDC_MANAGED})
        found = pcf.MQCMD_INQUIRE_SUBSCRIPTION({mqpy.CMQCFC.MQCACF_SUB_NAME: b"pcf*"})
        assert found[0][CMQC.MQCA_TOPIC_STRING].strip() == b"pcf/topic"
        sub = _resume(qmgr.qm, "pcf sub")
        _publish(qmgr.qm, "pcf/topic", b"by pcf")
        assert _got(sub) == b"by pcf"
        sub.close(close_sub_queue=True)
        pcf.MQCMD_DELETE_SUBSCRIPTION({mqpy.CMQCFC.MQCACF_SUB_NAME: b"pcf sub"})
        with raises_mq(CMQC.MQRC_NO_SUBSCRIPTION):
            _resume(qmgr.qm, "pcf sub")
    finally:
        stop_command_server(qmgr.eng.name, qmgr.root)


def test_given_a_resumed_subscription_then_the_sd_options_say_durable_and_managed(qmgr):
    qmgr.mqsc("DEFINE SUB(RESUMED) TOPICSTR('resumed') DESTCLAS(MANAGED)\n")
    sd = mqpy.SD(Options=CMQC.MQSO_RESUME)
    sd.set_vs("SubName", "RESUMED")
    mqpy.Subscription(qmgr.qm).sub(sub_desc=sd)
    assert sd.Options & CMQC.MQSO_DURABLE and sd.Options & CMQC.MQSO_MANAGED
    assert sd.Options & CMQC.MQSO_RESUME


def test_given_a_subscription_object_collected_then_its_handle_is_closed(qmgr):
    sd = mqpy.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_DURABLE)
    sd.set_vs("ObjectString", "collected")
    sd.set_vs("SubName", "COLLECTED")
    mqpy.Subscription(qmgr.qm).sub(sub_desc=sd)  # dropped at once: pymqi closes it
    assert qmgr.mqsc("DELETE SUB(COLLECTED)\n") == ["AMQ8093I: IBM MQ subscription deleted."]
