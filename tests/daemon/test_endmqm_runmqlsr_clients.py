"""endmqm tells the clients of a runmqlsr what it tells the queue manager's own.

A runmqlsr (IBM's listener command; mqpy's serves its SVRCONN instances in its own process,
outside the daemon's client host, and outlives its queue manager) serves channels of the
queue manager; IBM: "If you issue endmqm to stop a queue manager, reconnectable clients do
not try to reconnect" unless -r, and a controlled end is, for client channels, STOP
CHANNEL MODE(QUIESCE).

Given a reconnectable client connected through a runmqlsr of a queue manager that relays
client calls (MQIBindType=STANDARD), when the queue manager is ended with endmqm -i and
started again, then the client does not reconnect (its next call fails
MQRC_CONNECTION_BROKEN); with endmqm -i -r it reconnects through the same runmqlsr and goes
on; and when endmqm -c is issued, a client whose instance shares conversations has its event
handler told MQRC_CONNECTION_QUIESCING at once, while the queue manager waits for it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import mqpy as pymqi  # the programs below are written as pymqi programs are
from mqpy import CMQC
from tests.support.endings import (
    RECONNECTING,
    came,
    end_connections,
    endmqm,
    ensure_running,
    ready,
    running,
)
from tests.support.endings import client as connected
from tests.support.runmqlsr import Runmqlsr
from tests.support.site import QM, QUEUE, Site
from tests.support.site_here import HereSite, started_site

pytestmark = [pytest.mark.system, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def standard_site(tmp_path_factory) -> Iterator[Site]:
    yield from started_site(str(tmp_path_factory.mktemp("endmqm_lsr") / "data"),
                            {"MQIBindType": "STANDARD"}, HereSite)


@pytest.fixture(scope="module")
def listener(standard_site, tmp_path_factory) -> Iterator[Runmqlsr]:
    lsr = Runmqlsr(standard_site.inst, str(tmp_path_factory.mktemp("lsr") / "runmqlsr.out"), qmgr=QM)
    yield lsr
    lsr.end()


@pytest.fixture
def site(standard_site, listener, monkeypatch, tmp_path) -> Iterator[Site]:
    """The queue manager running, QUEUE empty, a reconnecting mqclient.ini."""
    yield ready(standard_site, monkeypatch, tmp_path, RECONNECTING)
    end_connections()


def client(listener: Runmqlsr, sharecnv: int) -> tuple[pymqi.QueueManager, list[int]]:
    """A client connection through the runmqlsr, with an event handler: what it is told."""
    return connected(None, f"127.0.0.1({listener.port})", sharecnv)


IN_OUT = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED


@pytest.mark.parametrize("sharecnv", [10, 0])
def test_a_plain_endmqm_does_not_reconnect_a_runmqlsr_client(site, listener, sharecnv):
    """Given a reconnectable client through the runmqlsr, with a queue open, when endmqm -i
    ends the queue manager and strmqm starts it again, then the client's next call fails
    MQRC_CONNECTION_BROKEN and it never reconnected."""
    qmgr, events = client(listener, sharecnv)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    endmqm(site, "-i")
    ensure_running(site)
    time.sleep(1)  # (a reconnection, if it were made, has had its chance)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"x")
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    assert CMQC.MQRC_RECONNECTED not in events


def test_endmqm_r_lets_a_runmqlsr_client_reconnect(site, listener):
    """Given a reconnectable client through the runmqlsr and a persistent message put, when
    endmqm -i -r ends the queue manager and strmqm starts it again, then the client's next
    get gets the message through the runmqlsr, after MQRC_RECONNECTING and
    MQRC_RECONNECTED."""
    qmgr, events = client(listener, 10)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    queue.put(b"kept", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    endmqm(site, "-i", "-r")
    ensure_running(site)
    assert queue.get() == b"kept"
    assert events[:2] == [CMQC.MQRC_RECONNECTING, CMQC.MQRC_RECONNECTED]
    queue.close()
    qmgr.disconnect()


def test_a_controlled_endmqm_tells_a_runmqlsr_client_at_once(site, listener):
    """Given a client through the runmqlsr on an instance that shares conversations, when
    endmqm -c is issued, then its event handler is told MQRC_CONNECTION_QUIESCING with no
    call made, a put with MQPMO_FAIL_IF_QUIESCING fails MQRC_Q_MGR_QUIESCING, and one
    without it goes on; once it disconnects, the controlled end completes (the runmqlsr
    holds none of it)."""
    qmgr, events = client(listener, 10)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    endmqm(site, "-c")
    assert came(lambda: CMQC.MQRC_CONNECTION_QUIESCING in events, 10), events
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"refused", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_FAIL_IF_QUIESCING))
    assert e.value.reason == CMQC.MQRC_Q_MGR_QUIESCING
    queue.put(b"goes on")
    queue.close()
    qmgr.disconnect()
    assert came(lambda: not running(site), 20)


def test_a_controlled_endmqm_completes_while_a_runmqlsr_runs(site, tmp_path):
    """Given a runmqlsr started while the queue manager runs and no client connected, when
    endmqm -c is issued, then the queue manager ends (IBM's listeners do not hold a
    controlled end)."""
    fresh = Runmqlsr(site.inst, str(tmp_path / "runmqlsr.out"), qmgr=QM)
    try:
        endmqm(site, "-c")
        ended = came(lambda: not running(site), 20)
        if not ended:
            endmqm(site, "-i")
    finally:
        fresh.end()
    assert ended
