"""Given QM2's receiving end playing a queue manager from before message properties (it
answers the sender's initial data with FAP level 9, and the channel runs at 9), when QM1's
sender channel carries messages put with properties, then its PROPCTL decides what QM2 gets
(IBM's "PROPCTL channel options"): ALL every property, in an MQRFH2; COMPAT all of them when
one is in a JMS folder (usr, mcd, jms, mqext), else none; NONE none; and a message with a
property that requires support (MQPD_SUPPORT_REQUIRED) goes to QM1's dead-letter queue with
MQRC_UNSUPPORTED_PROPERTY while the channel carries on. The data and its Format arrive as
put. A partner that understands properties gets them all, whatever PROPCTL says."""

from __future__ import annotations

import attrs
import pytest

import mqpy
from mqpy import CMQC
from mqpy_chinit import receiver_mca
from tests.channels.conftest import make_qmgr, qm1, qm2  # noqa: F401
from tests.channels.pairs import running_pair
from tests.support.channel_pair import DLQ
from tests.support.waiting import wait_until

from ._handles import get_into_handle

OLD_FAP_LEVEL = 9
COLOUR = ("usr.colour", "blue", CMQC.MQPD_SUPPORT_OPTIONAL)  # a JMS folder's
COUNT = ("mq_usr.n", "5", CMQC.MQPD_SUPPORT_OPTIONAL)  # not a JMS folder's
REQUIRED = ("mq.sup", "x", CMQC.MQPD_SUPPORT_REQUIRED)


@pytest.fixture
def old_partner(monkeypatch):
    """QM2's receiver proposes FAP level 9: the sender re-proposes it and both run at 9."""
    ours = receiver_mca.our_id

    def our_id(*args):
        return attrs.evolve(ours(*args), fap_level=OLD_FAP_LEVEL)

    monkeypatch.setattr(receiver_mca, "our_id", our_id)


def _put(qm1, body: bytes, props: list[tuple[str, str, int]]) -> None:  # noqa: F811
    conn = qm1.connect()
    try:
        handle = mqpy.MessageHandle(conn, mqpy.CMHO())
        for name, value, support in props:
            handle.properties.set(name, value, pd=mqpy.PD(Support=support))
        pmo = mqpy.PMO(Version=CMQC.MQPMO_VERSION_3)
        pmo.OriginalMsgHandle = handle.msg_handle
        conn.put1(mqpy.OD(ObjectName=b"TARGET", ObjectQMgrName=b"QM2"), body,
                  mqpy.MD(Format=CMQC.MQFMT_STRING), pmo)
    finally:
        conn.disconnect()


def _got(qm2) -> tuple[bytes, bytes, dict]:  # noqa: F811
    """The next message on QM2's TARGET: its data, Format, and properties (in a handle)."""
    conn = qm2.connect()
    try:
        data, md, handle = get_into_handle(conn, "TARGET")
        props = {}
        for name in (COLOUR[0], COUNT[0]):
            try:
                props[name] = handle.properties.get(name)
            except mqpy.MQMIError:
                pass
        return data, md.Format, props
    finally:
        conn.disconnect()


@pytest.mark.parametrize("propctl,props,kept", [
    ("ALL", [COLOUR, COUNT], True),
    ("COMPAT", [COLOUR, COUNT], True),
    ("COMPAT", [COUNT], False),
    ("NONE", [COLOUR, COUNT], False),
])
async def test_channel_propctl_toward_a_partner_without_properties(
        qm1, qm2, old_partner, propctl, props, kept):  # noqa: F811
    async with running_pair(qm1, qm2, [], BATCHSZ=10, PROPCTL=propctl):
        _put(qm1, b"crossed", props)
        await wait_until(lambda: qm2.committed("TARGET") == 1, 20)
    expected = {name: value for name, value, _support in props} if kept else {}
    assert _got(qm2) == (b"crossed", CMQC.MQFMT_STRING, expected)


@pytest.mark.parametrize("propctl", ["COMPAT", "NONE"])
async def test_a_property_requiring_support_is_dead_lettered_at_the_sender(
        qm1, qm2, old_partner, propctl):  # noqa: F811
    async with running_pair(qm1, qm2, [], BATCHSZ=10, PROPCTL=propctl):
        _put(qm1, b"cannot go", [COLOUR, REQUIRED])
        _put(qm1, b"goes", [COUNT])
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm1.committed(DLQ) == 1, 20)
    assert _got(qm2) == (b"goes", CMQC.MQFMT_STRING, {})
    conn = qm1.connect()
    try:
        q = mqpy.Queue(conn, DLQ, CMQC.MQOO_INPUT_SHARED)
        md = mqpy.MD()
        data = q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT
                                        | CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2))
        q.close()
    finally:
        conn.disconnect()
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    dlh = mqpy.DLH().unpack(data[:mqpy.DLH().packed_size()])
    assert dlh.Reason == CMQC.MQRC_UNSUPPORTED_PROPERTY
    assert dlh.DestQName.rstrip(b" \0") == b"TARGET"
    assert data.endswith(b"cannot go")


async def test_a_partner_with_properties_gets_them_whatever_propctl(qm1, qm2):  # noqa: F811
    async with running_pair(qm1, qm2, [], BATCHSZ=10, PROPCTL="NONE"):
        _put(qm1, b"crossed", [COUNT])
        await wait_until(lambda: qm2.committed("TARGET") == 1, 20)
    assert _got(qm2) == (b"crossed", CMQC.MQFMT_STRING, {"mq_usr.n": "5"})
