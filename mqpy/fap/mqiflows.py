"""The MQI request/reply bodies after TSH + API header, verb by verb, and their codec.

Owns each verb's request and reply body, declared once as a tuple of parameters
(:data:`REQUESTS`, :data:`REPLIES`; the parameters are ``mqpy.fap.mqiparams``, the fused
form of the hot verbs ``mqpy.fap.fusedbodies``), the codec that packs and unpacks them, the
replies a server answers a failed or malformed call with, and mqpy's SPI calls, runs of calls
among them. The same bodies travel on the bindings socket and on a client's SVRCONN channel.
A malformed flow raises ``ProtocolError``; a malformed structure in a whole flow is the
call's :class:`BadStructure` (docs/wire.md). No I/O.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Sequence
from typing import Any, NamedTuple

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.fap import charvs, fopa, pubsubflows
from mqpy.fap.apiheader import MQIReply, MQIRequest, mqi_event
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.fusedbodies import FusedBody
from mqpy.fap.mqiparams import (
    BadStructure,
    Bytes,
    ConnBody,
    ConnSecurityItem,
    Item,
    ListOf,
    ListStructure,
    Long,
    Optional,
    Structure,
    Value,
    invalid_data,
)
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import SEGMENT_TYPES, ByteOrder, ControlFlags1, SegmentType
from mqpy.structs.tables import GMO, MD, OD, PMO, STS

__all__ = [
    "Decoded",
    "REPLIES",
    "REQUESTS",
    "RESOLVE_NO_WAIT",
    "resolve_values",
    "RUN_BYTES",
    "RUN_LAST_SPI_VERBS",
    "RUN_LAST_VERBS",
    "RUN_SPI_VERBS",
    "RUN_VERBS",
    "SpiVerb",
    "common_reply",
    "common_reply_body",
    "common_request",
    "common_request_body",
    "decode_reply",
    "decode_request",
    "encode_reply",
    "encode_request",
    "failure_reply",
    "is_char_selector",
    "max_length",
    "pack_each",
    "pack_flows",
    "refusal_reply",
    "reply_type",
    "run_stops",
    "truncation_reply",
    "unpack_flows",
    "WHOLE_MESSAGE",
]


class SpiVerb(enum.IntEnum):
    """mqpy's SPI calls (segment 0x8C): what the channel initiator asks beyond the MQI."""

    PREPARE = 1  #: harden the connection's unit of work in doubt under a LUWID
    RESOLVE = 2  #: commit (flag 1) or back out (flag 0) an in-doubt unit of work
    INDOUBT = 3  #: list the LUWIDs of in-doubt units of work
    #: the CHLAUTH decision for an inbound channel: the LUWID field carries the query as
    #: JSON (channel, address, client user, partner queue manager, MCAUSER ...), the reply
    #: one JSON decision (allowed, user, msgid, text). Privileged callers only.
    CHLAUTH = 4
    #: several MQPUT / MQPUT1 / MQGET calls of the connection run in order as one: the LUWID
    #: field carries their request flows (:func:`pack_flows`), the reply lists their reply
    #: flows, up to and including the first that failed (for a get, a warning such as a
    #: truncation counts), or up to the get that brings the message data got to ``Commit``
    #: bytes (when Commit > 0). A channel's batch costs one round trip instead of one per
    #: message, and each call keeps its own semantics and order.
    RUN = 5
    #: as RUN, for a caller that keeps nothing of its puts' output structures (a receiving
    #: MCA's arrivals): an MQPUT or MQPUT1 that completes, with or without a warning, is
    #: answered with its codes and an empty body, so that nobody packs or reads them.
    RUN_QUIET = 6


#: SPI RESOLVE's Commit field: 0 back out, 1 commit; with RESOLVE_NO_WAIT as well (3), a
#: commit answered without waiting for the log force of its commit record (a sending MCA's
#: batch: its prepare was forced, and a commit record lost in a crash leaves the unit of
#: work in doubt, resolved to commit again from the partner's sync record). A queue manager
#: that does not know the bit takes 3 as a commit, forced: nothing breaks.
RESOLVE_NO_WAIT = 2


def resolve_values(luwid: bytes, commit: bool, wait: bool = True) -> list[Any]:
    """An SPI RESOLVE request's body values: ``wait`` False makes a commit RESOLVE_NO_WAIT."""
    flag = int(bool(commit)) | (RESOLVE_NO_WAIT if commit and not wait else 0)
    return [SpiVerb.RESOLVE, luwid, flag]

#: The verbs an SPI RUN may carry: each stands alone (no connect, no unit-of-work control
#: of the connection's own: an SPI call in a run may only resolve an in-doubt unit of work,
#: see RUN_SPI_VERBS).
RUN_VERBS = frozenset({SegmentType.MQPUT, SegmentType.MQPUT1, SegmentType.MQGET,
                       SegmentType.SPI})
#: The SPI calls a run may carry: a sending MCA commits its confirmed batch and gets the next
#: batch's first messages in one round trip.
RUN_SPI_VERBS = frozenset({SpiVerb.RESOLVE})
#: The calls a run may end with, and only end with: the connection's MQCMIT, made only when
#: every call before it completed (a failure ends the run before it), so that a receiving
#: MCA's batch -- its last puts, its sync record and the commit -- is one round trip.
RUN_LAST_VERBS = frozenset({SegmentType.MQCMIT})
#: The SPI calls a run may end with, and only end with: PREPARE, made only when every call
#: before it completed, so that a sending MCA's batch end -- the commit of the batch before,
#: its sync record and the prepare (in doubt) -- is one round trip.
RUN_LAST_SPI_VERBS = frozenset({SpiVerb.PREPARE})
#: Room kept in a RUN for its flows (requests or replies), so that it stays far below the
#: largest flow a bindings connection accepts (a message of MAXMSGL plus headers).
RUN_BYTES = 1 << 20


def run_stops(verb: SegmentType, comp: int, carried: int, limit: int) -> bool:
    """Whether a run of calls (SPI RUN, or its twin made one call at a time) ends after a
    call: it failed, it was a get that completed with a warning (a truncation is a failure
    to its caller, and the message stays for the next single MQGET), or the messages got
    have reached ``limit`` bytes (``limit`` > 0: a channel's BATCHLIM)."""
    return (comp == CMQC.MQCC_FAILED
            or (verb == SegmentType.MQGET and comp == CMQC.MQCC_WARNING)
            or 0 < limit <= carried)


def pack_flows(events: Sequence[MQIRequest | MQIReply]) -> bytes:
    """MQI flows as the bytes of one SPI RUN field: each as the socket would carry it."""
    writer = SegmentWriter(RUN_BYTES + (1 << 16))
    return b"".join(writer.send(e) for e in events)


def pack_each(events: Sequence[MQIRequest | MQIReply]) -> list[bytes]:
    """Each flow packed on its own (an SPI RUN reply's list), with one writer for all."""
    writer = SegmentWriter(RUN_BYTES + (1 << 16))
    return [writer.send(e) for e in events]


def unpack_flows(data: bytes) -> list[Any]:
    """The flows of an SPI RUN field; ProtocolError unless it is whole MQI flows only."""
    # no message-size limit of its own: the SPI flow around it was bounded when it arrived
    reader = SegmentReader(RUN_BYTES + (1 << 16))
    events = reader.feed(data)
    if reader.buffered or reader.reassembling or not all(
            isinstance(e, (MQIRequest, MQIReply)) for e in events):
        raise invalid_data("SPI RUN: not a sequence of whole MQI flows")
    return events


#: An MQGET request's BufferLength for "the whole message, however long" (an application's
#: ``max_length`` None); any other negative length is the call's MQRC_BUFFER_LENGTH_ERROR.
WHOLE_MESSAGE = -1


def max_length(buffer_length: int) -> int | None:
    """An MQGET request's BufferLength as the engine's ``max_length``: None for
    :data:`WHOLE_MESSAGE`; any other value as it is (a negative one fails 2005 there)."""
    return None if buffer_length == WHOLE_MESSAGE else buffer_length


def set_attributes(values: Sequence[Any]) -> list[tuple[int, Any]]:
    """An MQSET request's selectors paired with their values; a count of values that is not
    the selectors' is that call's MQRC_SELECTOR_COUNT_ERROR."""
    selectors, settings = values
    if len(selectors) != len(settings):
        raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_SELECTOR_COUNT_ERROR)
    return list(zip(selectors, settings, strict=True))


def is_char_selector(selector: int) -> bool:
    """MQCA_* selectors (2001-4000) name character attributes; MQIA_* (1-2000) integers."""
    return CMQC.MQCA_FIRST <= selector <= CMQC.MQCA_LAST


_MD, _GMO = Structure(MD), Structure(GMO)
#: the most selectors (and MQSET values) a request may have, and the reason beyond (IBM's)
_SELECTORS = (256, CMQC.MQRC_SELECTOR_COUNT_ERROR)
_OD = ListStructure(OD, "ObjectRecPtr", "ObjectRecOffset")
_PMO = ListStructure(PMO, "PutMsgRecPtr", "PutMsgRecOffset")
_DATA = Bytes("message data")
_STS = Structure(STS)  # MQSTAT's status structure, in its request and its reply


#: Request bodies, by verb. MQGET's maximum length is -1 for "the whole message".
REQUESTS: dict[SegmentType, tuple[Item, ...]] = {
    SegmentType.MQCONN: (ConnBody(), Optional(ConnSecurityItem())),
    SegmentType.MQDISC: (),
    SegmentType.MQOPEN: (_OD, Long("Options")),
    SegmentType.MQCLOSE: (Long("Options"),),
    SegmentType.MQGET: (_MD, _GMO, Long("BufferLength")),
    SegmentType.MQPUT: (_MD, _PMO, _DATA),
    SegmentType.MQPUT1: (_OD, _MD, _PMO, _DATA),
    SegmentType.MQSET: (ListOf("Selectors", Long("Selector"), *_SELECTORS),
                        ListOf("Values", Value(), *_SELECTORS)),
    SegmentType.MQINQ: (ListOf("Selectors", Long("Selector"), *_SELECTORS),),
    SegmentType.MQCMIT: (),
    SegmentType.MQBACK: (),
    SegmentType.SPI: (Long("SpiVerb"), Bytes("LUWID"), Long("Commit")),
    SegmentType.MQSTAT: (Long("Type"), _STS),
    SegmentType.MQSUB: pubsubflows.SUB_REQUEST,
    SegmentType.MQSUBRQ: pubsubflows.SUBRQ_REQUEST,
}

#: Reply bodies, by request verb (the reply's segment type is the request's + 0x10).
REPLIES: dict[SegmentType, tuple[Item, ...]] = {
    SegmentType.MQCONN: (ConnBody(),),
    SegmentType.MQDISC: (),
    SegmentType.MQOPEN: (_OD,),
    SegmentType.MQCLOSE: (),
    SegmentType.MQGET: (_MD, _GMO, Long("DataLength"), _DATA),
    SegmentType.MQPUT: (_MD, _PMO),
    SegmentType.MQPUT1: (_OD, _MD, _PMO),
    SegmentType.MQSET: (),
    SegmentType.MQINQ: (ListOf("Values", Value()),),
    SegmentType.MQCMIT: (),
    SegmentType.MQBACK: (),
    SegmentType.SPI: (ListOf("LUWIDs", Bytes("LUWID")),),
    SegmentType.MQSTAT: (Long("Type"), _STS),
    SegmentType.MQSUB: pubsubflows.SUB_REPLY,
    SegmentType.MQSUBRQ: pubsubflows.SUBRQ_REPLY,
}


#: The verbs whose bodies have a fused form (:class:`FusedBody`): a message's every call.
_FUSED_VERBS = (SegmentType.MQPUT, SegmentType.MQGET, SegmentType.MQPUT1, SegmentType.MQOPEN)
_FUSED_REQUESTS = {verb: FusedBody(REQUESTS[verb], memo=True) for verb in _FUSED_VERBS}
_FUSED_REPLIES = {verb: FusedBody(REPLIES[verb]) for verb in _FUSED_VERBS}
for _fused in (_FUSED_REQUESTS, _FUSED_REPLIES):  # an MQOD's MQCHARV strings: the general path
    for _verb_with_od in (SegmentType.MQOPEN, SegmentType.MQPUT1):
        _fused[_verb_with_od] = charvs.Fused(_fused[_verb_with_od])  # type: ignore[assignment]


_HEAD = struct.Struct("<4si")  # an MQ structure's StrucId and Version (little-endian flows)


def _sizes(cls: Any) -> tuple[bytes, dict[int, int]]:
    layout = cls._layout_
    return cls().StrucId, {v: layout.length(layout.effective_version(v))
                           for v in range(1, layout.highest_version + 1)}


#: StrucId and length by every Version, of the structures an MQPUT, MQGET or reply body
#: starts with: what :func:`size_at` reads a body by without decoding it
MD_SIZES = _sizes(MD)
PMO_SIZES = _sizes(PMO)
GMO_SIZES = _sizes(GMO)


def size_at(body: bytes, pos: int, sizes: tuple[bytes, dict[int, int]]) -> int:
    """The length of the structure of ``sizes`` (e.g. :data:`MD_SIZES`) at ``pos`` of a
    little-endian body, from its StrucId and Version; 0 if there is none there."""
    if pos + 8 > len(body):
        return 0
    found, version = _HEAD.unpack_from(body, pos)
    strucid, by_version = sizes
    return by_version.get(version, 0) if found == strucid else 0


def reply_type(request_type: SegmentType) -> SegmentType:
    """The reply segment type of a request verb (request + 0x10)."""
    return SEGMENT_TYPES.get(int(request_type) + 0x10) or SegmentType(int(request_type) + 0x10)


#: Each verb's reply segment type, and each reply's verb, looked up once.
_REPLY_TYPES = {verb: reply_type(verb) for verb in REPLIES}
_VERB_OF_REPLY = {reply: verb for verb, reply in _REPLY_TYPES.items()}
_NO_FLAGS = ControlFlags1.NONE
_NO_LUW = bytes(8)


def _pack(shape: tuple[Item, ...], values: Sequence[Any], byte_order: ByteOrder) -> bytes:
    if len(values) != len(shape):
        values = list(values)
        while len(values) < len(shape) and isinstance(shape[len(values)], Optional):
            values.append(None)
        if len(values) != len(shape):
            raise ValueError(f"{len(shape)} values expected, {len(values)} given")
    return b"".join([item.pack(v, byte_order) for item, v in zip(shape, values, strict=True)])


def _unpack(shape: tuple[Item, ...], body: bytes, byte_order: ByteOrder,
            what: str) -> tuple[Any, ...]:
    pos = 0
    out = []
    for item in shape:
        value, pos = item.unpack(body, pos, byte_order)
        out.append(value)
    if pos != len(body):
        raise invalid_data(f"{what}: {len(body) - pos} bytes after the body")
    return tuple(out)


def _verb(segment_type: int, table: dict[SegmentType, tuple[Item, ...]],
          offset: int = 0) -> SegmentType:
    verb = SEGMENT_TYPES.get(segment_type - offset)
    if verb not in table:
        raise ProtocolError(StatusCode.PROTOCOL_SEGMENT_TYPE,
                            f"segment type 0x{segment_type:02X} is not a bindings MQI verb")
    return verb


class Decoded(NamedTuple):
    """A decoded request or reply: its verb, API-header codes and body values (a named
    tuple, immutable as the attrs class it was: made once per call on both sides of a
    bindings connection, for a third of that class's cost)."""

    verb: SegmentType
    comp: int
    reason: int
    hobj: int
    values: tuple[Any, ...] | None  #: None: an empty reply body (the call failed)


def encode_request(verb: SegmentType, values: Sequence[Any] = (), *, hobj: int = 0,
                   byte_order: ByteOrder = ByteOrder.LITTLE, conv_id: int | None = None,
                   request_id: int | None = None) -> MQIRequest:
    """The ``MQIRequest`` event for ``verb`` with body ``values`` (shape :data:`REQUESTS`);
    ``conv_id`` and ``request_id``: a client conversation's (TSHM)."""
    if type(verb) is not SegmentType or verb not in REQUESTS:
        verb = _verb(int(verb), REQUESTS)
    fused = _FUSED_REQUESTS.get(verb)
    body = None if fused is None else fused.pack(values, byte_order)
    if body is None:
        body = _pack(REQUESTS[verb], values, byte_order)
    # the event MQIRequest(segment_type=verb, hobj=hobj, body=body) makes, its fields
    # already in their converted form (every REQUESTS verb is in 0x81-0x8F)
    return mqi_event(MQIRequest, _NO_FLAGS, _NO_LUW, conv_id, request_id, verb, 0, 0, hobj,
                     body, None, byte_order)


def decode_request(event: MQIRequest, byte_order: ByteOrder = ByteOrder.LITTLE) -> Decoded:
    """Check and decode a request event's body; ProtocolError if it is malformed."""
    verb = event.segment_type
    if type(verb) is not SegmentType or verb not in REQUESTS:
        verb = _verb(int(verb), REQUESTS)
    fused = _FUSED_REQUESTS.get(verb)
    values = None if fused is None else fused.unpack(event.body, byte_order)
    if values is None and verb is SegmentType.MQOPEN:  # (an FOPA after the options)
        opened = _open_body(event.body, byte_order)
        values = opened[:2] if opened is not None and opened[1] is not None else None
    if values is None:
        values = _unpack(REQUESTS[verb], event.body, byte_order, verb.name)
    return Decoded(verb, event.comp, event.reason, event.hobj, values)


def _open_body(body: bytes, byte_order: ByteOrder) -> tuple[Any, ...] | None:
    """An MQOPEN request's or reply's MQOD, then what follows it (``fap.fopa``): the open
    options and the FOPA's defaults (None for what is not there); None when no MQOD is
    there, for the general path to say what is wrong."""
    try:
        od, pos = _OD.unpack(body, 0, byte_order)
    except (ProtocolError, BadStructure):
        return None
    options, defaults = fopa.split(body, pos, byte_order)
    return od, options, defaults


def common_request(verb: SegmentType, body: bytes,
                   byte_order: ByteOrder = ByteOrder.LITTLE) -> tuple[Any, ...] | None:
    """The values of an MQPUT, MQGET, MQPUT1 or MQOPEN body of the common form (no
    distribution-list records, structures mqpy knows, lengths that add up), read in one
    go; None for anything else, which :func:`decode_request` takes, with its errors."""
    return _FUSED_REQUESTS[verb].unpack(body, byte_order)


def common_request_body(verb: SegmentType, values: Sequence[Any],
                        byte_order: ByteOrder = ByteOrder.LITTLE) -> bytes | None:
    """The body :func:`encode_request` gives an MQPUT, MQGET, MQPUT1 or MQOPEN request of the
    common form (``values`` as its), packed in one go; None for anything else."""
    return _FUSED_REQUESTS[verb].pack(values, byte_order)


def common_reply_body(verb: SegmentType, values: Sequence[Any],
                      byte_order: ByteOrder = ByteOrder.LITTLE) -> bytes | None:
    """The body :func:`encode_reply` gives an MQPUT, MQGET, MQPUT1 or MQOPEN reply of the
    common form (``values`` as its), packed in one go; None for anything else."""
    return _FUSED_REPLIES[verb].pack(values, byte_order)


def encode_reply(verb: SegmentType, values: Sequence[Any] | None = None, *,
                 comp: int = CMQC.MQCC_OK, reason: int = CMQC.MQRC_NONE, hobj: int = 0,
                 byte_order: ByteOrder = ByteOrder.LITTLE) -> MQIReply:
    """The ``MQIReply`` to request ``verb``; ``values=None`` sends an empty body."""
    if type(verb) is not SegmentType or verb not in REPLIES:
        verb = _verb(int(verb), REPLIES)
    if values is None:
        body = b""
    else:
        fused = _FUSED_REPLIES.get(verb)
        body = None if fused is None else fused.pack(values, byte_order)
        if body is None:
            body = _pack(REPLIES[verb], values, byte_order)
    # MQIReply(segment_type=reply_type(verb), comp=..., body=body), fields as converted
    return mqi_event(MQIReply, _NO_FLAGS, _NO_LUW, None, None, _REPLY_TYPES[verb], comp,
                     reason, hobj, body, None, byte_order)


def refusal_reply(verb: SegmentType, error: BadStructure, connected: bool) -> MQIReply:
    """The reply to a request of ``verb`` whose structure ``error`` found malformed: the call
    fails with the structure's reason (MQRC_MD_ERROR ...), an empty body; before MQCONN
    (``connected`` False) any call but MQCONN fails MQRC_HCONN_ERROR, as it would anyway."""
    if not connected and verb != SegmentType.MQCONN:
        return encode_reply(verb, comp=CMQC.MQCC_FAILED, reason=CMQC.MQRC_HCONN_ERROR)
    return encode_reply(verb, comp=CMQC.MQCC_FAILED, reason=error.reason)


#: Verbs whose failed reply still carries the structures: a distribution list that failed
#: for several reasons (MQRC_MULTIPLE_REASONS) answers with its response records.
_RECORDS_ON_FAILURE = {SegmentType.MQOPEN, SegmentType.MQPUT, SegmentType.MQPUT1}


def failure_reply(verb: SegmentType, request: Decoded, comp: int, reason: int,
                  byte_order: ByteOrder = ByteOrder.LITTLE) -> MQIReply:
    """The reply to ``request`` that failed with ``comp`` / ``reason``: an empty body, except
    that MQRC_MULTIPLE_REASONS sends back the request's structures (MQOD / MQMD / MQPMO as
    the queue manager left them, response records included, in ``byte_order``)."""
    if reason == CMQC.MQRC_MULTIPLE_REASONS and verb in _RECORDS_ON_FAILURE \
            and request.values is not None:
        return encode_reply(verb, request.values[:len(REPLIES[verb])], comp=comp,
                            reason=reason, hobj=request.hobj, byte_order=byte_order)
    return encode_reply(verb, comp=comp, reason=reason)


def decode_reply(event: MQIReply, byte_order: ByteOrder = ByteOrder.LITTLE, *,
                 structures: bool = True, into: Sequence[Any] = ()) -> Decoded:
    """Decode a reply event; ``values`` is None when the body is empty, or when
    ``structures`` is False (the caller wants the API header's codes only).

    ``into``: the caller's structures that the reply's leading structures are copied into
    (``verbs.copy_fields``), in order. A reply of the common form is then read straight into
    them -- once the whole body has been checked -- and ``values`` holds them; otherwise
    ``values`` holds new structures, as without ``into``, for the caller to copy."""
    verb = _VERB_OF_REPLY.get(event.segment_type)
    if verb is None:
        verb = _verb(int(event.segment_type), REPLIES, 0x10)
    shape = REPLIES[verb]
    body = event.body
    if (not body and shape) or not structures:
        values = None
    else:
        fused = _FUSED_REPLIES.get(verb)
        values = None if fused is None else fused.unpack(body, byte_order, into)
        if values is None and verb is SegmentType.MQOPEN:  # the options and FOPA after it
            opened = _open_body(body, byte_order)
            values = opened if opened is None else (
                (opened[0],) if opened[2] is None else (opened[0], opened[2]))
        if values is None:
            values = _unpack(shape, body, byte_order, f"{verb.name} reply")
    return Decoded(verb, event.comp, event.reason, event.hobj, values)


def common_reply(verb: SegmentType, comp: int, reason: int, hobj: int, body: bytes,
                 into: Sequence[Any] = ()) -> Decoded | None:
    """What :func:`decode_reply` gives a little-endian reply of ``verb`` with these API
    header fields and ``body``, when the body is empty or of the common form (read in one
    go, into ``into`` as there); None for anything else, with nothing filled in."""
    if not body:
        return Decoded(verb, comp, reason, hobj, None if REPLIES[verb] else ())
    fused = _FUSED_REPLIES.get(verb)
    values = None if fused is None else fused.unpack(body, ByteOrder.LITTLE, into)
    return None if values is None else Decoded(verb, comp, reason, hobj, values)


def truncation_reply(md: Any, gmo: Any, error: Any,
                     byte_order: ByteOrder = ByteOrder.LITTLE) -> MQIReply | None:
    """The MQGET reply (its body in ``byte_order``) for an MQMIError that is a truncation
    warning -- 2079 and 2080 alike: the part of the message that fitted the buffer (IBM's
    MQGET fills the buffer with either) and the message's full length -- or None for any
    other failure (sent as an empty reply)."""
    if error.reason not in (CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, CMQC.MQRC_TRUNCATED_MSG_FAILED):
        return None
    data = getattr(error, "message", b"")
    return encode_reply(SegmentType.MQGET, [md, gmo, error.original_length, data],
                        comp=error.comp, reason=error.reason, byte_order=byte_order)


def request_body(verb: SegmentType, values: Sequence[Any] = (),
                 byte_order: ByteOrder = ByteOrder.LITTLE) -> bytes:
    """The body :func:`encode_request` puts in the request event of ``verb``, alone: for a
    transport that frames its requests itself (``mqpy.client``: the TSHM and API header of
    a client's call are one ``struct`` call, without an event on the way)."""
    if type(verb) is not SegmentType or verb not in REQUESTS:
        verb = _verb(int(verb), REQUESTS)
    fused = _FUSED_REQUESTS.get(verb)
    body = None if fused is None else fused.pack(values, byte_order)
    return _pack(REQUESTS[verb], values, byte_order) if body is None else body
