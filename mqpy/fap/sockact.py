"""SOCKET_ACTION (segment type 0x0C): how the two ends of a shared client channel instance
start and end its conversations, and quiesce, pause or move the instance.

The body is five MQLONGs in the segment's byte order (packet-mq.c dissects ConversationID,
RequestID, Type, Parm1, Parm2 from the first 20 bytes; IBM's Java client, ``rfp.RfpSOCKACT``
of MQ 9.3, writes 20 bytes -- 68 or 116 with a queue manager name and id on
RECONNECT_CLIENTS) after a TSHC (or, for the answer to START_CONV, the TSHM of the new
conversation). The types are IBM's ``rfpSAT_*`` (``RfpSOCKACT.typeStrings``):

- START_CONV (1): the client starts conversation ConversationID on an instance it shares
  (Parm1 its thread, Parm2 its trace id); the queue manager answers ACCEPT_CONV (8) on that
  conversation's TSHM (RequestID 0), or a STATUS with ERROR.
- END_CONV (2): a conversation is over. From the client after its MQDISC (CLOSE_CHANNEL in
  the TSH when it was the instance's last: the client then closes the socket); from the
  queue manager to end one conversation (CONFIRM_REQUEST: the client answers END_CONV).
- STOP_QUIESCE (3), QM_QUIESCE (7), RECONNECT_CLIENTS (9): the queue manager's, to the client.
- PAUSE_DATA_SENDS (4), DATA_SENDS_PAUSED (5), RESUME_DATA_SENDS (6): TLS secret key reset.

This module only builds and parses; the flows travel as ``tsh.OtherSegment``.
"""

from __future__ import annotations

import enum
import struct

import attrs

from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import ControlFlags1, OtherSegment, SegmentType

__all__ = [
    "SOCKACT_LENGTH",
    "SVRCONN_PRODUCT_ID",
    "SocketAction",
    "SocketActionType",
    "build",
    "event",
    "parse",
    "takes_end_conv",
]

SOCKACT_LENGTH = 20  #: ConversationID, RequestID, Type, Parm1, Parm2
#: the longest body IBM writes (RECONNECT_CLIENTS with a queue manager name and id)
_LONGEST = 116
_LAYOUT = {True: struct.Struct("<iiiii"), False: struct.Struct(">iiiii")}

#: The ProductId of a mqpy SVRCONN's INITIAL_DATA since it takes a client's START_CONV and
#: END_CONV; an older mqpy SVRCONN ("MQPY0100") ends the instance on any SOCKET_ACTION.
SVRCONN_PRODUCT_ID = "MQPY0101"
_OLDER_MQPY = "MQPY0100"


class SocketActionType(enum.IntEnum):
    """The Type field (IBM's ``rfpSAT_*``)."""

    START_CONV = 1
    END_CONV = 2
    STOP_QUIESCE = 3
    PAUSE_DATA_SENDS = 4
    DATA_SENDS_PAUSED = 5
    RESUME_DATA_SENDS = 6
    QM_QUIESCE = 7
    ACCEPT_CONV = 8
    RECONNECT_CLIENTS = 9


@attrs.frozen
class SocketAction:
    """A SOCKET_ACTION body. ``type`` stays an int when it is no type IBM names."""

    conv_id: int
    type: SocketActionType | int
    request_id: int = 0
    parm1: int = 0
    parm2: int = 0


def parse(body: bytes, little: bool) -> SocketAction:
    """The body of a SOCKET_ACTION; a short or overlong one is a ProtocolError."""
    if not SOCKACT_LENGTH <= len(body) <= _LONGEST:
        raise ProtocolError(StatusCode.PROTOCOL_LENGTH_ERROR,
                            f"a SOCKET_ACTION of {len(body)} bytes, not {SOCKACT_LENGTH}")
    conv_id, request_id, kind, parm1, parm2 = _LAYOUT[little].unpack_from(body)
    try:
        kind = SocketActionType(kind)
    except ValueError:
        pass
    return SocketAction(conv_id, kind, request_id, parm1, parm2)


def takes_end_conv(product_id: str) -> bool:
    """Whether a queue manager whose INITIAL_DATA says ``product_id`` may be sent END_CONV:
    IBM's (its clients send it), a mqpy SVRCONN from SVRCONN_PRODUCT_ID on."""
    return product_id.strip() != _OLDER_MQPY


def build(action: SocketAction, little: bool) -> bytes:
    """The 20-byte body of ``action`` in the segment's byte order."""
    return _LAYOUT[little].pack(action.conv_id, action.request_id, int(action.type),
                                action.parm1, action.parm2)


def event(action: SocketAction, little: bool, flags: ControlFlags1 = ControlFlags1.NONE,
          **tshm: int) -> OtherSegment:
    """``action`` as a segment event: a TSHM when ``tshm`` gives ConvId and RequestId, else
    an instance flow (a TSHC on a shared instance)."""
    return OtherSegment(segment_type=SegmentType.SOCKET_ACTION, body=build(action, little),
                        flags=flags, **tshm)
