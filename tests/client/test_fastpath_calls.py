"""The deployed client calls of ``test_relay`` (structures and data both ways, truncation,
units of work and a lost client, MAXMSGL, the channel status counters, malformed bodies,
requests sent without waiting, a client lost during a waiting get, tshark's dissection) run
again against a queue manager with qm.ini ``Channels: MQIBindType=FASTPATH``, where the
daemon serves the client itself (``mqpy.clienthost``): an application sees the same."""

from __future__ import annotations

import pytest

from mqpy import config
from tests.client.test_relay import *  # noqa: F403 - the same tests, collected here too
from tests.client.test_relay import _empty  # noqa: F401 - its autouse fixture
from tests.security.site import ADMIT_OWNER, Site


class _FastpathSite(Site):
    """``Site``, with MQIBindType=FASTPATH in qm.ini before strmqm starts it."""

    def start(self) -> _FastpathSite:
        run = self.inst.run

        def run_configured(command: str, *args: str, **kwargs):
            if command == "strmqm":
                config.set_channels_value(args[-1], "MQIBindType", "FASTPATH",
                                          self.inst.root)
            return run(command, *args, **kwargs)

        self.inst.run = run_configured  # type: ignore[method-assign]
        try:
            return super().start()
        finally:
            self.inst.run = run  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = _FastpathSite(str(tmp_path_factory.mktemp("fastpath-calls")))
    try:
        s.start()
        s.mqsc(ADMIT_OWNER + "DEFINE QLOCAL(RELAY.Q) MAXDEPTH(1000)\n")
        yield s
    finally:
        s.stop()


def test_the_client_is_served_by_the_daemon(site):
    """Given this module's queue manager, when a client connects, then its socket is held by
    the daemon: the tests above ran against FASTPATH, not the relay."""
    from tests.client.test_fastpath import _holders

    qm = site.client()
    try:
        assert _holders(site) == {"daemon"}
    finally:
        qm.disconnect()
