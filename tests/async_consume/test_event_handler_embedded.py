"""The MQCB event handler of an embedded connection is told, whatever the state of its
asynchronous consumption, of its queue manager quiescing (MQRC_CONNECTION_QUIESCING) and of
its end (MQRC_CONNECTION_BROKEN, consumption then stopped)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.async_consume.event_states import QUEUES, STATES, Watched, tell_in_every_state

NAME = "ACEVEMB"


@pytest.fixture
def watched(tmp_path):
    data_path = str(tmp_path)
    conns: dict[str, Watched] = {}
    try:
        for state in STATES:
            qm = mqpy.embedded(NAME, data_path=data_path)
            if not conns:
                for name in QUEUES.values():
                    qm.connection().engine.define("QLOCAL", name, {})
            conns[state] = Watched(qm, state)
        yield conns
    finally:
        for w in conns.values():
            w.end()
        mqpy.stop_embedded(NAME, data_path=data_path)


def test_a_quiescing_then_ended_embedded_queue_manager_is_told_in_every_state(watched, tmp_path):
    """Given embedded connections with an event handler, their consumption registered but
    not started, started, suspended and in a callback, when the queue manager quiesces,
    then each handler is told MQRC_CONNECTION_QUIESCING (the running one once its callback
    returned); when it then ends, each is told MQRC_CONNECTION_BROKEN and its consumption
    is STOPPED."""
    engine = watched["idle"].qm.connection().engine
    engine.quiesce()
    tell_in_every_state(watched, CMQC.MQRC_CONNECTION_QUIESCING)
    mqpy.stop_embedded(NAME, data_path=str(tmp_path))
    for state, w in watched.items():
        assert w.wait_told(CMQC.MQRC_CONNECTION_BROKEN) == [
            CMQC.MQRC_CONNECTION_QUIESCING, CMQC.MQRC_CONNECTION_BROKEN], state
        assert w.wait_stopped() == "STOPPED", state
