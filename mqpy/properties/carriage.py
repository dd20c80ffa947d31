"""Properties carried in message data: the MQRFH2 headers at the front of a message made into
properties (an application's MQRFH2 on MQPUT, MQBUFMH), and properties written as an MQRFH2 in
front of the data (MQGET with MQGMO_PROPERTIES_FORCE_MQRFH2 / PROPCTL, MQMHBUF).

``md`` is anything with ``Format``, ``Encoding`` and ``CodedCharSetId`` (an MQMD, or the
header before): on return it describes the data returned. A header that is not an MQRFH2, or
an MQRFH2 that is not well formed, is MQRC_RFH_ERROR; a folder that is not,
MQRC_RFH_FORMAT_ERROR.
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.errors import PYIFError
from mqpy.properties import rfh2props
from mqpy.properties.errors import fail
from mqpy.properties.propset import PropertySet
from mqpy.rfh2 import RFH2

__all__ = ["check_properties_length", "give_properties", "properties_length", "take_properties"]

C = CMQC
_UTF8 = 1208


def take_properties(data: bytes, md: Any, pset: PropertySet) -> bytes:
    """Add the property folders of the MQRFH2 chain at the front of ``data`` to ``pset``;
    return ``data`` without them. An MQRFH2 left with other folders (``psc`` ...) stays, with
    only those; ``md`` then still says MQFMT_RF_HEADER_2."""
    data = bytes(data)
    kept: list[RFH2] = []
    while md.Format == C.MQFMT_RF_HEADER_2 and data[:4] == C.MQRFH_STRUC_ID:
        header = RFH2()
        try:
            header.unpack(data, md.Encoding)
        except PYIFError:
            raise fail(C.MQRC_RFH_ERROR) from None
        others = rfh2props.read_folders(header.folders(), pset, header.NameValueCCSID)
        if others:
            rest = RFH2(Format=header.Format, Encoding=header.Encoding,
                        CodedCharSetId=header.CodedCharSetId,
                        NameValueCCSID=header.NameValueCCSID)
            for folder in others:
                rest.add_folder(folder)
            kept.append(rest)
        data = data[header.StrucLength:]
        if not kept:
            md.Format, md.Encoding, md.CodedCharSetId = (
                header.Format, header.Encoding, header.CodedCharSetId)
        else:
            kept[-1].Format, kept[-1].Encoding, kept[-1].CodedCharSetId = (
                header.Format, header.Encoding, header.CodedCharSetId)
    if not kept:
        return data
    encoding = md.Encoding
    for before in kept[:-1]:  # each points at the next, all in the first one's encoding
        before.Format, before.Encoding = C.MQFMT_RF_HEADER_2, encoding
    return b"".join(h.pack(encoding) for h in kept) + data


def give_properties(pset: PropertySet, data: bytes, md: Any) -> bytes:
    """``data`` with one MQRFH2 in front carrying every property of ``pset`` (NameValueCCSID
    1208); the MQRFH2 takes md's Format, Encoding and CodedCharSetId for ``data`` and ``md``
    then says MQFMT_RF_HEADER_2. No properties: ``data`` and ``md`` as they were."""
    folders = rfh2props.folders_of(pset)
    if not folders:
        return bytes(data)
    header = RFH2(Format=md.Format, Encoding=md.Encoding, CodedCharSetId=md.CodedCharSetId,
                  NameValueCCSID=_UTF8)
    for folder in folders:
        header.add_folder(folder)
    md.Format = C.MQFMT_RF_HEADER_2
    return header.pack(md.Encoding) + bytes(data)


def properties_length(pset: PropertySet) -> int:
    """The length of a message's properties, as MAXPROPL counts it here: the bytes of their
    MQRFH2 folders."""
    return sum(len(folder) for folder in rfh2props.folders_of(pset))


def check_properties_length(pset: PropertySet, max_length: int) -> None:
    """MQPUT's check against the queue manager's MaxPropertiesLength: longer is
    MQRC_PROPERTIES_TOO_BIG; MQPROP_UNRESTRICTED_LENGTH allows any."""
    if max_length != C.MQPROP_UNRESTRICTED_LENGTH and properties_length(pset) > max_length:
        raise fail(C.MQRC_PROPERTIES_TOO_BIG)
