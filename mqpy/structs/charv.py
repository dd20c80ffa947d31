"""pymqi's and ibmmq's ``set_vs`` / ``get_vs``: a variable-length string (MQCHARV: the five
fields ``<name>VSPtr``, ``VSOffset``, ``VSBufSize``, ``VSLength``, ``VSCCSID``) of a
structure, set and read by its name. The string itself is kept with the structure (a
pointer is meaningless across processes: ``VSPtr`` stays as it is); the other four fields
are set as the C MQCHARV's would be."""

from __future__ import annotations

from typing import Any

__all__ = ["get_vs", "set_vs"]

_STRINGS = "_vs_strings_"  # the structure's attribute holding {name: the string's bytes}


def set_vs(struct: Any, vs_name: str, vs_value: bytes | str | None = None,
           vs_offset: int = 0, vs_buffer_size: int = 0, vs_ccsid: int = 0) -> None:
    """Set the MQCHARV ``vs_name``: its string (a str as UTF-8; None: empty), VSOffset,
    VSBufSize, VSLength (the string's length) and VSCCSID; ``vs_name`` may be the VSPtr
    field's name. A structure without that MQCHARV raises AttributeError, as pymqi does."""
    vs_name = _base(vs_name)
    if vs_value is None:
        value = b""
    elif isinstance(vs_value, str):
        value = vs_value.encode("utf-8")
    else:
        value = bytes(vs_value)
    struct[vs_name + "VSPtr"]  # noqa: B018 - an MQCHARV this structure has, or AttributeError
    struct[vs_name + "VSOffset"] = vs_offset
    struct[vs_name + "VSBufSize"] = vs_buffer_size
    struct[vs_name + "VSLength"] = len(value)
    struct[vs_name + "VSCCSID"] = vs_ccsid
    vars(struct).setdefault(_STRINGS, {})[vs_name] = value


def get_vs(struct: Any, vs_name: str) -> bytes | None:
    """The string of the MQCHARV ``vs_name`` (or its VSPtr field's name): its first
    VSLength bytes; None while none was set (pymqi's and ibmmq's null pointer)."""
    vs_name = _base(vs_name)
    length = struct[vs_name + "VSLength"]
    value = vars(struct).get(_STRINGS, {}).get(vs_name)
    return None if value is None else value[:max(0, length)]


def _base(vs_name: str) -> str:
    """An MQCHARV's name, from it or from its VSPtr field's name."""
    return vs_name[:-len("VSPtr")] if vs_name.endswith("VSPtr") else vs_name
