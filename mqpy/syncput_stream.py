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
from mqpy.fap.apiheader import API_HEADER_LENGTH
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import TSH_LENGTH, SegmentType

__all__ = ["KeptPut", "ok_reply", "serve"]

_MQPUT = SegmentType.MQPUT
_REPLY = mqiflows.reply_type(_MQPUT)
_OK = CMQC.MQCC_OK


class KeptPut:
    """What a connection's last synchronous MQPUT of the common form was read as, kept
    while its session is: ``front``, its bytes up to its MQMD's Version (TSH, API header,
    the MQMD's StrucId and Version), ``back``, those from its MQPMO (at ``pmo_at``) to the
    message (the MQPMO, the message's length), and where they put things. A request that
    has the same bytes there (an application putting again with an MQMD of the same
    version, the same MQPMO and the same length of message: the segment's length is in
    its TSH) is of the common form as that one was, read the same: it is not read again
    (``asyncput_stream.put_request`` reads nothing else of the MQMD); ``head``, all its
    bytes up to the message, is looked at first (the same MQMD too: an application making
    a new one for each put), ``md`` its MQMD. ``heads``: the TSH and API header of an
    MQCC_OK reply by its length, for this session's writer."""

    __slots__ = ("back", "front", "head", "heads", "hobj", "length", "limit", "md", "msg_at",
                 "pmo", "pmo_at")

    def __init__(self) -> None:
        self.head = self.front = self.back = _NEVER
        self.heads: dict[int, bytes] = {}
        self.length = self.limit = self.hobj = self.pmo_at = self.msg_at = 0
        self.md = self.pmo = b""

    def matches(self, data: bytes, start: int) -> bool:
        """Whether the request at ``start`` of ``data`` has this one's bytes where
        :func:`serve` looks (not whether it is whole)."""
        return data.startswith(self.head, start) or (data.startswith(self.front, start) and
                                                     data.startswith(self.back,
                                                                     start + self.pmo_at))


#: bytes no request has (a TSH starts with its StrucId)
_NEVER = b"\0"
_MD_AT = TSH_LENGTH + API_HEADER_LENGTH
_FRONT = _MD_AT + 8  # (the MQMD's StrucId and Version)


def serve(session: Any, data: bytes, start: int, kept: KeptPut | None = None,
          matched: bool = False) -> tuple[int, bytes] | None:
    """(its end, its reply's bytes) of the synchronous MQPUT of the common form at ``start``
    of ``data``, put on ``session``'s engine connection; None, nothing done, for anything
    else (the general path's). An engine fault is the session's, as the general path's.
    ``kept``: the session's :class:`KeptPut`, read and updated; ``matched``: the caller has
    found ``kept.matches`` the request."""
    limit = session.reader.max_transmission_size
    if kept is not None and kept.limit == limit and start + kept.length <= len(data) \
            and (matched or kept.matches(data, start)):
        end = start + kept.length
        hobj, pmo = kept.hobj, kept.pmo
        md = kept.md if data.startswith(kept.md, start + _MD_AT) \
            else data[start + _MD_AT:start + kept.pmo_at]
        message = data[start + kept.msg_at:end]
    else:
        found = put_request(data, start, limit)
        if found is None:
            return None
        end, hobj, md_at, pmo_at, _options, at = found
        md, pmo, message = data[md_at:pmo_at], data[pmo_at:at], data[at + 4:end]
        if kept is not None:
            kept.head, kept.md = data[start:at + 4], md
            kept.front, kept.back = data[start:start + _FRONT], data[pmo_at:at + 4]
            kept.pmo_at, kept.msg_at = pmo_at - start, at + 4 - start
            kept.length, kept.limit, kept.hobj, kept.pmo = end - start, limit, hobj, pmo
    try:
        done = packed.put_sync(session.conn, hobj, md, pmo, message)
    except MQMIError as e:  # the log force failed: the put's failure
        return end, session.writer.send(mqiflows.encode_reply(_MQPUT, comp=e.comp,
                                                              reason=e.reason))
    if done is packed.GENERAL:
        return None
    reply_md, reply_pmo = done  # type: ignore[misc]
    if kept is None:
        return end, session.writer.reply(_REPLY, _OK, 0, 0, (reply_md, reply_pmo), None, None)
    head = kept.heads.get(_HEADERS + len(reply_md) + len(reply_pmo))  # (ok_reply's, kept)
    if head is None:
        return end, ok_reply(session.writer, kept.heads, _REPLY, (reply_md, reply_pmo))
    return end, b"".join((head, reply_md, reply_pmo))


def ok_reply(writer: SegmentWriter, heads: dict[int, bytes], reply_type: int,
             body: tuple[bytes, ...]) -> bytes | None:
    """``writer.reply(reply_type, MQCC_OK, 0, 0, body, None, None)``, its TSH and API header
    taken from ``heads`` (by the segment's length; made once by ``writer.reply``), where
    every reply in ``heads`` is of ``reply_type`` from ``writer`` as it is now."""
    total = _HEADERS + sum(map(len, body))
    if total > writer.max_transmission_size:
        return None
    head = heads.get(total)
    if head is None:
        if len(heads) >= _HEADS_KEPT:
            heads.clear()
        head = heads[total] = writer.reply(reply_type, _OK, 0, 0, (bytes(total - _HEADERS),),
                                           None, None)[:_HEADERS]  # type: ignore[index]
    return b"".join((head, *body))


_HEADERS = TSH_LENGTH + API_HEADER_LENGTH
#: reply heads kept by length (an application's messages are of a few lengths, mostly)
_HEADS_KEPT = 64
