"""What DEFINE TOPIC checks beyond its grammar (IBM): a TOPICSTR is required, and one topic
string has at most one administrative topic object. Pure over the catalog."""

from __future__ import annotations

from collections.abc import Mapping

from mqpy import CMQCFC
from mqpy.engine.catalog import Catalog
from mqpy.pubsub import admintopic

__all__ = ["definition_error"]


def definition_error(catalog: Catalog, name: str, attributes: Mapping[str, object]) -> int:
    """The PCF reason DEFINE TOPIC ``name`` with ``attributes`` is refused with, or 0. A
    blank TOPICSTR is only SYSTEM.BASE.TOPIC's and SYSTEM.DEFAULT.TOPIC's, defined again
    (REPLACE, as strmqm -c or dmpmqcfg's output does)."""
    if admintopic.restricted_change(name, attributes):  # SYSTEM.ADMIN.TOPIC's fixed values
        return admintopic.restricted_change(name, attributes)
    topic = str(attributes.get("TOPICSTR") or "").strip()
    if not topic:
        existing = catalog.lookup("TOPIC", name)
        if existing is None or str(existing.attributes.get("TOPICSTR") or "").strip():
            return CMQCFC.MQRCCF_PARM_MISSING
        return 0
    for obj in catalog.by_type("TOPIC"):
        if obj.name != name and obj.attributes.get("TOPICSTR") == topic:
            return CMQCFC.MQRCCF_TOPICSTR_ALREADY_EXISTS
    return 0
