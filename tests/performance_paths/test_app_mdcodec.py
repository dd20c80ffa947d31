"""``mdcodec.unpack_md`` reads an MQMD as ``MD.unpack`` does, and leaves anything unusual
(another StrucId, a Version its length does not carry, another length) to it."""

from __future__ import annotations

import pytest

import mqpy
from mqpy.structs import mdcodec
from mqpy.structs.fields import StructError


@pytest.mark.parametrize("version", [1, 2])
def test_unpack_md_is_md_unpack(version):
    """Given an MQMD of either version packed, when unpack_md reads it into an MD whose
    fields differ, then the MD is what MD.unpack makes of it."""
    packed = mqpy.MD(Version=version, MsgId=b"m" * 24, Persistence=1, GroupId=b"g" * 24
                     if version == 2 else b"").pack()
    ours, theirs = mqpy.MD(Priority=3, GroupId=b"x"), mqpy.MD(Priority=3, GroupId=b"x")
    mdcodec.unpack_md(ours, packed)
    theirs.unpack(packed)
    assert ours.__dict__ == theirs.__dict__


def test_unusual_bytes_are_md_unpacks_to_refuse_or_read():
    """Given MQMD bytes with another StrucId, another Version than their length carries, or
    another length, when unpack_md reads them, then MD.unpack's answer is given."""
    packed = mqpy.MD(Version=2).pack()
    v1 = mqpy.MD(Version=1).pack()
    for odd in (b"XXXX" + packed[4:], packed[:4] + v1[4:8] + packed[8:], packed[:-1]):
        try:
            expected = mqpy.MD()
            expected.unpack(odd)
        except StructError as exc:
            with pytest.raises(StructError) as got:
                mdcodec.unpack_md(mqpy.MD(), odd)
            assert got.value.args == exc.args
        else:
            ours = mqpy.MD()
            mdcodec.unpack_md(ours, odd)
            assert ours.__dict__ == expected.__dict__
