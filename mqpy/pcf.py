"""PCF (Programmable Command Format) messages: an MQCFH then typed parameters.

The command server, the statistics and accounting writers and every admin tool speak PCF.
This module owns the parameter structures (MQCFIN, MQCFST, MQCFIL, MQCFSL, MQCFGR, MQCFBS,
MQCFIF, MQCFSF, MQCFBF, MQCFIN64, MQCFIL64), each declared once as a construct Struct, and
``parse``/``build`` between bytes and a ``PCFMessage``. Round trips are exact: the padding
that rounds a string parameter up to a multiple of 4 bytes is kept as read. Groups (MQCFGR)
nest: their ParameterCount counts the parameters that follow them.

Pure: bytes in, objects out. Integers follow the message's MQMD Encoding (default native,
little-endian).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from functools import cache
from typing import Any

import attrs
import construct as cs

from mqpy import CMQC, CMQCFC
from mqpy.structs.fields import BIG, NoSuchField, StructError, byte_order
from mqpy.structs.mqopts import MQOpts
from mqpy.structs.tables import CFH

__all__ = [
    "CFBF",
    "CFBS",
    "CFGR",
    "CFH",
    "CFIF",
    "CFIL",
    "CFIL64",
    "CFIN",
    "CFIN64",
    "CFSF",
    "CFSL",
    "CFST",
    "FILTERS",
    "PCFMessage",
    "Parameter",
    "build",
    "filter_error",
    "filter_matches",
    "parse",
    "valid_filter",
]


def _b(value: bytes | str) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _list(values: Any) -> list[Any]:
    """``list(values)``: the list fields' converter. A Python function, not ``list`` itself:
    attrs reads a converter's signature, and a builtin's is parsed from its text by the
    tokenizer, whose regular expression every process importing this module then compiled
    at its start."""
    return list(values)


def _pad(n: int) -> bytes:
    """NULs that round ``n`` bytes of data up to a multiple of 4, as IBM pads PCF strings."""
    return b"\0" * (-n % 4)


# --------------------------------------------------------------------------- declarations


@cache
def _layouts(order: str) -> dict[int, cs.Construct]:
    """The construct Struct of each parameter type, in one byte order (built once)."""
    big = order == BIG
    i32 = cs.Int32sb if big else cs.Int32sl
    i64 = cs.Int64sb if big else cs.Int64sl
    this = cs.this

    def head(cft: int) -> list[cs.Construct]:
        return ["Type" / cs.Const(cft, i32), "StrucLength" / i32, "Parameter" / i32]

    def tail(fixed: int, data: Any) -> cs.Construct:
        return "Pad" / cs.Bytes(lambda c: c.StrucLength - fixed - data(c))

    return {
        CMQCFC.MQCFT_INTEGER: cs.Struct(*head(CMQCFC.MQCFT_INTEGER), "Value" / i32),
        CMQCFC.MQCFT_INTEGER64: cs.Struct(
            *head(CMQCFC.MQCFT_INTEGER64), "Reserved" / i32, "Value" / i64
        ),
        CMQCFC.MQCFT_INTEGER_LIST: cs.Struct(
            *head(CMQCFC.MQCFT_INTEGER_LIST), "Count" / i32, "Values" / cs.Array(this.Count, i32)
        ),
        CMQCFC.MQCFT_INTEGER64_LIST: cs.Struct(
            *head(CMQCFC.MQCFT_INTEGER64_LIST),
            "Count" / i32,
            "Values" / cs.Array(this.Count, i64),
        ),
        CMQCFC.MQCFT_STRING: cs.Struct(
            *head(CMQCFC.MQCFT_STRING),
            "CodedCharSetId" / i32,
            "StringLength" / i32,
            "String" / cs.Bytes(this.StringLength),
            tail(CMQCFC.MQCFST_STRUC_LENGTH_FIXED, lambda c: c.StringLength),
        ),
        CMQCFC.MQCFT_STRING_LIST: cs.Struct(
            *head(CMQCFC.MQCFT_STRING_LIST),
            "CodedCharSetId" / i32,
            "Count" / i32,
            "StringLength" / i32,
            "Strings" / cs.Array(this.Count, cs.Bytes(this.StringLength)),
            tail(CMQCFC.MQCFSL_STRUC_LENGTH_FIXED, lambda c: c.Count * c.StringLength),
        ),
        CMQCFC.MQCFT_BYTE_STRING: cs.Struct(
            *head(CMQCFC.MQCFT_BYTE_STRING),
            "StringLength" / i32,
            "String" / cs.Bytes(this.StringLength),
            tail(CMQCFC.MQCFBS_STRUC_LENGTH_FIXED, lambda c: c.StringLength),
        ),
        CMQCFC.MQCFT_INTEGER_FILTER: cs.Struct(
            *head(CMQCFC.MQCFT_INTEGER_FILTER), "Operator" / i32, "FilterValue" / i32
        ),
        CMQCFC.MQCFT_STRING_FILTER: cs.Struct(
            *head(CMQCFC.MQCFT_STRING_FILTER),
            "Operator" / i32,
            "CodedCharSetId" / i32,
            "FilterValueLength" / i32,
            "FilterValue" / cs.Bytes(this.FilterValueLength),
            tail(CMQCFC.MQCFSF_STRUC_LENGTH_FIXED, lambda c: c.FilterValueLength),
        ),
        CMQCFC.MQCFT_BYTE_STRING_FILTER: cs.Struct(
            *head(CMQCFC.MQCFT_BYTE_STRING_FILTER),
            "Operator" / i32,
            "FilterValueLength" / i32,
            "FilterValue" / cs.Bytes(this.FilterValueLength),
            tail(CMQCFC.MQCFBF_STRUC_LENGTH_FIXED, lambda c: c.FilterValueLength),
        ),
        CMQCFC.MQCFT_GROUP: cs.Struct(*head(CMQCFC.MQCFT_GROUP), "ParameterCount" / i32),
    }


# --------------------------------------------------------------------------- parameters


#: the derived fields read as attributes (``_Structure.__getattr__``)
_DERIVED_READ = frozenset({"Count", "StringLength", "FilterValueLength"})


class _Structure:
    """pymqi's ``pack()`` / ``unpack()`` of one parameter structure on its own (a group: its
    header only, its members are the structures after it)."""

    Type: int
    Parameter: int

    def _fields(self) -> dict[str, Any]:
        raise NotImplementedError

    def pack(self, encoding: int | None = None) -> bytes:
        """The structure's bytes, integers in ``encoding``'s byte order (None: native)."""
        layout = _layouts(byte_order(encoding))[self.Type]
        return layout.build({"Parameter": self.Parameter, **self._fields()})

    def unpack(self, buff: bytes, encoding: int | None = None) -> Any:
        """Set this structure's fields from the one at the start of ``buff``; returns it.
        StructError with the MQRCCF_* reason when ``buff`` holds no such structure.

        ``buff`` may hold the structure's fixed part alone, as pymqi's PCFExecute.unpack
        (and programs that copy it) reads a structure to learn its lengths: the lengths
        and counts are then set, the value itself (not in ``buff``) NULs or zeros."""
        data, order = bytes(buff), byte_order(encoding)
        fixed = _fixed_part(data, order)
        param = fixed if fixed is not None else _parse_one(data, 0, order)[0]
        if type(param) is not type(self):
            raise StructError(f"{type(param).__name__} where {type(self).__name__} was "
                              "expected", CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR)
        for field in attrs.fields(type(self)):
            setattr(self, field.name, getattr(param, field.name))
        return self

    # -- pymqi's MQOpts face: the structure's fields as pymqi lists them ----------------------
    def get(self) -> dict[str, Any]:
        """Every field, pymqi's first (Type, StrucLength, Parameter, then the structure's
        own, with the lengths and counts its values make)."""
        own = {k: v for k, v in self._fields().items() if k != "Pad"}
        return {"Type": self.Type, "StrucLength": own.pop("StrucLength"),
                "Parameter": self.Parameter, **own}

    def __getattr__(self, name: str) -> Any:
        """pymqi's MQOpts reads every field as an attribute: the lengths and counts mqpy
        derives from the values too (``cfst.StringLength``, ``cfil.Count``)."""
        if name in _DERIVED_READ:
            fields = self._fields()
            if name in fields:
                return fields[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def StrucLength(self) -> int:  # noqa: N802 - IBM's field name
        """The structure's length as packed (its value and padding included)."""
        return int(self._fields()["StrucLength"])

    def get_length(self) -> int:
        return self.StrucLength

    def __getitem__(self, key: str) -> Any:
        fields = self.get()
        return fields[key] if key in fields else getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in attrs.fields_dict(type(self)):
            raise NoSuchField(f"{type(self).__name__} has no settable field {key!r}")
        setattr(self, key, value)

    def set(self, **kw: Any) -> None:
        for key, value in kw.items():
            self[key] = value

    def __str__(self) -> str:
        """pymqi's: one ``Name: value`` line a field."""
        return "\n".join(f"{k}: {v}" for k, v in self.get().items())


MQOpts.register(_Structure)


@attrs.define
class CFIN(_Structure):
    """MQCFIN: one MQLONG."""

    Parameter: int = 0
    Value: int = 0
    Type = CMQCFC.MQCFT_INTEGER

    def _fields(self) -> dict[str, Any]:
        return {"StrucLength": CMQCFC.MQCFIN_STRUC_LENGTH, "Value": self.Value}

    @property
    def value(self) -> int:
        return self.Value


@attrs.define
class CFIN64(_Structure):
    """MQCFIN64: one MQINT64 (statistics byte counts)."""

    Parameter: int = 0
    Value: int = 0
    Reserved: int = attrs.field(default=0, eq=False, repr=False)
    Type = CMQCFC.MQCFT_INTEGER64

    def _fields(self) -> dict[str, Any]:
        return {"StrucLength": CMQCFC.MQCFIN64_STRUC_LENGTH, "Reserved": self.Reserved,
                "Value": self.Value}

    @property
    def value(self) -> int:
        return self.Value


@attrs.define
class CFIL(_Structure):
    """MQCFIL: a list of MQLONGs."""

    Parameter: int = 0
    Values: list[int] = attrs.field(factory=list, converter=_list)
    Type = CMQCFC.MQCFT_INTEGER_LIST

    def _fields(self) -> dict[str, Any]:
        return {
            "StrucLength": CMQCFC.MQCFIL_STRUC_LENGTH_FIXED + 4 * len(self.Values),
            "Count": len(self.Values),
            "Values": self.Values,
        }

    @property
    def value(self) -> list[int]:
        return self.Values


@attrs.define
class CFIL64(_Structure):
    """MQCFIL64: a list of MQINT64s (e.g. MQIAMO64_PUT_BYTES per persistence)."""

    Parameter: int = 0
    Values: list[int] = attrs.field(factory=list, converter=_list)
    Type = CMQCFC.MQCFT_INTEGER64_LIST

    def _fields(self) -> dict[str, Any]:
        return {
            "StrucLength": CMQCFC.MQCFIL64_STRUC_LENGTH_FIXED + 8 * len(self.Values),
            "Count": len(self.Values),
            "Values": self.Values,
        }

    @property
    def value(self) -> list[int]:
        return self.Values


@attrs.define
class CFST(_Structure):
    """MQCFST: a character string; ``Pad`` keeps the bytes after it as read (None: NULs)."""

    Parameter: int = 0
    String: bytes = attrs.field(default=b"", converter=_b)
    CodedCharSetId: int = CMQC.MQCCSI_DEFAULT
    Pad: bytes | None = attrs.field(default=None, eq=False, repr=False)
    Type = CMQCFC.MQCFT_STRING

    def _fields(self) -> dict[str, Any]:
        pad = _pad(len(self.String)) if self.Pad is None else self.Pad
        return {
            "StrucLength": CMQCFC.MQCFST_STRUC_LENGTH_FIXED + len(self.String) + len(pad),
            "CodedCharSetId": self.CodedCharSetId,
            "StringLength": len(self.String),
            "String": self.String,
            "Pad": pad,
        }

    @property
    def value(self) -> bytes:
        return self.String


@attrs.define
class CFSL(_Structure):
    """MQCFSL: a list of strings, each blank-padded to the longest (StringLength)."""

    Parameter: int = 0
    Strings: list[bytes] = attrs.field(factory=list, converter=lambda v: [_b(s) for s in v])
    CodedCharSetId: int = CMQC.MQCCSI_DEFAULT
    Pad: bytes | None = attrs.field(default=None, eq=False, repr=False)
    Type = CMQCFC.MQCFT_STRING_LIST

    def _fields(self) -> dict[str, Any]:
        width = max((len(s) for s in self.Strings), default=0)
        strings = [s.ljust(width, b" ") for s in self.Strings]
        pad = _pad(width * len(strings)) if self.Pad is None else self.Pad
        return {
            "StrucLength": CMQCFC.MQCFSL_STRUC_LENGTH_FIXED + width * len(strings) + len(pad),
            "CodedCharSetId": self.CodedCharSetId,
            "Count": len(strings),
            "StringLength": width,
            "Strings": strings,
            "Pad": pad,
        }

    @property
    def value(self) -> list[bytes]:
        return self.Strings


@attrs.define
class CFBS(_Structure):
    """MQCFBS: a byte string (MsgIds, connection ids...)."""

    Parameter: int = 0
    String: bytes = attrs.field(default=b"", converter=_b)
    Pad: bytes | None = attrs.field(default=None, eq=False, repr=False)
    Type = CMQCFC.MQCFT_BYTE_STRING

    def _fields(self) -> dict[str, Any]:
        pad = _pad(len(self.String)) if self.Pad is None else self.Pad
        return {
            "StrucLength": CMQCFC.MQCFBS_STRUC_LENGTH_FIXED + len(self.String) + len(pad),
            "StringLength": len(self.String),
            "String": self.String,
            "Pad": pad,
        }

    @property
    def value(self) -> bytes:
        return self.String


@attrs.define
class CFIF(_Structure):
    """MQCFIF: an integer filter ``Parameter Operator FilterValue`` (MQCFOP_*)."""

    Parameter: int = 0
    Operator: int = CMQCFC.MQCFOP_EQUAL
    FilterValue: int = 0
    Type = CMQCFC.MQCFT_INTEGER_FILTER

    def _fields(self) -> dict[str, Any]:
        return {"StrucLength": CMQCFC.MQCFIF_STRUC_LENGTH, "Operator": self.Operator,
                "FilterValue": self.FilterValue}

    @property
    def value(self) -> int:
        return self.FilterValue


@attrs.define
class CFSF(_Structure):
    """MQCFSF: a string filter."""

    Parameter: int = 0
    Operator: int = CMQCFC.MQCFOP_EQUAL
    FilterValue: bytes = attrs.field(default=b"", converter=_b)
    CodedCharSetId: int = CMQC.MQCCSI_DEFAULT
    Pad: bytes | None = attrs.field(default=None, eq=False, repr=False)
    Type = CMQCFC.MQCFT_STRING_FILTER

    def _fields(self) -> dict[str, Any]:
        pad = _pad(len(self.FilterValue)) if self.Pad is None else self.Pad
        return {
            "StrucLength": CMQCFC.MQCFSF_STRUC_LENGTH_FIXED + len(self.FilterValue) + len(pad),
            "Operator": self.Operator,
            "CodedCharSetId": self.CodedCharSetId,
            "FilterValueLength": len(self.FilterValue),
            "FilterValue": self.FilterValue,
            "Pad": pad,
        }

    @property
    def value(self) -> bytes:
        return self.FilterValue


@attrs.define
class CFBF(_Structure):
    """MQCFBF: a byte-string filter."""

    Parameter: int = 0
    Operator: int = CMQCFC.MQCFOP_EQUAL
    FilterValue: bytes = attrs.field(default=b"", converter=_b)
    Pad: bytes | None = attrs.field(default=None, eq=False, repr=False)
    Type = CMQCFC.MQCFT_BYTE_STRING_FILTER

    def _fields(self) -> dict[str, Any]:
        pad = _pad(len(self.FilterValue)) if self.Pad is None else self.Pad
        return {
            "StrucLength": CMQCFC.MQCFBF_STRUC_LENGTH_FIXED + len(self.FilterValue) + len(pad),
            "Operator": self.Operator,
            "FilterValueLength": len(self.FilterValue),
            "FilterValue": self.FilterValue,
            "Pad": pad,
        }

    @property
    def value(self) -> bytes:
        return self.FilterValue


@attrs.define
class CFGR(_Structure):
    """MQCFGR: a group; its ParameterCount is the number of ``Parameters`` that follow it,
    or, for a group packed on its own with its members packed after it (pymqi's way), the
    ``ParameterCount`` given."""

    Parameter: int = 0
    Parameters: list[Parameter] = attrs.field(factory=list, converter=_list)
    ParameterCount: int | None = attrs.field(default=None, eq=False)
    Type = CMQCFC.MQCFT_GROUP

    def _fields(self) -> dict[str, Any]:
        count = len(self.Parameters) if self.Parameters or self.ParameterCount is None \
            else self.ParameterCount
        return {"StrucLength": CMQCFC.MQCFGR_STRUC_LENGTH, "ParameterCount": count}

    @property
    def value(self) -> list[Parameter]:
        return self.Parameters

    def get(self, parameter: int | None = None, default: Any = None) -> Any:
        """Value of the first member with this parameter id; without one, the group's own
        fields as pymqi's ``MQOpts.get()`` gives them."""
        if parameter is None:
            return _Structure.get(self)
        return _first(self.Parameters, parameter, default)

    def to_dict(self) -> dict[int, Any]:
        return _to_dict(self.Parameters)


Parameter = CFIN | CFIN64 | CFIL | CFIL64 | CFST | CFSL | CFBS | CFIF | CFSF | CFBF | CFGR

#: the fields pymqi's constructors take that mqpy derives from the values
_DERIVED = ("Type", "StrucLength", "Count", "StringLength", "FilterValueLength")
#: the value a length pads or cuts, as pymqi packs a string into the length given
_SIZED = {"StringLength": "String", "FilterValueLength": "FilterValue"}


def _takes_derived_fields(cls: type) -> None:
    """pymqi's constructors take the derived fields too (``CFST(Parameter=..., String=...,
    StringLength=...)``): a length given pads the value with NULs or cuts it, as pymqi packs
    it; any other (Type, StrucLength, Count) must be the one the values make, else
    ValueError."""
    init = cls.__init__
    fields = attrs.fields_dict(cls)
    derived = tuple(n for n in _DERIVED if n not in fields)

    def __init__(self: Any, *args: Any, **kw: Any) -> None:  # noqa: N807 - the constructor
        if not kw or not any(n in kw for n in derived):
            init(self, *args, **kw)  # the usual call: nothing of pymqi's to check
            return
        given = {n: kw.pop(n) for n in derived if n in kw}
        for length, value in _SIZED.items():
            if length in given and value in kw:
                kw[value] = _b(kw[value])[:given[length]].ljust(given[length], b"\0")
        if "Count" in given:  # a list made to a count, its values to come (pymqi's unpack)
            if "Strings" in fields and "Strings" not in kw:
                kw["Strings"] = [b"\0" * given.get("StringLength", 0)] * given["Count"]
            elif "Values" in fields and "Values" not in kw:
                kw["Values"] = [0] * given["Count"]
        elif "String" in fields and "String" not in kw and "StringLength" in given:
            kw["String"] = b"\0" * given["StringLength"]
        init(self, *args, **kw)
        made = _Structure.get(self)
        wrong = {n: v for n, v in given.items() if n in made and made[n] != v}
        if wrong:
            raise ValueError(f"{cls.__name__}: {wrong} is not what its values make "
                             f"({ {n: made[n] for n in wrong} })")

    __init__.__wrapped__ = init  # type: ignore[attr-defined] - the signature shown
    cls.__init__ = __init__  # type: ignore[misc]


for _cls in (CFIN, CFIN64, CFIL, CFIL64, CFST, CFSL, CFBS, CFIF, CFSF, CFBF, CFGR):
    _takes_derived_fields(_cls)

_CLASSES: dict[int, type] = {
    c.Type: c for c in (CFIN, CFIN64, CFIL, CFIL64, CFST, CFSL, CFBS, CFIF, CFSF, CFBF, CFGR)
}


def _first(params: list[Parameter], parameter: int, default: Any) -> Any:
    for p in params:
        if p.Parameter == parameter:
            return p.value
    return default


def _to_dict(params: list[Parameter]) -> dict[int, Any]:
    """pymqi's shape: {parameter: value}; repeated groups (statistics) become lists."""
    out: dict[int, Any] = {}
    for p in params:
        value = p.to_dict() if isinstance(p, CFGR) else p.value
        if p.Parameter in out:
            if not isinstance(out[p.Parameter], list) or not isinstance(p, CFGR):
                out[p.Parameter] = [out[p.Parameter]]
            out[p.Parameter].append(value)
        else:
            out[p.Parameter] = [value] if isinstance(p, CFGR) else value
    for key, value in out.items():
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
            out[key] = value[0]
    return out


# --------------------------------------------------------------------------- filters

#: The filter structures an inquiry may carry (one at most, IBM's rule).
FILTERS = (CFIF, CFSF, CFBF)
_O = CMQCFC
_COMPARE = {
    _O.MQCFOP_LESS: lambda a, b: a < b, _O.MQCFOP_EQUAL: lambda a, b: a == b,
    _O.MQCFOP_GREATER: lambda a, b: a > b, _O.MQCFOP_NOT_LESS: lambda a, b: a >= b,
    _O.MQCFOP_NOT_EQUAL: lambda a, b: a != b, _O.MQCFOP_NOT_GREATER: lambda a, b: a <= b,
}
_ON_LISTS = {_O.MQCFOP_CONTAINS, _O.MQCFOP_EXCLUDES}
_GENERIC = {_O.MQCFOP_LIKE, _O.MQCFOP_NOT_LIKE, _O.MQCFOP_CONTAINS_GEN, _O.MQCFOP_EXCLUDES_GEN}


#: the parameter ids each filter structure may name (IBM's id ranges: MQIA* 1-2000,
#: MQCA* 2001-4000, MQBA* 6001-8000)
_FILTER_IDS = {CFIF: range(CMQC.MQIA_FIRST, CMQC.MQIA_LAST + 1),
               CFSF: range(CMQC.MQCA_FIRST, CMQC.MQCA_LAST + 1),
               CFBF: range(CMQC.MQBA_FIRST, CMQC.MQBA_LAST + 1)}
_FILTER_ID_ERRORS = {CFIF: CMQCFC.MQRCCF_CFIF_PARM_ID_ERROR,
                     CFSF: CMQCFC.MQRCCF_CFSF_PARM_ID_ERROR,
                     CFBF: CMQCFC.MQRCCF_CFBF_PARM_ID_ERROR}


def filter_error(f: CFIF | CFSF | CFBF) -> int:
    """0 for a filter a command server can apply; else its MQRCCF_*: a parameter of another
    type than the filter (a string filter on an integer attribute...) names the filter's
    structure, an operator not allowed for it is MQRCCF_FILTER_ERROR."""
    if f.Parameter not in _FILTER_IDS[type(f)]:
        return _FILTER_ID_ERRORS[type(f)]
    return 0 if valid_filter(f) else CMQCFC.MQRCCF_FILTER_ERROR


def valid_filter(f: CFIF | CFSF | CFBF) -> bool:
    """Is the filter's operator one IBM allows for its type (generic ones for strings only)?"""
    return f.Operator in _COMPARE or f.Operator in _ON_LISTS or (
        isinstance(f, CFSF) and f.Operator in _GENERIC)


def _blank_trimmed(value: Any) -> Any:
    return value.rstrip(b" \0") if isinstance(value, bytes) else value


def _generic(pattern: bytes, value: bytes) -> bool:
    """MQ's generic value: a trailing asterisk matches any ending."""
    pattern = pattern.rstrip(b" \0")
    if pattern.endswith(b"*"):
        return value.startswith(pattern[:-1])
    return value == pattern


def _attrs_list_parameters() -> frozenset[int]:
    return frozenset(
        value for name, value in vars(CMQCFC).items()
        if name.startswith(("MQIACF_", "MQIACH_")) and name.endswith("_ATTRS")
        and isinstance(value, int))


#: the MQIACF_*_ATTRS / MQIACH_*_ATTRS ids: an inquiry's list of the attributes it asks for
ATTRS_LISTS = _attrs_list_parameters()


def asking_for(msg: PCFMessage, parameter: int) -> PCFMessage:
    """``msg`` with ``parameter`` added to its attribute list (if it has one that does not
    ask for all): what a filter command asks of the inquiry it filters, as IBM's command
    server evaluates a filter on an attribute not asked for and returns it too."""
    params: list[Parameter] = []
    for p in msg.params:
        if isinstance(p, CFIL) and p.Parameter in ATTRS_LISTS \
                and CMQCFC.MQIACF_ALL not in p.Values and parameter not in p.Values:
            p = CFIL(p.Parameter, [*p.Values, parameter])
        params.append(p)
    return PCFMessage(msg.header, params)


def filter_matches(f: CFIF | CFSF | CFBF, params: list[Parameter]) -> bool:
    """Does a response's data pass ``f`` (the filter command's "Parameter Operator
    FilterValue")? Strings compare without their trailing blanks; a response without the
    parameter does not pass."""
    value = _first(params, f.Parameter, None)
    if value is None:
        return False
    wanted = _blank_trimmed(f.FilterValue)
    op = f.Operator
    if isinstance(value, list):  # a list attribute: is the value among its items?
        items = [_blank_trimmed(v) for v in value]
        if op in (_O.MQCFOP_CONTAINS_GEN, _O.MQCFOP_EXCLUDES_GEN):
            hit = any(_generic(wanted, v) for v in items)
        else:
            hit = wanted in items
        return hit if op in (_O.MQCFOP_CONTAINS, _O.MQCFOP_CONTAINS_GEN) else not hit
    value = _blank_trimmed(value)
    if op in (_O.MQCFOP_LIKE, _O.MQCFOP_NOT_LIKE):
        return _generic(wanted, value) == (op == _O.MQCFOP_LIKE)
    compare = _COMPARE.get(op)
    return compare is not None and compare(value, wanted)


# --------------------------------------------------------------------------- messages


@attrs.define
class PCFMessage:
    """An MQCFH and its top-level parameters (groups hold their own)."""

    header: CFH = attrs.field(factory=CFH)
    params: list[Parameter] = attrs.field(factory=list, converter=_list)

    def get(self, parameter: int, default: Any = None) -> Any:
        """Value of the first top-level parameter with this id."""
        return _first(self.params, parameter, default)

    def groups(self, parameter: int) -> Iterator[CFGR]:
        """Every top-level MQCFGR with this id (e.g. MQGACF_Q_STATISTICS_DATA)."""
        return (p for p in self.params if isinstance(p, CFGR) and p.Parameter == parameter)

    def to_dict(self) -> dict[int, Any]:
        return _to_dict(self.params)


def parse(data: bytes | bytearray | memoryview, encoding: int | None = None) -> PCFMessage:
    """Read a PCF message (MQCFH + parameters) from ``data``.

    Raises StructError with an MQRCCF_* reason when a structure's type or length is wrong or
    the message ends early, naming the parameter and its offset.
    """
    data = bytes(data)
    order = byte_order(encoding)
    header = CFH.from_bytes(data, encoding)
    if header.StrucLength != CMQCFC.MQCFH_STRUC_LENGTH:
        raise StructError(
            f"MQCFH StrucLength is {header.StrucLength}, expected {CMQCFC.MQCFH_STRUC_LENGTH}",
            CMQCFC.MQRCCF_CFH_LENGTH_ERROR,
        )
    params, pos = _parse_params(data, CFH.length(), header.ParameterCount, order)
    if pos != len(data):
        raise StructError(
            f"PCF message has {len(data) - pos} bytes after its {header.ParameterCount} "
            "parameters",
            CMQCFC.MQRCCF_MSG_LENGTH_ERROR,
        )
    return PCFMessage(header, params)


#: how deep groups (MQCFGR) may be nested in a message read: IBM's records nest them two or
#: three deep; a message's bytes could nest thousands, past the interpreter's recursion
MAX_GROUP_DEPTH = 16


def _parse_params(data: bytes, pos: int, count: int, order: str, depth: int = 0
                  ) -> tuple[list[Parameter], int]:
    out: list[Parameter] = []
    for _ in range(count):
        param, pos = _parse_one(data, pos, order)
        if isinstance(param, CFGR):
            if depth == MAX_GROUP_DEPTH:
                raise StructError(f"PCF groups nested deeper than {MAX_GROUP_DEPTH} at offset "
                                  f"{pos}", CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR)
            param.Parameters, pos = _parse_params(data, pos, param.ParameterCount or 0, order,
                                                  depth + 1)
        out.append(param)
    return out, pos


def _parse_one(data: bytes, pos: int, order: str) -> tuple[Parameter, int]:
    """The structure at ``pos`` (a group: its header only) and the offset after it."""
    if len(data) - pos < 8:
        raise StructError(
            f"PCF message ends at {len(data)} inside a parameter header at {pos}",
            CMQCFC.MQRCCF_MSG_LENGTH_ERROR,
        )
    cft, length = struct.unpack_from(order + "ii", data, pos)
    cls = _CLASSES.get(cft)
    if cls is None:
        raise StructError(
            f"unknown PCF structure type {cft} at offset {pos}",
            CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR,
        )
    if length < 12 or length % 4 or pos + length > len(data):
        raise StructError(
            f"{cls.__name__} at offset {pos} has StrucLength {length} "
            f"({len(data) - pos} bytes left)",
            _length_reason(cls),
        )
    fast = _parse_common(data, pos, length, cft, order)
    if fast is not None:
        return fast, pos + length
    if cft == CMQCFC.MQCFT_STRING_LIST and length >= CMQCFC.MQCFSL_STRUC_LENGTH_FIXED:
        _check_string_count(data, pos, length, order)
    try:
        c = _layouts(order)[cft].parse(data[pos : pos + length])
    except cs.ConstructError as exc:
        raise StructError(f"{cls.__name__} at offset {pos}: {exc}", _length_reason(cls)) from None
    return _from_layout(cls, c), pos + length


def _check_string_count(data: bytes, pos: int, length: int, order: str) -> None:
    """The MQCFSL at ``pos`` (``length`` bytes) counts no more strings than it can hold:
    Count is not negative, and strings of length 0, which take no bytes, are at most as
    many as the structure has bytes (a Count of 2**31 - 1 in 24 bytes would otherwise be
    read as that many); StructError MQRCCF_CFSL_COUNT_ERROR otherwise."""
    count, size = struct.unpack_from(order + "ii", data, pos + 16)
    if count < 0 or (size == 0 and count > length):
        raise StructError(f"MQCFSL at offset {pos} has Count {count} of strings of "
                          f"StringLength {size} in StrucLength {length}",
                          CMQCFC.MQRCCF_CFSL_COUNT_ERROR)


#: the fixed part's length of each structure with a value of varying length
_FIXED_LENGTHS = {
    CMQCFC.MQCFT_STRING: CMQCFC.MQCFST_STRUC_LENGTH_FIXED,
    CMQCFC.MQCFT_STRING_LIST: CMQCFC.MQCFSL_STRUC_LENGTH_FIXED,
    CMQCFC.MQCFT_BYTE_STRING: CMQCFC.MQCFBS_STRUC_LENGTH_FIXED,
    CMQCFC.MQCFT_INTEGER_LIST: CMQCFC.MQCFIL_STRUC_LENGTH_FIXED,
    CMQCFC.MQCFT_INTEGER64_LIST: CMQCFC.MQCFIL64_STRUC_LENGTH_FIXED,
}


def _fixed_part(data: bytes, order: str) -> Parameter | None:
    """The structure whose fixed part alone ``data`` holds (its StrucLength longer than
    ``data``), with the lengths and counts that part declares and NULs or zeros for the
    value; None when ``data`` holds more, or is no such part."""
    if len(data) < 8:
        return None
    cft, length = struct.unpack_from(order + "ii", data, 0)
    fixed = _FIXED_LENGTHS.get(cft)
    if fixed is None or len(data) != fixed or length <= fixed:
        return None
    fields = struct.unpack_from(order + "i" * (fixed // 4), data, 0)
    parameter, room = fields[2], length - fixed  # the value fits in what StrucLength says
    if cft == CMQCFC.MQCFT_STRING:  # Type, StrucLength, Parameter, CCSID, StringLength
        size = fields[4]
        return CFST(parameter, b"\0" * size, fields[3]) if 0 <= size <= room else None
    if cft == CMQCFC.MQCFT_BYTE_STRING:  # ..., Parameter, StringLength
        size = fields[3]
        return CFBS(parameter, b"\0" * size) if 0 <= size <= room else None
    if cft == CMQCFC.MQCFT_STRING_LIST:  # ..., Parameter, CCSID, Count, StringLength
        count, size = fields[4], fields[5]
        if count < 0 or size < 0 or count * size > room or (count and not size and count > room):
            return None
        return CFSL(parameter, [b"\0" * size] * count, fields[3])
    count, width = fields[3], 4 if cft == CMQCFC.MQCFT_INTEGER_LIST else 8
    if not 0 <= count * width <= room:
        return None
    return (CFIL if width == 4 else CFIL64)(parameter, [0] * count)  # ..., Parameter, Count


def _parse_common(data: bytes, pos: int, length: int, cft: int, order: str
                  ) -> Parameter | None:
    """An MQCFIN or a well-formed MQCFST read with struct (most of what a command server
    answers, read many times faster than through construct); None for anything else."""
    if cft == CMQCFC.MQCFT_INTEGER:
        return CFIN(*struct.unpack_from(order + "ii", data, pos + 8))
    if cft == CMQCFC.MQCFT_STRING:
        param, ccsid, size = struct.unpack_from(order + "iii", data, pos + 8)
        end = pos + CMQCFC.MQCFST_STRUC_LENGTH_FIXED + size
        if size < 0 or end > pos + length:
            return None  # construct's parse names the fault
        return CFST(param, data[end - size:end], ccsid, data[end:pos + length])
    return None


def _from_layout(cls: type, c: Any) -> Parameter:
    """The parameter object of a parsed construct container."""
    if cls is CFGR:
        return CFGR(c.Parameter, [], c.ParameterCount)
    if cls is CFIN:
        return CFIN(c.Parameter, c.Value)
    if cls is CFIN64:
        return CFIN64(c.Parameter, c.Value, c.Reserved)
    if cls in (CFIL, CFIL64):
        return cls(c.Parameter, list(c.Values))
    if cls is CFST:
        return CFST(c.Parameter, c.String, c.CodedCharSetId, c.Pad)
    if cls is CFSL:
        return CFSL(c.Parameter, list(c.Strings), c.CodedCharSetId, c.Pad)
    if cls is CFBS:
        return CFBS(c.Parameter, c.String, c.Pad)
    if cls is CFIF:
        return CFIF(c.Parameter, c.Operator, c.FilterValue)
    if cls is CFSF:
        return CFSF(c.Parameter, c.Operator, c.FilterValue, c.CodedCharSetId, c.Pad)
    return CFBF(c.Parameter, c.Operator, c.FilterValue, c.Pad)


def _length_reason(cls: type) -> int:
    name = f"MQRCCF_{cls.__name__}_LENGTH_ERROR"
    return getattr(CMQCFC, name, CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR)


def build(msg: PCFMessage, encoding: int | None = None) -> bytes:
    """The bytes of ``msg``; the header's ParameterCount is set from ``msg.params``."""
    header = msg.header.copy()
    header.ParameterCount = len(msg.params)
    parts = [header.pack(encoding)]
    _build_params(msg.params, encoding, parts)
    return b"".join(parts)


def _build_params(params: list[Parameter], encoding: int | None, parts: list[bytes]) -> None:
    for p in params:
        parts.append(p.pack(encoding))
        if isinstance(p, CFGR):
            _build_params(p.Parameters, encoding, parts)
