"""Given an MQOD of version 3 or 4 (a selection string, a distribution list's records), when
the MQOPEN flow carries it, then it is laid out as Wireshark's MQ dissector reads IBM's flows
(4-byte pointers: AlternateSecurityId at 200, ResolvedQName at 240, the MQCHARVs at 336, 356
and 376, ResolvedType at 396), its strings and records follow at the offsets it gives, and
the other end decodes the same MQOD."""

from __future__ import annotations

import struct

import pytest

from mqpy.fap import mqiflows
from mqpy.fap.tsh import ByteOrder
from mqpy.fap.tsh import SegmentType as T
from mqpy.structs.tables import OD, OR


@pytest.mark.parametrize("order", list(ByteOrder))
def test_an_mqod_v4_with_a_selection_string_in_ibms_flow_layout(order):
    od = OD(Version=4, ObjectName=b"Q1", ResolvedQName=b"RQ", ResolvedType=7)
    od.set_vs("SelectionString", "colour = 'red'")
    body = mqiflows.encode_request(T.MQOPEN, [od, 8], byte_order=order).body
    long = struct.Struct("<i" if order is ByteOrder.LITTLE else ">i")
    assert body[240:242] == b"RQ"
    assert long.unpack_from(body, 396)[0] == 7
    offset, length = long.unpack_from(body, 360)[0], long.unpack_from(body, 368)[0]
    assert (offset, length) == (400, 14)
    assert body[offset:offset + length] == b"colour = 'red'"
    assert long.unpack_from(body, offset + length)[0] == 8  # the options follow
    got = mqiflows.decode_request(mqiflows.encode_request(T.MQOPEN, [od, 8], byte_order=order),
                                  order)
    assert got.values[0].get_vs("SelectionString") == b"colour = 'red'"
    assert got.values[0].ResolvedQName.rstrip() == b"RQ"
    assert got.values[1] == 8


def test_an_mqod_v3_with_records_comes_back_the_same():
    od = OD(Version=3, RecsPresent=2, ObjectRecPtr=[OR(ObjectName=b"A"), OR(ObjectName=b"B")])
    event = mqiflows.encode_request(T.MQOPEN, [od, 16])
    assert struct.unpack_from("<i", event.body, 184)[0] == 336  # records after the MQOD
    got = mqiflows.decode_request(event).values[0]
    assert [r.ObjectName.rstrip() for r in got.ObjectRecPtr] == [b"A", b"B"]
