"""The message properties of a publication's copies, as IBM sets them: the publication's own
properties (the MQRFH2 its MQPUT carried), then MQTopicString (``mqps.Top``, the topic
string published on), MQSubUserData (``mqps.Sud``) for a subscription with SubUserData, and
MQIsRetained (``mqps.Ret``, TRUE) on a retained publication sent to a new or requesting
subscriber. They are stored as every message's properties are (one MQRFH2 in front of the
data, MQMD Format MQHRF2), so MQGET gives them in a message handle or as an MQRFH2 per the
MQGMO_PROPERTIES_* options and the destination's PROPCTL, and a subscription's selection
string selects on them. A subscription with PSPROP(NONE) gets the publication's own
properties only (IBM: "do not add publish/subscribe properties to the message").

The publication's properties are read once; each copy's data is built once per distinct
SubUserData. A publication put without properties (the usual case) takes its MQRFH2 from a
cache keyed by what it holds (topic, SubUserData, retained, and the Format, Encoding and
CCSID of the data after it).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import attrs

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.properties.carriage import give_properties, take_properties
from mqpy.properties.propset import PropertySet
from mqpy.structs.tables import MD

__all__ = ["Publication"]

TOPIC_STRING, SUB_USER_DATA, IS_RETAINED = "mqps.Top", "mqps.Sud", "mqps.Ret"


def _pubsub_properties(props: PropertySet, topic: str, user_data: bytes,
                       retained: bool) -> PropertySet:
    """``props`` with IBM's publish/subscribe properties of a copy set."""
    props.set(TOPIC_STRING, topic, CMQC.MQTYPE_STRING)
    text = user_data.rstrip(b" \0")
    if text:
        props.set(SUB_USER_DATA, text.decode("utf-8", "replace"), CMQC.MQTYPE_STRING)
    if retained:
        props.set(IS_RETAINED, True, CMQC.MQTYPE_BOOLEAN)
    return props


@lru_cache(maxsize=1024)
def _header(topic: str, user_data: bytes, retained: bool, fmt: bytes, encoding: int,
            ccsid: int) -> bytes:
    """The MQRFH2 of a copy of a publication put without properties."""
    md = MD(Format=fmt, Encoding=encoding, CodedCharSetId=ccsid)
    props = _pubsub_properties(PropertySet(validate=False), topic, user_data, retained)
    return give_properties(props, b"", md)


@attrs.define
class Publication:
    """A publication's body without its properties, its own properties (None: it has
    none), and each copy's data."""

    md: MD  #: the publication's MQMD, its Format that of ``body``
    body: bytes
    topic: str
    own: PropertySet | None
    retained: bool
    _copies: dict[bytes, tuple[bytes, bytes]] = attrs.field(factory=dict)
    _values: dict[str, Any] | None = None

    @classmethod
    def of(cls, md: MD, data: bytes, topic: str, retained: bool = False) -> Publication:
        """The publication ``md`` / ``data`` put on ``topic``. An MQRFH2 that is not well
        formed is kept as the data (its properties are then not read), as MQGET does."""
        if md.Format != CMQC.MQFMT_RF_HEADER_2:
            return cls(md, bytes(data), topic, None, retained)
        described = md.copy()
        own = PropertySet(validate=False)
        try:
            body = take_properties(data, described, own)
        except MQMIError:
            return cls(md, bytes(data), topic, None, retained)
        return cls(described, body, topic, own, retained)

    def values(self) -> dict[str, Any]:
        """The properties a subscription's selector reads (name -> value), made once."""
        if self._values is None:
            own = self.own.values() if self.own is not None else {}
            self._values = {**own, TOPIC_STRING: self.topic,
                            **({IS_RETAINED: True} if self.retained else {})}
        return self._values

    def copy_for(self, user_data: bytes, pubsub: bool = True) -> tuple[bytes, bytes]:
        """(MQMD Format, data) of the copy for a subscription with SubUserData
        ``user_data``; without ``pubsub`` (a subscription's PSPROP(NONE)) the copy has only
        the publication's own properties."""
        if not pubsub:
            return self._own_only()
        made = self._copies.get(user_data)
        if made is not None:
            return made
        md = self.md
        if self.own is None:
            header = _header(self.topic, user_data, self.retained, bytes(md.Format),
                             md.Encoding, md.CodedCharSetId)
            made = (CMQC.MQFMT_RF_HEADER_2, header + self.body)
        else:
            described = md.copy()
            data = give_properties(_pubsub_properties(self._own_props(), self.topic, user_data,
                                                      self.retained), self.body, described)
            made = (bytes(described.Format), data)
        self._copies[user_data] = made
        return made

    def _own_only(self) -> tuple[bytes, bytes]:
        """(MQMD Format, data) with the publication's own properties only."""
        if self.own is None:
            return bytes(self.md.Format), self.body
        described = self.md.copy()
        data = give_properties(self._own_props(), self.body, described)
        return bytes(described.Format), data

    def _own_props(self) -> PropertySet:
        """A copy of the publication's own properties."""
        props = PropertySet(validate=False)
        for p in self.own or ():
            props.add(p)
        return props
