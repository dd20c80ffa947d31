"""A structure's layout: its field table, and what derives from it for every Version.

Owns ``Layout`` (field offsets with C's natural alignment, each Version's length, its
``struct.Struct`` and ``construct.Struct`` in either byte order) and the generated packers
(``pack_arguments``, ``compile_pack``) every packer of a structure is made from.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Any

import attrs
import construct as cs

from mqpy import CMQC
from mqpy.structs.fields import LITTLE, Field, Since, StructError

__all__ = ["Layout", "compile_pack", "pack_arguments"]


class Layout:
    """A structure's field table and everything derived from it, per version and byte order."""

    def __init__(
        self,
        mq_name: str,
        rows: Iterable[Field | Since],
        *,
        reason: int | None = None,
        struc_id: bytes | None = None,
        highest_version: int | None = None,
    ) -> None:
        self.mq_name = mq_name
        self.reason = reason if reason is not None else CMQC.MQRC_STRUC_ID_ERROR
        self.struc_id = struc_id
        fields: list[Field] = []
        current = 1
        for row in rows:
            if isinstance(row, Since):
                if row.version <= current and fields:
                    raise ValueError(f"{mq_name}: versions must increase ({row.version})")
                current = row.version
            else:
                fields.append(attrs.evolve(row, since=current))
        self.fields: tuple[Field, ...] = tuple(fields)
        self.by_name: dict[str, Field] = {f.name: f for f in fields}
        if len(self.by_name) != len(fields):
            raise ValueError(f"{mq_name}: duplicate field name")
        self.versions: tuple[int, ...] = tuple(sorted({f.since for f in fields}))
        self.max_version = self.versions[-1]
        # Versions that add no fields (MQCFH v2 and v3 are still 36 bytes) are accepted up to
        # this one and read with the highest layout declared below them.
        self.highest_version = max(highest_version or 0, self.max_version)
        self.versioned = "Version" in self.by_name
        self._structs: dict[tuple[int, str], struct.Struct] = {}
        self._version_fields: dict[int, tuple[Field, ...]] = {}
        self._lengths: dict[int, int] = {}
        self._constructs: dict[tuple[int, str], cs.Construct] = {}
        # Offsets under C's natural alignment: a hole before a misaligned field (MQCD's
        # 4 bytes before MsgExitPtr on 64-bit) is padding, as the C compiler makes it.
        self.offsets: dict[str, int] = {}
        self.pad_before: dict[str, int] = {}
        offset = 0
        for f in fields:
            hole = -offset % f.alignment
            self.pad_before[f.name] = hole
            offset += hole
            self.offsets[f.name] = offset
            offset += f.size

    # -- per-version facts ------------------------------------------------------------
    def version_fields(self, version: int) -> tuple[Field, ...]:
        fields = self._version_fields.get(version)
        if fields is None:
            fields = self._version_fields[version] = tuple(
                f for f in self.fields if f.since <= version
            )
        return fields

    def alignment_of(self, version: int) -> int:
        return max(f.alignment for f in self.version_fields(version))

    def length(self, version: int | None = None) -> int:
        """Bytes that ``version`` occupies, including C's tail padding."""
        version = self.max_version if version is None else version
        n = self._lengths.get(version)
        if n is None:
            last = self.version_fields(version)[-1]
            raw = self.offsets[last.name] + last.size
            align = self.alignment_of(version)
            n = self._lengths[version] = -(-raw // align) * align
        return n

    def _tail(self, version: int) -> int:
        last = self.version_fields(version)[-1]
        return self.length(version) - self.offsets[last.name] - last.size

    def effective_version(self, version: int) -> int:
        """The layout version that carries ``version``: the highest declared one <= it."""
        usable = [v for v in self.versions if v <= version]
        if not usable or version > self.highest_version:
            raise StructError(f"{self.mq_name} Version {version} is not valid", self.reason)
        return usable[-1]

    def struct(self, version: int, order: str) -> struct.Struct:
        key = (version, order)
        s = self._structs.get(key)
        if s is None:
            fmt = order + "".join(
                (f"{self.pad_before[f.name]}x" if self.pad_before[f.name] else "")
                + f.struct_code()
                for f in self.version_fields(version)
            )
            tail = self._tail(version)
            s = self._structs[key] = struct.Struct(fmt + (f"{tail}x" if tail else ""))
        return s

    def construct(self, version: int, order: str = LITTLE) -> cs.Construct:
        """The declarative construct Struct of one version in one byte order."""
        key = (version, order)
        c = self._constructs.get(key)
        if c is None:
            parts: list[cs.Construct] = []
            for f in self.version_fields(version):
                if self.pad_before[f.name]:
                    parts.append(cs.Padding(self.pad_before[f.name]))
                parts.append(f.name / f.construct_type(order))
            tail = self._tail(version)
            if tail:
                parts.append(cs.Padding(tail))
            c = self._constructs[key] = cs.Struct(*parts)
        return c


# --------------------------------------------------------------------------- generated packers


def pack_arguments(layout: Layout, version: int, var: str = "d") -> list[str]:
    """The Python expressions, reading the field dict ``var``, that ``layout.struct(version,
    order).pack`` takes for one version: text padded with blanks, pointers left out (the
    struct's ``8x`` packs them as 0), arrays spread. Every packer of the layout -- the
    structure's own, and the fused verb-body packers of ``mqiflows`` -- is generated from
    these, so that there is one definition of how a field goes into its bytes."""
    args = []
    for f in layout.version_fields(version):
        ref = f"{var}[{f.name!r}]"
        if f.kind == "text":
            args.append(f"{ref}.ljust({f.size}, b' ')")
        elif f.kind == "pointer":
            continue
        elif f.kind == "longs":
            args.append(f"*{ref}")
        elif f.kind == "nested":
            args.append(f"{ref}._pack_as({f.nested_version}, order)")
        else:
            args.append(ref)
    return args


def compile_pack(layout: Layout, version: int) -> Any:
    """Generate ``pack(d, S)`` for one version: a single struct.pack call, no Python loop."""
    args = pack_arguments(layout, version)
    src = f"def pack(d, S, order):\n    return S.pack({', '.join(args)})\n"
    namespace: dict[str, Any] = {}
    exec(compile(src, f"<mqpy pack {layout.mq_name} v{version}>", "exec"), namespace)  # noqa: S102
    return namespace["pack"]
