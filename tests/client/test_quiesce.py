"""Client connections told of a controlled endmqm as it begins, as IBM MQ tells them.

IBM: endmqm's effect on client applications "is as though a STOP CHANNEL command was issued"
-- -c (controlled) as MODE(QUIESCE), which "if sharing conversations is enabled" the client
"becomes aware of ... in a timely manner"; MQRC_CONNECTION_QUIESCING "is also issued by the
message channel agent (MCA) when the queue manager is in quiescing state"; and "if you issue
endmqm to stop a queue manager, reconnectable clients do not try to reconnect", unless -r.

Given client connections through the daemon's client host (MQIBindType=FASTPATH) or through
the channel initiator (STANDARD), when endmqm -c is issued, then at once, before the
queue manager ends and with no call made, a connection whose instance shares conversations
has its event handler told MQRC_CONNECTION_QUIESCING; calls with FAIL_IF_QUIESCING fail
MQRC_Q_MGR_QUIESCING (a waiting get at once) and other calls go on; with endmqm -c -r a
reconnectable connection leaves at once to reconnect, so that the controlled end completes,
and it goes on once the queue manager runs again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

import mqpy as pymqi  # the programs below are written as pymqi programs are
from mqpy import CMQC
from tests.support.endings import (
    came,
    client,
    client_ini,
    end_connections,
    ended,
    endmqm,
    ensure_running,
    ready,
    running,
)
from tests.support.site import CHANNEL, QUEUE, Site
from tests.support.site_here import HereSite, started_site

pytestmark = [pytest.mark.system, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def fastpath_site(tmp_path_factory) -> Iterator[Site]:
    yield from started_site(str(tmp_path_factory.mktemp("quiesce") / "data"), None, HereSite)


@pytest.fixture(scope="module")
def standard_site(tmp_path_factory) -> Iterator[Site]:
    yield from started_site(str(tmp_path_factory.mktemp("quiesce_std") / "data"),
                            {"MQIBindType": "STANDARD"}, HereSite)


@pytest.fixture(params=["FASTPATH", "STANDARD"])
def site(request, monkeypatch, tmp_path) -> Iterator[Site]:
    """A queue manager of each bind type, running, QUEUE empty, no mqclient.ini."""
    yield ready(request.getfixturevalue("fastpath_site" if request.param == "FASTPATH"
                                        else "standard_site"), monkeypatch, tmp_path,
                mqsc=f"START CHANNEL({CHANNEL})\n")
    end_connections()


# ------------------------------------------------------------------------------ helpers

IN_OUT = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED
FIQ_PMO = pymqi.PMO(Options=CMQC.MQPMO_FAIL_IF_QUIESCING | CMQC.MQPMO_NO_SYNCPOINT)
PERSISTENT = CMQC.MQPER_PERSISTENT


# -------------------------------------------------------------------------------- tests


@pytest.fixture
def fastpath(monkeypatch, tmp_path, fastpath_site) -> Iterator[Site]:
    """The FASTPATH queue manager, whose client host keeps its clients' instances until they
    go, as a controlled end waits for them."""
    monkeypatch.setenv("MQCLNTCF", str(tmp_path / "none.ini"))
    ensure_running(fastpath_site)
    fastpath_site.mqsc_here(f"CLEAR QLOCAL({QUEUE})\n", ok=False)
    yield fastpath_site
    end_connections()


def test_a_controlled_endmqm_tells_the_event_handler_at_once_and_calls_go_on(fastpath):
    """Given a client connection on an instance that shares conversations, with an event
    handler and a queue open, when endmqm -c is issued, then its event handler is told
    MQRC_CONNECTION_QUIESCING with no call made, while the queue manager waits for it; a put
    with MQPMO_FAIL_IF_QUIESCING fails MQRC_Q_MGR_QUIESCING, one without it goes on; and
    once it disconnects the queue manager ends."""
    site = fastpath
    qmgr, events = client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    endmqm(site, "-c")
    assert came(lambda: CMQC.MQRC_CONNECTION_QUIESCING in events, 10), events
    assert running(site)  # (the controlled end waits for the application)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"refused", pymqi.MD(), FIQ_PMO)
    assert e.value.reason == CMQC.MQRC_Q_MGR_QUIESCING
    queue.put(b"goes on")
    assert queue.get() == b"goes on"
    queue.close()
    qmgr.disconnect()
    assert ended(site, 30)


@pytest.mark.parametrize("sharecnv", [10, 0])
def test_a_waiting_get_that_fails_if_quiescing_returns_at_once(site, sharecnv):
    """Given a client's MQGET waiting a minute with MQGMO_FAIL_IF_QUIESCING, when endmqm -c
    is issued, then the get returns at once with MQRC_Q_MGR_QUIESCING, and the queue manager
    ends once the application disconnects."""
    qmgr, _ = client(site, sharecnv=sharecnv)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    outcome: list[object] = []

    def get() -> None:
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING, WaitInterval=60_000)
        try:
            outcome.append(queue.get(None, pymqi.MD(), gmo))
        except pymqi.MQMIError as e:
            outcome.append(e.reason)

    waiting = threading.Thread(target=get)
    waiting.start()
    time.sleep(0.5)  # (the get waits at the queue manager)
    started = time.monotonic()
    endmqm(site, "-c")
    waiting.join(20)
    assert outcome == [CMQC.MQRC_Q_MGR_QUIESCING]
    assert time.monotonic() - started < 10
    assert running(site)  # (the controlled end waits for the application)
    qmgr.disconnect()
    assert ended(site, 30)


def test_endmqm_c_r_moves_a_reconnectable_client_off_so_the_end_completes(
        site, tmp_path, monkeypatch):
    """IBM: with -r reconnectable clients start trying to reconnect. Given a reconnectable
    client (DefRecon=YES) on an instance that shares conversations, a persistent message
    put, when endmqm -c -r is issued, then the client leaves at once (its event handler told
    MQRC_RECONNECTING) and the controlled end completes without it disconnecting; once the
    queue manager is started again its next get gets the message over the same Queue."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(300,0)")
    qmgr, events = client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    queue.put(b"kept", pymqi.MD(Persistence=PERSISTENT))
    endmqm(site, "-c", "-r")
    assert came(lambda: CMQC.MQRC_RECONNECTING in events, 10), events
    assert ended(site, 30), "the reconnectable client held the controlled end"
    ensure_running(site)
    assert queue.get() == b"kept"
    assert CMQC.MQRC_RECONNECTED in events
    queue.close()
    qmgr.disconnect()


@pytest.mark.parametrize("sharecnv", [10, 0])
def test_a_plain_controlled_end_then_an_immediate_one_does_not_reconnect(
        site, tmp_path, monkeypatch, sharecnv):
    """Given a reconnectable client with a queue open, when endmqm -c is issued and, while
    the client stays (the controlled end waits for it), endmqm -i, and the queue manager is
    started again, then the client's next call fails MQRC_CONNECTION_BROKEN and it never
    reconnected."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(100,0)")
    qmgr, events = client(site, sharecnv=sharecnv)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    endmqm(site, "-c")
    time.sleep(0.5)
    assert running(site)  # (the controlled end waits for the application)
    endmqm(site, "-i")
    ensure_running(site)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"x")
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    assert CMQC.MQRC_RECONNECTED not in events
