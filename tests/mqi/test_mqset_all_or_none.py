"""MQSET of several attributes in the queue manager, all or none, as IBM MQ's: "If the call
fails, no attributes are changed". Every selector and value is judged before any is set; a
value its attribute does not take fails with IBM's reason for it (MQRC_INHIBIT_VALUE_ERROR,
MQRC_TRIGGER_DEPTH_ERROR, MQRC_TRIGGER_MSG_PRIORITY_ERR, ...).

The queue manager's call is the embedded connection's ``set_many(hobj, [(selector, value),
...])``; an application's ``Queue.set({selector: value, ...})`` reaches it as one MQSET
(test_mqset_all_or_none_connections)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._support import INQ, raises_mq

SET = CMQC.MQOO_SET


@pytest.fixture
def queue(qm):
    """Q1 opened for set and inquire, and the connection that serves its calls."""
    q = mqpy.Queue(qm, "Q1", SET | INQ)
    try:
        yield q, qm._conn
    finally:
        q.close()


def _state(q: mqpy.Queue) -> tuple:
    return (q.inquire(CMQC.MQIA_INHIBIT_PUT), q.inquire(CMQC.MQIA_TRIGGER_DEPTH),
            q.inquire(CMQC.MQCA_TRIGGER_DATA).strip())


def test_a_refused_value_after_a_good_one_changes_nothing(queue):
    q, conn = queue
    before = _state(q)
    # when one MQSET sets PUT(DISABLED) and then a trigger depth of 0 (IBM: from 1)
    with raises_mq(CMQC.MQRC_TRIGGER_DEPTH_ERROR):
        conn.set_many(q.get_handle(), [(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED),
                                       (CMQC.MQIA_TRIGGER_DEPTH, 0)])
    # then neither is set: puts are still allowed
    assert _state(q) == before
    assert before[0] == CMQC.MQQA_PUT_ALLOWED


def test_a_selector_mqset_does_not_set_after_good_ones_changes_nothing(queue):
    q, conn = queue
    before = _state(q)
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        conn.set_many(q.get_handle(), [(CMQC.MQIA_TRIGGER_DEPTH, 7),
                                       (CMQC.MQCA_TRIGGER_DATA, b"data"),
                                       (CMQC.MQIA_MAX_Q_DEPTH, 10)])
    assert _state(q) == before


def test_good_selectors_are_all_set_the_last_of_a_repeated_one_winning(queue):
    q, conn = queue
    conn.set_many(q.get_handle(), [(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED),
                                   (CMQC.MQIA_TRIGGER_DEPTH, 3),
                                   (CMQC.MQCA_TRIGGER_DATA, b"first"),
                                   (CMQC.MQIA_TRIGGER_DEPTH, 4)])
    assert _state(q) == (CMQC.MQQA_PUT_INHIBITED, 4, b"first")


@pytest.mark.parametrize(("selector", "value", "reason"), [
    (CMQC.MQIA_INHIBIT_PUT, 7, CMQC.MQRC_INHIBIT_VALUE_ERROR),
    (CMQC.MQIA_INHIBIT_GET, 7, CMQC.MQRC_INHIBIT_VALUE_ERROR),
    (CMQC.MQIA_TRIGGER_CONTROL, 7, CMQC.MQRC_TRIGGER_CONTROL_ERROR),
    (CMQC.MQIA_TRIGGER_TYPE, 7, CMQC.MQRC_TRIGGER_TYPE_ERROR),
    (CMQC.MQIA_TRIGGER_DEPTH, 0, CMQC.MQRC_TRIGGER_DEPTH_ERROR),
    (CMQC.MQIA_TRIGGER_MSG_PRIORITY, 10, CMQC.MQRC_TRIGGER_MSG_PRIORITY_ERR),
    (CMQC.MQIA_TRIGGER_MSG_PRIORITY, -1, CMQC.MQRC_TRIGGER_MSG_PRIORITY_ERR),
])
def test_a_value_its_attribute_does_not_take_fails_with_ibms_reason(queue, selector, value,
                                                                      reason):
    q, _conn = queue
    before = q.inquire(selector)
    # when one MQSET sets it (pymqi's set(selector, value)), then IBM's reason
    with raises_mq(reason):
        q.set(selector, value)
    # and the attribute is as it was
    assert q.inquire(selector) == before


def test_more_than_256_selectors_is_selector_count_error(queue):
    q, conn = queue
    with raises_mq(CMQC.MQRC_SELECTOR_COUNT_ERROR):
        conn.set_many(q.get_handle(), [(CMQC.MQIA_TRIGGER_DEPTH, 2)] * 257)
    assert q.inquire(CMQC.MQIA_TRIGGER_DEPTH) == _state(q)[1]
