"""The distribution-list structures (MQOR, MQRR, MQPMR, MQDH) in IBM's layouts, and the
records as they travel behind an MQOD or MQPMO in an MQI flow."""

from __future__ import annotations

import struct

import pytest

import mqpy
from mqpy import CMQC
from mqpy.engine import distlist
from mqpy.fap import mqiflows
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import ByteOrder
from mqpy.fap.tsh import SegmentType as T
from mqpy.structs.tables import (
    DH,
    OD,
    OR,
    PMO,
    PMR,
    RR,
    pack_put_msg_records,
    put_msg_record_length,
    unpack_put_msg_records,
)


def test_record_layouts_are_ibms():
    """MQOR is two 48-byte names (96), MQRR two MQLONGs (8), MQDH 48 bytes with IBM's
    offsets; an MQPMR holds only the fields PutMsgRecFields names (all five: 108)."""
    assert (OR.length(), RR.length(), DH.length()) == (96, 8, CMQC.MQDH_LENGTH_1)
    assert OR.offset_of("ObjectQMgrName") == 48
    assert RR.offset_of("Reason") == 4
    assert [DH.offset_of(f) for f in ("StrucLength", "Encoding", "CodedCharSetId", "Format",
                                      "Flags", "PutMsgRecFields", "RecsPresent",
                                      "ObjectRecOffset", "PutMsgRecOffset")] == \
        [8, 12, 16, 20, 28, 32, 36, 40, 44]
    assert put_msg_record_length(CMQC.MQPMRF_MSG_ID) == 24
    assert put_msg_record_length(CMQC.MQPMRF_MSG_ID | CMQC.MQPMRF_FEEDBACK) == 28
    assert put_msg_record_length(0x1F) == PMR.length() == 108
    assert OD.length(2) == CMQC.MQOD_LENGTH_2 and PMO.length(2) == CMQC.MQPMO_LENGTH_2


def test_put_message_records_pack_only_the_named_fields_in_order():
    records = [PMR(MsgId=b"m1", Feedback=7, CorrelId=b"ignored"), PMR(MsgId=b"m2", Feedback=8)]
    fields = CMQC.MQPMRF_MSG_ID | CMQC.MQPMRF_FEEDBACK
    raw = pack_put_msg_records(records, fields, CMQC.MQENC_INTEGER_NORMAL)
    assert raw == b"m1".ljust(24, b"\0") + struct.pack(">i", 7) + \
        b"m2".ljust(24, b"\0") + struct.pack(">i", 8)
    back = unpack_put_msg_records(raw, 0, 2, fields, CMQC.MQENC_INTEGER_NORMAL)
    assert [(r.MsgId.rstrip(b"\0"), r.Feedback, r.CorrelId) for r in back] == \
        [(b"m1", 7, b""), (b"m2", 8, b"")]


def test_an_mqdh_message_round_trips_and_says_where_its_records_are():
    """The data of a list message: MQDH, MQORs at ObjectRecOffset, MQPMRs at
    PutMsgRecOffset, the application data at StrucLength; Format/Encoding/CCSID of the
    application data move into the MQDH and the message's Format is MQHDIST."""
    md = mqpy.MD(Format=CMQC.MQFMT_STRING, CodedCharSetId=1208)
    dests = [OR(ObjectName=b"Q%d" % i, ObjectQMgrName=b"QM2") for i in range(3)]
    recs = [PMR(MsgId=b"id%d" % i, CorrelId=b"c%d" % i) for i in range(3)]
    fields = CMQC.MQPMRF_MSG_ID | CMQC.MQPMRF_CORREL_ID
    outer, body = distlist.dh_message(md, b"payload", dests, recs, fields)
    assert outer.Format == CMQC.MQFMT_DIST_HEADER
    dh = DH.from_bytes(body)
    assert (dh.RecsPresent, dh.ObjectRecOffset, dh.PutMsgRecOffset, dh.StrucLength) == \
        (3, 48, 48 + 3 * 96, 48 + 3 * 96 + 3 * 48)
    assert dh.Format == CMQC.MQFMT_STRING and dh.CodedCharSetId == 1208
    assert body[dh.StrucLength:] == b"payload"
    inner, d2, r2, f2, data = distlist.split_dh_message(outer, body)
    assert (inner.Format, inner.CodedCharSetId, f2, data) == (CMQC.MQFMT_STRING, 1208,
                                                              fields, b"payload")
    assert [d.ObjectName.rstrip() for d in d2] == [b"Q0", b"Q1", b"Q2"]
    assert [r.CorrelId.rstrip(b"\0") for r in r2] == [b"c0", b"c1", b"c2"]


@pytest.mark.parametrize("damage", ["recs", "offset", "length", "short"])
def test_a_damaged_mqdh_is_a_format_error(damage):
    """Bad input gets an MQ answer: MQRC_FORMAT_ERROR (2110), never a traceback."""
    outer, body = distlist.dh_message(mqpy.MD(), b"x", [OR(ObjectName=b"A")], [], 0)
    dh = DH.from_bytes(body)
    if damage == "recs":
        dh.RecsPresent = 1000
    elif damage == "offset":
        dh.ObjectRecOffset = 4
    elif damage == "length":
        dh.StrucLength = 10_000
    body = dh.pack() + body[48:] if damage != "short" else body[:30]
    with pytest.raises(mqpy.MQMIError) as err:
        distlist.split_dh_message(outer, body)
    assert err.value.reason == CMQC.MQRC_FORMAT_ERROR


@pytest.mark.parametrize("order", [ByteOrder.LITTLE, ByteOrder.BIG])
def test_records_travel_behind_the_od_and_pmo(order):
    """In an MQOPEN flow the MQORs follow the MQOD at ObjectRecOffset (counted from the
    MQOD's start) and the MQRRs at ResponseRecOffset; in MQPUT the MQPMRs and MQRRs follow
    the MQPMO the same way."""
    od = OD(Version=2, RecsPresent=2, ObjectRecPtr=[OR(ObjectName=b"A"),
                                                    OR(ObjectName=b"B", ObjectQMgrName=b"QM")],
            ResponseRecPtr=[RR(), RR(CompCode=2, Reason=2085)])
    req = mqiflows.encode_request(T.MQOPEN, [od, CMQC.MQOO_OUTPUT], byte_order=order)
    assert len(req.body) == 208 + 2 * 96 + 2 * 8 + 4
    back = mqiflows.decode_request(req, order).values[0]
    assert (back.ObjectRecOffset, back.ResponseRecOffset) == (208, 208 + 192)
    assert [(o.ObjectName.rstrip(), o.ObjectQMgrName.rstrip()) for o in back.ObjectRecPtr] == \
        [(b"A", b""), (b"B", b"QM")]
    assert [(r.CompCode, r.Reason) for r in back.ResponseRecPtr] == [(0, 0), (2, 2085)]
    pmo = PMO(RecsPresent=2, PutMsgRecFields=CMQC.MQPMRF_CORREL_ID,
              PutMsgRecPtr=[PMR(CorrelId=b"x"), PMR(CorrelId=b"y")])
    reply = mqiflows.encode_reply(T.MQPUT, [mqpy.MD(), pmo], byte_order=order)
    got = mqiflows.decode_reply(reply, order).values[1]
    assert got.PutMsgRecOffset == PMO.length(3) and got.ResponseRecOffset == 0
    assert [r.CorrelId.rstrip(b"\0") for r in got.PutMsgRecPtr] == [b"x", b"y"]


def test_records_pointing_outside_the_flow_are_a_protocol_error():
    od = OD(Version=2, RecsPresent=1, ObjectRecPtr=[OR(ObjectName=b"A")])
    req = mqiflows.encode_request(T.MQOPEN, [od, CMQC.MQOO_OUTPUT])
    bad = bytearray(req.body)
    bad[OD.offset_of("ObjectRecOffset"):OD.offset_of("ObjectRecOffset") + 4] = \
        struct.pack("<i", 100_000)
    with pytest.raises(ProtocolError):
        mqiflows.decode_request(type(req)(segment_type=req.segment_type, hobj=0,
                                          body=bytes(bad)))


def test_mqdhf_new_msg_ids_leaves_each_destination_to_get_its_own_msgid():
    """An MQDH from a queue manager that deferred the MsgIds (MQDHF_NEW_MSG_IDS, no MsgId in
    its MQPMRs) splits into an MQMD with MQMI_NONE, so every destination's put makes one."""
    outer, body = distlist.dh_message(mqpy.MD(MsgId=b"the list's own"), b"d",
                                      [OR(ObjectName=b"A"), OR(ObjectName=b"B")], [], 0)
    dh = DH.from_bytes(body)
    dh.Flags = CMQC.MQDHF_NEW_MSG_IDS
    inner, *_ = distlist.split_dh_message(outer, dh.pack() + body[DH.length():])
    assert inner.MsgId == CMQC.MQMI_NONE
    dh.Flags = CMQC.MQDHF_NONE
    inner, *_ = distlist.split_dh_message(outer, dh.pack() + body[DH.length():])
    assert inner.MsgId.rstrip(b"\0") == b"the list's own"
