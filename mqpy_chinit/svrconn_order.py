"""The byte order a SVRCONN instance writes in: its client's.

IBM MQ converts a client's MQI data in the server ("Conversion for IBM MQ MQI client
information takes place in the server", Code page conversion, note 1): the client sends and
expects the MQI's structures in its own encoding. A client on a big-endian machine (AIX,
z/OS: TSH byte order 1, Encoding 273 or 785) is therefore answered in big-endian: once its
INITIAL_DATA is agreed, every flow written on the instance -- MQI replies, heartbeats, STATUS,
read ahead's ASYNC_MESSAGEs and NOTIFICATIONs -- carries byte order 1 and its integers (the
MQMD's and the other structures' among them) big-endian. A little-endian client is answered
as before (byte order 2, Encoding 546).
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import ByteOrder

__all__ = ["BIG_ENDIAN_ENCODING", "speak_partners"]

#: the TSH Encoding of what we write big-endian when the client's own says nothing usable
BIG_ENDIAN_ENCODING = (CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL
                       | CMQC.MQENC_FLOAT_IEEE_NORMAL)
_INTEGER_MASK = CMQC.MQENC_INTEGER_MASK


def speak_partners(conv: Any) -> None:
    """After the INITIAL_DATA exchange of ``conv`` (a ``Conversation``): its writer writes
    in the byte order of the client's last segment, with the client's Encoding when that
    says the same (else 273)."""
    reader, writer = conv.reader, conv.writer
    if reader.partner_byte_order != ByteOrder.BIG:
        return
    encoding = reader.partner_encoding
    if encoding is None or encoding & _INTEGER_MASK != CMQC.MQENC_INTEGER_NORMAL:
        encoding = BIG_ENDIAN_ENCODING
    conv.writer = SegmentWriter(writer.max_transmission_size, byte_order=ByteOrder.BIG,
                                encoding=encoding, ccsid=writer.ccsid, flags2=writer.flags2)
