"""An open object handle (Hobj) and what its MQPUT and MQGET read of the attributes."""

from __future__ import annotations

from typing import Any

import attrs

from mqpy import CMQC
from mqpy.engine.cluster import ClusterRoute
from mqpy.engine.objects import ObjectDef
from mqpy.engine.options import _NOT_PERSISTENT, _PERSISTENT
from mqpy.engine.queues import Entry, MessageQueue, file_room
from mqpy.engine.stats import HandleCounters
from mqpy.structs.tables import MD


@attrs.define(eq=False)
class Handle:
    """An open object handle (Hobj)."""

    hobj: int
    obj: ObjectDef  # the object opened (an alias stays an alias)
    base: ObjectDef  # the local queue it resolves to
    mq: MessageQueue
    options: int
    exclusive: bool = False
    browse_key: tuple[int, int] | None = None
    browse_entry: Entry | None = None
    dynamic: str | None = None  # "TEMPDYN" when this handle created a temporary queue
    remote_q: str | None = None  # set when ``base`` is a transmission queue: the destination
    remote_qm: str | None = None
    saved_context: MD | None = None  # MQOO_SAVE_ALL_CONTEXT: context of the last get
    resolved: tuple[bytes, bytes] | None = None  # (ResolvedQName, ResolvedQMgrName), encoded

    @property
    def base_name(self) -> bytes:
        """The local queue's name as MQGET's ResolvedQName."""
        return self.base.name.encode()
    deleted: bool = False  # the queue was deleted while open (MQRC_Q_DELETED)
    cluster: ClusterRoute | None = None  # a cluster queue: the route chosen at MQOPEN
    facts: _Facts | None = None  # what MQPUT and MQGET read of the attributes (_facts)
    #: the statistics and accounting counters a put or get adds to (Connection._counters)
    counters: HandleCounters | None = None
    #: MQOD.SelectionString compiled (engine.msgselection): MQGET skips what it does not select
    selector: Any = None
    #: message groups (engine.groups): the group MQPMO_LOGICAL_ORDER's puts, MQGMO_LOGICAL_ORDER's
    #: gets and its browse are in the middle of; whether the last put / get was in logical order
    put_group: Any = None
    put_logical: bool = False
    get_group: Any = None
    get_logical: bool = False
    browse_group: Any = None
    browse_logical_key: tuple[int, int] | None = None  # the browsed group's first message's
    #: the unit of work that kept this handle's group state to restore at its backout
    #: (engine.groups.keep_for_backout)
    group_uow: Any = None
    #: the waiter its MQGET with MQGMO_WAIT left on its queue (HSTATE ACTIVE while it is there)
    waiter: Any = None


class _Facts:
    """What a handle's MQPUT and MQGET read of the queue's, the object's and the queue
    manager's attributes, worked out once rather than on every call.

    Valid while those three dictionaries are the very objects it was made from: ALTER, MQSET,
    DEFINE ... REPLACE and ALTER QMGR install new dictionaries and never change one in place,
    so an identity test is enough (:meth:`Connection._facts`). ``put`` and ``get`` say whether the
    fast paths (:meth:`Connection._put_fast`, :meth:`Connection._get_fast`) may serve the
    handle at all: a local queue, not a cluster queue nor a remote one, enabled, without
    triggering; anything else takes the general path."""

    __slots__ = ("obj_attrs", "base_attrs", "qmgr_attrs", "put", "get", "persistence",
                 "priority", "tempdyn", "maxmsgl", "maxdepth", "by_priority", "ccsid",
                 "base_name", "file_room")

    def __init__(self, h: Handle, qmgr_attrs: dict) -> None:
        oa, ba = h.obj.attributes, h.base.attributes
        self.obj_attrs, self.base_attrs, self.qmgr_attrs = oa, ba, qmgr_attrs
        self.base_name = h.base_name  # (MQGET's ResolvedQName)
        self.by_priority = ba.get("MSGDLVSQ", "PRIORITY") == "PRIORITY"
        self.get = oa.get("GET") != "DISABLED" and ba.get("GET") != "DISABLED"
        self.put = False
        self.persistence = _PERSISTENT if oa.get("DEFPSIST") == "YES" else _NOT_PERSISTENT
        self.tempdyn = ba.get("DEFTYPE") == "TEMPDYN"
        try:
            self.priority = int(oa.get("DEFPRTY", 0))  # type: ignore[arg-type]
            self.maxmsgl = min(int(ba.get("MAXMSGL", 4194304)),  # type: ignore[arg-type]
                               int(qmgr_attrs.get("MAXMSGL", 4194304)))  # type: ignore[arg-type]
            self.maxdepth = int(ba.get("MAXDEPTH", 5000))  # type: ignore[arg-type]
            self.file_room = file_room(ba.get("MAXFSIZE"))  # (MQRC_Q_SPACE_NOT_AVAILABLE)
            # what a put stores for MQCCSI_Q_MGR: the queue manager's CCSID
            self.ccsid = int(qmgr_attrs.get("CCSID", CMQC.MQCCSI_Q_MGR))  # type: ignore[arg-type]
        except (TypeError, ValueError):  # the general path says what is wrong
            return
        self.put = (h.cluster is None and h.remote_qm is None and h.obj.objtype != "QCLUSTER"
                    and oa.get("PUT") != "DISABLED" and ba.get("PUT") != "DISABLED"
                    and ba.get("TRIGGER") != "YES")
