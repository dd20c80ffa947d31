"""The queue manager's default and system objects recreated (IBM's ``strmqm -c``): each
object crtmqm defines is replaced by its definition as crtmqm makes it -- reset to IBM's
defaults, not merged with what was altered since -- or defined again if it was deleted. A
queue keeps its messages (as DEFINE ... REPLACE does); other objects are left alone.

And the system objects added since queue managers were first made (:data:`ADDED_OBJECTS`):
crtmqm makes them with the others, and strmqm defines those an existing queue manager lacks
(:func:`add_missing_objects`), as IBM's migration of a queue manager to a new level does."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from mqpy.engine.objects import SYSTEM_OBJECTS, ObjectDef

if TYPE_CHECKING:
    from mqpy.engine.qmgr import QueueManagerEngine


#: the system objects added since the first queue managers were made (the command and
#: configuration event queues), which strmqm defines where they are missing
ADDED_NAMES = ("SYSTEM.ADMIN.COMMAND.EVENT", "SYSTEM.ADMIN.CONFIG.EVENT")
ADDED_OBJECTS: list[tuple[str, str, dict[str, object]]] = [
    o for o in SYSTEM_OBJECTS if o[1] in ADDED_NAMES]


def add_missing_objects(eng: QueueManagerEngine) -> list[str]:
    """Define the :data:`ADDED_OBJECTS` that an existing queue manager lacks (strmqm's
    migration); the names defined. An object of that name and another type is left be."""
    added = []
    with eng.lock:
        for objtype, name, attributes in ADDED_OBJECTS:
            if eng.catalog.lookup(objtype, name) is None:
                eng.define(objtype, name, dict(attributes))
                added.append(name)
    return added


@attrs.frozen
class Recreated:
    """What ``strmqm -c`` reports: "Default objects statistics : N created. N replaced. N
    failed." (failed: an object of that name and another type is in the way)."""

    created: int
    replaced: int
    failed: int


def recreate_default_objects(eng: QueueManagerEngine) -> Recreated:
    """Replace or define every default and system object, logged as DEFINE and ALTER are."""
    created = replaced = failed = 0
    with eng.lock:
        for objtype, name, attributes in SYSTEM_OBJECTS:
            old = eng.catalog.lookup(objtype, name)
            if old is None:
                eng.define(objtype, name, dict(attributes))
                created += 1
                continue
            if old.objtype != objtype:
                failed += 1
                continue
            fresh = ObjectDef.new(objtype, name, dict(attributes), qid=old.qid)
            eng.data.log_object("alter", fresh)
            # the same object with a new dictionary, as DEFINE REPLACE does: handles open
            # on it obey the new definition at their next call
            old.attributes = fresh.attributes
            eng.catalog.install(old)
            replaced += 1
    return Recreated(created, replaced, failed)
