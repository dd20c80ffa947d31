"""MQPUT and MQPUT1 to a topic: a publication, and a copy of it for each subscription it
reaches, put to the subscription's destination in the publisher's unit of work.

IBM's rules, as built here:

1. The topic must allow publishing: PUB(DISABLED), resolved up the tree, fails the put with
   MQRC_PUT_INHIBITED. Persistence and priority AS_Q_DEF are the topic's DEFPSIST and
   DEFPRTY (resolved).
2. A publication reaches every subscription whose topic matches it (``topicstrings``), whose
   SelectionString selects it (``mqpy.selection``, on the publication's MQMD and message
   properties, MQTopicString among them), that is
   not on request only (MQSO_PUBLICATIONS_ON_REQUEST), not expired (SubExpiry), not kept out by a
   WILDCARD(BLOCK) node, and not the publisher's own with MQPMO_NOT_OWN_SUBS (a subscription
   is the connection's own while a handle of that connection has it open).
3. Each copy has a new MsgId, the subscription's CorrelId, the priority the subscription
   asks (as published, the destination's DEFPRTY, or its own), the publisher's origin
   context; the subscriber's user id, and its PubAccountingToken / PubApplIdentityData with
   MQSO_SET_IDENTITY_CONTEXT; no reply-to queue with MQPMO_SUPPRESS_REPLYTO. A temporary
   dynamic destination (a non-durable managed one) takes it as non-persistent. Its message
   properties are the publication's and IBM's publish/subscribe ones (``pubprops``). A
   destination on another queue manager (DESTQMGR) gets it through the transmission queue
   for that queue manager, in an MQXQH, as a put to a remote queue; a cluster queue, or a
   queue at a cluster queue manager, through the cluster (``destinations``).
4. Under syncpoint the copies belong to the publisher's unit of work; outside it they are
   put as one unit of work of their own, so that a failure the delivery rule makes fatal
   backs them all out. The rule is PMSGDLV for a persistent publication and NPMSGDLV for
   another: ALL -- any copy that cannot be put fails the publication; ALLDUR -- a durable
   subscription's copy does; ALLAVAIL -- none does (the copy is lost for that subscriber).
5. MQPMO_RETAIN keeps the publication as the topic's retained publication, replacing the
   last one; under syncpoint when the unit of work commits (MQBACK keeps the last one). MQPMO_WARN_IF_NO_SUBS_MATCHED makes a publication that reached no subscription
   complete with MQCC_WARNING MQRC_NO_SUBS_MATCHED (2550).
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import TYPE_CHECKING

from mqpy import CMQC
from mqpy.engine.mqmd import _NO_ID, _NONE24, _id24, _pack_md, _transmission_message, _trusted
from mqpy.engine.options import _fail
from mqpy.engine.uow import back_out_uow, commit_uow
from mqpy.errors import MQMIError
from mqpy.pubsub import destinations, topicstrings, topictree
from mqpy.pubsub.handles import TopicHandle
from mqpy.pubsub.interqmgr import by_pubsub_daemon
from mqpy.pubsub.pubprops import Publication
from mqpy.pubsub.registry import Registry, registry_for
from mqpy.pubsub.subscription import Subscription
from mqpy.selection.evaluate import Selector, compile_selector
from mqpy.structs.tables import MD, PMO

if TYPE_CHECKING:
    from mqpy.engine.connection import Connection

__all__ = ["deliver", "publish", "reaches"]

_PERSISTENT, _NOT_PERSISTENT = CMQC.MQPER_PERSISTENT, CMQC.MQPER_NOT_PERSISTENT


def publish(conn: Connection, h: TopicHandle, md: MD, pmo: PMO, data: bytes, put1: bool
            ) -> tuple[int | None, int]:
    """MQPUT (or MQPUT1's put) on an open topic, engine lock held: the LSN the caller
    forces, and the reason of a warning or 0 (as ``PutCalls.put_on_handle``)."""
    eng = conn.engine
    reg = registry_for(eng)
    reg.reap()
    tree = reg.tree()
    topic = h.topic
    opts = pmo.Options
    conn._check_put(h, md, pmo)
    if reg.topic_attribute(topic, "PUB", tree) == "DISABLED":
        raise _fail(CMQC.MQRC_PUT_INHIBITED)
    data = conn._checked_data(md, data)
    persistent, priority, warning = _values(reg, tree, topic, md)
    syncpoint = bool(opts & CMQC.MQPMO_SYNCPOINT)
    if syncpoint and conn.backed_out:
        raise _fail(CMQC.MQRC_BACKED_OUT)
    d = md.__dict__
    if opts & CMQC.MQPMO_NEW_MSG_ID or d["MsgId"] in _NO_ID or _id24(d["MsgId"]) == _NONE24:
        d["MsgId"] = eng.new_msgid()
    if opts & CMQC.MQPMO_NEW_CORREL_ID:
        d["CorrelId"] = eng.new_msgid()
    conn._set_context(md, opts, pmo, time.time())
    if opts & CMQC.MQPMO_RETAIN:
        _retain(conn, reg, topic, _resolved_md(md, persistent, priority), data, persistent,
                syncpoint)
    pub = conn.publication_of(md, data, topic)
    relayed = by_pubsub_daemon(conn)  # from another queue manager: local subscribers only
    subs = _one_copy_per_qmgr([s for s in reg if not (relayed and s.proxy)
                               and reaches(reg, tree, s, topic, conn, opts)
                               and (not s.selector
                                    or selector_of(s.selector).matches(pub.values(), md))])
    policy = reg.topic_attribute(topic, "PMSGDLV" if persistent else "NPMSGDLV", tree)
    lsn = deliver(conn, subs, md, pub, persistent=persistent, priority=priority,
                  syncpoint=syncpoint, put1=put1, policy=str(policy),
                  suppress_reply_to=bool(opts & CMQC.MQPMO_SUPPRESS_REPLYTO))
    pd = pmo.__dict__
    pd["ResolvedQName"], pd["ResolvedQMgrName"] = b"", eng.name.encode()
    h.published += 1
    h.last_published = time.time()
    if not subs and opts & CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED and not warning:
        warning = CMQC.MQRC_NO_SUBS_MATCHED
    return lsn, warning


def _one_copy_per_qmgr(subs: list[Subscription]) -> list[Subscription]:
    """A publication goes once to each queue manager whose proxy subscriptions it matches
    (its local subscribers each get their copy there): the first matching proxy
    subscription of an origin stands for the others (``relay/#`` and ``relay/t`` of one
    queue manager: one copy)."""
    seen: set[str] = set()
    out = []
    for sub in subs:
        if sub.proxy:
            if sub.dest_qmgr in seen:
                continue
            seen.add(sub.dest_qmgr)
        out.append(sub)
    return out


def _retain(conn: Connection, reg: Registry, topic: str, md: MD, data: bytes, persistent: bool,
            syncpoint: bool) -> None:
    """MQPMO_RETAIN (rule 5): at once outside syncpoint; under it, when the publisher's unit
    of work commits (a backout leaves the retained publication before it)."""
    if not syncpoint:
        reg.retain(topic, md, data, persistent)
        return

    def ended(committed: bool) -> None:
        if committed:
            reg.retain(topic, md, data, persistent)

    conn._uow().outcomes.append(ended)


def _values(reg: Registry, tree: dict, topic: str, md: MD) -> tuple[bool, int, int]:
    """Whether the publication is persistent, its priority, and the warning of a priority
    above the maximum (rule 1)."""
    d = md.__dict__
    persistence = d["Persistence"]
    if persistence == CMQC.MQPER_PERSISTENCE_AS_Q_DEF:
        persistent = reg.topic_attribute(topic, "DEFPSIST", tree) == "YES"
    elif persistence in (_PERSISTENT, _NOT_PERSISTENT):
        persistent = persistence == _PERSISTENT
    else:
        raise _fail(CMQC.MQRC_PERSISTENCE_ERROR)
    priority = d["Priority"]
    warning = 0
    if priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF:
        priority = int(reg.topic_attribute(topic, "DEFPRTY", tree))  # type: ignore[call-overload]
    elif priority < 0:
        raise _fail(CMQC.MQRC_PRIORITY_ERROR)
    elif priority > 9:
        priority, warning = 9, CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM
    if d["Expiry"] <= 0 and d["Expiry"] != CMQC.MQEI_UNLIMITED:
        raise _fail(CMQC.MQRC_EXPIRY_ERROR)
    return persistent, priority, warning


def _resolved_md(md: MD, persistent: bool, priority: int) -> MD:
    """A copy of the publication's MQMD with its resolved persistence and priority."""
    copy = md.copy()
    _trusted(copy, {"Persistence": _PERSISTENT if persistent else _NOT_PERSISTENT,
                    "Priority": priority, "BackoutCount": 0})
    return copy


@lru_cache(maxsize=256)
def selector_of(text: str) -> Selector:
    """A subscription's compiled SelectionString (its text was checked at MQSUB)."""
    return compile_selector(text)


def reaches(reg: Registry, tree: dict, sub: Subscription, topic: str, conn: Connection | None,
            opts: int) -> bool:
    """Whether a publication on ``topic`` goes to ``sub`` (rule 2)."""
    if sub.on_request or not topicstrings.matches(sub.topic, topic, sub.wildcard_scheme) \
            or sub.expired(time.time()):
        return False
    if opts & CMQC.MQPMO_NOT_OWN_SUBS and conn is not None \
            and reg.open_by.get(sub.subid) is conn:
        return False
    if topicstrings.has_wildcard(sub.topic, sub.wildcard_scheme):
        qualified = topicstrings.fixed_prefix_levels(sub.topic, sub.wildcard_scheme)
        if topictree.blocked(tree, topic, qualified):
            return False
    return True


def deliver(conn: Connection, subs: list[Subscription], md: MD, pub: Publication, *,
            persistent: bool, priority: int, syncpoint: bool, put1: bool = False,
            policy: str = "ALLAVAIL", suppress_reply_to: bool = False) -> int | None:
    """Put a copy of the publication ``md`` / ``pub`` for each of ``subs`` (rules 3, 4);
    the LSN to force, if any."""
    if not subs:
        return None
    eng = conn.engine
    saved = conn.uow
    own = None
    if not syncpoint:  # the copies as one unit of work of their own
        conn.uow = None
        own = conn._uow()
    delivered = registry_for(eng).delivered
    now = time.time()
    try:
        for sub in subs:
            try:
                _put_copy(conn, sub, md, pub, persistent, priority, put1, suppress_reply_to)
            except MQMIError:
                if policy == "ALL" or (policy == "ALLDUR" and sub.durable):
                    raise
                continue
            count = delivered.get(sub.subid, (0, 0.0))[0]
            delivered[sub.subid] = (count + 1, now)
        lsn = commit_uow(eng, own) if own is not None else None
    except BaseException:
        if own is not None:
            back_out_uow(eng, own)
        raise
    finally:
        if own is not None:
            conn.uow = saved
    return lsn


def _put_copy(conn: Connection, sub: Subscription, md: MD, pub: Publication, persistent: bool,
              priority: int, put1: bool, suppress_reply_to: bool) -> None:
    """One subscription's copy, put in the connection's unit of work (rule 3)."""
    eng = conn.engine
    res, route = destinations.resolve(conn, sub)
    base = res.target  # a destination on another queue manager: its transmission queue
    if base.attributes.get("PUT") == "DISABLED" or res.opened.attributes.get("PUT") == "DISABLED":
        raise _fail(CMQC.MQRC_PUT_INHIBITED)
    if sub.pub_priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF:
        priority = int(res.opened.attributes.get("DEFPRTY", 0))  # type: ignore[call-overload]
    elif sub.pub_priority >= 0:
        priority = sub.pub_priority
    if base.attributes.get("DEFTYPE") == "TEMPDYN":
        persistent = False
    copy = md.copy()
    fmt, data = pub.copy_for(sub.user_data, sub.psprop != "NONE")
    fields: dict[str, object] = {
        "MsgId": eng.new_msgid(), "CorrelId": sub.correl_id, "Format": fmt,
        "Persistence": _PERSISTENT if persistent else _NOT_PERSISTENT, "Priority": priority,
        "BackoutCount": 0}
    if sub.sub_user:
        fields["UserIdentifier"] = sub.sub_user.encode("latin-1", "replace")[:12]
    if sub.set_identity:
        fields["AccountingToken"] = sub.pub_accounting
        fields["ApplIdentityData"] = sub.pub_appl_id.encode("latin-1", "replace")[:32]
    if suppress_reply_to:
        fields["ReplyToQ"], fields["ReplyToQMgr"] = b"", b""
    if copy.__dict__["CodedCharSetId"] == CMQC.MQCCSI_Q_MGR:
        fields["CodedCharSetId"] = int(eng.catalog.qmgr.get("CCSID", 1208))  # type: ignore[call-overload]
    _trusted(copy, fields)
    d = copy.__dict__
    stored = _pack_md(copy)
    if res.remote:  # in an MQXQH naming it, as a put to a remote queue is (rule 3)
        outer, data = _transmission_message(copy, data, str(res.remote_q), str(
            res.remote_qm if route is None or route.fixed else ""))
        if route is not None:  # on the cluster transmission queue, keyed by its channel
            outer.CorrelId = d["CorrelId"] = route.correl_id
        stored = outer.pack()
    eng._store(conn, base, eng.catalog.queues[base.qid], stored, data,
               priority=priority, persistent=persistent, msgid=d["MsgId"],
               correlid=d["CorrelId"], expiry=d["Expiry"], report=d["Report"],
               now=time.time(), syncpoint=True, put1=put1)
