"""Publish/subscribe on the wire: MQSUB and MQSUBRQ bodies, and the MQCHARV strings that an
MQSD or a version-4 MQOD carries behind it. Sans-IO, as ``mqiflows``, whose tables hold
these rows.

An MQCHARV's string travels after its structure (``charvstrings``).

- MQSUB (0x8E): the MQSD with its strings, then the Hobj of the application's destination
  (MQHO_NONE for a managed one); the reply: the MQSD as the queue manager filled it and the
  destination's Hobj, the subscription handle (Hsub) in the API header's Hobj.
- MQSUBRQ (0x8F): the API header's Hobj is the Hsub; the body the Action and the MQSRO; the
  reply the MQSRO (NumPubs).
"""

from __future__ import annotations

from typing import Any

from mqpy.fap.charvstrings import pack_with_strings, read_strings
from mqpy.fap.mqiparams import Item, Long, Structure
from mqpy.fap.tsh import ByteOrder, mq_encoding
from mqpy.structs.mqstruct import MQStruct
from mqpy.structs.pubsubstructs import CHARV_NAMES, SD, SRO

__all__ = ["SUBRQ_REPLY", "SUBRQ_REQUEST", "SUB_REPLY", "SUB_REQUEST", "CharvStructure"]

class CharvStructure(Structure):
    """A structure with MQCHARVs, carried with their strings (an MQSD)."""

    def __init__(self, cls: type[MQStruct], names: tuple[str, ...]) -> None:
        super().__init__(cls)
        self.names = names

    def pack(self, value: Any, byte_order: ByteOrder) -> bytes:
        return pack_with_strings(value, mq_encoding(byte_order), self.names)

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[MQStruct, int]:
        obj, end = super().unpack(buf, pos, byte_order)
        return obj, read_strings(obj, buf, pos, end, self.names)


_SD = CharvStructure(SD, CHARV_NAMES)
SUB_REQUEST: tuple[Item, ...] = (_SD, Long("Hobj"))
SUB_REPLY: tuple[Item, ...] = (_SD, Long("Hobj"))
SUBRQ_REQUEST: tuple[Item, ...] = (Long("Action"), Structure(SRO))
SUBRQ_REPLY: tuple[Item, ...] = (Structure(SRO),)
