"""Log record types and the stored form of a message, shared by the log and the pagesets.

A persistent message is one byte string, the *message record*: a small fixed header (put time,
backout count, descriptor length), the packed MQMD v2, then the data. The PUT log record carries
it and the pageset stores exactly the same bytes, so redo is a copy, never a re-encoding.

A GET log record carries only the message's key: "no need to log data at get time" (seed 004).
"""

from __future__ import annotations

import enum
import json

import attrs
import construct as c

from mqpy.engine.layout import fast


class RecordType(enum.IntEnum):
    PUT = 1  # (uow, qid, seq, message record) in a unit of work
    GET = 2  # (uow, qid, seq)
    COMMIT = 3  # (uow)
    BACKOUT = 4  # (uow)
    PREPARE = 5  # (uow, luwid): in doubt until COMMIT or BACKOUT
    OBJECT = 6  # JSON: define/alter/delete of an object definition
    CHECKPOINT = 7  # (redo LSN, next seq, next uow)
    PUT1 = 8  # a persistent put outside syncpoint: its own unit of work, one record
    GET1 = 9  # a persistent get outside syncpoint (also expiry removal)


# ---------------------------------------------------------------- record payloads

UowKey = c.Struct("uow" / c.Int64ul, "qid" / c.Int32ul, "seq" / c.Int64ul)  # PUT/GET prefix
_UOWKEY = fast(UowKey)
MsgKey = c.Struct("qid" / c.Int32ul, "seq" / c.Int64ul)  # PUT1/GET1 prefix, pageset key
_MSGKEY = fast(MsgKey, ">")  # big-endian so LMDB's byte order is (queue, arrival) order
_MSGKEY_LE = fast(MsgKey)
UowOnly = c.Struct("uow" / c.Int64ul)
_UOW = fast(UowOnly)
Checkpoint = c.Struct("redo_lsn" / c.Int64ul, "next_seq" / c.Int64ul, "next_uow" / c.Int64ul)
_CKPT = fast(Checkpoint)


def put_payload(uow: int, qid: int, seq: int, record: bytes) -> bytes:
    return _UOWKEY.pack(uow, qid, seq) + record


#: (uow, qid, seq) packed: a PUT record's key (the log copies it and the message record
#: into its buffer one after the other, see RecoveryLog.append) and a GET record
uow_key = _UOWKEY.pack


def get_payload(uow: int, qid: int, seq: int) -> bytes:
    return _UOWKEY.pack(uow, qid, seq)


def put1_payload(qid: int, seq: int, record: bytes) -> bytes:
    return _MSGKEY_LE.pack(qid, seq) + record


def get1_payload(qid: int, seq: int) -> bytes:
    return _MSGKEY_LE.pack(qid, seq)


def uow_payload(uow: int, extra: bytes = b"") -> bytes:
    return _UOW.pack(uow) + extra


def checkpoint_payload(redo_lsn: int, next_seq: int, next_uow: int) -> bytes:
    return _CKPT.pack(redo_lsn, next_seq, next_uow)


def object_payload(op: str, objtype: str, name: str, attributes: dict | None) -> bytes:
    return json.dumps({"op": op, "type": objtype, "name": name, "attrs": attributes},
                      sort_keys=True).encode()


@attrs.frozen
class Decoded:
    """A log record's payload, decoded; fields not used by a type are None."""

    rtype: RecordType
    uow: int | None = None
    qid: int | None = None
    seq: int | None = None
    record: bytes | None = None
    extra: bytes | None = None
    obj: dict | None = None
    checkpoint: tuple[int, int, int] | None = None


def decode(rtype: int, payload: bytes) -> Decoded:
    rt = RecordType(rtype)
    if rt in (RecordType.PUT, RecordType.GET):
        uow, qid, seq = _UOWKEY.unpack_from(payload)
        rec = payload[_UOWKEY.size:] if rt is RecordType.PUT else None
        return Decoded(rt, uow=uow, qid=qid, seq=seq, record=rec)
    if rt in (RecordType.PUT1, RecordType.GET1):
        qid, seq = _MSGKEY_LE.unpack_from(payload)
        rec = payload[_MSGKEY_LE.size:] if rt is RecordType.PUT1 else None
        return Decoded(rt, qid=qid, seq=seq, record=rec)
    if rt in (RecordType.COMMIT, RecordType.BACKOUT, RecordType.PREPARE):
        (uow,) = _UOW.unpack_from(payload)
        return Decoded(rt, uow=uow, extra=payload[_UOW.size:])
    if rt is RecordType.OBJECT:
        return Decoded(rt, obj=json.loads(payload))
    if rt is RecordType.CHECKPOINT:
        return Decoded(rt, checkpoint=_CKPT.unpack_from(payload))
    raise ValueError(f"unknown log record type {rtype}")  # pragma: no cover


def msg_key(qid: int, seq: int) -> bytes:
    """The pageset key of a message: queue id then arrival sequence, big-endian."""
    return _MSGKEY.pack(qid, seq)


#: (queue id, arrival sequence) of a pageset key
split_msg_key = _MSGKEY.unpack


# ---------------------------------------------------------------- message record

MessageHeader = c.Struct(
    "put_time" / c.Float64l,  # 0  epoch seconds when put (expiry counts from here)
    "backout_count" / c.Int32ul,  # 8  as of the record; live count is kept beside it
    "md_length" / c.Int16ul,  # 12 length of the packed MQMD that follows
    "flags" / c.Int16ul,  # 14 FLAG_* bits
)  # 16 bytes, then MQMD, then data
_MSGHDR = MESSAGE_HEADER = fast(MessageHeader)

#: the message's data starts with MQRFH2 headers that may carry its properties (MQMD Format
#: MQHRF2 when put): MQGET hands them over as the MQGMO_PROPERTIES_* options and PROPCTL say,
#: and selectors read them. A message without the flag has none (fast paths take it as is).
FLAG_PROPERTIES = 0x0001
#: the message's MQMD (version 2) has MsgFlags (a message in a group, a segment: engine.groups):
#: MQGET's general path returns its GroupStatus
FLAG_GROUP = 0x0002
_MD_FORMAT_AT = 32  # MQMD.Format's offset in a packed MQMD
_MD_MSG_FLAGS_AT = 356  # MQMD.MsgFlags' offset in a packed MQMD version 2
_RFH2_FORMAT = b"MQHRF2  "
_NO_FLAGS = b"\x00\x00\x00\x00"


def message_flags(md_bytes: bytes) -> int:
    """The FLAG_* bits of a message stored with the packed MQMD ``md_bytes``."""
    flags = FLAG_PROPERTIES if md_bytes[_MD_FORMAT_AT:_MD_FORMAT_AT + 8] == _RFH2_FORMAT else 0
    if len(md_bytes) > _MD_MSG_FLAGS_AT \
            and md_bytes[_MD_MSG_FLAGS_AT:_MD_MSG_FLAGS_AT + 4] != _NO_FLAGS:
        flags |= FLAG_GROUP
    return flags


def encode_message(put_time: float, md_bytes: bytes, data: bytes, backout_count: int = 0,
                   flags: int = 0) -> bytes:
    return b"".join((_MSGHDR.pack(put_time, backout_count, len(md_bytes), flags), md_bytes,
                     data))


def record_flags(record: bytes | memoryview) -> int:
    """The FLAG_* bits of a message record."""
    return _MSGHDR.unpack_from(record)[3]


def decode_message(record: bytes | memoryview) -> tuple[float, int, bytes, bytes]:
    """Return (put_time, backout_count, md_bytes, data)."""
    put_time, backout, mdlen, _ = _MSGHDR.unpack_from(record)
    start = _MSGHDR.size
    return put_time, backout, bytes(record[start:start + mdlen]), bytes(record[start + mdlen:])


def message_data_length(record: bytes) -> int:
    _, _, mdlen, _ = _MSGHDR.unpack_from(record)
    return len(record) - _MSGHDR.size - mdlen


MESSAGE_HEADER_SIZE = _MSGHDR.size
