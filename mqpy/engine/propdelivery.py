"""MQGET of a message that carries properties (``records.FLAG_PROPERTIES``): the queue
manager's half of handing them over, and what selectors read of a stored message.

A message's properties are stored as IBM's MQRFH2 folders at the front of its data, whether
they came from a message handle (the MQI of the application's process writes the handle's
properties so: ``mqpy.properties.calls``) or from an MQRFH2 the application put itself: one
form, logged, kept on the pagesets and restored at restart with the message. On MQGET the
queue manager decides where they go (``mqpy.properties.delivery``: the MQGMO_PROPERTIES_*
options, the queue's PROPCTL, whether a message handle was given):

- as an MQRFH2: the data as stored (byte for byte what was put);
- none: the property folders taken out (an MQRFH2 left with other folders stays);
- into the handle: the properties written as one MQRFH2 in front of the data, and
  ``MQGMO.MsgHandle`` returned as MQHM_UNUSABLE_HMSG, which tells the application's MQI (in
  this process, or at the other end of the bindings socket or the client channel) to move that
  MQRFH2 into its handle and put its own handle back in the MQGMO. A buffer length counts the
  data, not that MQRFH2.

The message handle itself never reaches the queue manager: as in IBM's MQ client, it lives in
the application's process.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import attrs

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.properties.carriage import check_properties_length, give_properties, take_properties
from mqpy.properties.delivery import Delivery, delivery
from mqpy.properties.propset import PropertySet
from mqpy.structs.tables import MD

__all__ = ["HANDED_OVER", "Delivered", "check_options", "check_put", "deliver", "has_handle",
           "message_properties", "propctl_of"]

C = CMQC
#: MQGMO.MsgHandle as MQGET returns it when the properties are in front of the data for the
#: application's handle
HANDED_OVER = C.MQHM_UNUSABLE_HMSG
_PROPCTL = {"COMPAT": C.MQPROP_COMPATIBILITY, "NONE": C.MQPROP_NONE, "ALL": C.MQPROP_ALL,
            "FORCE": C.MQPROP_FORCE_MQRFH2, "V6COMPAT": C.MQPROP_V6COMPAT}


@attrs.frozen
class Delivered:
    """What MQGET returns of a message with properties: ``prefix`` (the MQRFH2 for the
    handle, or empty) goes in front of ``body`` (what a buffer length counts); ``md`` the
    Format, Encoding and CodedCharSetId the returned MQMD takes (None: as stored)."""

    prefix: bytes
    body: bytes
    md: tuple[bytes, int, int] | None = None


def has_handle(gmo: Any) -> bool:
    """Does the MQGMO (version 4) give a message handle?"""
    return gmo.Version >= C.MQGMO_VERSION_4 and gmo.MsgHandle not in (C.MQHM_NONE,
                                                                      C.MQHM_UNUSABLE_HMSG)


def propctl_of(obj_attrs: dict, base_attrs: dict) -> int:
    """The PROPCTL an MQGET through an object obeys: the object's (an alias's own), else its
    base queue's; COMPAT by default."""
    word = obj_attrs.get("PROPCTL") or base_attrs.get("PROPCTL") or "COMPAT"
    return _PROPCTL.get(str(word), C.MQPROP_COMPATIBILITY)


def _described(md_bytes: bytes) -> SimpleNamespace:
    md = MD().unpack(md_bytes)
    return SimpleNamespace(Format=md.Format, Encoding=md.Encoding,
                           CodedCharSetId=md.CodedCharSetId)


def message_properties(md_bytes: bytes, body: bytes) -> dict[str, Any]:
    """The properties of a stored message (name -> value), for a selector; an MQRFH2 that
    is not well formed holds none."""
    pset = PropertySet(validate=False)
    try:
        take_properties(body, _described(md_bytes), pset)
    except MQMIError:
        return {}
    return pset.values()


def deliver(gmo: Any, propctl: int, md_bytes: bytes, body: bytes) -> Delivered:
    """Where MQGET puts the properties of the stored message (MQMD ``md_bytes``, data
    ``body``), per the module's rules; ``gmo.MsgHandle`` becomes HANDED_OVER when they go
    into the handle. An MQRFH2 that is not well formed is delivered as it was put."""
    handle = has_handle(gmo)
    pset = PropertySet(validate=False)
    shape = _described(md_bytes)
    try:
        rest = take_properties(body, shape, pset)
    except MQMIError:
        return Delivered(b"", body)
    where = delivery(gmo.Options, propctl, handle, (p.name for p in pset))
    if where is Delivery.RFH2 or where is Delivery.AS_PUT:
        return Delivered(b"", body)
    fields = (shape.Format, shape.Encoding, shape.CodedCharSetId)
    if where is Delivery.NONE:
        return Delivered(b"", rest, fields)
    gmo.MsgHandle = HANDED_OVER
    prefix = give_properties(pset, b"", shape)
    return Delivered(prefix, rest, (shape.Format, shape.Encoding, shape.CodedCharSetId))


def check_options(gmo: Any) -> None:
    """MQGET's checks of the MQGMO_PROPERTIES_* options whatever the message: more than one
    is MQRC_OPTIONS_ERROR, MQGMO_PROPERTIES_IN_HANDLE without a handle MQRC_HMSG_ERROR."""
    delivery(gmo.Options, C.MQPROP_ALL, has_handle(gmo))


def check_put(md: Any, data: bytes, qmgr_attrs: dict) -> None:
    """MQPUT's check of a message whose data starts with MQRFH2 headers: its properties
    within the queue manager's MAXPROPL (NOLIMIT: any), else MQRC_PROPERTIES_TOO_BIG."""
    limit = qmgr_attrs.get("MAXPROPL", "NOLIMIT")
    if limit == "NOLIMIT":
        return
    pset = PropertySet(validate=False)
    shape = SimpleNamespace(Format=md.Format, Encoding=md.Encoding,
                            CodedCharSetId=md.CodedCharSetId)
    try:
        take_properties(data, shape, pset)
    except MQMIError:
        return  # (the header's own checks say what is wrong with it)
    check_properties_length(pset, int(limit))
