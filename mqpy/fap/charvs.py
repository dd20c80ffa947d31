"""The variable-length strings (MQCHARV) of an MQOD version 4 in the MQOPEN and MQPUT1 flows:
ObjectString, SelectionString and ResObjectString, each carried after the MQOD (after any
distribution-list records) at the VSOffset its MQCHARV gives, counted from the MQOD's start,
with its VSLength; a VSOffset of 0 means none there. In Python the strings are the
structure's own (``mqpy.structs.charv``: ``set_vs`` / ``get_vs``).

``Fused`` keeps such a flow off the one-``struct``-call packers of ``fusedbodies``, which know
fixed fields only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mqpy import CMQC
from mqpy.structs.charv import get_vs, set_vs
from mqpy.structs.tables import OD

__all__ = ["Fused", "has_strings", "place", "read"]

_NAMES = ("ObjectString", "SelectionString", "ResObjectString")


def _strings(value: Any) -> list[tuple[str, bytes]]:
    if type(value) is not OD or value.__dict__.get("Version", 0) < CMQC.MQOD_VERSION_4:
        return []
    out = []
    for name in _NAMES:
        text = get_vs(value, name)
        if text:
            out.append((name, text))
    return out


def has_strings(value: Any) -> bool:
    """Does the MQOD ``value`` carry an MQCHARV string?"""
    return bool(_strings(value))


def place(value: Any, out: Any, pos: int) -> bytes:
    """The strings of ``value`` as they follow it in a flow from offset ``pos`` of the
    structure; ``out`` (the copy that is packed) takes their VSOffsets."""
    tail = []
    for name, text in _strings(value):
        out[name + "VSOffset"] = pos
        out[name + "VSLength"] = len(text)
        tail.append(text)
        pos += len(text)
    return b"".join(tail)


def read(obj: Any, buf: bytes, pos: int, own: int, end: int) -> int:
    """Read the strings of the MQOD ``obj`` decoded from ``buf`` at ``pos`` (``own`` bytes
    long) into it; returns where the body's use of them ends (at least ``end``). A string
    outside the body is ValueError (the caller's invalid data)."""
    if type(obj) is not OD or obj.__dict__["Version"] < CMQC.MQOD_VERSION_4:
        return end
    d = obj.__dict__
    for name in _NAMES:
        at, length = d[name + "VSOffset"], d[name + "VSLength"]
        if not at or length <= 0:
            continue
        if at < own or pos + at + length > len(buf):
            raise ValueError(f"MQOD: {name} at offset {at} outside the body")
        set_vs(obj, name, buf[pos + at:pos + at + length], vs_offset=at,
               vs_buffer_size=d[name + "VSBufSize"], vs_ccsid=d[name + "VSCCSID"])
        end = max(end, pos + at + length)
    return end


class Fused:
    """A ``FusedBody`` whose packer stands aside for values with MQCHARV strings."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def pack(self, values: Sequence[Any], byte_order: Any) -> bytes | None:
        if any(has_strings(v) for v in values):
            return None
        return self.inner.pack(values, byte_order)  # type: ignore[no-any-return]

    def unpack(self, body: bytes, byte_order: Any, into: Sequence[Any] = ()) -> Any:
        return self.inner.unpack(body, byte_order, into)
