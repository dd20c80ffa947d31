"""Which objects and attributes a DISPLAY shows: generic names (``ABC*``), the WHERE filter
and the attributes asked for (ALL, a list, the WHERE keyword)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mqpy.mqsc.mapping import FLAG_ATTRS
from mqpy.mqsc.parser import MQSCCommand, Where

__all__ = ["generic_match", "selected", "where_passes"]


def generic_match(pattern: str, value: str) -> bool:
    """MQSC generic names: ``*`` matches all, ``ABC*`` every name starting ABC."""
    if pattern.endswith("*"):
        return value.startswith(pattern[:-1])
    return value == pattern


def where_passes(where: Where | None, row: Mapping[str, object]) -> bool:
    """The WHERE filter of every DISPLAY: no WHERE passes all; a row without the filter's
    keyword fails it (IBM: an object or status the keyword does not apply to is not
    shown); otherwise the keyword's value is compared."""
    if where is None:
        return True
    return where.keyword in row and _where_holds(where, row[where.keyword])


def _where_holds(where: Where, value: object) -> bool:
    op, want = where.operator, where.value
    if op in ("CT", "EX", "CTG", "EXG"):
        items = list(value) if isinstance(value, (list, tuple)) else [value]
        if op in ("CT", "EX"):
            hit = any(str(i) == str(want) for i in items)
            return hit if op == "CT" else not hit
        hit = any(generic_match(str(want), str(i)) for i in items)
        return hit if op == "CTG" else not hit
    if op in ("LK", "NL"):
        text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
        hit = generic_match(str(want), text)
        return hit if op == "LK" else not hit
    left: Any = value
    right: Any = want
    if not (isinstance(left, int) and isinstance(right, int)):
        left, right = str(left), str(right)
    return {"EQ": left == right, "NE": left != right, "LT": left < right, "GT": left > right,
            "LE": left <= right, "GE": left >= right}[op]


def selected(cmd: MQSCCommand, view: Mapping[str, object], *, exclude: Iterable[str] = (),
             everything: bool = False) -> dict[str, object]:
    """The attributes a DISPLAY asked for (ALL, a list, and the WHERE keyword)."""
    if everything or "ALL" in cmd.flags:
        wanted = set(view)
    else:
        wanted = {FLAG_ATTRS.get(k, (k, ""))[0] for k in cmd.display_attrs}
        if cmd.where is not None:
            wanted.add(cmd.where.keyword)
    skip = set(exclude)
    return {k: v for k, v in view.items() if k in wanted and k not in skip}
