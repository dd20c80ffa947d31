"""pymqi's and ibmmq's ``set_vs`` / ``get_vs``: a variable-length string (MQCHARV) field of a
structure (MQOD ObjectString, SelectionString, ResObjectString; MQSD ObjectString,
SubName ...) set from bytes or str with its offset, buffer size and CCSID, and read back."""

from __future__ import annotations

import pytest

import mqpy


def test_set_vs_fills_the_charv_fields_and_get_vs_reads_the_string():
    """Given an OD, when set_vs('ObjectString', b'price/fruit', 0, 0, 1208) is called, then
    ObjectStringVSLength is 11, VSCCSID 1208, VSOffset and VSBufSize as given, and
    get_vs('ObjectString') is b'price/fruit' (get_vs('ObjectStringVSPtr') too); a str is
    taken as UTF-8; one never set is None (ibmmq's null pointer)."""
    od = mqpy.OD()
    od.set_vs("ObjectString", b"price/fruit", 0, 0, 1208)
    assert (od.ObjectStringVSLength, od.ObjectStringVSCCSID, od.ObjectStringVSOffset,
            od.ObjectStringVSBufSize) == (11, 1208, 0, 0)
    assert od.get_vs("ObjectString") == od.get_vs("ObjectStringVSPtr") == b"price/fruit"
    od.set_vs("SelectionString", "colour = 'blue'")
    assert od.get_vs("SelectionString") == b"colour = 'blue'"
    assert od.SelectionStringVSLength == len("colour = 'blue'")
    assert od.get_vs("ResObjectString") is None


def test_set_vs_on_a_status_structure_and_a_bad_name():
    """Given an STS (its MQCHARVs are ObjectString and SubName), when set_vs names each,
    then each reads back; a name the structure has no MQCHARV for is an AttributeError, as
    in pymqi."""
    sd = mqpy.STS()
    sd.set_vs("ObjectString", b"sports/#")
    sd.set_vs("SubName", b"MY.SUB", vs_ccsid=1208)
    assert sd.get_vs("ObjectString") == b"sports/#"
    assert sd.get_vs("SubName") == b"MY.SUB" and sd.SubNameVSCCSID == 1208
    with pytest.raises(AttributeError):
        sd.set_vs("NoSuchString", b"x")


def test_set_vs_on_a_structure_a_program_declares():
    """Given a program's own MQOpts with an MQCHARV's five members, when set_vs and get_vs
    are used on it, then the string reads back and the structure still packs."""
    class Own(mqpy.MQOpts):
        def __init__(self, **kw):
            super().__init__([["NameVSPtr", 0, "P"], ["NameVSOffset", 0, "i"],
                              ["NameVSBufSize", 0, "i"], ["NameVSLength", 0, "i"],
                              ["NameVSCCSID", 0, "i"]], **kw)

    own = Own()
    own.set_vs("Name", b"hello")
    assert own.get_vs("Name") == b"hello" and own.NameVSLength == 5
    assert len(own.pack()) == own.get_length()
