"""Message groups and segments (IBM MQ's "Message groups", "Logical and physical ordering",
"Message segmentation"): what MQPUT and MQGET keep per object handle for MQPMO_LOGICAL_ORDER
and MQGMO_LOGICAL_ORDER (a group under way, a logical message's segments under way), the
rules a group's and a segmented message's puts are held to, which messages an MQGET with
group or segment options may have, and the queue manager's segmentation of a message too
big for its queue (MQMF_SEGMENTATION_ALLOWED: :func:`split`).

A handle's state changed under syncpoint is restored as it was before the unit of work when
the unit of work is backed out (:func:`keep_for_backout`), as IBM's.

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
MF_SEGMENT = CMQC.MQMF_SEGMENT
MF_LAST_SEGMENT = CMQC.MQMF_LAST_SEGMENT
MF_SEGMENTS = MF_SEGMENT | MF_LAST_SEGMENT
MF_SEGMENTATION_ALLOWED = CMQC.MQMF_SEGMENTATION_ALLOWED
GI_NONE = CMQC.MQGI_NONE
#: MatchOptions that select by a group's fields (the general path's)
MO_GROUP = (CMQC.MQMO_MATCH_GROUP_ID | CMQC.MQMO_MATCH_MSG_SEQ_NUMBER
            | CMQC.MQMO_MATCH_OFFSET | CMQC.MQMO_MATCH_MSG_TOKEN)
#: MQGMO options that ask for groups' or segments' rules (the general path's)
GMO_GROUP = (CMQC.MQGMO_LOGICAL_ORDER | CMQC.MQGMO_ALL_MSGS_AVAILABLE
             | CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE)
PMO_LOGICAL = CMQC.MQPMO_LOGICAL_ORDER
GMO_LOGICAL = CMQC.MQGMO_LOGICAL_ORDER
GMO_ALL_AVAILABLE = CMQC.MQGMO_ALL_MSGS_AVAILABLE
GMO_ALL_SEGMENTS = CMQC.MQGMO_ALL_SEGMENTS_AVAILABLE
GMO_COMPLETE = CMQC.MQGMO_COMPLETE_MSG
#: the smallest segment the queue manager makes (IBM's, for a user-defined format)
MIN_SEGMENT = 16
#: the largest MsgSeqNumber and Offset an MQPUT may give (IBM's: MQRC_MSG_SEQ_NUMBER_ERROR,
#: MQRC_OFFSET_ERROR beyond, or below 1 and 0)
MAX_SEQ_OFFSET = 999_999_999

#: a packed MQMD version 2's GroupId, MsgSeqNumber, Offset and MsgFlags (little-endian, as
#: the engine stores it: ``engine.packed``)
_GROUP_AT = 324
_SEQ_OFFSET_FLAGS = struct.Struct("<iii")
_MD2_LENGTH = 364

Fields = tuple[bytes, int, int, int]  # GroupId, MsgSeqNumber, Offset, MsgFlags


class GroupState:
    """The group or logical message an object handle is in the middle of
    (MQPMO_LOGICAL_ORDER's puts, or MQGMO_LOGICAL_ORDER's gets): its GroupId, the
    MsgSeqNumber of the last message put or got, whether under syncpoint, (puts) the
    Persistence of its messages; and while a logical message's segments are under way
    (``msg_open``), the Offset its next segment has and the group flags its segments carry."""

    __slots__ = ("group_flags", "group_id", "msg_open", "offset", "persistence", "seq",
                 "syncpoint")

    def __init__(self, group_id: bytes, seq: int, syncpoint: bool, persistence: int,
                 offset: int = 0, msg_open: bool = False, group_flags: int = 0) -> None:
        self.group_id, self.seq, self.syncpoint = group_id, seq, syncpoint
        self.persistence = persistence
        self.offset, self.msg_open, self.group_flags = offset, msg_open, group_flags


def state_after(fields: Fields, length: int, syncpoint: bool, persistence: int
                ) -> GroupState | None:
    """The state a handle is left in by a message (or segment) with the group ``fields``
    and ``length`` bytes of data, in logical order: None when neither a group nor a logical
    message is under way after it."""
    gid, seq, offset, flags = fields
    msg_open = bool(flags & MF_SEGMENT and not flags & MF_LAST_SEGMENT)
    group_open = bool(flags & MF_IN_GROUP and not flags & MF_LAST_IN_GROUP)
    if not (msg_open or group_open):
        return None
    return GroupState(gid, seq, syncpoint, persistence, offset + length if msg_open else 0,
                      msg_open, flags & MF_GROUP)


def stored_fields(md_bytes: bytes) -> Fields:
    """GroupId, MsgSeqNumber, Offset, MsgFlags of a stored (packed) MQMD; a version-1 MQMD's
    are those of a message in no group."""
    if len(md_bytes) < _MD2_LENGTH:
        return GI_NONE, 1, 0, 0
    seq, offset, flags = _SEQ_OFFSET_FLAGS.unpack_from(md_bytes, _GROUP_AT + 24)
    return md_bytes[_GROUP_AT:_GROUP_AT + 24], seq, offset, flags


def group_status(flags: int) -> int:
    """MQGMO GroupStatus of a message with MsgFlags ``flags``."""
    if flags & MF_LAST_IN_GROUP:
        return CMQC.MQGS_LAST_MSG_IN_GROUP
    if flags & MF_IN_GROUP:
        return CMQC.MQGS_MSG_IN_GROUP
    return CMQC.MQGS_NOT_IN_GROUP


def segment_status(flags: int) -> int:
    """MQGMO SegmentStatus of a message with MsgFlags ``flags``."""
    if flags & MF_LAST_SEGMENT:
        return CMQC.MQSS_LAST_SEGMENT
    if flags & MF_SEGMENT:
        return CMQC.MQSS_SEGMENT
    return CMQC.MQSS_NOT_A_SEGMENT


def segmentation(flags: int) -> int:
    """MQGMO Segmentation of a message with MsgFlags ``flags``."""
    return CMQC.MQSEG_ALLOWED if flags & MF_SEGMENTATION_ALLOWED else CMQC.MQSEG_INHIBITED


def keep_for_backout(h: Any, uow: Any) -> None:
    """Before the handle ``h``'s group and segment state is first changed in the unit of
    work ``uow``: keep it, to be restored if ``uow`` is backed out (IBM: "the queue manager
    restores the group and segment information to the value it had before")."""
    if uow is None or h.group_uow is uow:
        return
    h.group_uow = uow
    kept = (h.put_group, h.put_logical, h.get_group, h.get_logical)

    def ended(committed: bool) -> None:
        if h.group_uow is uow:
            h.group_uow = None
        if not committed:
            h.put_group, h.put_logical, h.get_group, h.get_logical = kept

    uow.outcomes.append(ended)


# ------------------------------------------------------------------------------ MQPUT

#: MsgFlags IBM defines within MQMF_REJECT_UNSUP_MASK (another bit there: MQRC_MSG_FLAGS_ERROR)
_MF_REJECTED = CMQC.MQMF_REJECT_UNSUP_MASK & ~(MF_GROUP | MF_SEGMENTS | MF_SEGMENTATION_ALLOWED)


def check_flags(md: Any) -> None:
    """An MQPUT's MQMD (version 2 or more) MsgFlags: a bit of MQMF_REJECT_UNSUP_MASK IBM
    does not define is MQRC_MSG_FLAGS_ERROR."""
    d = md.__dict__
    if d["Version"] >= 2 and d["MsgFlags"] & _MF_REJECTED:
        raise _fail(CMQC.MQRC_MSG_FLAGS_ERROR)


def put_fields(h: Any, md: Any, opts: int, persistence: int, new_id: Any, length: int
               ) -> tuple[GroupState | None, int]:
    """An MQPUT's group and segment fields, written into the MQMD ``md`` (version 2 or
    more) for a message of ``length`` bytes: with MQPMO_LOGICAL_ORDER the queue manager's
    (the handle's logical message or group continued, or a new GroupId from ``new_id()`` at
    a group's or segmented message's first; MsgSeqNumber counted, Offset summed), checked
    against the handle's state (MQRC_INCOMPLETE_MSG, MQRC_INCOMPLETE_GROUP,
    MQRC_INCONSISTENT_UOW, MQRC_INCONSISTENT_PERSISTENCE: failures); without it the
    application's, a GroupId MQGI_NONE of a message in a group or a segment made new, and
    the warning IBM gives when the previous put was in logical order with its group or
    logical message unfinished. A segment that is not the last one with no data is
    MQRC_SEGMENT_LENGTH_ZERO; without MQPMO_LOGICAL_ORDER, a message in a group or a segment
    whose MsgSeqNumber is not 1 to 999 999 999 is MQRC_MSG_SEQ_NUMBER_ERROR, and one whose
    Offset is not 0 to 999 999 999 MQRC_OFFSET_ERROR. Returns the handle's state after the put (to keep once the
    put is made: :func:`put_done`) and a warning or 0."""
    d = md.__dict__
    flags = d["MsgFlags"] if d["Version"] >= 2 else 0
    in_group = flags & MF_GROUP
    segmented = flags & MF_SEGMENTS
    if flags & MF_SEGMENT and not flags & MF_LAST_SEGMENT and not length:
        raise _fail(CMQC.MQRC_SEGMENT_LENGTH_ZERO)
    syncpoint = bool(opts & CMQC.MQPMO_SYNCPOINT)
    current: GroupState | None = h.put_group
    if not opts & PMO_LOGICAL:
        if in_group or segmented:  # (the application's own fields: in range)
            if not 1 <= d["MsgSeqNumber"] <= MAX_SEQ_OFFSET:
                raise _fail(CMQC.MQRC_MSG_SEQ_NUMBER_ERROR)
            if not 0 <= d["Offset"] <= MAX_SEQ_OFFSET:
                raise _fail(CMQC.MQRC_OFFSET_ERROR)
        warning = 0
        if current is not None and h.put_logical:
            warning = CMQC.MQRC_INCOMPLETE_MSG if current.msg_open \
                else CMQC.MQRC_INCOMPLETE_GROUP
            if (in_group or segmented) and current.syncpoint != syncpoint:
                warning = CMQC.MQRC_INCONSISTENT_UOW
            elif (in_group or segmented) and current.persistence != persistence:
                warning = CMQC.MQRC_INCONSISTENT_PERSISTENCE
        if (in_group or segmented) and (d["GroupId"] == GI_NONE
                                        or not d["GroupId"].strip(b"\x00")):
            d["GroupId"] = new_id()
        return current, warning
    offset = 0
    if current is None:
        group_id = new_id() if in_group or segmented else GI_NONE
        seq = 1
    else:
        if current.msg_open:
            if not segmented or in_group != current.group_flags:
                raise _fail(CMQC.MQRC_INCOMPLETE_MSG)
        elif not in_group:
            raise _fail(CMQC.MQRC_INCOMPLETE_GROUP)
        if current.syncpoint != syncpoint:
            raise _fail(CMQC.MQRC_INCONSISTENT_UOW)
        if current.persistence != persistence:
            raise _fail(CMQC.MQRC_INCONSISTENT_PERSISTENCE)
        group_id = current.group_id
        if current.msg_open:
            seq, offset = current.seq, current.offset
        else:
            seq = current.seq + 1
    if d["Version"] >= 2:  # (a version-1 MQMD has no group fields: a message in no group)
        d["GroupId"], d["MsgSeqNumber"], d["Offset"] = group_id, seq, offset
    return state_after((group_id, seq, offset, flags), length, syncpoint, persistence), 0


def put_done(h: Any, opts: int, state: GroupState | None, uow: Any) -> None:
    """The handle's group state once an MQPUT with options ``opts`` is made (in the unit of
    work ``uow``, or None)."""
    keep_for_backout(h, uow)
    if opts & PMO_LOGICAL:
        h.put_group = state
        h.put_logical = True
    else:
        h.put_logical = False


def close_warning(h: Any) -> int:
    """MQCLOSE's warning for the handle ``h``: MQRC_INCOMPLETE_MSG when a logical message
    put in logical order is unfinished, MQRC_INCOMPLETE_GROUP when a group is, else 0."""
    state = h.put_group
    if state is None:
        return 0
    return CMQC.MQRC_INCOMPLETE_MSG if state.msg_open else CMQC.MQRC_INCOMPLETE_GROUP


def segment_size(flags: int, length: int, limit: int) -> int:
    """The size of the segments the queue manager splits a message of ``length`` bytes
    with MsgFlags ``flags`` into for a queue taking ``limit`` bytes (its MAXMSGL and the
    queue manager's); 0 when the message fits whole. MQRC_MSG_TOO_BIG_FOR_Q when it does
    not fit and segmentation is not allowed, or the limit is below the smallest segment."""
    if length <= limit:
        return 0
    if not flags & MF_SEGMENTATION_ALLOWED or limit < MIN_SEGMENT:
        raise _fail(CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
    return limit


def split(fields: Fields, data: bytes, size: int) -> list[tuple[int, int, bytes]]:
    """The segments the queue manager puts for a message with the group ``fields`` (already
    resolved: its GroupId made) and ``data``, ``size`` bytes each: (MsgFlags, Offset, data)
    of each. A message that was no segment becomes a logical message of segments, the last
    MQMF_LAST_SEGMENT; a segment is split into smaller ones, the last keeping its own
    MQMF_LAST_SEGMENT if it had it; the group flags stay on every segment."""
    _gid, _seq, offset, flags = fields
    keep = flags & ~MF_SEGMENTS
    last_flag = MF_SEGMENT if flags & MF_SEGMENT and not flags & MF_LAST_SEGMENT \
        else MF_LAST_SEGMENT
    out = []
    for pos in range(0, len(data), size):
        piece = data[pos:pos + size]
        last = pos + size >= len(data)
        out.append((keep | (last_flag if last else MF_SEGMENT), offset + pos, piece))
    return out


# ------------------------------------------------------------------------------ MQGET

def wants_groups(opts: int, match: int) -> bool:
    """Whether an MQGET with options ``opts`` and MatchOptions ``match`` selects by groups
    or segments."""
    return bool(opts & GMO_GROUP or match & MO_GROUP)


class Found:
    """What :func:`select` learns of a queue's messages on its way: the MsgSeqNumbers of
    each group seen and its last one, and each logical message's segments by Offset.

    Its answers cost the same whatever the messages say (a putter of groups and segments
    may put anything): a group's completeness is a count kept as messages are added, and a
    logical message's chain of segments is walked on from where the last look stopped, so
    a scan of n messages costs O(n), not O(n^2), under the engine's lock."""

    __slots__ = ("in_range", "lasts", "segments", "seqs", "walked")

    def __init__(self) -> None:
        self.seqs: dict[bytes, set[int]] = {}
        #: each group's last MsgSeqNumber: the first MQMF_LAST_MSG_IN_GROUP seen of it
        self.lasts: dict[bytes, int] = {}
        #: how many of each group's MsgSeqNumbers seen are 1 to its last
        self.in_range: dict[bytes, int] = {}
        self.segments: dict[tuple[bytes, int], dict[int, tuple[Any, int, int]]] = {}
        #: (GroupId, MsgSeqNumber, first Offset) -> the segments chained so far, the Offset
        #: the next one has, and whether the chain is ended (True: by its last segment;
        #: False: by a segment with no data that is not the last, so never)
        self.walked: dict[tuple[bytes, int, int], tuple[list[Any], int, bool | None]] = {}

    def add(self, entry: Any, fields: Fields, length: int) -> None:
        gid, seq, offset, flags = fields
        if flags & MF_GROUP:
            seqs = self.seqs.setdefault(gid, set())
            if seq not in seqs:
                seqs.add(seq)
                last = self.lasts.get(gid)
                if last is not None and 1 <= seq <= last:
                    self.in_range[gid] += 1
            if flags & MF_LAST_IN_GROUP and gid not in self.lasts:
                self.lasts[gid] = seq
                self.in_range[gid] = sum(1 for s in seqs if 1 <= s <= seq)
        if flags & MF_SEGMENTS:
            self.segments.setdefault((gid, seq), {}).setdefault(offset, (entry, length, flags))

    def group_complete(self, gid: bytes) -> bool:
        """Whether messages 1 to the last one of group ``gid`` have all been seen."""
        last = self.lasts.get(gid)
        return last is not None and self.in_range[gid] >= last

    def message_parts(self, gid: bytes, seq: int, offset: int = 0) -> list[Any] | None:
        """The segments of logical message (``gid``, ``seq``) in Offset order, from
        ``offset`` (0, or where a logical message partly got goes on) to its
        MQMF_LAST_SEGMENT, each following the one before; None while one is missing."""
        parts = self.segments.get((gid, seq))
        if not parts:
            return None
        key = (gid, seq, offset)
        out, at, ended = self.walked.get(key) or ([], offset, None)
        while ended is None:
            part = parts.get(at)
            if part is None:
                break
            entry, length, flags = part
            if flags & MF_LAST_SEGMENT:
                out.append(entry)
                ended = True
            elif not length:
                ended = False
            else:
                out.append(entry)
                at += length
        self.walked[key] = (out, at, ended)
        return list(out) if ended else None


def select(found: Iterable[tuple[Any, Fields, int, bool]], md: Any, opts: int, match: int,
           current: GroupState | None) -> Iterator[tuple[Any, Fields, list[Any] | None]]:
    """The entries of ``found`` (in delivery order, with their stored group fields, their
    data's length and whether the caller's selection -- MsgId, CorrelId, a selection
    string -- takes them) an MQGET may have, in that order, with the segments of the logical
    message each begins when MQGMO_COMPLETE_MSG reassembles it (else None): those the match
    options select; with MQGMO_LOGICAL_ORDER the next message or segment of the handle's
    group or logical message (``current``; the match options must then agree:
    MQRC_MATCH_OPTIONS_ERROR) or, with none under way, a group's first message or one in no
    group, at Offset 0; with MQGMO_ALL_MSGS_AVAILABLE (outside a group under way) a group's
    messages only once all of the group is there; with MQGMO_ALL_SEGMENTS_AVAILABLE or
    MQGMO_COMPLETE_MSG a segment only once all of its logical message is there, and with
    MQGMO_COMPLETE_MSG only a logical message's first segment.

    One pass in delivery order, stopping at the first message the call may have: a group's
    or logical message's completeness is learnt from the messages passed so far, a
    candidate waiting until its group is whole (the queue's end: never)."""
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

    def matches(fields: Fields) -> bool:
        gid, seq, offset, _flags = fields
        return ((want_gid is None or gid == want_gid)
                and (want_seq is None or seq == want_seq)
                and (want_offset is None or offset == want_offset))

    logical = opts & GMO_LOGICAL
    complete_msg = bool(opts & GMO_COMPLETE)
    need_group = bool(opts & GMO_ALL_AVAILABLE) and current is None
    need_msg = complete_msg or bool(opts & GMO_ALL_SEGMENTS)
    track = need_group or need_msg
    resuming = bool(logical and current is not None and current.msg_open)
    seen = Found()
    waiting: list[tuple[Any, Fields]] = []

    def ready(fields: Fields) -> tuple[bool, list[Any] | None]:
        gid, seq, offset, flags = fields
        if need_group and flags & MF_GROUP and not seen.group_complete(gid):
            return False, None
        if need_msg and flags & MF_SEGMENTS:
            # (the rest of a logical message the handle has got part of, else all of it)
            parts = seen.message_parts(gid, seq, offset if resuming else 0)
            if parts is None:
                return False, None
            return True, parts if complete_msg else None
        return True, None

    for entry, fields, length, selected in found:
        if track:
            seen.add(entry, fields, length)
        gid, seq, offset, flags = fields
        if logical and current is not None:
            if gid != current.group_id:
                candidate = False
            elif current.msg_open:
                candidate = seq == current.seq and offset == current.offset
            else:
                candidate = seq == current.seq + 1 and offset == 0
            if candidate and not matches(fields):
                raise _fail(CMQC.MQRC_MATCH_OPTIONS_ERROR)
        else:
            candidate = selected and matches(fields) and not (
                (logical and seq != 1) or ((logical or complete_msg) and offset != 0))
        if not track:
            if candidate:
                yield entry, fields, None
            continue
        if candidate:
            waiting.append((entry, fields))
        if not waiting:
            continue
        # the first candidate waits for its group or message; later ones wait behind it
        front_gid = waiting[0][1][0]
        if candidate or gid == front_gid:
            ok, parts = ready(waiting[0][1])
            if ok:
                e, f = waiting.pop(0)
                yield e, f, parts
    for e, f in waiting:  # the queue's end: what is whole now is all there will be
        ok, parts = ready(f)
        if ok:
            yield e, f, parts


def reassembled_fields(fields: Fields) -> Fields:
    """The group fields MQGMO_COMPLETE_MSG returns for a logical message reassembled from
    segments whose first has ``fields``: its MsgFlags say it is the only segment."""
    gid, seq, offset, flags = fields
    return gid, seq, offset, (flags & ~MF_SEGMENT) | MF_LAST_SEGMENT


def get_done(h: Any, opts: int, fields: Fields, length: int, syncpoint: bool, browse: bool,
             uow: Any = None) -> None:
    """The handle's group state once an MQGET with options ``opts`` has a message of
    ``length`` bytes with the stored group ``fields`` (a browse keeps its own: IBM's browse
    and get states differ); a get under syncpoint in the unit of work ``uow``."""
    state = state_after(fields, length, syncpoint, 0)
    if browse:
        h.browse_group = state if opts & GMO_LOGICAL else None
        return
    if syncpoint:
        keep_for_backout(h, uow)
    if opts & GMO_LOGICAL:
        h.get_group = state
        h.get_logical = True
    else:
        h.get_logical = False


def get_check(h: Any, opts: int, browse: bool) -> None:
    """The check of an MQGET in logical order against the handle's group or logical
    message under way: MQRC_INCONSISTENT_UOW when its syncpoint option differs from the
    group's; MQRC_INCOMPLETE_MSG when it asks for a complete message while the handle has
    got some of a logical message's segments. (IBM's warnings of a get not in logical order
    after one that was, MQRC_INCOMPLETE_GROUP and MQRC_INCONSISTENT_UOW with the message,
    are not given: the message is returned without.)"""
    current: GroupState | None = h.browse_group if browse else h.get_group
    if current is None or not opts & GMO_LOGICAL:
        return
    if current.msg_open and opts & GMO_COMPLETE:
        raise _fail(CMQC.MQRC_INCOMPLETE_MSG)
    if browse:
        return
    if current.syncpoint != bool(opts & CMQC.MQGMO_SYNCPOINT):
        raise _fail(CMQC.MQRC_INCONSISTENT_UOW)
