"""The fused form of the bodies every message crosses: MQPUT, MQGET, MQPUT1, MQOPEN.

Owns ``FusedBody``: a verb body of the common form (its structures without records, then
MQLONGs, then perhaps message data) packed and unpacked with one ``struct`` call compiled
from the structures' own layouts; anything else is left to the general, item-by-item path of
``mqpy.fap.mqiflows``, which gives the bytes, or the error, it always gave.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

from mqpy.fap.mqiparams import (
    DECODED_KEPT,
    MQLONG,
    NO_MSGID,
    Bytes,
    Item,
    ListStructure,
    Long,
    Structure,
    struct_order,
)
from mqpy.fap.tsh import ByteOrder
from mqpy.structs.layout import pack_arguments
from mqpy.structs.mqstruct import MQStruct

__all__ = ["FusedBody"]


class FusedBody:
    """The common form of one verb body -- its structures (no distribution-list records),
    then MQLONGs, then perhaps message data -- packed and unpacked with one ``struct`` call.

    MQPUT, MQGET and MQPUT1 and their replies cross every connection once per message; the
    general path (``mqiflows``' item by item codec) goes item by item, structure by
    structure. Here the body's layout for each combination of structure versions and byte
    order is one ``struct.Struct`` made of the structures' own (``Layout.struct``, with
    their ``layout.pack_arguments``): the same definition, in one call. Whatever is not
    the common form -- another class or a ``Packed`` structure, records, a bad StrucId or
    Version, a length that does not add up, a value out of range -- is left to the general
    path (``None``), which gives the bytes, or the error, it always gave.
    """

    def __init__(self, shape: tuple[Item, ...], memo: bool = False) -> None:
        #: keep the structures' bytes of the last body packed, for the next body whose
        #: structures are equal (a request's MQMD and MQPMO / MQGMO mostly are)
        self.memo = memo
        n = 0
        while n < len(shape) and isinstance(shape[n], Structure):
            n += 1
        rest = shape[n:]
        self.data = bool(rest) and isinstance(rest[-1], Bytes)
        self.longs = len(rest) - self.data
        if not all(type(item) is Long for item in rest[:self.longs]):
            raise ValueError("a fused body is structures, MQLONGs, then perhaps data")
        self.classes: tuple[type[MQStruct], ...] = tuple(item.cls for item in shape[:n])
        if any(f.kind in ("nested", "longs") for cls in self.classes
               for f in cls._layout_.fields):
            # the fused packer and reader know flat fields only (MQMD, MQGMO, MQPMO, MQOD)
            raise ValueError("a fused body's structures have no nested or array fields")
        #: the structures that may carry records: RecsPresent must be 0 (Version >= 2)
        self.listed = tuple(isinstance(item, ListStructure) for item in shape[:n])
        self.width = len(shape)
        # per byte order: for each structure, {Version number: bytes it occupies}
        self.sizes = {order: tuple({number: plan.need
                                    for number, plan in cls._fast_[struct_order(order)][3].items()}
                                   for cls in self.classes)
                      for order in ByteOrder}
        self._entries: dict[ByteOrder, Any] = {}
        self._versions: dict[ByteOrder, Any] = {}
        self._readers: dict[tuple[Any, ...], Any] = {}

    def _plans(self, key: tuple[Any, ...]) -> list[Any]:
        order = struct_order(key[0])
        return [cls._fast_[order][3][number]
                for cls, number in zip(self.classes, key[1:], strict=True)]

    def _struct(self, key: tuple[Any, ...]) -> struct.Struct:
        fmt = "".join(plan.struct.format[1:] for plan in self._plans(key))
        return struct.Struct(struct_order(key[0]) + fmt + "i" * (self.longs + self.data))

    # -- packing -------------------------------------------------------------------------
    def pack(self, values: Sequence[Any], byte_order: ByteOrder) -> bytes | None:
        """The body's bytes, or None for the general path."""
        entry = self._entries.get(byte_order)
        if entry is None:
            entry = self._entries[byte_order] = self._compile_entry(byte_order)
        try:
            return entry(values)  # type: ignore[no-any-return]
        except (struct.error, TypeError, KeyError, AttributeError, IndexError):
            return None  # the general path says what is wrong, as it always did

    def _compile_entry(self, byte_order: ByteOrder) -> Any:
        """``pack(values)`` for one byte order: the checks that the values are of the
        common form, their Versions, then the packer of those Versions."""
        n = len(self.classes)
        src = ["def pack(values):", f"    if len(values) != {self.width}: return None"]
        for i in range(n):
            src += [f"    s{i} = values[{i}]",
                    f"    if type(s{i}) is not C{i}: return None",
                    f"    d{i} = s{i}.__dict__",
                    f"    v{i} = d{i}['Version']",
                    f"    if type(v{i}) is not int: return None"]
            if self.listed[i]:  # records: the general path
                src.append(f"    if v{i} >= 2 and d{i}['RecsPresent'] > 0: return None")
        versions = ", ".join(f"v{i}" for i in range(n))
        dicts = ", ".join(f"d{i}" for i in range(n))
        src += [f"    packer = PACKERS.get(({versions},))",
                "    if packer is None:",
                f"        packer = MAKE(({versions},))",
                "        if packer is None: return None",
                f"    return packer({dicts}, values)"]
        packers: dict[tuple[int, ...], Any] = {}

        def make(numbers: tuple[int, ...]) -> Any:
            if any(v not in sizes for v, sizes in zip(numbers, self.sizes[byte_order],
                                                      strict=True)):
                return None  # a Version mqpy does not know: the general path's error
            packer = packers[numbers] = self._compile_pack((byte_order, *numbers))
            return packer

        namespace: dict[str, Any] = {f"C{i}": cls for i, cls in enumerate(self.classes)}
        namespace.update(PACKERS=packers, MAKE=make)
        exec(compile("\n".join(src) + "\n", "<mqpy fused pack entry>", "exec"),  # noqa: S102
             namespace)
        return namespace["pack"]

    def _compile_pack(self, key: tuple[Any, ...]) -> Any:
        """``pack(d0, d1 .., values)`` for one key: one struct call (and the data)."""
        args = []
        for i, (cls, number) in enumerate(zip(self.classes, key[1:], strict=True)):
            layout = cls._layout_
            args += pack_arguments(layout, layout.effective_version(number), f"d{i}")
        n = len(self.classes)
        args += [f"values[{n + i}]" for i in range(self.longs)]
        dicts = ", ".join(f"d{i}" for i in range(n))
        src = f"def pack({dicts}, values):\n"
        data = ""
        if self.data:
            args.append("len(data)")
            src += (f"    data = values[{n + self.longs}]\n"
                    "    if type(data) is not bytes:\n        return None\n")
            data = " + data"
        s = self._struct(key)
        namespace: dict[str, Any] = {"S": s, "MEMO": [None]}
        if not self.memo:
            src += f"    return S.pack({', '.join(args)}){data}\n"
        else:
            # equal structures (their fields are validated values: equal ones pack alike)
            # give the bytes they gave last time; the MQLONGs and the data after them
            tail = args[len(args) - self.longs - self.data:]
            head = s.size - 4 * len(tail)
            namespace["T"] = struct.Struct(struct_order(key[0]) + "i" * len(tail))
            same = " and ".join(f"m[{i}] == d{i}" for i in range(n))
            copies = ", ".join(f"dict(d{i})" for i in range(n))
            src += ("    m = MEMO[0]\n"
                    f"    if m is not None and {same}:\n"
                    f"        return m[{n}] + T.pack({', '.join(tail)}){data}\n"
                    f"    body = S.pack({', '.join(args)})\n"
                    f"    MEMO[0] = ({copies}, body[:{head}])\n"
                    f"    return body{data}\n")
        exec(compile(src, f"<mqpy fused pack {key}>", "exec"), namespace)  # noqa: S102
        return namespace["pack"]

    # -- unpacking -----------------------------------------------------------------------
    def unpack(self, body: bytes, byte_order: ByteOrder,
               into: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        """The body's values, or None for the general path. ``into``: the caller's
        structures, filled in place (and returned) instead of new ones, for those of the
        body's class -- only once the whole body has been read and checked."""
        if type(body) is not bytes:
            return None
        versions = self._versions.get(byte_order)
        if versions is None:
            versions = self._versions[byte_order] = self._compile_versions(byte_order)
        try:
            key = versions(body)
        except (struct.error, KeyError):
            return None  # too short for the Versions, or one mqpy does not know
        reader = self._readers.get(key)
        if reader is None:
            reader = self._readers[key] = self._compile_unpack(key)
        return reader(body, into)

    def _compile_versions(self, byte_order: ByteOrder) -> Any:
        """``versions(body)``: the key (byte order, each structure's Version) of a body,
        each Version read where the structures before it end."""
        src = ["def versions(body):"]
        numbers = []
        for i in range(len(self.classes)):
            at = "4" if i == 0 else "p + 4"
            src.append(f"    v{i} = read(body, {at})[0]")
            src.append(f"    p {'=' if i == 0 else '+='} SIZES[{i}][v{i}]")
            numbers.append(f"v{i}")
        src.append(f"    return (ORDER, {', '.join(numbers)})")
        namespace = {"read": MQLONG[byte_order].unpack_from, "SIZES": self.sizes[byte_order],
                     "ORDER": byte_order}
        exec(compile("\n".join(src) + "\n", "<mqpy fused versions>", "exec"),  # noqa: S102
             namespace)
        return namespace["versions"]

    def _compile_unpack(self, key: tuple[Any, ...]) -> Any:
        """``unpack(body, into)`` for one key: checks, one struct call, then the objects.

        Each structure's bytes that recur (a fresh MQMD, a channel's every MQGMO) are kept
        with what they decoded to, and copied in one update the next time, as ``Structure``
        does; a message's own MQMD (a MsgId set) will not recur and is not kept."""
        s = self._struct(key)
        fixed = s.size
        ns: dict[str, Any] = {"S": s.unpack_from, "new": object.__new__, "Z": NO_MSGID,
                              "KEPT": DECODED_KEPT}
        src = ["def unpack(body, into):", "    size = len(body)"]
        if self.data:
            src.append(f"    if size < {fixed}: return None")
        else:
            src.append(f"    if size != {fixed}: return None")
        at = start = 0
        parts = []
        for i, (cls, plan) in enumerate(zip(self.classes, self._plans(key), strict=True)):
            struc_id = cls._layout_.struc_id
            src.append(f"    if body[{at}:{at + len(struc_id)}] != {struc_id!r}: return None")
            end = start + len(plan.names)
            parts.append((i, cls, at, at + plan.need, start, end, plan))
            at += plan.need
            start = end
        src.append("    values = S(body)")
        if self.data:
            src.append("    length = values[-1]")
            src.append(f"    if length < 0 or {fixed} + length != size: return None")
        for i, _cls, _at, _until, begin, _end, plan in parts:
            if self.listed[i] and "RecsPresent" in plan.names:  # records: the general path
                src.append(f"    if values[{begin + plan.names.index('RecsPresent')}]: "
                           "return None")
        src.append("    n = len(into)")
        out = []
        for i, cls, begin_at, until, begin, end, plan in parts:
            count = len(plan.names) + len(plan.absent)
            ns[f"C{i}"], ns[f"N{i}"], ns[f"A{i}"], ns[f"K{i}"] = \
                cls, plan.names, plan.absent, {}
            src += [
                f"    o = into[{i}] if n > {i} else None",
                f"    if type(o) is not C{i} or len(d := o.__dict__) != {count}:",
                f"        o = new(C{i})",
                "        d = o.__dict__",
                f"    raw = body[{begin_at}:{until}]",
                f"    f = K{i}.get(raw)",
                "    if f is not None:",
                "        d.update(f)",
                "    else:",
            ]
            if plan.absent:
                src.append(f"        d.update(A{i})")
            src += [
                f"        d.update(zip(N{i}, values[{begin}:{end}]))",
                "        if d.get('MsgId', Z) == Z:",
                f"            if len(K{i}) >= KEPT: K{i}.clear()",
                f"            K{i}[raw] = dict(d)",
                f"    o{i} = o",
            ]
            out.append(f"o{i}")
        last = len(self.classes) and parts[-1][5]
        out += [f"values[{last + k}]" for k in range(self.longs)]
        if self.data:
            out.append(f"body[{fixed}:]")
        src.append(f"    return ({', '.join(out)},)")
        exec(compile("\n".join(src) + "\n", f"<mqpy fused unpack {key}>", "exec"),  # noqa: S102
             ns)
        return ns["unpack"]


