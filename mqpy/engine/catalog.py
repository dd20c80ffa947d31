"""The catalog: every defined object and, for each local queue, its messages in memory.

Both the data manager (restart, checkpoints) and the message manager (the MQI) work on the
catalog, always under the engine lock. It enforces nothing but naming: queues of all types share
one namespace, names are case-sensitive as in MQ.
"""

from __future__ import annotations

from mqpy.engine.objects import ObjectDef, namespace
from mqpy.engine.queues import MessageQueue


class Catalog:
    def __init__(self) -> None:
        self.objects: dict[tuple[str, str], ObjectDef] = {}
        self.queues: dict[int, MessageQueue] = {}  # qid -> messages of a local queue
        self.by_qid: dict[int, ObjectDef] = {}  # qid -> its local queue definition
        self.qmgr: dict[str, object] = {}
        self.next_qid = 1

    def lookup(self, objtype: str, name: str) -> ObjectDef | None:
        return self.objects.get((namespace(objtype), name))

    def queue_def(self, name: str) -> ObjectDef | None:
        return self.objects.get(("QUEUE", name))

    def messages(self, obj: ObjectDef) -> MessageQueue:
        return self.queues[obj.qid]

    def install(self, obj: ObjectDef) -> None:
        """Add or replace a definition; a local queue keeps (or gets) its message store."""
        key = (namespace(obj.objtype), obj.name)
        self.objects[key] = obj
        if obj.objtype == "QLOCAL":
            if obj.qid == 0:
                obj.qid = self.next_qid
            self.next_qid = max(self.next_qid, obj.qid + 1)
            mq = self.queues.setdefault(obj.qid, MessageQueue(obj.qid))
            mq.psid = self._psid(obj)
            self.by_qid[obj.qid] = obj

    def remove(self, objtype: str, name: str) -> ObjectDef | None:
        obj = self.objects.pop((namespace(objtype), name), None)
        if obj is not None and obj.objtype == "QLOCAL":
            self.queues.pop(obj.qid, None)
            self.by_qid.pop(obj.qid, None)
        return obj

    def _psid(self, obj: ObjectDef) -> int:
        """The pageset of a local queue, through its storage class (IBM: DEFAULT -> 1)."""
        stg = self.objects.get(("STGCLASS", str(obj.attributes.get("STGCLASS"))))
        return int(stg.attributes.get("PSID", 1)) if stg is not None else 1

    def by_type(self, objtype: str) -> list[ObjectDef]:
        return [o for o in self.objects.values() if o.objtype == objtype]
