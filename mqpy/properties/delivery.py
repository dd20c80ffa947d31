"""How MQGET hands a message's properties over: in the message handle, as an MQRFH2 in front
of the data, or not at all (MQGMO_PROPERTIES_* options and the queue's PROPCTL).

IBM's rules, one decision per case (``delivery``):

1. At most one of MQGMO_PROPERTIES_FORCE_MQRFH2, _IN_HANDLE, _COMPATIBILITY and
   MQGMO_NO_PROPERTIES; more is MQRC_OPTIONS_ERROR. None of them is MQGMO_PROPERTIES_AS_Q_DEF.
2. MQGMO_NO_PROPERTIES: none delivered (those of the MQMD stay in the MQMD).
3. MQGMO_PROPERTIES_FORCE_MQRFH2: an MQRFH2, even when a handle is given.
4. MQGMO_PROPERTIES_IN_HANDLE: in the handle; no handle is MQRC_HMSG_ERROR.
5. MQGMO_PROPERTIES_COMPATIBILITY: in the handle if one is given; else an MQRFH2 when a
   property is in the mcd, jms, usr or mqext folder (a JMS application's), else none.
6. AS_Q_DEF with a handle: in the handle (PROPCTL ALL, COMPAT and NONE alike), unless PROPCTL
   is FORCE (an MQRFH2; the handle is ignored) or V6COMPAT (the MQRFH2 as it was put).
7. AS_Q_DEF without a handle: PROPCTL ALL and FORCE give an MQRFH2, COMPAT as in rule 5,
   NONE none, V6COMPAT the MQRFH2 as it was put.

A channel's PROPCTL (``channel_delivery``) decides what a sending MCA does with the properties
of a message for a partner that does not understand properties (IBM's "PROPCTL channel
options"):

8. ALL: every property goes, in an MQRFH2.
9. COMPAT: the properties go in an MQRFH2 when one is in a reserved folder (mcd, jms, usr,
   mqext) and none requires support (Support other than MQPD_SUPPORT_OPTIONAL); with one
   that requires support the message is rejected (MQRC_UNSUPPORTED_PROPERTY); with none in
   a reserved folder none go.
10. NONE: no property goes; one that requires support rejects the message.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from mqpy import CMQC
from mqpy.properties.errors import fail
from mqpy.properties.names import folder_of
from mqpy.properties.propset import Property

__all__ = ["ChannelAction", "Delivery", "channel_delivery", "delivery", "is_jms_related"]

C = CMQC
_CHOICES = (C.MQGMO_PROPERTIES_FORCE_MQRFH2, C.MQGMO_NO_PROPERTIES,
            C.MQGMO_PROPERTIES_IN_HANDLE, C.MQGMO_PROPERTIES_COMPATIBILITY)
_JMS_FOLDERS = frozenset(("mcd", "jms", "usr", "mqext"))


class Delivery(enum.Enum):
    """Where MQGET puts the properties."""

    HANDLE = "handle"
    RFH2 = "rfh2"
    NONE = "none"
    AS_PUT = "as_put"  #: PROPCTL(V6COMPAT): the MQRFH2 exactly as the putter sent it


def is_jms_related(property_names: Iterable[str]) -> bool:
    """Does any (kept) name lie in the mcd, jms, usr or mqext folder?"""
    return any(folder_of(n) in _JMS_FOLDERS for n in property_names)


def _compat(has_handle: bool, property_names: Iterable[str]) -> Delivery:
    if has_handle:
        return Delivery.HANDLE
    return Delivery.RFH2 if is_jms_related(property_names) else Delivery.NONE


def delivery(gmo_options: int, propctl: int, has_handle: bool,
             property_names: Iterable[str] = ()) -> Delivery:
    """Where the properties of a message go on MQGET (rules 1-7 of the module)."""
    chosen = [c for c in _CHOICES if gmo_options & c]
    if len(chosen) > 1:
        raise fail(C.MQRC_OPTIONS_ERROR)
    choice = chosen[0] if chosen else C.MQGMO_PROPERTIES_AS_Q_DEF
    if choice == C.MQGMO_NO_PROPERTIES:
        return Delivery.NONE
    if choice == C.MQGMO_PROPERTIES_FORCE_MQRFH2:
        return Delivery.RFH2
    if choice == C.MQGMO_PROPERTIES_IN_HANDLE:
        if not has_handle:
            raise fail(C.MQRC_HMSG_ERROR)
        return Delivery.HANDLE
    if choice == C.MQGMO_PROPERTIES_COMPATIBILITY or propctl == C.MQPROP_COMPATIBILITY:
        return _compat(has_handle, property_names)
    if propctl == C.MQPROP_FORCE_MQRFH2:
        return Delivery.RFH2
    if propctl == C.MQPROP_V6COMPAT:
        return Delivery.AS_PUT
    if has_handle:
        return Delivery.HANDLE
    return Delivery.NONE if propctl == C.MQPROP_NONE else Delivery.RFH2


class ChannelAction(enum.Enum):
    """What a sending MCA does with a message's properties for a partner without them."""

    SEND_RFH2 = "send_rfh2"
    DROP = "drop"
    REJECT = "reject"  #: MQRC_UNSUPPORTED_PROPERTY: to the dead-letter queue or back


def channel_delivery(propctl: int, properties: Iterable[Property]) -> ChannelAction:
    """Rules 8-10 of the module for the properties of one message."""
    props = list(properties)
    if not props:
        return ChannelAction.DROP
    if propctl == C.MQPROP_ALL:
        return ChannelAction.SEND_RFH2
    if any(p.support != C.MQPD_SUPPORT_OPTIONAL for p in props):
        return ChannelAction.REJECT
    if propctl == C.MQPROP_COMPATIBILITY and is_jms_related(p.name for p in props):
        return ChannelAction.SEND_RFH2
    return ChannelAction.DROP
