"""The bindings MQI codec: every verb's request and reply round-trips; bad bytes are refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqpy import CMQC
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import ByteOrder, SegmentType
from mqpy.fap.userid import Credentials
from mqpy.structs.pubsubstructs import SD, SRO
from mqpy.structs.tables import GMO, MD, OD, PMO, STS

T = SegmentType
ORDERS = (ByteOrder.LITTLE, ByteOrder.BIG)


def _samples(data: bytes, options: int) -> dict:
    md = MD(Priority=7, Persistence=1, MsgId=b"M" * 24, CorrelId=b"C" * 24, Format=b"MQSTR")
    od = OD(ObjectName=b"Q1", Version=3, ResolvedQName=b"Q1")
    sd = SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED, ObjectName=b"SPORTS")
    requests = {
        T.MQCONN: [("QM1", "amqsput"), mqiparams.ConnSecurity(
            Credentials("alice", data.decode("latin-1")[:100]), "bob", "APP.SVRCONN",
            "127.0.0.1")],
        T.MQDISC: [],
        T.MQOPEN: [od, options],
        T.MQCLOSE: [options],
        T.MQGET: [md, GMO(Options=options, WaitInterval=5000), -1],
        T.MQPUT: [md, PMO(Options=options), data],
        T.MQPUT1: [od, md, PMO(Options=options), data],
        T.MQSET: [[CMQC.MQIA_INHIBIT_PUT, CMQC.MQCA_TRIGGER_DATA], [1, b"DATA"]],
        T.MQINQ: [[CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQCA_Q_NAME]],
        T.MQCMIT: [],
        T.MQBACK: [],
        T.SPI: [mqiflows.SpiVerb.RESOLVE, b"LUW-0001", 1],
        T.MQSTAT: [CMQC.MQSTAT_TYPE_ASYNC_ERROR, STS(Version=1)],
        T.MQSUB: [sd, CMQC.MQHO_NONE],
        T.MQSUBRQ: [CMQC.MQSR_ACTION_PUBLICATION, SRO()],
    }
    replies = {
        T.MQCONN: [("QM1", "amqsput")],
        T.MQOPEN: [od],
        T.MQGET: [md, GMO(ReturnedLength=len(data)), len(data), data],
        T.MQPUT: [md, PMO(ResolvedQName=b"Q1")],
        T.MQPUT1: [od, md, PMO()],
        T.MQINQ: [[5, b"Q1".ljust(48)]],
        T.SPI: [[b"LUW-0001", b"LUW-0002"]],
        T.MQSTAT: [CMQC.MQSTAT_TYPE_ASYNC_ERROR,
                   STS(PutSuccessCount=3, Reason=CMQC.MQRC_Q_FULL, ObjectName=b"Q1")],
        T.MQSUB: [sd, 12],
        T.MQSUBRQ: [SRO(NumPubs=2)],
    }
    return {"requests": requests, "replies": replies}


def _through_segments(event, order, max_size=512):
    """Frame ``event`` in small segments and reassemble it, as the socket does."""
    writer = SegmentWriter(max_size, byte_order=order)
    reader = SegmentReader(max_size)
    (out,) = reader.feed(writer.send(event))
    return out


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=3000), options=st.integers(-(2**31), 2**31 - 1))
@pytest.mark.parametrize("order", ORDERS)
def test_every_request_and_reply_round_trips_in_both_byte_orders(order, data, options):
    """Given any message data and options, when each verb's request and reply is encoded,
    split into segments and decoded in either byte order, then the values come back equal."""
    samples = _samples(data, options)
    for verb, values in samples["requests"].items():
        event = _through_segments(mqiflows.encode_request(verb, values, hobj=9, byte_order=order),
                                  order)
        decoded = mqiflows.decode_request(event, order)
        assert (decoded.verb, decoded.hobj) == (verb, 9)
        assert list(decoded.values) == values, verb.name
    for verb in mqiflows.REPLIES:
        values = samples["replies"].get(verb, [])
        event = _through_segments(
            mqiflows.encode_reply(verb, values, comp=CMQC.MQCC_WARNING, reason=2049, hobj=4,
                                  byte_order=order), order)
        assert event.segment_type == verb + 0x10
        decoded = mqiflows.decode_reply(event, order)
        assert (decoded.comp, decoded.reason, decoded.hobj) == (CMQC.MQCC_WARNING, 2049, 4)
        assert list(decoded.values) == values, verb.name


def test_a_failed_reply_has_an_empty_body_and_decodes_to_no_values():
    """Given a call that failed, when its reply is decoded, then only the API header speaks."""
    reply = mqiflows.decode_reply(mqiflows.encode_reply(
        T.MQPUT, comp=CMQC.MQCC_FAILED, reason=CMQC.MQRC_Q_FULL))
    assert (reply.comp, reply.reason, reply.values) == (CMQC.MQCC_FAILED, 2053, None)


def test_a_truncated_get_failure_reply_carries_the_md_and_the_full_length():
    """Given MQRC_TRUNCATED_MSG_FAILED, when the reply is decoded, then the MQMD of the message
    and its full length are there, with no data."""
    md = MD(MsgId=b"X" * 24, Priority=3)
    reply = mqiflows.decode_reply(mqiflows.encode_reply(
        T.MQGET, [md, GMO(ReturnedLength=100), 100, b""], comp=CMQC.MQCC_WARNING,
        reason=CMQC.MQRC_TRUNCATED_MSG_FAILED))
    got_md, _gmo, length, data = reply.values
    assert (got_md.MsgId, got_md.Priority, length, data) == (b"X" * 24, 3, 100, b"")


@settings(max_examples=300, deadline=None)
@given(verb=st.sampled_from(sorted(mqiflows.REQUESTS)), body=st.binary(max_size=600),
       order=st.sampled_from(ORDERS))
def test_malformed_bodies_raise_protocol_error_and_nothing_else(verb, body, order):
    """Given arbitrary bytes as a verb's body, when decoded, then the result is either a
    decoded request or a ProtocolError -- never another exception."""
    event = mqiflows.encode_request(verb, _samples(b"", 0)["requests"][verb], byte_order=order)
    for candidate in (event.body[: len(body) % (len(event.body) + 1)], body,
                      event.body + body[:1]):
        bad = type(event)(segment_type=verb, body=candidate)
        try:
            mqiflows.decode_request(bad, order)
        except ProtocolError:
            pass
        try:
            mqiflows.decode_reply(
                type(mqiflows.encode_reply(verb))(segment_type=verb + 0x10, body=candidate),
                order)
        except ProtocolError:
            pass


def test_a_truncated_put_request_is_a_protocol_error():
    """Given an MQPUT body cut inside its data, when decoded, then ProtocolError."""
    event = mqiflows.encode_request(T.MQPUT, [MD(), PMO(), b"0123456789"])
    cut = type(event)(segment_type=T.MQPUT, body=event.body[:-3])
    with pytest.raises(ProtocolError):
        mqiflows.decode_request(cut)


def test_a_non_mqi_segment_type_is_refused():
    """Given XA_START (not a bindings verb), when encoded, then ProtocolError."""
    with pytest.raises(ProtocolError):
        mqiflows.encode_request(T.XA_START, [])


def test_the_same_structure_bytes_again_decode_to_an_equal_independent_structure():
    """Given a request whose MQMD and MQGMO bytes come again (a channel's every get), when it
    is decoded twice, then each decoding gives equal structures that are not the same
    objects: what the queue manager writes into one is not in the next."""
    event = mqiflows.encode_request(T.MQGET, [MD(Priority=4), GMO(Options=2, WaitInterval=9),
                                              -1])
    first = mqiflows.decode_request(event)
    first.values[0].MsgId = b"written by the first call".ljust(24)[:24]
    first.values[1].Options = 0
    second = mqiflows.decode_request(event)
    assert second.values[0] == MD(Priority=4)
    assert second.values[1] == GMO(Options=2, WaitInterval=9)
    assert second.values[0] is not first.values[0]


def test_bytes_decoded_in_one_byte_order_are_not_taken_for_the_other():
    """Given an MQGMO decoded once in its own byte order, when the same bytes come as a
    request of the other byte order, then they are decoded (and refused) as before, not
    taken for the structure they were in the first order."""
    body = mqiflows.encode_request(T.MQGET, [MD(), GMO(Options=2), -1],
                                   byte_order=ByteOrder.LITTLE).body
    mqiflows.decode_request(type(mqiflows.encode_request(T.MQGET, [MD(), GMO(), -1]))(
        segment_type=T.MQGET, body=body), ByteOrder.LITTLE)
    with pytest.raises(ProtocolError):
        mqiflows.decode_request(type(mqiflows.encode_request(T.MQGET, [MD(), GMO(), -1]))(
            segment_type=T.MQGET, body=body), ByteOrder.BIG)


def test_structures_with_records_decode_afresh_each_time():
    """Given an MQPMO that carries put-message records (a distribution list), when the same
    request is decoded twice, then each has its own record lists."""
    from mqpy.structs.tables import PMR, RR

    pmo = PMO(Version=2, RecsPresent=2, PutMsgRecFields=CMQC.MQPMRF_MSG_ID,
              PutMsgRecPtr=[PMR(MsgId=b"A" * 24), PMR(MsgId=b"B" * 24)],
              ResponseRecPtr=[RR(), RR()])
    event = mqiflows.encode_request(T.MQPUT, [MD(), pmo, b"x"])
    first = mqiflows.decode_request(event).values[1]
    first.PutMsgRecPtr[0].MsgId = b"Z" * 24
    second = mqiflows.decode_request(event).values[1]
    assert [r.MsgId for r in second.PutMsgRecPtr] == [b"A" * 24, b"B" * 24]
    assert second.PutMsgRecPtr is not first.PutMsgRecPtr
