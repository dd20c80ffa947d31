"""Sites (``tests.support.site``) for tests that use a daemon rather than test how an operator
runs runmqsc or endmqm: their MQSC goes to the daemon's command server from runmqsc's own code
run in this process (``Site.mqsc_here``: the same commands and report, without an interpreter
started for each script), and at the end the daemon and its channel initiator are killed by
pid, not ended by ``endmqm -i`` first (nothing is checked after it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.support.fastpath import FastpathSite
from tests.support.site import ADMIT_OWNER, Site

#: the queue these sites have (tests.client.test_relay's raw sessions open it)
QUEUE = "RELAY.Q"


class _Here:
    def mqsc(self, script: str, *, ok: bool = True) -> str:
        return self.mqsc_here(script, ok=ok)  # type: ignore[attr-defined]

    def stop(self) -> None:
        self.inst.kill_all()  # type: ignore[attr-defined]


class HereSite(_Here, Site):
    """Site, its MQSC run here, killed at the end."""


class FastpathHereSite(_Here, FastpathSite):
    """FastpathSite, its MQSC run here, killed at the end."""


def started_site(root: str, channels: dict[str, str] | None = None,
                 kind: type[Site] = Site) -> Iterator[Site]:
    """A module fixture's body: a daemon started by strmqm in ``root`` with its channel
    initiator (qm.ini Channels values ``channels``), the owner admitted as a client, and
    QUEUE; stopped at the end (``kind``: Site ends it with endmqm -i, HereSite kills it)."""
    s = kind(root, channels)
    try:
        s.start()
        s.mqsc_here(ADMIT_OWNER + f"DEFINE QLOCAL({QUEUE})\n")
        yield s
    finally:
        s.stop()


def here_started_site(root: str, channels: dict[str, str] | None = None) -> Iterator[Site]:
    """:func:`started_site` with a HereSite."""
    return started_site(root, channels, HereSite)


def site_per_bind_type(folder: str, kind: type[Site] = Site) -> Callable[..., Iterator[Site]]:
    """A module's ``site`` fixture: :func:`started_site` once with each MQIBindType
    (STANDARD: the channel initiator relays client calls; FASTPATH: the daemon serves them),
    its data in a folder named ``folder`` and the bind type. A module assigns it to ``site``."""

    @pytest.fixture(scope="module", params=["STANDARD", "FASTPATH"])
    def site(request, tmp_path_factory) -> Iterator[Site]:
        yield from started_site(
            str(tmp_path_factory.mktemp(f"{folder}_{request.param.lower()}") / "data"),
            {"MQIBindType": request.param}, kind)

    return site


def here_site_per_bind_type(folder: str) -> Callable[..., Iterator[Site]]:
    """:func:`site_per_bind_type` with HereSites."""
    return site_per_bind_type(folder, HereSite)
