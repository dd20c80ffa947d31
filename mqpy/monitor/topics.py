"""The system topics of resource statistics, as IBM names them:

* ``$SYS/MQ/INFO/QMGR/<qmgr>/Monitor/METADATA/CLASSES``: the classes;
* ``.../Monitor/METADATA/<class>/TYPES``: a class's types;
* ``.../Monitor/METADATA/<class>/<type>/ELEMENTS``: a type's elements;
* ``.../Monitor/<class>/<type>`` and, for a class published per object,
  ``.../Monitor/<class>/<object>/<type>`` (a queue name holding ``/`` is given with ``&``
  in its place, as IBM MQ takes it from 9.3).

The metadata are retained publications; data are published every interval to the topics
subscribed to. Only a subscription naming the topic in full gets data: a wildcard
(``#``, ``+``, ``*``) in the class, type or object level is not a request for every queue's
figures, as in IBM MQ, where a monitor subscribes per queue.
"""

from __future__ import annotations

import attrs

from mqpy.monitor.elements import CLASSES, MonitorClass, MonitorType, class_named

ROOT = "$SYS/MQ/INFO/QMGR"
#: what the element metadata give as the data topic of a per-object class
OBJECT_MARK = "%s"


def monitor_prefix(qmgr: str) -> str:
    return f"{ROOT}/{qmgr}/Monitor/"


def classes_topic(qmgr: str) -> str:
    return monitor_prefix(qmgr) + "METADATA/CLASSES"


def types_topic(qmgr: str, cls: MonitorClass) -> str:
    return monitor_prefix(qmgr) + f"METADATA/{cls.name}/TYPES"


def elements_topic(qmgr: str, cls: MonitorClass, typ: MonitorType) -> str:
    return monitor_prefix(qmgr) + f"METADATA/{cls.name}/{typ.name}/ELEMENTS"


def object_in_topic(name: str) -> str:
    """A queue name as a topic level: ``/`` written ``&``."""
    return name.replace("/", "&")


def data_topic(qmgr: str, cls: MonitorClass, typ: MonitorType, obj: str | None = None) -> str:
    """The data topic; for a per-object class with ``obj`` None, the pattern the element
    metadata publish (``%s`` where the object goes)."""
    if not cls.per_object:
        return monitor_prefix(qmgr) + f"{cls.name}/{typ.name}"
    level = OBJECT_MARK if obj is None else object_in_topic(obj)
    return monitor_prefix(qmgr) + f"{cls.name}/{level}/{typ.name}"


@attrs.frozen
class DataTopic:
    """A data topic a subscription asks for: its class, type and object (None: the
    queue manager's own figures)."""

    cls: MonitorClass
    typ: MonitorType
    obj: str | None = None


def parse_data_topic(qmgr: str, topic: str) -> DataTopic | None:
    """Which figures ``topic`` asks for, or None when it is no data topic of ``qmgr``."""
    prefix = monitor_prefix(qmgr)
    if not topic.startswith(prefix):
        return None
    levels = topic[len(prefix):].split("/")
    cls = class_named(levels[0])
    if cls is None:
        return None
    if cls.per_object and len(levels) == 3 and levels[1]:
        obj, tname = levels[1].replace("&", "/"), levels[2]
    elif not cls.per_object and len(levels) == 2:
        obj, tname = None, levels[1]
    else:
        return None
    typ = cls.type_named(tname)
    return None if typ is None else DataTopic(cls, typ, obj)


def metadata_topics(qmgr: str) -> list[str]:
    """Every metadata topic of ``qmgr``."""
    out = [classes_topic(qmgr)]
    for cls in CLASSES:
        out.append(types_topic(qmgr, cls))
        out.extend(elements_topic(qmgr, cls, t) for t in cls.types)
    return out
