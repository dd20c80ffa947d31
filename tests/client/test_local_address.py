"""Which channel instance a client conversation uses, seen from the application: the
local address of its socket (client connections, SHARECNV)."""

from __future__ import annotations

from tests.client.conftest import CHANNEL


def test_shared_conversations_have_their_instances_local_address(env):
    """Given SHARECNV(2), when a process makes three client connections, then the two that
    share an instance have the same local address, the third another, and a disconnected
    connection has none."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", SHARECNV=2)
    conns = [env.client() for _ in range(3)]
    addresses = [qm.connection().local_address for qm in conns]
    assert all(isinstance(a, tuple) and a[1] > 0 for a in addresses)
    assert len(set(addresses)) == 2
    assert addresses[0] == addresses[1] != addresses[2]
    handle = conns[2].connection()
    for qm in conns:
        qm.disconnect()
    assert handle.local_address is None
