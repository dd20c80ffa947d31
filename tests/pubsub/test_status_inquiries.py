"""The PCF status inquiries of publish/subscribe, answered by the command server as IBM
documents them: Inquire Topic Status (StatusType topic, subscriptions, publishers), Inquire
Subscription Status and Inquire Pub/Sub Status."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.cmdserver import start_command_server, stop_command_server
from tests.pcf_commands.conftest import reason_of

from .test_publish_subscribe import _got, _publish, _subscribe


@pytest.fixture
def pcf(qmgr):
    """A PCF administrator of ``qmgr``, its command server started."""
    start_command_server(qmgr.eng.name, qmgr.root)
    admin = mqpy.PCFExecute(qmgr.qm)
    yield admin
    admin.disconnect()
    stop_command_server(qmgr.eng.name, qmgr.root)


def _durable(qmgr, topic: str, name: str) -> mqpy.Subscription:
    return _subscribe(qmgr.qm, topic, CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_DURABLE,
                      name)[0]


def _connection_ids(pcf: mqpy.PCFExecute) -> set[bytes]:
    found = pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: b""})
    return {c[CMQCFC.MQBACF_CONNECTION_ID] for c in found}


def test_given_a_topic_in_use_when_inquire_topic_status_then_resolved_attributes_and_counts(
        qmgr, pcf):
    qmgr.mqsc("DEFINE TOPIC(FRUIT) TOPICSTR('fruit') DEFPRTY(3)\n")
    sub = _subscribe(qmgr.qm, "fruit/apple")[0]
    t = mqpy.Topic(qmgr.qm, topic_string="fruit/apple", open_opts=CMQC.MQOO_OUTPUT)
    try:
        (row,) = pcf.MQCMD_INQUIRE_TOPIC_STATUS({CMQC.MQCA_TOPIC_STRING: b"fruit/apple"})
        assert row[CMQC.MQCA_TOPIC_STRING].rstrip() == b"fruit/apple"
        assert row[CMQC.MQIA_DEF_PRIORITY] == 3
        assert row[CMQC.MQIA_DURABLE_SUB] == CMQC.MQSUB_DURABLE_ALLOWED
        assert row[CMQC.MQIA_INHIBIT_PUB] == CMQC.MQTA_PUB_ALLOWED
        assert row[CMQC.MQIA_PUB_COUNT] == 1 and row[CMQC.MQIA_SUB_COUNT] == 1
        assert row[CMQCFC.MQIACF_RETAINED_PUBLICATION] == CMQCFC.MQQSO_NO
        (admin,) = pcf.MQCMD_INQUIRE_TOPIC_STATUS({CMQC.MQCA_TOPIC_STRING: b"fruit"})
        assert admin[CMQC.MQCA_ADMIN_TOPIC_NAME].rstrip() == b"FRUIT"
        every = pcf.MQCMD_INQUIRE_TOPIC_STATUS({CMQC.MQCA_TOPIC_STRING: b"fruit/#"})
        assert {r[CMQC.MQCA_TOPIC_STRING].rstrip() for r in every} >= {b"fruit", b"fruit/apple"}
        assert reason_of(lambda: pcf.MQCMD_INQUIRE_TOPIC_STATUS(
            {CMQC.MQCA_TOPIC_STRING: b"nothing/here/#"})) == CMQCFC.MQRCCF_TOPIC_STRING_NOT_FOUND
        assert reason_of(lambda: pcf.MQCMD_INQUIRE_TOPIC_STATUS({})) \
            == CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL
    finally:
        t.close()
        sub.close()


def test_given_subscriptions_when_inquire_topic_status_type_sub_then_a_row_each(qmgr, pcf):
    sub = _durable(qmgr, "veg/leek", "LEEKS")
    _publish(qmgr.qm, "veg/leek", b"one")
    try:
        (row,) = pcf.MQCMD_INQUIRE_TOPIC_STATUS({
            CMQC.MQCA_TOPIC_STRING: b"veg/leek",
            CMQCFC.MQIACF_TOPIC_STATUS_TYPE: CMQCFC.MQIACF_TOPIC_SUB})
        assert row[CMQC.MQCA_TOPIC_STRING].rstrip() == b"veg/leek"
        assert len(row[CMQCFC.MQBACF_SUB_ID]) == CMQC.MQ_CORREL_ID_LENGTH
        assert row[CMQCFC.MQIACF_DURABLE_SUBSCRIPTION] == CMQC.MQSUB_DURABLE_YES
        assert row[CMQCFC.MQIACF_SUB_TYPE] == CMQCFC.MQSUBTYPE_API
        assert row[CMQCFC.MQIACF_MESSAGE_COUNT] == 1
        assert row[CMQCFC.MQCACF_LAST_MSG_DATE].strip()
        assert row[CMQCFC.MQBACF_CONNECTION_ID] in _connection_ids(pcf)
    finally:
        sub.close()


def test_given_an_open_publisher_when_inquire_topic_status_type_pub_then_its_publications(
        qmgr, pcf):
    t = mqpy.Topic(qmgr.qm, topic_string="news/today", open_opts=CMQC.MQOO_OUTPUT)
    for data in (b"a", b"b"):
        t.pub(data, mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
    try:
        (row,) = pcf.MQCMD_INQUIRE_TOPIC_STATUS({
            CMQC.MQCA_TOPIC_STRING: b"news/today",
            CMQCFC.MQIACF_TOPIC_STATUS_TYPE: CMQCFC.MQIACF_TOPIC_PUB})
        assert row[CMQCFC.MQIACF_PUBLISH_COUNT] == 2
        assert row[CMQCFC.MQCACF_LAST_PUB_DATE].strip()
        assert row[CMQCFC.MQCACF_LAST_PUB_TIME].strip()
        assert row[CMQCFC.MQBACF_CONNECTION_ID] in _connection_ids(pcf)
        out = "\n".join(qmgr.mqsc("DISPLAY TPSTATUS('news/today') TYPE(PUB) ALL\n"))
        assert "NUMPUBS(2)" in out and "LPUBDATE(" in out
    finally:
        t.close()


def test_given_a_named_subscription_when_inquire_sub_status_then_its_counts(qmgr, pcf):
    sub = _durable(qmgr, "counted/pcf", "PCF.COUNTED")
    _publish(qmgr.qm, "counted/pcf", b"1")
    _publish(qmgr.qm, "counted/pcf", b"2")
    assert _got(sub) == b"1"
    try:
        (row,) = pcf.MQCMD_INQUIRE_SUB_STATUS({CMQCFC.MQCACF_SUB_NAME: b"PCF.COUNTED"})
        assert row[CMQCFC.MQCACF_SUB_NAME].rstrip() == b"PCF.COUNTED"
        assert row[CMQCFC.MQIACF_MESSAGE_COUNT] == 2
        assert row[CMQCFC.MQIACF_DURABLE_SUBSCRIPTION] == CMQC.MQSUB_DURABLE_YES
        assert row[CMQCFC.MQIACF_SUB_TYPE] == CMQCFC.MQSUBTYPE_API
        assert row[CMQC.MQCA_RESUME_DATE].strip()
        by_id = pcf.MQCMD_INQUIRE_SUB_STATUS({CMQCFC.MQBACF_SUB_ID: row[CMQCFC.MQBACF_SUB_ID]})
        assert by_id[0][CMQCFC.MQCACF_SUB_NAME].rstrip() == b"PCF.COUNTED"
        assert len(pcf.MQCMD_INQUIRE_SUB_STATUS({CMQCFC.MQCACF_SUB_NAME: b"PCF.*"})) == 1
        assert reason_of(lambda: pcf.MQCMD_INQUIRE_SUB_STATUS(
            {CMQCFC.MQCACF_SUB_NAME: b"NO.SUCH.SUB"})) == CMQC.MQRC_UNKNOWN_OBJECT_NAME
        assert reason_of(lambda: pcf.MQCMD_INQUIRE_SUB_STATUS({})) \
            == CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL
    finally:
        sub.close()


def test_when_inquire_pubsub_status_then_the_local_queue_manager_active(qmgr, pcf):
    sub = _subscribe(qmgr.qm, "ps/status")[0]
    try:
        (row,) = pcf.MQCMD_INQUIRE_PUBSUB_STATUS({})
        assert row[CMQC.MQCA_Q_MGR_NAME].rstrip() == qmgr.eng.name.encode()
        assert row[CMQCFC.MQIACF_PS_STATUS_TYPE] == CMQCFC.MQPSST_LOCAL
        assert row[CMQCFC.MQIACF_PUBSUB_STATUS] == CMQCFC.MQPS_STATUS_ACTIVE
        assert row[CMQC.MQIA_SUB_COUNT] >= 1 and row[CMQC.MQIA_TOPIC_NODE_COUNT] >= 1
    finally:
        sub.close()


@pytest.mark.system
@pytest.mark.parametrize("how", ["bindings", "client"])
def test_given_a_daemon_then_its_command_server_answers_the_status_inquiries(pubsub_site, how):
    qm = pubsub_site.bindings() if how == "bindings" else pubsub_site.client()
    admin = mqpy.PCFExecute(qm)
    try:
        sub = _subscribe(qm, f"daemon/{how}")[0]
        (row,) = admin.MQCMD_INQUIRE_TOPIC_STATUS({
            CMQC.MQCA_TOPIC_STRING: f"daemon/{how}".encode(),
            CMQCFC.MQIACF_TOPIC_STATUS_TYPE: CMQCFC.MQIACF_TOPIC_SUB})
        assert row[CMQCFC.MQBACF_CONNECTION_ID] in _connection_ids(admin)
        (status,) = admin.MQCMD_INQUIRE_PUBSUB_STATUS({})
        assert status[CMQCFC.MQIACF_PUBSUB_STATUS] == CMQCFC.MQPS_STATUS_ACTIVE
        sub.close()
    finally:
        admin.disconnect()
        qm.disconnect()
