"""The MQCHARV strings a structure carries behind it on the wire (an MQSD's; an MQOD's are
``mqpy.fap.charvs``'s, with the MQOD's own flow layout). Sans-IO.

An MQCHARV's string travels after the structure, at the VSOffset its MQCHARV gives, counted
from the structure's start, VSLength bytes long, as IBM's client flows carry them (the
pointer is meaningless across processes and goes as 0). In Python the strings are those
``set_vs`` keeps with the structure (``mqpy.structs.charv``).
"""

from __future__ import annotations

from typing import Any

from mqpy.structs.mqstruct import MQStruct

__all__ = ["pack_with_strings", "read_strings"]

_STRINGS = "_vs_strings_"  # (mqpy.structs.charv's attribute)


def _strings(struc: Any, names: tuple[str, ...]) -> list[tuple[str, bytes]]:
    kept = getattr(struc, "__dict__", {}).get(_STRINGS) or {}
    return [(name, kept[name]) for name in names if kept.get(name)]


def pack_with_strings(struc: MQStruct, encoding: int, names: tuple[str, ...]) -> bytes:
    """The structure followed by its MQCHARV strings, VSOffset and VSLength set to them."""
    wanted = _strings(struc, names)
    if not wanted:
        return struc.pack(encoding)
    out = struc.copy()
    pos = out.packed_size()
    tail = []
    for name, value in wanted:
        out[name + "VSOffset"] = pos
        out[name + "VSLength"] = len(value)
        out[name + "VSBufSize"] = max(out[name + "VSBufSize"], len(value))
        tail.append(value)
        pos += len(value)
    return out.pack(encoding) + b"".join(tail)


def read_strings(struc: MQStruct, buf: bytes, start: int, end: int,
                 names: tuple[str, ...]) -> int:
    """Give ``struc`` (decoded from ``buf`` at ``start``, ending at ``end``) the MQCHARV
    strings that follow it; where its part of the body now ends. An offset and length that
    do not point behind the structure, inside the flow, carry nothing (the fields as the
    application left them)."""
    kept = {}
    for name in names:
        offset, length = struc[name + "VSOffset"], struc[name + "VSLength"]
        at = start + offset
        if length <= 0 or offset < end - start or at + length > len(buf):
            continue
        kept[name] = bytes(buf[at:at + length])
        end = max(end, at + length)
    if kept:
        struc.__dict__[_STRINGS] = kept
    return end
