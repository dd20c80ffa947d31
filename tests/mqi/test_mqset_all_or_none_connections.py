"""An application's ``Queue.set({selector: value, ...})`` is one MQSET, over each kind of
connection, and the queue manager sets all or none: a selector it cannot set or a value its
attribute does not take, anywhere in the dict, leaves every attribute as it was. pymqi's
``set(selector, value)`` is the same call with one pair."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from ._modes import QUEUE, connect_to_one_per_module, embedded_for_module, site  # noqa: F401
from ._support import raises_mq

SET_INQ = CMQC.MQOO_SET | CMQC.MQOO_INQUIRE


@pytest.fixture
def queue(connect):
    """QUEUE open for set and inquire; its settable attributes put back at the end."""
    qm = connect()
    q = mqpy.Queue(qm, QUEUE, SET_INQ)
    try:
        yield q
    finally:
        q.set({CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_ALLOWED, CMQC.MQIA_TRIGGER_DEPTH: 1})
        q.close()
        qm.disconnect()


def _state(q: mqpy.Queue) -> tuple:
    return q.inquire(CMQC.MQIA_INHIBIT_PUT), q.inquire(CMQC.MQIA_TRIGGER_DEPTH)


def test_a_dict_with_a_refused_value_changes_nothing(queue):
    # given a queue whose puts are allowed
    before = _state(queue)
    assert before[0] == CMQC.MQQA_PUT_ALLOWED
    # when one set inhibits puts and then gives a trigger depth of 0 (IBM's: from 1)
    with raises_mq(CMQC.MQRC_TRIGGER_DEPTH_ERROR):
        queue.set({CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED,
                   CMQC.MQIA_TRIGGER_DEPTH: 0})
    # then neither is set: puts are still allowed
    assert _state(queue) == before


def test_a_dict_with_a_selector_mqset_cannot_set_changes_nothing(queue):
    before = _state(queue)
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        queue.set({CMQC.MQIA_TRIGGER_DEPTH: 7, CMQC.MQIA_MAX_Q_DEPTH: 10})
    assert _state(queue) == before


def test_a_dict_of_good_values_sets_them_all_and_a_pair_sets_one(queue):
    queue.set({CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED, CMQC.MQIA_TRIGGER_DEPTH: 5})
    assert _state(queue) == (CMQC.MQQA_PUT_INHIBITED, 5)
    queue.set(CMQC.MQIA_TRIGGER_DEPTH, 6)
    assert _state(queue) == (CMQC.MQQA_PUT_INHIBITED, 6)
