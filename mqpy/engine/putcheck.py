"""MQPUT's reading of an application's MQRFH2 before it takes the queue manager's lock
(:class:`CheckedRFH2`): the header checked well formed, its properties' length for
MAXPROPL, and, for a put on a topic, the publication's properties as its subscriptions read
them. The bytes are the caller's own, so nothing shared is needed; what was read is used
under the lock only when it was read of the very bytes put, as the MQMD describes them then.
It never changes the queue manager: it reads only."""

from __future__ import annotations

from mqpy import CMQC
from mqpy.engine import groups, propdelivery
from mqpy.engine.mqmd import _HEADER_FORMATS, _check_header
from mqpy.engine.options import _fail
from mqpy.errors import MQMIError
from mqpy.pubsub.pubprops import Publication
from mqpy.structs.tables import MD

__all__ = ["SEGMENTED_MAX", "CheckedRFH2", "publication_of"]

#: the longest message the queue manager segments (IBM's 100 MB)
SEGMENTED_MAX = 104857600

_RF_HEADER_2 = CMQC.MQFMT_RF_HEADER_2
#: the MQMD Formats of an MQRFH2 (as an application may write them)
_RFH2_FORMATS = frozenset(f for f, header in _HEADER_FORMATS.items() if header == _RF_HEADER_2)


class CheckedRFH2:
    """What MQPUT read of an application's MQRFH2 before it took the engine's lock (the
    caller's own bytes: nothing shared is needed). For ``data`` (bytes) as the MQMD's ``fmt``,
    ``encoding`` and ``ccsid`` describe it: the reason the header is refused with (0: it
    is well formed), and its properties' length as MAXPROPL counts it (``UNREAD`` when the
    queue manager had no MAXPROPL; None when they cannot be read). ``data`` not bytes, or
    longer than the queue manager takes: nothing read (``done`` False), all is checked
    under the lock as before."""

    __slots__ = ("ccsid", "data", "done", "encoding", "fmt", "length", "publication",
                 "reason", "topic")

    def __init__(self, md: MD, data: bytes, qmgr_attrs: dict, topic: str | None = None
                 ) -> None:
        d = md.__dict__
        self.fmt, self.encoding, self.ccsid = d["Format"], d["Encoding"], d["CodedCharSetId"]
        self.done, self.reason, self.length = False, 0, propdelivery.UNREAD
        self.topic, self.publication = topic, None
        if type(data) is not bytes and isinstance(data, (bytearray, memoryview)):
            data = bytes(data)
        self.data = data
        if type(data) is not bytes:
            return
        limit = int(qmgr_attrs.get("MAXMSGL", 4194304))
        if d["Version"] >= 2 and d["MsgFlags"] & groups.MF_SEGMENTATION_ALLOWED:
            limit = max(limit, SEGMENTED_MAX)
        if len(data) > limit:
            return  # (refused under the lock: 2030)
        try:
            _check_header(_RF_HEADER_2, data, self.encoding)
        except MQMIError as e:
            self.reason = e.reason
        else:
            if qmgr_attrs.get("MAXPROPL", "NOLIMIT") != "NOLIMIT":
                self.length = propdelivery.put_properties_length(md, data)
            if topic is not None:  # its properties as its subscriptions read them
                self.publication = pub = Publication.of(md, data, topic)
                pub.values()
                pub.copy_for(b"")
        self.done = True

    def of(self, md: MD, data: bytes) -> bool:
        """Was this read of ``data`` as ``md`` describes it now?"""
        d = md.__dict__
        return self.done and self.data is data and self.fmt == d["Format"] \
            and self.encoding == d["Encoding"] and self.ccsid == d["CodedCharSetId"]

    def check(self, md: MD, data: bytes, qmgr_attrs: dict) -> bool:
        """MQPUT's check of the MQRFH2 under the lock with what was read: False when this
        was not read of ``data`` as ``md`` describes it now (the caller checks it)."""
        if not self.of(md, data):
            return False
        if self.reason:
            raise _fail(self.reason)
        propdelivery.check_put(md, data, qmgr_attrs, self.length)
        return True


def publication_of(checked: CheckedRFH2 | None, md: MD, data: bytes, topic: str
                   ) -> Publication:
    """The publication ``md`` / ``data`` put on ``topic``: as ``checked`` read it before the
    lock, when it did."""
    if checked is not None and checked.publication is not None \
            and checked.topic == topic and checked.of(md, data):
        return checked.publication
    return Publication.of(md, data, topic)
