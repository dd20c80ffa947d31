"""A PCF request's counts are an application's word (any application that may put to
SYSTEM.ADMIN.COMMAND.QUEUE, or a server answering pcfexec): a string list (MQCFSL) whose
strings are empty takes no bytes whatever its Count says, so a Count beyond what the
structure's own length could hold is refused (MQRCCF_CFSL_COUNT_ERROR), not read as that
many empty strings (a 24-byte MQCFSL of Count 10,000,000 took 12 s and 80 MB to read;
2,147,483,647 would take the command server's memory)."""

from __future__ import annotations

import struct

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.structs.fields import StructError
from mqpy.structs.tables import CFH, MD

#: empty strings a lying MQCFSL claims: enough to show it read (a second before), cheap
#: to refuse
_CLAIMED = 1_000_000


def _cfsl(count: int, size: int = 0, pad: bytes = b"") -> bytes:
    return struct.pack("<iiiiii", CMQCFC.MQCFT_STRING_LIST, 24 + len(pad),
                       CMQCFC.MQCACF_Q_NAMES, 1208, count, size) + pad


def _request(*params: bytes) -> bytes:
    head = bytearray(pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_INQUIRE_Q), [])))
    struct.pack_into("<i", head, 32, len(params))  # ParameterCount
    return bytes(head) + b"".join(params)


def test_a_string_list_of_empty_strings_counted_beyond_its_length_is_refused(server):
    """Given an Inquire Queue request whose MQCFSL (24 bytes) says it holds 1,000,000
    strings of length 0, when the command server reads it, then it answers
    MQRCCF_CFSL_COUNT_ERROR, with no internal fault."""
    del server.faults[:]
    md = MD(MsgType=CMQC.MQMT_REQUEST, Format=CMQC.MQFMT_ADMIN)
    replies = server.handle(md, _request(_cfsl(_CLAIMED)))
    server.qm.backout()
    assert server.faults == []
    assert pcf.parse(replies[-1][1]).header.Reason == CMQCFC.MQRCCF_CFSL_COUNT_ERROR


@pytest.mark.parametrize("count, size, pad", [(-1, 0, b""), (-1, 4, b""), (25, 0, b""),
                                              (30, 0, b"\0" * 4)])
def test_a_string_list_whose_count_lies_is_a_count_error(count, size, pad):
    """A negative Count, or more empty strings than the structure has bytes: the request
    is refused MQRCCF_CFSL_COUNT_ERROR as it is read."""
    with pytest.raises(StructError) as refused:
        pcf.parse(_request(_cfsl(count, size, pad)))
    assert refused.value.reason == CMQCFC.MQRCCF_CFSL_COUNT_ERROR


def test_a_few_empty_strings_are_still_read():
    """An MQCFSL of a few empty strings (as many as its length, at most) is read as them."""
    msg = pcf.parse(_request(_cfsl(3), _cfsl(24)))
    assert [p.Strings for p in msg.params] == [[b""] * 3, [b""] * 24]
