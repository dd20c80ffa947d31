"""Handing a got message's properties over, wherever the message is got: the queue manager's
MQGET (``mqpy.engine.propdelivery``) and the application's side of read ahead
(``mqpy.readahead``), whose messages are streamed with their properties as they are stored
(an MQRFH2 in front of the data) and handed over there, with the application's MQGMO and the
PROPCTL its MQOPEN reply carried (``fap.fopa``), exactly as a synchronous MQGET would.

Where they go is ``delivery``'s decision:

- as an MQRFH2: the data as stored (byte for byte what was put);
- none: the property folders taken out (an MQRFH2 left with other folders stays);
- into the handle: the properties written as one MQRFH2 in front of the data (the
  ``prefix``), and ``MQGMO.MsgHandle`` returned as HANDED_OVER, which tells the application's
  MQI (``mqpy.properties.calls``) to move that MQRFH2 into its handle and put its own handle
  back in the MQGMO. A buffer length counts the data, not that MQRFH2.

Nothing here does I/O nor needs the engine.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import attrs

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.properties.carriage import give_properties, take_properties
from mqpy.properties.delivery import Delivery, delivery
from mqpy.properties.propset import PropertySet
from mqpy.structs.mdcodec import unpack_md
from mqpy.structs.tables import MD

__all__ = ["HANDED_OVER", "PROPCTL", "PROPERTY_OPTIONS", "Delivered", "as_stored",
           "carries_properties", "check_options", "deliver", "describe", "hand_over",
           "has_handle", "judge", "shape_of", "streamed"]

C = CMQC
#: MQGMO.MsgHandle as MQGET returns it when the properties are in front of the data for the
#: application's handle
HANDED_OVER = C.MQHM_UNUSABLE_HMSG
#: a queue's PROPCTL word -> MQPROP_*
PROPCTL = {"COMPAT": C.MQPROP_COMPATIBILITY, "NONE": C.MQPROP_NONE, "ALL": C.MQPROP_ALL,
           "FORCE": C.MQPROP_FORCE_MQRFH2, "V6COMPAT": C.MQPROP_V6COMPAT}
_FORMAT_AT = slice(32, 40)  # MQMD.Format in a packed MQMD
#: the MQGMO_PROPERTIES_* options (none of them: MQGMO_PROPERTIES_AS_Q_DEF)
#: deliveries that hand the data over as it is stored
_AS_STORED = (Delivery.RFH2, Delivery.AS_PUT)
#: a property name of the usr folder: what makes PROPCTL COMPAT deliver an MQRFH2
_A_JMS_NAME = ("colour",)
PROPERTY_OPTIONS = (C.MQGMO_PROPERTIES_FORCE_MQRFH2 | C.MQGMO_NO_PROPERTIES
                    | C.MQGMO_PROPERTIES_IN_HANDLE | C.MQGMO_PROPERTIES_COMPATIBILITY)


@attrs.frozen
class Delivered:
    """What MQGET returns of a message with properties: ``prefix`` (the MQRFH2 for the
    handle, or empty) goes in front of ``body`` (what a buffer length counts); ``md`` the
    Format, Encoding and CodedCharSetId the returned MQMD takes (None: as stored);
    ``into_handle`` whether the properties went into the application's handle."""

    prefix: bytes
    body: bytes
    md: tuple[bytes, int, int] | None = None
    into_handle: bool = False  #: MQGMO.MsgHandle goes back as HANDED_OVER


def has_handle(gmo: Any) -> bool:
    """Does the MQGMO (version 4) give a message handle?"""
    return gmo.Version >= C.MQGMO_VERSION_4 and gmo.MsgHandle not in (C.MQHM_NONE,
                                                                      HANDED_OVER)


def carries_properties(md_bytes: bytes) -> bool:
    """Does the message with the packed MQMD ``md_bytes`` start with MQRFH2 headers that may
    carry properties (Format MQHRF2)?"""
    return md_bytes[_FORMAT_AT] == C.MQFMT_RF_HEADER_2


def shape_of(md_bytes: bytes) -> SimpleNamespace:
    """The Format, Encoding and CodedCharSetId of the packed MQMD ``md_bytes``."""
    md = MD().unpack(md_bytes)
    return SimpleNamespace(Format=md.Format, Encoding=md.Encoding,
                           CodedCharSetId=md.CodedCharSetId)


def as_stored(gmo: Any, propctl: int, body: bytes) -> Delivered | None:
    """The delivery of a message with properties (data ``body`` as stored) when MQGET's
    options and ``propctl`` alone decide it (FORCE_MQRFH2, PROPCTL FORCE, V6COMPAT, ALL
    without a handle): the data as stored, whatever its properties, none of them read; else
    None (:func:`judge` must read them)."""
    handle = has_handle(gmo)
    where = delivery(gmo.Options, propctl, handle)
    if where in _AS_STORED and delivery(gmo.Options, propctl, handle, _A_JMS_NAME) is where:
        return Delivered(b"", body)
    return None


def judge(options: int, handle: bool, propctl: int, md_bytes: bytes, body: bytes
          ) -> Delivered:
    """Where MQGET with MQGMO ``options`` (and a message handle given, ``handle``) puts the
    properties of the message (MQMD ``md_bytes``, data ``body`` as stored), per
    ``delivery``, reading them: touches nothing but its arguments, so that the queue
    manager calls it with no lock held. ``into_handle`` tells the caller to return
    ``MQGMO.MsgHandle`` as HANDED_OVER. An MQRFH2 that is not well formed is delivered as
    it was put."""
    pset = PropertySet(validate=False)
    shape = shape_of(md_bytes)
    try:
        rest = take_properties(body, shape, pset)
    except MQMIError:
        return Delivered(b"", body)
    where = delivery(options, propctl, handle, (p.name for p in pset))
    if where is Delivery.RFH2 or where is Delivery.AS_PUT:
        return Delivered(b"", body)
    fields = (shape.Format, shape.Encoding, shape.CodedCharSetId)
    if where is Delivery.NONE:
        return Delivered(b"", rest, fields)
    prefix = give_properties(pset, b"", shape)
    return Delivered(prefix, rest, (shape.Format, shape.Encoding, shape.CodedCharSetId),
                     into_handle=True)


def deliver(gmo: Any, propctl: int, md_bytes: bytes, body: bytes) -> Delivered:
    """Where MQGET puts the properties of the message (MQMD ``md_bytes``, data ``body`` as
    stored): :func:`as_stored`, else :func:`judge`; ``gmo.MsgHandle`` becomes HANDED_OVER
    when they go into the handle."""
    handed = as_stored(gmo, propctl, body)
    if handed is None:
        handed = judge(gmo.Options, has_handle(gmo), propctl, md_bytes, body)
        hand_over(gmo, handed)
    return handed


def hand_over(gmo: Any, handed: Delivered) -> None:
    """``gmo.MsgHandle`` as MQGET returns it after ``handed``: HANDED_OVER when the
    properties went into the handle."""
    if handed.into_handle:
        gmo.MsgHandle = HANDED_OVER


def check_options(gmo: Any) -> None:
    """MQGET's checks of the MQGMO_PROPERTIES_* options whatever the message: more than one
    is MQRC_OPTIONS_ERROR, MQGMO_PROPERTIES_IN_HANDLE without a handle MQRC_HMSG_ERROR."""
    delivery(gmo.Options, C.MQPROP_ALL, has_handle(gmo))


def describe(md: Any, handed: Delivered | None) -> None:
    """The returned MQMD's Format, Encoding and CodedCharSetId as the delivery left the
    data."""
    if md is not None and handed is not None and handed.md is not None:
        d = md.__dict__
        d["Format"], d["Encoding"], d["CodedCharSetId"] = handed.md


def streamed(gmo: Any, defaults: Any, md: Any, md_bytes: bytes, data: bytes) -> Delivered:
    """A message read ahead with its properties (``md_bytes``, ``data`` as streamed: see
    :func:`carries_properties`) handed over as MQGET with ``gmo`` would, under the PROPCTL
    of the handle's MQOPEN reply (``defaults``, an ``fap.fopa.OpenDefaults``; COMPAT when it
    carried none); the caller's ``md`` (when given) filled in."""
    propctl = defaults.property_control if defaults is not None else C.MQPROP_COMPATIBILITY
    handed = deliver(gmo, propctl, md_bytes, data)
    if md is not None:
        unpack_md(md, md_bytes)
        describe(md, handed)
    return handed
