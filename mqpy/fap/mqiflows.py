"""The MQI request/reply protocol of bindings connections: verb bodies after TSH + API header.

A bindings application talks to its queue manager over the Unix socket in the queue manager's
directory with the same segments a client talks to a SVRCONN with: a TSH, the 16-byte API
header (ReplyLength, CompCode, Reason, ObjectHandle) and a verb-specific body
(spec/wire-format.md, segment types 0x81-0x9F). Framing -- segment headers, splitting long
flows, reassembly -- is ``mqpy.fap.framing`` and ``mqpy.fap.segments`` (``MQIRequest`` /
``MQIReply`` events); this module owns only the *bodies*, declared once per verb as a tuple of
items (:data:`REQUESTS`, :data:`REPLIES`) and packed / unpacked by one generic codec.

Theory of operation
-------------------
- MQ structures (MQOD, MQMD, MQPMO, MQGMO) travel in IBM's binary layouts, integers in the
  segment's byte order (the TSH byte-order byte, as MQ encodings: 1 = MQENC_INTEGER_NORMAL,
  2 = MQENC_INTEGER_REVERSED). Each is self-sizing: its StrucId and Version say how long it is.
- Integers (MQLONG) are 4 bytes signed in the segment's byte order; message data is an MQLONG
  length then the bytes.
- The API header carries what MQ puts there: CompCode and Reason of the reply (MQCC_WARNING
  replies are ordinary replies with a body), and the object handle (MQCONN's reply puts the
  Hconn there; MQINQ / MQSET with handle 0 mean the queue manager object itself).
- A reply body is either the verb's whole reply shape or empty. Only MQCC_OK and MQCC_WARNING
  replies carry one -- and MQGET's MQRC_TRUNCATED_MSG_FAILED (2080), which carries the MQMD,
  the MQGMO and the full message length, so the application can size its buffer.
- mqpy's own calls that the channel initiator needs (prepare a batch in doubt, resolve it,
  list the in-doubt units of work, run a channel batch's puts or gets as one call) go in the
  SPI segment (0x8C): an SPI verb, a LUWID and a commit flag; the reply lists LUWIDs.

A malformed *flow* -- a short body, trailing bytes, lengths beyond the body -- raises
``mqpy.fap.segments.ProtocolError`` and nothing else: the connection cannot go on. A malformed
*structure* in a flow that is whole -- an MQMD, MQOD, MQPMO or MQGMO whose StrucId or Version
is wrong, a negative RecsPresent -- is that call's error, as IBM has it: :class:`BadStructure`
(a ProtocolError, so that a reader that knows no better still ends the connection) carries the
structure's reason code (MQRC_MD_ERROR ...), which a server answers the call with
(:func:`refusal_reply`), and the connection goes on. This module does no I/O.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Sequence
from typing import Any

import attrs
import construct as cs

from mqpy import CMQC
from mqpy.fap.framing import SegmentReader, SegmentWriter
from mqpy.fap.segments import (
    MQCONN_BODY,
    SEGMENT_TYPES,
    ByteOrder,
    ControlFlags1,
    MQIReply,
    MQIRequest,
    ProtocolError,
    SegmentType,
    StatusCode,
    mq_encoding,
    mqi_event,
)
from mqpy.fap.userid import Credentials, build_caut, parse_caut
from mqpy.mqstruct import MQStruct, StructError, encode_text, pack_arguments, text_field
from mqpy.structures import (
    GMO,
    MD,
    OD,
    OR,
    PMO,
    RR,
    pack_put_msg_records,
    put_msg_record_length,
    unpack_put_msg_records,
)

__all__ = [
    "BadStructure",
    "ConnSecurity",
    "Decoded",
    "Packed",
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
    "common_reply_body",
    "common_request",
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
        raise _bad("SPI RUN: not a sequence of whole MQI flows")
    return events


#: An MQGET request's BufferLength for "the whole message, however long" (an application's
#: ``max_length`` None); any other negative length is the call's MQRC_BUFFER_LENGTH_ERROR.
WHOLE_MESSAGE = -1


def max_length(buffer_length: int) -> int | None:
    """An MQGET request's BufferLength as the engine's ``max_length``: None for
    :data:`WHOLE_MESSAGE`; any other value as it is (a negative one fails 2005 there)."""
    return None if buffer_length == WHOLE_MESSAGE else buffer_length


def is_char_selector(selector: int) -> bool:
    """MQCA_* selectors (2001-4000) name character attributes; MQIA_* (1-2000) integers."""
    return CMQC.MQCA_FIRST <= selector <= CMQC.MQCA_LAST


# ---------------------------------------------------------------------------- body items


def _bad(text: str) -> ProtocolError:
    return ProtocolError(StatusCode.PROTOCOL_INVALID_DATA, text)


class BadStructure(ProtocolError):
    """A structure of a call that is whole is malformed: the call fails with ``reason`` (the
    structure's MQRC_*_ERROR) and the connection goes on (:func:`refusal_reply`)."""

    def __init__(self, reason: int, text: str) -> None:
        super().__init__(StatusCode.PROTOCOL_INVALID_DATA, text)
        self.reason = reason


def _order(byte_order: ByteOrder) -> str:
    return "<" if byte_order == ByteOrder.LITTLE else ">"


class _Item:
    """One field of a verb body: ``pack(value, order) -> bytes``, ``unpack -> (value, pos)``."""

    name = "item"

    def pack(self, value: Any, byte_order: ByteOrder) -> bytes:
        raise NotImplementedError

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[Any, int]:
        raise NotImplementedError


_MQLONG = {ByteOrder.LITTLE: struct.Struct("<i"), ByteOrder.BIG: struct.Struct(">i")}


def _long_at(buf: bytes, pos: int, byte_order: ByteOrder, what: str) -> tuple[int, int]:
    if pos + 4 > len(buf):
        raise _bad(f"{what}: body ends at {len(buf)}, an MQLONG needs {pos + 4}")
    return _MQLONG[byte_order].unpack_from(buf, pos)[0], pos + 4


class _Long(_Item):
    """An MQLONG: options, a length, a selector, a flag."""

    def __init__(self, name: str) -> None:
        self.name = name

    def pack(self, value: int, byte_order: ByteOrder) -> bytes:
        try:
            return _MQLONG[byte_order].pack(value)
        except struct.error as exc:
            raise ValueError(f"{self.name}: {exc}") from None

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[int, int]:
        return _long_at(buf, pos, byte_order, self.name)


class _Bytes(_Item):
    """An MQLONG length then that many bytes (message data, a LUWID)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def pack(self, value: bytes, byte_order: ByteOrder) -> bytes:
        value = bytes(value)
        return _MQLONG[byte_order].pack(len(value)) + value

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[bytes, int]:
        length, pos = _long_at(buf, pos, byte_order, self.name)
        if length < 0 or pos + length > len(buf):
            raise _bad(f"{self.name}: length {length} with {len(buf) - pos} bytes left")
        return bytes(buf[pos : pos + length]), pos + length


#: Structures' bytes whose decoding each ``_Struct`` keeps (cleared when full).
_DECODED_KEPT = 64
_NO_MSGID = bytes(24)


@attrs.frozen
class Packed:
    """An MQ structure already in IBM's layout, integers in ``byte_order``: a request carries
    ``raw`` as it is (a receiving MCA's MQMD, passed on as it arrived in the transmission
    header, or one MQPMO packed once for a run of puts), without decoding and re-encoding
    it. Only for a caller that keeps nothing of the call's output structures (a quiet put):
    the reply's copy is not taken into it (:meth:`update_from`)."""

    cls: type[MQStruct]
    raw: bytes
    byte_order: ByteOrder = ByteOrder.LITTLE

    @classmethod
    def of(cls, struc: MQStruct) -> Packed:
        """``struc`` packed once, in the bindings flows' (little-endian) byte order."""
        return cls(type(struc), struc.pack(mq_encoding(ByteOrder.LITTLE)))

    def unpacked(self) -> MQStruct:
        """The structure decoded (for a connection that needs the object: in process)."""
        return self.cls.from_bytes(self.raw, mq_encoding(self.byte_order))

    def update_from(self, other: Any) -> None:
        """The caller keeps nothing of the output: what a reply brings back is dropped."""


class _Struct(_Item):
    """An MQ structure in IBM's layout; its StrucId and Version give its length."""

    def __init__(self, cls: type[MQStruct]) -> None:
        self.cls = cls
        self.name = cls._layout_.mq_name
        self._sizes: dict[Any, int] = {}  # packed size by Version: it depends on nothing else
        # what recent bytes decoded to (their fields), by byte order and bytes; the size by
        # byte order and the raw Version field, to cut the key out before decoding
        self._decoded: dict[tuple[ByteOrder, bytes], dict[str, Any]] = {}
        self._raw_sizes: dict[tuple[ByteOrder, bytes], int] = {}
        self._flat = all(getattr(f, "kind", "pointer") not in ("pointer", "longs", "nested")
                         for f in cls._layout_.fields)  # no field can hold a list

    def pack(self, value: MQStruct | Packed, byte_order: ByteOrder) -> bytes:
        if type(value) is Packed:
            if value.byte_order == byte_order and value.cls is self.cls:
                return value.raw
            value = value.unpacked()
        return value.pack(mq_encoding(byte_order))

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[MQStruct, int]:
        # the same bytes again (a channel's every MQGMO, MQPMO, a fresh MQMD): a copy of
        # what they decoded to last time, without decoding them field by field
        sized = self._raw_sizes.get((byte_order, buf[pos + 4:pos + 8]))
        if sized is not None:
            key = (byte_order, buf[pos:pos + sized])
            fields = self._decoded.get(key)
            if fields is not None:
                obj = self.cls.__new__(self.cls)
                obj.__dict__.update(fields)
                return obj, pos + sized
        try:
            obj = self.cls.from_bytes(buf, mq_encoding(byte_order), offset=pos)
        except (StructError, ValueError, struct.error) as exc:
            raise self._error(buf, pos, byte_order, exc) from None
        version = obj.Version
        size = self._sizes.get(version)
        if size is None:
            size = self._sizes[version] = obj.packed_size()
        if not self.cls._mutable_:
            self._remember(obj, buf, pos, size, byte_order)
        return obj, pos + size

    def _error(self, buf: bytes, pos: int, byte_order: ByteOrder,
               exc: Exception) -> ProtocolError:
        """What bytes that do not decode are: the call's BadStructure when the body holds a
        structure's worth of bytes whose StrucId or Version is wrong; a malformed flow when
        it is cut short (no room for the structure, or for the Version it names)."""
        layout = self.cls._layout_
        text = f"{self.name}: {exc}"
        if len(buf) - pos < layout.length(layout.versions[0]):
            return _bad(text)
        if layout.struc_id is not None \
                and bytes(buf[pos:pos + len(layout.struc_id)]) != layout.struc_id:
            return BadStructure(layout.reason, text)
        version = _MQLONG[byte_order].unpack_from(buf, pos + layout.offsets["Version"])[0]
        if not layout.versions[0] <= version <= layout.highest_version:
            return BadStructure(layout.reason, text)
        return _bad(text)

    def _remember(self, obj: MQStruct, buf: bytes, pos: int, size: int,
                  byte_order: ByteOrder) -> None:
        """Keep what these bytes decoded to, for the next time they come (a structure with
        nothing mutable in it: a copy of its fields is an independent structure)."""
        d = obj.__dict__
        if d.get("MsgId", _NO_MSGID) != _NO_MSGID:
            return  # a message's own MQMD (an arrival's, a message got): it will not recur
        fields = dict(d)
        if not self._flat and any(type(v) is list for v in fields.values()):
            return  # records: decoded afresh each time
        raw = bytes(buf[pos:pos + size])
        if len(raw) != size:
            return
        self._raw_sizes[(byte_order, raw[4:8])] = size
        if len(self._decoded) >= _DECODED_KEPT:
            self._decoded.clear()  # the ones that recur come back at once
        self._decoded[(byte_order, raw)] = fields


class _ListStruct(_Struct):
    """An MQOD or MQPMO that may carry distribution-list records behind it.

    As IBM's client flows carry them (and Wireshark dissects them): with Version >= 2 and
    RecsPresent > 0, the records follow the structure at the offsets its *RecOffset fields
    give, counted from the structure's start -- MQORs (ObjectRecOffset) or MQPMRs of the
    PutMsgRecFields fields (PutMsgRecOffset), then MQRRs (ResponseRecOffset). An offset of 0
    means those records are absent. In Python the records are the lists held in the
    pointer fields (ObjectRecPtr, PutMsgRecPtr, ResponseRecPtr).
    """

    def __init__(self, cls: type[MQStruct], records: str, record_offset: str) -> None:
        super().__init__(cls)
        self.records, self.record_offset = records, record_offset

    def _record_size(self, fields: int) -> int:
        return OR.length() if self.cls is OD else put_msg_record_length(fields)

    def pack(self, value: MQStruct | Packed, byte_order: ByteOrder) -> bytes:
        if type(value) is Packed:
            if value.byte_order == byte_order and value.cls is self.cls:
                return value.raw  # (packed records and all)
            value = value.unpacked()
        d = value.__dict__
        n = d["RecsPresent"] if d["Version"] >= 2 else 0
        enc = mq_encoding(byte_order)
        if n <= 0:
            return value.pack(enc)
        fields = d.get("PutMsgRecFields", 0)
        out = value.copy()
        pos = out.packed_size()
        tail = []
        records, responses = d[self.records], d["ResponseRecPtr"]
        if isinstance(records, list) and len(records) >= n and (self.cls is OD or fields):
            setattr(out, self.record_offset, pos)
            if self.cls is OD:
                tail.append(b"".join(r.pack(enc) for r in records[:n]))
            else:
                tail.append(pack_put_msg_records(records[:n], fields, enc))
            pos += n * self._record_size(fields)
        else:
            setattr(out, self.record_offset, 0)
        if isinstance(responses, list) and len(responses) >= n:
            out.ResponseRecOffset = pos
            tail.append(b"".join(r.pack(enc) for r in responses[:n]))
        else:
            out.ResponseRecOffset = 0
        return out.pack(enc) + b"".join(tail)

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[MQStruct, int]:
        obj, end = super().unpack(buf, pos, byte_order)
        d = obj.__dict__
        n = d["RecsPresent"] if d["Version"] >= 2 else 0
        if n == 0:
            return obj, end
        if n < 0:
            raise BadStructure(CMQC.MQRC_RECS_PRESENT_ERROR, f"{self.name}: RecsPresent {n}")
        enc = mq_encoding(byte_order)
        fields = d.get("PutMsgRecFields", 0)
        own = end - pos  # the structure's own length: records start at or after it
        try:
            at = d[self.record_offset]
            if at and (self.cls is OD or fields):
                size = n * self._record_size(fields)
                if at < own or pos + at + size > len(buf):
                    raise _bad(f"{self.name}: records at offset {at} outside the body")
                if self.cls is OD:
                    recs: list[Any] = [OR.from_bytes(buf, enc, offset=pos + at + i * OR.length())
                                       for i in range(n)]
                else:
                    recs = unpack_put_msg_records(buf, pos + at, n, fields, enc)
                d[self.records] = recs
                end = max(end, pos + at + size)
            at = d["ResponseRecOffset"]
            if at:
                size = n * RR.length()
                if at < own or pos + at + size > len(buf):
                    raise _bad(f"{self.name}: response records at offset {at} outside the body")
                d["ResponseRecPtr"] = [RR.from_bytes(buf, enc, offset=pos + at + i * RR.length())
                                       for i in range(n)]
                end = max(end, pos + at + size)
        except (StructError, struct.error) as exc:
            raise _bad(f"{self.name} records: {exc}") from None
        return obj, end


class _ConnBody(_Item):
    """MQCONN's 120-byte body (``segments.MQCONN_BODY``): queue-manager and application names."""

    name = "MQCONN"
    size = MQCONN_BODY.sizeof()

    def pack(self, value: tuple[str, str], byte_order: ByteOrder) -> bytes:
        qmgr, appl = value
        qmgr = text_field(qmgr, CMQC.MQ_Q_MGR_NAME_LENGTH, CMQC.MQRC_Q_MGR_NAME_ERROR)
        # a program's name (ApplName) goes as it fits: a character ISO 8859-1 lacks as "?"
        appl = appl.encode("latin-1", "replace").decode("latin-1")
        try:
            return MQCONN_BODY.build(
                dict(QMgrName=qmgr, ApplName=appl[:28], ApplType=CMQC.MQAT_UNIX,
                     AccountingToken=bytes(32), Options=0, XOptions=0),
                little=byte_order == ByteOrder.LITTLE)
        except cs.ConstructError as exc:
            raise ValueError(f"MQCONN: {exc}") from None

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[tuple[str, str], int]:
        if pos + self.size > len(buf):
            raise _bad(f"MQCONN body of {len(buf) - pos} bytes, {self.size} needed")
        try:
            parsed = MQCONN_BODY.parse(bytes(buf[pos : pos + self.size]),
                                       little=byte_order == ByteOrder.LITTLE)
        except (cs.ConstructError, UnicodeDecodeError) as exc:
            raise _bad(f"MQCONN: {exc}") from None
        return (parsed.QMgrName, parsed.ApplName), pos + self.size


@attrs.frozen
class ConnSecurity:
    """What a bindings MQCONN may carry beyond the 120-byte body (mqpy's own tail).

    ``credentials``: the application's MQCSP (user id and password), checked by CONNAUTH.
    ``user`` / ``channel`` / ``address``: the identity a channel initiator connects *for*
    (a client's SVRCONN conversation): accepted only from a privileged peer. ``adopted``:
    the channel initiator took ``user`` from the MQCSP (ADOPTCTX), so the queue manager must
    authenticate it whatever CHCKCLNT says.
    """

    credentials: Credentials | None = None
    user: str = ""
    channel: str = ""
    address: str = ""
    adopted: bool = False

    @property
    def asserts_identity(self) -> bool:
        """Does it connect on behalf of someone (privileged callers only)?"""
        return bool(self.user or self.channel)

    def connect_args(self, default_user: str | None) -> dict[str, Any]:
        """The engine's MQCONN keywords (``QueueManagerEngine.connect``): an MQCSP is passed
        as ``user`` + ``password`` with the connecting identity (the asserted user, else
        ``default_user``) as ``asserted``; the engine adopts the MQCSP user only once it is
        authenticated."""
        who = self.user or default_user
        channel = self.channel or None
        where = {"channel": channel, "conname": self.address or None}
        if self.credentials is not None:
            return {"user": self.credentials.user, "password": self.credentials.password,
                    "asserted": who, "adopted": self.adopted, **where}
        return {"user": who, "password": None, **where}


#: The bindings MQCONN's security tail: CSEC, then a CAUT when Flags has CSEC_HAS_CSP.
CSEC = cs.Struct(
    "StructId" / cs.Const(b"CSEC"),  # 0
    "Flags" / cs.Int32ul,  # 4
    "UserId" / cs.Bytes(64),  # 8    asserted user (channel initiator only)
    "ChannelName" / cs.Bytes(20),  # 72
    "ConnName" / cs.Bytes(264),  # 92
)  # 356
CSEC_HAS_CSP = 1
CSEC_ADOPTED = 2  # UserId was taken from the MQCSP (ConnSecurity.adopted)


class _ConnSecurityItem(_Item):
    name = "CSEC"

    def pack(self, value: ConnSecurity, byte_order: ByteOrder) -> bytes:
        def blank(text: str, size: int) -> bytes:
            return text.encode("utf-8")[:size].ljust(size, b" ")

        flags = (CSEC_HAS_CSP if value.credentials else 0) | \
            (CSEC_ADOPTED if value.adopted else 0)
        head = CSEC.build(dict(Flags=flags,
                               UserId=blank(value.user, 64),
                               ChannelName=blank(value.channel, 20),
                               ConnName=blank(value.address, 264)))
        if value.credentials is None:
            return head
        return head + build_caut(value.credentials, little=byte_order == ByteOrder.LITTLE)

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[ConnSecurity, int]:
        size = CSEC.sizeof()
        if pos + size > len(buf) or bytes(buf[pos:pos + 4]) != b"CSEC":
            raise _bad("MQCONN: trailing bytes are not a CSEC")
        head = CSEC.parse(bytes(buf[pos:pos + size]))
        pos += size
        creds = None
        if head.Flags & CSEC_HAS_CSP:
            creds, pos = parse_caut(bytes(buf), pos, little=byte_order == ByteOrder.LITTLE)

        def text(raw: bytes) -> str:
            return raw.rstrip(b" \x00").decode("utf-8", "replace")

        return ConnSecurity(creds, text(head.UserId), text(head.ChannelName),
                            text(head.ConnName), bool(head.Flags & CSEC_ADOPTED)), pos


class _Optional(_Item):
    """An item that may be absent at the end of a body (packed as nothing when None)."""

    def __init__(self, item: _Item) -> None:
        self.item = item
        self.name = item.name

    def pack(self, value: Any, byte_order: ByteOrder) -> bytes:
        return b"" if value is None else self.item.pack(value, byte_order)

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[Any, int]:
        if pos == len(buf):
            return None, pos
        return self.item.unpack(buf, pos, byte_order)


class _Value(_Item):
    """One attribute value: MQLONG kind (0 integer, 1 characters) then an MQLONG or bytes."""

    name = "value"

    def pack(self, value: int | bytes | str, byte_order: ByteOrder) -> bytes:
        o = _order(byte_order)
        if isinstance(value, str):
            value = encode_text(value)
        if isinstance(value, (bytes, bytearray)):
            return struct.pack(o + "ii", 1, len(value)) + bytes(value)
        return struct.pack(o + "ii", 0, int(value))

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[int | bytes, int]:
        kind, pos = _long_at(buf, pos, byte_order, "value kind")
        if kind == 0:
            return _long_at(buf, pos, byte_order, "integer value")
        if kind == 1:
            return _Bytes("character value").unpack(buf, pos, byte_order)
        raise _bad(f"value kind {kind} is neither 0 (integer) nor 1 (characters)")


class _List(_Item):
    """An MQLONG count then that many ``item``s."""

    def __init__(self, name: str, item: _Item) -> None:
        self.name = name
        self.item = item

    def pack(self, value: Sequence[Any], byte_order: ByteOrder) -> bytes:
        parts = [_MQLONG[byte_order].pack(len(value))]
        parts += [self.item.pack(v, byte_order) for v in value]
        return b"".join(parts)

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[list[Any], int]:
        count, pos = _long_at(buf, pos, byte_order, self.name)
        if count < 0 or count > len(buf) - pos:  # every item takes at least one byte
            raise _bad(f"{self.name}: count {count} with {len(buf) - pos} bytes left")
        out = []
        for _ in range(count):
            value, pos = self.item.unpack(buf, pos, byte_order)
            out.append(value)
        return out, pos


_MD, _GMO = _Struct(MD), _Struct(GMO)
_OD = _ListStruct(OD, "ObjectRecPtr", "ObjectRecOffset")
_PMO = _ListStruct(PMO, "PutMsgRecPtr", "PutMsgRecOffset")
_DATA = _Bytes("message data")

# ---------------------------------------------------------------------- fused verb bodies


class _Fused:
    """The common form of one verb body -- its structures (no distribution-list records),
    then MQLONGs, then perhaps message data -- packed and unpacked with one ``struct`` call.

    MQPUT, MQGET and MQPUT1 and their replies cross every connection once per message; the
    general path (:func:`_pack` / :func:`_unpack`) goes item by item, structure by
    structure. Here the body's layout for each combination of structure versions and byte
    order is one ``struct.Struct`` made of the structures' own (``Layout.struct``, with
    their ``mqstruct.pack_arguments``): the same definition, in one call. Whatever is not
    the common form -- another class or a ``Packed`` structure, records, a bad StrucId or
    Version, a length that does not add up, a value out of range -- is left to the general
    path (``None``), which gives the bytes, or the error, it always gave.
    """

    def __init__(self, shape: tuple[_Item, ...]) -> None:
        n = 0
        while n < len(shape) and isinstance(shape[n], _Struct):
            n += 1
        rest = shape[n:]
        self.data = bool(rest) and isinstance(rest[-1], _Bytes)
        self.longs = len(rest) - self.data
        if not all(type(item) is _Long for item in rest[:self.longs]):
            raise ValueError("a fused body is structures, MQLONGs, then perhaps data")
        self.classes: tuple[type[MQStruct], ...] = tuple(item.cls for item in shape[:n])
        if any(f.kind in ("nested", "longs") for cls in self.classes
               for f in cls._layout_.fields):
            # the fused packer and reader know flat fields only (MQMD, MQGMO, MQPMO, MQOD)
            raise ValueError("a fused body's structures have no nested or array fields")
        #: the structures that may carry records: RecsPresent must be 0 (Version >= 2)
        self.listed = tuple(isinstance(item, _ListStruct) for item in shape[:n])
        self.width = len(shape)
        # per byte order: for each structure, {Version number: bytes it occupies}
        self.sizes = {order: tuple({number: plan.need
                                    for number, plan in cls._fast_[_order(order)][3].items()}
                                   for cls in self.classes)
                      for order in ByteOrder}
        self._entries: dict[ByteOrder, Any] = {}
        self._versions: dict[ByteOrder, Any] = {}
        self._readers: dict[tuple[Any, ...], Any] = {}

    def _plans(self, key: tuple[Any, ...]) -> list[Any]:
        order = _order(key[0])
        return [cls._fast_[order][3][number]
                for cls, number in zip(self.classes, key[1:], strict=True)]

    def _struct(self, key: tuple[Any, ...]) -> struct.Struct:
        fmt = "".join(plan.struct.format[1:] for plan in self._plans(key))
        return struct.Struct(_order(key[0]) + fmt + "i" * (self.longs + self.data))

    # -- packing -------------------------------------------------------------------------
    def pack(self, values: Sequence[Any], byte_order: ByteOrder) -> bytes | None:
        """The body's bytes, or None for the general path."""
        entry = self._entries.get(byte_order)
        if entry is None:
            entry = self._entries[byte_order] = self._compile_entry(byte_order)
        try:
            return entry(values)  # type: ignore[no-any-return]
        except (struct.error, TypeError, KeyError, AttributeError, IndexError):
            return None  # the general path says what is wrong, as it always did

    def _compile_entry(self, byte_order: ByteOrder) -> Any:
        """``pack(values)`` for one byte order: the checks that the values are of the
        common form, their Versions, then the packer of those Versions."""
        n = len(self.classes)
        src = ["def pack(values):", f"    if len(values) != {self.width}: return None"]
        for i in range(n):
            src += [f"    s{i} = values[{i}]",
                    f"    if type(s{i}) is not C{i}: return None",
                    f"    d{i} = s{i}.__dict__",
                    f"    v{i} = d{i}['Version']",
                    f"    if type(v{i}) is not int: return None"]
            if self.listed[i]:  # records: the general path
                src.append(f"    if v{i} >= 2 and d{i}['RecsPresent'] > 0: return None")
        versions = ", ".join(f"v{i}" for i in range(n))
        dicts = ", ".join(f"d{i}" for i in range(n))
        src += [f"    packer = PACKERS.get(({versions},))",
                "    if packer is None:",
                f"        packer = MAKE(({versions},))",
                "        if packer is None: return None",
                f"    return packer({dicts}, values)"]
        packers: dict[tuple[int, ...], Any] = {}

        def make(numbers: tuple[int, ...]) -> Any:
            if any(v not in sizes for v, sizes in zip(numbers, self.sizes[byte_order],
                                                      strict=True)):
                return None  # a Version mqpy does not know: the general path's error
            packer = packers[numbers] = self._compile_pack((byte_order, *numbers))
            return packer

        namespace: dict[str, Any] = {f"C{i}": cls for i, cls in enumerate(self.classes)}
        namespace.update(PACKERS=packers, MAKE=make)
        exec(compile("\n".join(src) + "\n", "<mqpy fused pack entry>", "exec"),  # noqa: S102
             namespace)
        return namespace["pack"]

    def _compile_pack(self, key: tuple[Any, ...]) -> Any:
        """``pack(d0, d1 .., values)`` for one key: one struct call (and the data)."""
        args = []
        for i, (cls, number) in enumerate(zip(self.classes, key[1:], strict=True)):
            layout = cls._layout_
            args += pack_arguments(layout, layout.effective_version(number), f"d{i}")
        n = len(self.classes)
        args += [f"values[{n + i}]" for i in range(self.longs)]
        dicts = ", ".join(f"d{i}" for i in range(n))
        src = f"def pack({dicts}, values):\n"
        if self.data:
            args.append("len(data)")
            src += (f"    data = values[{n + self.longs}]\n"
                    "    if type(data) is not bytes:\n        return None\n"
                    f"    return S.pack({', '.join(args)}) + data\n")
        else:
            src += f"    return S.pack({', '.join(args)})\n"
        namespace: dict[str, Any] = {"S": self._struct(key)}
        exec(compile(src, f"<mqpy fused pack {key}>", "exec"), namespace)  # noqa: S102
        return namespace["pack"]

    # -- unpacking -----------------------------------------------------------------------
    def unpack(self, body: bytes, byte_order: ByteOrder,
               into: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        """The body's values, or None for the general path. ``into``: the caller's
        structures, filled in place (and returned) instead of new ones, for those of the
        body's class -- only once the whole body has been read and checked."""
        if type(body) is not bytes:
            return None
        versions = self._versions.get(byte_order)
        if versions is None:
            versions = self._versions[byte_order] = self._compile_versions(byte_order)
        try:
            key = versions(body)
        except (struct.error, KeyError):
            return None  # too short for the Versions, or one mqpy does not know
        reader = self._readers.get(key)
        if reader is None:
            reader = self._readers[key] = self._compile_unpack(key)
        return reader(body, into)

    def _compile_versions(self, byte_order: ByteOrder) -> Any:
        """``versions(body)``: the key (byte order, each structure's Version) of a body,
        each Version read where the structures before it end."""
        src = ["def versions(body):"]
        numbers = []
        for i in range(len(self.classes)):
            at = "4" if i == 0 else "p + 4"
            src.append(f"    v{i} = read(body, {at})[0]")
            src.append(f"    p {'=' if i == 0 else '+='} SIZES[{i}][v{i}]")
            numbers.append(f"v{i}")
        src.append(f"    return (ORDER, {', '.join(numbers)})")
        namespace = {"read": _MQLONG[byte_order].unpack_from, "SIZES": self.sizes[byte_order],
                     "ORDER": byte_order}
        exec(compile("\n".join(src) + "\n", "<mqpy fused versions>", "exec"),  # noqa: S102
             namespace)
        return namespace["versions"]

    def _compile_unpack(self, key: tuple[Any, ...]) -> Any:
        """``unpack(body, into)`` for one key: checks, one struct call, then the objects.

        Each structure's bytes that recur (a fresh MQMD, a channel's every MQGMO) are kept
        with what they decoded to, and copied in one update the next time, as ``_Struct``
        does; a message's own MQMD (a MsgId set) will not recur and is not kept."""
        s = self._struct(key)
        fixed = s.size
        ns: dict[str, Any] = {"S": s.unpack_from, "new": object.__new__, "Z": _NO_MSGID,
                              "KEPT": _DECODED_KEPT}
        src = ["def unpack(body, into):", "    size = len(body)"]
        if self.data:
            src.append(f"    if size < {fixed}: return None")
        else:
            src.append(f"    if size != {fixed}: return None")
        at = start = 0
        parts = []
        for i, (cls, plan) in enumerate(zip(self.classes, self._plans(key), strict=True)):
            struc_id = cls._layout_.struc_id
            src.append(f"    if body[{at}:{at + len(struc_id)}] != {struc_id!r}: return None")
            end = start + len(plan.names)
            parts.append((i, cls, at, at + plan.need, start, end, plan))
            at += plan.need
            start = end
        src.append("    values = S(body)")
        if self.data:
            src.append("    length = values[-1]")
            src.append(f"    if length < 0 or {fixed} + length != size: return None")
        for i, _cls, _at, _until, begin, _end, plan in parts:
            if self.listed[i] and "RecsPresent" in plan.names:  # records: the general path
                src.append(f"    if values[{begin + plan.names.index('RecsPresent')}]: "
                           "return None")
        src.append("    n = len(into)")
        out = []
        for i, cls, begin_at, until, begin, end, plan in parts:
            count = len(plan.names) + len(plan.absent)
            ns[f"C{i}"], ns[f"N{i}"], ns[f"A{i}"], ns[f"K{i}"] = \
                cls, plan.names, plan.absent, {}
            src += [
                f"    o = into[{i}] if n > {i} else None",
                f"    if type(o) is not C{i} or len(d := o.__dict__) != {count}:",
                f"        o = new(C{i})",
                "        d = o.__dict__",
                f"    raw = body[{begin_at}:{until}]",
                f"    f = K{i}.get(raw)",
                "    if f is not None:",
                "        d.update(f)",
                "    else:",
            ]
            if plan.absent:
                src.append(f"        d.update(A{i})")
            src += [
                f"        d.update(zip(N{i}, values[{begin}:{end}]))",
                "        if d.get('MsgId', Z) == Z:",
                f"            if len(K{i}) >= KEPT: K{i}.clear()",
                f"            K{i}[raw] = dict(d)",
                f"    o{i} = o",
            ]
            out.append(f"o{i}")
        last = len(self.classes) and parts[-1][5]
        out += [f"values[{last + k}]" for k in range(self.longs)]
        if self.data:
            out.append(f"body[{fixed}:]")
        src.append(f"    return ({', '.join(out)},)")
        exec(compile("\n".join(src) + "\n", f"<mqpy fused unpack {key}>", "exec"),  # noqa: S102
             ns)
        return ns["unpack"]


#: Request bodies, by verb. MQGET's maximum length is -1 for "the whole message".
REQUESTS: dict[SegmentType, tuple[_Item, ...]] = {
    SegmentType.MQCONN: (_ConnBody(), _Optional(_ConnSecurityItem())),
    SegmentType.MQDISC: (),
    SegmentType.MQOPEN: (_OD, _Long("Options")),
    SegmentType.MQCLOSE: (_Long("Options"),),
    SegmentType.MQGET: (_MD, _GMO, _Long("BufferLength")),
    SegmentType.MQPUT: (_MD, _PMO, _DATA),
    SegmentType.MQPUT1: (_OD, _MD, _PMO, _DATA),
    SegmentType.MQSET: (_Long("Selector"), _Value()),
    SegmentType.MQINQ: (_List("Selectors", _Long("Selector")),),
    SegmentType.MQCMIT: (),
    SegmentType.MQBACK: (),
    SegmentType.SPI: (_Long("SpiVerb"), _Bytes("LUWID"), _Long("Commit")),
}

#: Reply bodies, by request verb (the reply's segment type is the request's + 0x10).
REPLIES: dict[SegmentType, tuple[_Item, ...]] = {
    SegmentType.MQCONN: (_ConnBody(),),
    SegmentType.MQDISC: (),
    SegmentType.MQOPEN: (_OD,),
    SegmentType.MQCLOSE: (),
    SegmentType.MQGET: (_MD, _GMO, _Long("DataLength"), _DATA),
    SegmentType.MQPUT: (_MD, _PMO),
    SegmentType.MQPUT1: (_OD, _MD, _PMO),
    SegmentType.MQSET: (),
    SegmentType.MQINQ: (_List("Values", _Value()),),
    SegmentType.MQCMIT: (),
    SegmentType.MQBACK: (),
    SegmentType.SPI: (_List("LUWIDs", _Bytes("LUWID")),),
}


#: The verbs whose bodies have a fused form (:class:`_Fused`): a message's every call.
_FUSED_VERBS = (SegmentType.MQPUT, SegmentType.MQGET, SegmentType.MQPUT1, SegmentType.MQOPEN)
_FUSED_REQUESTS = {verb: _Fused(REQUESTS[verb]) for verb in _FUSED_VERBS}
_FUSED_REPLIES = {verb: _Fused(REPLIES[verb]) for verb in _FUSED_VERBS}


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


def _pack(shape: tuple[_Item, ...], values: Sequence[Any], byte_order: ByteOrder) -> bytes:
    if len(values) != len(shape):
        values = list(values)
        while len(values) < len(shape) and isinstance(shape[len(values)], _Optional):
            values.append(None)
        if len(values) != len(shape):
            raise ValueError(f"{len(shape)} values expected, {len(values)} given")
    return b"".join([item.pack(v, byte_order) for item, v in zip(shape, values, strict=True)])


def _unpack(shape: tuple[_Item, ...], body: bytes, byte_order: ByteOrder,
            what: str) -> tuple[Any, ...]:
    pos = 0
    out = []
    for item in shape:
        value, pos = item.unpack(body, pos, byte_order)
        out.append(value)
    if pos != len(body):
        raise _bad(f"{what}: {len(body) - pos} bytes after the body")
    return tuple(out)


def _verb(segment_type: int, table: dict[SegmentType, tuple[_Item, ...]],
          offset: int = 0) -> SegmentType:
    verb = SEGMENT_TYPES.get(segment_type - offset)
    if verb not in table:
        raise ProtocolError(StatusCode.PROTOCOL_SEGMENT_TYPE,
                            f"segment type 0x{segment_type:02X} is not a bindings MQI verb")
    return verb


@attrs.frozen
class Decoded:
    """A decoded request or reply: its verb, API-header codes and body values."""

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
                     body, None)


def decode_request(event: MQIRequest, byte_order: ByteOrder = ByteOrder.LITTLE) -> Decoded:
    """Check and decode a request event's body; ProtocolError if it is malformed."""
    verb = event.segment_type
    if type(verb) is not SegmentType or verb not in REQUESTS:
        verb = _verb(int(verb), REQUESTS)
    fused = _FUSED_REQUESTS.get(verb)
    values = None if fused is None else fused.unpack(event.body, byte_order)
    if values is None:
        values = _unpack(REQUESTS[verb], event.body, byte_order, verb.name)
    return Decoded(verb, event.comp, event.reason, event.hobj, values)


def common_request(verb: SegmentType, body: bytes,
                   byte_order: ByteOrder = ByteOrder.LITTLE) -> tuple[Any, ...] | None:
    """The values of an MQPUT, MQGET, MQPUT1 or MQOPEN body of the common form (no
    distribution-list records, structures mqpy knows, lengths that add up), read in one
    go; None for anything else, which :func:`decode_request` takes, with its errors."""
    return _FUSED_REQUESTS[verb].unpack(body, byte_order)


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
                     reason, hobj, body, None)


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


def failure_reply(verb: SegmentType, request: Decoded, comp: int, reason: int) -> MQIReply:
    """The reply to ``request`` that failed with ``comp`` / ``reason``: an empty body, except
    that MQRC_MULTIPLE_REASONS sends back the request's structures (MQOD / MQMD / MQPMO as
    the queue manager left them, response records included)."""
    if reason == CMQC.MQRC_MULTIPLE_REASONS and verb in _RECORDS_ON_FAILURE \
            and request.values is not None:
        return encode_reply(verb, request.values[:len(REPLIES[verb])], comp=comp,
                            reason=reason, hobj=request.hobj)
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
        if values is None:
            values = _unpack(shape, body, byte_order, f"{verb.name} reply")
    return Decoded(verb, event.comp, event.reason, event.hobj, values)


def truncation_reply(md: Any, gmo: Any, error: Any) -> MQIReply | None:
    """The MQGET reply for an MQMIError that is a truncation warning -- 2079 with the part of
    the message got, 2080 with none, both with the message's full length -- or None for any
    other failure (sent as an empty reply)."""
    if error.reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
        data = error.message
    elif error.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED:
        data = b""
    else:
        return None
    return encode_reply(SegmentType.MQGET, [md, gmo, error.original_length, data],
                        comp=error.comp, reason=error.reason)


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
