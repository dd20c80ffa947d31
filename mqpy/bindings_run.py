"""An SPI RUN served over bindings: a channel MCA's batch of MQI calls in one request
(``mqiflows.SpiVerb.RUN`` and ``RUN_QUIET``), each answered as on its own, until one fails or
the messages got reach the run's byte limit.

The calls of a run repeat (a sending MCA's gets of its transmission queue are one flow many
times; a receiving MCA's puts differ only in their messages), so a run's usual MQPUT and
MQGET are taken out of their requests without decoding their MQMDs (:class:`PackedCall`,
``engine.packed``), and a get's reply flow is packed at once; anything else is decoded and
served by the session (``bindings_listener``) as a call on its own is. The session keeps what
a run needs between its calls: ``quiet_puts``, ``got_bytes``.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from mqpy import CMQC, loopcalls
from mqpy.engine import packed
from mqpy.errors import MQMIError
from mqpy.fap import mqiflows, mqiparams
from mqpy.fap.apiheader import API_HEADER_LENGTH, MQIReply, MQIRequest, build_mqi_reply, mqi_event
from mqpy.fap.framing import SegmentWriter
from mqpy.fap.statuscodes import ProtocolError
from mqpy.fap.tsh import TSH_LENGTH, ByteOrder, ControlFlags1, SegmentType, mq_encoding
from mqpy.structs.fields import StructError
from mqpy.structs.tables import GMO, PMO

__all__ = ["QUIET_PUT_OK", "PackedCall", "serve", "serve_packed"]

_T = SegmentType
_OK, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_FAILED


async def serve(session: Any, verb: SegmentType, flows: bytes, limit: int) -> MQIReply:
    """SPI RUN: the calls in order, each answered as on its own, until one fails or the
    messages got reach ``limit`` bytes (mqiflows.SpiVerb.RUN); an MQCMIT or an SPI
    PREPARE may end it (mqiflows.RUN_LAST_VERBS, RUN_LAST_SPI_VERBS), made only if every
    call before it completed."""
    requests = _run_requests(flows)
    if not all(isinstance(r, MQIRequest) and (
            r.segment_type in mqiflows.RUN_VERBS
            or (r is requests[-1] and r.segment_type in mqiflows.RUN_LAST_VERBS))
               for r in requests):
        raise MQMIError(_FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
    # every call decoded before any is made: a malformed flow ends the connection with
    # none of the run done, rather than after puts made outside syncpoint went unanswered;
    # a malformed structure is its call's failure, where the run stops
    # (each flow in its own TSH's byte order)
    quiet = session.quiet_puts
    calls = [(request, (request.byte_order == ByteOrder.LITTLE and _packed_call(request, quiet))
              or session._decode_in_run(request)) for request in requests]
    if any(type(d) is mqiflows.Decoded and d.verb == _T.SPI
           and d.values[0] not in mqiflows.RUN_SPI_VERBS and not (
               request is requests[-1] and d.values[0] in mqiflows.RUN_LAST_SPI_VERBS)
           for request, d in calls):
        # only RESOLVE, and PREPARE at the end: no run within a run, no CHLAUTH
        raise MQMIError(_FAILED, CMQC.MQRC_FUNCTION_NOT_SUPPORTED)
    replies = []  # each packed as mqiflows.pack_each packs it
    carried = 0  # message data in the replies (what a channel's BATCHLIM counts)
    for request, decoded in calls:
        session.got_bytes = 0
        if type(decoded) is mqiparams.BadStructure:
            replies.append(_RUN_WRITER.send(mqiflows.refusal_reply(
                request.segment_type, decoded, connected=True)))
            break
        reply = await session._serve(decoded)
        if type(reply) is bytes:  # a packed get's reply flow: it completed
            replies.append(reply)
            carried += session.got_bytes
            if mqiflows.run_stops(_T.MQGET, _OK, carried, limit):
                break
            continue
        # a receiving MCA's every arrival is a quiet put answered OK: the same bytes
        replies.append(_QUIET_PUT_OK_FLOW if reply is QUIET_PUT_OK
                       else _RUN_WRITER.send(reply))
        called = request.segment_type  # a SegmentType already (the event's converter)
        if called == _T.MQGET and reply.comp == _OK:
            carried += session.got_bytes
        if mqiflows.run_stops(called, reply.comp, carried, limit):
            break
    return mqiflows.encode_reply(verb, [replies])


#: An SPI RUN's replies are packed as mqiflows.pack_each packs them (the writer keeps no
#: state); the reply of a quiet MQPUT that completed without a warning -- codes only, an
#: empty body -- is always the same event, packed once.
_RUN_WRITER = SegmentWriter(mqiflows.RUN_BYTES + (1 << 16))
QUIET_PUT_OK = mqiflows.encode_reply(_T.MQPUT)
_QUIET_PUT_OK_FLOW = _RUN_WRITER.send(QUIET_PUT_OK)
#: a packed get's reply flow fits one of _RUN_WRITER's segments up to this, less its
#: TSH, API header and lengths (_get_packed)
_RUN_SEGMENT = _RUN_WRITER.max_transmission_size
_GET_REPLY_HEAD = TSH_LENGTH + API_HEADER_LENGTH + 8


_LONG = struct.Struct("<i")
_LITTLE_ENCODING = mq_encoding(ByteOrder.LITTLE)
_NO_LUW = bytes(8)
_GET_REPLY = mqiflows.reply_type(_T.MQGET)
_PMO_RECS_AT = PMO._layout_.offsets["RecsPresent"]
_MD_IDS = slice(packed.MSGID_AT, packed.MSGID_AT + 48)  # MsgId, then CorrelId
_NO_IDS = bytes(48)
#: what recent MQPMO and MQGMO bytes of packed calls decoded to (a channel's every put
#: and get carries the same ones), by class and bytes; cleared when full
_STRUCS: dict[tuple[type, bytes], dict[str, Any]] = {}
_STRUCS_KEPT = 64
#: packed MQGETs' request bodies seen lately: their MQGMO bytes and buffer length
_GETS: dict[bytes, tuple[bytes, int | None]] = {}
#: the MQGMO bytes of packed MQGETs' replies, by request MQGMO, ResolvedQName and
#: ReturnedLength (all a get changes in it)
_GMO_REPLIES: dict[tuple[bytes, bytes, int], bytes] = {}


def _run_requests(flows: bytes) -> list[Any]:
    """``mqiflows.unpack_flows(flows)``, the same events, with the flow a run starts with
    parsed once when it repeats: a sending MCA's run of gets is one get's flow many times
    (an MQPUT, MQPUT1 or MQGET in one segment; its repeats are the same event)."""
    if len(flows) >= 8:
        (length,) = _SEGMENT_LENGTH.unpack_from(flows, 4)  # the TSH's, big-endian
        flow = flows[:length]
        if 0 < length and flows[length:2 * length] == flow:
            try:
                first = mqiflows.unpack_flows(flow)
            except ProtocolError:
                first = None  # (not a whole flow: the whole run says what is wrong)
            if first and len(first) == 1 and type(first[0]) is MQIRequest \
                    and first[0].segment_type in _REPEATED:
                count = 2
                while flows[count * length:(count + 1) * length] == flow:
                    count += 1
                rest = flows[count * length:]
                return first * count + (mqiflows.unpack_flows(rest) if rest else [])
    return mqiflows.unpack_flows(flows)


_SEGMENT_LENGTH = struct.Struct(">i")
_REPEATED = frozenset({_T.MQPUT, _T.MQPUT1, _T.MQGET})


class PackedCall:
    """An MQPUT or MQGET of an SPI RUN taken out of its request without decoding its MQMD
    (:func:`_packed_call`): ``raw`` is a put's MQMD, a get's MQGMO, as they came; ``struc``
    its MQPMO or MQGMO decoded; ``data`` a put's message, a get's buffer length (None: any).
    ``values`` None, as a failed call's Decoded has none."""

    __slots__ = ("data", "hobj", "raw", "request", "struc", "verb")
    values = None

    def __init__(self, verb: SegmentType, hobj: int, raw: bytes, struc: Any, data: Any,
                 request: MQIRequest) -> None:
        self.verb, self.hobj, self.raw, self.struc, self.data = verb, hobj, raw, struc, data
        self.request = request


def _struc(cls: type, raw: bytes) -> Any:
    """A fresh ``cls`` decoded from little-endian ``raw`` (recent bytes remembered); None if
    they do not decode."""
    key = (cls, raw)
    fields = _STRUCS.get(key)
    if fields is None:
        try:
            fields = dict(cls.from_bytes(raw, _LITTLE_ENCODING).__dict__)
        except (StructError, ValueError, struct.error):
            return None  # decode_request says what is wrong
        if len(_STRUCS) >= _STRUCS_KEPT:
            _STRUCS.clear()
        _STRUCS[key] = fields
    obj = cls.__new__(cls)
    obj.__dict__.update(fields)
    return obj


def _packed_call(request: MQIRequest, quiet: bool) -> PackedCall | None:
    """A little-endian SPI RUN's MQPUT (quiet: nothing of its output is sent back) or MQGET
    selecting no MsgId or CorrelId, with a plain MQMD (version 1 or 2) and MQPMO or MQGMO,
    as a packed call; None for anything else (decoded as usual). The body is read as
    ``mqiflows.decode_request`` reads it: a body it would refuse is not a packed call."""
    verb = request.segment_type
    if verb is _T.MQPUT:
        if not quiet:
            return None
        body = request.body
        md_size = packed.md_size(body)
        pmo_size = md_size and mqiflows.size_at(body, md_size, mqiflows.PMO_SIZES)
        if not pmo_size:
            return None
        pos = md_size + pmo_size
        if len(body) < pos + 4 or (_LONG.unpack_from(body, md_size + 4)[0] >= 2
                                   and _LONG.unpack_from(body, md_size + _PMO_RECS_AT)[0]):
            return None  # (a distribution list's records follow)
        (length,) = _LONG.unpack_from(body, pos)
        if length != len(body) - pos - 4 or length > loopcalls.INLINE_DATA_LIMIT:
            return None
        pmo = _struc(PMO, body[md_size:pos])
        return None if pmo is None else PackedCall(verb, request.hobj, body[:md_size], pmo,
                                                    body[pos + 4:], request)
    if verb is _T.MQGET:
        body = request.body
        known = _GETS.get(body)  # a channel's every get of a batch is the same request
        if known is None:
            md_size = packed.md_size(body)
            gmo_size = md_size and mqiflows.size_at(body, md_size, mqiflows.GMO_SIZES)
            if not gmo_size or len(body) != md_size + gmo_size + 4 \
                    or body[_MD_IDS] != _NO_IDS:
                return None
            (buffer_length,) = _LONG.unpack_from(body, md_size + gmo_size)
            gmo_raw = body[md_size:-4]
            if _struc(GMO, gmo_raw) is None:
                return None
            known = (gmo_raw, mqiflows.max_length(buffer_length))
            if len(_GETS) >= _STRUCS_KEPT:
                _GETS.clear()
            _GETS[body] = known
        gmo_raw, max_length = known
        return PackedCall(verb, request.hobj, gmo_raw, _struc(GMO, gmo_raw), max_length,
                           request)
    return None


async def _put_packed(session: Any, call: PackedCall) -> MQIReply:
    """A quiet MQPUT of an SPI RUN_QUIET with its MQMD as it came (``engine.packed``);
    anything but a plain put goes the usual way, decoded then."""
    conn = session.conn
    done = await loopcalls.engine_call(conn, session.server.limiter, packed.put, conn,
                                     call.hobj, call.raw, call.struc, call.data)
    if done is packed.GENERAL:
        return await session._put(session._decode(call.request))
    return QUIET_PUT_OK

async def _get_packed(session: Any, call: PackedCall) -> MQIReply | bytes:
    """An MQGET of an SPI RUN that selects nothing: the message's MQMD goes back as the
    engine keeps it (``engine.packed``), not through an MD object; anything but the
    usual get goes the usual way, decoded then. A get that completes is answered with
    its reply's flow in the run, packed (bytes), when it fits one segment."""
    conn = session.conn
    gmo = call.struc
    got = await loopcalls.engine_call(conn, session.server.limiter, packed.get, conn,
                                    call.hobj, gmo, call.data)
    if got is packed.GENERAL:
        return await session._get(session._decode(call.request))
    md, data = got
    session.got_bytes = len(data)
    length = _LONG.pack(len(data))  # DataLength, then the data's own length
    # the MQGMO as the get left it: the request's, ResolvedQName and ReturnedLength
    # filled in -- the same bytes for every get of a channel's batch, packed once
    gd = gmo.__dict__
    key = (call.raw, gd["ResolvedQName"], gd["ReturnedLength"])
    gmo_bytes = _GMO_REPLIES.get(key)
    if gmo_bytes is None:
        gmo_bytes = gmo.pack(_LITTLE_ENCODING)
        if len(_GMO_REPLIES) >= _STRUCS_KEPT:
            _GMO_REPLIES.clear()
        _GMO_REPLIES[key] = gmo_bytes
    body = (md, gmo_bytes, length, length, data)
    if _GET_REPLY_HEAD + len(md) + len(gmo_bytes) + len(data) <= _RUN_SEGMENT:
        # the reply's flow in the run, packed at once: the bytes _RUN_WRITER makes
        # of the reply event, without the event and a copy of the data into its body
        return build_mqi_reply(_GET_REPLY, _OK, CMQC.MQRC_NONE, 0, body, ByteOrder.LITTLE,
                               _RUN_WRITER.encoding, _RUN_WRITER.ccsid,
                               int(_RUN_WRITER.flags2), None, None)
    return mqi_event(MQIReply, ControlFlags1.NONE, _NO_LUW, None, None, _GET_REPLY, _OK,
                     CMQC.MQRC_NONE, 0, b"".join(body), None)


async def serve_packed(session: Any, call: PackedCall) -> MQIReply | bytes:
    """A run's packed MQPUT or MQGET, served (the session's ``_serve`` turns its failure
    into the call's reply)."""
    return await _PACKED[call.verb](session, call)


_PACKED: dict[SegmentType, Callable[[Any, PackedCall], Any]] = {
    _T.MQPUT: _put_packed,
    _T.MQGET: _get_packed,
}
