"""A PCF structure's fixed part unpacked alone (pymqi's two-step reading) declares lengths
and counts that its StrucLength must hold: a structure read from a message, which anyone
may have put, never makes the program allocate what the structure cannot contain."""

import struct

import pytest

from mqpy import CMQCFC, pcf
from mqpy.pcf import StructError

MIB = 1 << 20


def fixed_part(cft: int, fixed: int, fields: list[int]) -> bytes:
    """A fixed part whose StrucLength says 8 bytes of value follow it."""
    return struct.pack("=" + "i" * (fixed // 4), cft, fixed + 8, *fields)


@pytest.mark.parametrize(("structure", "data"), [
    (pcf.CFST, fixed_part(CMQCFC.MQCFT_STRING, CMQCFC.MQCFST_STRUC_LENGTH_FIXED,
                          [1, 0, MIB])),
    (pcf.CFBS, fixed_part(CMQCFC.MQCFT_BYTE_STRING, CMQCFC.MQCFBS_STRUC_LENGTH_FIXED,
                          [1, MIB])),
    (pcf.CFSL, fixed_part(CMQCFC.MQCFT_STRING_LIST, CMQCFC.MQCFSL_STRUC_LENGTH_FIXED,
                          [1, 0, MIB, 4])),
    (pcf.CFIL, fixed_part(CMQCFC.MQCFT_INTEGER_LIST, CMQCFC.MQCFIL_STRUC_LENGTH_FIXED,
                          [1, MIB])),
    (pcf.CFIL64, fixed_part(CMQCFC.MQCFT_INTEGER64_LIST,
                            CMQCFC.MQCFIL64_STRUC_LENGTH_FIXED, [1, MIB])),
], ids=["CFST", "CFBS", "CFSL", "CFIL", "CFIL64"])
def test_a_declared_value_longer_than_the_structure_is_refused(structure, data):
    """Given a fixed part whose StringLength or Count needs a megabyte where its StrucLength
    leaves 8 bytes, when a program unpacks it, then StructError, nothing made that size."""
    with pytest.raises(StructError):
        structure().unpack(data)


def test_a_value_the_structure_holds_is_still_read_by_its_fixed_part():
    """Given the fixed part of a CFST whose 8-byte value fits its StrucLength, when unpacked
    alone, then its StringLength is what it declares (the two-step reading still works)."""
    data = fixed_part(CMQCFC.MQCFT_STRING, CMQCFC.MQCFST_STRUC_LENGTH_FIXED, [1, 0, 8])
    assert pcf.CFST().unpack(data).StringLength == 8
