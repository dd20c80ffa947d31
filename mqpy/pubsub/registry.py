"""The queue manager's subscriptions and retained publications (:class:`Registry`, one per
engine: :func:`registry_for`).

Durable subscriptions are the catalogue's SUB objects (``subscription``): the registry reads
them when it is first asked, after a restart too, and writes each change through the
engine's ``define`` / ``alter`` / ``delete``, logged like every definition. Non-durable ones
are memory only. Retained publications are kept per topic string. Every method runs under
the engine lock.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import attrs

from mqpy.engine.mqmd import _pack_md
from mqpy.engine.objects import ObjectDef
from mqpy.errors import MQMIError
from mqpy.pubsub import interqmgr, retained, topictree
from mqpy.pubsub.subscription import OBJTYPE, Subscription
from mqpy.structs.tables import MD

if TYPE_CHECKING:
    from mqpy.engine.connection import Connection
    from mqpy.engine.qmgr import QueueManagerEngine

__all__ = ["Registry", "Retained", "end_subscription", "registry_for"]


@attrs.frozen
class Retained:
    """A retained publication: its MQMD (packed, as published) and data; ``msgid``: the
    message that keeps a persistent one over a restart (``retained``), if any."""

    md: bytes
    data: bytes
    persistent: bool
    msgid: bytes | None = None


class Registry:
    """One queue manager's subscriptions (by SUBID and by name), which of them a handle has
    open, and its retained publications."""

    def __init__(self, engine: QueueManagerEngine) -> None:
        self.engine = engine
        self.subs: dict[bytes, Subscription] = {}
        self.by_name: dict[str, bytes] = {}
        #: SUBID -> the connection whose subscription handle has it open
        self.open_by: dict[bytes, Connection] = {}
        self.retained: dict[str, Retained] = {}
        #: SUBID -> (publications delivered, when the last was), for DISPLAY SBSTATUS
        self.delivered: dict[bytes, tuple[int, float]] = {}
        #: SUBID -> when a handle last made or resumed it (RESMDATE, RESMTIME)
        self.resumed: dict[bytes, float] = {}
        #: called with each new subscription (engine lock held): how a task that serves new
        #: subscribers (``mqpy.monitor.publisher``) sleeps until there is one
        self.on_new: list[Callable[[Subscription], None]] = []
        for obj in engine.catalog.by_type(OBJTYPE):
            self._add(Subscription.from_object(obj))
        try:
            kept = retained.load(engine)
        except MQMIError:  # (a queue manager ending): they are read at the next restart
            kept = {}
        for topic, (md, data, msgid) in kept.items():
            self.retained[topic] = Retained(_pack_md(md), data, True, msgid)

    def retain(self, topic: str, md: MD, data: bytes, persistent: bool) -> None:
        """MQPMO_RETAIN: ``md`` / ``data`` become the topic's retained publication, the
        last one forgotten; a persistent one is kept on SYSTEM.RETAINED.PUB.QUEUE too."""
        old = self.retained.get(topic)
        msgid = retained.store(self.engine, topic, md, data) if persistent else None
        self.retained[topic] = Retained(_pack_md(md), data, persistent, msgid)
        if old is not None and old.msgid is not None:
            retained.forget(self.engine, old.msgid)

    # ------------------------------------------------------------------ subscriptions

    def _add(self, sub: Subscription) -> None:
        self.subs[sub.subid] = sub
        if sub.name:
            self.by_name[sub.name] = sub.subid

    def named(self, name: str) -> Subscription | None:
        subid = self.by_name.get(name)
        return None if subid is None else self.subs.get(subid)

    def add(self, sub: Subscription) -> None:
        """A new subscription; a durable one is defined in the catalogue (logged) first."""
        if sub.durable:
            self.engine.define(OBJTYPE, sub.subid_hex, sub.attributes())
        self._add(sub)
        interqmgr.request_fan_out(self.engine, sub)
        for notify in self.on_new:
            notify(sub)

    def changed(self, sub: Subscription) -> None:
        """A subscription altered (MQSO_ALTER, ALTER SUB): a durable one is logged."""
        if sub.durable:
            self.engine.alter(OBJTYPE, sub.subid_hex, sub.attributes())

    def remove(self, sub: Subscription) -> None:
        """The subscription ends; a durable one leaves the catalogue (logged)."""
        if sub.durable and self.engine.catalog.lookup(OBJTYPE, sub.subid_hex) is not None:
            self.engine.delete(OBJTYPE, sub.subid_hex)
        self.subs.pop(sub.subid, None)
        self.open_by.pop(sub.subid, None)
        self.delivered.pop(sub.subid, None)
        self.resumed.pop(sub.subid, None)
        if sub.name and self.by_name.get(sub.name) == sub.subid:
            del self.by_name[sub.name]
        interqmgr.request_fan_out(self.engine, sub)

    def reap(self) -> None:
        """Subscriptions open by a connection that ended without closing them (MQDISC or
        STOP CONN of a broken connection): no longer open, and a non-durable one ends."""
        for subid, conn in list(self.open_by.items()):
            if not conn.connected:
                del self.open_by[subid]
                sub = self.subs.get(subid)
                if sub is not None and not sub.durable:
                    end_subscription(self.engine, self, sub)

    def __iter__(self) -> Iterator[Subscription]:
        return iter(list(self.subs.values()))

    # ------------------------------------------------------------------ the topic tree

    def tree(self) -> dict[str, ObjectDef]:
        """The administrative topic nodes by topic string."""
        return topictree.nodes(self.engine.catalog.by_type("TOPIC"))

    def base(self) -> ObjectDef | None:
        return self.engine.catalog.lookup("TOPIC", topictree.BASE_TOPIC)

    def topic_attribute(self, topic: str, key: str, tree: dict[str, ObjectDef] | None = None
                        ) -> object:
        """One resolved (ASPARENT) attribute of a topic string."""
        return topictree.resolve(self.tree() if tree is None else tree, self.base(), topic,
                                 key)


def end_subscription(eng: QueueManagerEngine, reg: Registry, sub: Subscription) -> None:
    """A subscription ends (MQCLOSE, DELETE SUB): it leaves the registry (a durable one the
    catalogue, logged) and its managed queue is deleted -- a temporary one by the close of
    its handle, if that is still open (mqsub rule 7). Engine lock held."""
    reg.remove(sub)
    if not sub.managed:
        return
    queue = eng.catalog.queue_def(sub.dest)
    if queue is None or queue.objtype != "QLOCAL":
        return
    mq = eng.catalog.queues.get(queue.qid)
    if queue.attributes.get("DEFTYPE") == "TEMPDYN" and mq is not None \
            and eng._open_handles(mq):
        return
    eng._delete_queue_locked(queue, purge=True, force=True)


_REGISTRIES: weakref.WeakKeyDictionary[QueueManagerEngine, Registry] = \
    weakref.WeakKeyDictionary()


def registry_for(engine: QueueManagerEngine) -> Registry:
    """The engine's registry, made (from its catalogue) when first asked (lock held)."""
    reg = _REGISTRIES.get(engine)
    if reg is None:
        reg = _REGISTRIES[engine] = Registry(engine)
    return reg
