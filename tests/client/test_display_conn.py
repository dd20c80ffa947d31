"""DISPLAY CONN of a client connection names its SVRCONN and the client's address, whether
the channel initiator relays its calls (MQIBindType=STANDARD) or the queue manager serves
them (FASTPATH)."""

from __future__ import annotations

import functools

import pytest

from tests.support.fastpath import STANDARD
from tests.support.site import ADMIT_OWNER, CHANNEL
from tests.support.site_here import FastpathHereSite, HereSite

pytestmark = pytest.mark.system


@pytest.mark.parametrize("site_class", [functools.partial(HereSite, channels=STANDARD),
                                        FastpathHereSite],
                         ids=["standard", "fastpath"])
def test_display_conn_names_a_clients_channel_and_address(tmp_path, site_class):
    """Given a client connected through a SVRCONN and an application connected in bindings
    mode, when the operator displays connections with CHANNEL and CONNAME, then the client's
    connection shows the channel and 127.0.0.1 and the bindings one shows neither."""
    site = site_class(str(tmp_path / "data"))
    try:
        site.start()
        site.mqsc(ADMIT_OWNER)
        client = site.client()
        local = site.bindings()
        try:
            out = site.mqsc("DISPLAY CONN(*) TYPE(CONN) CHANNEL CONNAME APPLTAG")
        finally:
            client.disconnect()
            local.disconnect()
    finally:
        site.stop()
    blocks = [" ".join(b.split()) for b in out.split("AMQ8276I")[1:]]
    clients = [b for b in blocks if f"CHANNEL({CHANNEL})" in b]
    assert len(clients) == 1, out
    assert "CONNAME(127.0.0.1)" in clients[0]
    assert any("CHANNEL( )" in b and "CONNAME( )" in b for b in blocks), out

