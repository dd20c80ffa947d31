"""INITIAL_DATA: the ID structure two ends exchange to agree a channel's terms.

Owns the ID layout (44, 102, 208 or 240 bytes by FAP level), its capability and
initial-error flags, the InitialData event and its body codec. The arithmetic of the
exchange (what each end settles on) is ``mqpy.fap.negotiation``.
"""

from __future__ import annotations

import enum
from typing import Any

import attrs
import construct as cs
from construct import this

from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import (
    OUR_CCSID,
    U16,
    U32,
    Event,
    FlagsByte,
    PaddedName,
    SegmentType,
    parse_layout,
)

__all__ = [
    "ID",
    "OUR_FAP_LEVEL",
    "STRUCTID_ID",
    "CapFlags1",
    "CapFlags2",
    "CapFlags3",
    "InitErrorFlags1",
    "InitErrorFlags2",
    "InitialData",
    "decode_initial_data",
    "encode_initial_data",
    "id_length",
]

STRUCTID_ID = b"ID  "
OUR_FAP_LEVEL = 10  #: highest FAP level we propose; its ID is the 208-byte form


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


def _from_fap(level: int, subcon: cs.Construct) -> cs.Construct:
    """An ID field present only from FAP level ``level`` upwards."""
    return cs.If(this.FapLevel >= level, subcon)


#: INITIAL_DATA: 44 bytes below FAP 4, 102 below 9, 208 below 11, else 240.
ID = cs.Struct(
    "StructId" / cs.Const(STRUCTID_ID),  # 0
    "FapLevel" / cs.Int8ub,  # 4
    "CapFlags1" / FlagsByte(CapFlags1),  # 5
    "EchoedCapFlags1" / FlagsByte(CapFlags1),  # 6
    "InitErrorFlags1" / FlagsByte(InitErrorFlags1),  # 7
    "Reserved" / cs.Bytes(2),  # 8
    "MaxMsgBatch" / U16,  # 10
    "MaxTransmissionSize" / U32,  # 12
    "MaxMsgSize" / U32,  # 16
    "SeqWrapValue" / U32,  # 20
    "ChannelName" / PaddedName(20),  # 24
    # -- 44: FAP level 4 and later
    "CapFlags2" / _from_fap(4, FlagsByte(CapFlags2)),  # 44
    "EchoedCapFlags2" / _from_fap(4, FlagsByte(CapFlags2)),  # 45
    "CCSID" / _from_fap(4, U16),  # 46
    "QMgrName" / _from_fap(4, PaddedName(48)),  # 48
    "HeartbeatInterval" / _from_fap(4, U32),  # 96
    "EFLLength" / _from_fap(4, U16),  # 100
    # -- 102: FAP level 9 and later
    "InitErrorFlags2" / _from_fap(9, FlagsByte(InitErrorFlags2)),  # 102
    "Reserved1" / _from_fap(9, cs.Bytes(1)),  # 103
    "HdrCompList" / _from_fap(9, cs.Bytes(2)),  # 104
    "MsgCompList" / _from_fap(9, cs.Bytes(16)),  # 106
    "Reserved2" / _from_fap(9, cs.Bytes(2)),  # 122
    "SSLKeyReset" / _from_fap(9, U32),  # 124
    "ConvPerSocket" / _from_fap(9, U32),  # 128
    "CapFlags3" / _from_fap(9, FlagsByte(CapFlags3)),  # 132
    "EchoedCapFlags3" / _from_fap(9, FlagsByte(CapFlags3)),  # 133
    "Reserved3" / _from_fap(9, cs.Bytes(2)),  # 134
    "ProcessId" / _from_fap(9, U32),  # 136
    "ThreadId" / _from_fap(9, U32),  # 140
    "TraceId" / _from_fap(9, U32),  # 144
    "ProductId" / _from_fap(9, PaddedName(12)),  # 148
    "MQMId" / _from_fap(9, PaddedName(48)),  # 160
    # -- 208: FAP level 11 and later (tshark's mq.id.pal and mq.id.r; meaning unpublished)
    "Pal" / _from_fap(11, cs.Bytes(20)),  # 208
    "Reserved4" / _from_fap(11, cs.Bytes(12)),  # 228
)  # 240


def id_length(fap_level: int) -> int:
    """Size of the ID structure at ``fap_level`` (packet-mq.c ``dissect_mq_id``)."""
    if fap_level < 4:
        return 44
    if fap_level < 9:
        return 102
    if fap_level < 11:
        return 208
    return 240


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


ID_FIELDS = (
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
ID_RESERVED = dict(
    Reserved=b"\0\0", Reserved1=b"\0", Reserved2=b"\0\0", Reserved3=b"\0\0", Reserved4=bytes(12)
)


def encode_initial_data(event: InitialData, little: bool) -> bytes:
    """The ID of ``event`` (as long as its FAP level makes it), in the segment's byte order."""
    values = {wire: getattr(event, name) for wire, name in ID_FIELDS}
    return ID.build({**values, **ID_RESERVED}, little=little)


def decode_initial_data(body: bytes, little: bool, common: dict[str, Any]) -> InitialData:
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
    parsed = parse_layout(ID, bytes(body[:size]), StatusCode.PROTOCOL_ID_ERROR, "ID", little)
    values = {
        name: parsed[wire] for wire, name in ID_FIELDS if parsed[wire] is not None
    }
    return InitialData(**common, **values)
