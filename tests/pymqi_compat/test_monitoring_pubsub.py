"""The publish/subscribe PCF that monitoring programs send, written as a pymqi program
writes it, with ``import mqpy as pymqi`` as the only change, over bindings and over a client
connection through APP.SVRCONN:

- the OpenTelemetry IBM MQ collector's topic metrics (opentelemetry-java-contrib,
  ibm-mq-metrics/.../InquireTStatusCmdCollector.java), here in pymqi: Inquire Topic Status of
  a topic string (or a generic one), its publisher and subscriber counts read where present
  and 0 where not;
- subscription monitoring as the exporters do it: Inquire Subscription Status by name
  (durable, message count, topic string, last message date) and Inquire Subscription of
  ``*`` for the subscriptions and their destinations; Inquire Topic Status with
  StatusType MQIACF_TOPIC_SUB for the subscribers of one topic.

what pymqi users rely on: "pymqi compatibility": a monitoring program runs with only its
import changed.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy as pymqi
from tests.client.conftest import CHANNEL, Env
from tests.pymqi_compat.conftest import QMGR, program_env

pytestmark = pytest.mark.timeout(120)

MODES = ("bindings", "client")
CMQC, CMQCFC = pymqi.CMQC, pymqi.CMQCFC
TOPIC = "price/fruit"
SUB = "MON.FRUIT.SUB"


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> Iterator[Env]:
    yield from program_env(tmp_path_factory, "monitoring_pubsub")


@pytest.fixture(params=MODES)
def qmgr(request, env: Env) -> Iterator[pymqi.QueueManager]:
    if request.param == "client":
        qm = pymqi.connect(QMGR, CHANNEL, env.conn_info)
    else:
        qm = pymqi.connect(QMGR)
    try:
        yield qm
    finally:
        qm.disconnect()


@pytest.fixture
def subscribed(qmgr) -> Iterator[pymqi.Subscription]:
    """A durable managed subscription MON.FRUIT.SUB to price/fruit, one publication
    delivered to it, removed after the test."""
    sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_DURABLE | CMQC.MQSO_MANAGED)
    sd.set_vs("SubName", SUB)
    sd.set_vs("ObjectString", TOPIC)
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_desc=sd)
    topic = pymqi.Topic(qmgr, topic_string=TOPIC)
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    topic.pub(b"apples 1.20")
    topic.close()
    try:
        yield sub
    finally:
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)


def _text(value: bytes) -> str:
    return value.decode("utf-8").strip()


@pytest.mark.parametrize("topic_string", [TOPIC, "price/#", "#"])
def test_topic_status_publisher_and_subscriber_counts(qmgr, subscribed, topic_string):
    """Given a subscriber to price/fruit and a publisher with the topic open, when Inquire
    Topic Status asks for the topic string (or a generic one covering it), then
    price/fruit's response counts one subscriber and one publisher, ints the collector
    records (0 where the parameter is absent); once the publisher closes, none."""
    publisher = pymqi.Topic(qmgr, topic_string=TOPIC)
    publisher.open(open_opts=CMQC.MQOO_OUTPUT)
    pcf = pymqi.PCFExecute(qmgr)
    try:
        response = pcf.MQCMD_INQUIRE_TOPIC_STATUS({CMQC.MQCA_TOPIC_STRING: topic_string})
        publisher.close()
        after = pcf.MQCMD_INQUIRE_TOPIC_STATUS({CMQC.MQCA_TOPIC_STRING: TOPIC})
    finally:
        pcf.disconnect()
    (fruit,) = [m for m in response if _text(m[CMQC.MQCA_TOPIC_STRING]) == TOPIC]
    counts = (fruit.get(CMQC.MQIA_PUB_COUNT, 0), fruit.get(CMQC.MQIA_SUB_COUNT, 0))
    assert counts == (1, 1)
    assert (after[0].get(CMQC.MQIA_PUB_COUNT, 0), after[0].get(CMQC.MQIA_SUB_COUNT, 0)) \
        == (0, 1)


def test_topic_status_of_topics_nobody_uses(qmgr):
    """Given no subscriber or publisher under fruit/, when Inquire Topic Status names the
    topic string fruit/none, then it answers that topic's status with no publisher or
    subscriber (the collector records 0 and 0); when it names the generic nothing/#, which
    covers no topic node, then the command fails with MQRCCF_TOPIC_STRING_NOT_FOUND, an
    MQMIError the collector catches and logs, and the next command is answered."""
    pcf = pymqi.PCFExecute(qmgr)
    try:
        (none,) = pcf.MQCMD_INQUIRE_TOPIC_STATUS({CMQC.MQCA_TOPIC_STRING: "fruit/none"})
        with pytest.raises(pymqi.MQMIError) as err:
            pcf.MQCMD_INQUIRE_TOPIC_STATUS({CMQC.MQCA_TOPIC_STRING: "nothing/#"})
        pcf.MQCMD_PING_Q_MGR()
    finally:
        pcf.disconnect()
    assert (none.get(CMQC.MQIA_PUB_COUNT, 0), none.get(CMQC.MQIA_SUB_COUNT, 0)) == (0, 0)
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                  CMQCFC.MQRCCF_TOPIC_STRING_NOT_FOUND)


def test_subscription_status_by_name(qmgr, subscribed):
    """Given MON.FRUIT.SUB with one publication delivered, when Inquire Subscription Status
    names it, then its response says durable, one message, price/fruit, and the last
    message's date (yyyy-mm-dd)."""
    pcf = pymqi.PCFExecute(qmgr)
    try:
        (status,) = pcf.MQCMD_INQUIRE_SUB_STATUS({CMQCFC.MQCACF_SUB_NAME: SUB})
    finally:
        pcf.disconnect()
    assert _text(status[CMQCFC.MQCACF_SUB_NAME]) == SUB
    assert status[CMQCFC.MQIACF_DURABLE_SUBSCRIPTION] == CMQC.MQSUB_DURABLE_YES
    assert status[CMQCFC.MQIACF_MESSAGE_COUNT] == 1
    assert _text(status[CMQC.MQCA_TOPIC_STRING]) == TOPIC
    assert _text(status[CMQCFC.MQCACF_LAST_MSG_DATE])[4] == "-"


def test_subscriptions_listed_with_their_destinations(qmgr, subscribed):
    """Given MON.FRUIT.SUB, when Inquire Subscription asks for ``*``, then it is listed with
    its topic string and a managed destination queue that exists (its depth readable by
    MQINQ, the one publication on it)."""
    pcf = pymqi.PCFExecute(qmgr)
    try:
        subs = pcf.MQCMD_INQUIRE_SUBSCRIPTION({CMQCFC.MQCACF_SUB_NAME: "*"})
    finally:
        pcf.disconnect()
    (mine,) = [s for s in subs if _text(s[CMQCFC.MQCACF_SUB_NAME]) == SUB]
    assert _text(mine[CMQC.MQCA_TOPIC_STRING]) == TOPIC
    destination = _text(mine[CMQCFC.MQCACF_DESTINATION])
    queue = pymqi.Queue(qmgr, destination, CMQC.MQOO_INQUIRE)
    assert queue.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    queue.close()


def test_the_subscribers_of_a_topic(qmgr, subscribed):
    """Given MON.FRUIT.SUB on price/fruit, when Inquire Topic Status asks with StatusType
    MQIACF_TOPIC_SUB, then one response per subscriber answers, with its durability and
    the count of messages it was sent."""
    pcf = pymqi.PCFExecute(qmgr)
    try:
        subscribers = pcf.MQCMD_INQUIRE_TOPIC_STATUS({
            CMQC.MQCA_TOPIC_STRING: TOPIC,
            CMQCFC.MQIACF_TOPIC_STATUS_TYPE: CMQCFC.MQIACF_TOPIC_SUB})
    finally:
        pcf.disconnect()
    assert [(s[CMQCFC.MQIACF_DURABLE_SUBSCRIPTION], s[CMQCFC.MQIACF_MESSAGE_COUNT])
            for s in subscribers] == [(CMQC.MQSUB_DURABLE_YES, 1)]
