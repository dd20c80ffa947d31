"""MQCFIN and MQCFST, most of what a command server answers, are read by a struct path of
their own: what it reads is what the construct layouts read (padding kept as read), and a
malformed MQCFST is refused the same way."""

from __future__ import annotations

import struct

import pytest

from mqpy import CMQC, CMQCFC, pcf
from mqpy.structs.fields import StructError
from mqpy.structs.tables import CFH

BE = CMQC.MQENC_INTEGER_NORMAL


def _by_layouts(data: bytes, pos: int, order: str) -> pcf.Parameter:
    cft, length = struct.unpack_from(order + "ii", data, pos)
    c = pcf._layouts(order)[cft].parse(data[pos:pos + length])
    return pcf._from_layout(pcf._CLASSES[cft], c)


@pytest.mark.parametrize("encoding", [None, BE])
def test_integers_and_strings_read_as_the_layouts_read_them(encoding):
    """Given MQCFINs and MQCFSTs (empty, odd lengths, blank and NUL padding) in either byte
    order, when parsed, then each parameter equals the layouts' reading, Pad included."""
    params = [pcf.CFIN(CMQC.MQIA_CURRENT_Q_DEPTH, -5), pcf.CFST(CMQC.MQCA_Q_NAME, b""),
              pcf.CFST(CMQC.MQCA_Q_NAME, b"ABC", 1208),
              pcf.CFST(CMQC.MQCA_Q_DESC, b"DESCRIPTION", 819, b"    \x00"),
              pcf.CFIN(CMQC.MQIA_MAX_Q_DEPTH, 2**31 - 1)]
    data = pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_INQUIRE_Q), params), encoding)
    order = pcf.byte_order(encoding)
    back = pcf.parse(data, encoding)
    pos = CFH.length()
    for got in back.params:
        expected = _by_layouts(data, pos, order)
        assert got == expected
        assert getattr(got, "Pad", None) == getattr(expected, "Pad", None)
        pos += struct.unpack_from(order + "i", data, pos + 4)[0]
    assert back.params == params


def test_a_string_longer_than_its_structure_is_refused():
    """Given an MQCFST whose StringLength runs past its StrucLength, when parsed, then
    StructError with MQRCCF_CFST_LENGTH_ERROR's family of reasons, as before."""
    data = bytearray(pcf.build(pcf.PCFMessage(CFH(Command=CMQCFC.MQCMD_INQUIRE_Q),
                                              [pcf.CFST(CMQC.MQCA_Q_NAME, b"ABCD")])))
    struct.pack_into("<i", data, CFH.length() + 16, 40)  # StringLength 40 in 24 bytes
    with pytest.raises(StructError):
        pcf.parse(bytes(data))
