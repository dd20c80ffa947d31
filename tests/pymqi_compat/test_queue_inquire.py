"""MQINQ of a queue (``Queue.inquire``) answers every queue selector IBM's MQINQ table
documents on distributed platforms: the attribute of a queue of a type that has it, and
MQCC_WARNING with MQRC_SELECTOR_NOT_FOR_TYPE for a queue of a type that has not."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, inprocess
from mqpy.engine.mqinq import QUEUE_ATTRIBUTES

ALIAS, REMOTE = "APP.ALIAS", "APP.REMOTE"


@pytest.fixture
def qm(tmp_path) -> Iterator[mqpy.QueueManager]:
    """A new queue manager with an alias of the default local queue and a remote queue."""
    qm = mqpy.embedded("QMI", data_path=str(tmp_path))
    engine = inprocess.running("QMI", str(tmp_path))
    engine.define("QALIAS", ALIAS, {"TARGET": "SYSTEM.DEFAULT.LOCAL.QUEUE"})
    engine.define("QLOCAL", "QMX", {"USAGE": "XMITQ"})
    engine.define("QREMOTE", REMOTE, {"RNAME": "Q", "RQMNAME": "QMX"})
    try:
        yield qm
    finally:
        qm.disconnect()
        mqpy.stop_embedded("QMI", data_path=str(tmp_path))


def _inquire(qm: mqpy.QueueManager, name: str, selector: int) -> int | bytes:
    with mqpy.Queue(qm, name, CMQC.MQOO_INQUIRE) as q:
        return q.inquire(selector)


def test_a_local_queue_answers_its_event_and_limit_attributes(qm):
    """Given the default local queue, when its depth limits, events, read-ahead, property
    control and cluster attributes are inquired, then IBM's defaults come back as MQ's
    numbers (strings at their MQ lengths)."""
    q = "SYSTEM.DEFAULT.LOCAL.QUEUE"
    assert _inquire(qm, q, CMQC.MQIA_Q_DEPTH_HIGH_LIMIT) == 80
    assert _inquire(qm, q, CMQC.MQIA_Q_DEPTH_LOW_LIMIT) == 20
    assert _inquire(qm, q, CMQC.MQIA_Q_DEPTH_MAX_EVENT) == CMQCFC.MQEVR_ENABLED
    assert _inquire(qm, q, CMQC.MQIA_Q_DEPTH_HIGH_EVENT) == CMQCFC.MQEVR_DISABLED
    assert _inquire(qm, q, CMQC.MQIA_HARDEN_GET_BACKOUT) == CMQC.MQQA_BACKOUT_HARDENED
    assert _inquire(qm, q, CMQC.MQIA_DEF_READ_AHEAD) == CMQC.MQREADA_NO
    assert _inquire(qm, q, CMQC.MQIA_PROPERTY_CONTROL) == CMQC.MQPROP_COMPATIBILITY
    assert _inquire(qm, q, CMQC.MQIA_STATISTICS_Q) == CMQC.MQMON_Q_MGR
    assert _inquire(qm, q, CMQC.MQCA_CLUSTER_NAME) == b" " * CMQC.MQ_CLUSTER_NAME_LENGTH


def test_every_documented_selector_answers_or_says_not_for_type(qm):
    """Given a queue of each type, when every selector of the table is inquired, then each
    answers an int or bytes, or (a selector of other types) MQCC_WARNING with
    MQRC_SELECTOR_NOT_FOR_TYPE, never another failure."""
    for name in ("SYSTEM.DEFAULT.LOCAL.QUEUE", ALIAS, REMOTE):
        for selector in QUEUE_ATTRIBUTES:
            try:
                assert isinstance(_inquire(qm, name, selector), (int, bytes))
            except mqpy.MQMIError as e:
                assert (e.comp, e.reason) == (CMQC.MQCC_WARNING,
                                              CMQC.MQRC_SELECTOR_NOT_FOR_TYPE), (name, selector)


def test_an_alias_says_its_target_type_and_not_a_local_queues_limits(qm):
    """Given an alias queue, when MQIA_BASE_TYPE is inquired then it is MQOT_Q;
    when MQIA_Q_DEPTH_HIGH_LIMIT is, then MQCC_WARNING with MQRC_SELECTOR_NOT_FOR_TYPE."""
    assert _inquire(qm, ALIAS, CMQC.MQIA_BASE_TYPE) == CMQC.MQOT_Q
    with pytest.raises(mqpy.MQMIError) as e:
        _inquire(qm, ALIAS, CMQC.MQIA_Q_DEPTH_HIGH_LIMIT)
    assert (e.value.comp, e.value.reason) == (CMQC.MQCC_WARNING, CMQC.MQRC_SELECTOR_NOT_FOR_TYPE)
