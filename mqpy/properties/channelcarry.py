"""What a sending MCA does with the properties of a transmission-queue message for a partner
queue manager that does not understand message properties (one from before MQ version 7,
whose channel negotiated a FAP level below PROPERTIES_FAP_LEVEL): the channel's PROPCTL
(``delivery.channel_delivery``, IBM's "PROPCTL channel options") says whether they go in an
MQRFH2, go not at all, or make the message one the channel cannot carry
(MQRC_UNSUPPORTED_PROPERTY: to the dead-letter queue). A partner that understands properties
gets them all, as they were put, whatever PROPCTL says.

The message is the transmission-queue message's data: its MQXQH (with the message's MQMD)
then the message's data, whose MQRFH2 headers carry the properties (MQMD Format MQHRF2).
"""

from __future__ import annotations

from types import SimpleNamespace

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.properties.carriage import take_properties
from mqpy.properties.delivery import ChannelAction, channel_delivery
from mqpy.properties.propset import PropertySet
from mqpy.structs.tables import XQH

__all__ = ["PROPCTL", "PROPERTIES_FAP_LEVEL", "for_partner"]

C = CMQC
#: the FAP level of the first queue managers with message properties (MQ version 7)
PROPERTIES_FAP_LEVEL = 10
#: a channel's PROPCTL word -> MQPROP_*
PROPCTL = {"COMPAT": C.MQPROP_COMPATIBILITY, "NONE": C.MQPROP_NONE, "ALL": C.MQPROP_ALL}
_XQH_LENGTH = XQH().packed_size()


def for_partner(propctl: str, fap_level: int, data: bytes) -> bytes | None:
    """The transmission-queue message ``data`` as the channel sends it to a partner of
    ``fap_level`` under PROPCTL ``propctl``; None when the message cannot go
    (MQRC_UNSUPPORTED_PROPERTY)."""
    if fap_level >= PROPERTIES_FAP_LEVEL or len(data) < _XQH_LENGTH:
        return data
    xqh = XQH().unpack(data[:_XQH_LENGTH])
    md = xqh.MsgDesc
    if md.Format != C.MQFMT_RF_HEADER_2:
        return data
    pset = PropertySet(validate=False)
    shape = SimpleNamespace(Format=md.Format, Encoding=md.Encoding,
                            CodedCharSetId=md.CodedCharSetId)
    try:
        rest = take_properties(data[_XQH_LENGTH:], shape, pset)
    except MQMIError:
        return data  # not well formed: as it was put
    action = channel_delivery(PROPCTL.get(propctl, C.MQPROP_COMPATIBILITY), pset)
    if action is ChannelAction.SEND_RFH2:
        return data
    if action is ChannelAction.REJECT:
        return None
    md.Format, md.Encoding, md.CodedCharSetId = shape.Format, shape.Encoding, \
        shape.CodedCharSetId
    xqh.MsgDesc = md
    return xqh.pack() + rest
