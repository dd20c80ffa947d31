"""A runmqlsr that misses a START CHANNEL does not keep the channel STOPPED.

IBM: START CHANNEL on a stopped receiving channel (a receiver, a server-connection channel)
changes its state "from Stopped to Inactive; the listener then changes the state from
Inactive to Started" -- a listener has no STOPPED state of its own. mqpy's runmqlsr keeps
a STOPPED mark for the channel initiator's STOP CHANNEL (``lsrcontrol``); a START it missed
(hung or unreachable when the channel initiator forwarded it) is found out when a partner
comes: the runmqlsr reads the queue manager's remembered state before it refuses one.

Given a server-connection channel stopped with STOP CHANNEL while a runmqlsr serves it, and
the runmqlsr's control socket out of the channel initiator's reach while START CHANNEL is
issued, when a client then connects through it, then the client is served.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

import mqpy as pymqi  # the programs below are written as pymqi programs are
from mqpy import CMQC
from mqpy_chinit import lsrcontrol
from tests.support.endings import came, client, end_connections, ready
from tests.support.runmqlsr import Runmqlsr
from tests.support.site import CHANNEL, QM, Site
from tests.support.site_here import HereSite, started_site

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def standard_site(tmp_path_factory) -> Iterator[Site]:
    yield from started_site(str(tmp_path_factory.mktemp("lsr_start") / "data"),
                            {"MQIBindType": "STANDARD"}, HereSite)


@pytest.fixture
def listener(standard_site, tmp_path, monkeypatch) -> Iterator[Runmqlsr]:
    ready(standard_site, monkeypatch, tmp_path)
    lsr = Runmqlsr(standard_site.inst, str(tmp_path / "runmqlsr.out"), qmgr=QM)
    try:
        yield lsr
    finally:
        end_connections()
        lsr.end()
        standard_site.mqsc_here(f"START CHANNEL({CHANNEL})\n", ok=False)


def test_a_start_the_runmqlsr_missed_does_not_leave_it_refusing_clients(standard_site,
                                                                        listener):
    """Given CHANNEL stopped (the runmqlsr refuses its clients), when START CHANNEL is
    issued while the runmqlsr's control socket cannot be found (moved aside, then put
    back), then a client through the runmqlsr is served (once the channel initiator has
    forgotten the state, at once or within a few tries)."""
    address = f"127.0.0.1({listener.port})"
    standard_site.mqsc_here(f"STOP CHANNEL({CHANNEL})\n")
    with pytest.raises(pymqi.MQMIError) as e:
        client(standard_site, address)
    assert e.value.reason == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
    control = lsrcontrol.socket_path(standard_site.qmdir, listener.proc.pid)
    os.rename(control, control + ".away")
    try:
        standard_site.mqsc_here(f"START CHANNEL({CHANNEL})\n")
    finally:
        os.rename(control + ".away", control)
    # (the channel initiator forgets the STOPPED state in the background as START CHANNEL
    # returns: a client that comes before that is refused, as at the partner's next try)
    assert came(lambda: _served(standard_site, address), 10), listener.output()
    assert "Traceback" not in listener.output()


def _served(site: Site, address: str) -> bool:
    try:
        qmgr, _ = client(site, address)
    except pymqi.MQMIError as e:
        assert e.reason == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
        return False
    qmgr.disconnect()
    return True
