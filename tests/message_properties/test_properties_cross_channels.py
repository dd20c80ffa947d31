"""Given a message put with properties on QM1 for a queue of QM2 (a sender-receiver channel
between them, each end understanding properties), when it crosses the channel, then an
application on QM2 gets the same properties in its message handle, whatever the sender's
channel PROPCTL (IBM: PROPCTL acts only towards a partner without message properties), and a
persistent one crosses with them too."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.channels.conftest import make_qmgr, qm1, qm2  # noqa: F401
from tests.channels.pairs import running_pair
from tests.support.waiting import wait_until

from ._handles import get_into_handle


def _put_with_properties(qm1, persistent: bool) -> None:  # noqa: F811
    conn = qm1.connect()
    try:
        handle = mqpy.MessageHandle(conn, mqpy.CMHO())
        handle.properties.set("colour", "blue")
        handle.properties.set("mq_usr.n", 5, property_type=CMQC.MQTYPE_INT32)
        pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
        pmo.OriginalMsgHandle = handle.msg_handle
        md = mqpy.MD(Format=CMQC.MQFMT_STRING, Persistence=int(persistent))
        conn.put1(mqpy.OD(ObjectName=b"TARGET", ObjectQMgrName=b"QM2"), b"crossed", md, pmo)
    finally:
        conn.disconnect()


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
        _put_with_properties(qm1, persistent=False)
        _put_with_properties(qm1, persistent=True)
        await wait_until(lambda: qm2.depth("TARGET") == 2, 20)
    assert _got(qm2) == (b"crossed", "blue", 5)
    assert _got(qm2) == (b"crossed", "blue", 5)
