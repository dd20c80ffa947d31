"""MQCTL STOP and SUSPEND over a client connection to a queue manager started by strmqm, its
SVRCONN served by the queue manager (MQIBindType=FASTPATH) or relayed by the channel
initiator to its socket (STANDARD): they return promptly while the dispatcher waits."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from tests.async_consume.test_stop_promptly import (
    assert_prompt,
    stop_times,
    timed,
    waiting_consumer,
)
from tests.read_ahead.test_client_connections import site  # noqa: F401 - a fixture

pytestmark = pytest.mark.system


def test_stop_and_suspend_return_promptly_over_a_deployed_client(site):  # noqa: F811
    """Given a client's consumer waiting on an empty queue (plain gets), when another
    thread issues MQOP_STOP or MQOP_SUSPEND and then any call, then both return promptly,
    whether the queue manager serves the channel or the channel initiator relays it; then
    MQDISC with consumption started returns promptly too."""
    qm = site.client()
    waiting_consumer(qm, "RA.CQ", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_NO_READ_AHEAD)
    assert_prompt(stop_times(qm, CMQC.MQOP_STOP))
    assert_prompt(stop_times(qm, CMQC.MQOP_SUSPEND))
    qm.ctl(CMQC.MQOP_START)
    assert timed(qm.disconnect) < 0.1
