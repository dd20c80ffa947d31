"""The message properties of a publication's copies, as IBM sets them: the publication's own
properties (the MQRFH2 its MQPUT carried), then MQTopicString (``mqps.Top``, the topic
string published on), MQSubUserData (``mqps.Sud``) for a subscription with SubUserData, and
MQIsRetained (``mqps.Ret``, TRUE) on a retained publication sent to a new or requesting
subscriber. They are stored as every message's properties are (one MQRFH2 in front of the
data, MQMD Format MQHRF2), so MQGET gives them in a message handle or as an MQRFH2 per the
MQGMO_PROPERTIES_* options and the destination's PROPCTL, and a subscription's selection
string selects on them.

The publication's properties are read once; each copy's data is built once per distinct
SubUserData.
"""

from __future__ import annotations

from typing import Any

import attrs

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.properties.carriage import give_properties, take_properties
from mqpy.properties.propset import PropertySet
from mqpy.structs.tables import MD

__all__ = ["Publication"]

TOPIC_STRING, SUB_USER_DATA, IS_RETAINED = "mqps.Top", "mqps.Sud", "mqps.Ret"


@attrs.define
class Publication:
    """A publication's body without its properties, its properties, and each copy's data."""

    md: MD  #: the publication's MQMD, its Format that of ``body``
    body: bytes
    own: PropertySet
    retained: bool
    _copies: dict[bytes, tuple[bytes, bytes]] = attrs.field(factory=dict)

    @classmethod
    def of(cls, md: MD, data: bytes, topic: str, retained: bool = False) -> Publication:
        """The publication ``md`` / ``data`` put on ``topic``. An MQRFH2 that is not well
        formed is kept as the data (its properties are then not read), as MQGET does."""
        described = md.copy()
        own = PropertySet(validate=False)
        try:
            body = take_properties(data, described, own)
        except MQMIError:
            described, body, own = md.copy(), bytes(data), PropertySet(validate=False)
        own.set(TOPIC_STRING, topic, CMQC.MQTYPE_STRING)
        if retained:
            own.set(IS_RETAINED, True, CMQC.MQTYPE_BOOLEAN)
        return cls(described, body, own, retained)

    def values(self) -> dict[str, Any]:
        """The properties a subscription's selector reads (name -> value)."""
        return self.own.values()

    def copy_for(self, user_data: bytes) -> tuple[bytes, bytes]:
        """(MQMD Format, data) of the copy for a subscription with SubUserData
        ``user_data``."""
        made = self._copies.get(user_data)
        if made is None:
            props = self.own
            if user_data.rstrip(b" \0"):
                props = PropertySet(validate=False)
                for p in self.own:
                    props.add(p)
                props.set(SUB_USER_DATA, user_data.rstrip(b" \0").decode("utf-8", "replace"),
                          CMQC.MQTYPE_STRING)
            md = self.md.copy()
            data = give_properties(props, self.body, md)
            made = self._copies[user_data] = (bytes(md.Format), data)
        return made
