"""``MQStruct``: the pymqi-shaped Python face of a structure's layout (MD, OD, PMO, GMO ...).

Owns the base class every MQI structure derives from: attributes named after IBM's fields,
``set`` / ``get``, ``pack`` / ``unpack`` / ``from_bytes`` (with the fast readers of the
structures every message crosses), copies, equality and descriptions.
"""

from __future__ import annotations

import struct
import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import attrs
import construct as cs

from mqpy import CMQC
from mqpy.constants import lookup
from mqpy.structs import charv
from mqpy.structs.fields import (
    BIG,
    BYTES_KINDS,
    INT32_MAX,
    INT32_MIN,
    LITTLE,
    Field,
    FieldError,
    NoSuchField,
    StructError,
    Structure,
    byte_order,
)
from mqpy.structs.layout import Layout, compile_pack

__all__ = ["MQStruct"]


@attrs.frozen
class _Plan:
    """How ``from_bytes`` reads one Version in one byte order without the general path."""

    need: int  #: bytes the version occupies
    struct: struct.Struct
    names: tuple[str, ...]  #: the fields the struct's values fill, in order
    absent: dict[str, Any]  #: defaults of the fields the version does not carry
    #: (value index, structure class, its version) of each nested structure (MQXQH's MQMD)
    nested: tuple[tuple[int, Any, int], ...] = ()


def _fast_readers(cls: Any, layout: Layout) -> Any:
    """``MQStruct._fast_`` for ``cls``: only for a versioned structure with a StrucId and an
    MQLONG Version, read by MQStruct's own ``unpack``, and only the versions whose fields
    are all plain or nested structures (no arrays, none to create fresh)."""
    version_field = layout.by_name.get("Version")
    if (layout.struc_id is None or version_field is None or version_field.kind != "long"
            or cls.unpack is not MQStruct.unpack):
        return None
    out = {}
    for order in (LITTLE, BIG):
        plans = {}
        for number in range(layout.versions[0], layout.highest_version + 1):
            v = layout.effective_version(number)
            fields = layout.version_fields(v)
            if any(f.kind == "longs" for f in fields) or any(f.since > v
                                                              for f in cls._mutable_):
                continue
            names = cls._names_[v]
            nested = tuple((names.index(f.name), f.nested, f.nested_version)
                           for f in fields if f.kind == "nested")
            plans[number] = _Plan(
                layout.length(v), layout.struct(v, order), names,
                {k: val for k, val in cls._defaults_.items() if k not in names}, nested)
        out[order] = (struct.Struct(order + "i"), layout.offsets["Version"], layout.struc_id,
                      plans)
    return out


def _packers(cls: Any, layout: Layout) -> dict[int, Any]:
    """``MQStruct._packers_`` for ``cls``: layout Version -> its generated packer."""
    return {v: compile_pack(layout, v) for v in layout.versions}


def _packs(cls: Any, layout: Layout) -> dict[tuple[int, str], tuple[Any, struct.Struct]]:
    """``MQStruct._packs_`` for ``cls``: (Version number, byte order) -> (packer, struct),
    for each valid MQLONG Version."""
    if not (layout.versioned and layout.by_name["Version"].kind == "long"):
        return {}
    return {
        (number, order): (cls._packers_[v], layout.struct(v, order))
        for number in range(layout.versions[0], layout.highest_version + 1)
        for v in (layout.effective_version(number),)
        for order in (LITTLE, BIG)
    }


#: (structure class, Version) -> its padder, for ``MQStruct.pad_fields``
_PADDERS: dict[tuple[type, Any], Any] = {}


def _padder(fields: Any) -> Any:
    """A function padding the bytes fields of ``fields`` in a structure's ``__dict__``,
    one statement a field (it runs after every MQI call of an embedded connection, on the
    MQMD and the options structure both: no loop over a field table there)."""
    lines = ["def pad(d):"]
    for f in fields:
        if f.kind not in BYTES_KINDS:
            continue
        pad = b" " if f.kind == "text" else b"\0"
        lines += [f"    v = d[{f.name!r}]",
                  f"    if len(v) != {f.size} and type(v) is bytes:",
                  f"        d[{f.name!r}] = v.ljust({f.size}, {pad!r}) if v else "
                  f"{pad * f.size!r}"]
    lines.append("    return None")
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), {}, namespace)  # noqa: S102 - names and sizes from the layout
    return namespace["pad"]


class _OnFirstUse:
    """A class attribute of a structure derived from its layout by ``make(cls, layout)`` when
    first read, and then stored on the class in its place: a plain attribute from then on,
    so the packing and reading paths pay nothing for it being made late. (Generating and
    compiling every packer and reader of every structure at import was a tenth of a
    command's start; a process uses a few structures.)"""

    def __init__(self, cls: Any, name: str, make: Any) -> None:
        self.cls, self.name, self.make = cls, name, make

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        value = self.make(self.cls, self.cls._layout_)
        setattr(self.cls, self.name, value)
        return value


class MQStruct(Structure):
    """Base of MD, OD, PMO, GMO ...: a pymqi-shaped view of one ``Layout``.

    Subclasses set ``_layout_``. Attributes are the
    structure's fields; an unknown name is an AttributeError, as in pymqi (NoSuchField, a
    TypeError too), because a misspelt field silently ignored is a lost message option.
    """

    _layout_: ClassVar[Layout]
    _packers_: ClassVar[dict[int, Any]]
    _names_: ClassVar[dict[int, tuple[str, ...]]]
    _special_: ClassVar[dict[int, bool]]
    _defaults_: ClassVar[dict[str, Any]]
    _mutable_: ClassVar[tuple[Field, ...]]
    #: the constructor may store an int MQLONG in range, bytes that fit, directly (see _plain)
    _plain_init_: ClassVar[bool]
    _long_names_: ClassVar[frozenset[str]]
    _bytes_sizes_: ClassVar[dict[str, int]]
    #: (Version number, byte order) -> (packer, its struct), for ``pack``
    _packs_: ClassVar[dict[tuple[int, str], tuple[Any, struct.Struct]]]
    #: byte order -> (Version reader, its offset, StrucId, {Version number: _Plan}); None
    #: when the structure cannot be read without the general path (see ``from_bytes``)
    _fast_: ClassVar[dict[str, tuple[struct.Struct, int, bytes, dict[int, _Plan]]] | None]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls._plain_init_ = cls._plain()  # every subclass, a pymqi program's own included
        layout = cls.__dict__.get("_layout_")
        if layout is None:
            return
        cls._packers_ = {}
        cls._names_ = {}
        cls._defaults_ = {
            f.name: f.default for f in layout.fields if f.kind not in ("longs", "nested")
        }
        cls._mutable_ = tuple(f for f in layout.fields if f.kind in ("longs", "nested"))
        cls._special_ = {}
        for v in layout.versions:
            fields = [f for f in layout.version_fields(v) if f.kind != "pointer"]
            cls._names_[v] = tuple(f.name for f in fields)
            cls._special_[v] = any(f.kind in ("longs", "nested") for f in fields)
        cls._long_names_ = frozenset(f.name for f in layout.fields if f.kind == "long")
        cls._bytes_sizes_ = {f.name: f.size for f in layout.fields if f.kind in BYTES_KINDS}
        # the generated packers and readers: made when the structure is first packed or read
        # (see _OnFirstUse), not for each of the 40 structures every process declares
        cls._packers_ = _OnFirstUse(cls, "_packers_", _packers)  # type: ignore[assignment]
        cls._fast_ = _OnFirstUse(cls, "_fast_", _fast_readers)  # type: ignore[assignment]
        cls._packs_ = _OnFirstUse(cls, "_packs_", _packs)  # type: ignore[assignment]

    def __init__(self, **kw: Any) -> None:
        d = self.__dict__
        d.update(self._defaults_)
        for f in self._mutable_:
            d[f.name] = f.fresh_default()
        if kw:
            cls = type(self)
            if not cls._plain_init_:
                self.set(**kw)  # a structure with fields of its own making (MQCD's SSLPeerName)
                return
            # ``set``, without a call per field; the usual values (an MQLONG that is an int
            # in range, bytes that fit) taken as ``Field.convert`` would take them
            longs, sizes = cls._long_names_, cls._bytes_sizes_
            by_name = self._layout_.by_name
            for name, value in kw.items():
                kind = type(value)
                if kind is int:
                    if name in longs and INT32_MIN <= value <= INT32_MAX:
                        d[name] = value
                        continue
                elif kind is bytes:
                    size = sizes.get(name)
                    if size is not None and len(value) <= size:
                        d[name] = value
                        continue
                f = by_name.get(name)
                if f is None:
                    raise NoSuchField(f"{cls.__name__} has no field {name!r}")
                d[name] = self._converted(f, value)

    @classmethod
    def _plain(cls) -> bool:
        """Does ``cls`` set its fields as MQStruct does (no ``set`` / ``__setattr__`` of
        its own)? Then its constructor may store the usual values directly."""
        return cls.set is MQStruct.set and cls.__setattr__ is MQStruct.__setattr__

    def _reset(self) -> None:
        d = self.__dict__
        d.update(self._defaults_)
        for f in self._mutable_:
            d[f.name] = f.fresh_default()

    # -- pymqi's interface ---------------------------------------------------------------
    def set(self, **kw: Any) -> None:
        """Set several fields at once (pymqi's ``MQOpts.set``)."""
        for name, value in kw.items():
            if name not in self._layout_.by_name:
                raise NoSuchField(f"{type(self).__name__} has no field {name!r}")
            setattr(self, name, value)

    def get(self) -> dict[str, Any]:
        """All fields as a dict, in IBM's order."""
        return {f.name: self.__dict__[f.name] for f in self._layout_.fields}

    def update_from(self, other: MQStruct) -> None:
        """Take every field of ``other`` (a reply's copy of this structure). Record arrays
        (the lists in pointer fields) are updated element by element, so an application
        holding its MQPMR / MQRR list sees the values the queue manager returned."""
        mine = self.__dict__
        for name, value in other.get().items():
            old = mine.get(name)
            if isinstance(value, list) and isinstance(old, list) and len(old) == len(value) \
                    and all(type(a) is type(b) for a, b in zip(old, value, strict=True)):
                for a, b in zip(old, value, strict=True):
                    a.set(**b.get())
            else:
                setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        f = self._layout_.by_name.get(name)
        if f is None:
            self._set_plain(name, value)
            return
        self.__dict__[name] = self._converted(f, value)

    def _set_plain(self, name: str, value: Any) -> None:
        """An attribute that is no field of the structure: as pymqi's and ibmmq's MQOpts
        take one (IBM's own samples set ``md.ReportOptions``), a plain Python attribute that
        is never packed, with a warning that names it; item access and ``set`` still
        refuse the name."""
        if name.startswith("_") or not name.isidentifier():
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        warnings.warn(f"{type(self).__name__} has no field {name!r}: set as a plain "
                      "attribute, which is not part of the structure", stacklevel=3)
        self.__dict__[name] = value

    def _converted(self, f: Field, value: Any) -> Any:
        """``f.convert``: a value that does not fit is the structure's FieldError."""
        try:
            return f.convert(type(self).__name__, value)
        except ValueError as exc:
            raise FieldError(str(exc), self._layout_.reason) from None

    def __getitem__(self, name: str) -> Any:
        if name not in self._layout_.by_name:
            raise NoSuchField(f"{type(self).__name__} has no field {name!r}")
        return self.__dict__[name]

    def __setitem__(self, name: str, value: Any) -> None:
        if name not in self._layout_.by_name:
            raise NoSuchField(f"{type(self).__name__} has no field {name!r}")
        setattr(self, name, value)

    #: pymqi's / ibmmq's MQCHARV helpers (:mod:`mqpy.structs.charv`)
    set_vs = charv.set_vs
    get_vs = charv.get_vs

    # -- versions ------------------------------------------------------------------------
    @classmethod
    def _version_number(cls, value: Any) -> int:
        """The Version field as a number (MQTMC2 spells it in characters, b'   2')."""
        if isinstance(value, bytes):
            try:
                return int(value.strip() or b"0")
            except ValueError:
                raise StructError(
                    f"{cls._layout_.mq_name} Version {value!r} is not valid", cls._layout_.reason
                ) from None
        return value

    def header_error(self) -> int:
        """0 when the StrucId and Version are ones the layout knows (what ``pack`` and
        ``unpack`` would take), else the structure's reason (MQRC_MD_ERROR ...): the check a
        caller that is handed the object, not its bytes, makes (an embedded connection)."""
        layout = self._layout_
        d = self.__dict__
        if layout.struc_id is not None:
            struc_id = d.get("StrucId")
            if not isinstance(struc_id, bytes) or struc_id.ljust(len(layout.struc_id), b" ") \
                    != layout.struc_id:
                return layout.reason
        if layout.versioned:
            try:
                layout.effective_version(self._version_number(d["Version"]))
            except (StructError, TypeError):
                return layout.reason
        return 0

    def _layout_version(self) -> int:
        layout = self._layout_
        if not layout.versioned:
            return layout.max_version
        return layout.effective_version(self._version_number(self.__dict__["Version"]))

    def pad_fields(self) -> None:
        """Every character field of the structure's Version at its MQ length, blank-padded,
        and every byte-string field NUL-padded: what a structure unpacked from a call's
        reply holds (a client connection's, pymqi's after every call). A value the
        structure does not hold as bytes (a pymqi program's str) is left as it is."""
        d = self.__dict__
        key = (type(self), d.get("Version"))
        padder = _PADDERS.get(key)
        if padder is None:
            try:
                fields = self._layout_.version_fields(self._layout_version())
            except (StructError, TypeError, ValueError):
                return  # no valid Version: the call refused it, nothing was filled in
            padder = _PADDERS[key] = _padder(fields)
        padder(d)

    def beyond_version(self) -> dict[str, Any]:
        """The fields the structure's Version does not carry, and their values: a call
        leaves them as they were (a client connection neither sends nor unpacks them)."""
        try:
            carried = self._layout_.version_fields(self._layout_version())
        except (StructError, TypeError, ValueError):
            return {}  # no valid Version: the call refuses it (MQRC_*_ERROR)
        names = {f.name for f in carried}
        return {k: v for k, v in self.__dict__.items()
                if k in self._defaults_ and k not in names}

    def packed_size(self) -> int:
        """Bytes ``pack()`` produces for the current Version."""
        return self._layout_.length(self._layout_version())

    # -- bytes ---------------------------------------------------------------------------
    def pack(self, encoding: int | None = None, *, version: int | None = None) -> bytes:
        """The structure as bytes, integers in ``encoding``'s byte order (default native LE).

        Only the fields that the Version covers are packed. ``version=`` packs as that
        version instead and writes it into the Version field (MQXQH embeds an MQMD v1).
        """
        return self._pack_as(version, byte_order(encoding))

    def _pack_as(self, version: int | None, order: str) -> bytes:
        layout = self._layout_
        d = self.__dict__
        if version is None:
            number = d.get("Version")
            packer = self._packs_.get((number, order)) if type(number) is int else None
            if packer is not None:
                try:
                    return packer[0](d, packer[1], order)
                except struct.error as exc:
                    raise StructError(f"cannot pack {layout.mq_name}: {exc}",
                                      layout.reason) from None
            v = self._layout_version()
        else:
            v = layout.effective_version(version)
            d = dict(d)
            d["Version"] = (
                f"{version:>4}".encode() if isinstance(d["Version"], bytes) else version
            )
        try:
            return self._packers_[v](d, layout.struct(v, order), order)
        except struct.error as exc:
            raise StructError(f"cannot pack {layout.mq_name}: {exc}", layout.reason) from None

    def unpack(
        self,
        buf: bytes | bytearray | memoryview,
        encoding: int | None = None,
        *,
        offset: int = 0,
        version: int | None = None,
    ) -> MQStruct:
        """Fill every field from ``buf[offset:]`` and return self.

        The Version read from the buffer decides how many bytes are read; trailing bytes
        (message data after an MQMD, say) are ignored. Fields the version does not carry
        are reset to their defaults. A short buffer, a wrong StrucId or an unknown Version
        raise StructError naming the structure, with its MQRC_*_ERROR reason.
        """
        layout = self._layout_
        order = byte_order(encoding)
        name = layout.mq_name
        v1 = layout.versions[0]
        avail = len(buf) - offset
        if avail < layout.length(v1):
            raise StructError(
                f"{name} needs at least {layout.length(v1)} bytes, got {max(avail, 0)}",
                layout.reason,
            )
        if layout.struc_id is not None:
            got = bytes(buf[offset : offset + len(layout.struc_id)])
            if got != layout.struc_id:
                raise StructError(
                    f"{name} StrucId is {got!r}, expected {layout.struc_id!r}", layout.reason
                )
        if version is not None:
            v = layout.effective_version(version)
        elif layout.versioned:
            vf = layout.by_name["Version"]
            at = offset + layout.offsets["Version"]
            if vf.kind == "long":
                raw: Any = struct.unpack_from(order + "i", buf, at)[0]
            else:
                raw = bytes(buf[at : at + vf.size])
            number = self._version_number(raw)
            if number < v1:
                raise StructError(f"{name} Version {number} is not valid", layout.reason)
            if number > layout.highest_version:
                swapped = int.from_bytes(number.to_bytes(4, "little", signed=True), "big")
                hint = (
                    " (integers in the other byte order? check the Encoding)"
                    if v1 <= swapped <= layout.highest_version
                    else ""
                )
                raise StructError(
                    f"{name} Version {number} is higher than mqpy supports "
                    f"({layout.highest_version}){hint}",
                    layout.reason,
                )
            v = layout.effective_version(number)
        else:
            v = layout.max_version
        need = layout.length(v)
        if avail < need:
            raise StructError(
                f"{name} version {v} needs {need} bytes, got {avail}", layout.reason
            )
        values = layout.struct(v, order).unpack_from(buf, offset)
        d = self.__dict__
        if v != layout.max_version:
            for f in layout.fields:
                if f.since > v:
                    d[f.name] = f.fresh_default()
        if not self._special_[v]:
            d.update(zip(self._names_[v], values, strict=True))
            return self
        i = 0
        for f in layout.version_fields(v):
            if f.kind == "pointer":
                d[f.name] = 0
            elif f.kind == "longs":
                d[f.name] = list(values[i : i + f.count])
                i += f.count
            elif f.kind == "nested":
                d[f.name] = f.nested().unpack(values[i], encoding, version=f.nested_version)
                i += 1
            else:
                d[f.name] = values[i]
                i += 1
        return self

    @classmethod
    def from_bytes(
        cls,
        buf: bytes | bytearray | memoryview,
        encoding: int | None = None,
        *,
        offset: int = 0,
        version: int | None = None,
    ) -> Any:
        """A new structure read from ``buf`` (see ``unpack``).

        The usual case -- a valid StrucId, a Version of plain fields, enough bytes -- takes
        one struct unpack and no field loop (``_fast_``); anything else, errors included,
        goes through ``unpack``."""
        fast = cls._fast_
        if fast is not None:
            order = LITTLE if encoding is None or encoding & CMQC.MQENC_INTEGER_MASK != \
                CMQC.MQENC_INTEGER_NORMAL else BIG
            reader, at, struc_id, plans = fast[order]
            if version is None:
                try:
                    plan = plans.get(reader.unpack_from(buf, offset + at)[0])
                except struct.error:
                    plan = None
            else:
                plan = plans.get(version)
            if plan is not None and len(buf) - offset >= plan.need \
                    and buf[offset:offset + len(struc_id)] == struc_id:
                obj = cls.__new__(cls)
                d = obj.__dict__
                if plan.absent:
                    d.update(plan.absent)
                values = plan.struct.unpack_from(buf, offset)
                if plan.nested:
                    values = list(values)
                    for i, nested, nested_version in plan.nested:
                        values[i] = nested.from_bytes(values[i], encoding,
                                                      version=nested_version)
                d.update(zip(plan.names, values, strict=True))
                return obj
        obj = cls.__new__(cls)
        obj._reset()
        return obj.unpack(buf, encoding, offset=offset, version=version)

    # -- construct, the declarative form ---------------------------------------------------
    @classmethod
    def construct(cls, version: int | None = None, encoding: int | None = None) -> cs.Construct:
        """The construct Struct for ``version`` (default: the highest) in a byte order."""
        layout = cls._layout_
        v = layout.max_version if version is None else layout.effective_version(version)
        return layout.construct(v, byte_order(encoding))

    @classmethod
    def length(cls, version: int | None = None) -> int:
        """IBM's length of ``version`` (default: the highest mqpy declares)."""
        layout = cls._layout_
        return layout.length(None if version is None else layout.effective_version(version))

    @classmethod
    def offset_of(cls, name: str) -> int:
        """Byte offset of a field from the start of the structure."""
        return cls._layout_.offsets[name]

    # -- value semantics -------------------------------------------------------------------
    def _canonical(self) -> tuple[Any, ...]:
        d = self.__dict__
        return tuple(f.canonical(d[f.name]) for f in self._layout_.fields)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._canonical() == other._canonical()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __copy__(self) -> Any:
        new = type(self).__new__(type(self))
        for f in self._layout_.fields:
            value = self.__dict__[f.name]
            if f.kind == "longs":
                value = list(value)
            elif f.kind == "nested":
                value = value.copy()
            new.__dict__[f.name] = value
        return new

    def __deepcopy__(self, memo: Mapping[int, Any]) -> Any:
        return self.__copy__()

    def copy(self) -> Any:
        """An independent copy (nested structures and arrays included)."""
        return self.__copy__()

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self.get().items())
        return f"{type(self).__name__}({body})"

    def __str__(self) -> str:
        """As pymqi's and ibmmq's structures print: one ``Name: value`` line a field."""
        return "\n".join(f"{name}: {value}" for name, value in self.get().items())

    def to_string(self, encoding: str = "utf8") -> Any:
        """ibmmq's ``MQOpts.to_string``: each character field becomes a str without its
        padding (binary ones such as MsgId stay bytes; one that does not decode too).
        It changes this structure, which is returned: pack a copy made before."""
        d = self.__dict__
        for f in self._layout_.fields:
            value = d[f.name]
            if f.kind == "text" and isinstance(value, bytes):
                try:
                    d[f.name] = value.decode(encoding).strip(" \x00")
                except UnicodeDecodeError:
                    pass
        return self

    def describe(self) -> str:
        """Multi-line dump with symbolic names where IBM has them (for amqsbcg-like output)."""
        lines = [f"{self._layout_.mq_name}:"]
        for k, v in self.get().items():
            label = ""
            if isinstance(v, int) and k in _SYMBOLIC:
                label = lookup(_SYMBOLIC[k], v) or ""
            lines.append(f"  {k:<24} {v!r}{'  ' + label if label else ''}")
        return "\n".join(lines)

    def get_length(self) -> int:
        """pymqi's ``MQOpts.get_length()``: bytes ``pack()`` produces (``packed_size``)."""
        return self.packed_size()


_SYMBOLIC = {
    "MsgType": "MQMT_",
    "Feedback": "MQFB_",
    "Persistence": "MQPER_",
    "PutApplType": "MQAT_",
    "Reason": "MQRC_",
    "ObjectType": "MQOT_",
    "ChannelType": "MQCHT_",
    "TransportType": "MQXPT_",
}

