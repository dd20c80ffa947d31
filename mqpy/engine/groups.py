"""Message groups (IBM MQ's "Message groups", "Logical and physical ordering"): what MQPUT
and MQGET keep per object handle for MQPMO_LOGICAL_ORDER and MQGMO_LOGICAL_ORDER, the rules
a group's puts are held to, and which messages an MQGET with group options may have.

The queue manager does not segment: a message is never split on MQPUT nor reassembled on
MQGET (MQMF_SEGMENTATION_ALLOWED is stored as given, MQGMO_COMPLETE_MSG and
MQGMO_ALL_SEGMENTS_AVAILABLE have every message whole already). A message an application
segmented itself (MQMF_SEGMENT) is a physical message like any other.

This module never touches a queue's order nor stores anything: :class:`~mqpy.engine.mqput`
and :class:`~mqpy.engine.mqget` call it under the engine lock and do the rest."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator
from typing import Any

from mqpy import CMQC
from mqpy.engine.options import _fail

_WARNING = CMQC.MQCC_WARNING
MF_IN_GROUP = CMQC.MQMF_MSG_IN_GROUP
MF_LAST_IN_GROUP = CMQC.MQMF_LAST_MSG_IN_GROUP
MF_GROUP = MF_IN_GROUP | MF_LAST_IN_GROUP
GI_NONE = CMQC.MQGI_NONE
#: MatchOptions that select by a group's fields (the general path's)
MO_GROUP = (CMQC.MQMO_MATCH_GROUP_ID | CMQC.MQMO_MATCH_MSG_SEQ_NUMBER
            | CMQC.MQMO_MATCH_OFFSET | CMQC.MQMO_MATCH_MSG_TOKEN)
#: MQGMO options that ask for groups' rules (the general path's)
GMO_GROUP = (CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_ALL_MSGS_AVAILABLE
             | CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE)
PMO_LOGICAL = CMQC.MQPMO_LOGICAL_ORDER
GMO_LOGICAL = CMQC.MQGMO_LOGICAL_ORDER
GMO_ALL_AVAILABLE = CMQC.MQGMO_ALL_MSGS_AVAILABLE

#: a packed MQMD version 2's GroupId, MsgSeqNumber, Offset and MsgFlags (little-endian, as
#: the engine stores it: ``engine.packed``)
_GROUP_AT = 324
_SEQ_OFFSET_FLAGS = struct.Struct("<iii")
_MD2_LENGTH = 364


class GroupState:
    """The group an object handle is in the middle of (MQPMO_LOGICAL_ORDER's puts, or
    MQGMO_LOGICAL_ORDER's gets): its GroupId, the last MsgSeqNumber put or got, whether
    under syncpoint, and (puts) the Persistence of its messages."""

    __slots__ = ("group_id", "persistence", "seq", "syncpoint")

    def __init__(self, group_id: bytes, seq: int, syncpoint: bool, persistence: int) -> None:
        self.group_id, self.seq, self.syncpoint = group_id, seq, syncpoint
        self.persistence = persistence


def stored_fields(md_bytes: bytes) -> tuple[bytes, int, int, int]:
    """GroupId, MsgSeqNumber, Offset, MsgFlags of a stored (packed) MQMD; a version-1 MQMD's
    are those of a message in no group."""
    if len(md_bytes) < _MD2_LENGTH:
        return GI_NONE, 1, 0, 0
    seq, offset, flags = _SEQ_OFFSET_FLAGS.unpack_from(md_bytes, _GROUP_AT + 24)
    return md_bytes[_GROUP_AT:_GROUP_AT + 24], seq, offset, flags


def group_status(flags: int) -> bytes:
    """MQGMO GroupStatus of a message with MsgFlags ``flags``."""
    if flags & MF_LAST_IN_GROUP:
        return CMQC.MQGS_LAST_MSG_IN_GROUP
    if flags & MF_IN_GROUP:
        return CMQC.MQGS_MSG_IN_GROUP
    return CMQC.MQGS_NOT_IN_GROUP


# ------------------------------------------------------------------------------ MQPUT

#: MsgFlags IBM defines within MQMF_REJECT_UNSUP_MASK (another bit there: MQRC_MSG_FLAGS_ERROR)
_MF_REJECTED = CMQC.MQMF_REJECT_UNSUP_MASK & ~(
    MF_GROUP | CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT | CMQC.MQMF_SEGMENTATION_ALLOWED)


def check_flags(md: Any) -> None:
    """An MQPUT's MQMD (version 2 or more) MsgFlags: a bit of MQMF_REJECT_UNSUP_MASK IBM
    does not define is MQRC_MSG_FLAGS_ERROR."""
    d = md.__dict__
    if d["Version"] >= 2 and d["MsgFlags"] & _MF_REJECTED:
        raise _fail(CMQC.MQRC_MSG_FLAGS_ERROR)


def put_fields(h: Any, md: Any, opts: int, persistence: int, new_id: Any
               ) -> tuple[GroupState | None, int]:
    """An MQPUT's group fields, written into the MQMD ``md`` (version 2 or more): with
    MQPMO_LOGICAL_ORDER the queue manager's (the handle's group continued, or a new GroupId
    from ``new_id()`` at a group's first message; MsgSeqNumber counted, Offset 0), checked
    against the handle's group (MQRC_INCOMPLETE_GROUP, MQRC_INCONSISTENT_UOW,
    MQRC_INCONSISTENT_PERSISTENCE: failures); without it the application's, a GroupId
    MQGI_NONE of a message in a group made new, and the warning IBM gives when the previous
    put was in logical order with its group unfinished. Returns the handle's group state
    after the put (to keep once the put is made: :func:`put_done`) and a warning or 0."""
    d = md.__dict__
    flags = d["MsgFlags"] if d["Version"] >= 2 else 0
    in_group = flags & MF_GROUP
    syncpoint = bool(opts & CMQC.MQPMO_SYNCPOINT)
    current: GroupState | None = h.put_group
    if not opts & PMO_LOGICAL:
        warning = 0
        if current is not None and h.put_logical:
            warning = CMQC.MQRC_INCOMPLETE_GROUP
            if in_group and current.syncpoint != syncpoint:
                warning = CMQC.MQRC_INCONSISTENT_UOW
            elif in_group and current.persistence != persistence:
                warning = CMQC.MQRC_INCONSISTENT_PERSISTENCE
        if in_group and (d["GroupId"] == GI_NONE or not d["GroupId"].strip(b"\x00")):
            d["GroupId"] = new_id()
        return current, warning
    if current is None:
        group_id = new_id() if in_group else GI_NONE
        seq = 1
    else:
        if not in_group:
            raise _fail(CMQC.MQRC_INCOMPLETE_GROUP)
        if current.syncpoint != syncpoint:
            raise _fail(CMQC.MQRC_INCONSISTENT_UOW)
        if current.persistence != persistence:
            raise _fail(CMQC.MQRC_INCONSISTENT_PERSISTENCE)
        group_id = current.group_id
        seq = current.seq + 1
    if d["Version"] >= 2:  # (a version-1 MQMD has no group fields: a message in no group)
        d["GroupId"], d["MsgSeqNumber"], d["Offset"] = group_id, seq, 0
    if not in_group or flags & MF_LAST_IN_GROUP:
        return None, 0
    return GroupState(group_id, seq, syncpoint, persistence), 0


def put_done(h: Any, opts: int, state: GroupState | None) -> None:
    """The handle's group state once an MQPUT with options ``opts`` is made."""
    if opts & PMO_LOGICAL:
        h.put_group = state
        h.put_logical = True
    else:
        h.put_logical = False


def close_warning(h: Any) -> int:
    """MQCLOSE's warning for the handle ``h``: MQRC_INCOMPLETE_GROUP when a group put in
    logical order is unfinished, else 0."""
    return CMQC.MQRC_INCOMPLETE_GROUP if h.put_group is not None else 0


# ------------------------------------------------------------------------------ MQGET

def wants_groups(opts: int, match: int) -> bool:
    """Whether an MQGET with options ``opts`` and MatchOptions ``match`` selects by groups."""
    return bool(opts & (GMO_LOGICAL | GMO_ALL_AVAILABLE) or match & MO_GROUP)


def complete_groups(visible: Iterable[tuple[Any, tuple[bytes, int, int, int]]]) -> set[bytes]:
    """The GroupIds of ``visible`` (entries and their stored group fields) whose messages
    1 to the last one (MQMF_LAST_MSG_IN_GROUP) are all there."""
    seqs: dict[bytes, set[int]] = {}
    last: dict[bytes, int] = {}
    for _entry, (gid, seq, _offset, flags) in visible:
        if flags & MF_GROUP:
            seqs.setdefault(gid, set()).add(seq)
            if flags & MF_LAST_IN_GROUP:
                last[gid] = seq
    return {gid for gid, n in last.items() if all(s in seqs[gid] for s in range(1, n + 1))}


def select(found: Iterable[tuple[Any, tuple[bytes, int, int, int]]], md: Any, opts: int,
           match: int, current: GroupState | None, complete: set[bytes] | None
           ) -> Iterator[Any]:
    """The entries of ``found`` (in delivery order, with their stored group fields) an
    MQGET may have, in that order: those the match options select (MsgId and CorrelId are
    the caller's), with MQGMO_LOGICAL_ORDER the next message of the handle's group
    (``current``; the match options must then agree: MQRC_MATCH_OPTIONS_ERROR) or, with no
    group under way, a group's first message or one in no group; with
    MQGMO_ALL_MSGS_AVAILABLE (outside a group under way) a group's messages only when the
    group is ``complete``."""
    d = md.__dict__ if md is not None else None
    want_gid = want_seq = want_offset = None
    if d is not None and d["Version"] >= 2:
        gid = bytes(d["GroupId"]).ljust(24, b"\x00")
        if match & CMQC.MQMO_MATCH_GROUP_ID and gid != GI_NONE:  # (MQGI_NONE: any)
            want_gid = gid
        if match & CMQC.MQMO_MATCH_MSG_SEQ_NUMBER:
            want_seq = d["MsgSeqNumber"]
        if match & CMQC.MQMO_MATCH_OFFSET:
            want_offset = d["Offset"]

    def matches(fields: tuple[bytes, int, int, int]) -> bool:
        gid, seq, offset, _flags = fields
        return ((want_gid is None or gid == want_gid)
                and (want_seq is None or seq == want_seq)
                and (want_offset is None or offset == want_offset))

    logical = opts & GMO_LOGICAL
    for entry, fields in found:
        gid, seq, offset, flags = fields
        if logical and current is not None:
            if gid != current.group_id or seq != current.seq + 1:
                continue
            if not matches(fields):
                raise _fail(CMQC.MQRC_MATCH_OPTIONS_ERROR)
            yield entry
            continue
        if logical and (seq != 1 or offset != 0):
            continue
        if complete is not None and flags & MF_GROUP and gid not in complete:
            continue
        if matches(fields):
            yield entry


def get_done(h: Any, opts: int, fields: tuple[bytes, int, int, int], syncpoint: bool,
             browse: bool) -> None:
    """The handle's group state once an MQGET with options ``opts`` has a message with the
    stored group ``fields`` (a browse keeps its own: IBM's browse and get states differ)."""
    gid, seq, _offset, flags = fields
    state = GroupState(gid, seq, syncpoint, 0) if flags & MF_IN_GROUP \
        and not flags & MF_LAST_IN_GROUP else None
    if browse:
        h.browse_group = state if opts & GMO_LOGICAL else None
    elif opts & GMO_LOGICAL:
        h.get_group = state
        h.get_logical = True
    else:
        h.get_logical = False


def get_check(h: Any, opts: int, browse: bool) -> None:
    """The check of an MQGET in logical order against the handle's group under way:
    MQRC_INCONSISTENT_UOW when its syncpoint option differs from the group's. (IBM's
    warnings of a get not in logical order after one that was, MQRC_INCOMPLETE_GROUP and
    MQRC_INCONSISTENT_UOW with the message, are not given: the message is returned without.)"""
    current: GroupState | None = h.get_group
    if browse or current is None or not opts & GMO_LOGICAL:
        return
    if current.syncpoint != bool(opts & CMQC.MQGMO_SYNCPOINT):
        raise _fail(CMQC.MQRC_INCONSISTENT_UOW)
