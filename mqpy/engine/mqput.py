"""MQPUT and MQPUT1 of a connection (:class:`PutCalls`): the fast path of the usual put
(:meth:`PutCalls._put_fast`), the general path that checks and does everything
(:meth:`PutCalls.put_on_handle`), and the message context the put fills in."""

from __future__ import annotations

import time

from mqpy import CMQC
from mqpy.engine import (
    distlist,
    fastpath,
    groups,
    instrumentation,
    propdelivery,
    putcheck,
    putstatus,
    resolution,
)
from mqpy.engine import records as R
from mqpy.engine.cluster import ClusterRoute
from mqpy.engine.fastpath import GENERAL
from mqpy.engine.groupcalls import GroupPutCalls
from mqpy.engine.handle import Handle
from mqpy.engine.mqmd import (
    _BLANK_NAMES,
    _HEADER_FORMATS,
    _MD_BACKOUT_AT,
    _MD_BY_LENGTH,
    _MD_CCSID,
    _MD_CORRELID,
    _MD_DATE_AT,
    _MD_FORMAT,
    _MD_HEAD,
    _MD_MSGID,
    _MD_MSGID_AT,
    _MD_PRIORITY_AT,
    _MD_PRIORITY_PERSISTENCE,
    _MD_REPLY_TO_Q,
    _MD_STRUC_ID,
    _MD_VERSIONS,
    _NO_ID,
    _NONE24,
    _PMO_STRUC_ID,
    _PMO_VERSIONS,
    _VERSION_AT,
    _ZERO_LONG,
    _check_header,
    _id24,
    _pack_md,
    _put_timestamp,
    _refuse_header,
    _transmission_message,
    _trusted,
)
from mqpy.engine.options import (
    _AT_UNIX,
    _CONTEXT_NOT_OPEN,
    _CONTEXT_OPEN,
    _CONTEXT_OPEN_OK,
    _CONTEXT_PMO,
    _EI_UNLIMITED,
    _FB_LAST,
    _IDENTITY,
    _MT_FIRST,
    _MT_LAST,
    _MT_REQUEST,
    _NO_CONTEXT,
    _NOT_PERSISTENT,
    _OO_OUTPUT,
    _OO_SET_ALL,
    _ORIGIN,
    _PER_AS_Q_DEF,
    _PERSISTENT,
    _PMO_FAIL_IF_QUIESCING,
    _PMO_KNOWN,
    _PMO_NEW_CORREL_ID,
    _PMO_NEW_MSG_ID,
    _PMO_NOT_FAST,
    _PMO_SET_ALL,
    _PMO_SYNC_BOTH,
    _PMO_SYNCPOINT,
    _PRI_AS_Q_DEF,
    _REPORTS_NEEDING_REPLY_Q,
    _RO_REJECT,
    _fail,
    _strip,
)
from mqpy.engine.putcheck import _RF_HEADER_2, _RFH2_FORMATS, SEGMENTED_MAX, CheckedRFH2
from mqpy.engine.queues import Entry
from mqpy.errors import MQMIError
from mqpy.pubsub import publication
from mqpy.pubsub.handles import TopicHandle
from mqpy.pubsub.pubprops import Publication
from mqpy.structs.tables import MD, OD, PMO

_CCSI_Q_MGR = CMQC.MQCCSI_Q_MGR
#: Where the identity context starts in a packed MQMD, and in the part of a connection's
#: template that follows MsgId (:meth:`PutCalls._md_template`)
_MD_USER_AT = MD._layout_.offsets["UserIdentifier"]
_USER_IN_TEMPLATE = _MD_USER_AT - _MD_MSGID_AT - 24
_PMO_RESPONSE = CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNC_RESPONSE
#: a packed MQMD version 2's MsgFlags (a message in a group: the general path's)
_MD_MSG_FLAGS = slice(MD._layout_.offsets["MsgFlags"], MD._layout_.offsets["MsgFlags"] + 4)


def _qmgr_ccsid(qmgr_attrs: dict) -> int:
    """The queue manager's CCSID, which MQPUT stores where the MQMD says MQCCSI_Q_MGR."""
    return int(qmgr_attrs.get("CCSID", _CCSI_Q_MGR))


def _packed_asks(md: bytes, opts: int) -> tuple[bytes, int, int, int] | None:
    """MsgId, Expiry, Priority and Persistence of the packed MQMD ``md`` when
    ``PutCalls._put_fast`` takes it (no report, reply-to queue nor header; in set-all
    context a MsgId given); None for the general path."""
    version = _MD_BY_LENGTH.get(len(md))
    if version is None or (opts & _PMO_SET_ALL and opts & _PMO_NEW_MSG_ID):
        return None
    strucid, md_version, report, msg_type, expiry, feedback = _MD_HEAD.unpack_from(md)
    msgid = md[_MD_MSGID]
    if strucid != _MD_STRUC_ID or md_version != version or report or feedback \
            or msg_type == _MT_REQUEST or not _MT_FIRST <= msg_type <= _MT_LAST \
            or md[_MD_REPLY_TO_Q] not in _BLANK_NAMES or md[_MD_FORMAT] in _HEADER_FORMATS \
            or (msgid == _NONE24 and opts & _PMO_SET_ALL) \
            or (version >= 2 and md[_MD_MSG_FLAGS] != _ZERO_LONG):
        return None  # (a new MsgId in set-all context, a message in a group: the general path's)
    priority, persistence = _MD_PRIORITY_PERSISTENCE.unpack_from(md, _MD_PRIORITY_AT)
    return msgid, expiry, priority, persistence


def _correlid(md: bytes) -> bytes:
    """The CorrelId of the packed MQMD ``md`` (none: the one object every message without
    one shares)."""
    correlid = md[_MD_CORRELID]
    return _NONE24 if correlid == _NONE24 else correlid


def _resolved_head(md: bytes, priority: int, persistence: int, ccsid: int) -> bytes:
    """The packed MQMD ``md`` up to its MsgId as a put stores it: ``ccsid`` for
    MQCCSI_Q_MGR, the resolved Priority and Persistence."""
    head = md[:_MD_PRIORITY_AT]
    if md[_MD_CCSID] == _ZERO_LONG:  # MQCCSI_Q_MGR: stored as the queue manager's
        head = b"".join((head[:_MD_CCSID.start], _VERSION_AT.pack(ccsid),
                         head[_MD_CCSID.stop:]))
    return head + _MD_PRIORITY_PERSISTENCE.pack(priority, persistence)


class KeptMD:
    """What a connection's last packed MQMD put in the default context was read as
    (:meth:`PutCalls._asked`): its bytes ``before`` its MsgId and ``after`` it (an
    application's puts differ there if anywhere: each may carry its own MsgId), the MQPMO
    Options it came with, what :func:`_packed_asks` found in it but the MsgId; ``last``, the
    MQMD it was matched with last; and the stored MQMD's parts around MsgId, PutDate and
    PutTime (:meth:`PutCalls._default_parts`), made for the resolved Priority, Persistence
    and CCSID and the connection's identity in ``key``."""

    __slots__ = ("after", "asked", "before", "key", "last", "length", "opts", "parts")

    def __init__(self) -> None:
        self.before = self.after = self.last = b""
        self.length = self.opts = -1  # (no MQMD is of no length)
        self.asked: tuple[int, int, int] = (0, 0, 0)
        self.key: tuple = ()
        self.parts: tuple[bytes, bytes, bytes, bytes] = (b"", b"", b"", b"")


class PutCalls(GroupPutCalls):
    """MQPUT and MQPUT1 of a :class:`~mqpy.engine.connection.Connection`."""

    _kept_md: KeptMD
    #: the MQRFH2 of the put under way read before the lock (:class:`CheckedRFH2`)
    _rfh2_checked: CheckedRFH2 | None = None

    def put(self, hobj: int, md: MD | None, pmo: PMO | None, data: bytes) -> int:
        """MQPUT: fills md (MsgId, context) and pmo.ResolvedQName like the real call.
        ``md`` / ``pmo`` None: the caller passed none (default ones, and nothing comes back).

        Returns 0, or the reason of a warning (MQCC_WARNING) the call completed with. An
        asynchronous put (``putstatus``) returns 0 and is counted for MQSTAT.
        """
        opts = 0 if pmo is None else pmo.__dict__["Options"]
        if opts & _PMO_RESPONSE or self._async_default(hobj):
            if opts & _PMO_RESPONSE == _PMO_RESPONSE:
                raise _fail(CMQC.MQRC_OPTIONS_ERROR)  # a put is one or the other
            if putstatus.is_async(opts, self._defpresp(hobj)):
                pmo = PMO() if pmo is None else pmo
                return self.put_asynchronously(
                    pmo, lambda: self.where_handle(hobj),
                    lambda: self._put_now(hobj, md, pmo, data))
        return self._put_now(hobj, md, pmo, data)

    def _defpresp(self, hobj: int) -> object:
        """DEFPRESP of the object open as ``hobj`` (None when it is not an open queue)."""
        h = self.handles.get(hobj)
        return None if h is None else h.obj.attributes.get("DEFPRESP")

    def _async_default(self, hobj: int) -> bool:
        return self._defpresp(hobj) == "ASYNC"

    def _put_now(self, hobj: int, md: MD | None, pmo: PMO | None, data: bytes) -> int:
        """MQPUT as the application waits for it (:meth:`put`)."""
        if (md is not None and (md.__dict__["StrucId"] != _MD_STRUC_ID
                                or md.__dict__["Version"] not in _MD_VERSIONS)) \
                or (pmo is not None and (pmo.__dict__["StrucId"] != _PMO_STRUC_ID
                                         or pmo.__dict__["Version"] not in _PMO_VERSIONS)):
            _refuse_header(md, pmo)
        if md is not None and md.__dict__["Format"] in _RFH2_FORMATS \
                and self._rfh2_checked is None:
            return self._put_read_first(hobj, md, pmo, data)
        if self.dist_lists and hobj in self.dist_lists:
            return distlist.put_list(self, self.dist_lists[hobj], md or MD(), pmo or PMO(),
                                     data)
        eng = self.engine
        with eng.lock:
            h = self.handles.get(hobj)
            if (h is None or h.deleted or self.broken or eng.stopped or not self.connected
                    or not h.options & _OO_OUTPUT):
                self.check_usable()
                h = self._handle(hobj)
                raise _fail(CMQC.MQRC_NOT_OPEN_FOR_OUTPUT)
            lsn = self._put_fast(h, md, pmo, data) if fastpath.ENABLED and h.mq is not None \
                else GENERAL  # (a topic's handle has no queue: mqpy.pubsub)
            if lsn is GENERAL:
                lsn, warning = self.put_on_handle(h, md if md is not None else MD(),
                                                pmo if pmo is not None else PMO(), data)
            else:
                warning = 0
        if lsn is not None:
            self.force_log(lsn)
        return warning

    def _put_read_first(self, hobj: int, md: MD, pmo: PMO | None, data: bytes) -> int:
        """MQPUT of a message with an MQRFH2: the header read before the lock
        (:class:`CheckedRFH2`), then :meth:`_put_now` (which checks it with what was read)."""
        h = self.handles.get(hobj)  # (read unlocked: what it says is checked under the lock)
        topic = h.topic if type(h) is TopicHandle and not h.deleted else None
        checked = self._rfh2_checked = CheckedRFH2(md, data, self.engine.catalog.qmgr, topic)
        try:
            return self._put_now(hobj, md, pmo, checked.data)
        finally:
            self._rfh2_checked = None

    def publication_of(self, md: MD, data: bytes, topic: str) -> Publication:
        """The publication ``md`` / ``data`` put on ``topic`` (``mqpy.pubsub.publication``,
        engine lock held): as read before the lock (:class:`CheckedRFH2`), when it was."""
        return putcheck.publication_of(self._rfh2_checked, md, data, topic)

    def _put_fast(self, h: Handle, md: MD | bytes | None, pmo: PMO | None, data: bytes,
                  options: int = 0, stored: list | None = None) -> int | object | None:
        """MQPUT's usual case, as :meth:`put_on_handle` does it, with less asked each time: a
        local queue (:class:`_Facts`), the default context or all of it set (opened for
        that), no report options nor reply-to queue, values in range, room on the queue.
        ``md`` may be the MQMD packed little-endian (``engine.packed``): a channel's arrival
        (set-all context), its bytes stored as they came but for the resolved Persistence and
        Priority and a BackoutCount of 0; or an application's (the default context), with
        its MsgId (when it asks for one) and context written in. Without an MQPMO object,
        ``options`` are its Options (an MQPMO without records). Returns the LSN to force (None
        if none), or GENERAL, having changed nothing, for anything else: the general path
        then does it all. ``stored``: a list the stored MQMD's bytes are added to.
        """
        eng = self.engine
        f = h.facts
        if f is None or f.obj_attrs is not h.obj.attributes \
                or f.base_attrs is not h.base.attributes or f.qmgr_attrs is not eng.catalog.qmgr:
            f = self._facts(h)
        if pmo is None:
            opts = options
        else:
            pd = pmo.__dict__
            opts = pd["Options"]
            if pd["RecsPresent"] and pd["Version"] >= 2:
                return GENERAL
        # the options (set-all context: opened for it, an MQMD to set)
        if opts and (opts & _PMO_NOT_FAST or opts & _PMO_SYNC_BOTH == _PMO_SYNC_BOTH
                     or (opts & _PMO_SET_ALL and (md is None or not h.options & _OO_SET_ALL))):
            return GENERAL
        if h.put_group is not None:  # a group put in logical order under way (engine.groups)
            return GENERAL
        # one guard: the queue, the data, the queue's limits, the unit of work
        mq = h.mq
        syncpoint = opts & _PMO_SYNCPOINT
        if not f.put or (opts & _PMO_FAIL_IF_QUIESCING and eng.quiescing) \
                or type(data) is not bytes or (length := len(data)) > f.maxmsgl \
                or mq.count - mq.getting >= f.maxdepth or mq.stored + length > f.file_room \
                or (syncpoint and self.backed_out):
            return GENERAL
        if md is None:  # nobody will read the MQMD: its bytes from the connection's template
            persistence, priority = f.persistence, f.priority
            if persistence == _PERSISTENT and f.tempdyn:
                return GENERAL
            msgid = eng.new_msgid()
            now = time.time()
            md_bytes = self._default_md(persistence, priority, msgid, now,
                                        f.ccsid)
            correlid = _NONE24
            expiry_at = 0.0
        else:
            # the MQMD's values the fast path takes (no report, reply-to queue nor header)
            packed = type(md) is bytes  # (engine.packed)
            if packed:
                asked = self._asked(md, opts)
                if asked is None:
                    return GENERAL
                msgid, expiry, asked_priority, asked_persistence = asked
            else:
                d = md.__dict__
                msg_type = d["MsgType"]
                if d["Report"] or d["Feedback"] or msg_type == _MT_REQUEST \
                        or (d["MsgFlags"] and d["Version"] >= 2) \
                        or not _MT_FIRST <= msg_type <= _MT_LAST \
                        or d["ReplyToQ"] not in _BLANK_NAMES or d["Format"] in _HEADER_FORMATS:
                    return GENERAL
                asked_persistence, asked_priority = d["Persistence"], d["Priority"]
                expiry = d["Expiry"]
            # Persistence and Priority as the queue's defaults, in range (else 2047, 2050,
            # a warning or 2048: the general path's), an Expiry the general path would take
            persistence = f.persistence if asked_persistence == _PER_AS_Q_DEF \
                else asked_persistence
            priority = f.priority if asked_priority == _PRI_AS_Q_DEF else asked_priority
            if (persistence != _PERSISTENT and persistence != _NOT_PERSISTENT) \
                    or (persistence == _PERSISTENT and f.tempdyn) \
                    or not _PRI_AS_Q_DEF <= asked_priority <= 9 \
                    or (expiry <= 0 and expiry != _EI_UNLIMITED):
                return GENERAL
            if packed:
                now = time.time()
                msgid, correlid, md_bytes = self._stored_md(md, opts, priority, persistence,
                                                            msgid, f.ccsid, now)
            else:  # from here on as put_on_handle: MsgId, context, the stored MQMD
                msgid = d["MsgId"]
                if opts & _PMO_NEW_MSG_ID or msgid in _NO_ID or _id24(msgid) == _NONE24:
                    msgid = d["MsgId"] = eng.new_msgid()
                msgid = _id24(msgid)
                now = time.time()
                if not opts & _PMO_SET_ALL:  # (_set_context: set-all context keeps them all)
                    d["UserIdentifier"] = self.user
                    d["AccountingToken"] = b""
                    d["ApplIdentityData"] = b""
                    d["PutApplType"] = _AT_UNIX
                    d["PutApplName"] = self.appl_name
                    d["PutDate"], d["PutTime"] = _put_timestamp(now)
                    d["ApplOriginData"] = b""
                asked_backout, asked_ccsid = d["BackoutCount"], d["CodedCharSetId"]
                d["Persistence"] = persistence
                d["Priority"] = priority
                d["BackoutCount"] = 0
                if asked_ccsid == _CCSI_Q_MGR:
                    d["CodedCharSetId"] = f.ccsid
                try:
                    md_bytes = _pack_md(md)
                finally:
                    d["Persistence"] = asked_persistence
                    d["Priority"] = asked_priority
                    d["BackoutCount"] = asked_backout
                    d["CodedCharSetId"] = asked_ccsid
                correlid = d["CorrelId"]
                correlid = _NONE24 if correlid in _NO_ID else _id24(correlid)
            expiry_at = now + expiry / 10.0 if expiry > 0 else 0.0
        persistent = persistence == _PERSISTENT
        entry = Entry(eng.data.new_seq(), priority, persistent, msgid, correlid, expiry_at,
                      length, R.encode_message(now, md_bytes, data), now)
        lsn = None
        if persistent or syncpoint:
            lsn = eng._enqueue(self, h.base, mq, entry, persistent, bool(syncpoint))
        else:
            mq.add(entry)
            if mq.waiters:
                mq.wake()
        mq.last_put = now
        c = h.counters
        if c is None or c.qmgr_mqi is not eng.stats.mqi \
                or c.conn_mqi is not self.accounting.mqi or c.base is not h.base:
            c = self._counters(h)
        p = 1 if persistent else 0
        qs = c.qmgr_queue
        c.qmgr_mqi.puts[p] += 1
        c.qmgr_mqi.put_bytes[p] += length
        qs.puts[p] += 1
        qs.put_bytes[p] += length
        acc = c.conn_queue
        c.conn_mqi.puts[p] += 1
        c.conn_mqi.put_bytes[p] += length
        acc.puts[p] += 1
        acc.put_bytes[p] += length
        qs.depth_seen(mq.count - mq.getting)
        if eng.perfm_events:
            instrumentation.after_put(eng, h.base, mq)
        if stored is not None:
            stored.append(md_bytes)
        if pmo is not None:
            pd["ResolvedQName"], pd["ResolvedQMgrName"] = h.resolved or self._resolved(h)
        return lsn

    def _resolved(self, h: Handle) -> tuple[bytes, bytes]:
        """The handle's ResolvedQName and ResolvedQMgrName, kept until its destination
        changes (a cluster queue's choice made again)."""
        h.resolved = ((h.remote_q or h.base.name).encode(),
                      (h.remote_qm or self.engine.name).encode())
        return h.resolved

    def _asked(self, md: bytes, opts: int) -> tuple[bytes, int, int, int] | None:
        """:func:`_packed_asks` of ``md`` and ``opts``; in the default context read once for
        MQMDs alike but for their MsgIds (:class:`KeptMD`, which this matches with ``md``)."""
        k = self._kept_md
        if opts == k.opts and len(md) == k.length and md.startswith(k.before) \
                and md.endswith(k.after):
            k.last = md
            return (md[_MD_MSGID], *k.asked)
        asked = _packed_asks(md, opts)
        if asked is not None and not opts & _PMO_SET_ALL:
            k = self._kept_md = KeptMD()
            k.before, k.after = md[:_MD_MSGID_AT], md[_MD_MSGID_AT + 24:]
            k.length, k.opts, k.asked, k.last = len(md), opts, asked[1:], md
        return asked

    def _stored_md(self, md: bytes, opts: int, priority: int, persistence: int,
                   msgid: bytes, ccsid: int, now: float) -> tuple[bytes, bytes, bytes]:
        """MsgId, CorrelId and MQMD of a message put at ``now`` with the packed MQMD ``md``
        and the MQPMO Options ``opts``, as :meth:`_put_fast` stores them (what it packs of an
        MQMD object): set-all context, the bytes as they came; the default context, a new
        MsgId when the put asks for one and this connection's identity and origin context;
        either way the resolved Priority, Persistence and CCSID (``ccsid`` for
        MQCCSI_Q_MGR) and a BackoutCount of 0."""
        if opts & _PMO_SET_ALL:
            return msgid, _correlid(md), b"".join((
                _resolved_head(md, priority, persistence, ccsid),
                md[_MD_PRIORITY_AT + 8:_MD_BACKOUT_AT], _ZERO_LONG, md[_MD_BACKOUT_AT + 4:]))
        if opts & _PMO_NEW_MSG_ID or msgid == _NONE24:
            msgid = self.engine.new_msgid()
        front, middle, back, correlid = self._default_parts(md, priority, persistence, ccsid)
        date, tod = _put_timestamp(now)
        return msgid, correlid, b"".join((front, msgid, middle, date, tod, back))

    def _default_parts(self, md: bytes, priority: int, persistence: int, ccsid: int
                       ) -> tuple[bytes, bytes, bytes, bytes]:
        """The MQMD a put in the default context with the packed MQMD ``md`` stores (see
        :meth:`_stored_md`), before its MsgId, between MsgId and PutDate, after PutTime; and
        its CorrelId. Made once for MQMDs alike but for their MsgIds (:class:`KeptMD`)."""
        k = self._kept_md
        key = (priority, persistence, ccsid, self.user, self.appl_name)
        if k.last is md and k.key == key:
            return k.parts
        t = self._md_template(persistence, priority, ccsid)
        parts = (_resolved_head(md, priority, persistence, ccsid),
                 b"".join((md[_MD_MSGID_AT + 24:_MD_BACKOUT_AT], _ZERO_LONG,
                           md[_MD_BACKOUT_AT + 4:_MD_USER_AT], t[1][_USER_IN_TEMPLATE:])),
                 t[2][:4] + md[_MD_DATE_AT + 20:], _correlid(md))
        if k.last is md:
            k.key, k.parts = key, parts
        return parts

    def _default_md(self, persistence: int, priority: int, msgid: bytes, now: float,
                    ccsid: int) -> bytes:
        """The MQMD a put without one stores: a default MQMD as :meth:`put_on_handle` fills and
        packs it (the queue manager's ``ccsid``), made from this connection's template with
        MsgId, PutDate and PutTime."""
        t = self._md_template(persistence, priority, ccsid)
        date, tod = _put_timestamp(now)
        return b"".join((t[0], msgid, t[1], date, tod, t[2]))

    def _md_template(self, persistence: int, priority: int, ccsid: int
                     ) -> tuple[bytes, bytes, bytes]:
        """This connection's default MQMD as :meth:`put_on_handle` fills and packs it, in
        three parts: before MsgId, between MsgId and PutDate, after PutTime."""
        key = (persistence, priority, self.user, self.appl_name, ccsid)
        t = self._md_templates.get(key)
        if t is None:
            md = MD()
            d = md.__dict__
            d["MsgId"] = _NONE24
            self._set_context(md, 0, PMO(), 0.0)  # (its date and time: each put's)
            d["PutDate"], d["PutTime"] = b"", b""
            d["Persistence"], d["Priority"], d["BackoutCount"] = persistence, priority, 0
            d["CodedCharSetId"] = ccsid
            packed = _pack_md(md)
            t = self._md_templates[key] = (packed[:_MD_MSGID_AT], packed[_MD_MSGID_AT + 24:
                                                                       _MD_DATE_AT],
                                            packed[_MD_DATE_AT + 16:])
        return t

    def put1(self, od: OD, md: MD, pmo: PMO, data: bytes) -> int:
        """MQPUT1: open (with the context options the PMO needs), put, close, as one call;
        asynchronous (``putstatus``) as its MQPMO or the queue's DEFPRESP says."""
        opts = pmo.Options
        if opts & _PMO_RESPONSE == _PMO_RESPONSE:
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        if putstatus.is_async(opts, None if opts & _PMO_RESPONSE else self._put1_defpresp(od)):
            return self.put_asynchronously(pmo, lambda: self.where_od(od, pmo),
                                           lambda: self._put1_now(od, md, pmo, data))
        return self._put1_now(od, md, pmo, data)

    def _put1_defpresp(self, od: OD) -> object:
        """DEFPRESP of the object an MQPUT1's MQOD names, if it asks for it (only
        MQPMO_RESPONSE_AS_Q_DEF does) and names a queue of this queue manager's catalog."""
        try:
            name = _strip(od.ObjectName)
            qmgr = _strip(od.ObjectQMgrName)
        except (AttributeError, UnicodeDecodeError):
            return None
        if qmgr and qmgr != self.engine.name:
            return None
        obj = self.engine.catalog.queue_def(name) if name else None
        return None if obj is None else obj.attributes.get("DEFPRESP")

    def _put1_now(self, od: OD, md: MD, pmo: PMO, data: bytes) -> int:
        """MQPUT1 as the application waits for it (:meth:`put1`)."""
        _refuse_header(od, md, pmo)
        opts = CMQC.MQOO_OUTPUT
        if pmo.Options & CMQC.MQPMO_ALTERNATE_USER_AUTHORITY:
            opts |= CMQC.MQOO_ALTERNATE_USER_AUTHORITY  # the OD's AlternateUserId is judged
        for pmo_opt, oo in _CONTEXT_OPEN.items():
            if pmo.Options & pmo_opt:
                opts |= oo
        if md.__dict__["Format"] in _RFH2_FORMATS and self._rfh2_checked is None:
            checked = self._rfh2_checked = CheckedRFH2(md, data, self.engine.catalog.qmgr)
            try:
                return self._put1_locked(od, md, pmo, checked.data, opts)
            finally:
                self._rfh2_checked = None
        return self._put1_locked(od, md, pmo, data, opts)

    def _put1_locked(self, od: OD, md: MD, pmo: PMO, data: bytes, opts: int) -> int:
        """:meth:`_put1_now` from the distribution list's choice on."""
        if distlist.is_list_od(od):
            return distlist.put1_list(self, od, md, pmo, data, opts)
        with self.engine.lock:
            hobj = self.open(od, opts, no_model=True)
            try:
                h = self.handles[hobj]
                lsn, warning = self.put_on_handle(h, md, pmo, data, put1=True)
            finally:
                if hobj in self.handles:
                    self.close(hobj)
        if lsn is not None:
            self.force_log(lsn)
        return warning

    def put_on_handle(self, h: Handle, md: MD, pmo: PMO, data: bytes, *, put1: bool = False
                      ) -> tuple[int | None, int]:
        """MQPUT (or MQPUT1's put) on the open handle ``h``, engine lock held, every check
        made: returns the LSN the caller forces (:meth:`force_log`) once the lock is released,
        or None, and the reason of a warning, or 0. A distribution list puts through it. A
        put that fails is counted in the queue's and the queue manager's statistics and the
        connection's accounting (PutsFailed, Put1sFailed)."""
        if h.mq is None:  # an open topic: a publication (mqpy.pubsub)
            return publication.publish(self, h, md, pmo, data, put1)  # type: ignore[arg-type]
        try:
            return self._put_checked(h, md, pmo, data, put1)
        except MQMIError as e:
            if e.comp == CMQC.MQCC_FAILED:
                self._count_put_failure(h, put1)
            raise

    def _count_put_failure(self, h: Handle, put1: bool) -> None:
        c = self._counters(h)
        for queue in (c.qmgr_queue, c.conn_queue):
            if put1:
                queue.put1_fails += 1
            else:
                queue.put_fails += 1
        c.qmgr_mqi.put_fails += 1
        c.conn_mqi.put_fails += 1

    def _put_checked(self, h: Handle, md: MD, pmo: PMO, data: bytes, put1: bool
                     ) -> tuple[int | None, int]:
        """:meth:`put_on_handle`'s checks and store."""
        eng = self.engine
        opts = pmo.Options
        d = md.__dict__  # fields read here without the attribute machinery (hot path)
        self._check_put(h, md, pmo)
        route = self._choose_route(h)
        data = self._checked_data(md, data)
        persistence, priority, warning = self._put_values(h, md)
        syncpoint = bool(opts & _PMO_SYNCPOINT)
        if syncpoint and self.backed_out:
            raise _fail(CMQC.MQRC_BACKED_OUT)
        group, group_warning = groups.put_fields(h, md, opts, persistence, eng.new_msgid,
                                                 len(data))
        segment_size = self._segment_size(h, md, len(data))
        if opts & _PMO_NEW_MSG_ID or d["MsgId"] in _NO_ID or _id24(d["MsgId"]) == _NONE24:
            d["MsgId"] = eng.new_msgid()
        if opts & _PMO_NEW_CORREL_ID:
            d["CorrelId"] = eng.new_msgid()
        now = time.time()
        self._set_context(md, opts, pmo, now)
        if d["ReplyToQ"].strip(b" \x00") and not d["ReplyToQMgr"].strip(b" \x00"):
            rq, rqm = resolution.resolve_reply_to(eng.catalog, eng.name, _strip(md.ReplyToQ), "")
            _trusted(md, {"ReplyToQ": rq.encode("latin-1"), "ReplyToQMgr": rqm.encode("latin-1")})
        # Above MAXPRTY the message is queued at 9 but its MQMD keeps the application's value
        stored_priority = d["Priority"] if warning else priority
        if segment_size:
            lsn = self._put_segments(h, md, data, segment_size, persistence, stored_priority,
                                     priority, syncpoint, now, put1)
        else:
            md_bytes, body, correlid = self._stored_message(
                h, md, data, route, persistence, stored_priority,
                _qmgr_ccsid(eng.catalog.qmgr))
            lsn = eng._store(self, h.base, h.mq, md_bytes, body, priority=priority,
                             persistent=persistence == _PERSISTENT, msgid=d["MsgId"],
                             correlid=correlid, expiry=d["Expiry"], report=d["Report"], now=now,
                             syncpoint=syncpoint, put1=put1)
        if not put1:  # (MQPUT1's handle is gone with the call)
            groups.put_done(h, opts, group, self.uow if syncpoint else None)
        pd = pmo.__dict__
        pd["ResolvedQName"], pd["ResolvedQMgrName"] = h.resolved or self._resolved(h)
        return lsn, warning or group_warning

    def _check_put(self, h: Handle, md: MD, pmo: PMO) -> None:
        """The checks of an MQPUT's options and MQMD against the handle, the queue and the
        queue manager, in IBM's order of reasons."""
        opts = pmo.Options
        d = md.__dict__
        if opts & _PMO_SYNC_BOTH == _PMO_SYNC_BOTH or opts & ~_PMO_KNOWN:
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        if d["Report"] & _RO_REJECT:
            raise _fail(CMQC.MQRC_REPORT_OPTIONS_ERROR)
        if not _MT_FIRST <= d["MsgType"] <= _MT_LAST:
            raise _fail(CMQC.MQRC_MSG_TYPE_ERROR)
        if not 0 <= d["Feedback"] <= _FB_LAST:  # MQFB_NONE (0) or a system or application code
            raise _fail(CMQC.MQRC_FEEDBACK_ERROR)
        groups.check_flags(md)
        if pmo.__dict__["RecsPresent"] and pmo.__dict__["Version"] >= 2:
            raise _fail(CMQC.MQRC_RECS_PRESENT_ERROR)  # records are for distribution lists
        ctx = opts & _CONTEXT_PMO
        if ctx:
            if ctx & (ctx - 1):
                raise _fail(CMQC.MQRC_OPTIONS_ERROR)
            if ctx in _CONTEXT_OPEN and not h.options & _CONTEXT_OPEN_OK[ctx]:
                raise _fail(_CONTEXT_NOT_OPEN[ctx])
        if (d["MsgType"] == _MT_REQUEST or d["Report"] & _REPORTS_NEEDING_REPLY_Q) \
                and not d["ReplyToQ"].strip(b" \x00"):
            raise _fail(CMQC.MQRC_MISSING_REPLY_TO_Q)
        if opts & _PMO_FAIL_IF_QUIESCING and self.engine.quiescing:
            raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
        competing = h.cluster is not None and h.cluster.with_local  # base: the last choice
        if h.obj.attributes.get("PUT") == "DISABLED" or (
                not competing and h.base.attributes.get("PUT") == "DISABLED"):
            instrumentation.put_inhibited(self, h.obj.name)
            raise _fail(CMQC.MQRC_PUT_INHIBITED)

    def _choose_route(self, h: Handle) -> ClusterRoute | None:
        """A cluster queue's route for this put: chosen again at each MQPUT with
        BIND_NOT_FIXED (the local queue, when it competes, or the cluster transmission
        queue: the handle's base, queue and destination follow the choice), else the one
        chosen at MQOPEN (None: not a cluster queue, or its local instance)."""
        if h.cluster is None or h.cluster.fixed:
            return h.cluster
        eng = self.engine
        local_enabled = True
        if h.cluster.with_local:
            local = eng.catalog.queue_def(h.cluster.queue)
            local_enabled = local is not None and local.attributes.get("PUT") != "DISABLED"
        route = eng.cluster.put(  # type: ignore[union-attr]
            h.cluster, local_enabled=local_enabled)
        if route.with_local:  # the local queue competes: it or the cluster xmitq
            target = eng.catalog.queue_def(route.xmitq)
            if target is None or target.objtype != "QLOCAL":
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            if target.attributes.get("PUT") == "DISABLED":
                instrumentation.put_inhibited(self, h.obj.name)
                raise _fail(CMQC.MQRC_PUT_INHIBITED)
            h.base = target
            h.mq = eng.catalog.queues[target.qid]
        h.resolved = None  # the destination may differ from the last put's
        if route.local:
            h.remote_q, h.remote_qm = None, None
            return None
        h.remote_q, h.remote_qm = route.remote_q, route.remote_qm
        return route

    def _checked_data(self, md: MD, data: bytes) -> bytes:
        """The message data as bytes, within the queue manager's MAXMSGL, and the header its
        MQMD's Format names well formed."""
        if type(data) is not bytes:
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise _fail(CMQC.MQRC_DATA_LENGTH_ERROR)
            data = bytes(data)
        d = md.__dict__
        limit = int(self.engine.catalog.qmgr.get("MAXMSGL", 4194304))
        if d["Version"] >= 2 and d["MsgFlags"] & groups.MF_SEGMENTATION_ALLOWED:
            limit = max(limit, SEGMENTED_MAX)  # (the queue manager segments it)
        if len(data) > limit:
            raise _fail(CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
        header = _HEADER_FORMATS.get(d["Format"])
        if header is not None:
            checked = self._rfh2_checked  # (read before the lock: CheckedRFH2)
            if checked is not None and checked.check(md, data, self.engine.catalog.qmgr):
                return data
            _check_header(header, data, d["Encoding"])
            if header == _RF_HEADER_2:  # its properties within MAXPROPL
                propdelivery.check_put(md, data, self.engine.catalog.qmgr)
        return data

    @staticmethod
    def _put_values(h: Handle, md: MD) -> tuple[int, int, int]:
        """The message's Persistence and Priority (the object's defaults for AS_Q_DEF), and
        the warning of a Priority above the maximum (queued at 9), or 0; its Expiry checked."""
        d = md.__dict__
        obj = h.obj
        persistence = d["Persistence"]
        if persistence == _PER_AS_Q_DEF:
            persistence = (_PERSISTENT if obj.attributes.get("DEFPSIST") == "YES"
                           else _NOT_PERSISTENT)
        elif persistence != _PERSISTENT and persistence != _NOT_PERSISTENT:
            raise _fail(CMQC.MQRC_PERSISTENCE_ERROR)
        if persistence == _PERSISTENT and h.base.attributes.get("DEFTYPE") == "TEMPDYN":
            raise _fail(CMQC.MQRC_PERSISTENT_NOT_ALLOWED)
        priority = d["Priority"]
        warning = 0
        if priority == _PRI_AS_Q_DEF:
            priority = int(obj.attributes.get("DEFPRTY", 0))
        elif priority < 0:
            raise _fail(CMQC.MQRC_PRIORITY_ERROR)
        elif priority > 9:
            priority = 9
            warning = CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM
        expiry = d["Expiry"]
        if expiry <= 0 and expiry != _EI_UNLIMITED:
            raise _fail(CMQC.MQRC_EXPIRY_ERROR)
        return persistence, priority, warning

    @staticmethod
    def _stored_message(h: Handle, md: MD, data: bytes, route: ClusterRoute | None,
                        persistence: int, priority: int, ccsid: int
                        ) -> tuple[bytes, bytes, bytes]:
        """The MQMD stored (packed) and the body: for a remote queue, the transmission
        message (MQXQH and the message); and the CorrelId it is stored under.

        Priority and Persistence are input-only: the stored MQMD carries the resolved values,
        the application's MQMD keeps what it asked for; so is MQCCSI_Q_MGR, stored as the
        queue manager's ``ccsid`` (IBM: MQGET never returns MQCCSI_Q_MGR)."""
        d = md.__dict__
        asked_persistence, asked_priority, asked_backout, asked_ccsid = \
            d["Persistence"], d["Priority"], d["BackoutCount"], d["CodedCharSetId"]
        d["Persistence"] = persistence
        d["Priority"] = priority
        d["BackoutCount"] = 0
        if asked_ccsid == _CCSI_Q_MGR:
            d["CodedCharSetId"] = ccsid
        try:
            correlid = d["CorrelId"]
            if h.remote_qm is None:
                return _pack_md(md), data, correlid
            # an unbound cluster message names no queue manager in its MQXQH: it may go
            # elsewhere if its channel fails (seed 001)
            stored_md, body = _transmission_message(
                md, data, h.remote_q, h.remote_qm if route is None or route.fixed else "")
            if route is not None:  # on the cluster xmitq, keyed by its channel
                stored_md.CorrelId = correlid = route.correl_id
            return stored_md.pack(), body, correlid
        finally:
            d["Persistence"] = asked_persistence
            d["Priority"] = asked_priority
            d["BackoutCount"] = asked_backout
            d["CodedCharSetId"] = asked_ccsid

    def _set_context(self, md: MD, opts: int, pmo: PMO, now: float) -> None:
        """Fill identity and origin context as the MQPMO context option says.

        The values are the queue manager's own, already in canonical form, so they go straight
        into the structure's fields (``_trusted``) without per-field validation.
        """
        if not opts & _CONTEXT_PMO:  # the default context, the usual case
            d = md.__dict__
            d["UserIdentifier"] = self.user
            d["AccountingToken"] = b""
            d["ApplIdentityData"] = b""
            d["PutApplType"] = CMQC.MQAT_UNIX
            d["PutApplName"] = self.appl_name
            d["PutDate"], d["PutTime"] = _put_timestamp(now)
            d["ApplOriginData"] = b""
            return
        if opts & CMQC.MQPMO_SET_ALL_CONTEXT:
            return
        if opts & CMQC.MQPMO_NO_CONTEXT:
            _trusted(md, _NO_CONTEXT)
            return
        if opts & (CMQC.MQPMO_PASS_IDENTITY_CONTEXT | CMQC.MQPMO_PASS_ALL_CONTEXT):
            src = self.handles.get(pmo.Context)
            if src is None or not src.options & CMQC.MQOO_SAVE_ALL_CONTEXT:
                raise _fail(CMQC.MQRC_CONTEXT_HANDLE_ERROR)
            saved = src.saved_context
            if saved is None:
                raise _fail(CMQC.MQRC_CONTEXT_NOT_AVAILABLE)
            fields = _IDENTITY + (_ORIGIN if opts & CMQC.MQPMO_PASS_ALL_CONTEXT else ())
            _trusted(md, {f: saved.__dict__[f] for f in fields})
            if opts & CMQC.MQPMO_PASS_ALL_CONTEXT:
                return
        elif not opts & CMQC.MQPMO_SET_IDENTITY_CONTEXT:
            _trusted(md, {"UserIdentifier": self.user, "AccountingToken": b"",
                          "ApplIdentityData": b""})
        date, tod = _put_timestamp(now)
        _trusted(md, {"PutApplType": CMQC.MQAT_UNIX, "PutApplName": self.appl_name,
                      "PutDate": date, "PutTime": tod, "ApplOriginData": b""})
