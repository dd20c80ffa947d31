"""MQPUT and MQGET with the MQMD as packed bytes, for the bindings server's SPI RUNs.

The engine keeps every message with its MQMD packed (``records.encode_message``). A channel
moves messages whose MQMD nobody looks at on the way: a receiving MCA puts each arrival with
the MQMD it came with (MQPMO_SET_ALL_CONTEXT), a sending MCA gets each transmission-queue
message only to pass it on. Decoding that MQMD into an ``MD`` object in the server and
packing it again in the engine (and the reverse for a get) was most of what such a call cost
beyond the queue itself. :func:`put` takes the request's MQMD bytes and stores them with the
fields the queue manager resolves (Persistence, Priority, BackoutCount) written in place;
:func:`get` gives back the stored MQMD with its BackoutCount and Expiry written in place:
the bytes ``Connection.put`` / ``Connection.get`` would have packed.

Both serve only the usual case, as ``Connection._put_fast`` and ``_get_fast`` do, with the
same checks and the same effects on the queue, the unit of work and the statistics; for
anything else they return :data:`GENERAL` having changed nothing, and the caller makes the
call the usual way, which does it all (and says what is wrong). Unlike ``_get_fast``,
:func:`get` also takes the first available message behind those already got under syncpoint
(a sending MCA's batch in progress, and with pipelining the batch in flight, hold the head of
the transmission queue), as the general path does from the queue's got-prefix hint.
"""

from __future__ import annotations

import struct
import time
from typing import Any

from mqpy import CMQC
from mqpy.engine import qmgr as Q
from mqpy.engine import records as R
from mqpy.engine.queues import AVAILABLE, GET_PENDING, Entry
from mqpy.structures import MD

__all__ = ["GENERAL", "MSGID_AT", "get", "md_size", "put"]

#: What :func:`put` and :func:`get` return for a call they leave to the usual path.
GENERAL = Q._GENERAL

_OFF = MD._layout_.offsets
_MD_SIZES = {MD._layout_.length(v): v for v in (1, 2)}
# StrucId, Version, Report, MsgType, Expiry (little-endian, as the engine stores them)
_MD_HEAD = struct.Struct("<4s4i")
_PRIORITY_AT = _OFF["Priority"]  # Persistence follows
_PRIORITY_PERSISTENCE = struct.Struct("<2i")
MSGID_AT = _OFF["MsgId"]  # CorrelId follows
_MSGID = slice(MSGID_AT, MSGID_AT + 24)
_CORRELID = slice(_OFF["CorrelId"], _OFF["CorrelId"] + 24)
_BACKOUT_AT = _OFF["BackoutCount"]
_REPLY_TO_Q = slice(_OFF["ReplyToQ"], _OFF["ReplyToQ"] + 48)
_EXPIRY_AT = _OFF["Expiry"]
_LONG = struct.Struct("<i")
_MD_STRUC_ID = CMQC.MQMD_STRUC_ID
assert _PRIORITY_AT + 4 == _OFF["Persistence"] and _EXPIRY_AT == 16
assert _OFF["CorrelId"] == MSGID_AT + 24

# the engine's hot-path constants, bound here once
_OO_OUTPUT, _INPUT_OPTS, _OO_SAVE_ALL_CONTEXT = Q._OO_OUTPUT, Q._INPUT_OPTS, Q._OO_SAVE_ALL_CONTEXT
_GMO_NOT_FAST, _GMO_SYNC_BOTH, _GMO_SYNC_ANY = Q._GMO_NOT_FAST, Q._GMO_SYNC_BOTH, Q._GMO_SYNC_ANY
_GMO_FAIL_IF_QUIESCING, _RO_COD = Q._GMO_FAIL_IF_QUIESCING, Q._RO_COD
_MSG_HEADER, _MSG_HEADER_SIZE = Q._MSG_HEADER, Q._MSG_HEADER_SIZE
_PMO_SYNCPOINT, _PMO_SYNC_BOTH = Q._PMO_SYNCPOINT, Q._PMO_SYNC_BOTH
_PMO_FAIL_IF_QUIESCING, _MT_REQUEST, _BLANK_NAMES = (Q._PMO_FAIL_IF_QUIESCING, Q._MT_REQUEST,
                                                     Q._BLANK_NAMES)
_PERSISTENT, _NOT_PERSISTENT, _PER_AS_Q_DEF = Q._PERSISTENT, Q._NOT_PERSISTENT, Q._PER_AS_Q_DEF
_PRI_AS_Q_DEF, _EI_UNLIMITED, _NONE24 = Q._PRI_AS_Q_DEF, Q._EI_UNLIMITED, Q._NONE24

_SET_ALL = CMQC.MQPMO_SET_ALL_CONTEXT
#: MQPMO options :func:`put` serves: set-all context, the syncpoint choice, quiescing
_PMO_PACKED = (_SET_ALL | CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT
               | CMQC.MQPMO_FAIL_IF_QUIESCING)
_OO_SET_ALL = CMQC.MQOO_SET_ALL_CONTEXT
_ZERO24 = bytes(24)


def md_size(md: bytes) -> int:
    """The length of the little-endian MQMD (version 1 or 2) ``md`` starts with; 0 if it does
    not start with one."""
    if len(md) < 8:
        return 0
    strucid, version = md[:4], _LONG.unpack_from(md, 4)[0]
    for size, v in _MD_SIZES.items():
        if v == version and strucid == _MD_STRUC_ID:
            return size
    return 0


def put(conn: Any, hobj: int, md: bytes, pmo: Any, data: bytes) -> object | None:
    """MQPUT of ``data`` with the packed little-endian MQMD ``md`` (exactly one MQMD's
    bytes) and the MQPMO object ``pmo``, under MQPMO_SET_ALL_CONTEXT: None once put (the
    log force, if any, made or deferred as ``Connection.put`` makes it), or GENERAL, nothing
    done, for anything but a plain put to a local queue. Nothing is filled in: for a caller
    that reads none of the output (a quiet put)."""
    if conn.dist_lists and hobj in conn.dist_lists:
        return GENERAL
    eng = conn.engine
    with eng.lock:
        h = conn.handles.get(hobj)
        if (h is None or h.deleted or conn.broken or eng.stopped or not conn.connected
                or not h.options & _OO_OUTPUT or not h.options & _OO_SET_ALL):
            return GENERAL
        lsn = _put_locked(conn, eng, h, md, pmo, data)
    if lsn is GENERAL:
        return GENERAL
    if lsn is not None:
        conn._force(lsn)
    return None


def _put_locked(conn: Any, eng: Any, h: Any, md: bytes, pmo: Any, data: bytes
                ) -> int | object | None:
    """As ``Connection._put_fast``, the MQMD's context kept (set-all context) and its bytes
    stored as they came but for the resolved Persistence and Priority and a BackoutCount of
    0. The LSN to force (None if none), or GENERAL."""
    f = h.facts
    if f is None or f.obj_attrs is not h.obj.attributes \
            or f.base_attrs is not h.base.attributes or f.qmgr_attrs is not eng.catalog.qmgr:
        f = conn._facts(h)
    if not f.put:
        return GENERAL
    pd = pmo.__dict__
    opts = pd["Options"]
    if (opts & ~_PMO_PACKED or not opts & _SET_ALL or opts & _PMO_SYNC_BOTH
            == _PMO_SYNC_BOTH or (pd["RecsPresent"] and pd["Version"] >= 2)):
        return GENERAL
    if opts & _PMO_FAIL_IF_QUIESCING and eng.quiescing:
        return GENERAL
    if type(data) is not bytes or type(md) is not bytes:
        return GENERAL
    length = len(data)
    mq = h.mq
    if length > f.maxmsgl or mq.count - mq.getting >= f.maxdepth:
        return GENERAL
    syncpoint = opts & _PMO_SYNCPOINT
    if syncpoint and conn.backed_out:
        return GENERAL
    if _MD_SIZES.get(len(md)) is None:
        return GENERAL
    strucid, version, report, msg_type, expiry = _MD_HEAD.unpack_from(md)
    if strucid != _MD_STRUC_ID or _MD_SIZES[len(md)] != version:
        return GENERAL
    if report or msg_type == _MT_REQUEST or md[_REPLY_TO_Q] not in _BLANK_NAMES:
        return GENERAL
    asked_priority, persistence = _PRIORITY_PERSISTENCE.unpack_from(md, _PRIORITY_AT)
    if persistence == _PER_AS_Q_DEF:
        persistence = f.persistence
    elif persistence != _PERSISTENT and persistence != _NOT_PERSISTENT:
        return GENERAL
    if persistence == _PERSISTENT and f.tempdyn:
        return GENERAL
    priority = asked_priority
    if priority == _PRI_AS_Q_DEF:
        priority = f.priority
    elif not 0 <= priority <= 9:
        return GENERAL
    if expiry <= 0 and expiry != _EI_UNLIMITED:
        return GENERAL
    msgid = md[_MSGID]
    if msgid == _ZERO24:
        return GENERAL  # a new MsgId: the usual path makes it
    correlid = md[_CORRELID]
    if correlid == _NONE24:
        correlid = _NONE24  # (the one object every message without one shares)
    now = time.time()
    # the MQMD as _put_locked packs it: resolved Persistence and Priority, BackoutCount 0
    stored = b"".join((md[:_PRIORITY_AT], _PRIORITY_PERSISTENCE.pack(priority, persistence),
                       md[_PRIORITY_AT + 8:_BACKOUT_AT], bytes(4), md[_BACKOUT_AT + 4:]))
    persistent = persistence == _PERSISTENT
    entry = Entry(eng.data.new_seq(), priority, persistent, msgid, correlid,
                  now + expiry / 10.0 if expiry > 0 else 0.0, length,
                  R.encode_message(now, stored, data), now)
    lsn = None
    if persistent or syncpoint:
        lsn = eng._enqueue(conn, h.base, mq, entry, persistent, bool(syncpoint))
    else:
        mq.add(entry)
        if mq.waiters:
            mq.wake()
    mq.last_put = now
    qs = _count(conn, eng, h, "puts", "put_bytes", 1 if persistent else 0, length)
    qs.depth_seen(mq.count - mq.getting)
    return lsn


def _count(conn: Any, eng: Any, h: Any, calls: str, data: str, p: int, length: int) -> Any:
    """One put or get (``calls``, ``data``: the counters' names) of ``length`` bytes,
    persistent (``p`` 1) or not, counted as the fast paths count it: the queue manager's and
    the connection's MQI and queue statistics. The queue's statistics, returned."""
    c = h.counters
    if c is None or c[0] is not eng.stats.mqi or c[2] is not conn.accounting.mqi \
            or c[4] is not h.base:
        c = conn._counters(h)
    for counters in c[:4]:
        getattr(counters, calls)[p] += 1
        getattr(counters, data)[p] += length
    return c[1]


def get(conn: Any, hobj: int, gmo: Any, max_length: int | None
        ) -> tuple[bytes, bytes] | object:
    """MQGET, destructive, of the next message in delivery order (no MsgId or CorrelId
    asked for) with the MQGMO object ``gmo`` (its ResolvedQName and ReturnedLength filled
    in as ``Connection.get`` fills them): the message's MQMD packed little-endian, as
    ``Connection.get`` would fill the caller's, and its data; or GENERAL, nothing done, for
    anything but the usual get of a whole live message (none there included: the usual
    path answers 2033 and registers a waiter)."""
    eng = conn.engine
    with eng.lock:
        h = conn.handles.get(hobj)
        if h is None or h.deleted or conn.broken or eng.stopped or not conn.connected:
            return GENERAL
        done = _get_locked(conn, eng, h, gmo, max_length)
    if done is GENERAL:
        return GENERAL
    lsn, md, body = done  # type: ignore[misc]
    if lsn is not None:
        conn._force(lsn)
    return md, body


def _get_locked(conn: Any, eng: Any, h: Any, gmo: Any, max_length: int | None
                ) -> tuple[int | None, bytes, bytes] | object:
    """As ``Connection._get_fast`` for a get that selects nothing, and past the messages got
    under syncpoint at the head as ``_get_general`` goes past them."""
    gd = gmo.__dict__
    opts = gd["Options"]
    if opts & _GMO_NOT_FAST or opts & _GMO_SYNC_BOTH == _GMO_SYNC_BOTH:
        return GENERAL
    if not h.options & _INPUT_OPTS or h.options & _OO_SAVE_ALL_CONTEXT:
        return GENERAL
    f = h.facts
    if f is None or f.obj_attrs is not h.obj.attributes \
            or f.base_attrs is not h.base.attributes or f.qmgr_attrs is not eng.catalog.qmgr:
        f = conn._facts(h)
    if not f.get:
        return GENERAL
    if opts & _GMO_FAIL_IF_QUIESCING and eng.quiescing:
        return GENERAL
    mq = h.mq
    if mq.count == mq.getting:
        return GENERAL
    by_priority = f.by_priority
    entry = mq.head(by_priority)
    last_got = None
    if entry is not None and entry.state == GET_PENDING:
        # the head is got already under syncpoint (a sending MCA's batch, or the batch in
        # flight before it): the first message behind what is known to be got, as
        # _get_general finds it
        entry = None
        for e in mq.iter_order(by_priority, mq.after_got(by_priority)):
            if e.state != GET_PENDING:
                entry = e
                break
            last_got = e
    if entry is None or entry.state != AVAILABLE or mq.live.get(entry.seq) is not entry:
        return GENERAL
    now = time.time()
    if 0 < entry.expiry_at <= now:
        return GENERAL
    record = entry.record
    if type(record) is not bytes:
        return GENERAL
    put_time, _backout, md_length, _ = _MSG_HEADER.unpack_from(record)
    start = _MSG_HEADER_SIZE
    body = record[start + md_length:]
    length = len(body)
    if max_length is not None and (max_length < 0 or length > max_length):
        return GENERAL
    md = record[start:start + md_length]
    if _MD_SIZES.get(md_length) != _LONG.unpack_from(md, 4)[0] or md[:4] != _MD_STRUC_ID:
        return GENERAL  # (an MQMD the engine did not pack: _fill_md's general way)
    report = _LONG.unpack_from(md, 8)[0]
    if report & _RO_COD:
        return GENERAL
    # the MQMD as _fill_md leaves it: BackoutCount, and the Expiry left
    expiry = _LONG.unpack_from(md, _EXPIRY_AT)[0]
    if entry.expiry_at > 0:
        expiry = max(1, int(round((entry.expiry_at - now) * 10)))
    md = b"".join((md[:_EXPIRY_AT], _LONG.pack(expiry), md[_EXPIRY_AT + 4:_BACKOUT_AT],
                   _LONG.pack(entry.backout_count), md[_BACKOUT_AT + 4:]))
    if last_got is not None:  # (_get_general learns the same on its way)
        mq.got_prefix = (by_priority, mq.order_key(last_got, by_priority))
    entry.report = report
    eng.data.stats.body_hits += 1
    if entry.persistent or opts & _GMO_SYNC_ANY:
        drops = mq.got_prefix_drops
        lsn = conn._remove_locked(mq, entry, opts, now)
        if entry.state == GET_PENDING and mq.got_prefix_drops == drops:
            mq.got_prefix = (by_priority, mq.order_key(entry, by_priority))
    else:
        lsn = None
        mq.last_get = now
        mq.remove(entry)
        entry.record = None
    p = 1 if entry.persistent else 0
    qs = _count(conn, eng, h, "gets", "get_bytes", p, length)
    qs.time_on_q_total[p] += max(0.0, now - put_time)
    qs.time_on_q_count[p] += 1
    gd["ResolvedQName"] = h.base_name
    gd["ReturnedLength"] = length
    cursor = h.browse_entry
    if cursor is not None and cursor.seq == entry.seq:
        h.browse_entry = None
    return lsn, md, body
