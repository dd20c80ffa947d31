"""Given message data with MQRFH2 headers, when properties are taken out of it or given to it,
then the data, its description (the MQMD) and the properties are IBM's."""

import pytest

from mqpy import CMQC
from mqpy.properties.carriage import (
    check_properties_length,
    give_properties,
    properties_length,
    take_properties,
)
from mqpy.properties.errors import PropertyError
from mqpy.properties.propset import PropertySet
from mqpy.properties.rfh2props import folders_of
from mqpy.rfh2 import RFH2
from mqpy.structs.tables import MD

T = CMQC


def rfh2(*folders, fmt=T.MQFMT_STRING, encoding=T.MQENC_NATIVE):
    header = RFH2(Format=fmt, Encoding=encoding, CodedCharSetId=1208, NameValueCCSID=1208)
    for folder in folders:
        header.add_folder(folder)
    return header.pack(encoding)


def test_given_an_application_rfh2_then_its_properties_and_the_body():
    md = MD(Format=T.MQFMT_RF_HEADER_2)
    pset = PropertySet()
    body = take_properties(rfh2(b"<usr><colour>red</colour></usr>") + b"hello", md, pset)
    assert body == b"hello" and md.Format == T.MQFMT_STRING and md.CodedCharSetId == 1208
    assert pset.values() == {"colour": "red"}


def test_given_two_rfh2s_then_both_give_properties():
    md = MD(Format=T.MQFMT_RF_HEADER_2)
    data = rfh2(b"<usr><a dt='i4'>1</a></usr>", fmt=T.MQFMT_RF_HEADER_2) + \
        rfh2(b"<jms><Dst>queue:///Q</Dst></jms>") + b"x"
    pset = PropertySet()
    assert take_properties(data, md, pset) == b"x"
    assert pset.values() == {"a": 1, "jms.Dst": "queue:///Q"}


def test_given_an_rfh2_with_other_folders_then_they_stay_in_the_data():
    md = MD(Format=T.MQFMT_RF_HEADER_2)
    pset = PropertySet()
    data = take_properties(rfh2(b"<psc><Command>Publish</Command></psc>",
                                b"<usr><a>1</a></usr>") + b"body", md, pset)
    assert md.Format == T.MQFMT_RF_HEADER_2 and pset.values() == {"a": "1"}
    again = RFH2()
    again.unpack(data, md.Encoding)
    assert [f.rstrip() for f in again.folders()] == [b"<psc><Command>Publish</Command></psc>"]
    assert again.Format == T.MQFMT_STRING and data.endswith(b"body")


def test_given_no_rfh2_then_the_data_is_unchanged():
    md = MD(Format=T.MQFMT_STRING)
    assert take_properties(b"RFH plain text", md, PropertySet()) == b"RFH plain text"


def test_given_a_big_endian_rfh2_then_read_in_its_encoding():
    md = MD(Format=T.MQFMT_RF_HEADER_2, Encoding=T.MQENC_INTEGER_NORMAL)
    pset = PropertySet()
    data = rfh2(b"<usr><a>1</a></usr>", encoding=T.MQENC_INTEGER_NORMAL) + b"z"
    assert take_properties(data, md, pset) == b"z" and pset.values() == {"a": "1"}


@pytest.mark.parametrize("data,reason", [
    (T.MQRFH_STRUC_ID + b"\x02\0\0\0\x10\0\0\0" + b"\0" * 24, T.MQRC_RFH_ERROR),
    (rfh2(b"<usr><a dt='i4'>one</a></usr>"), T.MQRC_RFH_FORMAT_ERROR),
])
def test_given_a_broken_rfh2_then_its_reason(data, reason):
    with pytest.raises(PropertyError) as err:
        take_properties(data, MD(Format=T.MQFMT_RF_HEADER_2), PropertySet())
    assert err.value.reason == reason


def test_given_properties_then_an_rfh2_in_front_that_reads_back():
    pset = PropertySet()
    pset.set("colour", "red", T.MQTYPE_STRING)
    md = MD(Format=T.MQFMT_STRING, CodedCharSetId=819)
    data = give_properties(pset, b"body", md)
    assert md.Format == T.MQFMT_RF_HEADER_2
    out = PropertySet()
    assert take_properties(data, md, out) == b"body"
    assert (md.Format, md.CodedCharSetId) == (T.MQFMT_STRING, 819)
    assert out.values() == {"colour": "red"}


def test_given_no_properties_then_no_rfh2():
    md = MD(Format=T.MQFMT_STRING)
    assert give_properties(PropertySet(), b"body", md) == b"body" and md.Format == T.MQFMT_STRING


def test_given_maxpropl_then_properties_beyond_it_are_properties_too_big():
    pset = PropertySet()
    pset.set("colour", "red" * 100, T.MQTYPE_STRING)
    size = properties_length(pset)
    assert size == sum(len(f) for f in folders_of(pset)) > 300
    check_properties_length(pset, size)
    check_properties_length(pset, T.MQPROP_UNRESTRICTED_LENGTH)
    with pytest.raises(PropertyError) as err:
        check_properties_length(pset, size - 1)
    assert err.value.reason == T.MQRC_PROPERTIES_TOO_BIG
