"""The status of publish/subscribe as DISPLAY TPSTATUS, SBSTATUS and PUBSUB show it (and
their PCF Inquire forms would): rows of MQSC keywords and values, engine lock held inside.

- TPSTATUS: the topic tree's known topics -- administrative nodes, subscribed topic strings,
  open publishers' topics, retained publications -- named exactly or by a topic wildcard
  (``#``, ``+``). TYPE(TOPIC): a row a topic with its resolved attributes, ADMIN (its own
  topic object), PUBCOUNT, SUBCOUNT and RETAINED; TYPE(SUB): a row a subscription on it,
  with SBSTATUS's counts; TYPE(PUB): a row an open publisher, NUMPUBS and LPUBDATE/LPUBTIME.
- ACTCONN is the 24-byte ConnectionId (in hex) Inquire Connection gives the connection.
- SBSTATUS: a row a named subscription: SUBID, DURABLE, SUBTYPE, ACTCONN (the connection
  with it open), NUMMSGS and LMSGDATE/LMSGTIME (publications it got), RESMDATE/RESMTIME.
- PUBSUB: the local queue manager's row: STATUS(ACTIVE), SUBCOUNT, TPCOUNT.
"""

from __future__ import annotations

import time
from typing import Any

from mqpy.mqsc.queues import connection_id
from mqpy.pubsub import admintopic, interqmgr, topicstrings, topictree
from mqpy.pubsub.handles import TopicHandle
from mqpy.pubsub.registry import Registry, registry_for
from mqpy.pubsub.subscription import Subscription

__all__ = ["NO_CONNECTION", "pubsub_rows", "sbstatus_rows", "tpstatus_rows"]

NO_CONNECTION = "0" * 2 * 24  #: ACTCONN of a subscription no connection has open


def _conn_id(eng: Any, conn: Any) -> str:
    return connection_id(eng.name, conn).hex().upper()


def _stamp(when: float) -> tuple[str, str]:
    if not when:
        return "", ""
    t = time.localtime(when)
    return time.strftime("%Y-%m-%d", t), time.strftime("%H.%M.%S", t)


def _publishers(eng: Any) -> list[tuple[Any, TopicHandle]]:
    return [(c, h) for c in eng.connections.values() for h in c.handles.values()
            if isinstance(h, TopicHandle)]


def _known_topics(eng: Any) -> set[str]:
    reg = registry_for(eng)
    known = set(reg.tree()) | set(reg.retained) | {s.topic for s in reg}
    known |= {h.topic for _, h in _publishers(eng)}
    return known


def tpstatus_rows(eng: Any, name: str, kind: str = "TOPIC") -> list[dict[str, object]]:
    """DISPLAY TPSTATUS(name) TYPE(kind)'s rows, by topic string."""
    with eng.lock:
        reg = registry_for(eng)
        tree, base = reg.tree(), reg.base()
        wildcard = topicstrings.has_wildcard(name)
        topics = sorted(t for t in _known_topics(eng)
                        if (topicstrings.matches(name, t) and admintopic.shown_by_wildcard(name, t)
                            if wildcard else t == name))
        if not wildcard and not topics:
            topics = [name]  # any topic string has a status, resolved up the tree
        publishers = _publishers(eng)
        rows: list[dict[str, object]] = []
        for topic in topics:
            if kind == "SUB":
                rows += [{"TOPICSTR": topic, "SUBUSER": s.sub_user, **_sub_status(eng, reg, s)}
                         for s in reg if s.topic == topic]
            elif kind == "PUB":
                rows += [_pub_status(eng, topic, c, h) for c, h in publishers if h.topic == topic]
            else:
                node = tree.get(topic)
                rows.append({"TOPICSTR": topic, "ADMIN": node.name if node else "",
                             **topictree.resolved(tree, base, topic),
                             **_clustered(eng, topic),
                             "PUBCOUNT": sum(1 for _, h in publishers if h.topic == topic),
                             "SUBCOUNT": sum(1 for s in reg if s.topic == topic),
                             "RETAINED": "YES" if topic in reg.retained else "NO"})
        return rows


def _clustered(eng: Any, topic: str) -> dict[str, object]:
    """CLUSTER and CLROUTE of a topic below a cluster topic defined elsewhere in the
    cluster (a local TOPIC object's own CLUSTER is resolved with the other attributes)."""
    found = interqmgr.cluster_topic_of(eng, topic)
    return {"CLUSTER": found["CLUSTER"], "CLROUTE": found["CLROUTE"]} if found else {}


def _pub_status(eng: Any, topic: str, conn: Any, h: TopicHandle) -> dict[str, object]:
    """An open publisher's TYPE(PUB) row."""
    date, when = _stamp(h.last_published)
    return {"TOPICSTR": topic, "ACTCONN": _conn_id(eng, conn), "NUMPUBS": h.published,
            "LPUBDATE": date, "LPUBTIME": when}


def sbstatus_rows(eng: Any, name: str, generic: bool) -> list[dict[str, object]]:
    """DISPLAY SBSTATUS's rows, by subscription name."""
    with eng.lock:
        reg = registry_for(eng)
        rows = []
        for s in sorted(reg, key=lambda s: s.name):
            if not s.name or not (s.name.startswith(name[:-1]) if generic else s.name == name):
                continue
            rows.append({"SUB": s.name, **_sub_status(eng, reg, s)})
        return rows


def _sub_status(eng: Any, reg: Registry, s: Subscription) -> dict[str, object]:
    """A subscription's status: SUBID, DURABLE, SUBTYPE, ACTCONN and its counts."""
    count, last = reg.delivered.get(s.subid, (0, 0.0))
    ldate, ltime = _stamp(last)
    rdate, rtime = _stamp(reg.resumed.get(s.subid, 0.0))
    return {"SUBID": s.subid_hex, "DURABLE": "YES" if s.durable else "NO",
            "SUBTYPE": s.subtype,
            "ACTCONN": _conn_id(eng, reg.open_by[s.subid]) if s.subid in reg.open_by
            else NO_CONNECTION,
            "NUMMSGS": count, "LMSGDATE": ldate, "LMSGTIME": ltime,
            "RESMDATE": rdate, "RESMTIME": rtime}


def pubsub_rows(eng: Any) -> list[dict[str, object]]:
    """DISPLAY PUBSUB's row: this queue manager, locally (no hierarchy is built here)."""
    with eng.lock:
        reg = registry_for(eng)
        return [{"QMNAME": eng.name, "TYPE": "LOCAL", "STATUS": "ACTIVE",
                 "SUBCOUNT": len(reg.subs), "TPCOUNT": len(_known_topics(eng))}]
