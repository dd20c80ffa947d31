"""The MQCB event handler of a client connection (its SVRCONN served by the queue manager,
MQIBindType=FASTPATH) is told, whatever the state of its asynchronous consumption
(registered but never started, started and idle, suspended, a consumer's callback running),
of its channel stopped (MQRC_CONNECTION_BROKEN), of a controlled end
(MQRC_CONNECTION_QUIESCING, never beside a running callback) and of the queue manager's
process killed (MQRC_CONNECTION_BROKEN); a broken connection's consumption stops. One queue
manager for the file: the last test kills it."""

from __future__ import annotations

import os
import signal

import pytest

from mqpy import CMQC
from tests.async_consume.event_states import (
    NOT_STARTED,
    QUEUES,
    STATES,
    STOP_CONN_UNTOLD,
    Watched,
    conn_ids,
    tell_in_every_state,
)
from tests.support.site import ADMIT_OWNER, CHANNEL, QM
from tests.support.site_here import HereSite

pytestmark = pytest.mark.system


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = HereSite(str(tmp_path_factory.mktemp("cbevent-client") / "data"),
                 {"MQIBindType": "FASTPATH"})
    try:
        s.start()
        s.mqsc(ADMIT_OWNER + "".join(f"DEFINE QLOCAL({q})\n" for q in QUEUES.values()))
        yield s
    finally:
        s.stop()


def _watched(site) -> dict[str, Watched]:
    return {state: Watched(site.client(), state) for state in STATES}


@pytest.fixture(scope="module")
def watched(site):
    conns = _watched(site)
    try:
        yield conns
    finally:
        for w in conns.values():
            w.end()


def _broken_and_stopped(watched: dict[str, Watched]) -> None:
    for state, w in watched.items():
        reasons = w.wait_told(CMQC.MQRC_CONNECTION_BROKEN)
        assert reasons[-1:] == [CMQC.MQRC_CONNECTION_BROKEN], state
        assert reasons.count(CMQC.MQRC_CONNECTION_BROKEN) == 1, state
        assert w.wait_stopped() == "STOPPED", state


def test_a_stopped_channel_is_told_in_every_state(site):
    """Given client connections with an event handler, their consumption registered but not
    started, started, suspended and in a callback, when STOP CHANNEL MODE(FORCE) ends their
    channel instance, then each handler is told MQRC_CONNECTION_BROKEN, once, and the
    consumption of each is STOPPED."""
    conns = _watched(site)
    try:
        site.mqsc(f"STOP CHANNEL({CHANNEL}) MODE(FORCE)\n")
        for w in conns.values():
            w.release.set()
        _broken_and_stopped(conns)
    finally:
        for w in conns.values():
            w.end()
        site.mqsc(f"START CHANNEL({CHANNEL})\n", ok=False)


@pytest.mark.xfail(strict=True, reason=STOP_CONN_UNTOLD)
def test_stop_conn_is_told_to_a_client_between_calls(site):
    """Given a client connection with an event handler, its consumption not started, when
    STOP CONN ends it, then its handler is told MQRC_CONNECTION_BROKEN."""
    w = Watched(site.client(), NOT_STARTED)
    try:
        mine = conn_ids(site.mqsc(f"DISPLAY CONN(*) WHERE(CHANNEL EQ {CHANNEL})\n"))
        assert len(mine) == 1
        assert "AMQ8458I" in site.mqsc(f"STOP CONN({mine.pop()})\n")
        assert w.wait_told(CMQC.MQRC_CONNECTION_BROKEN, timeout=2) \
            == [CMQC.MQRC_CONNECTION_BROKEN]
    finally:
        w.end()


def test_a_controlled_end_is_told_in_every_state_never_beside_a_callback(site, watched):
    """Given client connections in each state, when endmqm -c quiesces the queue manager,
    then each handler is told MQRC_CONNECTION_QUIESCING, once, the running one only once
    its callback returned; the consumption of each stays as it was."""
    ended = site.inst.run("endmqm", "-c", QM)
    assert ended.returncode == 0, ended.stderr
    tell_in_every_state(watched, CMQC.MQRC_CONNECTION_QUIESCING)
    assert [w.consumption for w in watched.values()] \
        == ["STOPPED", "STARTED", "SUSPENDED", "STARTED"]
    assert all(w.reasons() == [CMQC.MQRC_CONNECTION_QUIESCING] for w in watched.values())


def test_a_killed_queue_manager_is_told_in_every_state(site, watched):
    """Given the same connections, when the queue manager's process is killed, then each
    handler is told MQRC_CONNECTION_BROKEN, once, and the consumption of each is STOPPED."""
    for w in watched.values():
        w.release.set()
    os.kill(site.inst.pid(QM), signal.SIGKILL)
    _broken_and_stopped(watched)
