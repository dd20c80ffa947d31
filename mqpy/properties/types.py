"""Property data types (MQTYPE_*): the Python value each holds, its length, MQSETMP's checks,
and MQINQMP's conversions (MQIMPO_CONVERT_TYPE between types, MQIMPO_CONVERT_VALUE between
character sets).

Values are kept as Python values: MQTYPE_BOOLEAN a bool, BYTE_STRING bytes, INT8..INT64 an int
in the type's range, FLOAT32 a float rounded to single precision, FLOAT64 a float, STRING a
str, NULL None. A value's length (MQINQMP's DataLength) is the type's size (BOOLEAN 4, INT8 1,
INT16 2, INT32 4, INT64 8, FLOAT32 4, FLOAT64 8), the bytes of a byte string, the bytes of a
string in its character set, 0 for NULL.

MQIMPO_CONVERT_TYPE converts (``CONVERSIONS``): an integer to a wider integer or to a string;
FLOAT32 to FLOAT64 or a string; BOOLEAN to the string ``TRUE`` / ``FALSE``; a string to any
number or boolean (``TRUE``/``FALSE`` in any case, or ``1``/``0``), where text that is no such
value is MQRC_PROP_NUMBER_FORMAT_ERROR; NULL stays NULL. Anything else is
MQRC_PROP_CONV_NOT_SUPPORTED.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from mqpy import CMQC
from mqpy.properties.errors import fail, warn

__all__ = [
    "CONVERSIONS",
    "FIXED_LENGTHS",
    "INT_RANGES",
    "TYPES",
    "ccsid_codec",
    "check_value",
    "convert_type",
    "encode_string",
    "float32",
    "length_of",
]

T = CMQC
TYPES = frozenset((T.MQTYPE_NULL, T.MQTYPE_BOOLEAN, T.MQTYPE_BYTE_STRING, T.MQTYPE_INT8,
                   T.MQTYPE_INT16, T.MQTYPE_INT32, T.MQTYPE_INT64, T.MQTYPE_FLOAT32,
                   T.MQTYPE_FLOAT64, T.MQTYPE_STRING))
FIXED_LENGTHS = {T.MQTYPE_BOOLEAN: 4, T.MQTYPE_INT8: 1, T.MQTYPE_INT16: 2, T.MQTYPE_INT32: 4,
                 T.MQTYPE_INT64: 8, T.MQTYPE_FLOAT32: 4, T.MQTYPE_FLOAT64: 8,
                 T.MQTYPE_NULL: 0}
INT_RANGES = {T.MQTYPE_INT8: (-(2**7), 2**7 - 1), T.MQTYPE_INT16: (-(2**15), 2**15 - 1),
              T.MQTYPE_INT32: (-(2**31), 2**31 - 1), T.MQTYPE_INT64: (-(2**63), 2**63 - 1)}
_INTS = (T.MQTYPE_INT8, T.MQTYPE_INT16, T.MQTYPE_INT32, T.MQTYPE_INT64)
_FLOATS = (T.MQTYPE_FLOAT32, T.MQTYPE_FLOAT64)

#: MQTYPE_* of the property -> the MQTYPE_* MQIMPO_CONVERT_TYPE may return it as
CONVERSIONS: dict[int, frozenset[int]] = {
    T.MQTYPE_BOOLEAN: frozenset((T.MQTYPE_STRING,)),
    T.MQTYPE_BYTE_STRING: frozenset(),
    T.MQTYPE_INT8: frozenset((T.MQTYPE_INT16, T.MQTYPE_INT32, T.MQTYPE_INT64, T.MQTYPE_STRING)),
    T.MQTYPE_INT16: frozenset((T.MQTYPE_INT32, T.MQTYPE_INT64, T.MQTYPE_STRING)),
    T.MQTYPE_INT32: frozenset((T.MQTYPE_INT64, T.MQTYPE_STRING)),
    T.MQTYPE_INT64: frozenset((T.MQTYPE_STRING,)),
    T.MQTYPE_FLOAT32: frozenset((T.MQTYPE_FLOAT64, T.MQTYPE_STRING)),
    T.MQTYPE_FLOAT64: frozenset((T.MQTYPE_STRING,)),
    T.MQTYPE_STRING: frozenset((T.MQTYPE_BOOLEAN, *_INTS, *_FLOATS)),
    T.MQTYPE_NULL: TYPES,
}

#: CCSIDs whose characters Python can code, and the codec of each
_CODECS = {1208: "utf-8", 819: "latin-1", 1051: "latin-1", 367: "ascii", 437: "cp437",
           850: "cp850", 1252: "cp1252", 37: "cp037", 500: "cp500", 1140: "cp1140",
           1200: "utf-16-be", 13488: "utf-16-be", 17584: "utf-16-be", 1232: "utf-32-be",
           5348: "cp1252", 912: "iso8859-2", 923: "iso8859-15", 1250: "cp1250",
           1251: "cp1251", 943: "cp932", 1386: "gbk", 970: "euc-kr"}


def ccsid_codec(ccsid: int) -> str | None:
    """The Python codec of a CCSID, or None when mqpy cannot convert it."""
    return _CODECS.get(ccsid)


def float32(value: float) -> float:
    """``value`` rounded to IEEE single precision (what a FLOAT32 property holds); values
    beyond its range become infinities, as a C cast makes them."""
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def length_of(ptype: int, value: Any, codec: str = "utf-8") -> int:
    """The DataLength of ``value`` as a ``ptype`` property (strings in ``codec``)."""
    if ptype == T.MQTYPE_STRING:
        return len(value.encode(codec, "replace"))
    if ptype == T.MQTYPE_BYTE_STRING:
        return len(value)
    return FIXED_LENGTHS[ptype]


def _check_kind(ptype: int, value: Any) -> Any:
    """``value`` normalised for ``ptype``, or MQRC_PROPERTY_TYPE_ERROR when it is not of
    the type's kind (a Python value of another kind cannot be that type's bytes)."""
    if ptype == T.MQTYPE_NULL:
        if value is not None:
            raise fail(T.MQRC_PROPERTY_TYPE_ERROR)
        return None
    if ptype == T.MQTYPE_BOOLEAN:
        if isinstance(value, bool) or type(value) is int:
            return bool(value)
    elif ptype == T.MQTYPE_BYTE_STRING:
        if isinstance(value, (bytes, bytearray, memoryview)):
            return bytes(value)
    elif ptype == T.MQTYPE_STRING:
        if isinstance(value, (str, bytes)):
            return value
        if isinstance(value, (bytearray, memoryview)):
            return bytes(value)
    elif ptype in INT_RANGES:
        if isinstance(value, int) and not isinstance(value, bool):
            lo, hi = INT_RANGES[ptype]
            if not lo <= value <= hi:
                raise fail(T.MQRC_PROPERTY_VALUE_TOO_BIG)
            return int(value)
    elif ptype in _FLOATS:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float32(float(value)) if ptype == T.MQTYPE_FLOAT32 else float(value)
    raise fail(T.MQRC_PROPERTY_TYPE_ERROR)


def _string(value: str | bytes, value_length: int | None, ccsid: int) -> str:
    """A STRING property's text: a str as given, its first ``value_length`` characters; bytes
    (an application's buffer) cut at ``value_length`` bytes or the first NUL, then decoded
    from ``ccsid`` (MQSMPO ValueCCSID; MQCCSI_APPL is UTF-8 here)."""
    if value_length is not None and value_length != T.MQVL_NULL_TERMINATED and (
            type(value_length) is not int or not 0 <= value_length <= len(value)):
        raise fail(T.MQRC_BUFFER_LENGTH_ERROR)
    if isinstance(value, str):
        if value_length == T.MQVL_NULL_TERMINATED:
            return value.split("\0", 1)[0]
        return value if value_length is None else value[:value_length]
    if value_length == T.MQVL_NULL_TERMINATED:
        value = value.split(b"\0", 1)[0]
    elif value_length is not None:
        value = value[:value_length]
    codec = "utf-8" if ccsid in (T.MQCCSI_APPL, T.MQCCSI_INHERIT, 0) else ccsid_codec(ccsid)
    if codec is None:
        raise fail(T.MQRC_SOURCE_CCSID_ERROR)
    return value.decode(codec, "replace")


def check_value(ptype: int, value: Any, value_length: int | None = None,
                ccsid: int = T.MQCCSI_APPL) -> Any:
    """MQSETMP's checks of Type, Value and ValueLength: the value to keep, or PropertyError.

    An unknown ``ptype`` is MQRC_PROPERTY_TYPE_ERROR. ``value_length`` (None: the value's own)
    must be the size of a fixed-size type, 0 for NULL; for a byte string it may be shorter
    than the value (its first bytes are taken); for a string see ``_string``. Anything else
    is MQRC_BUFFER_LENGTH_ERROR.
    """
    if type(ptype) is not int or ptype not in TYPES:
        raise fail(T.MQRC_PROPERTY_TYPE_ERROR)
    value = _check_kind(ptype, value)
    if ptype == T.MQTYPE_STRING:
        return _string(value, value_length, ccsid)
    if value_length is None:
        return value
    if type(value_length) is not int:
        raise fail(T.MQRC_BUFFER_LENGTH_ERROR)
    if ptype in FIXED_LENGTHS:
        if value_length != FIXED_LENGTHS[ptype]:
            raise fail(T.MQRC_BUFFER_LENGTH_ERROR)
        return value
    if not 0 <= value_length <= len(value):
        raise fail(T.MQRC_BUFFER_LENGTH_ERROR)
    return value[:value_length]


def _float_text(value: float, ptype: int) -> str:
    """The shortest text that reads back as the same FLOAT32 / FLOAT64."""
    if ptype == T.MQTYPE_FLOAT32 and math.isfinite(value):
        for digits in range(1, 10):
            text = f"{value:.{digits}g}"
            if float32(float(text)) == value:
                return text
    return repr(value)


def _from_string(text: str, to_type: int) -> Any:
    word = text.strip()
    if to_type == T.MQTYPE_BOOLEAN:
        lowered = word.lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
        raise fail(T.MQRC_PROP_NUMBER_FORMAT_ERROR)
    try:
        if to_type in INT_RANGES:
            number = int(word, 10)
            lo, hi = INT_RANGES[to_type]
            if lo <= number <= hi:
                return number
            raise fail(T.MQRC_PROP_NUMBER_FORMAT_ERROR)
        number = float(word)
    except ValueError:
        raise fail(T.MQRC_PROP_NUMBER_FORMAT_ERROR) from None
    return float32(number) if to_type == T.MQTYPE_FLOAT32 else number


def convert_type(value: Any, from_type: int, to_type: int) -> tuple[Any, int]:
    """MQIMPO_CONVERT_TYPE: (value, type) of a ``from_type`` property asked for as
    ``to_type`` (MQTYPE_AS_SET: as it is), or PropertyError (see the module's table)."""
    if to_type in (T.MQTYPE_AS_SET, from_type):
        return value, from_type
    if to_type not in TYPES:
        raise fail(T.MQRC_PROPERTY_TYPE_ERROR)
    if from_type == T.MQTYPE_NULL:
        return None, T.MQTYPE_NULL
    if to_type not in CONVERSIONS[from_type]:
        raise fail(T.MQRC_PROP_CONV_NOT_SUPPORTED)
    if from_type == T.MQTYPE_STRING:
        return _from_string(value, to_type), to_type
    if to_type == T.MQTYPE_STRING:
        if from_type == T.MQTYPE_BOOLEAN:
            return ("TRUE" if value else "FALSE"), to_type
        if from_type in _FLOATS:
            return _float_text(value, from_type), to_type
        return str(value), to_type
    return value, to_type  # widening: the same Python value


def encode_string(value: str, ccsid: int) -> bytes:
    """A string property's bytes in ``ccsid`` (MQIMPO_CONVERT_VALUE), or the warning
    MQRC_PROP_VALUE_NOT_CONVERTED when the CCSID is unknown or cannot hold the text (the
    caller then returns the value unconverted, as IBM does)."""
    codec = ccsid_codec(ccsid)
    if codec is None:
        raise warn(T.MQRC_PROP_VALUE_NOT_CONVERTED)
    try:
        return value.encode(codec)
    except UnicodeEncodeError:
        raise warn(T.MQRC_PROP_VALUE_NOT_CONVERTED) from None
