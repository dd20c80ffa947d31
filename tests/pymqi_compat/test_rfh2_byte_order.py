"""The byte order of an MQRFH2's integers, as pymqi and IBM MQ read the Encoding of what
precedes it: big-endian when its integers are normal, and, where it says nothing of
integers, when its decimals or floats are big-endian (S/390 included); a header read
big-endian is written back big-endian; the 36-byte fixed part alone can be read."""

from __future__ import annotations

import struct

import pytest

import mqpy as pymqi
from mqpy import CMQC

BIG = [CMQC.MQENC_INTEGER_NORMAL, CMQC.MQENC_DECIMAL_NORMAL, CMQC.MQENC_FLOAT_IEEE_NORMAL,
       CMQC.MQENC_FLOAT_S390, 273, 785]
LITTLE = [None, CMQC.MQENC_NATIVE, CMQC.MQENC_INTEGER_REVERSED, CMQC.MQENC_DECIMAL_REVERSED,
          CMQC.MQENC_FLOAT_IEEE_REVERSED, 0]


@pytest.mark.parametrize("encoding", BIG)
def test_big_endian_encodings_write_big_endian_integers(encoding):
    """Given a new RFH2, when it is packed for an encoding whose integers, or (integers left
    undefined) decimals or floats, are big-endian, then Version 2 is written big-endian."""
    assert pymqi.RFH2().pack(encoding=encoding)[4:8] == b"\x00\x00\x00\x02"


@pytest.mark.parametrize("encoding", LITTLE)
def test_reversed_or_native_encodings_write_little_endian_integers(encoding):
    """Given a new RFH2, when it is packed natively or for a reversed encoding, then
    Version 2 is written little-endian."""
    assert pymqi.RFH2().pack(encoding=encoding)[4:8] == b"\x02\x00\x00\x00"


def _big_endian_header() -> bytes:
    folder = b"<mcd><Msd>xmlnsc</Msd></mcd>"  # 28 bytes
    return (CMQC.MQRFH_STRUC_ID + struct.pack(">4i", 2, 36 + 4 + len(folder), 273, 1208)
            + CMQC.MQFMT_STRING + struct.pack(">2i", 0, 1208)
            + struct.pack(">i", len(folder)) + folder)


def test_a_header_read_big_endian_is_packed_back_big_endian():
    """Given a big-endian MQRFH2 unpacked without an encoding (its Version tells the order),
    when it is packed without one, then the bytes are the ones read."""
    data = _big_endian_header()
    rfh2 = pymqi.RFH2()
    rfh2.unpack(data)
    assert rfh2["mcd"] == b"<mcd><Msd>xmlnsc</Msd></mcd>"
    assert rfh2.pack() == data


def test_the_fixed_part_alone_can_be_unpacked():
    """Given only the 36-byte fixed part of a longer MQRFH2, when it is unpacked, then its
    eight fields are read (StrucLength as written) and it has no folders."""
    rfh2 = pymqi.RFH2()
    rfh2.unpack(_big_endian_header()[:36])
    assert len(rfh2.get()) == 8
    assert rfh2["StrucLength"] == 68 and rfh2["Encoding"] == 273
