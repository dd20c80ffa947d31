"""pymqi's PCF parameter classes as programs use them: built by keyword, ``pack()`` to their
bytes one by one (a group as its header, its members packed after it), ``unpack()`` from
bytes, and ``PCFExecute.unpack`` of such a message giving strings as read, padding
included, as pymqi does."""

from __future__ import annotations

import struct

import pytest

import mqpy as pymqi
from mqpy import CMQC, CMQCFC

Q = b"SYSTEM.ADMIN.COMMAND.QUEUE"  # 26 bytes: 2 bytes of padding


def test_each_parameter_packs_to_its_mq_layout():
    """Given parameters built by keyword, when each is packed, then its bytes are IBM's
    layout in native (little-endian) order: a string NUL-padded to a multiple of 4, a group
    only its header with the ParameterCount given."""
    assert pymqi.CFIN(Parameter=7, Value=-1).pack() == struct.pack(
        "<4i", CMQCFC.MQCFT_INTEGER, 16, 7, -1)
    assert pymqi.CFIL(Parameter=1, Values=[]).pack() == struct.pack(
        "<4i", CMQCFC.MQCFT_INTEGER_LIST, 16, 1, 0)
    assert pymqi.CFIL(Parameter=1, Values=[4, 5]).pack()[-8:] == struct.pack("<2i", 4, 5)
    assert pymqi.CFST(Parameter=CMQC.MQCA_Q_MGR_NAME, String=b"QM1").pack() == struct.pack(
        "<5i", CMQCFC.MQCFT_STRING, 24, CMQC.MQCA_Q_MGR_NAME, 0, 3) + b"QM1\0"
    assert pymqi.CFGR(Parameter=CMQCFC.MQGACF_Q_STATISTICS_DATA, ParameterCount=3).pack() == \
        struct.pack("<4i", CMQCFC.MQCFT_GROUP, 16, CMQCFC.MQGACF_Q_STATISTICS_DATA, 3)
    assert pymqi.CFIN64(Parameter=3, Value=2**40).pack() == struct.pack(
        "<4iq", CMQCFC.MQCFT_INTEGER64, 24, 3, 0, 2**40)
    big = pymqi.CFIN(Parameter=7, Value=1).pack(encoding=CMQC.MQENC_INTEGER_NORMAL)
    assert big == struct.pack(">4i", CMQCFC.MQCFT_INTEGER, 16, 7, 1)


@pytest.mark.parametrize("param", [
    pymqi.CFIN(Parameter=3, Value=5), pymqi.CFIN64(Parameter=3, Value=-5),
    pymqi.CFIL(Parameter=1, Values=[1, 2, 3]), pymqi.CFIL64(Parameter=1, Values=[2**33]),
    pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=Q), pymqi.CFSL(Parameter=1, Strings=[b"A"]),
    pymqi.CFBS(Parameter=CMQCFC.MQBACF_CONNECTION_ID, String=b"\x01\x02"),
    pymqi.CFIF(Parameter=3, Operator=CMQCFC.MQCFOP_GREATER, FilterValue=0),
    pymqi.CFSF(Parameter=CMQC.MQCA_Q_DESC, Operator=CMQCFC.MQCFOP_LIKE, FilterValue=b"A*"),
    pymqi.CFBF(Parameter=CMQCFC.MQBACF_CONNECTION_ID, Operator=CMQCFC.MQCFOP_EQUAL,
               FilterValue=b"\x01"),
    pymqi.CFGR(Parameter=CMQCFC.MQGACF_Q_STATISTICS_DATA, ParameterCount=2),
], ids=lambda p: type(p).__name__)
def test_unpack_reads_back_what_pack_wrote(param):
    """Given a packed parameter, when an empty one of its class unpacks the bytes, then it
    packs to the same bytes again."""
    data = param.pack()
    assert type(param)().unpack(data).pack() == data


def test_a_message_packed_by_parts_unpacks_to_pymqis_shape_with_its_padding():
    """Given a PCF message packed part by part (MQCFH, a string, a group header and its
    members), when PCFExecute.unpack reads it, then strings keep their padding as pymqi
    gives them, and the group is a list of dicts."""
    message = pymqi.CFH(Version=CMQCFC.MQCFH_VERSION_1, Type=CMQCFC.MQCFT_USER,
                        ParameterCount=2).pack()
    message += pymqi.CFST(Parameter=CMQC.MQCA_Q_MGR_NAME, String=b"QM1").pack()
    message += pymqi.CFGR(Parameter=CMQCFC.MQGACF_Q_STATISTICS_DATA, ParameterCount=2).pack()
    message += pymqi.CFST(Parameter=CMQC.MQCA_Q_NAME, String=Q).pack()
    message += pymqi.CFIL64(Parameter=CMQCFC.MQIAMO64_AVG_Q_TIME, Values=[1, 2]).pack()
    values, header = pymqi.PCFExecute.unpack(message)
    assert header.Type == CMQCFC.MQCFT_USER
    assert values == {CMQC.MQCA_Q_MGR_NAME: b"QM1\0",
                      CMQCFC.MQGACF_Q_STATISTICS_DATA: [{CMQC.MQCA_Q_NAME: Q + b"\0\0",
                                                         CMQCFC.MQIAMO64_AVG_Q_TIME: [1, 2]}]}
