"""``Queue.get(max_length)`` with a buffer shorter than the message, as pymqi and ibmmq 2.x
answer it over every connection type: MQRC_TRUNCATED_MSG_FAILED (a warning) carrying the
message's length (``original_length``), the message left on the queue; with
MQGMO_ACCEPT_TRUNCATED_MSG, MQRC_TRUNCATED_MSG_ACCEPTED carrying the part that fitted
(``message``) and the whole length, the message removed."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.pymqi_compat.conftest import QUEUE

pytestmark = pytest.mark.timeout(60)

BODY = b"0123456789" * 3


def test_a_short_buffer_fails_with_the_message_length(qmgr):
    """Given a 30-byte message, when Queue.get(8) reads it, then MQMIError is raised with
    MQCC_WARNING and MQRC_TRUNCATED_MSG_FAILED, original_length 30 (ibmmq's
    ``get('original_length')`` too); the message stays, and a get without a length then
    returns all of it."""
    queue = mqpy.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    queue.put(BODY)
    with pytest.raises(mqpy.MQMIError) as err:
        queue.get(8)
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_WARNING,
                                                  CMQC.MQRC_TRUNCATED_MSG_FAILED)
    assert err.value.original_length == len(BODY)
    assert err.value.get("original_length") == len(BODY)
    assert queue.get() == BODY
    queue.close()


def test_an_accepted_truncation_gives_the_part_that_fitted(qmgr):
    """Given a 30-byte message, when Queue.get(8) reads it with
    MQGMO_ACCEPT_TRUNCATED_MSG, then MQMIError(MQCC_WARNING, MQRC_TRUNCATED_MSG_ACCEPTED)
    carries the first 8 bytes as ``message`` and 30 as ``original_length``, and the message
    is gone from the queue."""
    queue = mqpy.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    queue.put(BODY)
    gmo = mqpy.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG | CMQC.MQGMO_NO_WAIT)
    with pytest.raises(mqpy.MQMIError) as err:
        queue.get(8, mqpy.MD(), gmo)
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_WARNING,
                                                  CMQC.MQRC_TRUNCATED_MSG_ACCEPTED)
    assert err.value.message == BODY[:8]
    assert err.value.original_length == len(BODY)
    with pytest.raises(mqpy.MQMIError) as empty:
        queue.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT))
    assert empty.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    queue.close()
