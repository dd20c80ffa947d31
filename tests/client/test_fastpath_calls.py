"""The deployed client calls of ``test_relay`` (structures and data both ways, truncation,
units of work and a lost client, MAXMSGL, the channel status counters, malformed bodies,
requests sent without waiting, a client lost during a waiting get, tshark's dissection) run
again against a queue manager with qm.ini ``Channels: MQIBindType=FASTPATH``, where the
daemon serves the client itself (``mqpy_chinit.clienthost``): an application sees the same."""

from __future__ import annotations

import pytest

from tests.client.test_relay import *  # noqa: F403 - the same tests, collected here too
from tests.client.test_relay import _empty  # noqa: F401 - its autouse fixture
from tests.support.fastpath import FASTPATH, _holders, daemon_alone_holds
from tests.support.site import ADMIT_OWNER
from tests.support.site_here import HereSite


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = HereSite(str(tmp_path_factory.mktemp("fastpath-calls")), FASTPATH)
    try:
        s.start()
        s.mqsc(ADMIT_OWNER + "DEFINE QLOCAL(RELAY.Q) MAXDEPTH(1000)\n")
        yield s
    finally:
        s.stop()


def test_the_client_is_served_by_the_daemon(site):
    """Given this module's queue manager, when a client connects, then its socket is held by
    the daemon: the tests above ran against FASTPATH, not the relay."""

    qm = site.client()
    try:
        assert daemon_alone_holds(site), _holders(site)
    finally:
        qm.disconnect()
