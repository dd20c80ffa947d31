"""``Properties``: pymqi's and ``ibmmq``'s ``MessageHandle.properties`` face over a message
handle of a ``MessageHandleTable`` (``set`` / ``get`` / ``dlt``, ``props[name]``).

As in those packages: names may be bytes or str; ``set`` defaults to MQTYPE_STRING with
MQVL_NULL_TERMINATED (which, for a fixed-size type, means the type's own size); ``get``
returns the value, or ``(value, name)`` when the name has a wildcard (``ibmmq``), asks for
MQIMPO_CONVERT_VALUE, allows ``max_value_length`` bytes (default 64, as they do), and raises
for any completion code but MQCC_OK, a too-big value with ``data_length`` and the caller's
``default`` as ``value``.
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.properties.errors import PropertyError
from mqpy.properties.handles import MessageHandleTable
from mqpy.properties.types import FIXED_LENGTHS
from mqpy.structs.propstructs import DMPO, IMPO, PD, SMPO

__all__ = ["Properties"]

C = CMQC


def _name(name: str | bytes) -> str:
    if isinstance(name, (bytes, bytearray)):
        return bytes(name).decode("utf-8", "replace")
    return name


class Properties:
    """The properties of message handle ``hmsg`` in ``table``."""

    #: the value buffer MQINQMP is given when ``get`` names none (pymqi's
    #: MessageHandle.default_value_length, which a program may change on that class)
    default_value_length = 64

    def __init__(self, table: MessageHandleTable, hmsg: int, owner: Any = None) -> None:
        self.table = table
        self.msg_handle = hmsg
        #: the MessageHandle class whose default_value_length applies (None: this class's)
        self._owner = owner

    def set(self, name: str | bytes, value: Any, property_type: int = C.MQTYPE_STRING,
            value_length: int | None = C.MQVL_NULL_TERMINATED, pd: PD | None = None,
            smpo: SMPO | None = None) -> None:
        """MQSETMP."""
        if value_length == C.MQVL_NULL_TERMINATED and property_type in FIXED_LENGTHS:
            value_length = None
        if property_type == C.MQTYPE_BYTE_STRING and value_length == C.MQVL_NULL_TERMINATED:
            value_length = None
        self.table.setmp(self.msg_handle, _name(name), value, property_type, smpo=smpo, pd=pd,
                         value_length=value_length)

    def get(self, name: str | bytes, default: Any = None, max_value_length: int | None = None,
            impo_options: int = C.MQIMPO_INQ_FIRST, pd: PD | int | None = C.MQPD_NONE,
            property_type: int = C.MQTYPE_AS_SET, impo: IMPO | None = None) -> Any:
        """MQINQMP, with pymqi's parameters in pymqi's order (``pd`` an MQPD or its
        Options), then ibmmq's ``impo`` (an MQIMPO, whose Options replace
        ``impo_options``)."""
        if impo is None:
            impo = IMPO(Options=impo_options | C.MQIMPO_CONVERT_VALUE)
        if isinstance(pd, int):
            pd = PD(Options=pd) if pd != C.MQPD_NONE else None
        text = _name(name)
        try:
            got = self.table.inqmp(self.msg_handle, text, impo=impo, pd=pd, ptype=property_type,
                                   max_length=max_value_length or self._value_length())
        except PropertyError as exc:
            exc.value = default
            exc.data_length = getattr(exc, "data_length", 0)
            raise
        if got.reason != C.MQRC_NONE:
            raise PropertyError(C.MQCC_WARNING, got.reason, value=got.value,
                                data_length=got.data_length)
        if "%" in text:
            return got.value, got.name.encode("utf-8")
        return got.value

    inq = get  #: ibmmq's name of MQINQMP

    def _value_length(self) -> int:
        """This object's own default_value_length if one was set on it, else the
        MessageHandle class's (pymqi's), else this class's."""
        if "default_value_length" in self.__dict__ or self._owner is None:
            return int(self.default_value_length)
        return int(self._owner.default_value_length)

    def dlt(self, name: str | bytes, dmpo: DMPO | None = None) -> None:
        """MQDLTMP."""
        self.table.dltmp(self.msg_handle, _name(name), dmpo)

    def __getitem__(self, name: str | bytes) -> Any:
        try:
            return self.get(name)
        except PropertyError as exc:
            if exc.reason == C.MQRC_PROPERTY_NOT_AVAILABLE:
                raise KeyError(f"No such property [{_name(name)}]") from None
            raise

    def __setitem__(self, name: str | bytes, value: Any) -> None:
        self.set(name, value)
