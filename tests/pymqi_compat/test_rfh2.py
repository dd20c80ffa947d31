"""pymqi's RFH2: MQRFH2 headers built, packed in either byte order, unpacked, and carried in
front of a message with Queue.put_rfh2 / Queue.get_rfh2, as pymqi programs use them
(``import mqpy as pymqi``).

what pymqi users rely on: "pymqi compatibility": the names in pymqi's documentation and examples
exist with the same signatures and behaviour.
"""

from __future__ import annotations

import struct

import pytest

import mqpy as pymqi
from mqpy import CMQC
from tests.pymqi_compat.conftest import QUEUE

MCD = b"<mcd><Msd>jms_text</Msd></mcd>"
USR = b"<usr><Colour>blue</Colour><Size>31</Size></usr>"  # 47 bytes


def _header() -> pymqi.RFH2:
    rfh2 = pymqi.RFH2(Format=CMQC.MQFMT_STRING, CodedCharSetId=1208, NameValueCCSID=1208)
    rfh2.add_folder(MCD)
    rfh2.add_folder(USR)
    return rfh2


def test_add_folder_pads_to_four_bytes_and_keeps_struc_length():
    """Given an RFH2, when two XML folders are added, then each is blank-padded to a
    multiple of 4, appears as <name> and <name>Length, and StrucLength is 36 plus each
    folder and its 4-byte length."""
    rfh2 = _header()
    assert rfh2["mcd"] == MCD + b"  "
    assert rfh2["mcdLength"] == 32
    assert rfh2.usr == USR + b" "
    assert rfh2.usrLength == 48
    assert rfh2["StrucLength"] == 36 + 4 + 32 + 4 + 48 == rfh2.get_length()
    assert list(rfh2.get())[:8] == ["StrucId", "Version", "StrucLength", "Encoding",
                                    "CodedCharSetId", "Format", "Flags", "NameValueCCSID"]
    assert list(rfh2.get())[8:] == ["mcdLength", "mcd", "usrLength", "usr"]


def test_pack_lays_out_ibm_fields_in_the_given_encoding():
    """Given an RFH2, when it is packed for a little-endian and a big-endian predecessor,
    then the fixed part and each folder length are in that byte order at IBM's offsets."""
    rfh2 = _header()
    little = rfh2.pack(CMQC.MQENC_NATIVE)
    big = rfh2.pack(CMQC.MQENC_INTEGER_NORMAL | CMQC.MQENC_DECIMAL_NORMAL
                    | CMQC.MQENC_FLOAT_IEEE_NORMAL)  # 273, as on AIX or z/OS
    for data, order in ((little, "<"), (big, ">")):
        assert data[0:4] == b"RFH "
        version, length, encoding, ccsid = struct.unpack_from(order + "4i", data, 4)
        assert (version, length, encoding, ccsid) == (2, len(data), CMQC.MQENC_NATIVE, 1208)
        assert data[20:28] == CMQC.MQFMT_STRING
        assert struct.unpack_from(order + "2i", data, 28) == (0, 1208)
        assert struct.unpack_from(order + "i", data, 36)[0] == 32
        assert data[40:72] == MCD + b"  "
    assert little != big


@pytest.mark.parametrize("encoding", [None, CMQC.MQENC_NATIVE, 273])
def test_unpack_reads_back_what_pack_wrote(encoding):
    """Given a packed RFH2 followed by message data, when a fresh RFH2 unpacks it (told the
    encoding, or telling it from the Version field), then every field and folder comes back
    and the message data is left alone."""
    packed = _header().pack(encoding)
    got = pymqi.RFH2()
    got.unpack(packed + b"the body", encoding)
    assert got.get() == _header().get()
    assert packed[got["StrucLength"]:] + b"the body" == b"the body"


@pytest.mark.parametrize(("buffer", "complaint"), [
    (b"XXXX" + bytes(40), "StrucId"),
    (b"RFH " + bytes(10), "too short"),
    (b"RFH " + struct.pack("<3i", 2, 200, 546) + bytes(24), "Buffer too short"),  # past the fixed part
    (b"RFH " + struct.pack("<3i", 2, 44, 546) + bytes(20) + struct.pack("<i", 40) + b"<a/>",
     "does not fit"),
    (b"RFH " + struct.pack("<3i", 2, 44, 546) + bytes(20) + struct.pack("<i", 4) + b"<a> ",
     "not well formed"),
])
def test_malformed_headers_are_refused_with_pyiferror(buffer, complaint):
    """Given a damaged MQRFH2 (wrong StrucId, short buffer, StrucLength past the data, a
    folder length past StrucLength, a folder that is not XML), when it is unpacked, then
    PYIFError says what is wrong, as pymqi reports it."""
    with pytest.raises(pymqi.PYIFError) as e:
        pymqi.RFH2().unpack(buffer)
    assert complaint in str(e.value)


def test_a_folder_must_be_xml_and_bytes():
    """Given an RFH2, when a folder that is not well-formed XML, or a str, is added, then
    PYIFError / TypeError refuse it and the header is unchanged."""
    rfh2 = pymqi.RFH2()
    with pytest.raises(pymqi.PYIFError):
        rfh2.add_folder(b"<usr><open></usr>")
    with pytest.raises(TypeError):
        rfh2.add_folder("<usr/>")
    assert rfh2.StrucLength == 36
    with pytest.raises(AttributeError):
        rfh2["usr"]


def test_an_rfh2_message_round_trips_through_a_queue(qmgr):
    """Given a message put with put_rfh2 (MD.Format MQFMT_RF_HEADER_2, two chained MQRFH2
    headers, the last naming MQSTR), when it is got with get_rfh2 (over each connection
    type), then the body comes back without the headers and the header list holds both,
    folders and all; a plain get sees the headers in the data."""
    first = _header()
    first["Format"] = CMQC.MQFMT_RF_HEADER_2
    second = pymqi.RFH2(Format=CMQC.MQFMT_STRING)
    second.add_folder(b"<usr><Second>yes</Second></usr>")
    md = pymqi.MD(Format=CMQC.MQFMT_RF_HEADER_2)
    queue = pymqi.Queue(qmgr, QUEUE)
    queue.put_rfh2(b"hello with headers", md, pymqi.PMO(), [first, second])
    queue.put_rfh2(b"again", pymqi.MD(Format=CMQC.MQFMT_RF_HEADER_2), pymqi.PMO(), [second])
    queue.close()

    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    headers: list = []
    got_md = pymqi.MD()
    body = queue.get_rfh2(None, got_md, pymqi.GMO(), headers)
    assert body == b"hello with headers"
    assert got_md.Format == CMQC.MQFMT_RF_HEADER_2
    assert [h.get() for h in headers] == [first.get(), second.get()]
    assert headers[0]["usr"] == USR + b" "
    assert headers[1]["Format"] == CMQC.MQFMT_STRING

    raw = queue.get(None, pymqi.MD(), pymqi.GMO())
    assert raw == second.pack(CMQC.MQENC_NATIVE) + b"again"
    queue.close()


def test_get_rfh2_leaves_other_formats_alone(qmgr):
    """Given a plain MQSTR message, when it is got with get_rfh2, then it is returned whole
    and no header is added to the list."""
    pymqi.Queue(qmgr, QUEUE).put(b"no header here", pymqi.MD(Format=CMQC.MQFMT_STRING))
    headers: list = []
    queue = pymqi.Queue(qmgr, QUEUE)
    assert queue.get_rfh2(None, pymqi.MD(), pymqi.GMO(), headers) == b"no header here"
    assert headers == []
    queue.close()


def test_put_rfh2_refuses_a_header_list_that_is_not_a_list(qmgr):
    """Given a queue, when put_rfh2 is given a tuple of headers, then TypeError says the
    third item must be a list and nothing is put."""
    queue = pymqi.Queue(qmgr, QUEUE)
    with pytest.raises(TypeError, match="should be a list"):
        queue.put_rfh2(b"x", pymqi.MD(), pymqi.PMO(), (pymqi.RFH2(),))
    with pytest.raises(pymqi.MQMIError) as e:
        pymqi.Queue(qmgr, QUEUE).get()
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
