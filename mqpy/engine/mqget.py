"""MQGET of a connection (:class:`GetCalls`): waiting for a message (a thread's wait or an
event loop's waiter), browse cursors, selection by MsgId and CorrelId, the fast path of the
usual get (:meth:`GetCalls._get_fast`) and the general path (:meth:`GetCalls._get_general`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

from mqpy import CMQC
from mqpy.engine import fastpath, groups, instrumentation, msgselection, propdelivery
from mqpy.engine import records as R
from mqpy.engine.datamgr import UowBackedOut
from mqpy.engine.fastpath import GENERAL, NO_MESSAGE
from mqpy.engine.groupcalls import NOT_IN_GROUP, GroupGetCalls, with_flags
from mqpy.engine.handle import Handle
from mqpy.engine.log import LogFull
from mqpy.engine.mqmd import (
    _GMO_STRUC_ID,
    _GMO_VERSIONS,
    _MD_BACKOUT_AT,
    _MD_BY_LENGTH,
    _MD_EXPIRY_AT,
    _MD_STRUC_ID,
    _MD_VERSIONS,
    _MSG_HEADER,
    _MSG_HEADER_SIZE,
    _NO_ID,
    _NONE24,
    _REPORT_AT,
    _VERSION_AT,
    _ZERO_LONG,
    _id24,
    _refuse_header,
    _unpack_md,
)
from mqpy.engine.options import (
    _BROWSE_OPTS,
    _GMO_ACCEPT_TRUNCATED,
    _GMO_FAIL_IF_QUIESCING,
    _GMO_IF_PERSISTENT,
    _GMO_KNOWN,
    _GMO_NOT_FAST,
    _GMO_SYNC_ANY,
    _GMO_SYNC_BOTH,
    _GMO_UNDER_CURSOR,
    _GMO_WAIT,
    _INPUT_OPTS,
    _MO_MATCH_BOTH,
    _MO_MATCH_CORREL_ID,
    _MO_MATCH_MSG_ID,
    _MO_NOT_FAST,
    _MO_UNKNOWN,
    _OO_BROWSE,
    _OO_SAVE_ALL_CONTEXT,
    _RO_COD,
    _WARNING,
    _fail,
)
from mqpy.engine.queues import AVAILABLE, GET_PENDING, PUT_PENDING, Entry, MessageQueue
from mqpy.errors import MQMIError
from mqpy.structs.tables import GMO, MD


def _described(md: MD | None, handed: propdelivery.Delivered | None) -> None:
    """The returned MQMD's Format, Encoding and CodedCharSetId as the properties' delivery
    left the data (``propdelivery``)."""
    if md is not None and handed is not None and handed.md is not None:
        d = md.__dict__
        d["Format"], d["Encoding"], d["CodedCharSetId"] = handed.md


def _packed_md(record: bytes, md_length: int, entry: Entry, now: float) -> bytes:
    """The MQMD stored in ``record`` (``md_length`` bytes after its header) as a get gives
    it back (``GetCalls._fill_md``'s values): ``entry``'s BackoutCount, and its Expiry
    left at ``now``; the stored bytes themselves when they hold those already."""
    md_bytes = record[_MSG_HEADER_SIZE:_MSG_HEADER_SIZE + md_length]
    backout = _MSG_HEADER_SIZE + _MD_BACKOUT_AT
    if entry.expiry_at <= 0 and not entry.backout_count \
            and record[backout:backout + 4] == _ZERO_LONG:
        return md_bytes
    expiry = max(1, int(round((entry.expiry_at - now) * 10))) if entry.expiry_at > 0 \
        else _VERSION_AT.unpack_from(md_bytes, _MD_EXPIRY_AT)[0]
    return b"".join((md_bytes[:_MD_EXPIRY_AT], _VERSION_AT.pack(expiry),
                     md_bytes[_MD_EXPIRY_AT + 4:_MD_BACKOUT_AT],
                     _VERSION_AT.pack(entry.backout_count), md_bytes[_MD_BACKOUT_AT + 4:]))


def _check_headers(md: MD | None, gmo: GMO | None) -> None:
    """MQGET's check of its MQMD and MQGMO: their StrucId and Version."""
    if (md is not None and (md.__dict__["StrucId"] != _MD_STRUC_ID
                            or md.__dict__["Version"] not in _MD_VERSIONS)) \
            or (gmo is not None and (gmo.__dict__["StrucId"] != _GMO_STRUC_ID
                                     or gmo.__dict__["Version"] not in _GMO_VERSIONS)):
        _refuse_header(md, gmo)


def _cursor_before_first(h: Handle) -> None:
    """The browse cursor of ``h`` logically before the first message, as MQOPEN leaves it:
    where a MQGMO_BROWSE_FIRST that finds no message leaves it (the next BROWSE_NEXT starts
    from the first message, none is under the cursor)."""
    h.browse_key = None
    h.browse_entry = None
    h.browse_logical_key = None
    h.browse_group = None


_GMO_BROWSE_FIRST = CMQC.MQGMO_BROWSE_FIRST
_RC_NO_MSG_AVAILABLE = CMQC.MQRC_NO_MSG_AVAILABLE
_GS_NOT_IN_GROUP = CMQC.MQGS_NOT_IN_GROUP
_SS_NOT_A_SEGMENT = CMQC.MQSS_NOT_A_SEGMENT
_SEG_INHIBITED = CMQC.MQSEG_INHIBITED


class GetCalls(GroupGetCalls):
    """MQGET of a :class:`~mqpy.engine.connection.Connection`."""

    def get(self, hobj: int, md: MD | None, gmo: GMO | None, max_length: int | None,
            waiter: Callable[[], None] | None = None) -> bytes:
        """MQGET. With MQGMO_WAIT and no ``waiter``, blocks this thread up to WaitInterval.
        ``md`` None: the caller wants no MQMD back, so none is filled in; ``gmo`` None: the
        default MQGMO, none to fill in either.

        With a ``waiter``, never blocks: when no message is available it registers ``waiter``
        on the queue and raises 2033; the caller waits for the callback and calls again.
        """
        _check_headers(md, gmo)
        if gmo is None:  # the caller passed no MQGMO: the default one, not wanted back
            return self._get_once(hobj, md, None, max_length, waiter)
        opts = gmo.Options
        if not opts & CMQC.MQGMO_WAIT or waiter is not None:
            return self._get_once(hobj, md, gmo, max_length, waiter)
        interval = gmo.WaitInterval
        if interval < 0 and interval != CMQC.MQWI_UNLIMITED:
            raise _fail(CMQC.MQRC_WAIT_INTERVAL_ERROR)
        deadline = None if interval == CMQC.MQWI_UNLIMITED else time.monotonic() + interval / 1000
        while True:
            event = threading.Event()
            try:
                return self._get_once(hobj, md, gmo, max_length, event.set)
            except MQMIError as e:
                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    raise
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and timeout <= 0:
                self.drop_waiter(hobj, event.set)
                raise _fail(CMQC.MQRC_NO_MSG_AVAILABLE)
            event.wait(timeout)
            self.drop_waiter(hobj, event.set)
            if self.engine.quiescing and opts & CMQC.MQGMO_FAIL_IF_QUIESCING:
                raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)

    def get_unread(self, hobj: int, md: MD | None, gmo: GMO | None, max_length: int | None,
                   waiter: Callable[[], None] | None = None,
                   judged: propdelivery.Judged | None = None) -> bytes:
        """MQGET for a caller whose thread must not read a message's properties (an event
        loop serving other connections): as :meth:`get` with a ``waiter`` (it never
        blocks), except that a message whose properties its delivery must read raises
        :class:`propdelivery.Unread`, nothing changed (the LSN of expiries met forced); the
        caller reads them elsewhere (``Unread.judge``, on a worker thread) and calls again
        with what was read, ``judged``."""
        _check_headers(md, gmo)
        return self._get_once(hobj, md, gmo, max_length, waiter, judged, False)

    def drop_waiter(self, hobj: int, cb: Callable[[], None]) -> None:
        """Forget ``cb``, a waiter on ``hobj``'s queue (a get that stopped waiting: answered,
        timed out, or woken by its caller)."""
        with self.engine.lock:
            h = self.handles.get(hobj)
            if h is not None:
                h.mq.remove_waiter(cb)

    def _get_once(self, hobj: int, md: MD | None, gmo: GMO | None, max_length: int | None,
                  waiter: Callable[[], None] | None,
                  judged: propdelivery.Judged | None = None, inline: bool = True) -> bytes:
        if fastpath.ENABLED:
            eng = self.engine
            with eng.lock:
                h = self.handles.get(hobj)
                if h is None or h.deleted or self.broken or eng.stopped or not self.connected:
                    done = GENERAL
                else:
                    done = self._get_fast(h, md, gmo, max_length)
                    if done is NO_MESSAGE:  # as _get_general ends when it finds none
                        if waiter is not None and gmo is not None \
                                and gmo.__dict__["Options"] & _GMO_WAIT:
                            h.mq.add_waiter(waiter)
                            h.waiter = waiter
                        eng.stats.mqi.get_fails += 1
                        self.accounting.mqi.get_fails += 1
                        raise _fail(CMQC.MQRC_NO_MSG_AVAILABLE)
            if done is not GENERAL:
                lsn, out = done  # type: ignore[misc]
                if lsn is not None:
                    self.force_log(lsn)
                return out
        return self._get_general(hobj, md, GMO() if gmo is None else gmo, max_length, waiter,
                                 judged, inline)

    def _get_general(self, hobj: int, md: MD | None, gmo: GMO, max_length: int | None,
                     waiter: Callable[[], None] | None,
                     judged: propdelivery.Judged | None = None, inline: bool = True) -> bytes:
        """MQGET with every check made: the options, the message selected (under the cursor,
        by MsgId/CorrelId, or the next in delivery order), truncation, the MQMD returned,
        the removal or the browse cursor, the statistics and a COD report. A message whose
        properties must be read has them read with the engine's lock let go
        (``propdelivery``), and the call made again with what was read; not ``inline``:
        :meth:`get_unread`'s caller reads them."""
        while True:
            try:
                return self._get_judged(hobj, md, gmo, max_length, waiter, judged)
            except propdelivery.Unread as unread:
                if unread.lsn is not None:
                    self.force_log(unread.lsn)
                if not inline:
                    raise
                judged = unread.judge() or judged  # (a selector's reading judges nothing)

    def _get_judged(self, hobj: int, md: MD | None, gmo: GMO, max_length: int | None,
                    waiter: Callable[[], None] | None,
                    judged: propdelivery.Judged | None) -> bytes:
        """:meth:`_get_general`'s pass under the engine's lock, with ``judged`` the
        delivery of a message's properties read before it (or None)."""
        eng = self.engine
        with eng.lock:
            self.check_usable()
            opts = gmo.Options
            browse = opts & _BROWSE_OPTS
            h = self._handle(hobj, CMQC.MQRC_NOT_OPEN_FOR_BROWSE if browse
                             else CMQC.MQRC_NOT_OPEN_FOR_INPUT)
            self._check_get(h, gmo, opts, browse, max_length)
            propdelivery.check_options(gmo)
            groups.get_check(h, opts, bool(browse))
            mq = h.mq
            if h.selector is not None:  # (what it may read under the lock: msgselection)
                h.selector.begin(mq, eng.lock)
            by_priority = h.base.attributes.get("MSGDLVSQ", "PRIORITY") == "PRIORITY"
            now = time.time()
            parts = None  # the segments MQGMO_COMPLETE_MSG reassembles
            try:
                if opts & _GMO_UNDER_CURSOR:
                    entry, lsn, clean = self._under_cursor(h), None, False
                elif groups.wants_groups(opts, gmo.MatchOptions if gmo.Version >= 2 else 0):
                    entry, lsn, clean, parts = self._select_in_groups(h, md, gmo, by_priority,
                                                                      now, waiter)
                else:
                    entry, lsn, clean = self._select_message(h, md, gmo, by_priority, now,
                                                             waiter)
            except MQMIError as e:
                if opts & _GMO_BROWSE_FIRST and e.reason == _RC_NO_MSG_AVAILABLE:
                    _cursor_before_first(h)
                raise
            record = eng.data.read_record(mq, entry)
            put_time, _backout, md_bytes, body = R.decode_message(record)
            fields = groups.stored_fields(md_bytes) if R.record_flags(record) & R.FLAG_GROUP \
                else NOT_IN_GROUP
            rest = 0  # the length of the segments after the first one reassembled
            if parts is not None:
                own_uow = self._reassembly_uow(parts, opts, browse)
                rest = sum(p.length for p in parts[1:])
                fields = groups.reassembled_fields(fields)
                md_bytes = with_flags(md_bytes, fields[3])
            handed = None
            if R.record_flags(record) & R.FLAG_PROPERTIES:  # (at the first segment's front)
                propctl = propdelivery.propctl_of(h.obj.attributes, h.base.attributes)
                handed = propdelivery.as_stored(gmo, propctl, body)
                if handed is None:  # read with the lock let go, then this pass again
                    handed = propdelivery.judged_for(judged, mq, entry.seq, gmo, propctl)
                    if handed is None:
                        raise propdelivery.Unread(mq, entry.seq, gmo, propctl, md_bytes,
                                                  body, lsn)
                    propdelivery.hand_over(gmo, handed)
                body = handed.body
            n = len(body) + rest
            truncated = max_length is not None and n > max_length
            if rest:  # the data returned, and no more, read (a logical message may be huge)
                body = _reassembled(eng.data.read_record, mq, body, parts[1:],  # type: ignore[index]
                                    max_length if truncated else None)
            if truncated and not opts & _GMO_ACCEPT_TRUNCATED:  # (a browse's cursor stays)
                if md is not None:
                    self._fill_md(md, md_bytes, entry, put_time, now)
                    _described(md, handed)
                gmo.ReturnedLength = max_length  # (the bytes in the buffer, as IBM)
                err = _fail(CMQC.MQRC_TRUNCATED_MSG_FAILED, _WARNING)
                # as much as fits is in the buffer all the same (IBM's MQGET, Buffer)
                err.message = body[:max_length] if handed is None or not handed.prefix \
                    else handed.prefix + body[:max_length]  # type: ignore[attr-defined]
                err.original_length = n  # type: ignore[attr-defined]
                raise err
            md, report = self._returned_md(h, md, md_bytes, entry, put_time, now)
            _described(md, handed)
            if entry.seq not in mq.live:
                mq.touch(entry)
            if not browse:  # first: a log too full to record it (2102) leaves it uncounted
                if parts is not None and len(parts) > 1:
                    lsn = self._remove_parts(mq, parts, opts, now, own_uow) or lsn
                else:
                    lsn = self._remove_locked(mq, entry, opts, now,
                                              by_priority if clean else None) or lsn
            self._count_get(h, entry, browse, n, put_time, now)
            gd = gmo.__dict__
            gd["ResolvedQName"] = h.base_name
            msg_flags = fields[3]
            gd["GroupStatus"] = groups.group_status(msg_flags)
            gd["SegmentStatus"] = groups.segment_status(msg_flags)
            gd["Segmentation"] = groups.segmentation(msg_flags)
            syncpoint = bool(opts & CMQC.MQGMO_SYNCPOINT)
            groups.get_done(h, opts, fields, entry.length, syncpoint, bool(browse),
                            self.uow if syncpoint else None)
            # the data returned in the buffer (IBM's ReturnedLength), not the message's
            gd["ReturnedLength"] = max_length if truncated else n
            if h.options & CMQC.MQOO_SAVE_ALL_CONTEXT:
                h.saved_context = md.copy()  # type: ignore[union-attr]
            if browse:
                h.browse_key = mq.order_key(entry, by_priority)
                h.browse_entry = entry
                if fields[1] == 1 and fields[2] == 0:  # (where a logical browse's group is)
                    h.browse_logical_key = h.browse_key
            else:
                self._after_removal(h, entry, report, md, body)
            out = body[:max_length] if truncated else body
            if handed is not None and handed.prefix:
                out = handed.prefix + out
        if lsn is not None:
            self.force_log(lsn)
        if truncated:
            err = _fail(CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, _WARNING)
            err.message = out  # type: ignore[attr-defined]
            err.original_length = n  # type: ignore[attr-defined]
            raise err
        return out

    def _check_get(self, h: Handle, gmo: GMO, opts: int, browse: int,
                   max_length: int | None) -> None:
        """The checks of an MQGET's options against the handle, the queue and the queue
        manager, in IBM's order of reasons."""
        if browse:
            if browse & (browse - 1):
                raise _fail(CMQC.MQRC_OPTIONS_ERROR)
            if not h.options & _OO_BROWSE:
                raise _fail(CMQC.MQRC_NOT_OPEN_FOR_BROWSE)
        elif not h.options & _INPUT_OPTS:
            raise _fail(CMQC.MQRC_NOT_OPEN_FOR_INPUT)
        if opts & _GMO_SYNC_BOTH == _GMO_SYNC_BOTH or opts & ~_GMO_KNOWN \
                or opts & CMQC.MQGMO_SET_SIGNAL \
                or (opts & _GMO_IF_PERSISTENT and opts & _GMO_SYNC_BOTH):
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)  # (SET_SIGNAL: z/OS only)
        if gmo.Version >= 2 and gmo.MatchOptions & _MO_UNKNOWN:
            raise _fail(CMQC.MQRC_MATCH_OPTIONS_ERROR)
        if opts & _GMO_FAIL_IF_QUIESCING and self.engine.quiescing:
            raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
        if not browse and (h.obj.attributes.get("GET") == "DISABLED"
                           or h.base.attributes.get("GET") == "DISABLED"):
            instrumentation.get_inhibited(self, h.obj.name)
            raise _fail(CMQC.MQRC_GET_INHIBITED)
        if max_length is not None and max_length < 0:
            raise _fail(CMQC.MQRC_BUFFER_LENGTH_ERROR)

    def _under_cursor(self, h: Handle) -> Entry:
        """MQGMO_(BROWSE_)MSG_UNDER_CURSOR: the message the browse cursor is on, if it is
        still there for this unit of work (a cold one is a fresh Entry each time it is read)."""
        cursor = h.browse_entry
        entry = None if cursor is None else h.mq.find(cursor.seq, cursor.priority,
                                                      cursor.persistent)
        if entry is None or not entry.visible_to(self.uow):
            raise _fail(CMQC.MQRC_NO_MSG_UNDER_CURSOR)
        return entry

    def _select_message(self, h: Handle, md: MD | None, gmo: GMO, by_priority: bool,
                        now: float, waiter: Callable[[], None] | None
                        ) -> tuple[Entry, int | None, bool]:
        """The message an MQGET has: by MsgId/CorrelId (the match options), the next after
        the browse cursor (BROWSE_NEXT), or the first in delivery order; expired messages
        met on the way are removed. Returns it, the LSN of those removals (or None), and
        whether it is the usual get from the head with nothing but messages got under
        syncpoint before it (it then learns how far those go: ``MessageQueue.got_prefix``).
        None there: 2033, ``waiter`` registered with MQGMO_WAIT."""
        mq = h.mq
        opts = gmo.Options
        if md is None or md.MsgId in _NO_ID and md.CorrelId in _NO_ID:
            msgid = correlid = None  # no selection whatever the match options say
        else:
            msgid, correlid = self._selection(md, gmo)
        after = h.browse_key if opts & CMQC.MQGMO_BROWSE_NEXT else None
        # the usual get, from the head: it skips what is got under syncpoint already
        # (mq.got_prefix), and learns how far that goes; ``clean`` while every message
        # skipped is such a one
        clean = msgid is None and correlid is None and after is None \
            and not opts & _BROWSE_OPTS
        entry = None
        if msgid is not None or correlid is not None:
            found = mq.candidates(msgid, correlid, by_priority, after)
        else:
            if after is None and h.selector is None:  # the usual get: the head of the queue
                e = mq.head(by_priority)
                if e is not None and e.state == AVAILABLE and not 0 < e.expiry_at <= now:
                    entry = e
            found = () if entry is not None else mq.iter_order(
                by_priority, mq.after_got(by_priority) if clean else after)
        lsn = None
        if entry is None:
            entry, clean, expired = self._first_visible(mq, found, by_priority, now, clean,
                                                        h.selector)
            if entry is None and h.selector is not None and h.selector.deferred:
                raise h.selector.unselected()  # (nothing changed: read them unlocked)
            for e in expired:
                if e.state == AVAILABLE:
                    lsn = self._expire(mq, e) or lsn
        if entry is None:
            self._none_found(h, waiter, opts, lsn)
        return entry, lsn, clean

    def _none_found(self, h: Handle, waiter: Callable[[], None] | None, opts: int,
                    lsn: int | None) -> NoReturn:
        """No message to give: the waiter waits (MQGMO_WAIT), the expiries found are forced,
        and the get fails MQRC_NO_MSG_AVAILABLE."""
        if waiter is not None and opts & CMQC.MQGMO_WAIT:
            h.mq.add_waiter(waiter)
            h.waiter = waiter
        if lsn is not None:
            self.force_log(lsn)
        self.engine.stats.mqi.get_fails += 1
        self.accounting.mqi.get_fails += 1
        raise _fail(CMQC.MQRC_NO_MSG_AVAILABLE)

    def _first_visible(self, mq: MessageQueue, found: Iterable[Entry], by_priority: bool,
                       now: float, clean: bool, selector: Any = None
                       ) -> tuple[Entry | None, bool, list[Entry]]:
        """The first of ``found`` this unit of work may get (:meth:`Entry.visible_to`), that
        has not expired and that the handle's ``selector`` (if any) selects; whether
        ``clean`` stays true (every message passed was got under syncpoint: how far they go
        is learnt), and the expired messages passed."""
        uow = self.uow
        expired = []
        last_got: Entry | None = None
        entry = None
        for e in found:
            state = e.state
            if state != AVAILABLE and (state != PUT_PENDING or e.owner is not uow
                                       or uow is None):
                if state == GET_PENDING:
                    last_got = e
                else:
                    clean = False
                continue  # not visible to this unit of work (Entry.visible_to)
            if 0 < e.expiry_at <= now:
                expired.append(e)
                clean = False
                continue
            if selector is not None and not msgselection.selects(
                    selector, self.engine.data.read_record(mq, e), e):
                clean = False
                continue
            entry = e
            break
        if clean and last_got is not None:
            mq.got_prefix = (by_priority, mq.order_key(last_got, by_priority))
        return entry, clean, expired

    def _returned_md(self, h: Handle, md: MD | None, md_bytes: bytes, entry: Entry,
                     put_time: float, now: float) -> tuple[MD | None, int]:
        """Fill in the caller's MQMD; without one (pymqi's get without one), an MQMD made
        only if the context is to be saved or a COD report sent. Returns it and the
        message's Report options (remembered on the entry)."""
        if md is not None:
            self._fill_md(md, md_bytes, entry, put_time, now)
            report = entry.report = md.__dict__["Report"]
        else:
            report = entry.report = _REPORT_AT.unpack_from(md_bytes, 8)[0]
            if h.options & CMQC.MQOO_SAVE_ALL_CONTEXT or report & _RO_COD:
                md = MD()  # the context to save, the report's original
                self._fill_md(md, md_bytes, entry, put_time, now)
        return md, report

    def _count_get(self, h: Handle, entry: Entry, browse: int, n: int, put_time: float,
                   now: float) -> None:
        """A get or browse of ``n`` bytes in the statistics and in this connection's
        accounting, for the queue manager and for the queue."""
        eng = self.engine
        p = 1 if entry.persistent else 0
        qname = h.base.name
        qs = eng.stats.queue(qname)
        acc = self.accounting
        if browse:
            for counters in (eng.stats.mqi, qs, acc.mqi, acc.queue(qname)):
                counters.browses[p] += 1
                counters.browse_bytes[p] += n
        else:
            for counters in (eng.stats.mqi, qs, acc.mqi, acc.queue(qname)):
                counters.gets[p] += 1
                counters.get_bytes[p] += n
            qs.performance.dequeued += 1  # (MsgDeqCount since the last reset)
            if eng.perfm_events:
                instrumentation.after_get(eng, h.base, h.mq)
            qs.time_on_q_total[p] += max(0.0, now - put_time)
            qs.time_on_q_count[p] += 1

    def _after_removal(self, h: Handle, entry: Entry, report: int, md: MD | None,
                       body: bytes) -> None:
        """After a destructive get: the COD report of a message got outside syncpoint (one
        got under syncpoint sends it at commit; none for a transmission queue's), and the
        browse cursor off the message."""
        if entry.state != GET_PENDING and report & _RO_COD \
                and h.base.attributes.get("USAGE") != "XMITQ":
            self.engine.report("COD", md.copy(), body)  # type: ignore[union-attr]
        if h.browse_entry is not None and h.browse_entry.seq == entry.seq:
            h.browse_entry = None

    def _get_fast(self, h: Handle, md: MD | None, gmo: GMO | None, max_length: int | None,
                  packed: bool = False, md_length_wanted: int = 0, ids: bytes = b""
                  ) -> tuple[int | None, object] | object:
        """MQGET's usual cases, as :meth:`_get_once` does them: a destructive get of the
        first message in delivery order (past those got under syncpoint at the head, as
        :meth:`_get_general` goes past them: a batch in progress), or of the one message
        carrying the MsgId and/or CorrelId asked for (the live indexes alone: no cold
        message, no id that several carry), without browse or cursor; a live message, available and unexpired, that fits the
        buffer and asks for no COD report, on a handle that saves no context. Returns (LSN
        to force or None, the message), NO_MESSAGE when the queue holds no message a get
        could have (none, or all got under syncpoint: the caller answers 2033), or GENERAL,
        having changed nothing, for anything else: the general path then does it all.

        ``packed`` (``engine.packed``; ``md`` None): the message comes back as (its MQMD
        packed little-endian, as :meth:`_fill_md` would fill one, its data);
        ``md_length_wanted``: GENERAL unless the stored MQMD is of that length; ``ids``
        (``md`` None): the request's MsgId and CorrelId, 48 bytes, selecting as MatchOptions
        say (b"": none)."""
        # the options, the queue: one guard sends whatever the general path checks to it
        if gmo is None:
            opts = 0
            match = _MO_MATCH_BOTH
        else:
            gd = gmo.__dict__
            opts = gd["Options"]
            match = gd["MatchOptions"] if gd["Version"] >= 2 else _MO_MATCH_BOTH
        eng = self.engine
        f = self._fast_facts(h, opts, match)
        if f is None:
            return GENERAL
        mq = h.mq
        if mq.count == mq.getting:
            # nothing but messages got under syncpoint (a sending MCA's batch has them all),
            # or nothing at all: no get can have any, whatever it selects (2005 comes first)
            return GENERAL if max_length is not None and max_length < 0 else NO_MESSAGE
        # message selection: by MsgId, by CorrelId, by both, or none (the head of the queue)
        msgid = correlid = None
        if md is not None:
            d = md.__dict__
            if d["MsgId"] not in _NO_ID and match & _MO_MATCH_MSG_ID:
                # (one of zeros, shorter than 24 bytes, is found in no index: the general
                # path takes it for no selection)
                msgid = _id24(d["MsgId"])
                if msgid == _NONE24:
                    return GENERAL
            if d["CorrelId"] not in _NO_ID and match & _MO_MATCH_CORREL_ID:
                correlid = _id24(d["CorrelId"])
                if correlid == _NONE24:
                    return GENERAL
        elif ids:  # a packed request's MsgId and CorrelId (engine.packed.get)
            if match & _MO_MATCH_MSG_ID and ids[:24] != _NONE24:
                msgid = ids[:24]
            if match & _MO_MATCH_CORREL_ID and ids[24:] != _NONE24:
                correlid = ids[24:]
        by_priority = f.by_priority
        if msgid is None and correlid is None:
            # the usual get: the head of the queue, or the first past those got
            entry = mq.head(by_priority)
            if entry is None or entry.state != AVAILABLE:
                entry = mq.first_past_got(entry, by_priority)  # (available, or None)
            if entry is None or entry.seq not in mq.live:
                return GENERAL
        else:  # the one live message with this MsgId (or CorrelId), none cold
            if msgid is not None:
                entry = mq.live_msgid.get(msgid)
                cold = mq.by_msgid._used
            else:
                entry = mq.live_correlid.get(correlid)
                cold = mq.by_correlid._used
            if entry is None and not cold:  # none carries it: the general path finds none
                return GENERAL if max_length is not None and max_length < 0 else NO_MESSAGE
            if type(entry) is not Entry or cold or entry.state != AVAILABLE \
                    or (msgid is not None and correlid is not None
                        and entry.correlid != correlid):
                return GENERAL  # (several: their order is the general path's)
        now = time.time()
        record = entry.record
        if 0 < entry.expiry_at <= now or type(record) is not bytes:
            return GENERAL  # (a record None: on a pageset only)
        put_time, _backout, md_length, flags = _MSG_HEADER.unpack_from(record)  # R.decode_message
        body = record[_MSG_HEADER_SIZE + md_length:]
        length = len(body)
        # truncation, a COD report, properties (R.FLAG_PROPERTIES), an MQMD the engine did
        # not pack: _get_general's
        report = _REPORT_AT.unpack_from(record, _MSG_HEADER_SIZE + 8)[0]
        if (max_length is not None and (max_length < 0 or length > max_length)) \
                or report & _RO_COD or flags or (packed and (
                    _MD_BY_LENGTH.get(md_length) != _VERSION_AT.unpack_from(
                        record, _MSG_HEADER_SIZE + 4)[0]
                    or record[_MSG_HEADER_SIZE:_MSG_HEADER_SIZE + 4] != _MD_STRUC_ID
                    or (md_length_wanted and md_length != md_length_wanted))):
            return GENERAL
        if packed:  # the stored MQMD as _fill_md leaves it: its BackoutCount, Expiry left
            out = (_packed_md(record, md_length, entry, now), body)
        else:
            out = body
            if md is not None:
                self._fill_md(md, record[_MSG_HEADER_SIZE:_MSG_HEADER_SIZE + md_length],
                              entry, put_time, now)
        # from here on as _get_once
        entry.report = report
        eng.data.stats.body_hits += 1  # (DataManager.read_record, from memory)
        if entry.persistent or opts & _GMO_SYNC_ANY:
            lsn = self._remove_locked(mq, entry, opts, now, None if msgid or correlid
                                      else by_priority)
        else:  # (_remove_locked's last case)
            lsn = None
            mq.last_get = now
            mq.remove(entry)
            entry.record = None
        self._count_gets(h, 1 if entry.persistent else 0, 1, length,
                         max(0.0, now - put_time))
        if gmo is not None:
            gd = gmo.__dict__
            gd["ResolvedQName"] = f.base_name
            gd["ReturnedLength"] = length
            gd["GroupStatus"] = _GS_NOT_IN_GROUP  # (one with MsgFlags: the general path's)
            gd["SegmentStatus"] = _SS_NOT_A_SEGMENT
            gd["Segmentation"] = _SEG_INHIBITED
        cursor = h.browse_entry
        if cursor is not None and cursor.seq == entry.seq:
            h.browse_entry = None
        return lsn, out

    def _fast_facts(self, h: Handle, opts: int, match: int) -> Any:
        """The handle's facts when :meth:`_get_fast` may serve a get with options ``opts``
        and MatchOptions ``match`` on it (None: the general path's)."""
        eng = self.engine
        f = h.facts
        if f is None or f.obj_attrs is not h.obj.attributes \
                or f.base_attrs is not h.base.attributes or f.qmgr_attrs is not eng.catalog.qmgr:
            f = self._facts(h)
        if opts & _GMO_NOT_FAST or opts & _GMO_SYNC_BOTH == _GMO_SYNC_BOTH \
                or match & _MO_NOT_FAST or (opts & _GMO_IF_PERSISTENT and opts & _GMO_SYNC_BOTH) \
                or not h.options & _INPUT_OPTS or h.options & _OO_SAVE_ALL_CONTEXT \
                or not f.get or (opts & _GMO_FAIL_IF_QUIESCING and eng.quiescing) \
                or h.selector is not None:
            return None
        return f

    def _count_gets(self, h: Handle, p: int, count: int, length: int,
                    time_on_q: float) -> None:
        """``count`` gets on ``h`` of ``length`` bytes in all, persistent (``p`` 1) or not,
        that spent ``time_on_q`` seconds in all on the queue: the statistics and the
        connection's accounting."""
        c = h.counters
        if c is None or c.qmgr_mqi is not self.engine.stats.mqi \
                or c.conn_mqi is not self.accounting.mqi or c.base is not h.base:
            c = self._counters(h)
        qs = c.qmgr_queue
        c.qmgr_mqi.gets[p] += count
        c.qmgr_mqi.get_bytes[p] += length
        qs.gets[p] += count
        qs.get_bytes[p] += length
        qs.performance.dequeued += count  # (MsgDeqCount since the last reset)
        if self.engine.perfm_events:
            instrumentation.after_get(self.engine, h.base, h.mq)
        acc = c.conn_queue
        c.conn_mqi.gets[p] += count
        c.conn_mqi.get_bytes[p] += length
        acc.gets[p] += count
        acc.get_bytes[p] += length
        qs.time_on_q_total[p] += time_on_q
        qs.time_on_q_count[p] += count

    def _take_ahead(self, h: Handle, entry: Entry, max_length: int, now: float,
                    tally: list[Any]) -> tuple[bytes, bytes] | None:
        """Read ahead's take of ``entry``, the available non-persistent message at the head
        of ``h``'s queue (lock held, the handle's checks of :meth:`_fast_facts` made), as
        :meth:`_get_fast` takes it outside syncpoint with ``packed``: (its MQMD packed as
        ``_fill_md`` would fill one, its data), removed from the queue; its counts added to
        ``tally`` (gets, bytes, time on queue: :meth:`_count_gets`'s, once for the batch).
        None, nothing done, for anything else (the caller's usual get judges it)."""
        record = entry.record
        if (0 < entry.expiry_at <= now or type(record) is not bytes
                or entry.seq not in h.mq.live):
            return None
        put_time, _backout, md_length, flags = _MSG_HEADER.unpack_from(record)
        end = _MSG_HEADER_SIZE + md_length
        length = len(record) - end
        report = _REPORT_AT.unpack_from(record, _MSG_HEADER_SIZE + 8)[0]
        if length > max_length or flags or report & _RO_COD or _MD_BY_LENGTH.get(md_length) != _VERSION_AT.unpack_from(
                    record, _MSG_HEADER_SIZE + 4)[0] \
                or record[_MSG_HEADER_SIZE:_MSG_HEADER_SIZE + 4] != _MD_STRUC_ID:
            return None
        md_bytes = record[_MSG_HEADER_SIZE:end]
        backout = _MSG_HEADER_SIZE + _MD_BACKOUT_AT
        if entry.expiry_at > 0 or entry.backout_count \
                or record[backout:backout + 4] != _ZERO_LONG:  # (_packed_md's, written out)
            md_bytes = _packed_md(record, md_length, entry, now)
        entry.report = report
        mq = h.mq
        mq.last_get = now
        mq.remove(entry)
        entry.record = None
        tally[0] += 1
        tally[1] += length
        tally[2] += max(0.0, now - put_time)
        cursor = h.browse_entry
        if cursor is not None and cursor.seq == entry.seq:
            h.browse_entry = None
        return md_bytes, record[end:]

    @staticmethod
    def _selection(md: MD, gmo: GMO) -> tuple[bytes | None, bytes | None]:
        match = (CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID) if gmo.Version < 2 \
            else gmo.MatchOptions
        msgid, correlid = _id24(md.MsgId), _id24(md.CorrelId)
        msgid = msgid if match & CMQC.MQMO_MATCH_MSG_ID and msgid != _NONE24 else None
        correlid = correlid if match & CMQC.MQMO_MATCH_CORREL_ID and correlid != _NONE24 \
            else None
        return msgid, correlid

    @staticmethod
    def _fill_md(md: MD, md_bytes: bytes, entry: Entry, put_time: float, now: float) -> None:
        _unpack_md(md, md_bytes)
        d = md.__dict__
        d["BackoutCount"] = entry.backout_count
        if entry.expiry_at > 0:
            d["Expiry"] = max(1, int(round((entry.expiry_at - now) * 10)))

    def _remove_locked(self, mq: MessageQueue, entry: Entry, opts: int,
                       now: float | None = None, head_order: bool | None = None
                       ) -> int | None:
        """A destructive get: under syncpoint the message is locked, else it is gone.
        ``head_order``: the delivery order (by priority or not) of a get that took the first
        message past those got under syncpoint; once this one is got under syncpoint too,
        how far they go is learnt (``MessageQueue.got_prefix``)."""
        eng = self.engine
        mq.last_get = time.time() if now is None else now
        try:
            # got back in the unit of work that put it: both vanish at commit, and the GET
            # is logged so that redo of the commit removes what it re-inserts
            if entry.state == PUT_PENDING or opts & CMQC.MQGMO_SYNCPOINT or (
                    opts & CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT and entry.persistent):
                if entry.state != PUT_PENDING and self.backed_out:
                    raise _fail(CMQC.MQRC_BACKED_OUT)
                drops = mq.got_prefix_drops
                uow = self._uow()
                if entry.persistent:
                    eng.data.log_get(uow, mq, entry)
                mq.set_state(entry, GET_PENDING, uow)
                uow.gets.append((mq, entry))
                # (its log record may have backed another unit of work out for log space,
                # making messages before this one available again: then no hint)
                if head_order is not None and mq.got_prefix_drops == drops:
                    mq.got_prefix = (head_order, ((9 - entry.priority) if head_order else 0,
                                                  entry.seq))
                return None
            if entry.persistent:  # logged first: a full log leaves the message where it was
                lsn = eng.data.log_get1(mq, entry)
                mq.remove(entry)
                return lsn
            mq.remove(entry)
            entry.record = None
            return None
        except UowBackedOut:
            raise _fail(CMQC.MQRC_BACKED_OUT) from None
        except LogFull:
            raise _fail(CMQC.MQRC_RESOURCE_PROBLEM) from None

    def _expire(self, mq: MessageQueue, entry: Entry) -> int | None:
        return self.engine._expire_entry(mq, entry) or None


def _reassembled(read: Callable[[Any, Entry], bytes], mq: Any, first: bytes,
                 parts: list[Entry], limit: int | None) -> bytes:
    """The data of a logical message MQGMO_COMPLETE_MSG reassembles: ``first`` (its first
    segment's), then each of ``parts``' read, up to ``limit`` bytes when the getter takes no
    more (a message of thousands of segments is not read whole into memory to return a
    buffer's worth, nor to say it does not fit one)."""
    pieces = [first]
    have = len(first)
    for p in parts:
        if limit is not None and have >= limit:
            break
        piece = R.decode_message(read(mq, p))[3]
        pieces.append(piece)
        have += len(piece)
    return b"".join(pieces)
