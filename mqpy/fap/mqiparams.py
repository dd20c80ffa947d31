"""The parameters of an MQI flow's body, each packed and unpacked in the segment's byte order.

Owns one class per kind of parameter (an MQLONG, a length and bytes, an MQ structure in
IBM's layout with its distribution-list records, MQCONN's body and mqpy's CSEC security
tail, a list, an attribute value), the ``Packed`` form of a structure packed once, and
``BadStructure``, a call's malformed structure. ``mqpy.fap.mqiflows`` declares each verb's
body as a tuple of them.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import attrs
import construct as cs

from mqpy import CMQC
from mqpy.fap import charvs
from mqpy.fap.statuscodes import ProtocolError, StatusCode
from mqpy.fap.tsh import S32, U32, ByteOrder, PaddedName, mq_encoding
from mqpy.fap.userid import Credentials, build_caut, parse_caut
from mqpy.structs.fields import StructError, encode_text, text_field
from mqpy.structs.mqstruct import MQStruct
from mqpy.structs.tables import (
    OD,
    OR,
    RR,
    pack_put_msg_records,
    put_msg_record_length,
    unpack_put_msg_records,
)

__all__ = [
    "ACCOUNTING_OPTIONS",
    "CSEC",
    "DECODED_KEPT",
    "MQCONN_BODY",
    "MQLONG",
    "NO_MSGID",
    "BadStructure",
    "Bytes",
    "ConnBody",
    "ConnNames",
    "ConnSecurity",
    "ConnSecurityItem",
    "Item",
    "ListOf",
    "ListStructure",
    "Long",
    "Optional",
    "Packed",
    "Structure",
    "Value",
    "invalid_data",
    "long_at",
    "struct_order",
]


def invalid_data(text: str) -> ProtocolError:
    return ProtocolError(StatusCode.PROTOCOL_INVALID_DATA, text)


class BadStructure(ProtocolError):
    """A structure of a call that is whole is malformed: the call fails with ``reason`` (the
    structure's MQRC_*_ERROR) and the connection goes on (:func:`refusal_reply`)."""

    def __init__(self, reason: int, text: str) -> None:
        super().__init__(StatusCode.PROTOCOL_INVALID_DATA, text)
        self.reason = reason


def struct_order(byte_order: ByteOrder) -> str:
    return "<" if byte_order == ByteOrder.LITTLE else ">"


class Item:
    """One field of a verb body: ``pack(value, order) -> bytes``, ``unpack -> (value, pos)``."""

    name = "item"

    def pack(self, value: Any, byte_order: ByteOrder) -> bytes:
        raise NotImplementedError

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[Any, int]:
        raise NotImplementedError


MQLONG = {ByteOrder.LITTLE: struct.Struct("<i"), ByteOrder.BIG: struct.Struct(">i")}


def long_at(buf: bytes, pos: int, byte_order: ByteOrder, what: str) -> tuple[int, int]:
    if pos + 4 > len(buf):
        raise invalid_data(f"{what}: body ends at {len(buf)}, an MQLONG needs {pos + 4}")
    return MQLONG[byte_order].unpack_from(buf, pos)[0], pos + 4


class Long(Item):
    """An MQLONG: options, a length, a selector, a flag."""

    def __init__(self, name: str) -> None:
        self.name = name

    def pack(self, value: int, byte_order: ByteOrder) -> bytes:
        try:
            return MQLONG[byte_order].pack(value)
        except struct.error as exc:
            raise ValueError(f"{self.name}: {exc}") from None

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[int, int]:
        return long_at(buf, pos, byte_order, self.name)


class Bytes(Item):
    """An MQLONG length then that many bytes (message data, a LUWID)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def pack(self, value: bytes, byte_order: ByteOrder) -> bytes:
        value = bytes(value)
        return MQLONG[byte_order].pack(len(value)) + value

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[bytes, int]:
        length, pos = long_at(buf, pos, byte_order, self.name)
        if length < 0 or pos + length > len(buf):
            raise invalid_data(f"{self.name}: length {length} with {len(buf) - pos} bytes left")
        return bytes(buf[pos : pos + length]), pos + length


#: Structures' bytes whose decoding each ``Structure`` keeps (cleared when full).
DECODED_KEPT = 64
NO_MSGID = bytes(24)


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


class Structure(Item):
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
            return invalid_data(text)
        if layout.struc_id is not None \
                and bytes(buf[pos:pos + len(layout.struc_id)]) != layout.struc_id:
            return BadStructure(layout.reason, text)
        version = MQLONG[byte_order].unpack_from(buf, pos + layout.offsets["Version"])[0]
        if not layout.versions[0] <= version <= layout.highest_version:
            return BadStructure(layout.reason, text)
        return invalid_data(text)

    def _remember(self, obj: MQStruct, buf: bytes, pos: int, size: int,
                  byte_order: ByteOrder) -> None:
        """Keep what these bytes decoded to, for the next time they come (a structure with
        nothing mutable in it: a copy of its fields is an independent structure)."""
        d = obj.__dict__
        if d.get("MsgId", NO_MSGID) != NO_MSGID:
            return  # a message's own MQMD (an arrival's, a message got): it will not recur
        fields = dict(d)
        if not self._flat and any(type(v) is list for v in fields.values()):
            return  # records: decoded afresh each time
        raw = bytes(buf[pos:pos + size])
        if len(raw) != size:
            return
        self._raw_sizes[(byte_order, raw[4:8])] = size
        if len(self._decoded) >= DECODED_KEPT:
            self._decoded.clear()  # the ones that recur come back at once
        self._decoded[(byte_order, raw)] = fields


class ListStructure(Structure):
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
        if self.cls is OD and d["Version"] >= 3:  # 4-byte pointers and MQCHARV strings
            return charvs.to_flow(self._pack_records(value, n, enc), MQLONG[byte_order])
        if n <= 0:
            return value.pack(enc)
        return self._pack_records(value, n, enc)

    def _pack_records(self, value: MQStruct, n: int, enc: int) -> bytes:
        d = value.__dict__
        if n <= 0:
            out = value.copy()
            tail = charvs.place(value, out, out.packed_size())  # (sets out's VSOffsets)
            return out.pack(enc) + tail
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
        if self.cls is OD:
            tail.append(charvs.place(value, out, out.packed_size() + sum(map(len, tail))))
        return out.pack(enc) + b"".join(tail)  # (out's offsets set above)

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[MQStruct, int]:
        if self.cls is OD:  # an MQOD of version 3 or 4: the flow's 4-byte pointers
            native, delta = charvs.from_flow(buf, pos, MQLONG[byte_order])
            if delta:
                obj, end = self._unpack_records(native, pos, byte_order)
                return obj, end - delta
        return self._unpack_records(buf, pos, byte_order)

    def _unpack_records(self, buf: bytes, pos: int, byte_order: ByteOrder
                        ) -> tuple[MQStruct, int]:
        obj, end = super().unpack(buf, pos, byte_order)
        d = obj.__dict__
        n = d["RecsPresent"] if d["Version"] >= 2 else 0
        if d["Version"] >= 4:  # MQCHARV strings after the MQOD
            try:
                end = charvs.read(obj, buf, pos, end - pos, end)
            except ValueError as e:
                raise invalid_data(str(e)) from None
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
                    raise invalid_data(f"{self.name}: records at offset {at} outside the body")
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
                    raise invalid_data(f"{self.name}: response records at offset {at} outside the body")
                d["ResponseRecPtr"] = [RR.from_bytes(buf, enc, offset=pos + at + i * RR.length())
                                       for i in range(n)]
                end = max(end, pos + at + size)
        except (StructError, struct.error) as exc:
            raise invalid_data(f"{self.name} records: {exc}") from None
        return obj, end


#: MQCONN / MQCONN_REPLY body at FAP <= 6 (120 bytes, no struct id). Longer forms (260 at
#: FAP 7-11, 332 at 12-13, 460 at 14) append an FCNO structure that mqpy does not model yet.
MQCONN_BODY = cs.Struct(
    "QMgrName" / PaddedName(48),  # 0
    "ApplName" / PaddedName(28),  # 48
    "ApplType" / S32,  # 76
    "AccountingToken" / cs.Bytes(32),  # 80
    "Options" / U32,  # 112
    "XOptions" / U32,  # 116
)  # 120


#: An MQCNO's accounting options: the only ones the queue manager acts on at MQCONN (the
#: others are the application side's: reconnection, handle sharing, the client binding)
ACCOUNTING_OPTIONS = (CMQC.MQCNO_ACCOUNTING_MQI_ENABLED | CMQC.MQCNO_ACCOUNTING_MQI_DISABLED
                      | CMQC.MQCNO_ACCOUNTING_Q_ENABLED | CMQC.MQCNO_ACCOUNTING_Q_DISABLED)


class ConnNames(tuple):
    """An MQCONN body's names, ``(qmgr, appl)`` (they unpack as a pair), with its Options:
    the application's MQCNO Options, as IBM's client sends them in its MQCONN flow."""

    options: int

    def __new__(cls, qmgr: str, appl: str, options: int = 0) -> ConnNames:
        names = super().__new__(cls, (qmgr, appl))
        names.options = options
        return names


class ConnBody(Item):
    """MQCONN's 120-byte body (``MQCONN_BODY``): queue-manager and application names, and
    the MQCNO Options (a value ``(qmgr, appl)`` or ``(qmgr, appl, options)``; unpacked as
    :class:`ConnNames`)."""

    name = "MQCONN"
    size = MQCONN_BODY.sizeof()

    def pack(self, value: Sequence[Any], byte_order: ByteOrder) -> bytes:
        qmgr, appl = value[0], value[1]
        options = value[2] if len(value) > 2 else getattr(value, "options", 0)
        qmgr = text_field(qmgr, CMQC.MQ_Q_MGR_NAME_LENGTH, CMQC.MQRC_Q_MGR_NAME_ERROR)
        # a program's name (ApplName) goes as it fits: a character ISO 8859-1 lacks as "?"
        appl = appl.encode("latin-1", "replace").decode("latin-1")
        try:
            return MQCONN_BODY.build(
                dict(QMgrName=qmgr, ApplName=appl[:28], ApplType=CMQC.MQAT_UNIX,
                     AccountingToken=bytes(32), Options=int(options) & 0xFFFFFFFF,
                     XOptions=0),
                little=byte_order == ByteOrder.LITTLE)
        except cs.ConstructError as exc:
            raise ValueError(f"MQCONN: {exc}") from None

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[ConnNames, int]:
        if pos + self.size > len(buf):
            raise invalid_data(f"MQCONN body of {len(buf) - pos} bytes, {self.size} needed")
        try:
            parsed = MQCONN_BODY.parse(bytes(buf[pos : pos + self.size]),
                                       little=byte_order == ByteOrder.LITTLE)
        except (cs.ConstructError, UnicodeDecodeError) as exc:
            raise invalid_data(f"MQCONN: {exc}") from None
        return ConnNames(parsed.QMgrName, parsed.ApplName, parsed.Options), pos + self.size


@attrs.frozen
class ConnSecurity:
    """What a bindings MQCONN may carry beyond the 120-byte body (mqpy's own tail).

    ``credentials``: the application's MQCSP (user id and password), checked by CONNAUTH.
    ``user`` / ``channel`` / ``address``: the identity a channel initiator connects *for*
    (a client's SVRCONN conversation): accepted only from a privileged peer. ``adopted``:
    the channel initiator took ``user`` from the MQCSP (ADOPTCTX), so the queue manager must
    authenticate it whatever CHCKCLNT says. ``options``: the client's MQCNO accounting options.
    """

    credentials: Credentials | None = None
    user: str = ""
    channel: str = ""
    address: str = ""
    adopted: bool = False
    #: the MQCNO accounting options of the client a channel initiator connects for (its
    #: MQCONN body is the channel initiator's own); carried as their bits in CSEC's Flags
    options: int = 0

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
# and the client's MQCNO_ACCOUNTING_* bits (ConnSecurity.options), which miss the two above


class ConnSecurityItem(Item):
    name = "CSEC"

    def pack(self, value: ConnSecurity, byte_order: ByteOrder) -> bytes:
        def blank(text: str, size: int) -> bytes:
            return text.encode("utf-8")[:size].ljust(size, b" ")

        flags = (CSEC_HAS_CSP if value.credentials else 0) | \
            (CSEC_ADOPTED if value.adopted else 0) | (value.options & ACCOUNTING_OPTIONS)
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
            raise invalid_data("MQCONN: trailing bytes are not a CSEC")
        head = CSEC.parse(bytes(buf[pos:pos + size]))
        pos += size
        creds = None
        if head.Flags & CSEC_HAS_CSP:
            creds, pos = parse_caut(bytes(buf), pos, little=byte_order == ByteOrder.LITTLE)

        def text(raw: bytes) -> str:
            return raw.rstrip(b" \x00").decode("utf-8", "replace")

        return ConnSecurity(creds, text(head.UserId), text(head.ChannelName),
                            text(head.ConnName), bool(head.Flags & CSEC_ADOPTED),
                            head.Flags & ACCOUNTING_OPTIONS), pos


class Optional(Item):
    """An item that may be absent at the end of a body (packed as nothing when None)."""

    def __init__(self, item: Item) -> None:
        self.item = item
        self.name = item.name

    def pack(self, value: Any, byte_order: ByteOrder) -> bytes:
        return b"" if value is None else self.item.pack(value, byte_order)

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[Any, int]:
        if pos == len(buf):
            return None, pos
        return self.item.unpack(buf, pos, byte_order)


class Value(Item):
    """One attribute value: MQLONG kind (0 integer, 1 characters) then an MQLONG or bytes."""

    name = "value"

    def pack(self, value: int | bytes | str, byte_order: ByteOrder) -> bytes:
        o = struct_order(byte_order)
        if isinstance(value, str):
            value = encode_text(value)
        if isinstance(value, (bytes, bytearray)):
            return struct.pack(o + "ii", 1, len(value)) + bytes(value)
        return struct.pack(o + "ii", 0, int(value))

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[int | bytes, int]:
        kind, pos = long_at(buf, pos, byte_order, "value kind")
        if kind == 0:
            return long_at(buf, pos, byte_order, "integer value")
        if kind == 1:
            return Bytes("character value").unpack(buf, pos, byte_order)
        raise invalid_data(f"value kind {kind} is neither 0 (integer) nor 1 (characters)")


class ListOf(Item):
    """An MQLONG count then that many ``item``s. With ``most``, a count above it (and within
    the data) is that call's failure ``reason`` (:class:`BadStructure`), found before any
    item is read: MQINQ's and MQSET's at most 256 selectors (IBM's MQRC_SELECTOR_COUNT_ERROR;
    a million of them held every other call of the queue manager's event loop for seconds)."""

    def __init__(self, name: str, item: Item, most: int | None = None,
                 reason: int = 0) -> None:
        self.name = name
        self.item = item
        self.most, self.reason = most, reason

    def pack(self, value: Sequence[Any], byte_order: ByteOrder) -> bytes:
        parts = [MQLONG[byte_order].pack(len(value))]
        parts += [self.item.pack(v, byte_order) for v in value]
        return b"".join(parts)

    def unpack(self, buf: bytes, pos: int, byte_order: ByteOrder) -> tuple[list[Any], int]:
        count, pos = long_at(buf, pos, byte_order, self.name)
        if count < 0 or count > len(buf) - pos:  # every item takes at least one byte
            raise invalid_data(f"{self.name}: count {count} with {len(buf) - pos} bytes left")
        if self.most is not None and count > self.most:
            raise BadStructure(self.reason, f"{self.name}: {count} of them, {self.most} at most")
        out = []
        for _ in range(count):
            value, pos = self.item.unpack(buf, pos, byte_order)
            out.append(value)
        return out, pos


