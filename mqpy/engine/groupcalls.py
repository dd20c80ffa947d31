"""The MQPUT and MQGET of message groups and segments (``engine.groups`` holds their rules):
the queue manager's segmentation of a message too big for its queue, put in one unit of work
(:class:`GroupPutCalls`), and the selection of an MQGET with group or segment options, with
MQGMO_COMPLETE_MSG's reassembly of a logical message's segments, got all or none
(:class:`GroupGetCalls`). Mixed into :class:`~mqpy.engine.connection.Connection` through
``PutCalls`` and ``GetCalls``, whose methods these call."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from mqpy import CMQC
from mqpy.engine import groups, msgselection
from mqpy.engine import records as R
from mqpy.engine.handle import Handle
from mqpy.engine.log import LogFull
from mqpy.engine.mqmd import (
    _HEADER_FORMATS,
    _MSG_HEADER,
    _MSG_HEADER_SIZE,
    _NO_ID,
    _NONE24,
    _VERSION_AT,
    _id24,
)
from mqpy.engine.options import _BROWSE_OPTS, _MO_MATCH_BOTH, _PERSISTENT, _fail
from mqpy.engine.queues import AVAILABLE, Entry, MessageQueue
from mqpy.engine.uow import back_out_uow, commit_uow
from mqpy.structs.tables import GMO, MD

#: the group fields of a message stored without MsgFlags (engine.groups.stored_fields)
NOT_IN_GROUP = (CMQC.MQGI_NONE, 1, 0, 0)
#: where a stored record's MQMD has its MsgFlags (engine.groups.stored_fields)
_MD_FLAGS = R._MD_MSG_FLAGS_AT
_GMO_SYNCPOINT = CMQC.MQGMO_SYNCPOINT


def _record_fields(record: bytes) -> tuple[bytes, int, int, int]:
    """The group fields (``groups.stored_fields``) of the stored message ``record``, read
    in place."""
    _t, _b, md_length, flags = _MSG_HEADER.unpack_from(record)
    if not flags & R.FLAG_GROUP:
        return NOT_IN_GROUP
    return groups.stored_fields(record[_MSG_HEADER_SIZE:_MSG_HEADER_SIZE + md_length])


def with_flags(md_bytes: bytes, flags: int) -> bytes:
    """The packed MQMD version 2 ``md_bytes`` with MsgFlags ``flags``."""
    return b"".join((md_bytes[:_MD_FLAGS], _VERSION_AT.pack(flags), md_bytes[_MD_FLAGS + 4:]))


class GroupPutCalls:
    """MQPUT's segmentation by the queue manager (of a ``PutCalls``)."""

    engine: Any
    uow: Any
    backed_out: bool
    _stored_message: Any

    def _segment_size(self, h: Handle, md: MD, length: int) -> int:
        """The size of the segments the queue manager splits a message of ``length`` bytes
        into (``groups.segment_size``): a local queue's MAXMSGL and the queue manager's bound
        it; 0 when it fits whole, or when the queue is not local (its transmission queue
        judges it). Data that starts with a header MQ knows is not split:
        MQRC_MSG_TOO_BIG_FOR_Q."""
        d = md.__dict__
        flags = d["MsgFlags"] if d["Version"] >= 2 else 0
        if h.remote_qm is not None or not flags & groups.MF_SEGMENTATION_ALLOWED:
            return 0
        limit = min(int(h.base.attributes.get("MAXMSGL", 4194304)),  # type: ignore[arg-type]
                    int(self.engine.catalog.qmgr.get("MAXMSGL", 4194304)))
        size = groups.segment_size(flags, length, limit)
        if size and d["Format"] in _HEADER_FORMATS:
            raise _fail(CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
        return size

    def _put_segments(self, h: Handle, md: MD, data: bytes, size: int, persistence: int,
                      stored_priority: int, priority: int, syncpoint: bool, now: float,
                      put1: bool) -> int | None:
        """The queue manager's segmentation of a message too big for its queue (MQMD
        MQMF_SEGMENTATION_ALLOWED): its segments of ``size`` bytes put one after another
        (``groups.split``), the first with the put's MsgId, each other with a new one, all in
        one unit of work -- the application's under syncpoint, else one of the call's own,
        committed before it returns (IBM's; with a unit of work of the application's under
        way outside it: MQRC_UOW_NOT_AVAILABLE). All or none: MAXDEPTH is judged for them
        all first, and a failure of the call's own unit of work backs it out. The
        application's MQMD is left with the logical message's MsgFlags and Offset and the
        first segment's MsgId. Returns the LSN to force."""
        eng = self.engine
        d = md.__dict__
        if not syncpoint and self.uow is not None:
            raise _fail(CMQC.MQRC_UOW_NOT_AVAILABLE)
        if self.backed_out:
            raise _fail(CMQC.MQRC_BACKED_OUT)
        fields = (d["GroupId"], d["MsgSeqNumber"], d["Offset"], d["MsgFlags"])
        if d["GroupId"] in _NO_ID or _id24(d["GroupId"]) == _NONE24:
            fields = (eng.new_msgid(), *fields[1:])  # (a logical message of its own)
        pieces = groups.split(fields, data, size)
        mq = h.mq
        if mq.count - mq.getting + len(pieces) > int(
                h.base.attributes.get("MAXDEPTH", 5000)):  # type: ignore[arg-type]
            raise _fail(CMQC.MQRC_Q_FULL)
        ccsid = int(eng.catalog.qmgr.get("CCSID", CMQC.MQCCSI_Q_MGR))
        own = not syncpoint  # the call's own unit of work
        first_msgid = d["MsgId"]
        try:
            for i, (flags, offset, piece) in enumerate(pieces):
                d["GroupId"], d["MsgFlags"], d["Offset"] = fields[0], flags, offset
                if i:
                    d["MsgId"] = eng.new_msgid()
                md_bytes, body, correlid = self._stored_message(
                    h, md, piece, None, persistence, stored_priority, ccsid)
                eng._store(self, h.base, mq, md_bytes, body, priority=priority,
                           persistent=persistence == _PERSISTENT, msgid=d["MsgId"],
                           correlid=correlid, expiry=d["Expiry"], report=d["Report"],
                           now=now, syncpoint=True, put1=put1)
        except BaseException:
            if own and self.uow is not None:
                uow, self.uow = self.uow, None
                back_out_uow(eng, uow)
            raise
        finally:
            d["MsgId"], d["MsgFlags"], d["Offset"] = first_msgid, fields[3], fields[2]
            d["GroupId"] = fields[0]
        if not own:
            return None
        return _commit_own(eng, self)



def _commit_own(eng: Any, calls: Any) -> Any:
    """Commit the unit of work a call made for itself (``calls.uow``); a full log backs it
    out and fails the call MQRC_RESOURCE_PROBLEM."""
    uow, calls.uow = calls.uow, None
    try:
        return commit_uow(eng, uow)
    except LogFull:
        back_out_uow(eng, uow)
        raise _fail(CMQC.MQRC_RESOURCE_PROBLEM) from None


class GroupGetCalls:
    """MQGET's selection in groups and reassembly of segments (of a ``GetCalls``)."""

    engine: Any
    uow: Any
    _selection: Any
    _expire: Any
    _none_found: Any
    _remove_locked: Any

    def _select_in_groups(self, h: Handle, md: MD | None, gmo: GMO, by_priority: bool,
                          now: float, waiter: Callable[[], None] | None
                          ) -> tuple[Entry, int | None, bool, list[Entry] | None]:
        """:meth:`_select_message` for an MQGET with group or segment options
        (``engine.groups``): the first message in delivery order (after the browse cursor for
        BROWSE_NEXT; a browse in logical order follows its own group) this unit of work may
        get, that the match options select, in logical order and with all of its group or
        logical message there as asked; and with MQGMO_COMPLETE_MSG the segments to
        reassemble (else None)."""
        mq = h.mq
        opts = gmo.Options
        match = gmo.MatchOptions if gmo.Version >= 2 else _MO_MATCH_BOTH
        browse = opts & _BROWSE_OPTS
        if browse:
            current = h.browse_group if opts & CMQC.MQGMO_BROWSE_NEXT else None
        else:
            current = h.get_group
        msgid = correlid = None
        if md is not None and not (opts & groups.GMO_LOGICAL and current is not None):
            msgid, correlid = self._selection(md, gmo)
        after = h.browse_key if opts & CMQC.MQGMO_BROWSE_NEXT else None
        # a logical browse goes from its group's first message (the group's place in
        # logical order), the next message of its group wherever that lies
        start = after
        if browse and opts & groups.GMO_LOGICAL and after is not None:
            start = None if current is not None else h.browse_logical_key
        # a group's or logical message's completeness is judged on all of the queue
        track = bool(opts & (groups.GMO_ALL_SEGMENTS | groups.GMO_COMPLETE)) or (
            opts & groups.GMO_ALL_AVAILABLE and current is None)
        uow = self.uow
        read = self.engine.data.read_record
        selector = h.selector
        order_key = mq.order_key
        expired = []

        def visible(entries: Iterable[Entry]) -> Iterable[tuple[Entry, tuple, int, bool]]:
            if not track:  # (the usual case: only what the selection takes)
                for e in entries:
                    if not e.visible_to(uow):
                        continue
                    if 0 < e.expiry_at <= now:
                        expired.append(e)
                        continue
                    if (msgid is not None and e.msgid != msgid) \
                            or (correlid is not None and e.correlid != correlid):
                        continue
                    record = read(mq, e)
                    if selector is not None and not msgselection.selects(selector, record, e):
                        continue
                    yield e, _record_fields(record), e.length, True
                return
            for e in entries:
                if not e.visible_to(uow):
                    continue
                if 0 < e.expiry_at <= now:
                    expired.append(e)
                    continue
                selected = (msgid is None or e.msgid == msgid) \
                    and (correlid is None or e.correlid == correlid) \
                    and (start is None or not track or order_key(e, by_priority) > start)
                if not selected and not track:
                    continue
                record = read(mq, e)
                if selected and selector is not None \
                        and not msgselection.selects(selector, record, e):
                    if not track:
                        continue
                    selected = False
                yield e, _record_fields(record), e.length, selected

        found = mq.iter_order(by_priority, None if track else start)
        chosen = next(groups.select(visible(found), md, opts, match, current), None)
        if selector is not None and selector.deferred:  # (nothing changed: msgselection)
            raise selector.unselected()
        lsn = None
        for e in expired:
            if e.state == AVAILABLE:
                lsn = self._expire(mq, e) or lsn
        if chosen is None:
            self._none_found(h, waiter, opts, lsn)
        entry, _fields, parts = chosen
        return entry, lsn, False, parts

    def _reassembly_uow(self, parts: list[Entry], opts: int, browse: int) -> bool:
        """Whether removing the segments ``parts`` of a logical message MQGMO_COMPLETE_MSG
        reassembles takes a unit of work of the call's own: persistent segments outside
        syncpoint (IBM's; with a unit of work of the application's under way:
        MQRC_UOW_NOT_AVAILABLE, nothing removed)."""
        if browse or len(parts) < 2 or opts & _GMO_SYNCPOINT or not any(
                p.persistent for p in parts):
            return False
        if opts & CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT:
            return False  # (each persistent segment is got under syncpoint)
        if self.uow is not None:
            raise _fail(CMQC.MQRC_UOW_NOT_AVAILABLE)
        return True

    def _remove_parts(self, mq: MessageQueue, parts: list[Entry], opts: int, now: float,
                      own_uow: bool) -> int | None:
        """A destructive get of a reassembled logical message: each of its segments removed
        as :meth:`_remove_locked` removes one; in a unit of work of the call's own
        (``own_uow``), committed here, so that they go all or none. Returns the LSN to
        force."""
        if not own_uow:
            lsn = None
            for p in parts:
                lsn = self._remove_locked(mq, p, opts, now) or lsn
            return lsn
        eng = self.engine
        try:
            for p in parts:
                self._remove_locked(mq, p, opts | _GMO_SYNCPOINT, now)
        except BaseException:
            uow, self.uow = self.uow, None
            if uow is not None:
                back_out_uow(eng, uow)
            raise
        return _commit_own(eng, self)
