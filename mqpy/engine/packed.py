"""MQPUT and MQGET with the MQMD as packed bytes, for the bindings server's SPI RUNs and
an application's asynchronous puts.

The engine keeps every message with its MQMD packed (``records.encode_message``). A channel
moves messages whose MQMD nobody looks at on the way: a receiving MCA puts each arrival with
the MQMD it came with (MQPMO_SET_ALL_CONTEXT), a sending MCA gets each transmission-queue
message only to pass it on. Decoding that MQMD into an ``MD`` object in the server and
packing it again in the engine (and the reverse for a get) was most of what such a call cost
beyond the queue itself. :func:`put` stores the request's MQMD bytes with the fields the
queue manager resolves (Persistence, Priority, BackoutCount) written in place; :func:`get`
gives back the stored MQMD with its BackoutCount and Expiry written in place: the bytes
``Connection.put`` / ``Connection.get`` would have packed.

Both are the engine's fast paths (``PutCalls._put_fast``, ``GetCalls._get_fast``) given bytes:
the same checks, the same effects on the queue, the unit of work and the statistics. For
anything else they return :data:`GENERAL` having changed nothing, and the caller makes the
call the usual way, which does it all (and says what is wrong).

:func:`put_async` is an application's asynchronous MQPUT in the default context with the
MQMD as it came over the socket: the MsgId and context the queue manager fills in written
into those bytes (``PutCalls._context_md``), the outcome counted for MQSTAT as
``PutStatusCalls.put_asynchronously`` counts it. :func:`put_sync` is its synchronous
MQPUT, answered with the MQMD and MQPMO bytes the general path's reply carries.
"""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.engine import fastpath, mqmd, options
from mqpy.structs.tables import PMO

__all__ = ["GENERAL", "MSGID_AT", "get", "md_size", "put", "put_async", "put_sync"]

#: What :func:`put` and :func:`get` return for a call they leave to the usual path.
GENERAL = fastpath.GENERAL
MSGID_AT = mqmd._MD_MSGID_AT  # CorrelId follows

_MD_BY_LENGTH, _LONG, _MD_STRUC_ID = mqmd._MD_BY_LENGTH, mqmd._VERSION_AT, mqmd._MD_STRUC_ID
_OO_OUTPUT, _OO_SET_ALL = options._OO_OUTPUT, options._OO_SET_ALL
_PMO_SET_ALL = CMQC.MQPMO_SET_ALL_CONTEXT
_PRIORITY_AT, _BACKOUT_AT = mqmd._MD_PRIORITY_AT, mqmd._MD_BACKOUT_AT
_RESPONSE = CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNC_RESPONSE
#: MQPMO's ResolvedQName, then ResolvedQMgrName (48 characters each, blank padded)
_PMO_RESOLVED_AT = PMO._layout_.offsets["ResolvedQName"]
_PMO_RESOLVED_END = PMO._layout_.offsets["ResolvedQMgrName"] + 48
#: an MQPMO version 2's PutMsgRecPtr and ResponseRecPtr: the application's own addresses,
#: which a reply never carries back (the general path packs every pointer as 0)
_PMO_POINTERS_AT = PMO._layout_.offsets["PutMsgRecPtr"]
_PMO_POINTERS_END = PMO._layout_.offsets["ResponseRecPtr"] + 8
_NO_POINTERS = bytes(_PMO_POINTERS_END - _PMO_POINTERS_AT)


def md_size(md: bytes) -> int:
    """The length of the little-endian MQMD (version 1 or 2) ``md`` starts with; 0 if it does
    not start with one."""
    if len(md) < 8 or md[:4] != _MD_STRUC_ID:
        return 0
    version = _LONG.unpack_from(md, 4)[0]
    for size, v in _MD_BY_LENGTH.items():
        if v == version:
            return size
    return 0


def put(conn: Any, hobj: int, md: bytes, pmo: Any, data: bytes) -> object | None:
    """MQPUT of ``data`` with the packed little-endian MQMD ``md`` (exactly one MQMD's
    bytes) and the MQPMO object ``pmo``, under MQPMO_SET_ALL_CONTEXT: None once put (the
    log force, if any, made or deferred as ``Connection.put`` makes it), or GENERAL, nothing
    done, for anything but a plain put to a local queue."""
    if conn.dist_lists and hobj in conn.dist_lists:
        return GENERAL
    eng = conn.engine
    with eng.lock:
        h = conn.handles.get(hobj)
        if (h is None or h.deleted or conn.broken or eng.stopped or not conn.connected
                or not h.options & _OO_OUTPUT or not h.options & _OO_SET_ALL
                or not pmo.Options & _PMO_SET_ALL or type(md) is not bytes):
            return GENERAL  # (a packed MQMD in the default context is put_sync's)
        lsn = conn._put_fast(h, md, pmo, data)
    if lsn is GENERAL:
        return GENERAL
    if lsn is not None:
        conn.force_log(lsn)
    return None


#: what ``put_asynchronously`` reads of an MQPMO: whether the put was in syncpoint
_STATUS_PMO = {False: PMO(), True: PMO(Options=CMQC.MQPMO_SYNCPOINT)}


def put_async(conn: Any, hobj: int, md: bytes, pmo_options: int, data: bytes) -> object:
    """An asynchronous MQPUT of ``data`` with the packed little-endian MQMD ``md`` and an
    MQPMO (without records) whose Options are ``pmo_options``: None once put and counted
    (a failure of its log force counted as the put's), or GENERAL, nothing done, for
    anything but a plain put to a local queue in the default or set-all context."""
    if (conn.dist_lists and hobj in conn.dist_lists) or not fastpath.ENABLED:
        return GENERAL
    eng = conn.engine
    with eng.lock:
        h = conn.handles.get(hobj)
        if (h is None or h.deleted or conn.broken or eng.stopped or not conn.connected
                or not h.options & _OO_OUTPUT or h.mq is None):
            return GENERAL
        lsn = conn._put_fast(h, md, None, data, pmo_options)
    if lsn is GENERAL:
        return GENERAL
    if lsn is None:  # nothing left of it that can fail: put_asynchronously's success
        conn.put_status.successes += 1
        return None

    def force() -> int:  # (the put is made: what is left of it to count)
        if lsn is not None:
            conn.force_log(lsn)
        return 0

    conn.put_asynchronously(_STATUS_PMO[bool(pmo_options & CMQC.MQPMO_SYNCPOINT)],
                            lambda: conn.where_handle(hobj), force)
    return None


#: the MQPMOs a synchronous put's reply carries, by the request's MQPMO and the resolved
#: names (an application's puts carry the same MQPMO again and again); cleared when full
_REPLY_PMOS: dict[tuple[bytes, bytes, bytes], bytes] = {}
_REPLY_PMOS_KEPT = 64


def put_sync(conn: Any, hobj: int, md: bytes, pmo: bytes, data: bytes
             ) -> tuple[bytes, bytes] | object:
    """A synchronous MQPUT of ``data`` with the packed little-endian MQMD ``md`` and MQPMO
    ``pmo`` (without records; its Options asking for no asynchronous response): the MQMD
    and MQPMO bytes ``Connection.put`` leaves in the caller's (the MsgId and context it
    filled in; ResolvedQName and ResolvedQMgrName), once put and its log force made
    (MQMIError when that fails); or GENERAL, nothing done, for anything but a plain put to
    a local queue in the default or set-all context."""
    opts = _LONG.unpack_from(pmo, 8)[0]
    if (conn.dist_lists and hobj in conn.dist_lists) or not fastpath.ENABLED \
            or opts & CMQC.MQPMO_ASYNC_RESPONSE:
        return GENERAL
    eng = conn.engine
    stored: list[bytes] = []
    with eng.lock:
        h = conn.handles.get(hobj)
        if (h is None or h.deleted or conn.broken or eng.stopped or not conn.connected
                or not h.options & _OO_OUTPUT or h.mq is None
                or (not opts & _RESPONSE and h.obj.attributes.get("DEFPRESP") == "ASYNC")):
            return GENERAL
        lsn = conn._put_fast(h, md, None, data, opts, stored)
        if lsn is GENERAL:
            return GENERAL
        name, qmgr = h.resolved or conn._resolved(h)
    put_md = stored[0]  # the caller's MQMD gets its MsgId and context, nothing resolved
    reply_md = b"".join((md[:_PRIORITY_AT + 8], put_md[_PRIORITY_AT + 8:_BACKOUT_AT],
                         md[_BACKOUT_AT:_BACKOUT_AT + 4], put_md[_BACKOUT_AT + 4:]))
    key = (pmo, name, qmgr)
    reply_pmo = _REPLY_PMOS.get(key)
    if reply_pmo is None:
        if len(_REPLY_PMOS) >= _REPLY_PMOS_KEPT:
            _REPLY_PMOS.clear()
        reply_pmo = _REPLY_PMOS[key] = b"".join((
            pmo[:_PMO_RESOLVED_AT], name.ljust(48), qmgr.ljust(48),
            pmo[_PMO_RESOLVED_END:_PMO_POINTERS_AT],
            _NO_POINTERS if len(pmo) >= _PMO_POINTERS_END else b"", pmo[_PMO_POINTERS_END:]))
    if lsn is not None:
        conn.force_log(lsn)
    return reply_md, reply_pmo


def get(conn: Any, hobj: int, gmo: Any, max_length: int | None, md_length: int = 0,
        ids: bytes = b"") -> tuple[bytes, bytes] | object:
    """MQGET, destructive, of the next message in delivery order, or of the one carrying
    the MsgId and/or CorrelId asked for (``ids``: the caller's MQMD's MsgId and CorrelId,
    48 bytes, read as the MQGMO's MatchOptions say; b"": none asked for), with the MQGMO
    object ``gmo`` (its ResolvedQName and ReturnedLength filled in as ``Connection.get``
    fills them): the message's MQMD packed little-endian, as ``Connection.get`` would fill
    the caller's, and its data; or GENERAL, nothing done, for anything but the usual get of
    a whole live message (none there included: the usual path answers 2033 and registers a
    waiter; an id several messages carry: the usual path orders them). ``md_length``:
    GENERAL too unless the message's MQMD is of that length (the caller's MQMD's
    version)."""
    eng = conn.engine
    with eng.lock:
        h = conn.handles.get(hobj)
        if h is None or h.deleted or conn.broken or eng.stopped or not conn.connected:
            return GENERAL
        done = conn._get_fast(h, None, gmo, max_length, True, md_length, ids)
    if done is GENERAL or done is fastpath.NO_MESSAGE:
        return GENERAL
    lsn, got = done  # type: ignore[misc]
    if lsn is not None:
        conn.force_log(lsn)
    return got
