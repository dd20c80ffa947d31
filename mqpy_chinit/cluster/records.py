"""Cluster repository records: what SYSTEM.CLUSTER.REPOSITORY.QUEUE holds and what
SYSTEM.CLUSTER.COMMAND.QUEUE carries between queue managers (spec operations-dlq-clusters §4).

This module owns the record types and their byte form, nothing else: no queue is opened here,
no clock is read. A record is published by its *owner* (the queue manager it describes) and
copied, unchanged, into every repository that learns of it.

Versions. A record's version is ``(published, sequence)``: the owner's clock when it published
the record and a counter the owner raises on every publication. The newest version wins in
every repository (see ``repository.py``); an equal version is a duplicate and is ignored, so
re-delivery is harmless. A deletion is a record too (``DeletionRecord``): it replaces the record
it deletes, so a late copy of an older record cannot bring the object back.

Lifetimes (seed 001, "How long do the repositories retain information?"). ``expiry`` is set by
the publisher to ``published + RECORD_LIFETIME`` (30 days); the owner re-publishes after
``REPUBLISH_AFTER`` (27 days); a record not refreshed is not used after its expiry and is removed
``REMOVE_AFTER_EXPIRY`` (90 days) after it.

Byte form: a JSON object, UTF-8, keys sorted (so duplicates compare equal as bytes), with
``format``, ``version`` and ``type`` first: a newer queue manager may add fields an older one
ignores, and ``version`` lets an old one refuse a body it cannot understand.
"""

from __future__ import annotations

import enum
import json
import math
from typing import Any, ClassVar, Union

import attrs

from mqpy import CMQC
from mqpy.fap.channeldefs import CLUSRCVR_TO_CLUSSDR

__all__ = [
    "BODY_VERSION",
    "CLUSTER_RECORD_FORMAT",
    "DAY",
    "RECORD_LIFETIME",
    "REMOVE_AFTER_EXPIRY",
    "REPUBLISH_AFTER",
    "ClusterCommand",
    "ClusterQmgrRecord",
    "ClusterQueueRecord",
    "ClusterTopicRecord",
    "DeletionRecord",
    "Record",
    "RecordFormatError",
    "RepositoryType",
    "Subscription",
    "SubscriptionKind",
    "decode",
    "encode",
]

DAY = 86_400.0
RECORD_LIFETIME = 30 * DAY  #: kept this long after publication
REPUBLISH_AFTER = 27 * DAY  #: the owner sends its records again after this long
REMOVE_AFTER_EXPIRY = 90 * DAY  #: an expired record not refreshed is removed this long after

#: MQMD.Format of a repository message (mqpy's own: IBM's internal format is not published).
CLUSTER_RECORD_FORMAT = "MQPYCLUS"
#: Version of the JSON body; a body with a higher version is refused, never half-read.
BODY_VERSION = 1


class RecordFormatError(ValueError):
    """A message on the command or repository queue that is not a repository record.

    ``feedback`` is MQFB_NOT_A_REPOSITORY_MSG (280): the integrator puts the message on the
    dead-letter queue with that reason in the MQDLH, as IBM's repository manager does.
    """

    feedback = CMQC.MQFB_NOT_A_REPOSITORY_MSG


class RepositoryType(enum.Enum):
    """The role of a queue manager in one cluster (DISPLAY CLUSQMGR QMTYPE REPOS | NORMAL)."""

    FULL = "FULL"
    PARTIAL = "PARTIAL"

    @property
    def qmtype(self) -> str:
        return "REPOS" if self is RepositoryType.FULL else "NORMAL"


class SubscriptionKind(enum.Enum):
    """What a subscription asks a full repository to send (and keep sending as it changes)."""

    QUEUE = "QUEUE"  # every instance of one queue name (made when a partial repository opens it)
    QMGR = "QMGR"  # one queue manager, by name
    REPOS = "REPOS"  # the full repositories of the cluster (every member holds this one)
    ALL = "ALL"  # everything: one full repository asking another, at join and at REFRESH


def _version(record: Any) -> tuple[float, int]:
    return (record.published, record.sequence)


def channel_attr_pairs(value: object) -> tuple[tuple[str, str | int], ...]:
    """Channel attributes as sorted (keyword, value) pairs, from a mapping or pairs (as
    JSON gives them back); only the keywords of CLUSRCVR_TO_CLUSSDR, only str/int values."""
    if isinstance(value, dict):
        items: Any = list(value.items())
    elif isinstance(value, (list, tuple)):
        items = value
    elif value is None:
        items = ()
    else:
        raise RecordFormatError(f"bad channel attributes {value!r:.40}")
    out = {}
    for item in items:
        try:
            key, val = item
        except (TypeError, ValueError):
            raise RecordFormatError(f"bad channel attribute {item!r:.40}") from None
        if str(key) in CLUSRCVR_TO_CLUSSDR and isinstance(val, (str, int)) \
                and not isinstance(val, bool):
            out[str(key)] = val
    return tuple(sorted(out.items()))


@attrs.frozen
class ClusterQmgrRecord:
    """A queue manager's membership of one cluster: what its CLUSRCVR advertises."""

    TYPE: ClassVar[str] = "QMGR"
    cluster: str
    qmgr: str
    qmid: str
    channel: str  # the CLUSRCVR name; the auto-defined CLUSSDR to this qmgr has the same name
    conname: str
    repository: RepositoryType = RepositoryType.PARTIAL
    suspended: bool = False
    clwlprty: int = 0  # channel attributes, taken from the CLUSRCVR (IBM: set them there)
    clwlrank: int = 0
    clwlwght: int = 50
    netprty: int = 0
    published: float = 0.0
    sequence: int = 0
    expiry: float = 0.0
    #: the CLUSRCVR's other attributes an auto-defined CLUSSDR to it takes (IBM: "the
    #: cluster-sender channel is defined from the cluster-receiver definition"): BATCHSZ,
    #: HBINT, SHORTRTY ... as (keyword, value) pairs (CLUSRCVR_TO_CLUSSDR)
    channel_attrs: tuple[tuple[str, str | int], ...] = attrs.field(
        default=(), converter=channel_attr_pairs)

    @property
    def key(self) -> tuple[str, ...]:
        return ("QMGR", self.cluster, self.qmid)

    @property
    def version(self) -> tuple[float, int]:
        return _version(self)


@attrs.frozen
class ClusterQueueRecord:
    """One instance of a cluster queue: the queue as its hosting queue manager advertises it."""

    TYPE: ClassVar[str] = "QUEUE"
    cluster: str
    queue: str
    qmgr: str
    qmid: str
    defbind: int = CMQC.MQBND_BIND_ON_OPEN
    defpsist: bool = False
    defprty: int = 0
    put_enabled: bool = True
    clwlprty: int = 0
    clwlrank: int = 0
    clwluseq: str = "QMGR"  # LOCAL | ANY | QMGR
    qtype: str = "QLOCAL"  # CLUSQT: QLOCAL | QALIAS | QREMOTE
    published: float = 0.0
    sequence: int = 0
    expiry: float = 0.0

    @property
    def key(self) -> tuple[str, ...]:
        return ("QUEUE", self.cluster, self.queue, self.qmid)

    @property
    def version(self) -> tuple[float, int]:
        return _version(self)


@attrs.frozen
class ClusterTopicRecord:
    """A clustered topic: a TOPIC object with CLUSTER(...), as the queue manager that
    defines it (the cluster topic host) advertises it. Full repositories push it to every
    member (IBM: "the full repositories then propagate the cluster topic definition to all
    queue managers within the cluster")."""

    TYPE: ClassVar[str] = "TOPIC"
    cluster: str
    topic: str  # the TOPIC object's name
    topicstr: str
    qmgr: str
    qmid: str
    clroute: str = "DIRECT"  # DIRECT | TOPICHOST
    pub_enabled: bool = True
    sub_enabled: bool = True
    published: float = 0.0
    sequence: int = 0
    expiry: float = 0.0

    @property
    def key(self) -> tuple[str, ...]:
        return ("TOPIC", self.cluster, self.topic, self.qmid)

    @property
    def version(self) -> tuple[float, int]:
        return _version(self)


@attrs.frozen
class DeletionRecord:
    """A deletion marker: the object of ``kind`` named ``name`` at ``qmid`` is gone.

    Published by the owner (DELETE QLOCAL, ALTER ... CLUSTER(' ')) or, with ``forced``, by a
    full repository on RESET CLUSTER ACTION(FORCEREMOVE). It lives like any record, so it
    outlives late copies of what it deleted, and is removed 90 days after its expiry.
    """

    TYPE: ClassVar[str] = "DELETE"
    kind: str  # "QMGR" | "QUEUE" | "TOPIC"
    cluster: str
    name: str  # queue name, or queue-manager name for kind QMGR
    qmid: str
    forced: bool = False
    published: float = 0.0
    sequence: int = 0
    expiry: float = 0.0
    queues: bool = False  # a forced QMGR deletion that takes its queues (QUEUES(YES))

    @property
    def key(self) -> tuple[str, ...]:
        if self.kind == "QMGR":
            return ("QMGR", self.cluster, self.qmid)
        if self.kind == "TOPIC":
            return ("TOPIC", self.cluster, self.name, self.qmid)
        return ("QUEUE", self.cluster, self.name, self.qmid)

    @property
    def version(self) -> tuple[float, int]:
        return _version(self)


@attrs.frozen
class Subscription:
    """A request for information, held by a full repository for ``expiry`` (30 days).

    ``channel`` is the subscriber's CLUSRCVR: the way back for the answers.
    """

    TYPE: ClassVar[str] = "SUBSCRIBE"
    cluster: str
    kind: SubscriptionKind
    name: str  # queue or qmgr name; "" for REPOS and ALL
    subscriber: str
    subscriber_qmid: str
    channel: str
    published: float = 0.0
    expiry: float = 0.0

    @property
    def key(self) -> tuple[str, ...]:
        return (self.cluster, self.kind.value, self.name, self.subscriber_qmid)


Record = Union[ClusterQmgrRecord, ClusterQueueRecord, ClusterTopicRecord, DeletionRecord]
Body = Union[ClusterQmgrRecord, ClusterQueueRecord, ClusterTopicRecord, DeletionRecord,
             Subscription]


@attrs.frozen
class ClusterCommand:
    """One message on SYSTEM.CLUSTER.COMMAND.QUEUE: a body and who sent it.

    ``forwarded`` is set by a full repository passing on something it did not originate from
    its owner's hand: a full repository forwards an update it got *directly* to the other full
    repositories, never one that was itself forwarded, so updates cannot circle.
    """

    sender: str
    sender_qmid: str
    body: Body
    forwarded: bool = False


_TYPES: dict[str, type] = {
    cls.TYPE: cls
    for cls in (ClusterQmgrRecord, ClusterQueueRecord, ClusterTopicRecord, DeletionRecord,
                Subscription)
}
_ENUMS: dict[str, type[enum.Enum]] = {"repository": RepositoryType, "kind": SubscriptionKind}


def _body_to_dict(body: Body) -> dict[str, Any]:
    out: dict[str, Any] = {"type": body.TYPE}
    for field in attrs.fields(type(body)):
        value = getattr(body, field.name)
        out[field.name] = value.value if isinstance(value, enum.Enum) else value
    return out


def _body_from_dict(data: dict[str, Any]) -> Body:
    try:
        cls = _TYPES[data["type"]]
    except (KeyError, TypeError):
        raise RecordFormatError(f"unknown repository record type {data!r:.80}") from None
    kwargs: dict[str, Any] = {}
    for field in attrs.fields(cls):
        if field.name not in data:
            if field.default is attrs.NOTHING:
                raise RecordFormatError(f"{cls.TYPE} record without {field.name}")
            continue  # a field added after this body was written: its default applies
        value = data[field.name]
        if field.name in _ENUMS and not (cls is DeletionRecord and field.name == "kind"):
            try:
                value = _ENUMS[field.name](value)
            except (ValueError, TypeError):
                raise RecordFormatError(f"{field.name}={value!r:.40} not valid") from None
        elif field.converter is None:
            value = _checked(cls, field.name, str(field.type), value)
        kwargs[field.name] = value
    return cls(**kwargs)  # fields this version does not know are ignored


#: the fields that hold an MQ name (a queue manager, its QMID, a cluster, a channel, a queue
#: or topic object): at most 48 printable Latin-1 characters, as every name is
_NAME_FIELDS = frozenset({"cluster", "qmgr", "qmid", "channel", "queue", "topic", "name",
                          "subscriber", "subscriber_qmid"})
_MAX_NAME = 48


def _checked(cls: type, name: str, kind: str, value: Any) -> Any:
    """A field's value as its type says (``str``, ``int``, ``float``, ``bool``), or
    RecordFormatError: a record comes from another queue manager of the cluster, and a value
    of another type (a list for a name, a string for a time, NaN) would fail every later
    comparison the repository makes with it (its lifetimes, its displays, its workload
    choices), so it is refused whole, as a message that is no repository record."""
    if kind == "str":
        ok = isinstance(value, str) and (name not in _NAME_FIELDS or (
            len(value) <= _MAX_NAME and value.isprintable()
            and not any(ord(c) > 0xFF for c in value)))
    elif kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool) and -2**63 <= value < 2**63
    elif kind == "float":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) \
            and math.isfinite(value)
        value = float(value) if ok else value
    else:
        ok = True
    if not ok:
        raise RecordFormatError(f"{cls.__name__}.{name}={value!r:.40} is not a {kind}")
    return value


def encode(item: Body | ClusterCommand) -> bytes:
    """The message body for a record (repository queue) or a command (command queue)."""
    if isinstance(item, ClusterCommand):
        payload: dict[str, Any] = {
            "type": "COMMAND", "sender": item.sender, "sender_qmid": item.sender_qmid,
            "forwarded": item.forwarded, "body": _body_to_dict(item.body),
        }
    else:
        payload = _body_to_dict(item)
    payload = {"format": CLUSTER_RECORD_FORMAT, "version": BODY_VERSION, **payload}
    return json.dumps(payload, sort_keys=True, separators=(",", ":")).encode("utf-8")


def decode(data: bytes) -> Body | ClusterCommand:
    """Inverse of :func:`encode`; raises RecordFormatError for anything else."""
    try:
        payload = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RecordFormatError(f"not a repository message: {exc}") from None
    if not isinstance(payload, dict) or payload.get("format") != CLUSTER_RECORD_FORMAT:
        raise RecordFormatError("not a repository message (format)")
    version = payload.get("version")
    if not isinstance(version, int) or version > BODY_VERSION or version < 1:
        raise RecordFormatError(f"repository body version {version!r} not supported")
    if payload.get("type") == "COMMAND":
        body = payload.get("body")
        if not isinstance(body, dict):
            raise RecordFormatError("command without a body")
        return ClusterCommand(
            sender=str(payload.get("sender", "")),
            sender_qmid=str(payload.get("sender_qmid", "")),
            body=_body_from_dict(body),
            forwarded=bool(payload.get("forwarded", False)),
        )
    return _body_from_dict(payload)
