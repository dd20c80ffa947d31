"""STOP CHANNEL of a server-connection channel (STANDARD: served by the channel initiator):
its instances end, their clients' next call gets MQRC_CONNECTION_BROKEN (2009); STATUS(STOPPED)
refuses new clients (MQRC_CHANNEL_NOT_AVAILABLE, 2537) until START CHANNEL. The same with
MQIBindType=FASTPATH is in test_fastpath."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.client.conftest import CHANNEL, QUEUE


def _stop(env, mode: str, status: str) -> None:
    chinit = env.chinit.chinit
    assert env.chinit.run_sync(lambda: chinit.stop_channel(
        CHANNEL, mode, status, chltype="SVRCONN")) is None


@pytest.mark.parametrize("mode", ["FORCE", "TERMINATE", "QUIESCE"])
def test_stop_channel_ends_a_client_between_calls(env, mode):
    """Given a client between two calls, when its channel is stopped in any mode (QUIESCE:
    no call in progress), then its next call gets 2009 and the log says why."""
    qm = env.client()
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
    q.put(b"before")
    _stop(env, mode, "INACTIVE")
    with pytest.raises(mqpy.MQMIError) as broken:
        for _ in range(200):  # the instance ends in the channel initiator's own time
            q.put(b"after")
            env.chinit.run_sync(lambda: None)
    assert broken.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    assert any(f"MODE({mode})" in text for text in env.chinit.messages("AMQ9528I"))
    assert env.depth() >= 1


def test_a_stopped_svrconn_refuses_clients_until_started(env):
    """Given STOP CHANNEL STATUS(STOPPED), when a client connects, then it is refused with
    2537 and AMQ9558E; after START CHANNEL it connects."""
    _stop(env, "QUIESCE", "STOPPED")
    with pytest.raises(mqpy.MQMIError) as refused:
        env.client()
    assert refused.value.reason == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
    assert env.chinit.messages("AMQ9558E")
    chinit = env.chinit.chinit
    assert env.chinit.run_sync(lambda: chinit.start_channel(CHANNEL)) is None
    env.client().disconnect()
