"""The topic tree's administrative nodes (TOPIC objects) and the resolution of a topic's
attributes: ASPARENT is inherited from the closest parent administrative node up the tree,
then from SYSTEM.BASE.TOPIC, then from IBM's values for that object. Pure functions over the
catalog's TOPIC definitions; the engine calls them under its lock.

The rules (IBM MQ, "Topic objects", "SYSTEM.BASE.TOPIC", DEFINE TOPIC):

1. A TOPIC object is the administrative node of the topic string in its TOPICSTR; an object
   with a blank TOPICSTR (SYSTEM.BASE.TOPIC, SYSTEM.DEFAULT.TOPIC) is no node of the tree.
2. A topic's attribute is the value of its own node, if it has one and the value is not
   ASPARENT; else its parent node's, level by level up to the root; else SYSTEM.BASE.TOPIC's;
   else IBM's value for SYSTEM.BASE.TOPIC (which is used even if that object is deleted).
3. WILDCARD(BLOCK) on a node: a wildcard subscription less qualified than the node's topic
   string receives no publication on the node's topic or below it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mqpy.engine.objects import ObjectDef
from mqpy.pubsub import admintopic
from mqpy.pubsub.topicstrings import SEPARATOR, fixed_prefix_levels, has_wildcard, levels

__all__ = ["BASE_TOPIC", "BASE_VALUES", "DEFAULT_TOPIC", "authority_objects", "blocked",
           "node_for", "nodes",
           "resolve", "resolved", "wildcard_blocked"]

BASE_TOPIC = "SYSTEM.BASE.TOPIC"
DEFAULT_TOPIC = "SYSTEM.DEFAULT.TOPIC"
ASPARENT = "ASPARENT"

#: SYSTEM.BASE.TOPIC's attributes as IBM defines it (rule 2's last resort)
BASE_VALUES: Mapping[str, object] = {
    "DEFPRESP": "SYNC", "DEFPRTY": 0, "DEFPSIST": "NO", "DURSUB": "YES",
    "MDURMDL": "SYSTEM.DURABLE.MODEL.QUEUE", "MNDURMDL": "SYSTEM.NDURABLE.MODEL.QUEUE",
    "NPMSGDLV": "ALLAVAIL", "PMSGDLV": "ALLDUR", "PROXYSUB": "FIRSTUSE", "PUB": "ENABLED",
    "PUBSCOPE": "ALL", "SUB": "ENABLED", "SUBSCOPE": "ALL", "USEDLQ": "YES",
    "WILDCARD": "PASSTHRU", "MCAST": "DISABLED", "CLROUTE": "DIRECT", "CLUSTER": "",
    "CAPEXPRY": "NOLIMIT", "COMMINFO": "SYSTEM.DEFAULT.COMMINFO.MULTICAST",
}
#: the attributes that a node may leave to its parent (rule 2): ASPARENT, or blank for the
#: names (MDURMDL, MNDURMDL and CLUSTER are blank to inherit)
INHERITED = tuple(BASE_VALUES)
_BLANK_INHERITS = frozenset({"MDURMDL", "MNDURMDL", "CLUSTER", "COMMINFO"})


def nodes(topic_objects: Iterable[ObjectDef]) -> dict[str, ObjectDef]:
    """The administrative nodes by topic string (rule 1)."""
    out: dict[str, ObjectDef] = {}
    for obj in topic_objects:
        topic = str(obj.attributes.get("TOPICSTR") or "")
        if topic:
            out[topic] = obj
    return out


def node_for(tree: Mapping[str, ObjectDef], topic: str) -> ObjectDef | None:
    """The closest administrative node at or above ``topic`` (None: none in the tree)."""
    for obj in _ancestry(tree, topic):
        return obj
    return None


def authority_objects(tree: Mapping[str, ObjectDef], topic: str) -> list[str]:
    """The topic objects whose authorities a publisher or subscriber of ``topic`` may hold:
    its closest administrative node, then the parents', then SYSTEM.BASE.TOPIC; in $SYS/MQ
    only the nodes at or below SYSTEM.ADMIN.TOPIC (mqpy.pubsub.admintopic rule 6)."""
    names = [obj.name for obj in _ancestry(tree, topic)]
    return names if admintopic.in_branch(topic) else names + [BASE_TOPIC]


def _ancestry(tree: Mapping[str, ObjectDef], topic: str) -> Iterable[ObjectDef]:
    """The administrative nodes at and above ``topic``, closest first (in $SYS/MQ, none
    above it)."""
    parts = levels(topic)
    for n in range(len(parts), admintopic.highest_level(topic) - 1, -1):
        obj = tree.get(SEPARATOR.join(parts[:n]))
        if obj is not None:
            yield obj


def _set(key: str, value: object) -> bool:
    if value is None or value == ASPARENT:
        return False
    return not (key in _BLANK_INHERITS and not str(value).strip())


def resolve(tree: Mapping[str, ObjectDef], base: ObjectDef | None, topic: str,
            key: str) -> object:
    """One attribute of ``topic`` (rule 2)."""
    for obj in _ancestry(tree, topic):
        value = obj.attributes.get(key)
        if _set(key, value):
            return value
    if base is not None and not admintopic.in_branch(topic):  # $SYS/MQ: IBM's values
        value = base.attributes.get(key)
        if _set(key, value):
            return value
    return BASE_VALUES.get(key)


def resolved(tree: Mapping[str, ObjectDef], base: ObjectDef | None, topic: str
             ) -> dict[str, object]:
    """Every inherited attribute of ``topic`` (DISPLAY TPSTATUS's view)."""
    return {key: resolve(tree, base, topic, key) for key in INHERITED}


def blocked(tree: Mapping[str, ObjectDef], published: str, qualified: int) -> bool:
    """Whether a wildcard subscription with ``qualified`` fixed leading levels is kept from
    a publication on ``published`` by a WILDCARD(BLOCK) node (rule 3)."""
    if admintopic.above_branch(published, qualified):  # $SYS/MQ, even without its object
        return True
    parts = levels(published)
    for n in range(len(parts), qualified, -1):
        obj = tree.get(SEPARATOR.join(parts[:n]))
        if obj is not None and obj.attributes.get("WILDCARD") == "BLOCK":
            return True
    return False


def wildcard_blocked(tree: Mapping[str, ObjectDef], subscribed: str, scheme: int,
                     published: str) -> bool:
    """Whether a subscription to ``subscribed`` (in wildcard ``scheme``) is kept from a
    publication on ``published`` by a WILDCARD(BLOCK) node (rule 3): never when it names its
    topic without wildcards."""
    return has_wildcard(subscribed, scheme) \
        and blocked(tree, published, fixed_prefix_levels(subscribed, scheme))
