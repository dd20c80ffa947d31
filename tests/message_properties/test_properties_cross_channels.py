"""Given a message put with properties on QM1 for a queue of QM2 (a sender-receiver channel
between them, each end understanding properties), when it crosses the channel, then an
application on QM2 gets the same properties in its message handle, whatever the sender's
channel PROPCTL (IBM: PROPCTL acts only towards a partner without message properties), and a
persistent one crosses with them too."""

from __future__ import annotations

import pytest

from tests.channels.conftest import make_qmgr, qm1, qm2  # noqa: F401
from tests.channels.pairs import running_pair
from tests.support.waiting import wait_until

from ._handles import get_into_handle, put_with_properties


def _got(qm2) -> tuple[bytes, str, int]:  # noqa: F811
    conn = qm2.connect()
    try:
        data, _md, handle = get_into_handle(conn, "TARGET")
        return data, handle.properties.get("colour"), handle.properties.get("mq_usr.n")
    finally:
        conn.disconnect()


@pytest.mark.parametrize("propctl", ["COMPAT", "NONE", "ALL"])
async def test_properties_cross_a_sender_receiver_channel(qm1, qm2, propctl):  # noqa: F811
    async with running_pair(qm1, qm2, [], BATCHSZ=10, PROPCTL=propctl):
        put_with_properties(qm1, b"crossed", persistent=False)
        put_with_properties(qm1, b"crossed", persistent=True)
        await wait_until(lambda: qm2.committed("TARGET") == 2, 20)
    assert _got(qm2) == (b"crossed", "blue", 5)
    assert _got(qm2) == (b"crossed", "blue", 5)
