"""Given a transmission-queue message with properties, when a sending MCA passes it to a
partner from before message properties (FAP level below 10), then the channel's PROPCTL
decides: ALL sends them in the MQRFH2, COMPAT only when one is in a JMS folder (none:
stripped), NONE strips them, and a property that requires support makes the message one the
channel cannot carry; a partner with properties gets the message as it was put."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy.engine.mqmd import _transmission_message
from mqpy.properties.carriage import give_properties
from mqpy.properties.channelcarry import for_partner
from mqpy.properties.propset import PropertySet
from mqpy.structs.tables import MD, XQH

OLD, NEW = 9, 10


def _xmit_message(props: dict, support: int = CMQC.MQPD_SUPPORT_OPTIONAL) -> bytes:
    pset = PropertySet()
    for name, value in props.items():
        pset.set(name, value, CMQC.MQTYPE_STRING, support=support)
    md = MD(Format=CMQC.MQFMT_STRING)
    data = give_properties(pset, b"body", md)
    outer, body = _transmission_message(md, data, "TARGET", "QM2")
    return body


def _sent(data: bytes) -> tuple[bytes, bytes]:
    xqh = XQH().unpack(data[:XQH().packed_size()])
    return xqh.MsgDesc.Format, data[XQH().packed_size():]


@pytest.mark.parametrize("propctl,name,kept", [
    ("ALL", "mq_usr.a", True), ("COMPAT", "usr.a", True), ("COMPAT", "mq_usr.a", False),
    ("NONE", "usr.a", False)])
def test_channel_propctl_for_a_partner_without_properties(propctl, name, kept):
    data = _xmit_message({name: "x"})
    fmt, body = _sent(for_partner(propctl, OLD, data))
    if kept:
        assert fmt == CMQC.MQFMT_RF_HEADER_2 and body.endswith(b"body")
    else:
        assert (fmt, body) == (CMQC.MQFMT_STRING, b"body")


def test_a_property_that_requires_support_cannot_go_to_an_old_partner():
    data = _xmit_message({"mq.sup": "x"}, CMQC.MQPD_SUPPORT_REQUIRED)
    assert for_partner("COMPAT", OLD, data) is None
    assert for_partner("ALL", OLD, data) == data


@pytest.mark.parametrize("propctl", ["ALL", "COMPAT", "NONE"])
def test_a_partner_with_properties_gets_the_message_as_put(propctl):
    data = _xmit_message({"mq_usr.a": "x"})
    assert for_partner(propctl, NEW, data) == data
