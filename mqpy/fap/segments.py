"""The MQ channel wire format: segment headers, channel structures and protocol events.

This module owns the *bytes layer* of the channel protocol (spec/wire-format.md, whose tables
come from Wireshark's packet-mq.c / packet-mq.h, the de-facto public reference): every
structure that travels between two MCAs, or between a client and a SVRCONN, declared once in
construct with its offsets, plus the immutable events (h11 style) that the channel state
machines consume and produce. It is pure: no sockets, no clocks, no queue manager. Splitting
and reassembling segments over a byte stream lives in ``framing.py``, the arithmetic of the
INITIAL_DATA exchange in ``negotiation.py``.

Byte order. Each segment's TSH carries a byte-order byte (1 = big-endian, 2 = little-endian)
that governs every later integer of that segment, *except* the TSH segment length, the TSHM
ConvId / RequestId and the API header's ReplyLength, which are always big-endian (that is how
packet-mq.c reads them). Every codec here therefore takes the byte order as a parameter.

What mqpy sends: byte order 2 (LE), Encoding 546 (MQENC_NATIVE on x86: integers, packed
decimal and floats all reversed) and CCSID 819 (ISO 8859-1). 819 rather than 1208 because
every string in these headers is restricted to MQ's object-name alphabet (ASCII), 819 is the
classic CCSID of a Unix queue manager that every partner at every FAP level knows, and a
single-byte CCSID means a partner that does convert headers never meets a multi-byte one.
The message data's own CCSID travels untouched in its MQMD.

Never here: message-data conversion, channel states, timers, or anything that knows what a
sequence number *means*.
"""

from __future__ import annotations

import enum
import struct
from typing import Any, ClassVar, TypeVar

import attrs
import construct as cs
from construct import this

from mqpy import CMQC

__all__ = [
    "API_HEADER",
    "API_HEADER_LENGTH",
    "ID",
    "MQCONN_BODY",
    "MSH",
    "MSH_LENGTH",
    "OUR_CCSID",
    "OUR_ENCODING",
    "OUR_FAP_LEVEL",
    "PING",
    "RESET",
    "RESYNC",
    "STATUS",
    "TSH",
    "TSHM_LENGTH",
    "TSH_LENGTH",
    "XQH_WITH_MD_LENGTH",
    "ByteOrder",
    "CapFlags1",
    "CapFlags2",
    "CapFlags3",
    "ControlFlags1",
    "ControlFlags2",
    "Event",
    "Heartbeat",
    "InitErrorFlags1",
    "InitErrorFlags2",
    "InitialData",
    "MessageData",
    "MQIReply",
    "MQIRequest",
    "OtherSegment",
    "Ping",
    "ProtocolError",
    "Reset",
    "Resync",
    "SegmentHeader",
    "SegmentType",
    "Status",
    "StatusCode",
    "decode_body",
    "encode_body",
    "id_length",
    "mq_encoding",
    "message_event",
    "mqi_event",
    "build_message_segment",
    "build_mqi_request",
    "parse_message_segment",
    "parse_segment_header",
    "readdressed_mqi_reply",
    "build_segment_header",
]

# ---------------------------------------------------------------------------------------------
# Sizes and identities
# ---------------------------------------------------------------------------------------------

TSH_LENGTH = 28  #: TSH and TSHC
TSHM_LENGTH = 36  #: TSHM: TSH with ConvId and RequestId at offsets 8 and 12
API_HEADER_LENGTH = 16  #: after the TSH of segment types 0x81-0x9F
MSH_LENGTH = 20  #: message segment header, first segment of MESSAGE_DATA only
XQH_LENGTH = 104  #: MQXQH up to, not including, its embedded MQMD
MQMD_V1_LENGTH = 324
XQH_WITH_MD_LENGTH = XQH_LENGTH + MQMD_V1_LENGTH  #: the whole MQXQH (428)
#: Where the embedded MQMD's Persistence (an MQLONG) sits in the MQXQH
MD_PERSISTENCE_AT = XQH_LENGTH + 44

STRUCTID_TSH = b"TSH "
STRUCTID_TSHC = b"TSHC"
STRUCTID_TSHM = b"TSHM"
STRUCTID_ID = b"ID  "
STRUCTID_MSH = b"MSH "
STRUCTID_XQH = b"XQH "
STRUCTID_MD = b"MD  "
#: Struct ids a segment may start with; EBCDIC TSHs (0xE3E2C840) are not spoken by mqpy.
SEGMENT_STRUCTIDS = (STRUCTID_TSH, STRUCTID_TSHC, STRUCTID_TSHM)

OUR_ENCODING = CMQC.MQENC_NATIVE  #: 546, see module docstring
OUR_CCSID = 819  #: ISO 8859-1, see module docstring
OUR_FAP_LEVEL = 10  #: highest FAP level we propose; its ID is the 208-byte form


class ByteOrder(enum.IntEnum):
    """TSH byte 8+MPF: the order of every later integer in the segment."""

    BIG = 1
    LITTLE = 2


class SegmentType(enum.IntEnum):
    """TSH byte 9+MPF (``MQ_TST_*`` in packet-mq.h)."""

    INITIAL_DATA = 0x01
    RESYNC_DATA = 0x02
    RESET_DATA = 0x03
    MESSAGE_DATA = 0x04
    STATUS_DATA = 0x05
    SECURITY_DATA = 0x06
    PING_DATA = 0x07
    USERID_DATA = 0x08
    HEARTBEAT = 0x09
    CONAUTH_INFO = 0x0A
    RENEGOTIATE_DATA = 0x0B
    SOCKET_ACTION = 0x0C
    ASYNC_MESSAGE = 0x0D
    REQUEST_MSGS = 0x0E
    NOTIFICATION = 0x0F
    MQCONN = 0x81
    MQDISC = 0x82
    MQOPEN = 0x83
    MQCLOSE = 0x84
    MQGET = 0x85
    MQPUT = 0x86
    MQPUT1 = 0x87
    MQSET = 0x88
    MQINQ = 0x89
    MQCMIT = 0x8A
    MQBACK = 0x8B
    SPI = 0x8C
    MQSTAT = 0x8D
    MQSUB = 0x8E
    MQSUBRQ = 0x8F
    MQCONN_REPLY = 0x91
    MQDISC_REPLY = 0x92
    MQOPEN_REPLY = 0x93
    MQCLOSE_REPLY = 0x94
    MQGET_REPLY = 0x95
    MQPUT_REPLY = 0x96
    MQPUT1_REPLY = 0x97
    MQSET_REPLY = 0x98
    MQINQ_REPLY = 0x99
    MQCMIT_REPLY = 0x9A
    MQBACK_REPLY = 0x9B
    SPI_REPLY = 0x9C
    MQSTAT_REPLY = 0x9D
    MQSUB_REPLY = 0x9E
    MQSUBRQ_REPLY = 0x9F
    XA_START = 0xA1
    XA_END = 0xA2
    XA_OPEN = 0xA3
    XA_CLOSE = 0xA4
    XA_PREPARE = 0xA5
    XA_COMMIT = 0xA6
    XA_ROLLBACK = 0xA7
    XA_FORGET = 0xA8
    XA_RECOVER = 0xA9
    XA_COMPLETE = 0xAA
    XA_START_REPLY = 0xB1
    XA_END_REPLY = 0xB2
    XA_OPEN_REPLY = 0xB3
    XA_CLOSE_REPLY = 0xB4
    XA_PREPARE_REPLY = 0xB5
    XA_COMMIT_REPLY = 0xB6
    XA_ROLLBACK_REPLY = 0xB7
    XA_FORGET_REPLY = 0xB8
    XA_RECOVER_REPLY = 0xB9
    XA_COMPLETE_REPLY = 0xBA

    @property
    def has_api_header(self) -> bool:
        """MQI verbs and their replies carry the 16-byte API header after the TSH."""
        return 0x81 <= self <= 0x9F

    @property
    def may_span_segments(self) -> bool:
        """packet-mq.c: types below 0x80 "never span several TSH"; MESSAGE_DATA does (seed 000)."""
        return self == SegmentType.MESSAGE_DATA or self >= 0x80


class ControlFlags1(enum.IntFlag):
    """TSH byte 10+MPF (``MQ_TCF_*``)."""

    NONE = 0
    CONFIRM_REQUEST = 0x01
    ERROR = 0x02
    REQUEST_CLOSE = 0x04
    CLOSE_CHANNEL = 0x08
    FIRST = 0x10
    LAST = 0x20
    REQUEST_ACCEPTED = 0x40
    DLQ_USED = 0x80


#: The framing bits: set by the writer, consumed by the reader, never seen in an event.
FIRST_LAST = ControlFlags1.FIRST | ControlFlags1.LAST


class ControlFlags2(enum.IntFlag):
    """TSH byte 11+MPF (``MQ_TCF2_*``)."""

    NONE = 0
    HDR_COMP = 0x01
    MSG_COMP = 0x02
    CSH = 0x04
    CMIT_INTERVAL = 0x08


#: Every value of a TSH flags byte as its flag object, and as an event's flags (without
#: FIRST / LAST): building an IntFlag costs microseconds, and every segment has two.
FLAGS1 = tuple(ControlFlags1(i) for i in range(256))
FLAGS2 = tuple(ControlFlags2(i) for i in range(256))
_EVENT_FLAGS1 = tuple(ControlFlags1(i & ~FIRST_LAST) for i in range(256))


class CapFlags1(enum.IntFlag):
    """ID byte 5 (and EchoedCapFlags1 at 6): ``MQ_ICF1_*``."""

    NONE = 0
    MSG_SEQ = 0x01
    CONVERSION_CAPABLE = 0x02
    SPLIT_MESSAGE = 0x04
    REQUEST_INITIATION = 0x08
    REQUEST_SECURITY = 0x10
    MQREQUEST = 0x20
    SVRCONN_SECURITY = 0x40
    RUNTIME = 0x80


class CapFlags2(enum.IntFlag):
    """ID byte 44 (and EchoedCapFlags2 at 45): ``MQ_ICF2_*``."""

    NONE = 0
    DIST_LIST_CAPABLE = 0x01
    FAST_MESSAGES_REQUIRED = 0x02
    RESPONDER_CONVERSION = 0x04
    DUAL_UOW = 0x08
    XAREQUEST = 0x10
    XARUNTIME_APP = 0x20
    SPIREQUEST = 0x40
    TRACE_ROUTE_CAPABLE = 0x80


class CapFlags3(enum.IntFlag):
    """ID byte 132 (and EchoedCapFlags3 at 133); names from tshark's ``mq.id.ief3.*`` fields."""

    NONE = 0
    MSG_PROPERTY_CAPABLE = 0x01
    MULTICAST_CAPABLE = 0x02
    PROP_INT_SEPARATE = 0x04
    MULTIPLEX_SYNCGET = 0x08
    PROT_ALGORITHMS = 0x10
    GEN_CONNTAG_CAPABLE = 0x20


class InitErrorFlags1(enum.IntFlag):
    """ID byte 7: the values of the partner's proposal that this end rejects (``MQ_IEF1_*``)."""

    NONE = 0
    CCSID = 0x01
    ENCODING = 0x02
    MAX_TRANSMISSION_SIZE = 0x04
    FAP_LEVEL = 0x08
    MAX_MSG_SIZE = 0x10
    MAX_MSG_PER_BATCH = 0x20
    SEQ_WRAP_VALUE = 0x40
    HEARTBEAT_INTERVAL = 0x80


class InitErrorFlags2(enum.IntFlag):
    """ID byte 102 (``MQ_IEF2_*``)."""

    NONE = 0
    HDRCOMPLIST = 0x01
    MSGCOMPLIST = 0x02
    SSL_RESET = 0x04


class StatusCode(enum.IntEnum):
    """STATUS_DATA codes (``MQ_STATUS_ERR_*`` in packet-mq.h)."""

    NO_CHANNEL = 0x01
    CHANNEL_WRONG_TYPE = 0x02
    QM_UNAVAILABLE = 0x03
    MSG_SEQUENCE_ERROR = 0x04
    QM_TERMINATING = 0x05
    CAN_NOT_STORE = 0x06
    USER_CLOSED = 0x07
    TIMEOUT_EXPIRED = 0x08
    TARGET_Q_UNKNOWN = 0x09
    PROTOCOL_SEGMENT_TYPE = 0x0A
    PROTOCOL_LENGTH_ERROR = 0x0B
    PROTOCOL_INVALID_DATA = 0x0C
    PROTOCOL_SEGMENT_ERROR = 0x0D
    PROTOCOL_ID_ERROR = 0x0E
    PROTOCOL_MSH_ERROR = 0x0F
    PROTOCOL_GENERAL = 0x10
    BATCH_FAILURE = 0x11
    MESSAGE_LENGTH_ERROR = 0x12
    SEGMENT_NUMBER_ERROR = 0x13
    SECURITY_FAILURE = 0x14
    WRAP_VALUE_ERROR = 0x15
    CHANNEL_UNAVAILABLE = 0x16
    CLOSED_BY_EXIT = 0x17
    CIPHER_SPEC = 0x18
    PEER_NAME = 0x19
    SSL_CLIENT_CERTIFICATE = 0x1A
    RMT_RSRCS_IN_RECOVERY = 0x1B
    SSL_REFRESHING = 0x1C
    INVALID_HOBJ = 0x1D
    CONV_ID_ERROR = 0x1E
    SOCKET_ACTION_TYPE = 0x1F
    STANDBY_Q_MGR = 0x20
    CCSID_NOT_SUPPORTED = 0xF0
    ENCODING_INVALID = 0xF1
    FAP_LEVEL = 0xF2
    NEGOTIATION_FAILED = 0xF3


class ProtocolError(Exception):
    """The partner broke the wire protocol; the channel sends STATUS ``status_code`` and ends.

    ``status_code`` is the ``MQ_STATUS_ERR_*`` value that names the fault on the wire, so the
    channel code can answer with a STATUS segment without translating anything.
    """

    def __init__(self, status_code: StatusCode, text: str) -> None:
        super().__init__(status_code, text)
        self.status_code = StatusCode(status_code)
        self.text = text

    def __str__(self) -> str:
        return f"{self.status_code.name}: {self.text}"


# ---------------------------------------------------------------------------------------------
# construct building blocks
# ---------------------------------------------------------------------------------------------


# Bodies are built/parsed with ``little=...``: the byte order of the segment's TSH. Written as
# construct expressions, not functions, so that the declarations compile (see _compiled).
_BODY_IS_LE = this._params.little
U16 = cs.BytesInteger(2, signed=False, swapped=_BODY_IS_LE)
U32 = cs.BytesInteger(4, signed=False, swapped=_BODY_IS_LE)
S32 = cs.BytesInteger(4, signed=True, swapped=_BODY_IS_LE)


class _Flags(cs.Adapter):
    """One byte of named bits, surfaced as the IntFlag that names them."""

    def __init__(self, flag_type: type[enum.IntFlag]) -> None:
        super().__init__(cs.Int8ub)
        self.flag_type = flag_type

    def _decode(self, obj: int, context: Any, path: str) -> enum.IntFlag:
        return self.flag_type(obj)

    def _encode(self, obj: int, context: Any, path: str) -> int:
        return int(obj)


class _Name(cs.Adapter):
    """A fixed-width MQ name: blank padded on the wire, stripped in Python (ISO 8859-1)."""

    def __init__(self, length: int) -> None:
        super().__init__(cs.Bytes(length))
        self.length = length

    def _decode(self, obj: bytes, context: Any, path: str) -> str:
        return obj.rstrip(b" \x00").decode("latin-1")

    def _encode(self, obj: str, context: Any, path: str) -> bytes:
        raw = obj.encode("latin-1")
        if len(raw) > self.length:
            raise cs.ValidationError(f"{obj!r} is longer than {self.length}", path=path)
        return raw.ljust(self.length, b" ")


def _from_fap(level: int, subcon: cs.Construct) -> cs.Construct:
    """An ID field present only from FAP level ``level`` upwards."""
    return cs.If(this.FapLevel >= level, subcon)


# ---------------------------------------------------------------------------------------------
# Declarations (offsets as in spec/wire-format.md; MPF = 8 for TSHM, else 0)
# ---------------------------------------------------------------------------------------------

#: TSH / TSHC (28 bytes) and TSHM (36 bytes), one declaration.
TSH = cs.Struct(
    "StructId" / cs.Bytes(4),  # 0   "TSH " / "TSHC" / "TSHM"
    "SegmentLength" / cs.Int32ub,  # 4   always BE, includes this header
    "ConvId" / cs.If(this.StructId == STRUCTID_TSHM, cs.Int32ub),  # 8   TSHM only, BE
    "RequestId" / cs.If(this.StructId == STRUCTID_TSHM, cs.Int32ub),  # 12  TSHM only, BE
    "ByteOrder" / cs.Int8ub,  # 8+MPF   1 = BE, 2 = LE
    "SegmentType" / cs.Int8ub,  # 9+MPF
    "ControlFlags1" / _Flags(ControlFlags1),  # 10+MPF
    "ControlFlags2" / _Flags(ControlFlags2),  # 11+MPF
    "LUWId" / cs.Bytes(8),  # 12+MPF
    # inside the TSH the byte-order byte precedes the integers it governs
    "Encoding" / cs.BytesInteger(4, swapped=this.ByteOrder == ByteOrder.LITTLE),  # 20+MPF
    "CCSID" / cs.BytesInteger(2, swapped=this.ByteOrder == ByteOrder.LITTLE),  # 24+MPF
    "Reserved" / cs.Bytes(2),  # 26+MPF
)

#: The API header after the TSH of segment types 0x81-0x9F (16 bytes).
API_HEADER = cs.Struct(
    "ReplyLength" / cs.Int32ub,  # 0   always BE
    "CompCode" / S32,  # 4
    "Reason" / S32,  # 8
    "ObjectHandle" / U32,  # 12
)

#: INITIAL_DATA: 44 bytes below FAP 4, 102 below 9, 208 below 11, else 240.
ID = cs.Struct(
    "StructId" / cs.Const(STRUCTID_ID),  # 0
    "FapLevel" / cs.Int8ub,  # 4
    "CapFlags1" / _Flags(CapFlags1),  # 5
    "EchoedCapFlags1" / _Flags(CapFlags1),  # 6
    "InitErrorFlags1" / _Flags(InitErrorFlags1),  # 7
    "Reserved" / cs.Bytes(2),  # 8
    "MaxMsgBatch" / U16,  # 10
    "MaxTransmissionSize" / U32,  # 12
    "MaxMsgSize" / U32,  # 16
    "SeqWrapValue" / U32,  # 20
    "ChannelName" / _Name(20),  # 24
    # -- 44: FAP level 4 and later
    "CapFlags2" / _from_fap(4, _Flags(CapFlags2)),  # 44
    "EchoedCapFlags2" / _from_fap(4, _Flags(CapFlags2)),  # 45
    "CCSID" / _from_fap(4, U16),  # 46
    "QMgrName" / _from_fap(4, _Name(48)),  # 48
    "HeartbeatInterval" / _from_fap(4, U32),  # 96
    "EFLLength" / _from_fap(4, U16),  # 100
    # -- 102: FAP level 9 and later
    "InitErrorFlags2" / _from_fap(9, _Flags(InitErrorFlags2)),  # 102
    "Reserved1" / _from_fap(9, cs.Bytes(1)),  # 103
    "HdrCompList" / _from_fap(9, cs.Bytes(2)),  # 104
    "MsgCompList" / _from_fap(9, cs.Bytes(16)),  # 106
    "Reserved2" / _from_fap(9, cs.Bytes(2)),  # 122
    "SSLKeyReset" / _from_fap(9, U32),  # 124
    "ConvPerSocket" / _from_fap(9, U32),  # 128
    "CapFlags3" / _from_fap(9, _Flags(CapFlags3)),  # 132
    "EchoedCapFlags3" / _from_fap(9, _Flags(CapFlags3)),  # 133
    "Reserved3" / _from_fap(9, cs.Bytes(2)),  # 134
    "ProcessId" / _from_fap(9, U32),  # 136
    "ThreadId" / _from_fap(9, U32),  # 140
    "TraceId" / _from_fap(9, U32),  # 144
    "ProductId" / _from_fap(9, _Name(12)),  # 148
    "MQMId" / _from_fap(9, _Name(48)),  # 160
    # -- 208: FAP level 11 and later (tshark's mq.id.pal and mq.id.r; meaning unpublished)
    "Pal" / _from_fap(11, cs.Bytes(20)),  # 208
    "Reserved4" / _from_fap(11, cs.Bytes(12)),  # 228
)  # 240

#: Message segment header: first segment of MESSAGE_DATA (20 bytes).
MSH = cs.Struct(
    "StructId" / cs.Const(STRUCTID_MSH),  # 0
    "SeqNum" / U32,  # 4   channel sequence number of this message
    "DataLength" / U32,  # 8   tshark "Buf len."; mqpy writes the transmission-message length
    "Unknown1" / U32,  # 12  meaning unpublished; mqpy writes 0
    "MsgLength" / U32,  # 16  length of XQH + MD + data (the payload after the MSH)
)

#: STATUS_DATA body: Length is 8 (no value) or 12.
STATUS = cs.Struct(
    "Length" / U32,  # 0
    "Code" / U32,  # 4
    "Value" / cs.If(this.Length >= 12, U32),  # 8
)

#: RESET_DATA body (8 bytes).
RESET = cs.Struct(
    "Length" / U32,  # 0
    "SeqNum" / U32,  # 4
)

#: RESYNC_DATA body. Wireshark does not dissect it; mqpy uses RESET's shape and carries the
#: in-doubt batch's LUW id in the TSH's LUWId field, where every segment already has room.
RESYNC = RESET

# The layouts every message crosses, compiled by construct into Python source: the same
# declarations (above, the one definition), parsed and built several times faster.
_STATUS_FAST = STATUS.compile()
_RESET_FAST = RESET.compile()

#: PING_DATA body: Length counts itself and the buffer that the partner echoes back.
PING = cs.Struct(
    "Length" / U32,  # 0
    "Buffer" / cs.Bytes(lambda ctx: max(ctx.Length - 4, 0)),  # 4
)

#: MQCONN / MQCONN_REPLY body at FAP <= 6 (120 bytes, no struct id). Longer forms (260 at
#: FAP 7-11, 332 at 12-13, 460 at 14) append an FCNO structure that mqpy does not model yet.
MQCONN_BODY = cs.Struct(
    "QMgrName" / _Name(48),  # 0
    "ApplName" / _Name(28),  # 48
    "ApplType" / S32,  # 76
    "AccountingToken" / cs.Bytes(32),  # 80
    "Options" / U32,  # 112
    "XOptions" / U32,  # 116
)  # 120


def id_length(fap_level: int) -> int:
    """Size of the ID structure at ``fap_level`` (packet-mq.c ``dissect_mq_id``)."""
    if fap_level < 4:
        return 44
    if fap_level < 9:
        return 102
    if fap_level < 11:
        return 208
    return 240


# ---------------------------------------------------------------------------------------------
# Segment header
# ---------------------------------------------------------------------------------------------

_NO_LUW = bytes(8)
_BYTE_ORDERS = {int(o): o for o in ByteOrder}
#: Segment types by number (an IntEnum call costs more than the lookup).
SEGMENT_TYPES = {int(t): t for t in SegmentType}


class _Headers:
    """TSH/TSHM and the API header with ``struct``: every segment of every MQI call crosses
    them, and construct, even compiled, costs several times more. The layouts are TSH and
    API_HEADER above, field for field (tests/wire/test_structures.py holds the two to the
    same bytes). Each mixes byte orders -- the TSH is big-endian up to LUWId and in its own
    byte order after; ReplyLength is big-endian, the rest of the API header is not -- so
    each is a big-endian head and a tail in the segment's byte order."""

    TSH_HEAD = struct.Struct(">4sIBBBB8s")
    TSHM_HEAD = struct.Struct(">4sIIIBBBB8s")
    TSH_TAIL = {ByteOrder.LITTLE: struct.Struct("<IH2s"), ByteOrder.BIG: struct.Struct(">IH2s")}
    API_TAIL = {ByteOrder.LITTLE: struct.Struct("<iiI"), ByteOrder.BIG: struct.Struct(">iiI")}
    #: MSH, every message of a channel: StructId, SeqNum, DataLength, Unknown1, MsgLength
    MSH = {ByteOrder.LITTLE: struct.Struct("<4sIIII"), ByteOrder.BIG: struct.Struct(">4sIIII")}


@attrs.frozen
class SegmentHeader:
    """A decoded TSH/TSHC/TSHM. ``conv_id`` is None unless the struct id is TSHM."""

    struct_id: bytes
    segment_length: int
    byte_order: ByteOrder
    segment_type: int
    flags1: ControlFlags1
    flags2: ControlFlags2
    luwid: bytes
    encoding: int
    ccsid: int
    conv_id: int | None = None
    request_id: int | None = None

    @property
    def header_length(self) -> int:
        return TSHM_LENGTH if self.struct_id == STRUCTID_TSHM else TSH_LENGTH


def parse_segment_header(data: bytes) -> SegmentHeader:
    """Decode the TSH at the start of ``data``; only header faults raise ``ProtocolError``.

    The segment length is *not* compared with a negotiated maximum here (the reader does it,
    it knows the maximum); it is only checked to be at least the header length.
    """
    if len(data) < 8:
        raise ProtocolError(StatusCode.PROTOCOL_LENGTH_ERROR, "segment shorter than 8 bytes")
    struct_id = bytes(data[0:4])
    if struct_id not in SEGMENT_STRUCTIDS:
        raise ProtocolError(
            StatusCode.PROTOCOL_SEGMENT_ERROR, f"segment starts with {struct_id!r}, not a TSH"
        )
    header_length = TSHM_LENGTH if struct_id == STRUCTID_TSHM else TSH_LENGTH
    if len(data) < header_length:
        raise ProtocolError(
            StatusCode.PROTOCOL_LENGTH_ERROR, f"{struct_id.decode()} needs {header_length} bytes"
        )
    tshm = header_length == TSHM_LENGTH
    byte_order = data[header_length - 20]
    if byte_order not in (ByteOrder.BIG, ByteOrder.LITTLE):
        raise ProtocolError(
            StatusCode.PROTOCOL_INVALID_DATA, f"byte order {byte_order} is neither 1 nor 2"
        )
    order = _BYTE_ORDERS[byte_order]
    if tshm:
        (_, length, conv_id, request_id, _, segment_type, flags1, flags2,
         luwid) = _Headers.TSHM_HEAD.unpack_from(data)
    else:
        _, length, _, segment_type, flags1, flags2, luwid = _Headers.TSH_HEAD.unpack_from(data)
        conv_id = request_id = None
    encoding, ccsid, _ = _Headers.TSH_TAIL[order].unpack_from(data, header_length - 8)
    if length < header_length:
        raise ProtocolError(
            StatusCode.PROTOCOL_LENGTH_ERROR,
            f"segment length {length} is below the {header_length}-byte header",
        )
    return SegmentHeader(
        struct_id=struct_id,
        segment_length=length,
        byte_order=order,
        segment_type=segment_type,
        flags1=FLAGS1[flags1],
        flags2=FLAGS2[flags2],
        luwid=luwid,
        encoding=encoding,
        ccsid=ccsid,
        conv_id=conv_id,
        request_id=request_id,
    )


def build_segment_header(
    segment_type: int,
    segment_length: int,
    *,
    flags1: ControlFlags1 = ControlFlags1.NONE,
    flags2: ControlFlags2 = ControlFlags2.NONE,
    luwid: bytes = _NO_LUW,
    byte_order: ByteOrder = ByteOrder.LITTLE,
    encoding: int = OUR_ENCODING,
    ccsid: int = OUR_CCSID,
    conv_id: int | None = None,
    request_id: int | None = None,
) -> bytes:
    """Encode a TSH (or a TSHM when ``conv_id`` is given); ``segment_length`` includes it."""
    order = _BYTE_ORDERS.get(byte_order) or ByteOrder(byte_order)
    if conv_id is None:
        head = _Headers.TSH_HEAD.pack(STRUCTID_TSH, segment_length, order, segment_type,
                                      flags1, flags2, luwid)
    else:
        head = _Headers.TSHM_HEAD.pack(STRUCTID_TSHM, segment_length, conv_id, request_id or 0,
                                       order, segment_type, flags1, flags2, luwid)
    return head + _Headers.TSH_TAIL[order].pack(encoding, ccsid, b"\0\0")


# ---------------------------------------------------------------------------------------------
# Events
# ---------------------------------------------------------------------------------------------


def _luwid(value: bytes) -> bytes:
    if type(value) is not bytes:
        value = bytes(value)
    if len(value) != 8:
        raise ValueError(f"a LUW id is 8 bytes, not {len(value)}")
    return value


def _control_flags(value: int) -> ControlFlags1:
    if type(value) in (int, ControlFlags1) and 0 <= value <= 0xFF:
        return _EVENT_FLAGS1[value]
    return ControlFlags1(value) & ~FIRST_LAST


@attrs.frozen(kw_only=True)
class Event:
    """Fields every segment carries in its TSH.

    ``flags`` never shows FIRST or LAST: those are framing, owned by ``framing.py``; CONFIRM
    REQUEST, REQUEST_CLOSE, CLOSE_CHANNEL, ERROR ... are how the channel protocol asks for a
    batch confirmation or a close, so they are part of the event. ``conv_id`` / ``request_id``
    select a TSHM (shared-conversation client flows); None means a plain TSH.
    """

    flags: ControlFlags1 = attrs.field(default=ControlFlags1.NONE, converter=_control_flags)
    luwid: bytes = attrs.field(default=_NO_LUW, converter=_luwid)
    conv_id: int | None = None
    request_id: int | None = None

    segment_type: ClassVar[SegmentType]  # a class constant, except on MQI and Other events


@attrs.frozen(kw_only=True)
class InitialData(Event):
    """INITIAL_DATA: one end's proposal (or, with InitErrorFlags1, its counter-proposal).

    Fields beyond the ID size of ``fap_level`` are not sent and come back as their defaults.
    """

    segment_type = SegmentType.INITIAL_DATA

    fap_level: int
    channel_name: str
    cap_flags1: CapFlags1 = CapFlags1.NONE
    echoed_cap_flags1: CapFlags1 = CapFlags1.NONE
    init_error_flags1: InitErrorFlags1 = InitErrorFlags1.NONE
    max_msg_batch: int = 50
    max_transmission_size: int = 32766
    max_msg_size: int = 4194304
    seq_wrap_value: int = 999999999
    # FAP >= 4
    cap_flags2: CapFlags2 = CapFlags2.NONE
    echoed_cap_flags2: CapFlags2 = CapFlags2.NONE
    ccsid: int = OUR_CCSID
    qmgr_name: str = ""
    heartbeat_interval: int = 300
    efl_length: int = 0
    # FAP >= 9
    init_error_flags2: InitErrorFlags2 = InitErrorFlags2.NONE
    hdr_comp_list: bytes = bytes(2)
    msg_comp_list: bytes = bytes(16)
    ssl_key_reset: int = 0
    conv_per_socket: int = 0
    cap_flags3: CapFlags3 = CapFlags3.NONE
    echoed_cap_flags3: CapFlags3 = CapFlags3.NONE
    process_id: int = 0
    thread_id: int = 0
    trace_id: int = 0
    product_id: str = ""
    mqm_id: str = ""
    # FAP >= 11
    pal: bytes = bytes(20)


@attrs.frozen(kw_only=True)
class MessageData(Event):
    """MESSAGE_DATA: one transmission-queue message, however many segments carried it.

    ``xqh`` is the whole MQXQH (104 bytes + the embedded MQMD v1: 428 bytes) exactly as on
    the wire, its integers in ``byte_order``; ``data`` is the application data. Kept as bytes
    so the event stays immutable and a relayed message is forwarded bit for bit;
    ``transmission_header`` and ``md`` decode it with ``mqpy.structures`` (which owns MQXQH
    and MQMD), ``from_xqh`` builds an event from an ``XQH``.
    """

    segment_type = SegmentType.MESSAGE_DATA

    seqnum: int
    xqh: bytes = attrs.field(converter=bytes)
    data: bytes = attrs.field(default=b"", converter=bytes)
    byte_order: ByteOrder = attrs.field(default=ByteOrder.LITTLE, converter=ByteOrder)

    @xqh.validator
    def _check_xqh(self, attribute: Any, value: bytes) -> None:
        if len(value) != XQH_WITH_MD_LENGTH:
            raise ValueError(f"an MQXQH is {XQH_WITH_MD_LENGTH} bytes, not {len(value)}")

    @classmethod
    def from_xqh(
        cls,
        seqnum: int,
        xqh: Any,
        data: bytes = b"",
        *,
        byte_order: ByteOrder = ByteOrder.LITTLE,
        **common: Any,
    ) -> MessageData:
        """Pack ``xqh`` (a ``mqpy.structures.XQH``) in ``byte_order`` into an event."""
        return cls(
            seqnum=seqnum,
            xqh=xqh.pack(mq_encoding(byte_order)),
            data=data,
            byte_order=byte_order,
            **common,
        )

    @property
    def transmission_header(self) -> Any:
        """A fresh ``mqpy.structures.XQH`` decoded from ``xqh`` (MsgDesc is its MQMD)."""
        from mqpy import structures  # the MQI structures' owner; imported when needed

        return structures.XQH.from_bytes(self.xqh, mq_encoding(self.byte_order))

    @property
    def md(self) -> Any:
        """The message's own MQMD (v1), the one embedded in the MQXQH."""
        return self.transmission_header.MsgDesc

    @property
    def persistent(self) -> bool:
        """Is the message persistent? Read in place, without decoding the MQXQH (a receiving
        MCA asks it of every arrival): its Persistence's bytes are MQPER_PERSISTENT's."""
        return self.xqh[MD_PERSISTENCE_AT:MD_PERSISTENCE_AT + 4] == _PERSISTENT[
            self.byte_order]

    def in_byte_order(self, byte_order: ByteOrder) -> MessageData:
        """The same message with its MQXQH integers re-packed in ``byte_order``."""
        if byte_order == self.byte_order:
            return self
        return attrs.evolve(
            self,
            xqh=self.transmission_header.pack(mq_encoding(byte_order)),
            byte_order=byte_order,
        )


#: MQPER_PERSISTENT as an MQMD's Persistence holds it, by byte order
_PERSISTENT = {order: CMQC.MQPER_PERSISTENT.to_bytes(
    4, "little" if order == ByteOrder.LITTLE else "big", signed=True) for order in ByteOrder}


def mq_encoding(byte_order: ByteOrder) -> int:
    """The MQENC_* integer encoding that ``mqpy.structures`` packs in ``byte_order``."""
    if byte_order == ByteOrder.BIG:
        return CMQC.MQENC_INTEGER_NORMAL
    return CMQC.MQENC_INTEGER_REVERSED


def _status_code(value: int) -> StatusCode | int:
    """Known codes become StatusCode; an unknown one is still a well-formed STATUS."""
    try:
        return StatusCode(value)
    except ValueError:
        return int(value)


@attrs.frozen(kw_only=True)
class Status(Event):
    """STATUS_DATA: ``code`` 0 answers a confirm request; others report an error."""

    segment_type = SegmentType.STATUS_DATA

    code: StatusCode | int = attrs.field(converter=_status_code)
    value: int | None = None


@attrs.frozen(kw_only=True)
class Heartbeat(Event):
    """HEARTBEAT: a bare TSH. packet-mq.c dissects no body for type 0x09; any bytes a partner
    adds are kept in ``data``. mqpy marks a heartbeat that wants an answer with
    CONFIRM_REQUEST in ``flags`` and answers without it.
    """

    segment_type = SegmentType.HEARTBEAT

    data: bytes = b""


@attrs.frozen(kw_only=True)
class Reset(Event):
    """RESET_DATA: the partner's next message sequence number is ``seqnum`` + 1."""

    segment_type = SegmentType.RESET_DATA

    seqnum: int


@attrs.frozen(kw_only=True)
class Resync(Event):
    """RESYNC_DATA: an in-doubt sender's last sequence number; its LUW id is ``luwid``."""

    segment_type = SegmentType.RESYNC_DATA

    seqnum: int


@attrs.frozen(kw_only=True)
class Ping(Event):
    """PING_DATA: ``data`` goes to the partner and must come back unchanged."""

    segment_type = SegmentType.PING_DATA

    data: bytes = b""


def _mqi_type(low: int, high: int) -> Any:
    def convert(value: int) -> SegmentType:
        segment_type = value if type(value) is SegmentType else SegmentType(value)
        if not low <= segment_type <= high:
            raise ValueError(f"{segment_type.name} is not in 0x{low:02X}-0x{high:02X}")
        return segment_type

    return convert


@attrs.frozen(kw_only=True)
class MQIRequest(Event):
    """A client's MQI verb (0x81-0x8F): the API header then an opaque, verb-specific body."""

    segment_type: SegmentType = attrs.field(converter=_mqi_type(0x81, 0x8F))
    comp: int = 0
    reason: int = 0
    hobj: int = 0
    body: bytes = b""
    reply_length: int | None = None  #: None: the writer puts the flow's total length


@attrs.frozen(kw_only=True)
class MQIReply(Event):
    """The reply to an MQI verb (0x91-0x9F) with MQCC / MQRC in the API header."""

    segment_type: SegmentType = attrs.field(converter=_mqi_type(0x91, 0x9F))
    comp: int = 0
    reason: int = 0
    hobj: int = 0
    body: bytes = b""
    reply_length: int | None = None


@attrs.frozen(kw_only=True)
class OtherSegment(Event):
    """A segment type mqpy knows by name but does not model (SECURITY_DATA, XA flows ...)."""

    segment_type: SegmentType = attrs.field(converter=SegmentType)
    body: bytes = b""


# ---------------------------------------------------------------------------------------------
# One-segment MQI flows: the fast path of every MQI call and reply
# ---------------------------------------------------------------------------------------------

_FIRST_LAST = int(FIRST_LAST)
_MQI = TypeVar("_MQI", MQIRequest, MQIReply)
#: (segment type, event class) of the MQI verbs and replies, by segment type number.
_MQI_KINDS = {int(t): (t, MQIRequest if t < 0x90 else MQIReply)
              for t in SegmentType if t.has_api_header}


_new = object.__new__
_set = object.__setattr__


def mqi_event(cls: type[_MQI], flags: ControlFlags1, luwid: bytes, conv_id: int | None,
              request_id: int | None, segment_type: SegmentType, comp: int, reason: int,
              hobj: int, body: bytes, reply_length: int | None) -> _MQI:
    """An MQIRequest / MQIReply from fields already in the form its converters give (flags
    a ``ControlFlags1`` without FIRST or LAST, an 8-byte ``luwid``, a ``SegmentType`` of the
    class's range): the event its constructor would make, without calling the converters
    again -- four events go through the channel initiator for every relayed MQI call.
    (tests/wire/test_mqi_fast_path.py holds these events to the constructor's, field by
    field and type by type.)"""
    event = _new(cls)
    _set(event, "flags", flags)
    _set(event, "luwid", luwid)
    _set(event, "conv_id", conv_id)
    _set(event, "request_id", request_id)
    _set(event, "segment_type", segment_type)
    _set(event, "comp", comp)
    _set(event, "reason", reason)
    _set(event, "hobj", hobj)
    _set(event, "body", body)
    _set(event, "reply_length", reply_length)
    return event


def parse_mqi_segment(data: bytes, pos: int, limit: int) -> tuple[Any, ...] | None:
    """The whole one-segment MQI flow (TSH or TSHM, FIRST and LAST) at ``data[pos:]``:
    ``(event, segment length, byte order, encoding, ccsid)``, decoded from the fixed layouts
    in one go -- or None for anything else (another segment type, part of a split flow, a
    segment not all there, or not valid), which ``parse_segment_header`` and
    ``decode_body`` then take, with their errors. What it accepts, they decode alike
    (tests/wire/test_framing.py holds the two to the same events)."""
    avail = len(data) - pos
    if avail < TSH_LENGTH + API_HEADER_LENGTH:
        return None
    struct_id = data[pos:pos + 4]
    if struct_id == STRUCTID_TSH:
        _, length, order, segment_type, flags1, _, luwid = \
            _Headers.TSH_HEAD.unpack_from(data, pos)
        conv_id = request_id = None
        header_length = TSH_LENGTH
    elif struct_id == STRUCTID_TSHM:
        if avail < TSHM_LENGTH + API_HEADER_LENGTH:
            return None
        (_, length, conv_id, request_id, order, segment_type, flags1, _,
         luwid) = _Headers.TSHM_HEAD.unpack_from(data, pos)
        header_length = TSHM_LENGTH
    else:
        return None
    kind = _MQI_KINDS.get(segment_type)
    byte_order = _BYTE_ORDERS.get(order)
    if (kind is None or byte_order is None or flags1 & _FIRST_LAST != _FIRST_LAST
            or not header_length + API_HEADER_LENGTH <= length <= min(avail, limit)):
        return None
    encoding, ccsid, _ = _Headers.TSH_TAIL[byte_order].unpack_from(data, pos + header_length - 8)
    at = pos + header_length
    comp, reason, hobj = _Headers.API_TAIL[byte_order].unpack_from(data, at + 4)
    segment_type, cls = kind
    # flags1 is a byte and luwid 8 bytes off the struct: what the converters would give
    event = mqi_event(cls, _EVENT_FLAGS1[flags1], luwid, conv_id, request_id, segment_type,
                      comp, reason, hobj, body=data[at + API_HEADER_LENGTH:pos + length],
                      reply_length=int.from_bytes(data[at:at + 4], "big"))
    return event, length, byte_order, encoding, ccsid


def build_mqi_reply(segment_type: int, comp: int, reason: int, hobj: int,
                    body: tuple[bytes, ...], byte_order: ByteOrder, encoding: int, ccsid: int,
                    flags2: int, conv_id: int | None, request_id: int | None) -> bytes:
    """An MQI reply whose body is ``body`` joined, as one segment (TSH, or TSHM with
    ``conv_id``; FIRST and LAST, no LUW, ReplyLength its own length): the bytes a
    ``SegmentWriter`` of ``byte_order`` / ``encoding`` / ``ccsid`` / ``flags2`` makes of
    ``mqiflows.encode_reply``'s event readdressed to the request, without the event (the
    SVRCONN's replies to the calls it serves at once). The caller knows it fits."""
    return _mqi_segment(byte_order, segment_type, _FIRST_LAST, flags2, _NO_LUW, conv_id,
                        request_id, encoding, ccsid, None, comp, reason, hobj, body)


def build_mqi_segment(event: MQIRequest | MQIReply, byte_order: ByteOrder, encoding: int,
                      ccsid: int, flags2: int) -> bytes:
    """An MQI flow as one segment, FIRST and LAST (the caller knows it fits): the bytes
    ``build_segment_header`` and ``encode_body`` make, without their generality."""
    return _mqi_segment(byte_order, event.segment_type, int(event.flags) | _FIRST_LAST, flags2,
                        event.luwid, event.conv_id, event.request_id, encoding, ccsid,
                        event.reply_length, event.comp, event.reason, event.hobj,
                        (event.body,))


def build_mqi_request(segment_type: SegmentType, hobj: int, body: tuple[bytes, ...], *,
                      conv_id: int | None = None, request_id: int | None = None,
                      encoding: int = OUR_ENCODING, ccsid: int = OUR_CCSID,
                      flags2: int = 0) -> bytes:
    """An MQI request whose body is ``body`` joined, as one little-endian segment (TSH, or
    TSHM with ``conv_id``; FIRST and LAST, no LUW, ReplyLength its own length): the bytes a
    little-endian ``SegmentWriter`` makes of ``mqiflows.encode_request``'s event, without
    the event (a receiving MCA's puts, packed by hand: mqpy_chinit.xmitgets; a client's
    every call: mqpy.client). ``struct.error`` / OverflowError for a number that does not
    fit its field."""
    return _mqi_segment(ByteOrder.LITTLE, segment_type, _FIRST_LAST, flags2, _NO_LUW, conv_id,
                        request_id, encoding, ccsid, None, 0, 0, hobj, body)


def _mqi_segment(byte_order: ByteOrder, segment_type: int, flags1: int, flags2: int,
                 luwid: bytes, conv_id: int | None, request_id: int | None, encoding: int,
                 ccsid: int, reply_length: int | None, comp: int, reason: int, hobj: int,
                 body: tuple[bytes, ...]) -> bytes:
    """The one packer of a one-segment MQI flow: TSH or TSHM, then the API header, then the
    body's parts (``reply_length`` None: the segment's own length)."""
    total = (TSH_LENGTH if conv_id is None else TSHM_LENGTH) + API_HEADER_LENGTH \
        + (len(body[0]) if len(body) == 1 else sum(map(len, body)))
    order = int(byte_order)  # (an IntEnum hashes and converts through Python code)
    if conv_id is None:
        head = _TSH_HEAD_PACK(STRUCTID_TSH, total, order, segment_type, flags1, flags2, luwid)
    else:
        head = _TSHM_HEAD_PACK(STRUCTID_TSHM, total, conv_id, request_id or 0, order,
                               segment_type, flags1, flags2, luwid)
    tail, api = _TAILS[order]
    return b"".join((head, tail(encoding, ccsid, b"\0\0"),
                     (total if reply_length is None else reply_length).to_bytes(4, "big"),
                     api(comp, reason, hobj), *body))


_TSH_HEAD_PACK = _Headers.TSH_HEAD.pack
_TSHM_HEAD_PACK = _Headers.TSHM_HEAD.pack
#: by the byte order's number: its TSH tail's and API header tail's packers
_TAILS = {int(order): (_Headers.TSH_TAIL[order].pack, _Headers.API_TAIL[order].pack)
          for order in (ByteOrder.LITTLE, ByteOrder.BIG)}


def readdressed_mqi_reply(data: bytes, segment_type: int, conv_id: int | None,
                          request_id: int | None, encoding: int, ccsid: int, flags2: int,
                          limit: int) -> tuple[bytes, int] | None:
    """A relayed MQI reply passed on without being taken apart: ``data`` -- what one read
    of the queue manager's socket gave -- when it is exactly one whole one-segment flow of
    ``segment_type`` with a little-endian TSH, becomes the segment a little-endian
    ``SegmentWriter`` (``encoding``, ``ccsid``, ``flags2``) makes of its reply event
    readdressed to the client: TSHM with ``conv_id`` and ``request_id`` (TSH when
    ``conv_id`` is None), no LUW, no flags but FIRST and LAST, ReplyLength its own length;
    API header codes and body as they came. Returns (segment, CompCode), or None for
    anything else (more or less than one such segment, another type or byte order, longer
    than ``limit``), which the caller then takes the general way. (tests/wire/
    test_mqi_fast_path.py holds it to parse_mqi_segment, mqi_event and build_mqi_segment.)"""
    length = len(data)
    if (length < TSH_LENGTH + API_HEADER_LENGTH or data[:4] != STRUCTID_TSH
            or int.from_bytes(data[4:8], "big") != length or data[8] != ByteOrder.LITTLE
            or data[9] != segment_type or data[10] & _FIRST_LAST != _FIRST_LAST):
        return None
    at = TSH_LENGTH + 4  # CompCode, Reason, Hobj and the body: in little-endian order already
    total = (TSH_LENGTH if conv_id is None else TSHM_LENGTH) + length - TSH_LENGTH
    if total > limit:
        return None
    if conv_id is None:
        head = _Headers.TSH_HEAD.pack(STRUCTID_TSH, total, ByteOrder.LITTLE, segment_type,
                                      _FIRST_LAST, flags2, _NO_LUW)
    else:
        head = _Headers.TSHM_HEAD.pack(STRUCTID_TSHM, total, conv_id, request_id or 0,
                                       ByteOrder.LITTLE, segment_type, _FIRST_LAST, flags2,
                                       _NO_LUW)
    with memoryview(data) as view:
        segment = b"".join((head, _Headers.TSH_TAIL[ByteOrder.LITTLE].pack(encoding, ccsid,
                                                                         b"\0\0"),
                            total.to_bytes(4, "big"), view[at:]))
    return segment, int.from_bytes(data[at:at + 4], "little", signed=True)


# ---------------------------------------------------------------------------------------------
# One-segment MESSAGE_DATA: the fast path of every message a channel carries
# ---------------------------------------------------------------------------------------------

_MESSAGE_DATA = int(SegmentType.MESSAGE_DATA)
#: the shortest one-segment MESSAGE_DATA: TSH, MSH and an MQXQH with its MQMD, no data
_MESSAGE_MIN = TSH_LENGTH + MSH_LENGTH + XQH_WITH_MD_LENGTH


def message_event(flags: ControlFlags1, luwid: bytes, seqnum: int, xqh: bytes, data: bytes,
                  byte_order: ByteOrder) -> MessageData:
    """A MessageData (plain TSH: no ``conv_id``) from fields already in the form its
    converters give (``flags`` a ControlFlags1 without FIRST or LAST, an 8-byte ``luwid``,
    ``xqh`` bytes of the MQXQH's length, ``data`` bytes, a ByteOrder): the event its
    constructor would make, without its converters and validator -- a sending MCA makes
    one and a receiving MCA reads one for every message. (tests/wire/
    test_message_fast_path.py holds these to the constructor's, field by field.)"""
    event = _new(MessageData)
    _set(event, "flags", flags)
    _set(event, "luwid", luwid)
    _set(event, "conv_id", None)
    _set(event, "request_id", None)
    _set(event, "seqnum", seqnum)
    _set(event, "xqh", xqh)
    _set(event, "data", data)
    _set(event, "byte_order", byte_order)
    return event


def parse_message_segment(data: bytes, pos: int, limit: int, max_msg_size: int = 0
                          ) -> tuple[Any, ...] | None:
    """The whole one-segment MESSAGE_DATA (plain TSH, FIRST and LAST) at ``data[pos:]``:
    ``(event, segment length, byte order, encoding, ccsid)`` read from the fixed layouts
    in one go -- or None for anything else (another segment type, part of a split flow, a
    segment not all there, a message above ``max_msg_size``, or anything not valid), which
    ``parse_segment_header`` and ``decode_body`` then take, with their errors. What it
    accepts, they decode alike (tests/wire/test_message_fast_path.py)."""
    avail = len(data) - pos
    if avail < _MESSAGE_MIN or data[pos:pos + 4] != STRUCTID_TSH:
        return None
    _, length, order, segment_type, flags1, _, luwid = _Headers.TSH_HEAD.unpack_from(data, pos)
    byte_order = _BYTE_ORDERS.get(order)
    if (segment_type != _MESSAGE_DATA or byte_order is None
            or flags1 & _FIRST_LAST != _FIRST_LAST
            or not _MESSAGE_MIN <= length <= min(avail, limit)):
        return None
    encoding, ccsid, _ = _Headers.TSH_TAIL[byte_order].unpack_from(data, pos + TSH_LENGTH - 8)
    at = pos + TSH_LENGTH
    struct_id, seqnum, _, _, msg_length = _Headers.MSH[byte_order].unpack_from(data, at)
    at += MSH_LENGTH
    md_at = at + XQH_LENGTH
    if (struct_id != STRUCTID_MSH or msg_length != length - TSH_LENGTH - MSH_LENGTH
            or (max_msg_size and msg_length > max_msg_size + XQH_WITH_MD_LENGTH)
            or data[at:at + 4] != STRUCTID_XQH or data[md_at:md_at + 4] != STRUCTID_MD):
        return None
    end = at + XQH_WITH_MD_LENGTH
    event = message_event(_EVENT_FLAGS1[flags1], luwid, seqnum, data[at:end],
                          data[end:pos + length], byte_order)
    return event, length, byte_order, encoding, ccsid


def build_message_segment(event: MessageData, byte_order: ByteOrder, encoding: int,
                          ccsid: int, flags2: int) -> bytes | None:
    """A MessageData in ``byte_order`` (plain TSH) as one segment, FIRST and LAST (the
    caller knows it fits): the bytes ``build_segment_header`` and ``encode_body`` make,
    in one join; None when a number does not fit its field (the general path says so)."""
    length = len(event.xqh) + len(event.data)
    try:
        head = _Headers.TSH_HEAD.pack(STRUCTID_TSH, TSH_LENGTH + MSH_LENGTH + length,
                                      byte_order, _MESSAGE_DATA, int(event.flags) | _FIRST_LAST,
                                      flags2, event.luwid)
        msh = _Headers.MSH[byte_order].pack(STRUCTID_MSH, event.seqnum, length, 0, length)
    except struct.error:
        return None
    return b"".join((head, _Headers.TSH_TAIL[byte_order].pack(encoding, ccsid, b"\0\0"), msh,
                     event.xqh, event.data))


_STATUS_DATA = int(SegmentType.STATUS_DATA)
#: a STATUS body without a value: Length (8) and Code, in the segment's byte order
_STATUS_BODY = {int(order): struct.Struct("<II" if order == ByteOrder.LITTLE else ">II")
                for order in (ByteOrder.LITTLE, ByteOrder.BIG)}


def build_status_segment(event: Status, byte_order: ByteOrder, encoding: int, ccsid: int,
                         flags2: int) -> bytes | None:
    """A STATUS without a value (plain TSH) as one segment, FIRST and LAST: the bytes
    ``build_segment_header`` and ``encode_body`` make, in one join -- a receiving MCA
    answers every batch with one. None when a number does not fit its field (the general
    path says so)."""
    order = int(byte_order)
    try:
        head = _Headers.TSH_HEAD.pack(STRUCTID_TSH, TSH_LENGTH + 8, order, _STATUS_DATA,
                                      int(event.flags) | _FIRST_LAST, flags2, event.luwid)
        body = _STATUS_BODY[order].pack(8, event.code)
    except struct.error:
        return None
    return b"".join((head, _TAILS[order][0](encoding, ccsid, b"\0\0"), body))


def parse_status_segment(data: bytes, pos: int, limit: int) -> tuple[Any, ...] | None:
    """The STATUS without a value (plain TSH, an 8-byte body whose Length is 8) at
    ``data[pos:]``: ``(event, segment length, byte order, encoding, ccsid)`` -- a sending
    MCA reads one for every batch -- or None for anything else, which
    ``parse_segment_header`` and ``decode_body`` then take, with their errors. What it
    accepts, they decode alike (tests/channels/test_status_fast_path.py)."""
    if len(data) - pos < TSH_LENGTH + 8 or data[pos:pos + 4] != STRUCTID_TSH:
        return None
    _, length, order, segment_type, flags1, _, luwid = _Headers.TSH_HEAD.unpack_from(data, pos)
    byte_order = _BYTE_ORDERS.get(order)
    if (segment_type != _STATUS_DATA or byte_order is None or length != TSH_LENGTH + 8
            or length > limit):
        return None
    encoding, ccsid, _ = _Headers.TSH_TAIL[byte_order].unpack_from(data, pos + TSH_LENGTH - 8)
    body_length, code = _STATUS_BODY[order].unpack_from(data, pos + TSH_LENGTH)
    if body_length != 8:
        return None
    event = Status(flags=_EVENT_FLAGS1[flags1], luwid=luwid, code=code)
    return event, length, byte_order, encoding, ccsid


# ---------------------------------------------------------------------------------------------
# Body codecs: event <-> (first-segment prefix, payload)
# ---------------------------------------------------------------------------------------------

_ID_FIELDS = (
    # (construct name, attrs name)
    ("FapLevel", "fap_level"),
    ("CapFlags1", "cap_flags1"),
    ("EchoedCapFlags1", "echoed_cap_flags1"),
    ("InitErrorFlags1", "init_error_flags1"),
    ("MaxMsgBatch", "max_msg_batch"),
    ("MaxTransmissionSize", "max_transmission_size"),
    ("MaxMsgSize", "max_msg_size"),
    ("SeqWrapValue", "seq_wrap_value"),
    ("ChannelName", "channel_name"),
    ("CapFlags2", "cap_flags2"),
    ("EchoedCapFlags2", "echoed_cap_flags2"),
    ("CCSID", "ccsid"),
    ("QMgrName", "qmgr_name"),
    ("HeartbeatInterval", "heartbeat_interval"),
    ("EFLLength", "efl_length"),
    ("InitErrorFlags2", "init_error_flags2"),
    ("HdrCompList", "hdr_comp_list"),
    ("MsgCompList", "msg_comp_list"),
    ("SSLKeyReset", "ssl_key_reset"),
    ("ConvPerSocket", "conv_per_socket"),
    ("CapFlags3", "cap_flags3"),
    ("EchoedCapFlags3", "echoed_cap_flags3"),
    ("ProcessId", "process_id"),
    ("ThreadId", "thread_id"),
    ("TraceId", "trace_id"),
    ("ProductId", "product_id"),
    ("MQMId", "mqm_id"),
    ("Pal", "pal"),
)
_ID_RESERVED = dict(
    Reserved=b"\0\0", Reserved1=b"\0", Reserved2=b"\0\0", Reserved3=b"\0\0", Reserved4=bytes(12)
)


def _le(byte_order: ByteOrder) -> bool:
    return byte_order == ByteOrder.LITTLE


def encode_body(event: Event, byte_order: ByteOrder) -> tuple[bytes, bytes]:
    """Return ``(prefix, payload)`` for ``event``.

    ``prefix`` goes once, in the first segment only (API header, MSH); ``payload`` is what a
    long flow spreads over several segments. Short segment types have everything in payload.
    """
    little = _le(byte_order)
    if isinstance(event, InitialData):
        values = {wire: getattr(event, name) for wire, name in _ID_FIELDS}
        return b"", ID.build({**values, **_ID_RESERVED}, little=little)
    if isinstance(event, MessageData):
        # The TSH's byte order governs the MQXQH's integers too (packet-mq.c reads them so).
        event = event.in_byte_order(byte_order)
        payload = event.xqh + event.data
        try:
            msh = _Headers.MSH[_BYTE_ORDERS[byte_order]].pack(
                STRUCTID_MSH, event.seqnum, len(payload), 0, len(payload))
        except struct.error as exc:
            raise ValueError(f"MSH: {exc}") from None
        return msh, payload
    if isinstance(event, Status):
        if event.value is None:
            return b"", _STATUS_FAST.build(dict(Length=8, Code=int(event.code), Value=None),
                                           little=little)
        return b"", _STATUS_FAST.build(
            dict(Length=12, Code=int(event.code), Value=event.value), little=little
        )
    if isinstance(event, (Reset, Resync)):
        return b"", _RESET_FAST.build(dict(Length=8, SeqNum=event.seqnum), little=little)
    if isinstance(event, Ping):
        return b"", PING.build(dict(Length=4 + len(event.data), Buffer=event.data), little=little)
    if isinstance(event, Heartbeat):
        return b"", event.data
    if isinstance(event, (MQIRequest, MQIReply)):
        # ReplyLength is filled in by the writer, which knows the flow's total length.
        api = (event.reply_length or 0).to_bytes(4, "big") + _Headers.API_TAIL[
            ByteOrder.LITTLE if little else ByteOrder.BIG].pack(event.comp, event.reason,
                                                                  event.hobj)
        return api, event.body
    if isinstance(event, OtherSegment):
        return b"", event.body
    raise TypeError(f"not a wire event: {event!r}")


def _parse(
    layout: cs.Construct, data: bytes, code: StatusCode, what: str, little: bool
) -> Any:
    try:
        return layout.parse(data, little=little)
    except cs.ConstructError as exc:
        raise ProtocolError(code, f"{what}: {exc.__class__.__name__}") from None


def _initial_data(body: bytes, little: bool, common: dict[str, Any]) -> InitialData:
    """An INITIAL_DATA flow's body: an ID of the length its FAP level says."""
    if len(body) < 5:
        raise ProtocolError(StatusCode.PROTOCOL_ID_ERROR, "ID shorter than 5 bytes")
    size = id_length(body[4])
    if len(body) < size:
        raise ProtocolError(
            StatusCode.PROTOCOL_ID_ERROR,
            f"ID at FAP level {body[4]} needs {size} bytes, segment has {len(body)}",
        )
    if bytes(body[:4]) != STRUCTID_ID:
        raise ProtocolError(StatusCode.PROTOCOL_ID_ERROR, f"{bytes(body[:4])!r} is not an ID")
    parsed = _parse(ID, bytes(body[:size]), StatusCode.PROTOCOL_ID_ERROR, "ID", little)
    values = {
        name: parsed[wire] for wire, name in _ID_FIELDS if parsed[wire] is not None
    }
    return InitialData(**common, **values)


def _message_data(header: SegmentHeader, body: bytes, common: dict[str, Any]) -> MessageData:
    """A MESSAGE_DATA flow's body: an MSH whose MsgLength is what followed, and a message
    that starts with an MQXQH and its MQMD."""
    if len(body) < MSH_LENGTH or bytes(body[:4]) != STRUCTID_MSH:
        raise ProtocolError(StatusCode.PROTOCOL_MSH_ERROR, "MESSAGE_DATA without an MSH")
    _, seqnum, _, _, msg_length = _Headers.MSH[header.byte_order].unpack_from(body)
    payload = bytes(body[MSH_LENGTH:])
    if msg_length != len(payload):
        raise ProtocolError(
            StatusCode.MESSAGE_LENGTH_ERROR,
            f"MSH announces {msg_length} bytes, the segments carried {len(payload)}",
        )
    if len(payload) < XQH_WITH_MD_LENGTH:
        raise ProtocolError(
            StatusCode.PROTOCOL_MSH_ERROR, f"message of {len(payload)} bytes has no MQXQH"
        )
    if payload[:4] != STRUCTID_XQH or payload[XQH_LENGTH : XQH_LENGTH + 4] != STRUCTID_MD:
        raise ProtocolError(
            StatusCode.PROTOCOL_MSH_ERROR, "message does not start with an MQXQH and MQMD"
        )
    return MessageData(
        **common,
        seqnum=seqnum,
        xqh=payload[:XQH_WITH_MD_LENGTH],
        data=payload[XQH_WITH_MD_LENGTH:],
        byte_order=header.byte_order,
    )


def decode_body(header: SegmentHeader, body: bytes) -> Event:
    """Decode a *complete* flow: ``body`` is everything after the TSH, reassembled.

    Raises ``ProtocolError`` (never anything else) for a truncated or inconsistent structure.
    """
    segment_type = SEGMENT_TYPES.get(header.segment_type)
    if segment_type is None:
        raise ProtocolError(
            StatusCode.PROTOCOL_SEGMENT_TYPE, f"unknown segment type 0x{header.segment_type:02X}"
        )
    little = _le(header.byte_order)
    common: dict[str, Any] = dict(
        flags=header.flags1,
        luwid=header.luwid,
        conv_id=header.conv_id,
        request_id=header.request_id,
    )

    if segment_type == SegmentType.INITIAL_DATA:
        return _initial_data(body, little, common)
    if segment_type == SegmentType.MESSAGE_DATA:
        return _message_data(header, body, common)

    if segment_type == SegmentType.STATUS_DATA:
        if len(body) < 8:
            raise ProtocolError(StatusCode.PROTOCOL_LENGTH_ERROR, "STATUS shorter than 8 bytes")
        length = int.from_bytes(body[:4], "little" if little else "big")
        if length < 8 or length > len(body):
            raise ProtocolError(
                StatusCode.PROTOCOL_LENGTH_ERROR,
                f"STATUS length {length} with {len(body)} bytes present",
            )
        parsed = _parse(_STATUS_FAST, bytes(body), StatusCode.PROTOCOL_LENGTH_ERROR, "STATUS",
                        little)
        return Status(**common, code=parsed.Code, value=parsed.Value)

    if segment_type in (SegmentType.RESET_DATA, SegmentType.RESYNC_DATA):
        if len(body) < 8:
            raise ProtocolError(
                StatusCode.PROTOCOL_LENGTH_ERROR, f"{segment_type.name} shorter than 8 bytes"
            )
        parsed = _parse(RESET, bytes(body[:8]), StatusCode.PROTOCOL_LENGTH_ERROR, "RESET", little)
        cls = Reset if segment_type == SegmentType.RESET_DATA else Resync
        return cls(**common, seqnum=parsed.SeqNum)

    if segment_type == SegmentType.PING_DATA:
        if len(body) < 4:
            raise ProtocolError(StatusCode.PROTOCOL_LENGTH_ERROR, "PING shorter than 4 bytes")
        length = int.from_bytes(body[:4], "little" if little else "big")
        if length < 4 or length > len(body):
            raise ProtocolError(
                StatusCode.PROTOCOL_LENGTH_ERROR,
                f"PING length {length} with {len(body)} bytes present",
            )
        return Ping(**common, data=bytes(body[4:length]))

    if segment_type == SegmentType.HEARTBEAT:
        return Heartbeat(**common, data=bytes(body))

    if segment_type.has_api_header:
        if len(body) < API_HEADER_LENGTH:
            raise ProtocolError(
                StatusCode.PROTOCOL_LENGTH_ERROR, f"{segment_type.name} without its API header"
            )
        comp, reason, hobj = _Headers.API_TAIL[header.byte_order].unpack_from(body, 4)
        cls = MQIRequest if segment_type < 0x90 else MQIReply
        return cls(
            **common,
            segment_type=segment_type,
            comp=comp,
            reason=reason,
            hobj=hobj,
            body=bytes(body[API_HEADER_LENGTH:]),
            reply_length=int.from_bytes(body[:4], "big"),
        )

    return OtherSegment(**common, segment_type=segment_type, body=bytes(body))
