"""The transmission segment header (TSH, TSHC, TSHM): what every segment of every flow starts with.

Owns the segment types and control flags, the TSH layout (construct, and the ``struct`` forms
the fast paths use), its decoder and encoder, the base of every segment event, and the
construct building blocks whose integers follow the TSH's byte order.

Byte order. Each segment's TSH carries a byte-order byte (1 = big-endian, 2 = little-endian)
that governs every later integer of that segment, *except* the TSH segment length, the TSHM
ConvId / RequestId and the API header's ReplyLength, which are always big-endian (that is how
packet-mq.c reads them). Every codec therefore takes the byte order as a parameter. mqpy sends
byte order 2 (LE), Encoding 546 and CCSID 819 (docs/wire.md says why).
"""

from __future__ import annotations

import enum
import struct
from typing import Any, ClassVar

import attrs
import construct as cs
from construct import this

from mqpy import CMQC
from mqpy.fap.statuscodes import ProtocolError, StatusCode

__all__ = [
    "BYTE_ORDERS",
    "EVENT_FLAGS1",
    "FIRST_LAST",
    "FLAGS1",
    "FLAGS2",
    "NO_LUW",
    "OUR_CCSID",
    "OUR_ENCODING",
    "S32",
    "SEGMENT_STRUCTIDS",
    "SEGMENT_TYPES",
    "STRUCTID_TSH",
    "STRUCTID_TSHC",
    "STRUCTID_TSHM",
    "TSH",
    "TSHM_HEAD",
    "TSHM_LENGTH",
    "TSH_HEAD",
    "TSH_LENGTH",
    "TSH_TAIL",
    "U16",
    "U32",
    "ByteOrder",
    "ControlFlags1",
    "ControlFlags2",
    "Event",
    "FlagsByte",
    "OtherSegment",
    "PaddedName",
    "SegmentHeader",
    "SegmentType",
    "build_segment_header",
    "mq_encoding",
    "parse_layout",
    "parse_segment_header",
]

TSH_LENGTH = 28  #: TSH and TSHC
TSHM_LENGTH = 36  #: TSHM: TSH with ConvId and RequestId at offsets 8 and 12

STRUCTID_TSH = b"TSH "
STRUCTID_TSHC = b"TSHC"
STRUCTID_TSHM = b"TSHM"
#: Struct ids a segment may start with; EBCDIC TSHs (0xE3E2C840) are not spoken by mqpy.
SEGMENT_STRUCTIDS = (STRUCTID_TSH, STRUCTID_TSHC, STRUCTID_TSHM)

OUR_ENCODING = CMQC.MQENC_NATIVE  #: 546 (docs/wire.md)
OUR_CCSID = 819  #: ISO 8859-1 (docs/wire.md)


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


class _FlagsOfByte(dict[int, enum.IntFlag]):
    """Each value of a TSH flags byte (0..255) -> its flag object, made when the value is
    first seen and kept: building an IntFlag costs microseconds, and every segment has two.
    (Made up front, the 768 of them were a fortieth of every process's start.)"""

    def __init__(self, make: Any) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, value: int) -> enum.IntFlag:
        if not 0 <= value <= 0xFF:
            raise IndexError(value)
        flags = self[value] = self.make(value)
        return flags


#: Every value of a TSH flags byte as its flag object, and as an event's flags (without
#: FIRST / LAST)
FLAGS1 = _FlagsOfByte(ControlFlags1)
FLAGS2 = _FlagsOfByte(ControlFlags2)
EVENT_FLAGS1 = _FlagsOfByte(lambda value: ControlFlags1(value & ~FIRST_LAST))


# Bodies are built/parsed with ``little=...``: the byte order of the segment's TSH. Written as
# construct expressions, not functions, so that the declarations compile.
_BODY_IS_LE = this._params.little
U16 = cs.BytesInteger(2, signed=False, swapped=_BODY_IS_LE)
U32 = cs.BytesInteger(4, signed=False, swapped=_BODY_IS_LE)
S32 = cs.BytesInteger(4, signed=True, swapped=_BODY_IS_LE)


class FlagsByte(cs.Adapter):
    """One byte of named bits, surfaced as the IntFlag that names them."""

    def __init__(self, flag_type: type[enum.IntFlag]) -> None:
        super().__init__(cs.Int8ub)
        self.flag_type = flag_type

    def _decode(self, obj: int, context: Any, path: str) -> enum.IntFlag:
        return self.flag_type(obj)

    def _encode(self, obj: int, context: Any, path: str) -> int:
        return int(obj)


class PaddedName(cs.Adapter):
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


#: TSH / TSHC (28 bytes) and TSHM (36 bytes), one declaration.
TSH = cs.Struct(
    "StructId" / cs.Bytes(4),  # 0   "TSH " / "TSHC" / "TSHM"
    "SegmentLength" / cs.Int32ub,  # 4   always BE, includes this header
    "ConvId" / cs.If(this.StructId == STRUCTID_TSHM, cs.Int32ub),  # 8   TSHM only, BE
    "RequestId" / cs.If(this.StructId == STRUCTID_TSHM, cs.Int32ub),  # 12  TSHM only, BE
    "ByteOrder" / cs.Int8ub,  # 8+MPF   1 = BE, 2 = LE
    "SegmentType" / cs.Int8ub,  # 9+MPF
    "ControlFlags1" / FlagsByte(ControlFlags1),  # 10+MPF
    "ControlFlags2" / FlagsByte(ControlFlags2),  # 11+MPF
    "LUWId" / cs.Bytes(8),  # 12+MPF
    # inside the TSH the byte-order byte precedes the integers it governs
    "Encoding" / cs.BytesInteger(4, swapped=this.ByteOrder == ByteOrder.LITTLE),  # 20+MPF
    "CCSID" / cs.BytesInteger(2, swapped=this.ByteOrder == ByteOrder.LITTLE),  # 24+MPF
    "Reserved" / cs.Bytes(2),  # 26+MPF
)


NO_LUW = bytes(8)
BYTE_ORDERS = {int(o): o for o in ByteOrder}
#: Segment types by number (an IntEnum call costs more than the lookup).
SEGMENT_TYPES = {int(t): t for t in SegmentType}


#: TSH and TSHM with ``struct``, field for field the TSH layout above (tests/wire/
#: test_structures.py holds the two to the same bytes): every segment crosses them, and
#: construct, even compiled, costs several times more. The TSH is big-endian up to LUWId
#: and in its own byte order after, so it is a big-endian head and a tail by byte order.
TSH_HEAD = struct.Struct(">4sIBBBB8s")
TSHM_HEAD = struct.Struct(">4sIIIBBBB8s")
TSH_TAIL = {ByteOrder.LITTLE: struct.Struct("<IH2s"), ByteOrder.BIG: struct.Struct(">IH2s")}


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
    order = BYTE_ORDERS[byte_order]
    if tshm:
        (_, length, conv_id, request_id, _, segment_type, flags1, flags2,
         luwid) = TSHM_HEAD.unpack_from(data)
    else:
        _, length, _, segment_type, flags1, flags2, luwid = TSH_HEAD.unpack_from(data)
        conv_id = request_id = None
    encoding, ccsid, _ = TSH_TAIL[order].unpack_from(data, header_length - 8)
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
    luwid: bytes = NO_LUW,
    byte_order: ByteOrder = ByteOrder.LITTLE,
    encoding: int = OUR_ENCODING,
    ccsid: int = OUR_CCSID,
    conv_id: int | None = None,
    request_id: int | None = None,
) -> bytes:
    """Encode a TSH (or a TSHM when ``conv_id`` is given); ``segment_length`` includes it."""
    order = BYTE_ORDERS.get(byte_order) or ByteOrder(byte_order)
    if conv_id is None:
        head = TSH_HEAD.pack(STRUCTID_TSH, segment_length, order, segment_type, flags1, flags2,
                             luwid)
    else:
        head = TSHM_HEAD.pack(STRUCTID_TSHM, segment_length, conv_id, request_id or 0, order,
                              segment_type, flags1, flags2, luwid)
    return head + TSH_TAIL[order].pack(encoding, ccsid, b"\0\0")


def mq_encoding(byte_order: ByteOrder) -> int:
    """The MQENC_* integer encoding that ``mqpy.structs.tables`` packs in ``byte_order``."""
    if byte_order == ByteOrder.BIG:
        return CMQC.MQENC_INTEGER_NORMAL
    return CMQC.MQENC_INTEGER_REVERSED


def _luwid(value: bytes) -> bytes:
    if type(value) is not bytes:
        value = bytes(value)
    if len(value) != 8:
        raise ValueError(f"a LUW id is 8 bytes, not {len(value)}")
    return value


def _control_flags(value: int) -> ControlFlags1:
    if type(value) in (int, ControlFlags1) and 0 <= value <= 0xFF:
        return EVENT_FLAGS1[value]
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
    luwid: bytes = attrs.field(default=NO_LUW, converter=_luwid)
    conv_id: int | None = None
    request_id: int | None = None

    segment_type: ClassVar[SegmentType]  # a class constant, except on MQI and Other events


@attrs.frozen(kw_only=True)
class OtherSegment(Event):
    """A segment type mqpy knows by name but does not model (SECURITY_DATA, XA flows ...)."""

    segment_type: SegmentType = attrs.field(converter=SegmentType)
    body: bytes = b""
    #: the byte order of ``body``'s integers: the TSH's it came with (a split flow's FIRST
    #: segment's); not compared, as MQIRequest's
    byte_order: ByteOrder = attrs.field(default=ByteOrder.LITTLE, eq=False, repr=False)


def parse_layout(
    layout: cs.Construct, data: bytes, code: StatusCode, what: str, little: bool
) -> Any:
    """``layout`` parsed from ``data`` in the segment's byte order; a fault is a
    ProtocolError with ``code``, naming ``what``."""
    try:
        return layout.parse(data, little=little)
    except cs.ConstructError as exc:
        raise ProtocolError(code, f"{what}: {exc.__class__.__name__}") from None
