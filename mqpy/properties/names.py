"""IBM's property-name rules, as MQSETMP (with MQCMHO_VALIDATE), MQINQMP and selectors apply them.

A property name is a case-sensitive string of 1..MQ_MAX_PROPERTY_NAME_LENGTH (4095)
characters, else MQRC_PROPERTY_NAME_LENGTH_ERR. With validation (MQCMHO_VALIDATE, the
default) it is MQRC_PROPERTY_NAME_ERROR when:

1. a character is not a Java identifier character (a letter, ``$``, ``_``, a currency sign or
   connector to start; digits and combining marks after), except ``.`` which may appear
   inside the name but not first, last, or twice in a row; or it lies beyond U+FFFF;
2. it is, in any case, one of the selector keywords NULL TRUE FALSE NOT AND OR BETWEEN LIKE IN
   IS ESCAPE, alone or after ``usr.``;
3. it begins ``JMS`` or ``usr.JMS`` and is not one of the JMS names IBM maps (``JMS_SYNONYMS``);
   of those only JMSCorrelationID, JMSReplyTo, JMSType, JMSXGroupID and JMSXGroupSeq can be
   set through the MQI;
4. it begins ``mq`` in any case, is not under ``mq_usr``, and has more than one ``.``;
5. it begins ``Body.`` or ``Root.``, except ``Root.MQMD.<field>`` with a field of the MQMD
   (StrucId and Version cannot be set).

A name with no folder is in the ``usr`` folder: ``usr.colour`` and ``colour`` are one
property, kept as ``colour``. The folder of a name is what precedes its first ``.``.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from mqpy import CMQC
from mqpy.properties.errors import fail
from mqpy.structs.tables import MD

__all__ = [
    "JMS_SETTABLE",
    "JMS_SYNONYMS",
    "MQMD_FIELDS",
    "MQMD_PREFIX",
    "SQL_KEYWORDS",
    "canonical",
    "check_name",
    "folder_of",
    "is_java_identifier",
    "matches",
    "mqmd_value",
]

MQMD_PREFIX = "Root.MQMD."
USR_PREFIX = "usr."
WILDCARD = "%"
SQL_KEYWORDS = frozenset(
    ("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE"))

#: MQMD field -> the MQTYPE_* its ``Root.MQMD.<field>`` property has (MQLONG: INT32,
#: MQCHARn: STRING, MQBYTEn: BYTE_STRING), as MQRC_PROPERTY_TYPE_ERROR's text lists them
MQMD_FIELDS: dict[str, int] = {
    f.name: {"long": CMQC.MQTYPE_INT32, "text": CMQC.MQTYPE_STRING,
             "binary": CMQC.MQTYPE_BYTE_STRING}[f.kind]
    for f in MD._layout_.fields
}
_MQMD_READ_ONLY = frozenset(("StrucId", "Version"))
_MQMD_SIZES = {f.name: f.size for f in MD._layout_.fields}


def mqmd_value(md: Any, field: str) -> Any:
    """``Root.MQMD.<field>`` of ``md`` as a property value: text without trailing blanks,
    identifiers as their full bytes, numbers as they are."""
    value = getattr(md, field)
    kind = MQMD_FIELDS[field]
    if kind == CMQC.MQTYPE_STRING:
        return value.decode("latin-1").rstrip(" \0")
    if kind == CMQC.MQTYPE_BYTE_STRING:
        return value.ljust(_MQMD_SIZES[field], b"\0")
    return value

#: JMS name -> the property or MQMD field it is a synonym for (IBM's "Property name
#: restrictions"; where IBM gives both, the one an MQI application sets)
JMS_SYNONYMS: dict[str, str] = {
    "JMSCorrelationID": "jms.Cid",
    "JMSDeliveryMode": "jms.Dlv",
    "JMSDestination": "jms.Dst",
    "JMSExpiration": "jms.Exp",
    "JMSMessageID": MQMD_PREFIX + "MsgId",
    "JMSPriority": "jms.Pri",
    "JMSRedelivered": MQMD_PREFIX + "BackoutCount",
    "JMSReplyTo": "jms.Rto",
    "JMSTimestamp": "jms.Tms",
    "JMSType": "mcd.Type",
    "JMSXAppID": MQMD_PREFIX + "PutApplName",
    "JMSXDeliveryCount": MQMD_PREFIX + "BackoutCount",
    "JMSXGroupID": "jms.Gid",
    "JMSXGroupSeq": "jms.Seq",
    "JMSXUserID": MQMD_PREFIX + "UserIdentifier",
}
#: the names of the publish/subscribe properties and the MQRFH2 elements they stand for
#: (IBM's mqps and mqpse folders): the queue manager sets them on publications
PUBSUB_SYNONYMS: dict[str, str] = {
    "MQTopicString": "mqps.Top", "MQSubUserData": "mqps.Sud", "MQIsRetained": "mqps.Ret",
    "MQPubOptions": "mqps.Pub", "MQPubLevel": "mqps.Pbl", "MQPubTime": "mqpse.Pts",
    "MQPubSeqNum": "mqpse.Seq", "MQPubStrIntData": "mqpse.Sid", "MQPubFormat": "mqpse.Pfmt",
}
#: the JMS names an MQI application may set, and the MQTYPE_* each must have (a Java
#: String is MQTYPE_STRING, a Java int MQTYPE_INT32)
JMS_SETTABLE: dict[str, int] = {
    "JMSCorrelationID": CMQC.MQTYPE_STRING,
    "JMSReplyTo": CMQC.MQTYPE_STRING,
    "JMSType": CMQC.MQTYPE_STRING,
    "JMSXGroupID": CMQC.MQTYPE_STRING,
    "JMSXGroupSeq": CMQC.MQTYPE_INT32,
}

_START = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Sc", "Pc"))
_PART = _START | frozenset(("Nd", "Mn", "Mc", "Cf"))


def is_start(ch: str) -> bool:
    """May ``ch`` start a Java identifier (and is it in the Basic Multilingual Plane)?"""
    if ch < "\x80":
        return ch.isalpha() or ch in "$_"
    return ch <= "\uffff" and unicodedata.category(ch) in _START


def is_part(ch: str) -> bool:
    """May ``ch`` continue a Java identifier (in the Basic Multilingual Plane)?"""
    if ch < "\x80":
        return ch.isalnum() or ch in "$_" or ch <= "\x08" or "\x0e" <= ch <= "\x1b"
    return ch <= "\uffff" and unicodedata.category(ch) in _PART


def is_java_identifier(text: str) -> bool:
    """Is ``text`` a Java identifier, with ``.`` allowed inside but not first, last or twice
    in a row (rule 1)?"""
    if not text or not is_start(text[0]) or text[-1] == "." or ".." in text:
        return False
    return all(ch == "." or is_part(ch) for ch in text[1:])


def _check_length(name: str) -> None:
    if not 0 < len(name) <= CMQC.MQ_MAX_PROPERTY_NAME_LENGTH:
        raise fail(CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR)


def _check_reserved(name: str, *, for_set: bool) -> None:
    """Rules 2 to 5 (rule 1 is checked by the caller)."""
    bare = name[len(USR_PREFIX):] if name.startswith(USR_PREFIX) else name
    if bare.upper() in SQL_KEYWORDS:
        raise fail(CMQC.MQRC_PROPERTY_NAME_ERROR)
    if bare.startswith("JMS"):
        allowed = JMS_SETTABLE if for_set else JMS_SYNONYMS
        if bare is not name or bare not in allowed:
            raise fail(CMQC.MQRC_PROPERTY_NAME_ERROR)
    if name[:2].lower() == "mq" and not name.startswith("mq_usr") and name.count(".") > 1:
        raise fail(CMQC.MQRC_PROPERTY_NAME_ERROR)
    if name.startswith(MQMD_PREFIX):
        field = name[len(MQMD_PREFIX):]
        if field not in MQMD_FIELDS or for_set and field in _MQMD_READ_ONLY:
            raise fail(CMQC.MQRC_PROPERTY_NAME_ERROR)
    elif name.startswith(("Root.", "Body.")) or name in ("Root", "Body"):
        raise fail(CMQC.MQRC_PROPERTY_NAME_ERROR)


def check_name(name: str, *, validate: bool = True, for_set: bool = True,
               wildcard: bool = False) -> str:
    """``name`` as kept (see ``canonical``), or PropertyError with IBM's reason.

    ``validate`` False is MQCMHO_NO_VALIDATION: only the length is checked. ``wildcard``
    allows one ``%`` as the last character (MQINQMP); anywhere else it is not valid.
    """
    if not isinstance(name, str):
        raise fail(CMQC.MQRC_PROPERTY_NAME_ERROR)
    _check_length(name)
    if wildcard and name.endswith(WILDCARD):
        stem = name[:-1]
        if WILDCARD in stem:
            raise fail(CMQC.MQRC_PROPERTY_NAME_ERROR)
        if stem and validate and not is_java_identifier(stem.rstrip(".")):
            raise fail(CMQC.MQRC_PROPERTY_NAME_ERROR)
        return name
    if not validate:
        return canonical(name)
    if not is_java_identifier(name):
        raise fail(CMQC.MQRC_PROPERTY_NAME_ERROR)
    _check_reserved(name, for_set=for_set)
    return canonical(name)


def canonical(name: str) -> str:
    """The name a property is kept under: ``usr.x`` is ``x``; a JMS name is the property it
    is a synonym for (``JMSType`` is ``mcd.Type``), and so is a publish/subscribe one
    (``MQTopicString`` is ``mqps.Top``)."""
    if name.startswith(USR_PREFIX):
        return name[len(USR_PREFIX):]
    return JMS_SYNONYMS.get(name) or PUBSUB_SYNONYMS.get(name, name)


def folder_of(name: str) -> str:
    """The MQRFH2 folder of a kept name: what precedes its first ``.``, else ``usr``."""
    head, dot, _ = name.partition(".")
    return head if dot else "usr"


def matches(pattern: str, name: str) -> bool:
    """Does kept ``name`` match ``pattern`` (a kept name, perhaps ending in ``%``)? The
    wildcard matches zero or more characters, ``.`` included; ``usr.%`` is every property of
    the usr folder (the names with no ``.``), ``%`` every property."""
    if not pattern.endswith(WILDCARD):
        return pattern == name
    stem = pattern[:-1]
    if stem == USR_PREFIX:
        return "." not in name
    if stem.startswith(USR_PREFIX):
        return "." not in name and name.startswith(stem[len(USR_PREFIX):])
    return name.startswith(stem)
