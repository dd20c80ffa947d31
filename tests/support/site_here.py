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

#: the queue tests.mqi._modes's sites have (tests.client.test_relay's raw sessions open it)
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


def here_started_site(root: str, channels: dict[str, str] | None = None) -> Iterator[Site]:
    """``tests.mqi._modes.started_site`` with a HereSite: a module fixture's body, a daemon
    started by strmqm in ``root`` with its channel initiator (qm.ini Channels values
    ``channels``), the owner admitted as a client, and QUEUE."""
    s = HereSite(root, channels)
    try:
        s.start()
        s.mqsc(ADMIT_OWNER + f"DEFINE QLOCAL({QUEUE})\n")
        yield s
    finally:
        s.stop()


def here_site_per_bind_type(folder: str) -> Callable[..., Iterator[Site]]:
    """``tests.mqi._modes.site_per_bind_type`` with :func:`here_started_site`: a module's
    ``site`` fixture, made once with each MQIBindType (STANDARD, FASTPATH)."""

    @pytest.fixture(scope="module", params=["STANDARD", "FASTPATH"])
    def site(request, tmp_path_factory) -> Iterator[Site]:
        yield from here_started_site(
            str(tmp_path_factory.mktemp(f"{folder}_{request.param.lower()}") / "data"),
            {"MQIBindType": request.param})

    return site
