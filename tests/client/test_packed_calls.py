"""A client connection's usual MQPUT and MQGET are framed and read in one go
(``mqpy.clientcalls``, ``ChannelInstance.exchange``): the same bytes as the general path's,
the same answers, and the general path for anything else."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, clientcalls
from mqpy.clientinstance import ChannelInstance
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import MQIReply, build_mqi_request, mqi_event, parse_mqi_segment
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import ByteOrder, SegmentType
from tests.client.conftest import QUEUE
from tests.support.mqi_workload import md_forms, puts_and_gets

_T = SegmentType


def test_packed_requests_are_the_bytes_of_the_general_path():
    """Given MQPUT and MQGET requests of many forms on a conversation, when packed in one
    go, then they are byte for byte what the general path's ``frame`` makes."""
    writer = SegmentWriter(32768)
    instance = ChannelInstance.__new__(ChannelInstance)
    instance.writer = writer
    for md in md_forms():
        for verb, values in ((_T.MQPUT, [md, mqpy.PMO(), b"data" * 50]),
                             (_T.MQGET, [md, mqpy.GMO(), 100])):
            body = mqiflows.common_request_body(verb, values)
            assert build_mqi_request(verb, 7, (body,), conv_id=3, request_id=9,
                                     encoding=writer.encoding, ccsid=writer.ccsid,
                                     flags2=writer.flags2) == \
                instance.frame(verb, mqiflows.request_body(verb, values), 7, 3, 9)


def _replies() -> list[tuple]:
    """(verb, reply values, CompCode, Reason) of replies of every kind a put or get gets."""
    out: list[tuple] = [(_T.MQPUT, None, CMQC.MQCC_FAILED, CMQC.MQRC_Q_FULL),
                        (_T.MQGET, None, CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)]
    for md in md_forms():
        out.append((_T.MQPUT, [md, mqpy.PMO(ResolvedQName="Q")], CMQC.MQCC_OK, 0))
        for data in (b"", b"x" * 1024):
            out.append((_T.MQGET, [md, mqpy.GMO(ResolvedQName="Q"), len(data), data],
                        CMQC.MQCC_OK, 0))
        out.append((_T.MQGET, [md, mqpy.GMO(), 5000, b"x" * 10], CMQC.MQCC_WARNING,
                    CMQC.MQRC_TRUNCATED_MSG_ACCEPTED))
    return out


class _Reader:
    buffered = 0
    reassembling = False
    partner_byte_order = ByteOrder.LITTLE
    max_transmission_size = 32768


def _reading() -> ChannelInstance:
    instance = ChannelInstance.__new__(ChannelInstance)
    instance.reader = _Reader()
    return instance


def test_replies_read_in_one_go_are_what_the_reader_and_decoder_give():
    """Given replies of every kind as the SVRCONN writes them to a conversation, when the
    packed call reads one that came whole and alone, then its fields and decoded values are
    those of the reader's event and the general decoder; anything else is left to them."""
    writer = SegmentWriter(32768)
    instance = _reading()
    for verb, values, comp, reason in _replies():
        reply = mqiflows.encode_reply(verb, values, comp=comp, reason=reason)
        data = _addressed(writer, reply, 5, 2)
        event = parse_mqi_segment(data, 0, len(data))[0]
        flow = instance._one_reply(data, 5, int(mqiflows.reply_type(verb)))
        assert flow == (int(event.segment_type), event.comp, event.reason, event.hobj,
                        event.body)
        assert clientcalls._decoded(verb, flow, ()) == \
            mqiflows.decode_reply(event, ByteOrder.LITTLE)
        assert instance._one_reply(data, 6, int(mqiflows.reply_type(verb))) is None
        assert instance._one_reply(data[:-1], 5, int(mqiflows.reply_type(verb))) is None
        assert instance._one_reply(data + data, 5, int(mqiflows.reply_type(verb))) is None
        assert instance._one_reply(data, 5, int(mqiflows.reply_type(_T.MQOPEN))) is None
    big = SegmentWriter(32768, byte_order=ByteOrder.BIG)
    reply = mqiflows.encode_reply(_T.MQPUT, [mqpy.MD(), mqpy.PMO()])
    data = _addressed(big, reply, 5, 2)
    assert instance._one_reply(data, 5, int(mqiflows.reply_type(_T.MQPUT))) is None


def _addressed(writer: SegmentWriter, reply: MQIReply, conv_id: int,
               request_id: int) -> bytes:
    """``reply`` as the SVRCONN writes it to conversation ``conv_id``."""
    return writer.send(mqi_event(MQIReply, reply.flags, reply.luwid, conv_id, request_id,
                                 reply.segment_type, reply.comp, reply.reason, reply.hobj,
                                 reply.body, reply.reply_length))


def _workload(env, suffix: str) -> list:  # noqa: ANN001 - the client tests' Env
    """``puts_and_gets`` over a client connection, on a queue and a full one named with
    ``suffix``: everything the application saw."""
    env.define("QLOCAL", QUEUE + suffix, MAXDEPTH=100)
    env.define("QLOCAL", "FULL" + suffix, MAXDEPTH=1)
    qm = env.client()
    try:
        return puts_and_gets(qm, QUEUE + suffix, "FULL" + suffix, md_forms(), suffix)
    finally:
        qm.disconnect()


def test_a_workload_gets_the_same_answers_packed_and_not(env, monkeypatch):
    """Given the same workload of usual and unusual puts and gets over a client connection,
    when it runs with the packed calls and then with the general path only, then the
    application sees the same answers, messages and structures, and the packed calls
    served the usual ones in one read (MQCMIT too)."""
    one_reply = ChannelInstance._one_reply
    packed: list[object] = []

    def counting(self, *args):  # noqa: ANN001, ANN002, ANN202
        flow = one_reply(self, *args)
        packed.append(flow)
        return flow

    monkeypatch.setattr(ChannelInstance, "_one_reply", counting)
    fast = _workload(env, "")
    assert len([f for f in packed if f is not None]) > 10
    monkeypatch.setattr(clientcalls.PackedClientCalls, "_packable", lambda self: 0)
    packed.clear()
    general = _workload(env, "2")
    assert packed == []
    assert fast == general
