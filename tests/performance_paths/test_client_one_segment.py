"""A client's request, and the reply of its MQPUT or MQGET served at once, are packed in
one go (``mqpy.fap.onesegment``, used by ``mqpy.clientcalls`` and
``mqpy_chinit.svrconn_inline``): the same bytes as the general path's, and the general way
for anything else."""

from __future__ import annotations

import itertools
import struct

import pytest

import mqpy
from mqpy import CMQC
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply, build_mqi_request, mqi_event
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.onesegment import reply_segment, request_segment
from mqpy.fap.tsh import ByteOrder, ControlFlags1, SegmentType

_T = SegmentType


def _writers() -> list[SegmentWriter]:
    return [SegmentWriter(),
            SegmentWriter(byte_order=ByteOrder.BIG, encoding=273, ccsid=850, flags2=1),
            SegmentWriter(2048, encoding=546, ccsid=1208)]


def _parts() -> list[tuple[SegmentType, tuple]]:
    mds = [mqpy.MD(), mqpy.MD(MsgId=b"M" * 24, Format=CMQC.MQFMT_STRING, ReplyToQ=b"RQ"),
           mqpy.MD(Version=1, Priority=9)]
    out: list[tuple[SegmentType, tuple]] = []
    for md in mds:
        for pmo in (mqpy.PMO(), mqpy.PMO(Version=1, Options=CMQC.MQPMO_NO_SYNCPOINT)):
            out.append((_T.MQPUT, (md, pmo)))
        for gmo, data in itertools.product(
                (mqpy.GMO(), mqpy.GMO(Version=2, Options=CMQC.MQGMO_NO_WAIT)),
                (b"", b"d" * 100, b"x" * 4000)):
            out.append((_T.MQGET, (md, gmo, len(data), data)))
    return out


def _general(writer: SegmentWriter, verb: SegmentType, comp: int, reason: int,
             parts: tuple, conv_id: int | None, request_id: int | None) -> list[bytes]:
    reply = mqiflows.encode_reply(verb, parts, comp=comp, reason=reason,
                                  byte_order=writer.byte_order)
    return writer.segments(mqi_event(MQIReply, ControlFlags1.NONE, bytes(8), conv_id,
                                     request_id, reply.segment_type, comp, reason, 0,
                                     reply.body, None))


def test_replies_packed_in_one_go_are_the_bytes_of_the_general_path():
    """Given MQPUT and MQGET replies of many forms (structure versions, message lengths,
    byte orders, encodings, CompCodes), when packed in one go, then each is the one
    segment the writer makes of the general path's reply event."""
    packed = 0
    for writer, (verb, parts), (comp, reason), (conv_id, request_id) in itertools.product(
            _writers(), _parts(), ((0, 0), (1, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED)),
            ((1, 3), (7, 0xFFFFFFFF))):
        segment = reply_segment(writer, verb, comp, reason, parts, conv_id, request_id)
        general = _general(writer, verb, comp, reason, parts, conv_id, request_id)
        if segment is None:  # (one that does not fit a segment)
            assert len(general) > 1
            continue
        packed += 1
        assert [segment] == general
        body = mqiflows.common_reply_body(verb, parts, writer.byte_order)
        assert segment == writer.reply(int(mqiflows.reply_type(verb)), comp, reason, 0,
                                       (body,), conv_id, request_id)
    assert packed > 100


def test_a_reply_without_a_tshm_or_of_another_form_takes_the_writers_way():
    """Given a conversation without a TSHM (SHARECNV(0)), or a reply whose structures are
    not of the common form, when its reply is asked of the packer, then it gives None
    and the writer's way makes the reply."""
    writer = SegmentWriter()
    assert reply_segment(writer, _T.MQPUT, 0, 0, (mqpy.MD(), mqpy.PMO()), None, None) is None
    odd = mqpy.MD()
    odd.__dict__["Version"] = 99
    assert reply_segment(writer, _T.MQPUT, 0, 0, (odd, mqpy.PMO()), 1, 1) is None
    assert reply_segment(writer, _T.MQGET, 0, 0, (mqpy.MD(), mqpy.GMO(), 1, "text"),
                         1, 1) is None


def test_requests_packed_in_one_go_are_the_bytes_of_build_mqi_request():
    """Given a client's MQPUT, MQGET and MQCMIT requests (bodies of several lengths, empty
    ones, request ids and handles up to their fields' ends, encodings and flags), when
    packed in one go, then each is what ``build_mqi_request`` makes; one longer than a
    segment gives None, and a number out of its field raises as there."""
    writers = [w for w in _writers() if w.byte_order is ByteOrder.LITTLE]
    bodies = [None, b"", b"b" * 500, b"c" * 2000]
    for writer, verb, body, hobj, (conv_id, request_id) in itertools.product(
            writers, (_T.MQPUT, _T.MQGET, _T.MQCMIT), bodies, (0, 5, 0xFFFFFFFF),
            ((1, 1), (9, 0xFFFFFFFF))):
        segment = request_segment(writer, verb, hobj, body, conv_id, request_id)
        general = build_mqi_request(verb, hobj, () if body is None else (body,),
                                    conv_id=conv_id, request_id=request_id,
                                    encoding=writer.encoding, ccsid=writer.ccsid,
                                    flags2=writer.flags2)
        if len(general) > writer.max_transmission_size:
            assert segment is None
        else:
            assert segment == general
    for hobj, request_id in ((1 << 32, 1), (-1, 1), (1, 1 << 32)):
        with pytest.raises((struct.error, OverflowError)):
            build_mqi_request(_T.MQPUT, hobj, (b"",), conv_id=1, request_id=request_id)
        with pytest.raises((struct.error, OverflowError)):
            request_segment(SegmentWriter(), _T.MQPUT, hobj, b"", 1, request_id)
