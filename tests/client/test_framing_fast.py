"""A client's call frames its request and reads its reply without events on the way
(``mqpy.clientinstance.ChannelInstance.frame`` / ``_sole_reply``): the bytes it sends must be those
``SegmentWriter`` makes of ``mqiflows.encode_request``'s event, and the reply it reads the
event ``SegmentReader`` would give; anything else must be left to the reader."""

from __future__ import annotations

import attrs
import pytest

from mqpy import CMQC, clientchannel, clientinstance
from mqpy.fap import mqiflows
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.tsh import ByteOrder, ControlFlags1, SegmentType
from mqpy.structs.tables import GMO, MD, OD, PMO


class _Agreed:
    heartbeat_interval = 300
    conv_per_socket = 10
    max_msg_size = 4194304
    max_transmission_size = 32766


class _Peer:
    """Enough of a socket for ``_Socket``'s constructor."""

    def getpeername(self):
        return ("127.0.0.1", 1414)

    def setsockopt(self, *args):
        pass


def _instance(max_transmission_size: int = 32766) -> clientinstance.ChannelInstance:
    agreed = _Agreed()
    agreed.max_transmission_size = max_transmission_size
    definition = clientchannel.ChannelDefinition(channel="APP.SVRCONN",
                                          connections=(("127.0.0.1", 1414),))
    return clientinstance.ChannelInstance(_Peer(), definition, agreed, SegmentReader(max_transmission_size))


REQUESTS = [
    (SegmentType.MQPUT, [MD(Persistence=0), PMO(Options=CMQC.MQPMO_NO_SYNCPOINT), b"x" * 1024]),
    (SegmentType.MQGET, [MD(), GMO(Options=CMQC.MQGMO_NO_SYNCPOINT), -1]),
    (SegmentType.MQOPEN, [OD(ObjectName=b"Q1"), CMQC.MQOO_OUTPUT]),
    (SegmentType.MQCMIT, []),
    (SegmentType.MQINQ, [[CMQC.MQIA_CURRENT_Q_DEPTH]]),
]


@pytest.mark.parametrize("conv_id, request_id", [(3, 7), (None, None), (1, 2**32 - 1)])
@pytest.mark.parametrize("verb, values", REQUESTS)
def test_a_request_is_framed_as_the_segment_writer_frames_its_event(verb, values, conv_id,
                                                                     request_id):
    """Given a request of each kind, on a shared conversation (TSHM) or not (TSH), when the
    client frames it, then the bytes are SegmentWriter's of encode_request's event."""
    instance = _instance()
    expected = SegmentWriter(32766).send(mqiflows.encode_request(
        verb, values, hobj=5, conv_id=conv_id, request_id=request_id))
    body = mqiflows.request_body(verb, values)
    assert instance.frame(verb, body, 5, conv_id, request_id) == expected


def test_a_request_longer_than_a_segment_is_split_as_the_writer_splits_it():
    """Given a maximum transmission size of 2,000 bytes and a 5,000-byte message, when the
    client frames its MQPUT, then it goes in the writer's segments, FIRST to LAST."""
    instance = _instance(2000)
    values = [MD(), PMO(), b"y" * 5000]
    expected = SegmentWriter(2000).send(mqiflows.encode_request(
        SegmentType.MQPUT, values, hobj=9, conv_id=1, request_id=4))
    framed = instance.frame(SegmentType.MQPUT, mqiflows.request_body(SegmentType.MQPUT, values),
                            9, 1, 4)
    assert framed == expected
    assert framed.count(b"TSHM") == 3


def _reply(verb: SegmentType, values, conv_id, *, comp=0, reason=0, **changes) -> bytes:
    event = mqiflows.encode_reply(verb, values, comp=comp, reason=reason, hobj=6)
    event = attrs.evolve(event, conv_id=conv_id, request_id=None if conv_id is None else 11,
                         **changes)
    return SegmentWriter(32766).send(event)


def _get_reply(conv_id=3, **kw) -> bytes:
    return _reply(SegmentType.MQGET, [MD(MsgId=b"m" * 24), GMO(), 10, b"0123456789"], conv_id,
                  **kw)


@pytest.mark.parametrize("data", [
    _get_reply(),
    _reply(SegmentType.MQPUT, [MD(), PMO()], 3, comp=CMQC.MQCC_WARNING, reason=2136),
    _reply(SegmentType.MQGET, None, 3, comp=CMQC.MQCC_FAILED, reason=CMQC.MQRC_NO_MSG_AVAILABLE),
    _reply(SegmentType.MQCMIT, [], 3),
    _get_reply(flags=ControlFlags1.CONFIRM_REQUEST),
    SegmentWriter(32766, byte_order=ByteOrder.BIG).send(attrs.evolve(
        mqiflows.encode_reply(SegmentType.MQCMIT, [], byte_order=ByteOrder.BIG), conv_id=3,
        request_id=1)),
])
def test_a_lone_reply_reads_as_the_segment_reader_reads_it(data):
    """Given one whole reply to conversation 3 (data, a warning, a failure, no body, flags
    beyond FIRST and LAST, big-endian), when the
    client reads it, then it is the reader's event, field for field, and the reader learns
    the partner's byte order, encoding and CCSID as it would have."""
    instance = _instance()
    reader = SegmentReader(32766)
    [expected] = reader.feed(data)
    got = instance._sole_reply(data, 3)
    assert got == expected
    assert type(got.segment_type) is type(expected.segment_type)
    assert type(got.flags) is type(expected.flags)
    assert (instance.reader.partner_byte_order, instance.reader.partner_encoding,
            instance.reader.partner_ccsid) == (reader.partner_byte_order,
                                               reader.partner_encoding, reader.partner_ccsid)


@pytest.mark.parametrize("data, why", [
    (_get_reply(conv_id=4), "another conversation's reply"),
    (_get_reply(conv_id=None), "a TSH, not a TSHM"),
    (_get_reply() + _get_reply(), "two replies"),
    (_get_reply()[:-1], "part of a reply"),
    (_reply(SegmentType.MQGET, [MD(), GMO(), 0, b""], 3)[:60], "a short reply"),
])
def test_anything_but_a_lone_reply_to_this_conversation_is_left_to_the_reader(data, why):
    """Given bytes that are not exactly one whole reply to conversation 3, when the client
    looks at them, then it leaves them to the reader (None)."""
    assert clientinstance.ChannelInstance._sole_reply(_instance(), data, 3) is None, why


def test_a_reply_after_bytes_already_buffered_is_left_to_the_reader():
    """Given the reader holding the first bytes of a segment, when a whole reply arrives,
    then the client leaves it to the reader, which has bytes to put before it."""
    instance = _instance()
    instance.reader.feed(_get_reply()[:10])
    assert instance._sole_reply(_get_reply(), 3) is None


