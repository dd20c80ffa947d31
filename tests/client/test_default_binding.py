"""Which process serves a plain client by default. crtmqm writes ``Channels:
MQIBindType=FASTPATH`` in the new queue manager's qm.ini (mqpy runs no user-written channel
exits, the reason for IBM's STANDARD default), so its clients are served by the queue
manager's daemon; a qm.ini without the key (IBM's default, STANDARD), or with STANDARD, keeps
the channel initiator's relay. Who serves is read from who holds the client's socket."""

from __future__ import annotations

import os

import pytest

from mqpy import config
from tests.client.conftest import wait_for
from tests.support.fastpath import STANDARD, _holders
from tests.support.site import ADMIT_OWNER, QM, Site
from tests.support.site_here import HereSite

pytestmark = pytest.mark.system


def _started(root: str, channels: dict[str, str] | None = None) -> Site:
    site = HereSite(root, channels)
    site.start()
    site.mqsc(ADMIT_OWNER)
    return site


def _served_by(site: Site) -> set[str]:
    """Which processes hold a connected client's socket, once the channel initiator has let
    go of a handed-over one."""
    qm = site.client()
    try:
        wait_for(lambda: len(_holders(site)) == 1)
        return _holders(site)
    finally:
        qm.disconnect()


def test_crtmqm_writes_fastpath_and_the_daemon_serves_clients(tmp_path):
    """Given a queue manager as crtmqm creates it, when a client connects through a SVRCONN,
    then qm.ini says MQIBindType=FASTPATH where the operator can see and change it, and the
    client's socket is held by the daemon, not by the channel initiator."""
    site = _started(str(tmp_path / "data"))
    try:
        with open(os.path.join(site.qmdir, "qm.ini")) as f:
            assert "MQIBindType=FASTPATH" in f.read()
        assert config.QMgrConfig.load(QM, site.inst.root).channel_limits.fastpath
        assert _served_by(site) == {"daemon"}
    finally:
        site.stop()


def _without_bind_type(site: Site) -> None:
    """qm.ini's Channels stanza without MQIBindType (every other key kept)."""
    path = os.path.join(site.qmdir, "qm.ini")
    stanzas = config.read_stanzas(path)
    for name, values in stanzas:
        if name.lower() == "channels":
            for key in [k for k in values if k.lower() == "mqibindtype"]:
                del values[key]
    config.write_stanzas(path, stanzas)


def test_a_qm_ini_without_the_key_relays_through_the_channel_initiator(tmp_path):
    """Given a queue manager whose qm.ini the operator edited to leave MQIBindType out (IBM's
    default, STANDARD), when strmqm restarts it and a client connects, then the channel
    initiator holds the client's socket (its SVRCONN relays the calls)."""
    site = _started(str(tmp_path / "data"))
    try:
        assert site.inst.run("endmqm", "-i", QM).returncode == 0
        _without_bind_type(site)
        assert not config.QMgrConfig.load(QM, site.inst.root).channel_limits.fastpath
        proc = site.inst.run("strmqm", QM)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        site._wait_listening()
        assert _served_by(site) == {"chinit"}
    finally:
        site.stop()


def test_standard_relays_through_the_channel_initiator(tmp_path):
    """Given qm.ini Channels: MQIBindType=STANDARD before strmqm, when a client connects, then
    the channel initiator holds the client's socket."""
    site = _started(str(tmp_path / "data"), STANDARD)
    try:
        assert _served_by(site) == {"chinit"}
    finally:
        site.stop()
