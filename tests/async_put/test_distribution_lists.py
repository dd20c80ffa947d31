"""An asynchronous put to a distribution list is one put operation for MQSTAT, as IBM's MQSTS
counts them ("the number of asynchronous put operations that completed with MQCC_OK"): one
success for a put that reached every destination, one warning for one that reached some
(MQRC_MULTIPLE_REASONS), however many destinations the list has."""

from __future__ import annotations

import mqpy
from mqpy import CMQC

from .conftest import ASYNC, OUT, drain


def _stat(qm: mqpy.QueueManager) -> tuple[int, int, int, int]:
    sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    return sts.PutSuccessCount, sts.PutWarningCount, sts.PutFailureCount, sts.Reason


def test_an_asynchronous_put_to_a_list_counts_once(qm):
    """Given a distribution list of AP.Q and AP.OTHER, when the application puts two
    messages to it asynchronously, then MQSTAT counts two successes (not four), and each
    queue has both messages."""
    q = mqpy.Queue(qm)
    q.open(["AP.Q", "AP.OTHER"], OUT)
    for body in (b"one", b"two"):
        q.put(body, mqpy.MD(), mqpy.PMO(Options=ASYNC))
    assert _stat(qm) == (2, 0, 0, CMQC.MQRC_NONE)
    q.close()
    assert drain(qm, "AP.Q") == [b"one", b"two"]
    assert drain(qm, "AP.OTHER") == [b"one", b"two"]


def test_a_partly_failed_asynchronous_put_to_a_list_is_one_warning(qm):
    """Given a distribution list of AP.Q and the put-inhibited AP.INHIBITED, when the
    application puts one message to it asynchronously, then the call completes with
    MQCC_OK and MQSTAT counts one warning, MQRC_MULTIPLE_REASONS, and no success or
    failure; AP.Q has the message."""
    q = mqpy.Queue(qm)
    q.open(["AP.Q", "AP.INHIBITED"], OUT)
    q.put(b"half", mqpy.MD(), mqpy.PMO(Options=ASYNC))
    assert _stat(qm) == (0, 1, 0, CMQC.MQRC_MULTIPLE_REASONS)
    q.close()
    assert drain(qm, "AP.Q") == [b"half"]
