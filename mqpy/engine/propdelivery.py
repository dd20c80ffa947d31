"""MQGET of a message that carries properties (``records.FLAG_PROPERTIES``): the queue
manager's half of handing them over, what selectors read of a stored message, and the
messages with properties that read ahead streams as they are stored.

A message's properties are stored as IBM's MQRFH2 folders at the front of its data, whether
they came from a message handle (the MQI of the application's process writes the handle's
properties so: ``mqpy.properties.calls``) or from an MQRFH2 the application put itself: one
form, logged, kept on the pagesets and restored at restart with the message. On MQGET the
queue manager decides where they go (``mqpy.properties.handover``: the MQGMO_PROPERTIES_*
options, the queue's PROPCTL, whether a message handle was given). A message read ahead goes
as it is stored, and the application's side hands its properties over the same way
(``mqpy.readahead``), so that an MQGET served from the buffer returns what one served here
would.

The message handle itself never reaches the queue manager: as in IBM's MQ client, it lives in
the application's process.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

from mqpy import CMQC
from mqpy.engine import records as R
from mqpy.errors import MQMIError
from mqpy.properties.carriage import check_properties_length, take_properties
from mqpy.properties.handover import (
    HANDED_OVER,
    PROPCTL,
    Delivered,
    check_options,
    deliver,
    has_handle,
    shape_of,
)
from mqpy.properties.propset import PropertySet
from mqpy.structs.tables import GMO, MD

__all__ = ["HANDED_OVER", "Delivered", "check_options", "check_put", "deliver", "has_handle",
           "message_properties", "propctl_of", "take_ahead"]

C = CMQC
#: how read ahead takes a message with properties: as it is stored, outside syncpoint
_AHEAD = C.MQGMO_NO_SYNCPOINT | C.MQGMO_PROPERTIES_FORCE_MQRFH2


def propctl_of(obj_attrs: dict, base_attrs: dict) -> int:
    """The PROPCTL an MQGET through an object obeys: the object's (an alias's own), else its
    base queue's; COMPAT by default."""
    word = obj_attrs.get("PROPCTL") or base_attrs.get("PROPCTL") or "COMPAT"
    return PROPCTL.get(str(word), C.MQPROP_COMPATIBILITY)


def message_properties(md_bytes: bytes, body: bytes) -> dict[str, Any]:
    """The properties of a stored message (name -> value), for a selector; an MQRFH2 that
    is not well formed holds none."""
    pset = PropertySet(validate=False)
    try:
        take_properties(body, shape_of(md_bytes), pset)
    except MQMIError:
        return {}
    return pset.values()


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


def take_ahead(conn: Any, hobj: int, entry: Any, options: int, max_message: int
               ) -> tuple[None, tuple[bytes, bytes]] | None:
    """Read ahead's take of ``entry``, the next message of ``hobj`` that the fast path left
    because it carries properties: (no LSN, (its MQMD bytes, its data as stored)), removed
    from the queue as a non-persistent get outside syncpoint is; None when the usual get
    must judge it (persistent, expired, longer than ``max_message``, on a pageset only,
    without properties, or ``options`` asking for MQGMO_CONVERT). Called with the engine's
    lock held."""
    record = entry.record
    if type(record) is not bytes or entry.persistent or options & C.MQGMO_CONVERT \
            or not R.record_flags(record) & R.FLAG_PROPERTIES \
            or 0 < entry.expiry_at <= time.time():
        return None
    _put_time, _backout, md_bytes, body = R.decode_message(record)
    if len(body) > max_message:
        return None
    md = MD(Version=C.MQMD_VERSION_2)
    data = conn._get_general(hobj, md, GMO(Options=_AHEAD), None, None)
    return None, (md.pack(), data)
