"""The defaults of an opened object that an MQOPEN reply carries to the application's side
(``mqpy.fap.fopa``): DEFPSIST, DEFPRESP, DEFREADA and PROPCTL of the object the application
named (an alias's own, as the queue manager's put and read ahead use them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mqpy import CMQC
from mqpy.engine.mqinq import queue_attribute
from mqpy.fap.fopa import OpenDefaults

__all__ = ["of_attributes", "of_handle"]

_PERSISTENCE = {"YES": CMQC.MQPER_PERSISTENT, "NO": CMQC.MQPER_NOT_PERSISTENT}


def _value(selector: int, attributes: Mapping[str, object]) -> int:
    # a remote queue definition has no DEFREADA / PROPCTL: IBM's defaults stand for them
    value = queue_attribute(selector, "QLOCAL", attributes)
    return value if isinstance(value, int) else 0


def of_attributes(attributes: Mapping[str, object]) -> OpenDefaults:
    """An object definition's defaults, as MQINQ would give them."""
    persistence = _PERSISTENCE.get(str(attributes.get("DEFPSIST", "NO")).upper(),
                                   CMQC.MQPER_NOT_PERSISTENT)
    return OpenDefaults(persistence, _value(CMQC.MQIA_DEF_PUT_RESPONSE_TYPE, attributes),
                        _value(CMQC.MQIA_DEF_READ_AHEAD, attributes),
                        _value(CMQC.MQIA_PROPERTY_CONTROL, attributes))


def of_handle(conn: Any, hobj: int) -> OpenDefaults | None:
    """The defaults of the object the engine connection ``conn`` has open as ``hobj`` (None
    when it is not an open object, or not a queue's)."""
    with conn.engine.lock:
        h = conn.handles.get(hobj)
        attributes = getattr(getattr(h, "obj", None), "attributes", None)
        if attributes is None:
            return None
        try:
            return of_attributes(attributes)
        except (KeyError, ValueError, TypeError):
            return None
