"""The queue manager's side of a synchronous MQPUT over a bindings socket, put and answered
straight from the bytes read.

The busy thread (``mqpy.bindings_thread``) takes each MQPUT of the common form
(``asyncput_stream.put_request``: one whole little-endian segment, an MQMD and an MQPMO
without records that mqpy knows, lengths that add up) that asks for no asynchronous
response: ``engine.packed.put_sync`` puts it from the MQMD's bytes and gives back the MQMD
and MQPMO bytes the general path's reply carries (the MsgId and context filled in, the
resolved names), which :func:`serve` frames as that reply. Anything else -- a segment not of
this form, a put the engine's fast path leaves to the general one (a handle not open for
output, a report asked for, a full queue ...), a call traced -- goes the general way, which
gives what this gives (tests/performance_paths/test_bindings_sync_put.py holds the two
alike, the hostile cases included).
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.asyncput_stream import put_request
from mqpy.engine import packed
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows
from mqpy.fap.tsh import SegmentType

__all__ = ["serve"]

_MQPUT = SegmentType.MQPUT
_REPLY = mqiflows.reply_type(_MQPUT)
_OK = CMQC.MQCC_OK


def serve(session: Any, data: bytes, start: int) -> tuple[int, bytes] | None:
    """(its end, its reply's bytes) of the synchronous MQPUT of the common form at ``start``
    of ``data``, put on ``session``'s engine connection; None, nothing done, for anything
    else (the general path's). An engine fault is the session's, as the general path's."""
    writer = session.writer
    found = put_request(data, start, session.reader.max_transmission_size)
    if found is None:
        return None
    end, hobj, md_at, pmo_at, _options, at = found
    try:
        done = packed.put_sync(session.conn, hobj, data[md_at:pmo_at], data[pmo_at:at],
                               data[at + 4:end])
    except MQMIError as e:  # the log force failed: the put's failure
        return end, writer.send(mqiflows.encode_reply(_MQPUT, comp=e.comp, reason=e.reason))
    if done is packed.GENERAL:
        return None
    md, pmo = done  # type: ignore[misc]
    return end, writer.reply(_REPLY, _OK, 0, 0, (md, pmo), None, None)
