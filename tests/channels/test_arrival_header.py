"""What a receiving MCA reads of an arrival in place in its transmission header.

The receiver passes an arrival's MQMD on to its queue manager as the bytes that came in the
MQXQH (mqiparams.Packed) rather than decoding and encoding it again; what it needs itself
(destination, Format, UserIdentifier) it reads in place. Those must be what decoding gives.
"""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiparams
from mqpy.fap.messagedata import XQH_LENGTH, MessageData
from mqpy.fap.statuscodes import StatusCode
from mqpy.fap.tsh import ByteOrder
from mqpy_chinit import arrivals
from mqpy_chinit import receiver_mca as mca


def _arrival_event(byte_order: ByteOrder) -> MessageData:
    md = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING,
                 UserIdentifier=b"alice", Report=CMQC.MQRO_EXCEPTION, ReplyToQ=b"RQ",
                 PutApplName=b"app")
    xqh = mqpy.XQH(RemoteQName=b"TARGET", RemoteQMgrName=b"QM2", MsgDesc=md)
    return MessageData.from_xqh(7, xqh, b"data", byte_order=byte_order)


@pytest.mark.parametrize("order", list(ByteOrder))
def test_an_arrivals_fields_read_in_place_are_those_decoding_gives(order):
    """Given an arrival from a partner of either byte order, when the receiver reads it,
    then destination, Format and UserIdentifier are those of the decoded MQXQH, and the
    MQMD passed on decodes to the MQXQH's own."""
    ev = _arrival_event(order)
    dest_q, dest_qm, md, fmt, user = arrivals.arrival(ev)
    xqh = ev.transmission_header
    assert (dest_q, dest_qm) == (b"TARGET", b"QM2")
    assert (fmt, user) == (xqh.MsgDesc.Format, xqh.MsgDesc.UserIdentifier)
    assert isinstance(md, mqiparams.Packed)
    assert md.unpacked() == xqh.MsgDesc


def test_an_mqmd_that_is_not_version_1_is_decoded_as_before():
    """Given an arrival whose MQXQH's MQMD says Version 2 (an MQXQH carries a version-1
    MQMD), when the receiver reads it, then its MQMD is decoded (and so re-encoded for the
    put as before), not passed on as bytes that the queue manager would read as a longer
    structure."""
    ev = _arrival_event(ByteOrder.LITTLE)
    raw = bytearray(ev.xqh)
    at = XQH_LENGTH + mqpy.MD.offset_of("Version")
    raw[at:at + 4] = (2).to_bytes(4, "little")
    ev = MessageData(seqnum=7, xqh=bytes(raw), data=b"data")
    _, _, md, _, user = arrivals.arrival(ev)
    assert isinstance(md, mqpy.MD) and md.Version == 2
    assert user == b"alice".ljust(12)


@pytest.mark.parametrize("version", [0, 99, -2**31])
async def test_a_transmission_header_that_does_not_decode_is_a_protocol_error(version):
    """Given an arrival whose MQXQH carries an MQMD of a Version no MQMD has, when the
    receiver delivers it, then the batch ends with AMQ9504E naming the message (the partner
    told PROTOCOL_INVALID_DATA), not with the decoder's exception escaping the MCA."""
    ev = _arrival_event(ByteOrder.LITTLE)
    raw = bytearray(ev.xqh)
    at = XQH_LENGTH + mqpy.MD.offset_of("Version")
    raw[at:at + 4] = version.to_bytes(4, "little", signed=True)
    ev = MessageData(seqnum=7, xqh=bytes(raw), data=b"data")
    receiver = mca.ReceiverMCA.__new__(mca.ReceiverMCA)  # (deliver decodes before all else)
    problem = await receiver.deliver(None, ev)
    assert problem.msgid == "AMQ9504E" and "message 7" in problem.text
    assert problem.status_code == StatusCode.PROTOCOL_INVALID_DATA
