"""Client applications of a STANDARD queue manager finish through a controlled endmqm.

IBM: endmqm's effect on client applications "is as though a STOP CHANNEL command was
issued" -- with -c (controlled) MODE(QUIESCE): a client application goes on until it
disconnects, its calls with FAIL_IF_QUIESCING failing MQRC_Q_MGR_QUIESCING, and the queue
manager ends once the last has gone; -i (immediate) ends it at once.

Given qm.ini MQIBindType=STANDARD (client channels served by the channel initiator, runmqchi)
and a client connected, when endmqm -c is issued, then the client's calls go on (those with
FAIL_IF_QUIESCING fail MQRC_Q_MGR_QUIESCING), a new client is refused, and the queue manager
ends once the client disconnects; or, when endmqm -i follows, at once.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

import mqpy as pymqi  # the programs below are written as pymqi programs are
from mqpy import CMQC
from tests.client.test_quiesce import FIQ_PMO, IN_OUT
from tests.support.endings import (
    came,
    client,
    end_connections,
    ended,
    endmqm,
    ready,
    running,
)
from tests.support.site import QM, QUEUE, Site
from tests.support.site_here import HereSite, started_site

pytestmark = [pytest.mark.system, pytest.mark.timeout(240)]

#: how long runmqchi is given to see the controlled end begin (its initiation-queue get
#: fails MQRC_Q_MGR_QUIESCING at once) before a test looks at what it did
SETTLE = 1.0


@pytest.fixture(scope="module")
def standard_site(tmp_path_factory) -> Iterator[Site]:
    yield from started_site(str(tmp_path_factory.mktemp("quiesce_std") / "data"),
                            {"MQIBindType": "STANDARD"}, HereSite)


@pytest.fixture
def site(standard_site, monkeypatch, tmp_path) -> Iterator[Site]:
    """The STANDARD queue manager, running, QUEUE empty, no mqclient.ini."""
    yield ready(standard_site, monkeypatch, tmp_path)
    end_connections()
    if running(standard_site):  # (a test that failed may leave a controlled end waiting)
        standard_site.inst.run("endmqm", "-i", QM)
        ended(standard_site, 30)


@pytest.mark.parametrize("sharecnv", [10, 0])
def test_a_client_goes_on_through_a_controlled_end_and_the_end_waits_for_it(site, sharecnv):
    """Given a STANDARD client connection with a queue open, when endmqm -c is issued, then
    the queue manager waits for it: a put with MQPMO_FAIL_IF_QUIESCING fails
    MQRC_Q_MGR_QUIESCING, a put and a get without it go on; and once the client disconnects
    the queue manager ends."""
    qmgr, events = client(site, sharecnv=sharecnv)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    endmqm(site, "-c")
    if sharecnv:
        assert came(lambda: CMQC.MQRC_CONNECTION_QUIESCING in events, 10), events
    time.sleep(SETTLE)
    assert running(site), "the controlled end did not wait for the client"
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"refused", pymqi.MD(), FIQ_PMO)
    assert e.value.reason == CMQC.MQRC_Q_MGR_QUIESCING
    queue.put(b"goes on")
    assert queue.get() == b"goes on"
    time.sleep(SETTLE)
    assert running(site)
    queue.close()
    qmgr.disconnect()
    assert ended(site, 30), "the queue manager did not end after its last client went"


def test_endmqm_i_ends_a_client_that_holds_a_controlled_end(site):
    """Given a STANDARD client that stays connected through endmqm -c (the queue manager
    waits for it), when endmqm -i is issued, then the queue manager ends at once and the
    client's next call fails MQRC_CONNECTION_BROKEN."""
    qmgr, _ = client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    endmqm(site, "-c")
    time.sleep(SETTLE)
    assert running(site), "the controlled end did not wait for the client"
    started = time.monotonic()
    endmqm(site, "-i")
    assert ended(site, 30)
    assert time.monotonic() - started < 20
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"x")
    assert e.value.reason in (CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)


def test_a_new_client_is_refused_while_the_queue_manager_quiesces(site):
    """Given a STANDARD client holding a controlled end, when another client connects, then
    its MQCONN fails at once as the queue manager's would (MQRC_Q_MGR_NOT_AVAILABLE or
    MQRC_Q_MGR_QUIESCING, not an unreachable host), the first client goes on, and the queue
    manager ends once it disconnects."""
    qmgr, _ = client(site)
    endmqm(site, "-c")
    time.sleep(SETTLE)
    assert running(site), "the controlled end did not wait for the client"
    started = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as e:
        client(site)
    assert e.value.reason in (CMQC.MQRC_Q_MGR_NOT_AVAILABLE, CMQC.MQRC_Q_MGR_QUIESCING)
    assert time.monotonic() - started < 10
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    queue.put(b"still served")
    assert queue.get() == b"still served"
    queue.close()
    qmgr.disconnect()
    assert ended(site, 30)


def _pid(site: Site, name: str) -> int:
    with open(os.path.join(site.qmdir, name), encoding="ascii") as f:
        return int(f.read().split()[0])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_channel_initiator_ends_with_a_queue_manager_killed_while_it_quiesces(site):
    """Given a STANDARD client holding a controlled end, when the queue manager's process is
    killed (it writes no word of its end), then the channel initiator, which serves only
    that client now, ends by itself within a few seconds: it is not left running."""
    qmgr, _ = client(site)
    endmqm(site, "-c")
    time.sleep(SETTLE)
    assert running(site), "the controlled end did not wait for the client"
    chinit = _pid(site, "chinit.pid")
    assert _alive(chinit)
    os.kill(_pid(site, "qm.lock"), signal.SIGKILL)
    assert ended(site, 10)
    assert came(lambda: not _alive(chinit), 10), "runmqchi outlived its queue manager"
