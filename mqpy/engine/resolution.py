"""Queue name resolution: where a message for (queue, queue manager) goes (seed 000, ch. 1).

Pure functions over the catalog; the engine calls them under its lock. The result says which
definition was opened (its DEFPSIST/DEFPRTY apply), which local queue receives the message (the
queue itself, or a transmission queue) and, for a transmission queue, the destination to put in
the MQXQH.

The rules, in IBM's order:
1. Queue manager name blank or local: the queue name must be defined here. A local queue is the
   destination; an alias resolves to its target (never to another alias); a remote-queue
   definition gives RNAME at RQMNAME through its XMITQ, else the transmission queue named like
   RQMNAME, else DEFXMITQ. No queue-manager alias is consulted on this path.
2. Another queue manager named: a queue-manager alias of that name (a QREMOTE with a blank
   RNAME) replaces it with its RQMNAME and may name the XMITQ; else the transmission queue named
   like the queue manager; else DEFXMITQ; else MQRC_UNKNOWN_REMOTE_Q_MGR (2087). An alias that
   maps to the local queue manager makes the queue local. Aliases never chain, so a definition
   that names itself cannot loop.
3. Arrivals from a channel resolve like rule 2 with the queue manager named, except that a
   remote-queue definition named like the destination queue is not used (rule 6 of the book).
4. A reply-to queue alias is applied at put time when ReplyToQMgr is blank; otherwise the local
   queue manager's name fills a blank ReplyToQMgr.

A failure about an alias's TARGET or a transmission queue says which object it found wrong
(``base_name``, ``xmitq_name``, ``found_type``: an MQQT_* value), as the local and remote
events report it (``mqpy.engine.instrumentation``).
"""

from __future__ import annotations

import attrs

from mqpy import CMQC
from mqpy.engine.catalog import Catalog
from mqpy.engine.objects import ObjectDef
from mqpy.errors import MQMIError


def _fail(reason: int) -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, reason)


_QTYPE = {"QLOCAL": CMQC.MQQT_LOCAL, "QALIAS": CMQC.MQQT_ALIAS, "QREMOTE": CMQC.MQQT_REMOTE,
          "QMODEL": CMQC.MQQT_MODEL, "QCLUSTER": CMQC.MQQT_CLUSTER}


def _xmitq_fail(reason: int, name: str, obj: ObjectDef | None = None) -> MQMIError:
    return MQMIError(CMQC.MQCC_FAILED, reason, xmitq_name=name,
                     found_type=_QTYPE.get(obj.objtype, 0) if obj is not None else 0)


@attrs.frozen
class Resolved:
    """Where a put goes. ``remote_q``/``remote_qm`` are set when ``target`` is an xmitq."""

    opened: ObjectDef  # the first definition on the path: its defaults apply
    target: ObjectDef  # the local queue that receives the message
    remote_q: str | None = None
    remote_qm: str | None = None

    @property
    def remote(self) -> bool:
        return self.remote_qm is not None


def _attr(obj: ObjectDef, key: str) -> str:
    return str(obj.attributes.get(key, "") or "").strip()


def _is_qmgr_alias(obj: ObjectDef | None) -> bool:
    return obj is not None and obj.objtype == "QREMOTE" and not _attr(obj, "RNAME")


def _named_xmitq(cat: Catalog, name: str, *, default: bool) -> ObjectDef:
    """A transmission queue named by XMITQ or DEFXMITQ: must be a local queue, USAGE(XMITQ)."""
    obj = cat.queue_def(name)
    if obj is None:
        raise _xmitq_fail(CMQC.MQRC_UNKNOWN_DEF_XMIT_Q if default else CMQC.MQRC_UNKNOWN_XMIT_Q,
                          name)
    if obj.objtype != "QLOCAL":
        raise _xmitq_fail(CMQC.MQRC_DEF_XMIT_Q_TYPE_ERROR if default
                          else CMQC.MQRC_XMIT_Q_TYPE_ERROR, name, obj)
    if obj.attributes.get("USAGE") != "XMITQ":
        raise _xmitq_fail(CMQC.MQRC_DEF_XMIT_Q_USAGE_ERROR if default
                          else CMQC.MQRC_XMIT_Q_USAGE_ERROR, name, obj)
    return obj


def xmitq_for(cat: Catalog, qmgr: str, xmitq: str = "", *,
              via: ObjectDef | None = None) -> ObjectDef:
    """The transmission queue towards ``qmgr``: an explicit XMITQ, the queue named like the
    queue manager, or DEFXMITQ (rule 4). ``via`` is the alias that led here: when it names
    itself it is not a transmission queue, just no route."""
    if xmitq:
        return _named_xmitq(cat, xmitq, default=False)
    same = cat.queue_def(qmgr)
    if same is not None and same is not via:
        if same.objtype != "QLOCAL":
            # e.g. another queue-manager alias: aliases never chain (and never loop)
            raise _xmitq_fail(CMQC.MQRC_XMIT_Q_TYPE_ERROR, same.name, same)
        if same.attributes.get("USAGE") != "XMITQ":
            raise _xmitq_fail(CMQC.MQRC_XMIT_Q_USAGE_ERROR, same.name, same)
        return same
    default = str(cat.qmgr.get("DEFXMITQ", "") or "").strip()
    if default:
        return _named_xmitq(cat, default, default=True)
    raise _fail(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)


def _alias_target(cat: Catalog, alias: ObjectDef) -> ObjectDef:
    base = _attr(alias, "TARGET")
    target = cat.queue_def(base)
    if target is None:
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q, base_name=base)
    if target.objtype not in ("QLOCAL", "QREMOTE"):
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_ALIAS_BASE_Q_TYPE_ERROR, base_name=base,
                        found_type=_QTYPE.get(target.objtype, 0))
    return target


def _via_remote_definition(cat: Catalog, local_qm: str, opened: ObjectDef,
                           rdef: ObjectDef) -> Resolved:
    rname, rqm = _attr(rdef, "RNAME"), _attr(rdef, "RQMNAME")
    if not rname:
        raise _fail(CMQC.MQRC_REMOTE_Q_NAME_ERROR)  # a queue-manager alias is not a queue
    if not rqm or rqm == local_qm:
        # IBM: a remote-queue definition must name another queue manager, "even if
        # XmitQName is not blank"
        raise _fail(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)
    return Resolved(opened, xmitq_for(cat, rqm, _attr(rdef, "XMITQ")), rname, rqm)


def _via_queue_manager(cat: Catalog, local_qm: str, qname: str, qmname: str,
                       *, arrival: bool) -> Resolved:
    alias = cat.queue_def(qmname)
    if alias is not None and alias.objtype == "QREMOTE" and _attr(alias, "RNAME"):
        raise _fail(CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR)  # a remote queue, not a qmgr alias
    if _is_qmgr_alias(alias):
        assert alias is not None
        rqm = _attr(alias, "RQMNAME") or qmname
        if rqm == local_qm:
            return resolve_local(cat, local_qm, qname, opened=alias, arrival=arrival)
        return Resolved(alias, xmitq_for(cat, rqm, _attr(alias, "XMITQ"), via=alias),
                        qname, rqm)
    xq = xmitq_for(cat, qmname)
    return Resolved(xq, xq, qname, qmname)


def resolve_local(cat: Catalog, local_qm: str, qname: str, *, opened: ObjectDef | None = None,
                  arrival: bool = False) -> Resolved:
    """A queue named with a blank or local queue-manager name (rule 1, or rule 3 on arrival)."""
    obj = cat.queue_def(qname)
    if obj is None:
        raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    first = opened or obj
    if obj.objtype == "QLOCAL":
        return Resolved(first, obj)
    if obj.objtype == "QALIAS":
        target = _alias_target(cat, obj)
        if target.objtype == "QLOCAL":
            return Resolved(first, target)
        if arrival:
            raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        return _via_remote_definition(cat, local_qm, first, target)
    if obj.objtype == "QREMOTE" and not arrival:
        return _via_remote_definition(cat, local_qm, first, obj)
    if obj.objtype == "QMODEL":
        return Resolved(first, obj)  # the caller creates the dynamic queue
    raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)


def resolve(cat: Catalog, local_qm: str, qname: str, qmname: str = "", *,
            arrival: bool = False) -> Resolved:
    """Resolve a destination for MQOPEN/MQPUT1 (or, with ``arrival``, for a receiving MCA)."""
    if len(qname) > 48:
        raise _fail(CMQC.MQRC_OBJECT_NAME_ERROR)
    if len(qmname) > 48:
        raise _fail(CMQC.MQRC_Q_MGR_NAME_ERROR)
    if not qmname or qmname == local_qm:
        return resolve_local(cat, local_qm, qname, arrival=arrival)
    return _via_queue_manager(cat, local_qm, qname, qmname, arrival=arrival)


def is_blank_qmgr_alias(cat: Catalog, qmname: str) -> bool:
    """A queue-manager alias with a blank RQMNAME and no XMITQ: IBM's "equates the queue
    manager alias name with blank", so a message for it resolves as if no queue manager
    were named (locally, else through the cluster with workload balancing: IBM's
    "Configuring workload balancing from outside a cluster", seed 002 use 5)."""
    alias = cat.queue_def(qmname)
    return _is_qmgr_alias(alias) and not _attr(alias, "RQMNAME") \
        and not _attr(alias, "XMITQ")  # type: ignore[arg-type]


def qmgr_alias_target(cat: Catalog, qmname: str) -> str:
    """The queue manager a name stands for: a local queue-manager alias's RQMNAME, else the
    name itself (for the cluster, which may know either, seed 002 use 1)."""
    alias = cat.queue_def(qmname)
    if _is_qmgr_alias(alias):
        assert alias is not None
        return _attr(alias, "RQMNAME") or qmname
    return qmname


def resolve_reply_to(cat: Catalog, local_qm: str, reply_q: str, reply_qm: str
                     ) -> tuple[str, str]:
    """The ReplyToQ/ReplyToQMgr a put stores (rule 4)."""
    if not reply_q or reply_qm:
        return reply_q, reply_qm
    alias = cat.queue_def(reply_q)
    if alias is not None and alias.objtype == "QREMOTE" and _attr(alias, "RNAME"):
        return _attr(alias, "RNAME"), _attr(alias, "RQMNAME") or local_qm
    return reply_q, local_qm
