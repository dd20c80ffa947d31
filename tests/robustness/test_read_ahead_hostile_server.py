"""A hostile queue manager (or SVRCONN) streaming read ahead's flows to an application: the
application side's fast split of those flows (``readahead.split_stream``) refuses what the
segment reader refuses, so that the connection ends with an MQ reason rather than a
buffered message that breaks the application's next MQGET."""

from __future__ import annotations

import struct

import pytest

from mqpy import CMQC
from mqpy.bindings import Flows
from mqpy.fap import asyncflows
from mqpy.fap.asyncflows import Notice
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import TSH_LENGTH
from mqpy.readahead import ReadAheadBuffer, split_stream
from mqpy.structs.tables import MD

_HOBJ = 7
_ACTUAL_AT = TSH_LENGTH + 32  # ASYNC_MESSAGE's ActualMsgLength


def _negative_length(cut: int) -> bytes:
    """An ASYNC_MESSAGE whose MQMD is ``cut`` bytes short and whose ActualMsgLength is
    ``-cut``: its lengths add up, the message is less than nothing."""
    whole = asyncflows.async_message(_HOBJ, 0, b"RA.Q", MD().pack(), b"")
    segment = bytearray(whole[:-cut])
    segment[4:8] = struct.pack(">I", len(segment))
    struct.pack_into("<i", segment, _ACTUAL_AT, -cut)
    return bytes(segment)


@pytest.mark.parametrize("cut", [20, 64])
def test_an_async_message_of_negative_length_is_refused(cut):
    """Given an ASYNC_MESSAGE whose ActualMsgLength is negative (its MQMD cut short by as
    much, so that the lengths add up), followed by the NOTIFICATION that ends the answer,
    when the application's side splits the read, then the flow is refused as the reader
    refuses one whose lengths do not match (ProtocolError: the connection ends
    MQRC_CONNECTION_BROKEN) and nothing is buffered."""
    buffer = ReadAheadBuffer(_HOBJ)
    buffer.outstanding = True
    flows = Flows()
    flows.streamed = buffer.on_flow
    end = asyncflows.notification(_HOBJ, Notice.CLIENT_ASYNC_EMPTY, CMQC.MQRC_NO_MSG_AVAILABLE)
    with pytest.raises(ProtocolError):
        flows.feed_stream(_negative_length(cut) + end, lambda d: split_stream(d, {_HOBJ: buffer}))
        flows.reply()
    assert not buffer.messages and buffer.buffered == 0
