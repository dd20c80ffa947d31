"""pymqi's MQOpts: a structure a program declares itself (here an MQCIH-like prefix and a
list field), packed, unpacked and handled like pymqi's.

what pymqi users rely on: "pymqi compatibility": the names in pymqi's documentation and examples
exist with the same signatures and behaviour.
"""

from __future__ import annotations

import struct

import pytest

import mqpy as pymqi
from mqpy import CMQC


class Header(pymqi.MQOpts):
    """What a pymqi program writes for a structure pymqi does not have."""

    def __init__(self, **kw):
        super().__init__([["StrucId", b"CIH ", "4s"],
                          ["Version", pymqi.py23long(2), pymqi.MQLONG_TYPE],
                          ["Format", CMQC.MQFMT_NONE, "8s"],
                          ["Flags", [0, 0, 0], pymqi.MQLONG_TYPE, 3],
                          ["Token", 0, pymqi.INTEGER64_TYPE]], **kw)


def test_declared_structure_packs_natively_and_round_trips():
    """Given an MQOpts subclass with a list field and an 8-byte integer, when it is packed,
    then the bytes are struct's native layout (alignment included); unpacking them into a
    fresh one gives the same members, lists as lists."""
    header = Header(Version=3, Flags=[1, 2, 3], Token=7)
    packed = header.pack()
    assert packed == struct.pack("4si8s3iq", b"CIH ", 3, b"        ", 1, 2, 3, 7)
    assert header.get_length() == len(packed) == struct.calcsize("4si8s3iq")
    again = Header()
    again.unpack(packed)
    assert again.get() == header.get()
    assert again.Flags == [1, 2, 3] and again["Token"] == 7


def test_members_are_fixed_and_bytes_only():
    """Given a declared structure, when a program sets an unknown member, or a str (then
    packs), then AttributeError / TypeError refuse it, as in pymqi; known members set by attribute,
    item or set() all read back the same; str() lists them one per line."""
    header = Header()
    with pytest.raises(AttributeError):
        header.set(Colour=1)
    with pytest.raises(AttributeError):
        header["Colour"] = 1
    with pytest.raises(TypeError):
        header["Format"] = "MQSTR"  # a str where bytes belong
    header.Format = "MQSTR"  # plain attribute assignment is not checked, as in pymqi ...
    with pytest.raises(TypeError):
        header.pack()  # ... but pack refuses it
    header["Format"] = CMQC.MQFMT_STRING
    header.set(Version=4)
    assert (header.Format, header["Version"]) == (CMQC.MQFMT_STRING, 4)
    assert str(header).splitlines()[:2] == ["StrucId: b'CIH '", "Version: 4"]


def test_short_buffers_read_as_nul_padded():
    """Given a buffer shorter than the structure, when it is unpacked, then the missing
    tail reads as zeros (pymqi pads it), not an exception."""
    header = Header()
    header.unpack(b"CIH " + struct.pack("i", 2))
    assert (header.Version, header.Flags, header.Token) == (2, [0, 0, 0], 0)


def test_padded_count_rounds_up_to_the_boundary():
    """Given pymqi's padded_count, when lengths are rounded, then they go up to the next
    multiple of 4 (or the boundary given) and multiples stay."""
    assert [pymqi.padded_count(n) for n in (0, 1, 4, 5, 47)] == [0, 4, 4, 8, 48]
    assert pymqi.padded_count(9, 8) == 16
