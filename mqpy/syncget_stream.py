"""The queue manager's side of an MQGET over a bindings socket, served and answered straight
from the bytes read when its message is there.

The busy thread (``mqpy.bindings_thread``) takes each MQGET of the common form (one whole
little-endian segment: an MQMD version 2, an MQGMO that mqpy knows, BufferLength, lengths
that add up) that does not wait: ``engine.packed.get`` gets the next message, or the one
message carrying the MsgId and/or CorrelId asked for, with its MQMD packed as the general
path fills the caller's, and :func:`serve` frames the reply from bytes: that MQMD, the
request's MQGMO with ResolvedQName and ReturnedLength written in, the length and the
message. The client host's poller (``mqpy_chinit.svrconn_packed``) also serves from its
bytes a get that selects its message by id and may wait (a requester's get of its reply)
when the message is there; the busy thread leaves every waiting get to its waiting path.
Anything else -- another MQMD version, a message the engine's fast path leaves to the
general one (none there, an id several messages carry, truncation, a COD report,
properties ...), a handle not open for input, a call traced -- goes the general way, which
gives what this gives (and waits): tests/performance_paths/test_bindings_sync_get.py and
the differential tests of tests/robustness hold the two alike.
"""
from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from mqpy import CMQC
from mqpy.asyncput_stream import whole_request
from mqpy.engine import packed
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import API_HEADER_LENGTH, MQIReply, mqi_event
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.tsh import TSH_LENGTH, ControlFlags1, SegmentType
from mqpy.structs.tables import GMO, MD
from mqpy.syncput_stream import ok_reply

__all__ = ["KeptGet", "get_from_bytes", "kept_reply_body", "selecting", "serve", "waits"]

_MQGET = SegmentType.MQGET
_REPLY = mqiflows.reply_type(_MQGET)
_OK = CMQC.MQCC_OK
_BODY_AT = TSH_LENGTH + API_HEADER_LENGTH
_HOBJ_AT = TSH_LENGTH + 12  # the API header's Hobj (after ReplyLength, CompCode, Reason)
_LONG = struct.Struct("<i")
_SEGMENT = int(_MQGET)
_MD_V2 = mqiflows.MD_SIZES[1][CMQC.MQMD_VERSION_2]
_GMO_SIZES = mqiflows.GMO_SIZES
_OFFSETS = GMO._layout_.offsets
_OPTIONS_AT, _MATCH_AT = _OFFSETS["Options"], _OFFSETS["MatchOptions"]
_WAIT_AT = _OFFSETS["WaitInterval"]
_RESOLVED_AT, _RETURNED_AT = _OFFSETS["ResolvedQName"], _OFFSETS["ReturnedLength"]
_GROUP_STATUS_AT = _OFFSETS["GroupStatus"]  # SegmentStatus and Segmentation follow
assert _OFFSETS["SegmentStatus"] == _GROUP_STATUS_AT + 1
assert _OFFSETS["Segmentation"] == _GROUP_STATUS_AT + 2
#: GroupStatus, SegmentStatus and Segmentation of a message in no group and no segment
_PLAIN_STATUS = bytes((CMQC.MQGS_NOT_IN_GROUP, CMQC.MQSS_NOT_A_SEGMENT, CMQC.MQSEG_INHIBITED))
_MSGID_AT = MD._layout_.offsets["MsgId"]  # CorrelId follows
_NONE48 = bytes(48)
_MATCH_IDS = CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID
_NO_FLAGS, _NO_LUW = ControlFlags1.NONE, bytes(8)
_HEADERS = TSH_LENGTH + API_HEADER_LENGTH


class _Options:
    """What ``engine.packed.get`` reads of an MQGMO (Version, Options, MatchOptions) and
    writes in it (ResolvedQName, ReturnedLength), without an MQGMO object; ``ids``, the
    request's MQMD's MsgId and CorrelId when MatchOptions select by them (else b"")."""

    def __init__(self, version: int, options: int, match: int, ids: bytes = b"") -> None:
        self.Version, self.Options, self.MatchOptions = version, options, match
        self.ids = ids


class KeptGet:
    """What a connection's last MQGET of the common form was read as, kept while its
    session is (as ``syncput_stream.KeptPut``): ``head``, the whole request, its Hobj, its
    MQGMO's bytes and what ``engine.packed.get`` reads of them, the most it may take; the
    MQGMOs returned for it by ResolvedQName and ReturnedLength; ``heads``, the TSH and
    API header of an MQCC_OK reply by its length, for this session's writer. The same
    request again (an application getting the next message as it got the last) is not
    read again."""

    __slots__ = ("fields", "gmo", "head", "heads", "hobj", "limit", "max_length", "returned")

    def __init__(self) -> None:
        self.head = b"\0"  # (no request is this)
        self.heads: dict[int, bytes] = {}
        self.returned: dict[tuple[Any, int], bytes] = {}
        self.limit = self.hobj = self.max_length = 0
        self.gmo = b""
        self.fields = _Options(0, 0, 0)


def serve(session: Any, data: bytes, start: int, kept: KeptGet | None = None
          ) -> tuple[int, bytes] | None:
    """(its end, its reply's bytes) of the MQGET of the common form at ``start`` of
    ``data``, served on ``session``'s engine connection; None, nothing done, for anything
    else (the general path's). ``kept``: the session's :class:`KeptGet`, read and
    updated."""
    limit = session.reader.max_transmission_size
    if waits(data, start):
        return None  # (the busy thread's wait: served from bytes, it measured no better)
    if kept is None:
        got = get_from_bytes(session.conn, data, start, limit)
        if got is None:
            return None
        end, body = got
        if type(body) is MQMIError:  # the log force failed: the get's failure
            return end, _failed(session.writer, body)
        return end, _reply(session.writer, session.writer.reply(_REPLY, _OK, 0, 0, body,
                                                                None, None), body)
    got = _get_kept(session.conn, data, start, limit, kept)
    if got is None:
        return None
    end, body = got
    if type(body) is MQMIError:
        return end, _failed(session.writer, body)
    md, returned, length, _, message = body
    head = kept.heads.get(_HEADERS + len(md) + len(returned) + 8 + len(message))  # (kept)
    if head is not None:
        return end, b"".join((head, *body))
    return end, _reply(session.writer, ok_reply(session.writer, kept.heads, _REPLY, body), body)


def _failed(writer: SegmentWriter, e: MQMIError) -> bytes:
    """The reply of a get whose log force failed."""
    return writer.send(mqiflows.encode_reply(_MQGET, comp=e.comp, reason=e.reason))


def _reply(writer: SegmentWriter, reply: bytes | None, body: tuple[bytes, ...]) -> bytes:
    """``reply``, or the segments of a reply whose ``body`` is more than one holds."""
    if reply is None:
        return writer.send(mqi_event(MQIReply, _NO_FLAGS, _NO_LUW, None, None, _REPLY, _OK,
                                     0, 0, b"".join(body), None))
    return reply


def _get_kept(conn: Any, data: bytes, start: int, limit: int, kept: KeptGet
              ) -> tuple[int, tuple[bytes, ...] | MQMIError] | None:
    """:func:`get_from_bytes`'s answer, the request read as ``kept`` says when it is the
    one read last (else read, and kept when of the common form)."""
    head = kept.head
    if data.startswith(head, start) and kept.limit == limit:
        end = start + len(head)
    else:
        found = selecting(data, start, limit)
        if found is None:
            return None
        end, hobj, gmo, fields = found
        kept.head, kept.limit, kept.hobj, kept.gmo, kept.fields = \
            data[start:end], limit, hobj, gmo, fields
        kept.max_length = mqiflows.max_length(_LONG.unpack_from(data, end - 4)[0])
        kept.returned.clear()
    try:
        body = kept_reply_body(conn, kept.hobj, kept.fields, kept.max_length, kept.gmo,
                               kept.returned)
    except MQMIError as e:
        return end, e
    return None if body is None else (end, body)


def kept_reply_body(conn: Any, hobj: int, fields: Any, max_length: int | None, gmo: bytes,
                    returned: dict[tuple[Any, int], bytes]) -> tuple[bytes, ...] | None:
    """The reply's body (the MQMD, the MQGMO as returned, DataLength, the message's length,
    the message) of a kept MQGET (on ``hobj`` of the engine connection ``conn``, its
    MQGMO's bytes ``gmo`` and what :func:`selecting` read of them, ``fields``; at most
    ``max_length`` bytes), the MQGMOs returned for it kept in ``returned``; None, nothing
    done, for one the general path makes; MQMIError raised when the log force failed. The
    bindings busy thread's and the client host's (``mqpy_chinit.svrconn_packed``)."""
    got = packed.get(conn, hobj, fields, max_length, _MD_V2, fields.ids)
    if got is packed.GENERAL:
        return None
    md, message = got  # type: ignore[misc]
    d = fields.__dict__
    key = (d["ResolvedQName"], d["ReturnedLength"])
    made = returned.get(key)
    if made is None:
        if len(returned) >= _RETURNED_KEPT:
            returned.clear()
        made = returned[key] = _returned(gmo, d)
    length = _LONG.pack(len(message))  # DataLength, then the message's (as its length)
    return md, made, length, length, message


#: MQGMOs returned kept for one request (by ResolvedQName and ReturnedLength)
_RETURNED_KEPT = 64


def get_from_bytes(conn: Any, data: bytes, start: int, limit: int,
                   max_length: Callable[[int], int] = mqiflows.max_length
                   ) -> tuple[int, tuple[bytes, ...] | MQMIError] | None:
    """(its end, its reply's body: the MQMD, the MQGMO as returned, DataLength, the
    message's length, the message) of the MQGET of the common form at ``start`` of
    ``data`` (a segment of at most ``limit`` bytes), the message got on the engine
    connection ``conn``, at most ``max_length(BufferLength)`` bytes of it; the MQMIError in
    place of the body when the log force failed; None, nothing done, for anything else.
    The bindings busy thread's and the client host's (``mqpy_chinit.svrconn_packed``)."""
    found = selecting(data, start, limit)
    if found is None:
        return None
    end, hobj, gmo, fields = found
    try:
        got = packed.get(conn, hobj, fields, max_length(_LONG.unpack_from(data, end - 4)[0]),
                         _MD_V2, fields.ids)
    except MQMIError as e:
        return end, e
    if got is packed.GENERAL:
        return None
    md, message = got  # type: ignore[misc]
    length = _LONG.pack(len(message))  # DataLength, then the message's (as its length)
    return end, (md, _returned(gmo, fields.__dict__), length, length, message)


def selecting(data: bytes, start: int, limit: int) -> tuple[int, int, bytes, _Options] | None:
    """(its end, Hobj, its MQGMO's bytes, what ``engine.packed.get`` reads of them) of the
    MQGET of the common form at ``start`` of ``data`` (:func:`_request`): one that does not
    wait, or one that selects a message by MsgId or CorrelId and may wait (a requester's
    get of its reply: served here when its message is there, else the general path's, which
    waits); None for anything else."""
    found = _request(data, start, limit)
    if found is None:
        return None
    end, hobj, gmo_at, gmo_size, options = found
    gmo = data[gmo_at:gmo_at + gmo_size]
    version = _LONG.unpack_from(gmo, 4)[0]
    match = _LONG.unpack_from(gmo, _MATCH_AT)[0] if version >= 2 else _MATCH_IDS
    ids_at = start + _BODY_AT + _MSGID_AT
    ids = data[ids_at:ids_at + 48] if match & _MATCH_IDS else _NONE48
    if ids == _NONE48:
        if options & CMQC.MQGMO_WAIT:
            return None  # (the loop's, or the busy thread's wait)
        return end, hobj, gmo, _Options(version, options, match)
    if options & CMQC.MQGMO_WAIT:
        interval = _LONG.unpack_from(gmo, _WAIT_AT)[0]
        if interval < 0 and interval != CMQC.MQWI_UNLIMITED:
            return None  # (2005: the general path's)
    return end, hobj, gmo, _Options(version, options, match, ids)


def waits(data: bytes, start: int) -> bool:
    """Whether the MQGET at ``start`` of ``data``, if of the common form, has MQGMO_WAIT
    (False for one too short to say)."""
    at = start + _BODY_AT + _MD_V2 + _OPTIONS_AT
    return len(data) >= at + 4 and bool(_LONG.unpack_from(data, at)[0] & CMQC.MQGMO_WAIT)


def _returned(gmo: bytes, d: dict[str, Any]) -> bytes:
    """The MQGMO ``gmo`` as the get returns it: ResolvedQName and (when it has one)
    ReturnedLength from ``d``, written in; GroupStatus, SegmentStatus and Segmentation
    (version 2 on) MQGS_NOT_IN_GROUP, MQSS_NOT_A_SEGMENT and MQSEG_INHIBITED, as every
    message ``engine.packed.get`` takes is (one with MsgFlags is the general path's)."""
    if len(gmo) > _GROUP_STATUS_AT \
            and gmo[_GROUP_STATUS_AT:_GROUP_STATUS_AT + 3] != _PLAIN_STATUS:
        gmo = b"".join((gmo[:_GROUP_STATUS_AT], _PLAIN_STATUS, gmo[_GROUP_STATUS_AT + 3:]))
    if len(gmo) > _RETURNED_AT:
        return b"".join((gmo[:_RESOLVED_AT], d["ResolvedQName"].ljust(48),
                         gmo[_RESOLVED_AT + 48:_RETURNED_AT],
                         _LONG.pack(d["ReturnedLength"]), gmo[_RETURNED_AT + 4:]))
    return b"".join((gmo[:_RESOLVED_AT], d["ResolvedQName"].ljust(48), gmo[_RESOLVED_AT + 48:]))


def _request(data: bytes, start: int, limit: int) -> tuple[int, int, int, int, int] | None:
    """(its end, Hobj, where its MQGMO starts, the MQGMO's length, its Options) of the
    MQGET of the common form, with an MQMD version 2, starting at
    ``start`` of ``data``, a segment of at most ``limit`` bytes; None for anything else."""
    end = whole_request(data, start, limit, _SEGMENT)
    if end is None:
        return None
    md_at = start + _BODY_AT
    gmo_at = md_at + _MD_V2
    if mqiflows.size_at(data, md_at, mqiflows.MD_SIZES) != _MD_V2:
        return None
    gmo_size = mqiflows.size_at(data, gmo_at, _GMO_SIZES)
    if not gmo_size or gmo_at + gmo_size + 4 != end:
        return None
    options = _LONG.unpack_from(data, gmo_at + _OPTIONS_AT)[0]
    return end, _LONG.unpack_from(data, start + _HOBJ_AT)[0], gmo_at, gmo_size, options
