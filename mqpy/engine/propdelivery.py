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

Reading a message's properties costs what they hold (an MQRFH2 of 200,000 of them takes
seconds), so MQGET never reads them under the engine's lock. Its pass under the lock picks
the message; when the delivery must read its properties (:func:`as_stored` says None), that
pass changes nothing and raises :class:`Unread` with the stored bytes; MQGET reads them with
no lock held (:meth:`Unread.judge`) and makes its pass again, which takes the message, or
moves the browse cursor, with the delivery read (:func:`judged_for`), when it picks the same
message, and reads the next one's otherwise. A stored message's bytes never change, so what
was read of them is what the second pass would read; nothing of the message is changed by
reading it, and a get under syncpoint that backs out leaves it as it was put.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

from mqpy import CMQC
from mqpy.engine import records as R
from mqpy.errors import MQMIError
from mqpy.properties.carriage import properties_length, take_properties
from mqpy.properties.errors import fail
from mqpy.properties.handover import (
    HANDED_OVER,
    PROPCTL,
    Delivered,
    as_stored,
    check_options,
    deliver,
    hand_over,
    has_handle,
    judge,
    shape_of,
)
from mqpy.properties.propset import PropertySet
from mqpy.structs.tables import GMO, MD

__all__ = ["HANDED_OVER", "Delivered", "Judged", "Unread", "as_stored", "check_options",
           "check_put", "deliver", "hand_over", "has_handle", "judged_for", "message_properties",
           "propctl_of", "put_properties_length", "take_ahead"]

C = CMQC
#: what :func:`check_put` is given when the properties' length was not read before
UNREAD = object()
#: how read ahead takes a message with properties: as it is stored, outside syncpoint
_AHEAD = C.MQGMO_NO_SYNCPOINT | C.MQGMO_PROPERTIES_FORCE_MQRFH2


def propctl_of(obj_attrs: dict, base_attrs: dict) -> int:
    """The PROPCTL an MQGET through an object obeys: the object's (an alias's own), else its
    base queue's; COMPAT by default."""
    word = obj_attrs.get("PROPCTL") or base_attrs.get("PROPCTL") or "COMPAT"
    return PROPCTL.get(str(word), C.MQPROP_COMPATIBILITY)


class Judged:
    """The delivery of one message's properties, read with no lock held: for the message
    of ``seq`` on ``queue``, got under PROPCTL ``propctl`` with MQGMO ``options`` (and a
    message handle given: ``handle``)."""

    __slots__ = ("handed", "handle", "options", "propctl", "queue", "seq")

    def __init__(self, queue: Any, seq: int, options: int, handle: bool, propctl: int,
                 handed: Delivered) -> None:
        self.queue, self.seq, self.options, self.handle = queue, seq, options, handle
        self.propctl, self.handed = propctl, handed


class Unread(Exception):  # noqa: N818 - a state, as StopIteration is
    """MQGET's pass under the engine's lock met a message whose properties its delivery must
    read, and changed nothing: what reading them needs, and the LSN of the expired messages
    its selection removed (to force), or None. Raised through the lock, which lets it go."""

    def __init__(self, queue: Any, seq: int, gmo: Any, propctl: int, md_bytes: bytes,
                 body: bytes, lsn: int | None) -> None:
        super().__init__(seq)
        self.queue, self.seq, self.propctl, self.lsn = queue, seq, propctl, lsn
        self.options, self.handle = gmo.Options, has_handle(gmo)
        self.md_bytes, self.body = md_bytes, body

    def judge(self) -> Judged:
        """The delivery, read (no lock is needed: the arguments are bytes and numbers)."""
        return Judged(self.queue, self.seq, self.options, self.handle, self.propctl,
                      judge(self.options, self.handle, self.propctl, self.md_bytes, self.body))


def judged_for(judged: Judged | None, queue: Any, seq: int, gmo: Any, propctl: int
               ) -> Delivered | None:
    """What ``judged`` read, when it is of the message of ``seq`` on ``queue`` got as
    ``gmo`` and ``propctl`` ask; else None."""
    if judged is None or judged.seq != seq or judged.queue is not queue \
            or judged.propctl != propctl or judged.options != gmo.Options \
            or judged.handle != has_handle(gmo):
        return None
    return judged.handed


def message_properties(md_bytes: bytes, body: bytes) -> dict[str, Any]:
    """The properties of a stored message (name -> value), for a selector; an MQRFH2 that
    is not well formed holds none."""
    pset = PropertySet(validate=False)
    try:
        take_properties(body, shape_of(md_bytes), pset)
    except MQMIError:
        return {}
    return pset.values()


def put_properties_length(md: Any, data: bytes) -> int | None:
    """The length MAXPROPL counts of the properties in the MQRFH2 headers at the front of
    an MQPUT's ``data`` (``md`` its MQMD); None when they cannot be read (the header's own
    checks say what is wrong with it). Reads only the caller's bytes: no lock is needed."""
    pset = PropertySet(validate=False)
    shape = SimpleNamespace(Format=md.Format, Encoding=md.Encoding,
                            CodedCharSetId=md.CodedCharSetId)
    try:
        take_properties(data, shape, pset)
    except MQMIError:
        return None
    return properties_length(pset)


def check_put(md: Any, data: bytes, qmgr_attrs: dict, length: int | None | object = UNREAD
              ) -> None:
    """MQPUT's check of a message whose data starts with MQRFH2 headers: its properties
    within the queue manager's MAXPROPL (NOLIMIT: any), else MQRC_PROPERTIES_TOO_BIG.
    ``length``: their :func:`put_properties_length`, when it was read before."""
    limit = qmgr_attrs.get("MAXPROPL", "NOLIMIT")
    if limit == "NOLIMIT":
        return
    if length is UNREAD:
        length = put_properties_length(md, data)
    if length is not None and int(limit) != C.MQPROP_UNRESTRICTED_LENGTH \
            and length > int(limit):  # type: ignore[operator]
        raise fail(C.MQRC_PROPERTIES_TOO_BIG)


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
