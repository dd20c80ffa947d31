"""The fields an MQI structure is made of: their kinds, conversions and defaults.

Owns ``Field`` and its constructors (``text``, ``binary``, ``long``, ``int64``, ``byte``,
``char``, ``pointer``, ``longs``, ``nested``, and ``since`` where a Version starts), the byte
orders of an MQ encoding, and the errors of a structure (``StructError``) and of a field's
value (``FieldError``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs
import construct as cs

from mqpy import CMQC
from mqpy.errors import MQMIError

__all__ = [
    "BIG",
    "BYTES_KINDS",
    "INT32_MAX",
    "INT32_MIN",
    "LITTLE",
    "Field",
    "FieldError",
    "Since",
    "StructError",
    "Structure",
    "binary",
    "byte",
    "byte_order",
    "char",
    "encode_text",
    "int64",
    "long",
    "longs",
    "nested",
    "pointer",
    "since",
    "text",
    "text_field",
]

LITTLE = "<"  #: ``struct``'s byte-order characters, by MQ encoding (``byte_order``)
BIG = ">"

#: the values an MQLONG, an MQINT64, a byte and a pointer hold
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT_RANGES = {"long": (INT32_MIN, INT32_MAX), "int64": (INT64_MIN, INT64_MAX),
              "byte": (0, 255), "pointer": (0, 2**64 - 1)}
BYTES_KINDS = ("text", "binary")  #: the kinds of field that hold bytes


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


class NoSuchField(AttributeError, TypeError):  # noqa: N818 - what it says
    """A structure has no field of that name: pymqi's AttributeError (``MQOpts.set`` of an
    unknown member), and a TypeError as an unexpected keyword argument is."""


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


class Structure:
    """What every MQI structure is (``MQStruct`` derives from it): what a pointer field's
    list holds."""

    __slots__ = ()


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
            if kind == "long" and INT32_MIN <= value <= INT32_MAX:
                return value
        elif type(value) is bytes and len(value) <= self.size and kind in BYTES_KINDS:
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
            if not all(isinstance(v, Structure) for v in value):
                raise TypeError(f"{owner}.{self.name} must be a list of MQ structures")
            return value if isinstance(value, list) else list(value)  # the caller's array
        if kind in ("long", "int64", "byte", "pointer"):
            if isinstance(value, bytes) and kind == "byte" and len(value) == 1:
                return value[0]  # MQCHAR flags such as MQGS_* may be given as b'G'
            if not isinstance(value, int):
                raise TypeError(f"{owner}.{self.name} must be an int, not {type(value).__name__}")
            lo, hi = INT_RANGES[kind]
            if not lo <= value <= hi:
                raise ValueError(f"{owner}.{self.name} = {value} is outside {lo}..{hi}")
            return int(value)
        if kind == "longs":
            values = list(value)
            if len(values) != self.count:
                raise ValueError(f"{owner}.{self.name} needs exactly {self.count} integers")
            for v in values:
                if not isinstance(v, int) or not INT32_MIN <= v <= INT32_MAX:
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
class Since:
    version: int


def since(version: int) -> Since:
    """Marker in a field table: the fields after it first appear in ``version``."""
    return Since(version)


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

