"""endmqm -p tells reconnectable clients what every endmqm tells them.

IBM: "If you issue endmqm to stop a queue manager, reconnectable clients do not try to
reconnect. To override this, specify -r"; -p (pre-emptive) is for client channels STOP
CHANNEL MODE(TERMINATE).

Given a reconnectable client of a queue manager whose client calls are served by its daemon
(MQIBindType=FASTPATH) or relayed by its channel initiator (STANDARD), when the queue
manager is ended with endmqm -p and started again, then the client does not reconnect (its
next call fails MQRC_CONNECTION_BROKEN); with endmqm -p -r it reconnects and goes on.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

import mqpy as pymqi  # the programs below are written as pymqi programs are
from mqpy import CMQC
from tests.support.endings import (
    RECONNECTING,
    client,
    end_connections,
    endmqm,
    ensure_running,
    ready,
)
from tests.support.site import QUEUE, Site
from tests.support.site_here import HereSite, started_site

pytestmark = [pytest.mark.system, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def fastpath_site(tmp_path_factory) -> Iterator[Site]:
    yield from started_site(str(tmp_path_factory.mktemp("endmqm_p") / "data"), None, HereSite)


@pytest.fixture(scope="module")
def standard_site(tmp_path_factory) -> Iterator[Site]:
    yield from started_site(str(tmp_path_factory.mktemp("endmqm_p_std") / "data"),
                            {"MQIBindType": "STANDARD"}, HereSite)


@pytest.fixture(params=["FASTPATH", "STANDARD"])
def site(request, tmp_path, monkeypatch) -> Iterator[Site]:
    """Each queue manager running, QUEUE empty, a reconnecting mqclient.ini."""
    yield ready(request.getfixturevalue("fastpath_site" if request.param == "FASTPATH"
                                        else "standard_site"), monkeypatch, tmp_path,
                RECONNECTING)
    end_connections()


IN_OUT = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED


def test_a_plain_endmqm_p_does_not_reconnect_reconnectable_clients(site):
    """Given a reconnectable client with a queue open, when endmqm -p and strmqm, then its
    next call fails MQRC_CONNECTION_BROKEN and it never reconnected."""
    qmgr, events = client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    endmqm(site, "-p")
    ensure_running(site)
    time.sleep(1)  # (a reconnection, if it were made, has had its chance)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"x")
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    assert CMQC.MQRC_RECONNECTED not in events


def test_endmqm_p_r_lets_reconnectable_clients_reconnect(site):
    """Given a reconnectable client with a queue open and a persistent message put, when
    endmqm -p -r and strmqm, then its next get gets the message over the same Queue."""
    qmgr, events = client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    queue.put(b"kept", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    endmqm(site, "-p", "-r")
    ensure_running(site)
    assert queue.get() == b"kept"
    assert CMQC.MQRC_RECONNECTED in events
