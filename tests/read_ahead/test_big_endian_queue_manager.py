"""A client of a big-endian queue manager (IBM MQ on AIX or z/OS) reading ahead: the
queue manager's ASYNC_MESSAGEs and NOTIFICATIONs come in its byte order (TSH byte order 1,
the MQMD big-endian too), and the client's buffer takes them as it takes a little-endian
queue manager's."""

from __future__ import annotations

import pytest

from mqpy import CMQC, clientinstance
from mqpy.fap import asyncflows
from mqpy.fap.asyncflows import Notice
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import ByteOrder
from mqpy.readahead import ReadAheadBuffer, ReadAheadVerbs, stream_sink
from mqpy.structs.tables import MD
from tests.client.test_framing_fast import _instance as channel_instance

_HOBJ = 7
_BIG = ByteOrder.BIG


class _Connection(ReadAheadVerbs):
    """A connection reading ahead on handle 7 (its verbs are not called here)."""

    def __init__(self) -> None:
        self._ra_init()
        self._ra_buffers[_HOBJ] = ReadAheadBuffer(_HOBJ)


def _instance_reading_ahead() -> tuple[clientinstance.ChannelInstance, ReadAheadBuffer]:
    instance = channel_instance()
    conv = instance.open_conversation()
    connection = _Connection()
    conv.streamed = stream_sink(connection)
    instance._kept = connection  # (the sink holds it weakly)
    buffer = connection._ra_buffers[_HOBJ]
    buffer.outstanding = True
    return instance, buffer


def _flows_in(instance: clientinstance.ChannelInstance, data: bytes) -> None:
    for event in instance.reader.feed(data):
        instance._on_event(event)


def test_a_big_endian_queue_managers_streamed_messages_are_buffered():
    """Given a client conversation reading ahead on handle 7, when a big-endian queue
    manager streams two messages (their MQMDs big-endian) and the NOTIFICATION that ends
    them, then both are buffered with their MQMDs as the client reads them, and the answer
    is complete: no more message now."""
    instance, buffer = _instance_reading_ahead()
    md = MD(Persistence=CMQC.MQPER_NOT_PERSISTENT, Priority=3, MsgId=b"m" * 24)
    big_md = md.pack(CMQC.MQENC_INTEGER_NORMAL)
    _flows_in(instance, b"".join((
        asyncflows.async_message(_HOBJ, 0, b"RA.Q", big_md, b"first", 1, _BIG),
        asyncflows.async_message(_HOBJ, 1, b"RA.Q", big_md, b"second", 1, _BIG),
        asyncflows.notification(_HOBJ, Notice.CLIENT_ASYNC_EMPTY, CMQC.MQRC_NO_MSG_AVAILABLE,
                                1, _BIG))))
    assert [(data, name) for _, data, name in buffer.messages] == [
        (b"first", b"RA.Q"), (b"second", b"RA.Q")]
    got = MD.from_bytes(buffer.messages[0][0], CMQC.MQENC_INTEGER_REVERSED)
    assert (got.Priority, bytes(got.MsgId)) == (3, b"m" * 24)
    assert not buffer.outstanding and buffer.empty


def test_a_big_endian_async_message_without_its_mqmd_is_refused():
    """Given a client conversation reading ahead, when a big-endian queue manager sends an
    ASYNC_MESSAGE whose MQMD is not there, then the flow is refused (ProtocolError: the
    connection ends MQRC_CONNECTION_BROKEN) and nothing is buffered."""
    instance, buffer = _instance_reading_ahead()
    with pytest.raises(ProtocolError):
        _flows_in(instance, asyncflows.async_message(_HOBJ, 0, b"RA.Q", b"XX" * 10, b"",
                                                     1, _BIG))
    assert not buffer.messages
