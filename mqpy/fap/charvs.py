"""An MQOD of version 3 or 4 in the MQOPEN and MQPUT1 flows, and its variable-length strings.

The flows carry an MQOD with 4-byte pointer fields, as Wireshark's MQ dissector reads it
(ObjectRecPtr and ResponseRecPtr at 192 and 196, AlternateSecurityId at 200, the three
MQCHARVs of 20 bytes at 336, 356 and 376, ResolvedType at 396: 336 bytes for version 3, 400
for version 4); ``mqpy.structs.tables.OD`` has the 8-byte pointers of a 64-bit program (344 and
424 bytes). ``to_flow`` and ``from_flow`` convert, the offsets counted from the MQOD's start
following (the pointers themselves mean nothing across processes: 0).

ObjectString, SelectionString and ResObjectString are carried after the MQOD (after any
distribution-list records) at the VSOffset their MQCHARV gives, counted from the MQOD's start,
with their VSLength; a VSOffset of 0 means none there. In Python the strings are the
structure's own (``mqpy.structs.charv``: ``set_vs`` / ``get_vs``).

``Fused`` keeps such flows off the one-``struct``-call packers of ``fusedbodies``, which know
the fixed fields of mqpy's own layout only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mqpy import CMQC
from mqpy.fap.tsh import ByteOrder
from mqpy.structs.charv import get_vs, set_vs
from mqpy.structs.tables import OD

__all__ = ["Fused", "from_flow", "has_strings", "place", "read", "to_flow"]

_NAMES = ("ObjectString", "SelectionString", "ResObjectString")
_OD_ID = CMQC.MQOD_STRUC_ID
_LAYOUT = OD._layout_
_PTRS = _LAYOUT.offsets["ObjectRecPtr"]  # 192: two pointers
_V3 = _LAYOUT.offsets["AlternateSecurityId"]  # 208 here, 200 in a flow
_CHARVS = _LAYOUT.offsets["ObjectStringVSPtr"]  # 344 here, 336 in a flow
_RESOLVED_TYPE = _LAYOUT.offsets["ResolvedType"]  # 416 here, 396 in a flow
_CHARV, _FLOW_CHARV = 24, 20
_OFFSET_FIELDS = ("ObjectRecOffset", "ResponseRecOffset",
                  *(name + "VSOffset" for name in _NAMES))
#: an MQOD's length in a flow, and here, by Version (3 and 4: the others are alike)
FLOW_SIZES = {3: _PTRS + 8 + (_CHARVS - _V3), 4: _PTRS + 8 + (_CHARVS - _V3) + 3 * 20 + 4}
NATIVE_SIZES = {3: _CHARVS, 4: _LAYOUT.length(4)}
_FLOW_OFFSETS = {3: {"ObjectRecOffset": 184, "ResponseRecOffset": 188},
                 4: {"ObjectRecOffset": 184, "ResponseRecOffset": 188,
                     "ObjectStringVSOffset": 340, "SelectionStringVSOffset": 360,
                     "ResObjectStringVSOffset": 380}}


def _shift(raw: bytearray, at: dict[str, int], delta: int, long: Any) -> None:
    """Add ``delta`` to each nonzero offset field of ``raw`` (at the offsets ``at``)."""
    for where in at.values():
        value = long.unpack_from(raw, where)[0]
        if value:
            long.pack_into(raw, where, value + delta)


def to_flow(raw: bytes, long: Any) -> bytes:
    """An MQOD packed here (``raw``, what follows it included) as a flow carries it;
    ``long``: the byte order's MQLONG ``struct``. Versions 1 and 2 are alike."""
    version = long.unpack_from(raw, 4)[0]
    if version not in FLOW_SIZES:
        return raw
    parts = [raw[:_PTRS], bytes(8), raw[_V3:_CHARVS]]
    if version >= 4:
        for i in range(3):
            at = _CHARVS + i * _CHARV
            parts.append(bytes(4) + raw[at + 8:at + _CHARV])
        parts.append(raw[_RESOLVED_TYPE:_RESOLVED_TYPE + 4])
    head = bytearray(b"".join(parts))
    _shift(head, _FLOW_OFFSETS[version], FLOW_SIZES[version] - NATIVE_SIZES[version], long)
    return bytes(head) + raw[NATIVE_SIZES[version]:]


def from_flow(buf: bytes, pos: int, long: Any) -> tuple[bytes, int]:
    """``buf`` with the flow's MQOD at ``pos`` in the layout here, and how many bytes longer
    that made it (0: ``buf`` as it was, a Version 1 or 2 MQOD, or too short to be one)."""
    if len(buf) < pos + 8:
        return buf, 0
    version = long.unpack_from(buf, pos + 4)[0]
    size = FLOW_SIZES.get(version)
    if size is None or len(buf) < pos + size:
        return buf, 0
    flow = bytearray(buf[pos:pos + size])
    delta = NATIVE_SIZES[version] - size
    _shift(flow, _FLOW_OFFSETS[version], delta, long)
    parts = [bytes(flow[:_PTRS]), bytes(16), bytes(flow[_PTRS + 8:_CHARVS - 8])]
    if version >= 4:
        for i in range(3):
            at = _CHARVS - 8 + i * _FLOW_CHARV
            parts.append(bytes(8) + bytes(flow[at + 4:at + _FLOW_CHARV]))
        parts.append(bytes(flow[size - 4:size]) + bytes(4))
    return buf[:pos] + b"".join(parts) + buf[pos + size:], delta


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
        if any(type(v) is OD and v.__dict__.get("Version", 0) >= 3 for v in values):
            return None
        return self.inner.pack(values, byte_order)  # type: ignore[no-any-return]

    def unpack(self, body: bytes, byte_order: Any, into: Sequence[Any] = ()) -> Any:
        if body[:4] == _OD_ID and int.from_bytes(
                body[4:8], "little" if byte_order == ByteOrder.LITTLE else "big") >= 3:
            return None  # (a flow's MQOD of version 3 or 4 is not laid out as here)
        return self.inner.unpack(body, byte_order, into)
