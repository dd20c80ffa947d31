"""The framework behind every MQI structure: declare the fields once, derive everything else.

Theory of operation
-------------------
A structure (MQMD, MQOD, ...) is written down exactly once, as a ``Layout``: an ordered table
of fields (text, binary, MQLONG, MQINT64, pointer, nested structure) with ``since(n)`` markers
where a new Version starts. From that one table the framework derives, for every
(version, byte order):

* a ``construct.Struct`` -- the declarative form, which tests and wire tooling use;
* a ``struct.Struct`` with the *same* layout -- the hot path, because construct spends
  ~100 us building an MQMD and the queue manager must move ~100k messages a second;
* the byte offset of every field and the version's length, which must equal IBM's
  ``*_LENGTH_n`` (checked by the tests, not assumed).

C lays these structures out with natural alignment: a pointer or MQINT64 starts on an
8-byte boundary (the hole before it is padding, as in MQCD before MsgExitPtr), and the
length of a version is rounded up to the largest alignment among the fields it contains
(MQSCO v4 is 564 bytes of fields but 568 long; MQGMO v3, with no 8-byte field, is 100).

``MQStruct`` is the pymqi-shaped Python face over a layout: attributes named after IBM's
fields, ``md['Priority']``, ``set(**kw)``/``get()``, ``pack()``/``unpack()``. Character fields
hold bytes (a ``str`` is encoded on assignment); values are kept as given and padded only
when packed -- text with blanks, binary identifiers with NULs -- while unpack returns IBM's
padded bytes. Equality compares what the structures would pack to, so a structure equals its
own round trip. Pointers are never meaningful outside one address space: they are packed as
zero and read back as zero.

This module does no I/O and knows no particular structure; those live in ``structures.py``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import attrs
import construct as cs

from mqpy import CMQC
from mqpy.constants import lookup
from mqpy.errors import MQMIError

__all__ = [
    "BIG",
    "LITTLE",
    "Field",
    "FieldError",
    "Layout",
    "MQStruct",
    "StructError",
    "binary",
    "byte",
    "byte_order",
    "char",
    "int64",
    "long",
    "longs",
    "nested",
    "encode_text",
    "pack_arguments",
    "pointer",
    "since",
    "text",
    "text_field",
]

LITTLE = "<"
BIG = ">"

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_INT_RANGES = {"long": (_INT32_MIN, _INT32_MAX), "int64": (_INT64_MIN, _INT64_MAX),
               "byte": (0, 255), "pointer": (0, 2**64 - 1)}
_BYTES_KINDS = ("text", "binary")


def byte_order(encoding: int | None) -> str:
    """The struct byte-order character for an MQENC_* encoding (None means MQENC_NATIVE).

    Only the integer part of the encoding matters here: MQENC_INTEGER_NORMAL means
    big-endian; MQENC_INTEGER_REVERSED (as in MQENC_NATIVE, 546) and undefined mean
    little-endian, the byte order of the platforms mqpy runs on.
    """
    if encoding is None:
        return LITTLE
    if encoding & CMQC.MQENC_INTEGER_MASK == CMQC.MQENC_INTEGER_NORMAL:
        return BIG
    return LITTLE


class StructError(ValueError):
    """A structure that cannot be packed or unpacked.

    ``reason`` is IBM's reason code for that structure (MQRC_MD_ERROR for an MQMD, ...), so
    the MQI can turn it into an MQMIError without guessing.
    """

    def __init__(self, message: str, reason: int = CMQC.MQRC_STRUC_ID_ERROR) -> None:
        super().__init__(message)
        self.reason = reason


class FieldError(MQMIError, ValueError):
    """A value that does not fit its field (text too long, an integer out of range): the
    MQI's error of its structure -- MQCC_FAILED with MQRC_MD_ERROR for an MQMD,
    MQRC_OD_ERROR for an MQOD ... -- and still the ValueError it always was."""

    def __init__(self, text: str, reason: int) -> None:
        super().__init__(CMQC.MQCC_FAILED, reason)
        self.text = text

    def __str__(self) -> str:
        return f"{super().__str__()} ({self.text})"


def encode_text(value: str | bytes) -> bytes:
    """Text an application gives for a name or an attribute, as the bytes MQ carries: ISO
    8859-1 (mqpy's names) when every character has a code there, else UTF-8 -- text no MQ
    name holds, which then names nothing (MQRC_UNKNOWN_OBJECT_NAME), never a
    UnicodeEncodeError."""
    if isinstance(value, bytes):
        return value
    try:
        return value.encode("latin-1")
    except UnicodeEncodeError:
        return value.encode("utf-8")


def text_field(value: str, size: int, reason: int) -> str:
    """``value`` for a fixed-width ISO 8859-1 field of ``size`` bytes (a queue-manager name
    in MQCONN and INITIAL_DATA): as it is, or MQMIError ``reason`` when it has a character
    ISO 8859-1 lacks or is too long."""
    try:
        fits = len(value.encode("latin-1")) <= size
    except UnicodeEncodeError:
        fits = False
    if not fits:
        raise MQMIError(CMQC.MQCC_FAILED, reason)
    return value


# --------------------------------------------------------------------------- field table


@attrs.frozen
class Field:
    """One row of a structure's field table."""

    name: str
    kind: str  # text | binary | long | int64 | byte | pointer | longs | nested
    size: int  # bytes taken in the structure
    default: Any
    count: int = 1  # elements of a ``longs`` array
    nested: Any = None  # MQStruct subclass of a ``nested`` field
    nested_version: int = 0
    since: int = 1  # first Version that carries this field

    @property
    def alignment(self) -> int:
        if self.kind in ("pointer", "int64"):
            return 8
        if self.kind in ("long", "longs"):
            return 4
        if self.kind == "nested":
            return self.nested._layout_.alignment_of(self.nested_version)
        return 1

    def struct_code(self) -> str:
        return {
            "text": f"{self.size}s",
            "binary": f"{self.size}s",
            "long": "i",
            "int64": "q",
            "byte": "B",
            "pointer": "8x",
            "longs": f"{self.count}i",
            "nested": f"{self.size}s",
        }[self.kind]

    def construct_type(self, order: str) -> cs.Construct:
        big = order == BIG
        if self.kind in ("text", "binary"):
            return cs.Bytes(self.size)
        if self.kind == "long":
            return cs.Int32sb if big else cs.Int32sl
        if self.kind == "int64":
            return cs.Int64sb if big else cs.Int64sl
        if self.kind == "byte":
            return cs.Int8ub
        if self.kind == "pointer":
            return cs.Const(0, cs.Int64ub if big else cs.Int64ul)
        if self.kind == "longs":
            return cs.Array(self.count, cs.Int32sb if big else cs.Int32sl)
        return self.nested._layout_.construct(self.nested_version, order)

    def convert(self, owner: str, value: Any) -> Any:
        """Check and normalise a value assigned to this field; errors name the field."""
        kind = self.kind
        # the usual cases first: an MQLONG that is a plain int in range, bytes that fit
        if type(value) is int:
            if kind == "long" and _INT32_MIN <= value <= _INT32_MAX:
                return value
        elif type(value) is bytes and len(value) <= self.size and kind in _BYTES_KINDS:
            return value
        if kind in ("text", "binary"):
            if isinstance(value, str):
                value = value.encode("utf-8")
            elif isinstance(value, (bytearray, memoryview)):
                value = bytes(value)
            elif not isinstance(value, bytes):
                raise TypeError(f"{owner}.{self.name} must be bytes or str, not {type(value).__name__}")
            if len(value) > self.size:
                raise ValueError(
                    f"{owner}.{self.name} is {len(value)} bytes; the maximum length is {self.size}"
                )
            return value
        if kind == "pointer" and isinstance(value, (list, tuple)):
            # the Python face of a pointer to an array of records (MQOD ObjectRecPtr, MQPMO
            # PutMsgRecPtr ...): the records themselves; still packed as 0
            if not all(isinstance(v, MQStruct) for v in value):
                raise TypeError(f"{owner}.{self.name} must be a list of MQ structures")
            return value if isinstance(value, list) else list(value)  # the caller's array
        if kind in ("long", "int64", "byte", "pointer"):
            if isinstance(value, bytes) and kind == "byte" and len(value) == 1:
                return value[0]  # MQCHAR flags such as MQGS_* may be given as b'G'
            if not isinstance(value, int):
                raise TypeError(f"{owner}.{self.name} must be an int, not {type(value).__name__}")
            lo, hi = _INT_RANGES[kind]
            if not lo <= value <= hi:
                raise ValueError(f"{owner}.{self.name} = {value} is outside {lo}..{hi}")
            return int(value)
        if kind == "longs":
            values = list(value)
            if len(values) != self.count:
                raise ValueError(f"{owner}.{self.name} needs exactly {self.count} integers")
            for v in values:
                if not isinstance(v, int) or not _INT32_MIN <= v <= _INT32_MAX:
                    raise ValueError(f"{owner}.{self.name} holds {v!r}, not an MQLONG")
            return values
        # nested
        if not isinstance(value, self.nested):
            raise TypeError(f"{owner}.{self.name} must be a {self.nested.__name__}")
        return value

    def fresh_default(self) -> Any:
        if self.kind == "longs":
            return list(self.default)
        if self.kind == "nested":
            return self.nested(Version=self.nested_version)
        return self.default

    def canonical(self, value: Any) -> Any:
        """The value as it would travel: padded bytes, nested structures by their contents."""
        if self.kind == "text":
            return value.ljust(self.size, b" ")
        if self.kind == "binary":
            return value.ljust(self.size, b"\0")
        if self.kind == "pointer":
            return 0
        if self.kind == "longs":
            return tuple(value)
        if self.kind == "nested":
            return value._canonical()
        return value


@attrs.frozen
class _Since:
    version: int


def since(version: int) -> _Since:
    """Marker in a field table: the fields after it first appear in ``version``."""
    return _Since(version)


def text(name: str, size: int, default: bytes = b"") -> Field:
    """Character data (names, Format, dates): padded with blanks."""
    return Field(name, "text", size, default)


def binary(name: str, size: int, default: bytes = b"") -> Field:
    """Binary identifiers (MsgId, CorrelId, GroupId, tokens): padded with NULs."""
    return Field(name, "binary", size, default)


def long(name: str, default: int = 0) -> Field:
    """An MQLONG: 32-bit signed, in the structure's byte order."""
    return Field(name, "long", 4, default)


def int64(name: str, default: int = 0) -> Field:
    """An MQINT64 (message handles)."""
    return Field(name, "int64", 8, default)


def byte(name: str, default: int = 0) -> Field:
    """A single MQCHAR flag held as its code (pymqi's 'b' fields, e.g. MQGMO GroupStatus)."""
    return Field(name, "byte", 1, default)


def char(name: str, default: bytes = b" ") -> Field:
    """A single MQCHAR held as 1 byte of text (e.g. MQGMO Reserved1)."""
    return Field(name, "text", 1, default)


def pointer(name: str) -> Field:
    """A pointer: 8 bytes, meaningless across processes, always packed as 0."""
    return Field(name, "pointer", 8, 0)


def longs(name: str, count: int, default: Iterable[int]) -> Field:
    """A fixed array of MQLONGs (MQCD HdrCompList, MQSCO EncryptionPolicySuiteB)."""
    default = tuple(default)
    if len(default) != count:
        raise ValueError(f"{name}: default has {len(default)} values, not {count}")
    return Field(name, "longs", 4 * count, default, count=count)


def nested(name: str, struc: Any, version: int) -> Field:
    """An embedded structure of a fixed version (MQXQH's MQMD v1)."""
    return Field(name, "nested", struc._layout_.length(version), None, nested=struc,
                 nested_version=version)


# --------------------------------------------------------------------------- layouts


class Layout:
    """A structure's field table and everything derived from it, per version and byte order."""

    def __init__(
        self,
        mq_name: str,
        rows: Iterable[Field | _Since],
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
            if isinstance(row, _Since):
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


# --------------------------------------------------------------------------- the Python face


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


def _compile_pack(layout: Layout, version: int) -> Any:
    """Generate ``pack(d, S)`` for one version: a single struct.pack call, no Python loop."""
    args = pack_arguments(layout, version)
    src = f"def pack(d, S, order):\n    return S.pack({', '.join(args)})\n"
    namespace: dict[str, Any] = {}
    exec(compile(src, f"<mqpy pack {layout.mq_name} v{version}>", "exec"), namespace)  # noqa: S102
    return namespace["pack"]


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


class MQStruct:
    """Base of MD, OD, PMO, GMO ...: a pymqi-shaped view of one ``Layout``.

    Subclasses set ``_layout_``. Attributes are the
    structure's fields; an unknown name is an AttributeError (a TypeError in the constructor),
    as in pymqi, because a misspelt field silently ignored is a lost message option.
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
            cls._packers_[v] = _compile_pack(layout, v)
            cls._names_[v] = tuple(f.name for f in fields)
            cls._special_[v] = any(f.kind in ("longs", "nested") for f in fields)
        cls._fast_ = _fast_readers(cls, layout)
        cls._long_names_ = frozenset(f.name for f in layout.fields if f.kind == "long")
        cls._bytes_sizes_ = {f.name: f.size for f in layout.fields if f.kind in _BYTES_KINDS}
        # (Version number, byte order) -> (packer, struct), for each valid MQLONG Version
        cls._packs_ = {
            (number, order): (cls._packers_[v], layout.struct(v, order))
            for number in range(layout.versions[0], layout.highest_version + 1)
            for v in (layout.effective_version(number),)
            for order in (LITTLE, BIG)
        } if layout.versioned and layout.by_name["Version"].kind == "long" else {}

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
                    if name in longs and _INT32_MIN <= value <= _INT32_MAX:
                        d[name] = value
                        continue
                elif kind is bytes:
                    size = sizes.get(name)
                    if size is not None and len(value) <= size:
                        d[name] = value
                        continue
                f = by_name.get(name)
                if f is None:
                    raise TypeError(f"{cls.__name__} has no field {name!r}")
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
                raise TypeError(f"{type(self).__name__} has no field {name!r}")
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
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        self.__dict__[name] = self._converted(f, value)

    def _converted(self, f: Field, value: Any) -> Any:
        """``f.convert``: a value that does not fit is the structure's FieldError."""
        try:
            return f.convert(type(self).__name__, value)
        except ValueError as exc:
            raise FieldError(str(exc), self._layout_.reason) from None

    def __getitem__(self, name: str) -> Any:
        if name not in self._layout_.by_name:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}")
        return self.__dict__[name]

    def __setitem__(self, name: str, value: Any) -> None:
        setattr(self, name, value)

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
        return repr(self)

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


def ensure_not_unicode(value: Any) -> None:
    """pymqi's TypeError for a str where bytes are wanted (structures, headers, messages)."""
    if isinstance(value, str):
        raise TypeError(f"Python 3 style string (unicode) found but not allowed here: "
                        f"`{value}`. Convert to bytes.")


class MQOpts:
    """pymqi's ``MQOpts(memlist, **kw)``: a structure a program declares itself, as rows
    ``[name, default, struct format]`` or ``[name, default, format, count]`` (a list value of
    ``count`` items), packed with the ``struct`` module in native order and alignment, as
    pymqi packs it. mqpy's own structures are ``MQStruct`` layouts; this is for programs that
    subclass MQOpts for a structure pymqi lacks (an MQCIH, an MQDLH ...).
    """

    def __init__(self, memlist: Iterable[Any], **kw: Any) -> None:
        rows = [list(row) for row in memlist]
        for row in rows:
            if len(row) == 3:
                row.append(1)
            if len(row) != 4 or not isinstance(row[0], str) or not isinstance(row[2], str):
                raise TypeError(f"an MQOpts row is [name, default, format(, count)], not {row!r}")
        try:
            fmt = struct.Struct("".join(row[2] * row[3] for row in rows))
        except struct.error as exc:
            raise TypeError(f"MQOpts format: {exc}") from None
        object.__setattr__(self, "_MQOpts__rows", rows)
        object.__setattr__(self, "_MQOpts__struct", fmt)
        for row in rows:
            value = row[1]
            object.__setattr__(self, row[0], list(value) if isinstance(value, list) else value)
        self.set(**kw)

    def set(self, **kw: Any) -> None:
        """Set existing members; an unknown name is an AttributeError, as in pymqi."""
        for name, value in kw.items():
            self[name] = value

    def __setitem__(self, key: str, value: Any) -> None:
        getattr(self, key)
        ensure_not_unicode(value)
        setattr(self, key, value)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def get(self) -> dict[str, Any]:
        return {row[0]: getattr(self, row[0]) for row in self.__rows}

    def get_length(self) -> int:
        return self.__struct.size

    def pack(self) -> bytes:
        args: list[Any] = []
        for row in self.__rows:
            value = getattr(self, row[0])
            for item in value if isinstance(value, list) else [value]:
                ensure_not_unicode(item)
                args.append(item)
        try:
            return self.__struct.pack(*args)
        except struct.error as exc:
            raise StructError(f"cannot pack {type(self).__name__}: {exc}") from None

    def unpack(self, buff: bytes) -> None:
        """Fill the members from ``buff``; a short buffer is read as if NUL-padded."""
        ensure_not_unicode(buff)
        buff = bytes(buff).ljust(self.__struct.size, b"\0")[: self.__struct.size]
        values = iter(self.__struct.unpack(buff))
        for name, default, _, count in self.__rows:
            if isinstance(default, list):
                setattr(self, name, [next(values) for _ in range(count)])
            else:
                setattr(self, name, next(values))

    def __str__(self) -> str:
        return "\n".join(f"{name}: {value}" for name, value in self.get().items())

    def __repr__(self) -> str:
        return str(self.pack())


#: pymqi's struct codes for MQOpts rows: an MQLONG (32 bits on every platform mqpy runs on)
#: and an MQINT64
MQLONG_TYPE = "i"
INTEGER64_TYPE = "q"


def py23long(x: int) -> int:
    """pymqi's Python 2 shim, used in MQOpts rows: the int itself."""
    return x + 0


def padded_count(count: int, boundary: int = 4) -> int:
    """``count`` rounded up to a multiple of ``boundary`` (PCF strings are padded to 4)."""
    return count + (-count % boundary)
