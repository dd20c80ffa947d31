"""DISPLAY CLUSQMGR and DISPLAY QCLUSTER: the rows a cluster repository shows of what it
knows (``Repository.display_clusqmgr``, ``Repository.display_qcluster``), as MQSC names them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Collection, Iterable, Mapping
from typing import Protocol

from mqpy import CMQC

from .records import ClusterQmgrRecord, ClusterQueueRecord, Record


class ExplicitSender(Protocol):
    """An explicit CLUSSDR as the repository knows it."""

    channel: str
    conname: str
    clusters: frozenset[str]


def clusqmgr_rows(members: Iterable[ClusterQmgrRecord], own_qmid: str,
                  senders: Iterable[ExplicitSender], auto: Collection[str], now: float,
                  pattern: str = "*", channel_states: Mapping[str, str] | None = None
                  ) -> list[dict]:
    """DISPLAY CLUSQMGR(pattern): every known member (``members``: the live queue-manager
    records, this queue manager's own, QMID ``own_qmid``, included; one per cluster), with
    the explicit CLUSSDRs (``senders``) and the auto-defined ones (``auto``) by name.

    QMTYPE is REPOS | NORMAL and DEFTYPE CLUSRCVR | CLUSSDR | CLUSSDRA | CLUSSDRB as in
    IBM MQ. An explicit CLUSSDR whose
    partner has not answered yet shows as SYSTEM.TEMPQMGR.<conname>.
    """
    states = channel_states or {}
    senders = list(senders)
    explicit_clusters = {s.channel: s.clusters for s in senders}
    rows: list[dict] = []
    named: set[tuple[str, str]] = set()
    for record in members:
        own = record.qmid == own_qmid
        explicit = record.channel in explicit_clusters and \
            record.cluster in explicit_clusters[record.channel]
        automatic = record.channel in auto
        deftype = ("CLUSRCVR" if own else "CLUSSDRB" if explicit and automatic
                   else "CLUSSDR" if explicit else "CLUSSDRA")
        named.add((record.cluster, record.channel))
        rows.append({
            "CLUSQMGR": record.qmgr, "CLUSTER": record.cluster, "CHANNEL": record.channel,
            "CONNAME": record.conname, "QMID": record.qmid,
            "QMTYPE": record.repository.qmtype, "DEFTYPE": deftype,
            "STATUS": states.get(record.channel, "INACTIVE"),
            "SUSPEND": "YES" if record.suspended else "NO",
            "CLWLPRTY": record.clwlprty, "CLWLRANK": record.clwlrank,
            "CLWLWGHT": record.clwlwght, "NETPRTY": record.netprty,
            "EXPIRES": record.expiry - now,
            **dict(record.channel_attrs),  # as its CLUSRCVR advertises them
        })
    for sender in senders:
        for cluster in sorted(sender.clusters):
            if (cluster, sender.channel) not in named:
                rows.append({
                    "CLUSQMGR": f"SYSTEM.TEMPQMGR.{sender.conname}", "CLUSTER": cluster,
                    "CHANNEL": sender.channel, "CONNAME": sender.conname, "QMID": "",
                    "QMTYPE": "REPOS", "DEFTYPE": "CLUSSDR",
                    "STATUS": states.get(sender.channel, "INACTIVE"), "SUSPEND": "NO",
                })
    rows = [r for r in rows if fnmatch.fnmatchcase(r["CLUSQMGR"], pattern)]
    return sorted(rows, key=lambda r: (r["CLUSQMGR"], r["CLUSTER"]))

def qcluster_rows(records: Mapping[tuple[str, ...], Record], now: float,
                  pattern: str = "*") -> list[dict]:
    """DISPLAY QCLUSTER(pattern): every known cluster queue instance of ``records``, own
    included."""
    rows: list[dict] = []
    for record in records.values():
        if not isinstance(record, ClusterQueueRecord) or now >= record.expiry:
            continue
        if not fnmatch.fnmatchcase(record.queue, pattern):
            continue
        host = records.get(("QMGR", record.cluster, record.qmid))
        rows.append({
            "QUEUE": record.queue, "CLUSTER": record.cluster, "CLUSQMGR": record.qmgr,
            "QMID": record.qmid, "CLUSQT": record.qtype,
            "DEFBIND": {CMQC.MQBND_BIND_NOT_FIXED: "NOTFIXED",
                        CMQC.MQBND_BIND_ON_GROUP: "GROUP"}.get(record.defbind, "OPEN"),
            "DEFPSIST": "YES" if record.defpsist else "NO", "DEFPRTY": record.defprty,
            "PUT": "ENABLED" if record.put_enabled else "DISABLED",
            "CLWLPRTY": record.clwlprty, "CLWLRANK": record.clwlrank,
            "CLWLUSEQ": record.clwluseq,
            "SUSPEND": "YES" if isinstance(host, ClusterQmgrRecord) and host.suspended
            else "NO",
        })
    return sorted(rows, key=lambda r: (r["QUEUE"], r["CLUSQMGR"], r["CLUSTER"]))
