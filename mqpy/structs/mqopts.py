"""pymqi's ``MQOpts``: a structure a program declares itself, and pymqi's helpers for it.

Owns ``MQOpts`` (rows of name, default, ``struct`` format), ``ensure_not_unicode``,
``MQLONG_TYPE`` / ``INTEGER64_TYPE``, ``py23long`` and ``padded_count``. mqpy's own
structures are ``MQStruct`` layouts (``mqpy.structs.mqstruct``).
"""

from __future__ import annotations

import abc
import struct
from collections.abc import Iterable
from typing import Any

from mqpy.structs import charv
from mqpy.structs.fields import StructError
from mqpy.structs.mqstruct import MQStruct

__all__ = ["INTEGER64_TYPE", "MQLONG_TYPE", "MQOpts", "ensure_not_unicode", "padded_count",
           "py23long"]


def ensure_not_unicode(value: Any) -> None:
    """pymqi's TypeError for a str where bytes are wanted (structures, headers, messages)."""
    if isinstance(value, str):
        raise TypeError(f"Python 3 style string (unicode) found but not allowed here: "
                        f"`{value}`. Convert to bytes.")


class MQOpts(metaclass=abc.ABCMeta):  # noqa: B024 - ABCMeta only for register()
    """pymqi's ``MQOpts(memlist, **kw)``: a structure a program declares itself, as rows
    ``[name, default, struct format]`` or ``[name, default, format, count]`` (a list value of
    ``count`` items), packed with the ``struct`` module in native order and alignment, as
    pymqi packs it. mqpy's own structures are ``MQStruct`` layouts; this is for programs that
    subclass MQOpts for a structure pymqi lacks (an MQCIH, an MQDLH ...).

    Every structure mqpy gives a program is an MQOpts to ``isinstance``, as pymqi's are its
    subclasses: MQStruct layouts, the PCF parameter structures and RFH2 are registered.
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

    #: pymqi's MQCHARV helpers (:mod:`mqpy.structs.charv`)
    set_vs = charv.set_vs
    get_vs = charv.get_vs

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


MQOpts.register(MQStruct)
