"""The application side's fast split of read ahead's flows (``readahead.split_stream`` through
``bindings.Flows.feed_stream``) gives what the segment reader gives, however the reads cut the
bytes, and leaves the flows after them (an MQI reply) to the reader."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy.bindings import Flows
from mqpy.fap import asyncflows, mqiflows
from mqpy.fap.asyncflows import Notice
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import SegmentType
from mqpy.readahead import ReadAheadBuffer, split_stream
from mqpy.structs.tables import MD


def _stream() -> tuple[bytes, list[bytes]]:
    md = MD(Persistence=CMQC.MQPER_NOT_PERSISTENT, Format=b"MQSTR").pack()
    bodies = [bytes([65 + i % 26]) * (i * 37 % 3000) for i in range(40)]
    flows = b"".join(asyncflows.async_message(7, i, b"RA.Q", md, b) for i, b in enumerate(bodies))
    flows += asyncflows.notification(7, Notice.CLIENT_ASYNC_EMPTY, CMQC.MQRC_NO_MSG_AVAILABLE)
    flows += SegmentWriter(1 << 20).send(mqiflows.encode_reply(SegmentType.MQCMIT, []))
    return flows, bodies


@pytest.mark.parametrize("cut", [1, 7, 28, 100, 1000, 4096, 65536])
def test_reads_cut_anywhere_give_every_message_then_the_reply(cut):
    """Given 40 ASYNC_MESSAGEs, the NOTIFICATION ending them and an MQCMIT reply, when the
    bytes arrive in reads of ``cut`` bytes, then the buffer holds the 40 messages in order
    with their MQMD, the answer is complete, and the reply is the reader's to give."""
    data, bodies = _stream()
    flows = Flows()
    buffer = ReadAheadBuffer(7)
    buffer.outstanding = True
    flows.streamed = lambda event: buffer.on_flow(event)
    for at in range(0, len(data), cut):
        flows.feed_stream(data[at:at + cut], lambda d: split_stream(d, {7: buffer}))
    assert [m[1] for m in buffer.messages] == bodies
    assert all(m[2] == b"RA.Q" and len(m[0]) == 364 for m in buffer.messages)
    assert not buffer.outstanding and buffer.empty
    reply = flows.reply()
    assert reply is not None and reply.verb == SegmentType.MQCMIT
