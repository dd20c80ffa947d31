"""A subscription's record: what MQSUB or DEFINE SUB made, as DISPLAY SUB shows it.

A durable subscription is kept in the object catalogue as an object of type SUB named by its
SUBID (48 hexadecimal characters: a catalogue name, where SUBNAME may be 10240 characters),
its attributes under DISPLAY SUB's keywords; so it is logged before it exists, checkpointed
with the other definitions and recovered at restart, as IBM keeps durable subscriptions
across restarts. A non-durable one lives only in memory, for its handle's lifetime.
"""

from __future__ import annotations

import time

import attrs

from mqpy import CMQC
from mqpy.engine.objects import ObjectDef

__all__ = ["OBJTYPE", "Subscription"]

#: the catalogue's object type of a durable subscription
OBJTYPE = "SUB"

_PRIORITY_WORDS = {CMQC.MQPRI_PRIORITY_AS_PUBLISHED: "ASPUB",
                   CMQC.MQPRI_PRIORITY_AS_Q_DEF: "ASQDEF"}
_PRIORITY_NUMBERS = {word: n for n, word in _PRIORITY_WORDS.items()}


@attrs.define(eq=False)
class Subscription:
    """One subscription (DISPLAY SUB's attributes, with the engine's names)."""

    subid: bytes  #: 24 bytes, unique in the queue manager
    name: str  #: SUBNAME ("" for an unnamed non-durable one)
    topic: str  #: the full topic string subscribed to (wildcards included)
    dest: str  #: the destination queue
    dest_qmgr: str = ""
    managed: bool = False  #: DESTCLAS(MANAGED): the queue manager made the destination
    durable: bool = False
    correl_id: bytes = CMQC.MQCI_NONE  #: DESTCORL: every publication's CorrelId
    user_data: bytes = b""
    selector: str = ""
    sub_user: str = ""
    expiry: int = CMQC.MQEI_UNLIMITED
    pub_priority: int = CMQC.MQPRI_PRIORITY_AS_PUBLISHED
    pub_accounting: bytes = CMQC.MQACT_NONE
    pub_appl_id: str = ""
    on_request: bool = False  #: MQSO_PUBLICATIONS_ON_REQUEST (REQONLY)
    wildcard_scheme: int = CMQC.MQWS_TOPIC
    admin: bool = False  #: SUBTYPE(ADMIN): made by DEFINE SUB
    proxy: bool = False  #: SUBTYPE(PROXY): made for another queue manager (interqmgr)
    #: PSPROP: MSGPROP (and COMPAT, RFH2) add the publish/subscribe properties, NONE none
    psprop: str = "MSGPROP"
    topic_object: str = ""
    set_identity: bool = False  #: MQSO_SET_IDENTITY_CONTEXT
    options: int = 0  #: the MQSO_* options it was made with
    started: float = attrs.field(factory=time.time)  #: made or last altered (its expiry's start)

    def expired(self, now: float) -> bool:
        """Whether its SubExpiry (tenths of a second from ``started``) has passed."""
        return self.expiry != CMQC.MQEI_UNLIMITED and now >= self.started + self.expiry / 10

    @property
    def subtype(self) -> str:
        """SUBTYPE: ADMIN, PROXY or API."""
        return "ADMIN" if self.admin else "PROXY" if self.proxy else "API"

    @property
    def subid_hex(self) -> str:
        return self.subid.hex().upper()

    def attributes(self) -> dict[str, object]:
        """The record under DISPLAY SUB's keywords."""
        return {
            "SUBID": self.subid_hex, "SUBNAME": self.name, "TOPICSTR": self.topic,
            "TOPICOBJ": self.topic_object, "DEST": self.dest, "DESTQMGR": self.dest_qmgr,
            "DESTCLAS": "MANAGED" if self.managed else "PROVIDED",
            "DURABLE": "YES" if self.durable else "NO",
            "DESTCORL": self.correl_id.hex().upper(),
            "USERDATA": self.user_data.decode("utf-8", "replace"), "SELECTOR": self.selector,
            "SUBUSER": self.sub_user,
            "EXPIRY": "UNLIMITED" if self.expiry == CMQC.MQEI_UNLIMITED else self.expiry,
            "PUBPRTY": _PRIORITY_WORDS.get(self.pub_priority, self.pub_priority),
            "PUBACCT": self.pub_accounting.hex().upper(), "PUBAPPID": self.pub_appl_id,
            "REQONLY": "YES" if self.on_request else "NO",
            "WSCHEMA": "CHAR" if self.wildcard_scheme == CMQC.MQWS_CHAR else "TOPIC",
            "SUBTYPE": self.subtype, "PSPROP": self.psprop,
            "SUBSCOPE": "ALL", "VARUSER": "ANY", "SUBLEVEL": 1, "SETIDENT": self.set_identity,
            "SUBOPTS": self.options, "STARTED": self.started,
        }

    @classmethod
    def from_object(cls, obj: ObjectDef) -> Subscription:
        """A durable subscription from its catalogue object."""
        a = obj.attributes
        expiry = a.get("EXPIRY", "UNLIMITED")
        priority = a.get("PUBPRTY", "ASPUB")
        return cls(
            subid=bytes.fromhex(str(a["SUBID"])), name=str(a.get("SUBNAME", "")),
            topic=str(a.get("TOPICSTR", "")), dest=str(a.get("DEST", "")),
            dest_qmgr=str(a.get("DESTQMGR", "")), managed=a.get("DESTCLAS") == "MANAGED",
            durable=a.get("DURABLE") == "YES",
            correl_id=bytes.fromhex(str(a.get("DESTCORL") or "00" * 24)),
            user_data=str(a.get("USERDATA", "")).encode("utf-8"),
            selector=str(a.get("SELECTOR", "")), sub_user=str(a.get("SUBUSER", "")),
            expiry=CMQC.MQEI_UNLIMITED if expiry == "UNLIMITED" else int(expiry),  # type: ignore[arg-type]
            pub_priority=_PRIORITY_NUMBERS.get(str(priority), priority)  # type: ignore[arg-type]
            if isinstance(priority, str) else int(priority),  # type: ignore[arg-type]
            pub_accounting=bytes.fromhex(str(a.get("PUBACCT") or "00" * 32)),
            pub_appl_id=str(a.get("PUBAPPID", "")), on_request=a.get("REQONLY") == "YES",
            wildcard_scheme=CMQC.MQWS_CHAR if a.get("WSCHEMA") == "CHAR" else CMQC.MQWS_TOPIC,
            admin=a.get("SUBTYPE") == "ADMIN", proxy=a.get("SUBTYPE") == "PROXY",
            psprop=str(a.get("PSPROP") or "MSGPROP"),
            topic_object=str(a.get("TOPICOBJ", "")),
            set_identity=bool(a.get("SETIDENT", False)), options=int(a.get("SUBOPTS", 0)),  # type: ignore[call-overload]
            started=float(a.get("STARTED", 0.0)),  # type: ignore[arg-type]
        )
