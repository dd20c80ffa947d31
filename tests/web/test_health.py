"""``mqpy health QM``: exit 0 with a healthy report when the queue manager, its command server
and its channel initiator answer; the first that does not, with its reason and exit code,
otherwise; JSON with -o json."""

from __future__ import annotations

import json

import pytest

from mqpy_cli.web.health import RC_CMDSERV, RC_OK, RC_QMGR, RC_UNKNOWN, health
from tests.support.cli import run
from tests.support.installation import cli
from tests.support.site import QM, Site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = Site(str(tmp_path_factory.mktemp("health")))
    try:
        yield s.start()
    finally:
        s.stop()


def test_a_running_queue_manager_is_healthy(site):
    out = run(health, QM, "-o", "json", root=site.inst.root)
    report = json.loads(out.output)
    assert out.exit_code == RC_OK
    assert report["healthy"] and report["channelInitiator"] == "running"
    assert report["commandServer"] == "running" and report["state"] == "running"
    text = run(health, QM, root=site.inst.root)
    assert text.exit_code == RC_OK and text.output.startswith(f"{QM}: healthy")


def test_the_mqpy_command_has_health(site):
    """Given the installation's `mqpy` command, when `mqpy health QM -o json` runs, then it is
    the same check (exit 0, a healthy report)."""
    from mqpy_cli.statscmd import cli as mqpy_command

    out = run(mqpy_command, "health", QM, "-o", "json", root=site.inst.root)
    assert out.exit_code == RC_OK, out.output
    assert json.loads(out.output)["healthy"]


def test_an_unknown_name_says_so(site):
    out = run(health, "NOSUCH", root=site.inst.root)
    assert out.exit_code == RC_UNKNOWN and "AMQ7048E" in out.output


def test_a_stopped_command_server_is_named(site):
    """endmqcsv: the command server does not answer, exit 2 naming it."""
    assert cli(site.inst, "runmqsc", "endmqcsv", QM).returncode == 0
    try:
        out = run(health, QM, "-o", "json", root=site.inst.root)
        assert out.exit_code == RC_CMDSERV, out.output
        assert "command server" in json.loads(out.output)["reason"]
    finally:
        assert cli(site.inst, "runmqsc", "strmqcsv", QM).returncode == 0


def test_an_ended_queue_manager_is_not_healthy(site):
    """Last: ends the queue manager."""
    assert site.inst.run("endmqm", "-i", QM).returncode == 0
    site.inst.wait_ended(QM)
    out = run(health, QM, "-o", "json", root=site.inst.root)
    assert out.exit_code == RC_QMGR
    assert json.loads(out.output)["state"].startswith("ended")

