"""The MQMD as the engine stores it and gives it back, and the checks of the structures a
call is given.

The MQMD of a stored message was packed by the queue manager itself, so the hot paths pack and
unpack it with the layout's compiled struct (:func:`_pack_md`, :func:`_unpack_md`) and read and
write the packed MQMD's fields in place (the ``_MD_*`` offsets: ``engine.packed``); put dates
and times (:func:`_put_timestamp`); the MQ headers an MQPUT's data must start with when its
Format names one (:func:`_check_header`); the transmission-queue message
(:func:`_transmission_message`); each structure's StrucId and Version (:func:`_refuse_header`).
"""

from __future__ import annotations

import struct
import time

from mqpy import CMQC
from mqpy.engine import records as R
from mqpy.engine.options import _fail
from mqpy.engine.queues import Entry
from mqpy.errors import PYIFError
from mqpy.rfh2 import RFH2
from mqpy.structs.fields import StructError
from mqpy.structs.mdcodec import MD_BY_LENGTH as _MD_BY_LENGTH  # noqa: F401 (engine.packed's)
from mqpy.structs.mdcodec import MD_CODEC as _MD_CODEC  # noqa: F401 (engine.mqget's)
from mqpy.structs.mdcodec import VERSION_AT as _VERSION_AT
from mqpy.structs.mdcodec import pack_md as _pack_md  # noqa: F401 (engine.mqput's)
from mqpy.structs.mdcodec import unpack_md as _unpack_md  # noqa: F401 (engine.mqget's)
from mqpy.structs.tables import DLH, GMO, MD, PMO, XQH

_NONE24 = b"\x00" * 24


def _id24(value: bytes) -> bytes:
    """A MsgId/CorrelId as its 24 stored bytes (pymqi lets applications give fewer)."""
    if len(value) == 24 and type(value) is bytes:
        return value
    return value[:24].ljust(24, b"\x00")
_NO_ID = frozenset((b"", b"\x00" * 24))  # the usual spellings of MQMI_NONE / MQCI_NONE


def _trusted(struc: MD, fields: dict[str, object]) -> None:
    """Set fields the queue manager itself computed, skipping the application-facing checks."""
    struc.__dict__.update(fields)


_REPORT_AT = _VERSION_AT  # MQMD.Report: the MQLONG at offset 8 of every version
_MSG_HEADER = R.MESSAGE_HEADER  # a stored message: this header, its MQMD, its data
_MSG_HEADER_SIZE = R.MESSAGE_HEADER_SIZE


# (second, PutDate, PutTime's HHMMSS) and (hundredth of a second, its stamp), each replaced
# whole (one store), so that engines in other threads never read half of one
_stamp_second: list = [(-1, b"", b"")]
_stamp_last: list = [(-1, (b"", b""))]


def _put_timestamp(now: float) -> tuple[bytes, bytes]:
    """PutDate YYYYMMDD and PutTime HHMMSSTH, in GMT as MQ fills them."""
    hundredths = int(now * 100)
    last = _stamp_last[0]
    if hundredths == last[0]:
        return last[1]
    sec = int(now)
    cached = _stamp_second[0]
    if sec != cached[0]:
        gm = time.gmtime(sec)
        cached = _stamp_second[0] = (sec, time.strftime("%Y%m%d", gm).encode(),
                                     time.strftime("%H%M%S", gm).encode())
    stamp = (cached[1], cached[2] + b"%02d" % (hundredths % 100))
    _stamp_last[0] = (hundredths, stamp)
    return stamp
_BLANK_NAMES = frozenset((b"", b" " * 48, b"\x00" * 48))  # a ReplyToQ naming no queue
_MD_MSGID_AT = MD._layout_.offsets["MsgId"]
_MD_DATE_AT = MD._layout_.offsets["PutDate"]  # PutTime follows
assert MD._layout_.offsets["PutTime"] == _MD_DATE_AT + 8
# the packed MQMD's fields read and written in place (engine.packed's puts and gets)
_MD_OFFSETS = MD._layout_.offsets
_MD_HEAD = struct.Struct("<4s5i")  # StrucId, Version, Report, MsgType, Expiry, Feedback
_MD_STRUC_ID = CMQC.MQMD_STRUC_ID
_MD_PRIORITY_AT = _MD_OFFSETS["Priority"]  # Persistence follows
_MD_PRIORITY_PERSISTENCE = struct.Struct("<2i")
_MD_MSGID = slice(_MD_MSGID_AT, _MD_MSGID_AT + 24)
_MD_CORRELID = slice(_MD_OFFSETS["CorrelId"], _MD_OFFSETS["CorrelId"] + 24)
_MD_REPLY_TO_Q = slice(_MD_OFFSETS["ReplyToQ"], _MD_OFFSETS["ReplyToQ"] + 48)
_MD_BACKOUT_AT = _MD_OFFSETS["BackoutCount"]
_MD_EXPIRY_AT = _MD_OFFSETS["Expiry"]
_MD_CCSID = slice(_MD_OFFSETS["CodedCharSetId"], _MD_OFFSETS["CodedCharSetId"] + 4)
_ZERO_LONG = bytes(4)
assert _MD_OFFSETS["Persistence"] == _MD_PRIORITY_AT + 4 and _MD_EXPIRY_AT == 16
assert _MD_OFFSETS["CorrelId"] == _MD_MSGID_AT + 24
# Each structure's StrucId and the Versions mqpy knows: an embedded application hands the
# engine its objects (a bindings or client call's were checked when their bytes were read),
# so every call checks them, one comparison each in the usual case (_refuse_header does the
# rest: MQRC_MD_ERROR, MQRC_PMO_ERROR, MQRC_GMO_ERROR, MQRC_OD_ERROR).
def _versions(cls: type) -> frozenset[int]:
    layout = cls._layout_  # type: ignore[attr-defined]
    return frozenset(range(layout.versions[0], layout.highest_version + 1))


_MD_VERSIONS, _PMO_VERSIONS, _GMO_VERSIONS = _versions(MD), _versions(PMO), _versions(GMO)
_PMO_STRUC_ID, _GMO_STRUC_ID = CMQC.MQPMO_STRUC_ID, CMQC.MQGMO_STRUC_ID


def _refuse_header(*strucs: object) -> None:
    """The call fails with the first of ``strucs`` (MQStructs or None) whose StrucId or
    Version is not valid (``MQStruct.header_error``)."""
    for struc in strucs:
        reason = struc.header_error() if struc is not None else 0  # type: ignore[attr-defined]
        if reason:
            raise _fail(reason)


# The MQ headers an MQPUT's data must start with, valid, when its MQMD Format names one (IBM
# checks them at MQPUT): the fast paths leave such a put to the general path. By every way
# of writing the Format that packs to the name (a field is kept as given, blank-padded when
# packed: b"MQDEAD" is MQFMT_DEAD_LETTER_HEADER too).
_HEADER_FORMATS = {fmt.rstrip(b" ").ljust(n, b" "): fmt
                   for fmt in (CMQC.MQFMT_XMIT_Q_HEADER, CMQC.MQFMT_DEAD_LETTER_HEADER,
                               CMQC.MQFMT_RF_HEADER_2)
                   for n in range(len(fmt.rstrip(b" ")), len(fmt) + 1)}
_MD_FORMAT = slice(MD._layout_.offsets["Format"], MD._layout_.offsets["Format"] + 8)


def _check_header(fmt: bytes, data: bytes, encoding: int) -> None:
    """The call fails when ``data`` does not start with a valid header of the kind ``fmt``
    (one of _HEADER_FORMATS) names: MQRC_XQH_ERROR, MQRC_DLH_ERROR, MQRC_RFH_ERROR. Its
    integers are in ``encoding``'s byte order (the MQMD's Encoding)."""
    if fmt == CMQC.MQFMT_RF_HEADER_2:
        try:
            header = RFH2()
            header.unpack(data, encoding)
        except PYIFError:
            raise _fail(CMQC.MQRC_RFH_ERROR) from None
        if header.Version != CMQC.MQRFH_VERSION_2:
            raise _fail(CMQC.MQRC_RFH_ERROR)
        return
    cls = XQH if fmt == CMQC.MQFMT_XMIT_Q_HEADER else DLH
    try:
        cls.from_bytes(data, encoding)
    except (StructError, struct.error):
        raise _fail(cls._layout_.reason) from None


def _transmission_message(md: MD, data: bytes, remote_q: str, remote_qm: str
                          ) -> tuple[MD, bytes]:
    """A message for a transmission queue: its own MQMD (Format MQXMIT) then an MQXQH naming
    the destination and embedding the original MQMD, then the data."""
    xqh = XQH()
    xqh.RemoteQName = remote_q.encode("latin-1")
    xqh.RemoteQMgrName = remote_qm.encode("latin-1")
    xqh.MsgDesc = md.copy()
    outer = md.copy()
    outer.Format = CMQC.MQFMT_XMIT_Q_HEADER
    outer.Encoding = CMQC.MQENC_NATIVE
    return outer, xqh.pack() + data


def entry_from_record(seq: int, record: bytes) -> Entry:
    """Rebuild a message's index entry from its stored record (used at restart)."""
    put_time, backout, md_bytes, data = R.decode_message(record)
    md = MD().unpack(md_bytes)
    expiry_at = put_time + md.Expiry / 10.0 if md.Expiry > 0 else 0.0
    return Entry(seq, min(md.Priority, 9), md.Persistence == CMQC.MQPER_PERSISTENT, _id24(md.MsgId),
                 _id24(md.CorrelId), expiry_at, len(data), record, put_time, backout_count=backout)
