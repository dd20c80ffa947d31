"""The wire structures: offsets as in spec/wire-format.md, round trips in both byte orders."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqpy.fap import apiheader, flows, initialdata, messagedata, mqiparams, tsh
from mqpy.fap.apiheader import MQIReply, MQIRequest
from mqpy.fap.controlflows import Heartbeat, Ping, Reset, Resync, Status
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.initialdata import CapFlags1, CapFlags2, CapFlags3, InitErrorFlags1, InitialData
from mqpy.fap.messagedata import MessageData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ByteOrder, ControlFlags1, ControlFlags2, OtherSegment, SegmentType
from mqpy.structs import tables

BOTH_ORDERS = pytest.mark.parametrize("order", [ByteOrder.LITTLE, ByteOrder.BIG])


def _int(raw: bytes, order: ByteOrder) -> int:
    return int.from_bytes(raw, "little" if order == ByteOrder.LITTLE else "big")


def _xqh(order: ByteOrder = ByteOrder.LITTLE) -> bytes:
    """A 428-byte MQXQH (104 + MQMD v1), built by hand so these tests need no MQMD code."""
    integer = "little" if order == ByteOrder.LITTLE else "big"
    head = b"XQH " + (1).to_bytes(4, integer) + b"TARGET.Q".ljust(48) + b"QM2".ljust(48)
    md = b"MD  " + (1).to_bytes(4, integer) + bytes(316)
    return head + md


# -- TSH ----------------------------------------------------------------------------------


@BOTH_ORDERS
def test_tsh_fields_sit_at_the_spec_offsets(order: ByteOrder) -> None:
    """Given a TSH built with distinct values, each field is at its wire-format.md offset."""
    raw = tsh.build_segment_header(
        SegmentType.MESSAGE_DATA,
        0x6199,
        flags1=ControlFlags1.FIRST | ControlFlags1.LAST,
        flags2=ControlFlags2.CSH,
        luwid=b"LUWID-01",
        byte_order=order,
        encoding=546,
        ccsid=437,
    )
    assert len(raw) == tsh.TSH_LENGTH == 28
    assert raw[0:4] == b"TSH "
    assert raw[4:8] == (0x6199).to_bytes(4, "big")  # always BE
    assert raw[8] == order
    assert raw[9] == 0x04
    assert raw[10] == 0x30
    assert raw[11] == 0x04
    assert raw[12:20] == b"LUWID-01"
    assert _int(raw[20:24], order) == 546
    assert _int(raw[24:26], order) == 437
    assert raw[26:28] == b"\0\0"


@BOTH_ORDERS
def test_tshm_inserts_conv_id_and_request_id_at_8_and_12(order: ByteOrder) -> None:
    """Given a TSHM, ConvId/RequestId (BE) sit at 8 and 12 and the rest moves by MPF = 8."""
    raw = tsh.build_segment_header(
        SegmentType.MQCONN, 36, byte_order=order, conv_id=5, request_id=9, ccsid=819
    )
    assert len(raw) == tsh.TSHM_LENGTH == 36
    assert raw[0:4] == b"TSHM"
    assert raw[8:12] == (5).to_bytes(4, "big")
    assert raw[12:16] == (9).to_bytes(4, "big")
    assert raw[16] == order and raw[17] == 0x81
    assert _int(raw[32:34], order) == 819
    header = tsh.parse_segment_header(raw)
    assert (header.conv_id, header.request_id, header.header_length) == (5, 9, 36)


def test_the_real_on_the_wire_example_decodes_as_the_spec_says() -> None:
    """Given the 2002 list post's TSH bytes, then it is MESSAGE_DATA, LE, FIRST|LAST,
    Encoding 546, CCSID 437 (spec: wire-format, "A real on-the-wire example")."""
    raw = bytes.fromhex("54534820 00006199 02 04 30 00 13dca33d21700100 22020000 b501 0000")
    header = tsh.parse_segment_header(raw)
    assert header.struct_id == b"TSH "
    assert header.segment_length == 0x6199
    assert header.byte_order == ByteOrder.LITTLE
    assert header.segment_type == SegmentType.MESSAGE_DATA
    assert header.flags1 == ControlFlags1.FIRST | ControlFlags1.LAST
    assert header.encoding == 546
    assert header.ccsid == 437


# -- ID -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fap_level", "length"), [(1, 44), (3, 44), (4, 102), (8, 102), (9, 208), (10, 208), (11, 240), (14, 240)]
)
def test_id_length_follows_the_fap_level(fap_level: int, length: int) -> None:
    """Given an ID at a FAP level, when built, then its size is packet-mq.c's for that level."""
    _, body = flows.encode_body(InitialData(fap_level=fap_level, channel_name="CH"), ByteOrder.LITTLE)
    assert initialdata.id_length(fap_level) == len(body) == length


def _full_id() -> InitialData:
    return InitialData(
        fap_level=11,
        channel_name="TO.QM2",
        cap_flags1=CapFlags1.SPLIT_MESSAGE | CapFlags1.MSG_SEQ,
        echoed_cap_flags1=CapFlags1.CONVERSION_CAPABLE,
        init_error_flags1=InitErrorFlags1.HEARTBEAT_INTERVAL,
        max_msg_batch=0x0102,
        max_transmission_size=0x03040506,
        max_msg_size=0x0708090A,
        seq_wrap_value=0x0B0C0D0E,
        cap_flags2=CapFlags2.DIST_LIST_CAPABLE,
        echoed_cap_flags2=CapFlags2.DUAL_UOW,
        ccsid=0x0333,
        qmgr_name="QM1",
        heartbeat_interval=0x11121314,
        efl_length=0x1516,
        init_error_flags2=initialdata.InitErrorFlags2.SSL_RESET,
        hdr_comp_list=b"\x01\x02",
        msg_comp_list=b"M" * 16,
        ssl_key_reset=0x21222324,
        conv_per_socket=0x31323334,
        cap_flags3=CapFlags3.MSG_PROPERTY_CAPABLE,
        echoed_cap_flags3=CapFlags3.MULTICAST_CAPABLE,
        process_id=0x41424344,
        thread_id=0x51525354,
        trace_id=0x61626364,
        product_id="MQPY0100",
        mqm_id="QM1_2024",
        pal=b"P" * 20,
    )


@BOTH_ORDERS
def test_id_fields_sit_at_the_spec_offsets(order: ByteOrder) -> None:
    """Given a FAP-11 ID with distinct values, every field of the table is at its offset."""
    _, raw = flows.encode_body(_full_id(), order)
    assert raw[0:4] == b"ID  "
    assert raw[4] == 11
    assert raw[5] == 0x05 and raw[6] == 0x02 and raw[7] == 0x80
    assert _int(raw[10:12], order) == 0x0102
    assert _int(raw[12:16], order) == 0x03040506
    assert _int(raw[16:20], order) == 0x0708090A
    assert _int(raw[20:24], order) == 0x0B0C0D0E
    assert raw[24:44] == b"TO.QM2".ljust(20)
    assert raw[44] == 0x01 and raw[45] == 0x08
    assert _int(raw[46:48], order) == 0x0333
    assert raw[48:96] == b"QM1".ljust(48)
    assert _int(raw[96:100], order) == 0x11121314
    assert _int(raw[100:102], order) == 0x1516
    assert raw[102] == 0x04
    assert raw[104:106] == b"\x01\x02"
    assert raw[106:122] == b"M" * 16
    assert _int(raw[124:128], order) == 0x21222324
    assert _int(raw[128:132], order) == 0x31323334
    assert raw[132] == 0x01 and raw[133] == 0x02
    assert _int(raw[136:140], order) == 0x41424344
    assert _int(raw[140:144], order) == 0x51525354
    assert _int(raw[144:148], order) == 0x61626364
    assert raw[148:160] == b"MQPY0100".ljust(12)
    assert raw[160:208] == b"QM1_2024".ljust(48)
    assert raw[208:228] == b"P" * 20
    assert len(raw) == 240


def test_named_flag_bits_have_the_spec_values() -> None:
    """Given the flag enums, then their bits are those of wire-format.md's lists."""
    assert ControlFlags1.CONFIRM_REQUEST == 0x01 and ControlFlags1.DLQ_USED == 0x80
    assert ControlFlags1.FIRST == 0x10 and ControlFlags1.LAST == 0x20
    assert CapFlags1.SPLIT_MESSAGE == 0x04 and CapFlags1.RUNTIME == 0x80
    assert CapFlags2.SPIREQUEST == 0x40 and CapFlags2.TRACE_ROUTE_CAPABLE == 0x80
    assert InitErrorFlags1.SEQ_WRAP_VALUE == 0x40 and InitErrorFlags1.HEARTBEAT_INTERVAL == 0x80
    assert StatusCode.WRAP_VALUE_ERROR == 0x15 and StatusCode.STANDBY_Q_MGR == 0x20
    assert StatusCode.NEGOTIATION_FAILED == 0xF3


# -- other bodies -------------------------------------------------------------------------


@BOTH_ORDERS
def test_msh_status_reset_ping_and_api_header_offsets(order: ByteOrder) -> None:
    """Given each small structure, its integers sit where wire-format.md says, in ``order``."""
    msh, payload = flows.encode_body(MessageData(seqnum=7, xqh=_xqh(order), data=b"abc", byte_order=order), order)
    assert len(msh) == messagedata.MSH_LENGTH == 20 and msh[0:4] == b"MSH "
    assert _int(msh[4:8], order) == 7
    assert _int(msh[16:20], order) == len(payload) == 428 + 3

    _, status = flows.encode_body(Status(code=StatusCode.BATCH_FAILURE, value=99), order)
    assert [_int(status[i : i + 4], order) for i in (0, 4, 8)] == [12, 0x11, 99]
    _, short = flows.encode_body(Status(code=0), order)
    assert len(short) == 8 and _int(short[0:4], order) == 8

    _, reset = flows.encode_body(Reset(seqnum=41), order)
    assert [_int(reset[i : i + 4], order) for i in (0, 4)] == [8, 41]

    _, ping = flows.encode_body(Ping(data=b"hello"), order)
    assert _int(ping[0:4], order) == 9 and ping[4:] == b"hello"

    api, body = flows.encode_body(
        MQIReply(segment_type=SegmentType.MQOPEN_REPLY, comp=2, reason=2085, hobj=0x10, reply_length=500),
        order,
    )
    assert len(api) == apiheader.API_HEADER_LENGTH == 16
    assert api[0:4] == (500).to_bytes(4, "big")  # ReplyLength always BE
    assert [_int(api[i : i + 4], order) for i in (4, 8, 12)] == [2, 2085, 0x10]


def test_mqconn_body_is_120_bytes_at_fap_6() -> None:
    """Given the FAP <= 6 MQCONN body, when built, then it is 120 bytes with ApplType at 76."""
    raw = mqiparams.MQCONN_BODY.build(
        dict(QMgrName="QM1", ApplName="amqsput", ApplType=6, AccountingToken=bytes(32), Options=0, XOptions=0),
        little=True,
    )
    assert len(raw) == 120 and raw[:3] == b"QM1" and raw[48:55] == b"amqsput"
    assert raw[76:80] == (6).to_bytes(4, "little")


# -- round trips --------------------------------------------------------------------------

EVENTS = [
    _full_id(),
    InitialData(fap_level=3, channel_name="OLD.CHL", max_msg_batch=1),
    InitialData(fap_level=8, channel_name="V5.CHL", qmgr_name="QMV5", heartbeat_interval=60),
    MessageData(seqnum=1, xqh=_xqh(), data=b"payload", flags=ControlFlags1.CONFIRM_REQUEST, luwid=b"\1" * 8),
    MessageData(seqnum=999999999, xqh=_xqh(), data=b""),
    Status(code=StatusCode.TARGET_Q_UNKNOWN, value=2085),
    Status(code=0),
    Status(code=0x77, value=1),  # unknown codes stay well-formed
    Heartbeat(flags=ControlFlags1.CONFIRM_REQUEST),
    Heartbeat(data=b"\0\0\0\0"),
    Reset(seqnum=1),
    Resync(seqnum=50, luwid=b"LUW-0050"),
    Ping(data=bytes(range(256))),
    Ping(),
    MQIRequest(segment_type=SegmentType.MQCONN, body=b"x" * 120, conv_id=1, request_id=3),
    MQIReply(segment_type=SegmentType.MQGET_REPLY, comp=2, reason=2033, hobj=5, reply_length=16),
    OtherSegment(segment_type=SegmentType.SECURITY_DATA, body=b"secret"),
    OtherSegment(segment_type=SegmentType.XA_START, body=b"xid"),
]


@BOTH_ORDERS
@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_every_event_round_trips_through_the_wire(order: ByteOrder, event: tsh.Event) -> None:
    """Given any event, when written in ``order`` and read back, then it is equal."""
    raw = SegmentWriter(byte_order=order).send(event)
    (back,) = SegmentReader().feed(raw)
    if isinstance(event, MessageData):
        back = back.in_byte_order(event.byte_order)
    if isinstance(event, MQIRequest) and event.reply_length is None:
        assert back.reply_length == len(raw)  # the writer fills in the flow's length
        back = back.__class__(**{**_fields(back), "reply_length": None})
    assert back == event


def _fields(event: tsh.Event) -> dict:
    import attrs

    return attrs.asdict(event, recurse=False)


def test_event_flags_never_carry_first_or_last() -> None:
    """Given an event built with FIRST|LAST, then the framing bits are dropped from it."""
    event = Heartbeat(flags=ControlFlags1.FIRST | ControlFlags1.LAST | ControlFlags1.REQUEST_CLOSE)
    assert event.flags == ControlFlags1.REQUEST_CLOSE


def test_mqi_event_rejects_a_segment_type_outside_its_range() -> None:
    """Given MQIRequest with a reply type, then it is refused at construction."""
    with pytest.raises(ValueError):
        MQIRequest(segment_type=SegmentType.MQPUT_REPLY)


# -- the struct fast path agrees with the construct declarations ---------------------------

_u32 = st.integers(0, 2**32 - 1)
_s32 = st.integers(-(2**31), 2**31 - 1)


@given(tshm=st.booleans(), length=st.integers(36, 2**31 - 1), conv=_u32, request=_u32,
       order=st.sampled_from(list(ByteOrder)), stype=st.integers(0, 255),
       flags1=st.integers(0, 255), flags2=st.integers(0, 255), luwid=st.binary(min_size=8, max_size=8),
       encoding=_u32, ccsid=st.integers(0, 65535))
def test_segment_headers_are_the_tsh_declaration_byte_for_byte(
        tshm: bool, length: int, conv: int, request: int, order: ByteOrder, stype: int,
        flags1: int, flags2: int, luwid: bytes, encoding: int, ccsid: int) -> None:
    """Given any TSH or TSHM, when built by the fast path, then the bytes are what the
    construct TSH declaration builds, and both parsers read back the same fields."""
    raw = tsh.build_segment_header(stype, length, flags1=tsh.ControlFlags1(flags1),
                                    flags2=tsh.ControlFlags2(flags2), luwid=luwid,
                                    byte_order=order, encoding=encoding, ccsid=ccsid,
                                    conv_id=conv if tshm else None,
                                    request_id=request if tshm else None)
    declared = tsh.TSH.build(dict(
        StructId=tsh.STRUCTID_TSHM if tshm else tsh.STRUCTID_TSH, SegmentLength=length,
        ConvId=conv if tshm else None, RequestId=request if tshm else None, ByteOrder=int(order),
        SegmentType=stype, ControlFlags1=tsh.ControlFlags1(flags1),
        ControlFlags2=tsh.ControlFlags2(flags2), LUWId=luwid, Encoding=encoding, CCSID=ccsid,
        Reserved=b"\0\0"))
    assert raw == declared
    header = tsh.parse_segment_header(raw)
    parsed = tsh.TSH.parse(raw)
    assert (header.segment_length, header.segment_type, int(header.flags1), int(header.flags2),
            header.luwid, header.encoding, header.ccsid, header.conv_id, header.request_id) == (
        parsed.SegmentLength, parsed.SegmentType, int(parsed.ControlFlags1),
        int(parsed.ControlFlags2), parsed.LUWId, parsed.Encoding, parsed.CCSID, parsed.ConvId,
        parsed.RequestId)


@given(order=st.sampled_from(list(ByteOrder)), reply_length=_u32, comp=_s32, reason=_s32,
       hobj=_u32)
def test_api_headers_are_the_api_header_declaration_byte_for_byte(
        order: ByteOrder, reply_length: int, comp: int, reason: int, hobj: int) -> None:
    """Given any API header, when built by the fast path, then the bytes are what the construct
    API_HEADER declaration builds, and decoding gives the fields back."""
    event = MQIReply(segment_type=SegmentType.MQGET_REPLY, comp=comp, reason=reason, hobj=hobj,
                     reply_length=reply_length)
    api, _ = flows.encode_body(event, order)
    assert api == apiheader.API_HEADER.build(dict(ReplyLength=reply_length, CompCode=comp,
                                             Reason=reason, ObjectHandle=hobj),
                                        little=order == ByteOrder.LITTLE)
    header = tsh.parse_segment_header(tsh.build_segment_header(
        SegmentType.MQGET_REPLY, tsh.TSH_LENGTH + len(api), byte_order=order))
    assert flows.decode_body(header, api) == event


@given(order=st.sampled_from(list(ByteOrder)), seqnum=_u32,
       data=st.binary(min_size=0, max_size=64))
def test_message_headers_are_the_msh_declaration_byte_for_byte(
        order: ByteOrder, seqnum: int, data: bytes) -> None:
    """Given any message, when its MSH is built by the fast path, then the bytes are what the
    construct MSH declaration builds, and decoding gives the sequence number back."""
    event = messagedata.MessageData.from_xqh(seqnum, tables.XQH(), data, byte_order=order)
    msh, payload = flows.encode_body(event, order)
    assert msh == messagedata.MSH.build(dict(SeqNum=seqnum, DataLength=len(payload), Unknown1=0,
                                      MsgLength=len(payload)),
                                 little=order == ByteOrder.LITTLE)
    header = tsh.parse_segment_header(tsh.build_segment_header(
        SegmentType.MESSAGE_DATA, tsh.TSH_LENGTH + len(msh) + len(payload), byte_order=order))
    assert flows.decode_body(header, msh + payload).seqnum == seqnum


@pytest.mark.parametrize("order", list(ByteOrder))
@pytest.mark.parametrize("persistence", [0, 1, 2])
def test_a_message_says_whether_it_is_persistent_without_decoding(order: ByteOrder,
                                                                  persistence: int) -> None:
    """Given a message whose MQMD has any Persistence, in either byte order, then
    MessageData.persistent reads it as the decoded MQXQH does."""
    xqh = tables.XQH()
    xqh.MsgDesc.Persistence = persistence
    event = messagedata.MessageData.from_xqh(1, xqh, b"data", byte_order=order)
    assert event.persistent == (event.md.Persistence == 1) == (persistence == 1)
