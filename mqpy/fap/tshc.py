"""The TSHC: the header of a shared channel instance's connection-level flows.

Once a client channel instance shares conversations (SHARECNV above 0: every flow of a
conversation in a TSHM, its ConvId naming the conversation), the flows that belong to the
instance rather than to a conversation -- heartbeats, the STATUS that ends the instance --
travel in a TSHC: the 28-byte TSH whose StructId is "TSHC", without ConvId and RequestId.
That is what IBM's client reads them from: its receive thread (IBM MQ classes for Java,
``com.ibm.mq.jmqi.remote.impl.RemoteRcvThread.run``, MQ 9.3) handles heartbeats, socket
actions and an error STATUS of a multiplexed connection in a TSHC, passes a TSHM flow to
the conversation its ConvId names, ignores one for a conversation it does not know ("Ignored
sync TSH for unknown Hconn": ConvId 0), and drops the connection on a plain TSH ("Invalid
TSH received on multiplexed connection"). A TSHC is laid out as a TSH (packet-mq.c
dissects both alike), so the flow is written as a TSH event without a ConvId and its
StructId set here.
"""

from __future__ import annotations

from mqpy.fap.tsh import STRUCTID_TSH, STRUCTID_TSHC

__all__ = ["connection_level"]


def connection_level(data: bytes) -> bytes:
    """``data`` -- whole segments with a TSH, as ``SegmentWriter`` writes an event without
    a ConvId -- with each segment's StructId TSHC."""
    if data[:4] != STRUCTID_TSH:
        return data
    out = bytearray(data)
    pos = 0
    while pos + 8 <= len(out) and out[pos:pos + 4] == STRUCTID_TSH:
        out[pos:pos + 4] = STRUCTID_TSHC
        length = int.from_bytes(out[pos + 4:pos + 8], "big")
        if length <= 0:
            break
        pos += length
    return bytes(out)
