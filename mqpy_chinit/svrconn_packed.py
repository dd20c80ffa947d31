"""A client's MQPUT and MQGET served from the bytes of its request, by the client host's
poller, and answered with bytes.

``svrconn_inline`` serves an idle conversation's MQPUT and MQGET without wait at once from
the request's event: the segment reader makes the event, its body is decoded into MQMD,
MQPMO and MQGMO objects, the engine called with them, the reply packed from them. The
engine has the same calls on bytes (``mqpy.engine.packed``, the bindings busy thread's):
:func:`serve` takes a read that is exactly one whole little-endian TSHM segment of such a
request and gives its reply's segment from it, without the event or the objects. The
request's body is a bindings request's (its TSHM made a TSH, the body as it came: read by
``asyncput_stream.put_request`` and ``syncget_stream``'s reader), the reply framed for the
conversation (``onesegment``). Anything else -- a segment of another form, exits, strmqtrc,
a conversation with work queued, a long message, a put or get the engine's fast path leaves
to the general one (none there, truncation, a report asked for, a full queue, properties
...) -- returns None having changed nothing, and the read goes the receiver's way
(``Conversation._events``, ``CallsServedAtOnce._serve_now``), whose bytes these are
(tests/performance_paths/test_client_packed_serving.py holds the two alike).

An application puts and gets again and again with the same structures, so each conversation
keeps what its last MQPUT and MQGET of the common form were read as (:class:`Kept`, as the
bindings busy thread's ``syncput_stream.KeptPut`` and ``syncget_stream.KeptGet``): a request
whose bytes are that one's but for its ConvId and RequestId (and, an MQPUT's, its MQMD and
message) is not read again, and the TSHM and API header of its reply are made once for each
length of reply.
"""

from __future__ import annotations

import struct
import time
from typing import Any

from mqpy import CMQC, loopcalls, syncget_stream
from mqpy.asyncput_stream import put_request
from mqpy.engine import packed
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows
from mqpy.fap.apiheader import API_HEADER_LENGTH, MQIRequest, mqi_event
from mqpy.fap.onesegment import reply_segments
from mqpy.fap.segmentscan import plain_segments
from mqpy.fap.tsh import (
    EVENT_FLAGS1,
    FIRST_LAST,
    STRUCTID_TSH,
    STRUCTID_TSHM,
    TSH_LENGTH,
    TSHM_HEAD,
    TSHM_LENGTH,
    ByteOrder,
    SegmentType,
)
from mqpy.trace import TRACER
from mqpy_chinit.svrconn_inline import Answer

__all__ = ["serve"]

_T = SegmentType
_PUT, _GET = int(_T.MQPUT), int(_T.MQGET)
_LITTLE = int(ByteOrder.LITTLE)
_WHOLE = int(FIRST_LAST)
_MIN = TSHM_LENGTH + API_HEADER_LENGTH
_IDS = 8  # a TSHM is a TSH with ConvId and RequestId at offset 8
_TAIL = struct.Struct("<IH").unpack_from  # the TSHM's Encoding and CCSID (little-endian)
_API_TAIL = struct.Struct("<iiI").unpack_from  # CompCode, Reason, Hobj
_VERBS = {_PUT: _T.MQPUT, _GET: _T.MQGET}
_REPLY_TYPES = {_PUT: int(mqiflows.reply_type(_T.MQPUT)),
                _GET: int(mqiflows.reply_type(_T.MQGET))}
_OK, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_FAILED
_LONG = struct.Struct("<i")
_HEADERS = TSHM_LENGTH + API_HEADER_LENGTH
_SHIFT = TSHM_LENGTH - TSH_LENGTH  # where a request's bytes are, as a bindings request's
#: reply heads kept by length, MQGMOs returned by what was written in them: cleared when full
_KEPT = 64


def serve(instance: Any, data: bytes) -> tuple[list[bytes], int, int] | None:
    """The MQPUTs and MQGETs at the head of ``data``, a read of ``instance``'s socket, that
    the receiver would serve at once and the engine serves from their bytes: (their reply
    segments, where the requests served end, how many). Each is one whole segment; a read
    of more than one is taken only when it is whole MQI segments alone, so that the
    receiver's way, which reads the rest, finds no fault in it it would have found before
    serving any (none of them served, as then). None: none served, nothing done."""
    conv = instance.conv
    reader = conv.reader
    length = len(data)
    limit = reader.max_transmission_size
    if (length < _MIN or conv.exits is not None or reader.buffered or reader.reassembling
            or conv.writer.byte_order is not ByteOrder.LITTLE  # (a big-endian client's)
            or TRACER.spec_for(TRACER.process_qmgr) is not None):
        return None
    total = int.from_bytes(data[4:8], "big")
    if total == length:  # one segment (nearly always)
        served = _one(instance, conv, data, 0, limit)
        return None if served is None else (served[0], served[1], 1)
    if total > length or not plain_segments(data, limit):
        return None
    replies: list[bytes] = []
    pos = count = 0
    while pos < length:
        served = _one(instance, conv, data, pos, limit)
        if served is None:
            break
        replies += served[0]
        pos = served[1]
        count += 1
    return (replies, pos, count) if count else None


def _one(instance: Any, conv: Any, data: bytes, pos: int, limit: int
         ) -> tuple[list[bytes], int] | None:
    """(the reply segments, its end) of the MQPUT or MQGET at ``pos`` of ``data``, a read
    of ``instance``'s conversation ``conv``, served from its bytes, counted as the
    receiver's way counts it; None, nothing done, for anything else."""
    if len(data) - pos < _MIN:
        return None
    struc, total, conv_id, request_id, order, verb, flags1, _, luwid = \
        TSHM_HEAD.unpack_from(data, pos)
    end = pos + total
    if (struc != STRUCTID_TSHM or end > len(data) or total < _MIN or total > limit
            or order != _LITTLE or flags1 & _WHOLE != _WHOLE or (verb != _PUT and verb != _GET)):
        return None
    cc = instance.conversations.get(conv_id if instance.sharing else None)
    if cc is None or cc.queued or cc.calling or type(cc.backend) is not loopcalls.EngineVerbs:
        return None
    kept = cc.kept
    if kept is None or kept.max_msg_size != instance.max_msg_size:
        kept = cc.kept = Kept(instance.max_msg_size)
    conn = cc.backend.conn
    outcome: Any = None
    loopcalls.defer(conn)
    try:
        done = _put(instance, conn, data, pos, end, kept) if verb == _PUT \
            else _get(instance, conn, data, pos, end, kept)
    except MQMIError as e:  # (the engine's bytes paths raise none but a log force's)
        done = outcome = (e.comp, e.reason, mqiflows.encode_reply(_VERBS[verb], comp=e.comp,
                                                                   reason=e.reason))
    except Exception as exc:  # noqa: BLE001 - a fault behind the MQI: as _call_now says
        done = outcome = (_FAILED, CMQC.MQRC_UNEXPECTED_ERROR,
                          instance._unexpected(_VERBS[verb], exc))
    finally:
        lsn = loopcalls.undefer(conn)
    if done is None:
        return None
    # the segment taken as the receiver's way takes it (Conversation._events, _serve_now)
    reader = conv.reader
    reader.segments += 1
    reader.partner_byte_order = ByteOrder.LITTLE
    reader.partner_encoding, reader.partner_ccsid = _TAIL(data, pos + TSHM_LENGTH - 8)
    conv.last_received = instance.last_call = time.monotonic()
    conv._received(total, 1)
    if outcome is not None or lsn:
        comp, reason, hobj = _API_TAIL(data, pos + TSHM_LENGTH + 4)
        event = mqi_event(MQIRequest, EVENT_FLAGS1[flags1], luwid, conv_id, request_id,
                          _VERBS[verb], comp, reason, hobj, b"", None)
        if outcome is not None:
            return instance._answered(event, (), outcome), end
    body, moved, size = done
    segments = kept.reply(conv.writer, _REPLY_TYPES[verb], body, size, data[pos + 8:pos + 16])
    if segments is None:
        segments = reply_segments(conv.writer, _REPLY_TYPES[verb], body, conv_id, request_id)
    if not lsn:
        instance._counted(_VERBS[verb], moved)
        return segments, end
    cc.queued += 1
    cc.send.send_nowait(Answer(event, (), (_OK, 0, None), lsn, segments, moved))  # (empty)
    return [], end


class Kept:
    """What a conversation's last MQPUT and MQGET served here were read as, while the
    channel's MAXMSGL is ``max_msg_size``. A request is matched by its TSHM's StrucId and
    length (``*_front``) and its bytes from the TSHM's byte order on (``*_head``, an MQGET's
    all of them): the same bytes read the same way. An MQPUT's head ends at its MQMD's
    Version, and ``put_back`` is its MQPMO and its message's length (at ``put_pmo_at``): the
    rest of its MQMD, of which only StrucId and Version are read to find the MQPMO, may be
    another (a MsgId or CorrelId of its own). ``heads``: the TSHM and API header of an
    MQCC_OK reply by its length and type, but for the ConvId and RequestId (the request's),
    for the writer as ``writer`` says it was."""

    __slots__ = ("get_fields", "get_front", "get_gmo", "get_head", "get_hobj",
                 "get_max_length", "heads", "max_msg_size", "put_back", "put_front", "put_head",
                 "put_hobj", "put_md_at", "put_msg_at", "put_pmo", "put_pmo_at", "returned",
                 "writer")

    def __init__(self, max_msg_size: int) -> None:
        self.max_msg_size = max_msg_size
        self.put_front = self.put_head = self.get_front = self.get_head = b"\0"  # (none)
        self.put_back = b""
        self.put_hobj = self.put_md_at = self.put_pmo_at = self.put_msg_at = 0
        self.put_pmo = self.get_gmo = b""
        self.get_hobj = 0
        self.get_max_length: int | None = 0
        self.get_fields: Any = None  # (what syncget_stream.selecting read)
        self.returned: dict[tuple[Any, int], bytes] = {}
        self.heads: dict[tuple[int, int], tuple[bytes, bytes]] = {}
        self.writer: tuple[Any, ...] = ()

    def reply(self, writer: Any, reply_type: int, body: tuple[bytes, ...], size: int,
              ids: bytes) -> list[bytes] | None:
        """``onesegment.reply_segments(writer, reply_type, body, ...)`` of a reply that fits
        one segment, whose body's bytes are ``size`` and whose ConvId and RequestId are
        ``ids`` (the request's, as bytes); None for one that does not."""
        total = _HEADERS + size
        if total > writer.max_transmission_size:
            return None
        heads = self.heads
        state = (writer.flags2, writer.encoding, writer.ccsid)
        if state != self.writer:
            heads.clear()
            self.writer = state
        head = heads.get((total, reply_type))
        if head is None:
            if len(heads) >= _KEPT:
                heads.clear()
            made = reply_segments(writer, reply_type, (bytes(total - _HEADERS),), 0, 0)[0]
            head = heads[(total, reply_type)] = (made[:8], made[16:_HEADERS])
        return [b"".join((head[0], ids, head[1], *body))]


def _put(instance: Any, conn: Any, data: bytes, pos: int, end: int, kept: Kept
         ) -> tuple[tuple[bytes, ...], int, int] | None:
    """((the reply's MQMD, MQPMO), the message's length, the two's bytes) of the MQPUT at
    ``pos`` of ``data`` (ending at ``end``) put; None, nothing done, for one not of the
    common form (read as a bindings request), too long for the loop or the channel, or left
    to the general path by the engine."""
    at = pos + _SHIFT  # where the request starts, read as a bindings request
    if data.startswith(kept.put_front, pos) and data.startswith(kept.put_head, pos + _IDS * 2) \
            and data.startswith(kept.put_back, at + kept.put_pmo_at):
        hobj, pmo = kept.put_hobj, kept.put_pmo
        md = data[at + kept.put_md_at:at + kept.put_pmo_at]
        message = data[at + kept.put_msg_at:end]
    else:
        request = STRUCTID_TSH + (end - at).to_bytes(4, "big") + data[pos + _IDS * 2:end]
        found = put_request(request, 0, len(request))
        if found is None:
            return None
        _end, hobj, md_at, pmo_at, _options, msg_at = found
        size = _end - msg_at - 4
        if size > loopcalls.INLINE_DATA_LIMIT or (instance.max_msg_size
                                                   and size > instance.max_msg_size):
            return None  # a long put goes to a thread; one beyond MAXMSGL fails 2010
        md, pmo, message = request[md_at:pmo_at], request[pmo_at:msg_at], request[msg_at + 4:]
        kept.put_front, kept.put_head = data[pos:pos + 8], data[pos + _IDS * 2:at + md_at + 8]
        kept.put_back = data[at + pmo_at:at + msg_at + 4]
        kept.put_hobj, kept.put_pmo = hobj, pmo
        kept.put_md_at, kept.put_pmo_at, kept.put_msg_at = md_at, pmo_at, msg_at + 4
    done = packed.put_sync(conn, hobj, md, pmo, message)
    if done is packed.GENERAL:
        return None
    reply_md, reply_pmo = done  # type: ignore[misc]
    return done, len(message), len(reply_md) + len(reply_pmo)  # type: ignore[return-value]


def _get(instance: Any, conn: Any, data: bytes, pos: int, end: int, kept: Kept
         ) -> tuple[tuple[bytes, ...], int, int] | None:
    """((the reply's MQMD, MQGMO, DataLength, the message's length, the message), its
    length, their bytes) of the MQGET at ``pos`` of ``data`` (ending at ``end``; as a
    bindings request: an MQMD version 2; no wait, or a selection by MsgId or CorrelId whose
    message is there: ``syncget_stream.selecting``) with the message got, at most the
    channel's MAXMSGL; None, nothing done, for anything else."""
    if not (data.startswith(kept.get_front, pos)
            and data.startswith(kept.get_head, pos + _IDS * 2)):
        if not _read_get(instance, data, pos, end, kept):
            return None
    body = syncget_stream.kept_reply_body(conn, kept.get_hobj, kept.get_fields,
                                          kept.get_max_length, kept.get_gmo, kept.returned)
    if body is None:
        return None
    md, gmo, _, _, message = body
    n = len(message)
    return body, n, len(md) + len(gmo) + 8 + n


def _read_get(instance: Any, data: bytes, pos: int, end: int, kept: Kept) -> bool:
    """Whether the MQGET at ``pos`` of ``data`` is of the common form (read as a bindings
    request, ``syncget_stream.selecting``); if so it is read into ``kept``."""
    request = STRUCTID_TSH + (end - pos - _SHIFT).to_bytes(4, "big") + data[pos + _IDS * 2:end]
    found = syncget_stream.selecting(request, 0, len(request))
    if found is None:
        return False
    _end, hobj, gmo, fields = found
    kept.get_front, kept.get_head = data[pos:pos + 8], data[pos + _IDS * 2:end]
    kept.get_hobj, kept.get_gmo, kept.get_fields = hobj, gmo, fields
    kept.get_max_length = instance._max_length(_LONG.unpack_from(request, len(request) - 4)[0])
    kept.returned.clear()
    return True
