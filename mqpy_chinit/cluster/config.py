"""The local definitions a repository is made from: CLUSRCVR and CLUSSDR channels, clustered
queues, REPOS/REPOSNL, namelists, read as DISPLAY output (pure: no MQI here).

The repository manager reads them at start and again whenever the command processor tells it
that a cluster-relevant definition changed (a request on SYSTEM.CLUSTER.COMMAND.QUEUE), and
gives the differences to the repository (``manager.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from mqpy import CMQC

from .records import channel_attr_pairs

Display = Callable[[str], "list[dict[str, object]]"]

#: The displays the configuration is read from (through the command server or in-process).
QUERIES = {
    "qmgr": "DISPLAY QMGR QMID REPOS REPOSNL CLWLUSEQ CLWLMRUC",
    "channels": "DISPLAY CHANNEL(*) ALL",
    "queues_cluster": "DISPLAY QUEUE(*) WHERE(CLUSTER NE ' ') ALL",
    "queues_clusnl": "DISPLAY QUEUE(*) WHERE(CLUSNL NE ' ') ALL",
    "namelists": "DISPLAY NAMELIST(*) NAMES",
    "topics_cluster": "DISPLAY TOPIC(*) WHERE(CLUSTER NE ' ') ALL",
}

_BIND = {"OPEN": CMQC.MQBND_BIND_ON_OPEN, "NOTFIXED": CMQC.MQBND_BIND_NOT_FIXED,
         "GROUP": CMQC.MQBND_BIND_ON_GROUP}


def _s(d: dict[str, object], key: str, default: str = "") -> str:
    value = d.get(key, default)
    return "" if value is None or value is True else str(value).strip()


def _i(d: dict[str, object], key: str, default: int = 0) -> int:
    try:
        return int(d.get(key, default))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default


@attrs.frozen
class ReceiverDef:
    name: str
    conname: str
    clusters: tuple[str, ...]
    clwlprty: int = 0
    clwlrank: int = 0
    clwlwght: int = 50
    netprty: int = 0
    #: what an auto-defined CLUSSDR to this queue manager takes (channeldefs.CLUSRCVR_TO_CLUSSDR)
    channel_attrs: tuple[tuple[str, str | int], ...] = ()


@attrs.frozen
class SenderDef:
    name: str
    conname: str
    clusters: tuple[str, ...]


@attrs.frozen
class QueueDef:
    name: str
    clusters: tuple[str, ...]
    qtype: str  # QLOCAL | QALIAS | QREMOTE | QMGR (a queue-manager alias)
    put_enabled: bool = True
    defbind: int = CMQC.MQBND_BIND_ON_OPEN
    defpsist: bool = False
    defprty: int = 0
    clwlprty: int = 0
    clwlrank: int = 0
    clwluseq: str = "QMGR"


@attrs.frozen
class TopicObjectDef:
    """A TOPIC object with CLUSTER: a cluster topic this queue manager hosts."""

    name: str
    topicstr: str
    clusters: tuple[str, ...]
    clroute: str = "DIRECT"
    pub_enabled: bool = True
    sub_enabled: bool = True


@attrs.frozen
class LocalConfig:
    qmid: str
    repos: str = ""
    reposnl: tuple[str, ...] = ()
    clwluseq: str = "LOCAL"
    clwlmruc: int = 999_999_999
    receivers: tuple[ReceiverDef, ...] = ()
    senders: tuple[SenderDef, ...] = ()
    queues: tuple[QueueDef, ...] = ()
    channels: dict[str, dict[str, object]] = attrs.field(factory=dict, eq=False)
    topics: tuple[TopicObjectDef, ...] = ()


def read_config(display: Display, qmgr: str) -> LocalConfig:
    """The local configuration from the DISPLAY commands of :data:`QUERIES`."""
    found = {key: display(text) for key, text in QUERIES.items()}
    namelists = {str(d.get("NAMELIST")): [n.strip() for n in _s(d, "NAMES").split(",")
                                          if n.strip()] for d in found["namelists"]}

    def clusters(d: dict[str, object]) -> tuple[str, ...]:
        if _s(d, "CLUSTER"):
            return (_s(d, "CLUSTER"),)
        return tuple(namelists.get(_s(d, "CLUSNL"), ()))

    q = found["qmgr"][0] if found["qmgr"] else {}
    receivers, senders, channels = [], [], {}
    for d in found["channels"]:
        name, chltype = _s(d, "CHANNEL"), _s(d, "CHLTYPE")
        if chltype == "CLUSRCVR":
            receivers.append(ReceiverDef(name, _s(d, "CONNAME"), clusters(d),
                                         _i(d, "CLWLPRTY"), _i(d, "CLWLRANK"),
                                         _i(d, "CLWLWGHT", 50), _i(d, "NETPRTY"),
                                         channel_attr_pairs(d)))
        elif chltype == "CLUSSDR":
            senders.append(SenderDef(name, _s(d, "CONNAME"), clusters(d)))
        if chltype in ("CLUSRCVR", "CLUSSDR") or name == "SYSTEM.DEF.CLUSSDR":
            channels[name] = d
    queues: dict[str, QueueDef] = {}
    for d in found["queues_cluster"] + found["queues_clusnl"]:
        name, qtype = _s(d, "QUEUE"), _s(d, "TYPE")
        if qtype not in ("QLOCAL", "QALIAS", "QREMOTE") or not clusters(d):
            continue
        if qtype == "QREMOTE" and not _s(d, "RNAME"):
            qtype = "QMGR"
        queues[name] = QueueDef(
            name, clusters(d), qtype, _s(d, "PUT", "ENABLED") != "DISABLED",
            _BIND.get(_s(d, "DEFBIND", "OPEN"), CMQC.MQBND_BIND_ON_OPEN),
            _s(d, "DEFPSIST") == "YES", _i(d, "DEFPRTY"), _i(d, "CLWLPRTY"),
            _i(d, "CLWLRANK"), _s(d, "CLWLUSEQ", "QMGR") or "QMGR")
    topics = [TopicObjectDef(_s(d, "TOPIC"), _s(d, "TOPICSTR"), clusters(d),
                             _s(d, "CLROUTE", "DIRECT") or "DIRECT",
                             _s(d, "PUB", "ENABLED") != "DISABLED",
                             _s(d, "SUB", "ENABLED") != "DISABLED")
              for d in found.get("topics_cluster", []) if clusters(d)]
    return LocalConfig(
        qmid=_s(q, "QMID") or qmgr, repos=_s(q, "REPOS"),
        reposnl=tuple(namelists.get(_s(q, "REPOSNL"), ())),
        clwluseq=_s(q, "CLWLUSEQ", "LOCAL") or "LOCAL",
        clwlmruc=_i(q, "CLWLMRUC", 999_999_999),
        receivers=tuple(sorted(receivers, key=lambda r: r.name)),
        senders=tuple(sorted(senders, key=lambda r: r.name)),
        queues=tuple(sorted(queues.values(), key=lambda r: r.name)), channels=channels,
        topics=tuple(sorted(topics, key=lambda t: t.name)))
