"""The queue-manager engine: connections, handles, units of work and the MQI verbs.

This is the message manager of seed 004 ("MQI + validation + allocation locks + wake get-waiters")
on top of the data manager (log, pagesets, restart). One re-entrant lock guards all in-memory
state; MQI calls hold it only for in-memory work. The slow parts happen outside it: forcing the
log at commit (so concurrent committers share one fsync) and waiting for a message.

The engine is synchronous and thread-safe. Waiting gets take an optional *waiter* callback so an
event loop (the trio server of the daemon) can wait without a thread: the engine calls it when a
message may have arrived, and the caller retries.

Name resolution beyond local queues, aliases and model queues (remote queues, queue-manager
aliases, transmission queues), triggering, reports and expiry reports belong to the MQI issue and
plug in through :meth:`Connection.open` and the put path.
"""

from __future__ import annotations

import getpass
import os
import struct
import sys
import threading
import time
from collections.abc import Callable

import attrs

from mqpy import CMQC
from mqpy.engine import cluster, distlist, reports, resolution, triggers
from mqpy.engine import records as R
from mqpy.engine import selectors as sel
from mqpy.engine.authority import AllowAll, Authority
from mqpy.engine.catalog import Catalog
from mqpy.engine.cluster import ClusterDirectory, ClusterRoute
from mqpy.engine.datamgr import DataManager, Tuning, UnitOfWork, UowBackedOut
from mqpy.engine.log import LogConfig, LogDiskFull, LogError, LogFull
from mqpy.engine.objects import SYSTEM_OBJECTS, ObjectDef
from mqpy.engine.pageset import PagesetError, PagesetFull
from mqpy.engine.queues import AVAILABLE, GET_PENDING, PUT_PENDING, Entry, MessageQueue
from mqpy.engine.stats import HandleCounters, Statistics
from mqpy.errors import MQMIError, PYIFError
from mqpy.mqstruct import StructError
from mqpy.rfh2 import RFH2
from mqpy.structures import DLH, GMO, MD, OD, PMO, XQH

_FAILED = CMQC.MQCC_FAILED
_WARNING = CMQC.MQCC_WARNING

_INPUT_OPTS = (CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE)
_BROWSE_OPTS = (CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT
                | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)
_NONE24 = b"\x00" * 24
# constants of the MQPUT/MQGET hot paths, read once
_PMO_SYNCPOINT = CMQC.MQPMO_SYNCPOINT
_PMO_SYNC_BOTH = CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT
_PMO_FAIL_IF_QUIESCING = CMQC.MQPMO_FAIL_IF_QUIESCING
_PMO_NEW_MSG_ID = CMQC.MQPMO_NEW_MSG_ID
_PMO_NEW_CORREL_ID = CMQC.MQPMO_NEW_CORREL_ID
_OO_OUTPUT = CMQC.MQOO_OUTPUT
_AT_UNIX = CMQC.MQAT_UNIX
#: The fast paths (Connection._put_fast, _get_fast) serve the usual calls; False sends every
#: call down the general path (the tests compare the two).
_FAST_PATHS = True
_GENERAL = object()  # what a fast path returns for a call it leaves to the general path
_NO_MESSAGE = object()  # what _get_fast returns when no message can be had (2033)
_MO_MATCH_MSG_ID = CMQC.MQMO_MATCH_MSG_ID
_MO_MATCH_CORREL_ID = CMQC.MQMO_MATCH_CORREL_ID
_MO_MATCH_BOTH = _MO_MATCH_MSG_ID | _MO_MATCH_CORREL_ID
_MT_REQUEST = CMQC.MQMT_REQUEST
_PER_AS_Q_DEF = CMQC.MQPER_PERSISTENCE_AS_Q_DEF
_PERSISTENT = CMQC.MQPER_PERSISTENT
_NOT_PERSISTENT = CMQC.MQPER_NOT_PERSISTENT
_PRI_AS_Q_DEF = CMQC.MQPRI_PRIORITY_AS_Q_DEF
_EI_UNLIMITED = CMQC.MQEI_UNLIMITED
_GMO_SYNC_BOTH = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT
_GMO_SYNC_ANY = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT
_GMO_FAIL_IF_QUIESCING = CMQC.MQGMO_FAIL_IF_QUIESCING
_GMO_WAIT = CMQC.MQGMO_WAIT
_GMO_UNDER_CURSOR = CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR | CMQC.MQGMO_MSG_UNDER_CURSOR
_GMO_ACCEPT_TRUNCATED = CMQC.MQGMO_ACCEPT_TRUNCATED_MSG
_OO_BROWSE = CMQC.MQOO_BROWSE
_RO_COA = CMQC.MQRO_COA
_RO_COD = CMQC.MQRO_COD
_OO_SAVE_ALL_CONTEXT = CMQC.MQOO_SAVE_ALL_CONTEXT


def _all_of(prefix: str, names: str) -> int:
    """The options CMQC names ``prefix`` + each of the blank-separated ``names``, or-ed."""
    out = 0
    for name in names.split():
        out |= getattr(CMQC, prefix + name)
    return out


# Every option IBM defines; another bit set is the call's MQRC_OPTIONS_ERROR (2046).
_PMO_KNOWN = _all_of("MQPMO_", """SYNCPOINT NO_SYNCPOINT DEFAULT_CONTEXT NEW_MSG_ID
    NEW_CORREL_ID PASS_IDENTITY_CONTEXT PASS_ALL_CONTEXT SET_IDENTITY_CONTEXT SET_ALL_CONTEXT
    ALTERNATE_USER_AUTHORITY FAIL_IF_QUIESCING NO_CONTEXT LOGICAL_ORDER ASYNC_RESPONSE
    SYNC_RESPONSE RESOLVE_LOCAL_Q WARN_IF_NO_SUBS_MATCHED RETAIN MD_FOR_OUTPUT_ONLY SCOPE_QMGR
    SUPPRESS_REPLYTO NOT_OWN_SUBS""")
_GMO_KNOWN = _all_of("MQGMO_", """WAIT SET_SIGNAL FAIL_IF_QUIESCING SYNCPOINT
    SYNCPOINT_IF_PERSISTENT NO_SYNCPOINT MARK_SKIP_BACKOUT BROWSE_FIRST BROWSE_NEXT
    BROWSE_MSG_UNDER_CURSOR MSG_UNDER_CURSOR LOCK UNLOCK ACCEPT_TRUNCATED_MSG CONVERT
    LOGICAL_ORDER COMPLETE_MSG ALL_MSGS_AVAILABLE ALL_SEGMENTS_AVAILABLE MARK_BROWSE_HANDLE
    MARK_BROWSE_CO_OP UNMARK_BROWSE_CO_OP UNMARK_BROWSE_HANDLE UNMARKED_BROWSE_MSG
    PROPERTIES_FORCE_MQRFH2 NO_PROPERTIES PROPERTIES_IN_HANDLE PROPERTIES_COMPATIBILITY""")
_OO_KNOWN = _all_of("MQOO_", """INPUT_AS_Q_DEF INPUT_SHARED INPUT_EXCLUSIVE BROWSE OUTPUT
    INQUIRE SET SAVE_ALL_CONTEXT PASS_IDENTITY_CONTEXT PASS_ALL_CONTEXT SET_IDENTITY_CONTEXT
    SET_ALL_CONTEXT ALTERNATE_USER_AUTHORITY FAIL_IF_QUIESCING BIND_ON_OPEN BIND_ON_GROUP
    BIND_NOT_FIXED CO_OP NO_READ_AHEAD READ_AHEAD NO_MULTICAST RESOLVE_LOCAL_Q""")
# MQGMO MatchOptions: another bit is MQRC_MATCH_OPTIONS_ERROR (2247)
_MO_KNOWN = _all_of("MQMO_MATCH_", "MSG_ID CORREL_ID GROUP_ID MSG_SEQ_NUMBER OFFSET MSG_TOKEN")
_MO_UNKNOWN = ~_MO_KNOWN
_GMO_IF_PERSISTENT = CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT
#: MQGMO options only _get_once handles (browse, cursors; MQGMO_SET_SIGNAL, z/OS's alone, and
#: bits IBM does not define: 2046)
_GMO_NOT_FAST = (_BROWSE_OPTS | _GMO_UNDER_CURSOR | CMQC.MQGMO_BROWSE_NEXT
                 | CMQC.MQGMO_SET_SIGNAL | ~_GMO_KNOWN)
# MQMD values an MQPUT takes (IBM): a MsgType in the system range or the application range
# that follows it, a Feedback of MQFB_NONE or in those ranges, no Report option of
# MQRO_REJECT_UNSUP_MASK (none of its bits is an option mqpy supports)
assert CMQC.MQMT_SYSTEM_LAST + 1 == CMQC.MQMT_APPL_FIRST
assert CMQC.MQFB_SYSTEM_LAST + 1 == CMQC.MQFB_APPL_FIRST
_MT_FIRST, _MT_LAST = CMQC.MQMT_SYSTEM_FIRST, CMQC.MQMT_APPL_LAST
_FB_LAST = CMQC.MQFB_APPL_LAST
_RO_REJECT = CMQC.MQRO_REJECT_UNSUP_MASK


def _id24(value: bytes) -> bytes:
    """A MsgId/CorrelId as its 24 stored bytes (pymqi lets applications give fewer)."""
    if len(value) == 24 and type(value) is bytes:
        return value
    return value[:24].ljust(24, b"\x00")


_CHECKPOINT_RETRY_SECONDS = 5  # after a failed checkpoint, before the next attempt
_NO_ID = frozenset((b"", b"\x00" * 24))  # the usual spellings of MQMI_NONE / MQCI_NONE


_NO_CONTEXT = {"UserIdentifier": b"", "AccountingToken": b"", "ApplIdentityData": b"",
               "PutApplType": CMQC.MQAT_NO_CONTEXT, "PutApplName": b"", "PutDate": b"",
               "PutTime": b"", "ApplOriginData": b""}


_DEFBIND_OPTION = {"OPEN": CMQC.MQOO_BIND_ON_OPEN, "NOTFIXED": CMQC.MQOO_BIND_NOT_FIXED,
                   "GROUP": CMQC.MQOO_BIND_ON_GROUP}
_BIND_OPTIONS = CMQC.MQOO_BIND_ON_OPEN | CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP


def _with_defbind(options: int, opened: ObjectDef) -> int:
    """MQOO_BIND_AS_Q_DEF takes the DEFBIND of the queue opened (an alias's own)."""
    if options & _BIND_OPTIONS:
        return options
    return options | _DEFBIND_OPTION.get(str(opened.attributes.get("DEFBIND") or "OPEN")
                                         .strip().upper(), CMQC.MQOO_BIND_ON_OPEN)


def _trusted(struc: MD, fields: dict[str, object]) -> None:
    """Set fields the queue manager itself computed, skipping the application-facing checks."""
    struc.__dict__.update(fields)


# The MQMD of a stored message was packed by the queue manager itself, so the hot path packs
# and unpacks it with the layout's compiled struct directly (mqstruct does the same after its
# checks); anything unusual takes MD.pack / MD.unpack, which raise the proper MQRC.
_MD_CODEC = {v: (MD._packers_[v], MD._layout_.struct(v, "<"), MD._names_[v],
                 MD._layout_.length(v)) for v in MD._layout_.versions}
_MD_BY_LENGTH = {codec[3]: v for v, codec in _MD_CODEC.items()}
_MD_LATER = {v: tuple(f for f in MD._layout_.fields if f.since > v) for v in _MD_CODEC}
_VERSION_AT = struct.Struct("<i")
_REPORT_AT = _VERSION_AT  # MQMD.Report: the MQLONG at offset 8 of every version
_MSG_HEADER = R.MESSAGE_HEADER  # a stored message: this header, its MQMD, its data
_MSG_HEADER_SIZE = R.MESSAGE_HEADER_SIZE


def _pack_md(md: MD) -> bytes:
    """``md.pack()``, without re-deriving the layout on every call."""
    d = md.__dict__
    codec = _MD_CODEC.get(d["Version"])
    if codec is None:
        return md.pack()
    try:
        return codec[0](d, codec[1], "<")
    except struct.error:
        return md.pack()  # raises StructError with MQRC_MD_ERROR


def _unpack_md(md: MD, md_bytes: bytes) -> None:
    """``md.unpack(md_bytes)`` for an MQMD the queue manager packed itself."""
    v = _MD_BY_LENGTH.get(len(md_bytes))
    if v is None or _VERSION_AT.unpack_from(md_bytes, 4)[0] != v \
            or not md_bytes.startswith(CMQC.MQMD_STRUC_ID):
        md.unpack(md_bytes)
        return
    d = md.__dict__
    later = _MD_LATER[v]
    if later:  # a version 1 MQMD: the version 2 fields take their defaults
        for f in later:
            d[f.name] = f.fresh_default()
    codec = _MD_CODEC[v]
    d.update(zip(codec[2], codec[1].unpack_from(md_bytes), strict=False))  # equal lengths


# (second, PutDate, PutTime's HHMMSS) and (hundredth of a second, its stamp), each replaced
# whole (one store), so that engines in other threads never read half of one
_stamp_second: list = [(-1, b"", b"")]
_stamp_last: list = [(-1, (b"", b""))]


def _put_timestamp(now: float) -> tuple[bytes, bytes]:
    """PutDate YYYYMMDD and PutTime HHMMSSTH, in GMT as MQ fills them."""
    hundredths = int(now * 100)
    last = _stamp_last[0]
    if hundredths == last[0]:
        return last[1]
    sec = int(now)
    cached = _stamp_second[0]
    if sec != cached[0]:
        gm = time.gmtime(sec)
        cached = _stamp_second[0] = (sec, time.strftime("%Y%m%d", gm).encode(),
                                     time.strftime("%H%M%S", gm).encode())
    stamp = (cached[1], cached[2] + b"%02d" % (hundredths % 100))
    _stamp_last[0] = (hundredths, stamp)
    return stamp


_IDENTITY = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
_ORIGIN = ("PutApplType", "PutApplName", "PutDate", "PutTime", "ApplOriginData")
_CONTEXT_PMO = (CMQC.MQPMO_NO_CONTEXT | CMQC.MQPMO_DEFAULT_CONTEXT
                | CMQC.MQPMO_PASS_IDENTITY_CONTEXT | CMQC.MQPMO_PASS_ALL_CONTEXT
                | CMQC.MQPMO_SET_IDENTITY_CONTEXT | CMQC.MQPMO_SET_ALL_CONTEXT)
# PMO context option -> the open option MQPUT1 adds for it
_CONTEXT_OPEN = {CMQC.MQPMO_PASS_IDENTITY_CONTEXT: CMQC.MQOO_PASS_IDENTITY_CONTEXT,
                 CMQC.MQPMO_PASS_ALL_CONTEXT: CMQC.MQOO_PASS_ALL_CONTEXT,
                 CMQC.MQPMO_SET_IDENTITY_CONTEXT: CMQC.MQOO_SET_IDENTITY_CONTEXT,
                 CMQC.MQPMO_SET_ALL_CONTEXT: CMQC.MQOO_SET_ALL_CONTEXT}
_CONTEXT_NOT_OPEN = {CMQC.MQPMO_PASS_IDENTITY_CONTEXT: CMQC.MQRC_NOT_OPEN_FOR_PASS_IDENT,
                     CMQC.MQPMO_PASS_ALL_CONTEXT: CMQC.MQRC_NOT_OPEN_FOR_PASS_ALL,
                     CMQC.MQPMO_SET_IDENTITY_CONTEXT: CMQC.MQRC_NOT_OPEN_FOR_SET_IDENT,
                     CMQC.MQPMO_SET_ALL_CONTEXT: CMQC.MQRC_NOT_OPEN_FOR_SET_ALL}
_PMO_SET_ALL = CMQC.MQPMO_SET_ALL_CONTEXT
_OO_SET_ALL = CMQC.MQOO_SET_ALL_CONTEXT
#: options only put_on_handle handles (set-all context: the fast path too, opened for it)
_PMO_NOT_FAST = (_CONTEXT_PMO & ~_PMO_SET_ALL) | _PMO_NEW_CORREL_ID | ~_PMO_KNOWN
_BLANK_NAMES = frozenset((b"", b" " * 48, b"\x00" * 48))  # a ReplyToQ naming no queue
_MD_MSGID_AT = MD._layout_.offsets["MsgId"]
_MD_DATE_AT = MD._layout_.offsets["PutDate"]  # PutTime follows
assert MD._layout_.offsets["PutTime"] == _MD_DATE_AT + 8
# the packed MQMD's fields read and written in place (engine.packed's puts and gets)
_MD_OFFSETS = MD._layout_.offsets
_MD_HEAD = struct.Struct("<4s5i")  # StrucId, Version, Report, MsgType, Expiry, Feedback
_MD_STRUC_ID = CMQC.MQMD_STRUC_ID
_MD_PRIORITY_AT = _MD_OFFSETS["Priority"]  # Persistence follows
_MD_PRIORITY_PERSISTENCE = struct.Struct("<2i")
_MD_MSGID = slice(_MD_MSGID_AT, _MD_MSGID_AT + 24)
_MD_CORRELID = slice(_MD_OFFSETS["CorrelId"], _MD_OFFSETS["CorrelId"] + 24)
_MD_REPLY_TO_Q = slice(_MD_OFFSETS["ReplyToQ"], _MD_OFFSETS["ReplyToQ"] + 48)
_MD_BACKOUT_AT = _MD_OFFSETS["BackoutCount"]
_MD_EXPIRY_AT = _MD_OFFSETS["Expiry"]
_ZERO_LONG = bytes(4)
assert _MD_OFFSETS["Persistence"] == _MD_PRIORITY_AT + 4 and _MD_EXPIRY_AT == 16
assert _MD_OFFSETS["CorrelId"] == _MD_MSGID_AT + 24
# Each structure's StrucId and the Versions mqpy knows: an embedded application hands the
# engine its objects (a bindings or client call's were checked when their bytes were read),
# so every call checks them, one comparison each in the usual case (_refuse_header does the
# rest: MQRC_MD_ERROR, MQRC_PMO_ERROR, MQRC_GMO_ERROR, MQRC_OD_ERROR).
def _versions(cls: type) -> frozenset[int]:
    layout = cls._layout_  # type: ignore[attr-defined]
    return frozenset(range(layout.versions[0], layout.highest_version + 1))


_MD_VERSIONS, _PMO_VERSIONS, _GMO_VERSIONS = _versions(MD), _versions(PMO), _versions(GMO)
_PMO_STRUC_ID, _GMO_STRUC_ID = CMQC.MQPMO_STRUC_ID, CMQC.MQGMO_STRUC_ID


def _refuse_header(*strucs: object) -> None:
    """The call fails with the first of ``strucs`` (MQStructs or None) whose StrucId or
    Version is not valid (``MQStruct.header_error``)."""
    for struc in strucs:
        reason = struc.header_error() if struc is not None else 0  # type: ignore[attr-defined]
        if reason:
            raise _fail(reason)


# The MQ headers an MQPUT's data must start with, valid, when its MQMD Format names one (IBM
# checks them at MQPUT): the fast paths leave such a put to the general path. By every way
# of writing the Format that packs to the name (a field is kept as given, blank-padded when
# packed: b"MQDEAD" is MQFMT_DEAD_LETTER_HEADER too).
_HEADER_FORMATS = {fmt.rstrip(b" ").ljust(n, b" "): fmt
                   for fmt in (CMQC.MQFMT_XMIT_Q_HEADER, CMQC.MQFMT_DEAD_LETTER_HEADER,
                               CMQC.MQFMT_RF_HEADER_2)
                   for n in range(len(fmt.rstrip(b" ")), len(fmt) + 1)}
_MD_FORMAT = slice(MD._layout_.offsets["Format"], MD._layout_.offsets["Format"] + 8)


def _check_header(fmt: bytes, data: bytes, encoding: int) -> None:
    """The call fails when ``data`` does not start with a valid header of the kind ``fmt``
    (one of _HEADER_FORMATS) names: MQRC_XQH_ERROR, MQRC_DLH_ERROR, MQRC_RFH_ERROR. Its
    integers are in ``encoding``'s byte order (the MQMD's Encoding)."""
    if fmt == CMQC.MQFMT_RF_HEADER_2:
        try:
            header = RFH2()
            header.unpack(data, encoding)
        except PYIFError:
            raise _fail(CMQC.MQRC_RFH_ERROR) from None
        if header.Version != CMQC.MQRFH_VERSION_2:
            raise _fail(CMQC.MQRC_RFH_ERROR)
        return
    cls = XQH if fmt == CMQC.MQFMT_XMIT_Q_HEADER else DLH
    try:
        cls.from_bytes(data, encoding)
    except (StructError, struct.error):
        raise _fail(cls._layout_.reason) from None


_REPORTS_NEEDING_REPLY_Q = (CMQC.MQRO_COA | CMQC.MQRO_COD | CMQC.MQRO_EXCEPTION
                            | CMQC.MQRO_EXPIRATION | CMQC.MQRO_PAN | CMQC.MQRO_NAN)
# PMO context option -> the open options any of which permit it (each implies the weaker ones)
_CONTEXT_OPEN_OK = {
    CMQC.MQPMO_PASS_IDENTITY_CONTEXT: CMQC.MQOO_PASS_IDENTITY_CONTEXT | CMQC.MQOO_PASS_ALL_CONTEXT
    | CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT,
    CMQC.MQPMO_PASS_ALL_CONTEXT: CMQC.MQOO_PASS_ALL_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT,
    CMQC.MQPMO_SET_IDENTITY_CONTEXT: CMQC.MQOO_SET_IDENTITY_CONTEXT | CMQC.MQOO_SET_ALL_CONTEXT,
    CMQC.MQPMO_SET_ALL_CONTEXT: CMQC.MQOO_SET_ALL_CONTEXT,
}


def _transmission_message(md: MD, data: bytes, remote_q: str, remote_qm: str
                          ) -> tuple[MD, bytes]:
    """A message for a transmission queue: its own MQMD (Format MQXMIT) then an MQXQH naming
    the destination and embedding the original MQMD, then the data."""
    xqh = XQH()
    xqh.RemoteQName = remote_q.encode("latin-1")
    xqh.RemoteQMgrName = remote_qm.encode("latin-1")
    xqh.MsgDesc = md.copy()
    outer = md.copy()
    outer.Format = CMQC.MQFMT_XMIT_Q_HEADER
    outer.Encoding = CMQC.MQENC_NATIVE
    return outer, xqh.pack() + data


def _fail(reason: int, comp: int = _FAILED) -> MQMIError:
    return MQMIError(comp, reason)


def _strip(b: bytes | str) -> str:
    if isinstance(b, str):
        return b.rstrip(" \x00")
    return b.rstrip(b" \x00").decode("latin-1")


def _appl_name() -> bytes:
    name = os.path.basename(sys.argv[0] or "python") or "python"
    return name[-28:].encode("latin-1", "replace")


def entry_from_record(seq: int, record: bytes) -> Entry:
    """Rebuild a message's index entry from its stored record (used at restart)."""
    put_time, backout, md_bytes, data = R.decode_message(record)
    md = MD().unpack(md_bytes)
    expiry_at = put_time + md.Expiry / 10.0 if md.Expiry > 0 else 0.0
    return Entry(seq, min(md.Priority, 9), md.Persistence == CMQC.MQPER_PERSISTENT, _id24(md.MsgId),
                 _id24(md.CorrelId), expiry_at, len(data), record, put_time, backout_count=backout)


@attrs.define(eq=False)
class Handle:
    """An open object handle (Hobj)."""

    hobj: int
    obj: ObjectDef  # the object opened (an alias stays an alias)
    base: ObjectDef  # the local queue it resolves to
    mq: MessageQueue
    options: int
    exclusive: bool = False
    browse_key: tuple[int, int] | None = None
    browse_entry: Entry | None = None
    dynamic: str | None = None  # "TEMPDYN" when this handle created a temporary queue
    remote_q: str | None = None  # set when ``base`` is a transmission queue: the destination
    remote_qm: str | None = None
    saved_context: MD | None = None  # MQOO_SAVE_ALL_CONTEXT: context of the last get
    resolved: tuple[bytes, bytes] | None = None  # (ResolvedQName, ResolvedQMgrName), encoded

    @property
    def base_name(self) -> bytes:
        """The local queue's name as MQGET's ResolvedQName."""
        return self.base.name.encode()
    deleted: bool = False  # the queue was deleted while open (MQRC_Q_DELETED)
    cluster: ClusterRoute | None = None  # a cluster queue: the route chosen at MQOPEN
    facts: _Facts | None = None  # what MQPUT and MQGET read of the attributes (_facts)
    #: the statistics and accounting counters a put or get adds to (Connection._counters)
    counters: HandleCounters | None = None


class _Facts:
    """What a handle's MQPUT and MQGET read of the queue's, the object's and the queue
    manager's attributes, worked out once rather than on every call.

    Valid while those three dictionaries are the very objects it was made from: ALTER, MQSET,
    DEFINE ... REPLACE and ALTER QMGR install new dictionaries and never change one in place,
    so an identity test is enough (:meth:`Connection._facts`). ``put`` and ``get`` say whether the
    fast paths (:meth:`Connection._put_fast`, :meth:`Connection._get_fast`) may serve the
    handle at all: a local queue, not a cluster queue nor a remote one, enabled, without
    triggering; anything else takes the general path."""

    __slots__ = ("obj_attrs", "base_attrs", "qmgr_attrs", "put", "get", "persistence",
                 "priority", "tempdyn", "maxmsgl", "maxdepth", "by_priority")

    def __init__(self, h: Handle, qmgr_attrs: dict) -> None:
        oa, ba = h.obj.attributes, h.base.attributes
        self.obj_attrs, self.base_attrs, self.qmgr_attrs = oa, ba, qmgr_attrs
        self.by_priority = ba.get("MSGDLVSQ", "PRIORITY") == "PRIORITY"
        self.get = oa.get("GET") != "DISABLED" and ba.get("GET") != "DISABLED"
        self.put = False
        self.persistence = _PERSISTENT if oa.get("DEFPSIST") == "YES" else _NOT_PERSISTENT
        self.tempdyn = ba.get("DEFTYPE") == "TEMPDYN"
        try:
            self.priority = int(oa.get("DEFPRTY", 0))  # type: ignore[arg-type]
            self.maxmsgl = min(int(ba.get("MAXMSGL", 4194304)),  # type: ignore[arg-type]
                               int(qmgr_attrs.get("MAXMSGL", 4194304)))  # type: ignore[arg-type]
            self.maxdepth = int(ba.get("MAXDEPTH", 5000))  # type: ignore[arg-type]
        except (TypeError, ValueError):  # the general path says what is wrong
            return
        self.put = (h.cluster is None and h.remote_qm is None and h.obj.objtype != "QCLUSTER"
                    and oa.get("PUT") != "DISABLED" and ba.get("PUT") != "DISABLED"
                    and ba.get("TRIGGER") != "YES")


class QueueManagerEngine:
    """One queue manager's engine; construct with :meth:`create` or :meth:`open`."""

    def __init__(self, qmdir: str, name: str, log_config: LogConfig | None = None,
                 tuning: Tuning | None = None, log_dir: str | None = None) -> None:
        self.qmdir = qmdir
        self.name = name
        self.lock = threading.RLock()
        self.catalog = Catalog()
        self.data = DataManager(qmdir, self.catalog, entry_from_record, log_config, tuning,
                                log_dir)
        self.data.lock = self.lock
        self.data.on_log_full = self._back_out_for_log
        self.data.on_log_failure = self._log_failed
        self.data.on_checkpoint_failure = self._checkpoint_failed
        self.connections: dict[int, Connection] = {}
        self._next_hconn = 1
        self._msgid_base = int(time.time() * 1_000_000)
        self._msgid_prefix: bytes | None = None
        self.quiescing = False
        self.stopped = False
        self.failed: LogError | None = None  # the log write that stopped the queue manager
        self._closed = False
        self._disk_full_reported = 0.0
        self._pageset_error_reported = 0.0
        self._checkpointer: threading.Thread | None = None
        self._expiry_stop = threading.Event()
        self.started_at = time.time()
        self.log_full_backouts = 0
        self.stats = Statistics()
        self.authority: Authority = AllowAll()
        self.stats_expired = 0
        self.expiry_interval = 60.0  # seconds between expiry scans
        self._last_expiry_scan = time.monotonic()
        self.cluster: ClusterDirectory | None = None  # set by mqpy.local.start
        #: ``.conn``: the connection whose call defers its log forces on this thread
        #: (mqpy.serving); the queue manager's own puts in that call defer with it.
        self.deferring = threading.local()

    # ------------------------------------------------------------------ lifecycle

    @classmethod
    def create(cls, qmdir: str, name: str, *, dead_letter_queue: str = "",
               log_config: LogConfig | None = None, tuning: Tuning | None = None,
               log_dir: str | None = None) -> QueueManagerEngine:
        """Create a queue manager: pagesets, log, and the system and default objects."""
        if os.path.exists(os.path.join(qmdir, "pageset00")):
            raise FileExistsError(qmdir)
        os.makedirs(qmdir, exist_ok=True)
        eng = cls(qmdir, name, log_config, tuning, log_dir)
        with eng.lock:
            eng.data.restart()
            qm = ObjectDef.new("QMGR", name, {"QMNAME": name})
            qm.attributes.update({k: v for k, v in _qmgr_defaults().items()
                                  if k not in qm.attributes})
            eng.catalog.qmgr = qm.attributes
            eng.data.log_object("define", qm)
            eng.catalog.install(qm)
            for objtype, oname, attributes in SYSTEM_OBJECTS:
                eng.define(objtype, oname, attributes)
            if dead_letter_queue:
                eng.define("QLOCAL", dead_letter_queue, {})
                eng.alter_qmgr({"DEADQ": dead_letter_queue})
        eng.data.checkpoint()
        eng._start_threads()
        return eng

    @classmethod
    def open(cls, qmdir: str, name: str, log_config: LogConfig | None = None,
             tuning: Tuning | None = None, log_dir: str | None = None) -> QueueManagerEngine:
        """Restart a queue manager from its pagesets and log."""
        if not os.path.exists(os.path.join(qmdir, "pageset00")):
            raise FileNotFoundError(qmdir)
        eng = cls(qmdir, name, log_config, tuning, log_dir)
        with eng.lock:
            eng.data.restart()
            qm = eng.catalog.lookup("QMGR", name)
            if qm is None:
                raise PagesetError(os.path.join(qmdir, "pageset00"),
                                   f"no queue manager object {name}")
            eng.catalog.qmgr = qm.attributes
            # temporary dynamic queues do not survive a restart
            for obj in [o for o in eng.catalog.by_type("QLOCAL")
                        if o.attributes.get("DEFTYPE") == "TEMPDYN"]:
                eng._delete_queue_locked(obj, purge=True, force=True)
        eng.data.checkpoint()
        eng._start_threads()
        return eng

    def _start_threads(self) -> None:
        self._checkpointer = threading.Thread(target=self._checkpoint_loop,
                                              name=f"checkpoint-{self.name}", daemon=True)
        self._checkpointer.start()

    def _checkpoint_loop(self) -> None:
        """The queue manager's housekeeping thread: checkpoints when wanted, expiry scans."""
        while not self.stopped:
            self.data.checkpoint_wanted.wait(1.0)
            if self.stopped:
                break
            try:
                if time.monotonic() - self._last_expiry_scan >= self.expiry_interval:
                    self._last_expiry_scan = time.monotonic()
                    self.expire_scan()
                if self.data.checkpoint_wanted.is_set():
                    self.data.checkpoint()
            except Exception as exc:  # noqa: BLE001 - logged; tried again later
                if self.stopped:
                    break
                self._checkpoint_failed(exc)
                for _ in range(_CHECKPOINT_RETRY_SECONDS):  # not in a tight loop
                    if self.stopped:
                        break
                    time.sleep(1.0)

    def _checkpoint_failed(self, exc: Exception) -> None:
        """A checkpoint (or an expiry scan) failed: the pagesets keep their last checkpoint,
        the log keeps everything since (so nothing is lost), and the housekeeping thread tries
        again. A pageset that cannot be written (a full disk) is AMQ7002, once a minute, a
        log segment the disk cannot take AMQ6708 (the same); anything else an FDC."""
        from mqpy import errorlog, messages

        if isinstance(exc, LogDiskFull):  # its record needs a log segment the disk refused
            self._log_failed(exc)  # AMQ6708, once a minute
            return
        errors = os.path.join(self.qmdir, "errors")
        log = errorlog.ErrorLog(errors, qmgr=self.name, program="amqzxma0")
        if isinstance(exc, PagesetError):
            now = time.monotonic()
            if now - self._pageset_error_reported >= 60.0:
                self._pageset_error_reported = now
                log.write(messages.AMQ7002, inserts={"offset": 0, "path": exc.path,
                                                     "detail": exc.detail})
        else:
            try:
                errorlog.write_fdc(errors, "HL081001", "checkpoint", exc, qmgr=self.name,
                                   errorlog=log)
            except OSError:  # no room even for the FDC: the error log entry says enough
                log.write(messages.AMQ6119, inserts={"detail": f"checkpoint failed: {exc}"})

    def close(self, *, checkpoint: bool = True) -> None:
        """Shut down: back out open units of work, checkpoint, close files. After a log
        failure nothing more is written: restart backs out what was in flight. A checkpoint
        the pagesets refuse is reported and the shutdown goes on (restart redoes the log)."""
        with self.lock:
            if self._closed:
                return
            self._closed = True
            self.quiescing = True
            failed = self.failed is not None
            for conn in list(self.connections.values()):
                if not failed:
                    conn._disconnect_locked(abnormal=True)
                conn.broken = True
        if checkpoint and not failed:
            try:
                self.data.checkpoint()
            except Exception as exc:  # noqa: BLE001 - the log keeps it all: restart redoes it
                if self.failed is None:  # (a log failure under it was reported already)
                    self._checkpoint_failed(exc)
        self.stopped = True
        self.data.checkpoint_wanted.set()
        if self._checkpointer is not None and self._checkpointer is not threading.current_thread():
            self._checkpointer.join(5)
        with self.lock:
            self.data.close()

    def _log_failed(self, exc: LogError) -> None:
        """The log could not be formatted (a full disk: AMQ6708, the call gets 2102 and the
        queue manager goes on) or written (AMQ6119: the queue manager stops at once, every
        connection gets MQRC_CONNECTION_BROKEN, and nothing more reaches the log or the
        pagesets, so restart recovers exactly what the disk holds)."""
        from mqpy import errorlog, messages

        log = errorlog.ErrorLog(os.path.join(self.qmdir, "errors"), qmgr=self.name,
                                program="amqzxma0")
        if isinstance(exc, LogDiskFull):
            now = time.monotonic()
            if now - self._disk_full_reported >= 60.0:  # once a minute while it lasts
                self._disk_full_reported = now
                log.write(messages.AMQ6708, inserts={"location": exc.location})
            return
        with self.lock:
            if self.failed is not None:
                return
            self.failed = exc
            self.stopped = True
            for mq in self.catalog.queues.values():
                mq.wake()  # waiting getters see the connection broken
        log.write(messages.AMQ6119, inserts={"detail": f"{exc} (the queue manager ended)"})

    def quiesce(self) -> None:
        """A controlled end: calls with FAIL_IF_QUIESCING now fail with 2161; waiters wake."""
        with self.lock:
            self.quiescing = True
            for mq in self.catalog.queues.values():
                mq.wake()

    def checkpoint(self) -> None:
        self.data.checkpoint()

    # ------------------------------------------------------------------ storing messages

    def _store(self, conn: Connection | None, base: ObjectDef, mq: MessageQueue,
               md_bytes: bytes, body: bytes, *, priority: int, persistent: bool, msgid: bytes,
               correlid: bytes, expiry: int, report: int, now: float, syncpoint: bool,
               put1: bool = False) -> int | None:
        """Put one message on local queue ``base`` (engine lock held); the LSN to force."""
        a = base.attributes
        length = len(body)
        if length > int(a.get("MAXMSGL", 4194304)):  # type: ignore[arg-type]
            raise _fail(CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
        if mq.count - mq.getting >= int(a.get("MAXDEPTH", 5000)):  # type: ignore[arg-type]
            raise _fail(CMQC.MQRC_Q_FULL)
        record = R.encode_message(now, md_bytes, body)
        expiry_at = now + expiry / 10.0 if expiry > 0 else 0.0
        entry = Entry(self.data.new_seq(), priority, persistent, _id24(msgid),
                      _NONE24 if correlid in _NO_ID else _id24(correlid), expiry_at, length,
                      record, now)
        entry.report = report
        lsn = self._enqueue(conn, base, mq, entry, persistent, syncpoint)
        mq.last_put = now
        p = 1 if persistent else 0
        stats = self.stats
        qs = stats.queue(base.name)
        if conn is None:
            counted: tuple = (stats.mqi, qs)
        else:  # accounting: the same, per connection
            acc = conn.accounting
            counted = (stats.mqi, qs, acc.mqi, acc.queue(base.name))
        for counters in counted:
            (counters.put1s if put1 else counters.puts)[p] += 1
            counters.put_bytes[p] += length
        qs.depth_seen(mq.count - mq.getting)
        return lsn

    def _enqueue(self, conn: Connection | None, base: ObjectDef, mq: MessageQueue,
                 entry: Entry, persistent: bool, syncpoint: bool) -> int | None:
        """Log (if persistent) and queue a new message; the LSN to force, if any."""
        lsn = None
        try:
            if syncpoint:
                assert conn is not None
                uow = conn._uow()
                if persistent:
                    self.data.log_put(uow, mq, entry)
                entry.state, entry.owner = PUT_PENDING, uow
                mq.add(entry)
                uow.puts.append((mq, entry))
                if base.attributes.get("TRIGGER") == "YES":
                    self._trigger_check(base, mq, entry, uow=uow)
            else:
                if persistent:
                    lsn = self.data.log_put1(mq, entry)
                mq.add(entry)
                self._arrived(base, mq, entry)
        except UowBackedOut:
            raise _fail(CMQC.MQRC_BACKED_OUT) from None
        except PagesetFull:
            raise _fail(CMQC.MQRC_STORAGE_MEDIUM_FULL) from None
        except LogError:  # LogFull included
            raise _fail(CMQC.MQRC_RESOURCE_PROBLEM) from None
        return lsn

    def _arrived(self, base: ObjectDef, mq: MessageQueue, entry: Entry, *,
                 committed: bool = False) -> None:
        """A message became available: wake getters, confirm on arrival, and (for a put
        outside syncpoint; a unit of work's puts were judged when put) check triggers."""
        if mq.waiters:
            mq.wake()
        if entry.report & _RO_COA and base.attributes.get("USAGE") != "XMITQ":
            self._report_from_entry("COA", mq, entry)
        if not committed and base.attributes.get("TRIGGER") == "YES":
            self._trigger_check(base, mq, entry)

    def _report_from_entry(self, kind: str, mq: MessageQueue, entry: Entry,
                           feedback: int | None = None) -> None:
        self._report_from_record(kind, self.data.read_record(mq, entry), feedback)

    def _report_from_record(self, kind: str, record: bytes, feedback: int | None = None) -> None:
        _put_time, _bo, md_bytes, body = R.decode_message(record)
        self.report(kind, MD().unpack(md_bytes), body, feedback=feedback)

    def report(self, kind: str, original: MD, data: bytes, *, feedback: int | None = None) -> None:
        """Send the COA/COD/EXPIRATION/EXCEPTION report ``original`` asked for, if any."""
        built = reports.build_report(kind, original, data, feedback=feedback,
                                     qmgr_name=self.name, msgid=self.new_msgid())
        if built is None:
            return
        rmd, body = built
        self._system_put(_strip(original.ReplyToQ), _strip(original.ReplyToQMgr), rmd, body)

    def _system_put(self, qname: str, qmname: str, md: MD, body: bytes, *,
                    dead_letter: bool = True) -> bool:
        """A put by the queue manager itself (reports, trigger messages, dead letters), outside
        syncpoint, context as given; an undeliverable one goes to the dead-letter queue."""
        try:
            res = resolution.resolve(self.catalog, self.name, qname, qmname)
            if res.target.objtype != "QLOCAL":
                raise _fail(CMQC.MQRC_Q_TYPE_ERROR)
            if res.target.attributes.get("PUT") == "DISABLED":
                raise _fail(CMQC.MQRC_PUT_INHIBITED)
            out_md, out = md, body
            if res.remote_qm is not None:
                out_md, out = _transmission_message(md, body, res.remote_q or qname,
                                                    res.remote_qm)
            if _id24(md.MsgId) == _NONE24:
                _trusted(md, {"MsgId": self.new_msgid()})
                out_md.MsgId = md.MsgId
            prio = md.Priority if 0 <= md.Priority <= 9 else 0
            lsn = self._store(None, res.target, self.catalog.queues[res.target.qid],
                              out_md.pack(), out, priority=prio,
                              persistent=md.Persistence == CMQC.MQPER_PERSISTENT,
                              msgid=md.MsgId, correlid=md.CorrelId, expiry=md.Expiry,
                              report=md.Report, now=time.time(), syncpoint=False)
        except MQMIError as e:
            if dead_letter:
                return self.dead_letter(md, body, e.reason, qname, qmname or self.name)
            return False
        if lsn is not None:
            self._force(lsn)
        return True

    def _force(self, lsn: int) -> None:
        """Force the log up to ``lsn`` for a put of the queue manager's own (a report, a
        trigger message, a dead letter); inside an MQI call served from an event loop
        (``deferring``) the force is left to that call, which makes it before it answers."""
        conn = getattr(self.deferring, "conn", None)
        if conn is not None:
            conn.force_log(lsn)
        else:
            self.data.force(lsn)

    def dead_letter(self, md: MD, data: bytes, reason: int, dest_q: str, dest_qm: str) -> bool:
        """Put a message that cannot be delivered on DEADQ behind an MQDLH; False if there is
        no usable dead-letter queue (the caller then keeps or reports the message)."""
        deadq = str(self.catalog.qmgr.get("DEADQ", "") or "").strip()
        if not deadq:
            return False
        date, tod = _put_timestamp(time.time())
        dmd, body = reports.build_dead_letter(md, data, reason, dest_q, dest_qm,
                                              put_appl_name=b"mqpy queue manager",
                                              put_date=date, put_time=tod)
        return self._system_put(deadq, "", dmd, body, dead_letter=False)

    # ------------------------------------------------------------------ triggering

    def _eligible_depth(self, base: ObjectDef, mq: MessageQueue,
                        uow: UnitOfWork | None = None) -> int:
        """Messages that count for triggering: available ones at or above TRIGMPRI, plus, for
        a put in a unit of work, that unit of work's own puts on the queue."""
        floor = int(base.attributes.get("TRIGMPRI", 0))  # type: ignore[arg-type]
        own = sum(1 for q, e in uow.puts if q is mq and e.priority >= floor
                  and e.state == PUT_PENDING) if uow is not None else 0
        if floor <= 0:
            return mq.count - mq.uncommitted + own
        return own + mq.available_at_or_above(floor)

    def _trigger_target(self, base: ObjectDef) -> tuple[ObjectDef | None, bool, ObjectDef | None]:
        """(initiation queue, someone listening on it, process definition) of a queue."""
        a = base.attributes
        initq = self.catalog.queue_def(str(a.get("INITQ", "") or ""))
        listening = False
        if initq is not None and initq.objtype == "QLOCAL":
            imq = self.catalog.queues[initq.qid]
            listening = any(h.options & _INPUT_OPTS for h in self._open_handles(imq))
        proc = self.catalog.lookup("PROCESS", str(a.get("PROCESS", "") or ""))
        return initq, listening, proc

    def _trigger_check(self, base: ObjectDef, mq: MessageQueue, entry: Entry, *,
                       uow: UnitOfWork | None = None) -> None:
        """Judge the trigger conditions for one arriving message; for a put in a unit of work
        the trigger message waits for the unit of work to end (commit or backout, as IBM)."""
        initq, listening, proc = self._trigger_target(base)
        now_ms = time.time() * 1000
        decision = triggers.on_arrival(
            base.attributes, eligible_depth=self._eligible_depth(base, mq, uow),
            priority=entry.priority,
            input_open=any(h.options & _INPUT_OPTS for h in self._open_handles(mq)),
            initq_listening=listening, has_process=proc is not None, now_ms=now_ms,
            last_trigger_ms=mq.last_trigger,
            trigint_ms=int(self.catalog.qmgr.get("TRIGINT", 999999999)))  # type: ignore[arg-type]
        if decision.fire and initq is not None:
            if uow is not None:
                uow.triggers.append((base, mq, initq, proc, decision.switch_off))
                mq.last_trigger = now_ms
            else:
                self._fire_trigger(base, mq, initq, proc, decision.switch_off)

    def _fire_trigger(self, base: ObjectDef, mq: MessageQueue, initq: ObjectDef,
                      proc: ObjectDef | None, switch_off: bool) -> None:
        md, body = reports.build_trigger(base.name, proc.attributes if proc else None,
                                         proc.name if proc else "",
                                         str(base.attributes.get("TRIGDATA", "") or ""))
        mq.last_trigger = time.time() * 1000
        self._system_put(initq.name, "", md, body)
        if switch_off:
            self.alter("QLOCAL", base.name, {"TRIGGER": "NO"})

    def _on_input_open(self, opened: ObjectDef) -> None:
        """An initiation queue was opened for input: trigger queues already waiting on it."""
        for obj in list(self.catalog.objects.values()):
            if obj.objtype != "QLOCAL" or obj.attributes.get("TRIGGER") != "YES":
                continue
            if str(obj.attributes.get("INITQ", "")) != opened.name or obj is opened:
                continue
            mq = self.catalog.queues[obj.qid]
            proc = self.catalog.lookup("PROCESS", str(obj.attributes.get("PROCESS", "") or ""))
            decision = triggers.on_initq_open(
                obj.attributes, eligible_depth=self._eligible_depth(obj, mq),
                input_open=any(h.options & _INPUT_OPTS for h in self._open_handles(mq)),
                has_process=proc is not None)
            if decision.fire:
                self._fire_trigger(obj, mq, opened, proc, decision.switch_off)

    # ------------------------------------------------------------------ expiry

    def expire_scan(self) -> int:
        """Remove every expired message that is not locked; send expiration reports."""
        removed = 0
        lsn = None
        with self.lock:
            now = time.time()
            for mq in list(self.catalog.queues.values()):
                for e in mq.expired_entries(now):
                    done = self._expire_entry(mq, e)
                    if done is not False:
                        lsn = done or lsn
                        removed += 1
        if lsn is not None:
            self.data.force(lsn)
        return removed

    def _expire_entry(self, mq: MessageQueue, entry: Entry) -> int | None | bool:
        """Remove an expired message (its removal logged first) and send its expiration
        report; the LSN to force. False when the log is full: the message stays, to be
        removed by a later get or scan, and no report goes out twice."""
        record = (self.data.read_record(mq, entry) if entry.report & CMQC.MQRO_EXPIRATION
                  else None)
        lsn = None
        if entry.persistent:
            try:
                lsn = self.data.log_get1(mq, entry)
            except LogFull:
                return False
        else:
            entry.record = None
        mq.remove(entry)
        self.stats_expired += 1
        self.stats.mqi.expired += 1
        base = self.catalog.by_qid.get(mq.qid)
        if base is not None:
            self.stats.queue(base.name).expired += 1
        if record is not None:
            self._report_from_record("EXPIRATION", record)
        return lsn

    def _back_out_for_log(self, uow: UnitOfWork) -> None:
        """The log is full and ``uow`` pins it: back it out; its owner's next call says so."""
        for conn in self.connections.values():
            if conn.uow is uow:
                conn.uow = None
                conn.backed_out = True
        _finish_uow(self, uow, False)
        self.log_full_backouts += 1

    # ------------------------------------------------------------------ objects

    def define(self, objtype: str, name: str, attributes: dict[str, object] | None = None,
               *, like: str | None = None, replace: bool = False) -> ObjectDef:
        """DEFINE an object (logged and forced before it exists)."""
        with self.lock:
            if len(name) > 48 or not name:
                raise _fail(CMQC.MQRC_OBJECT_NAME_ERROR)
            old = self.catalog.lookup(objtype, name)
            if old is not None:
                if not replace or old.objtype != objtype:
                    raise _fail(CMQC.MQRC_OBJECT_ALREADY_EXISTS)
                merged = dict(old.attributes)
                merged.update(attributes or {})
                self.data.log_object("alter", ObjectDef(objtype, name, merged, old.qid))
                # as ALTER does: the same object with a new dictionary, so that handles
                # already open obey the new definition at their next call
                old.attributes = merged
                self.catalog.install(old)
                return old
            base = self.catalog.lookup(objtype, like) if like else None
            obj = ObjectDef.new(objtype, name, attributes, like=base)
            if objtype == "QLOCAL":
                obj.qid = self.catalog.next_qid
                self.catalog.next_qid += 1
            self.data.log_object("define", obj)
            self.catalog.install(obj)
            return obj

    def alter(self, objtype: str, name: str, attributes: dict[str, object]) -> ObjectDef:
        with self.lock:
            obj = self.catalog.lookup(objtype, name)
            if obj is None or obj.objtype != objtype:
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            new = ObjectDef(obj.objtype, obj.name, {**obj.attributes, **attributes}, obj.qid)
            new.attributes["ALTDATE"], new.attributes["ALTTIME"] = time.strftime(
                "%Y-%m-%d"), time.strftime("%H.%M.%S")
            self.data.log_object("alter", new)
            obj.attributes = new.attributes
            return obj

    def alter_qmgr(self, attributes: dict[str, object]) -> None:
        with self.lock:
            qm = self.catalog.lookup("QMGR", self.name)
            assert qm is not None
            self.alter("QMGR", self.name, attributes)
            self.catalog.qmgr = qm.attributes

    def delete(self, objtype: str, name: str, *, purge: bool = False) -> None:
        """DELETE an object; a local queue must be closed, not in doubt, and empty unless PURGE."""
        with self.lock:
            obj = self.catalog.lookup(objtype, name)
            if obj is None or obj.objtype != objtype:
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            if obj.objtype == "QLOCAL":
                self._delete_queue_locked(obj, purge=purge)
            else:
                self.data.log_object("delete", obj)
                self.catalog.remove(obj.objtype, obj.name)

    def _delete_queue_locked(self, obj: ObjectDef, *, purge: bool, force: bool = False) -> None:
        """Delete a local queue. ``force`` is the temporary dynamic queue's close: it goes
        whatever is open or uncommitted, and other handles on it then get MQRC_Q_DELETED."""
        mq = self.catalog.queues.get(obj.qid)
        if mq is not None and not force:
            if self._open_handles(mq):
                raise _fail(CMQC.MQRC_OBJECT_IN_USE)
            if mq.uncommitted or (mq.depth and not purge):
                raise _fail(CMQC.MQRC_Q_NOT_EMPTY)
        self.data.log_object("delete", obj)
        if mq is not None:
            self.data.drop_queue(obj, mq)
            for h in self._open_handles(mq):
                h.deleted = True
            mq.clear()
        self.catalog.remove(obj.objtype, obj.name)

    def clear(self, name: str) -> int:
        """CLEAR QLOCAL: remove every message; refused while the queue is open or has
        uncommitted work (IBM's AMQ8148/MQRC_OBJECT_IN_USE). Returns how many went."""
        with self.lock:
            obj = self.catalog.queue_def(name)
            if obj is None or obj.objtype != "QLOCAL":
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            mq = self.catalog.queues[obj.qid]
            if self._open_handles(mq) or mq.uncommitted:
                raise _fail(CMQC.MQRC_OBJECT_IN_USE)
            lsn = None
            gone = list(mq.entries())
            self.stats.mqi.purged += len(gone)
            self.stats.queue(name).purged += len(gone)
            for e in gone:
                mq.remove(e)
                if e.persistent:
                    lsn = self.data.log_get1(mq, e)
                e.record = None
        if lsn is not None:
            self.data.force(lsn)
        return len(gone)

    def _open_handles(self, mq: MessageQueue) -> list[Handle]:
        return [h for c in self.connections.values() for h in c.handles.values() if h.mq is mq]

    def lookup(self, objtype: str, name: str) -> ObjectDef | None:
        with self.lock:
            return self.catalog.lookup(objtype, name)

    def queue_status(self, name: str) -> dict[str, object]:
        """CURDEPTH, IPPROCS, OPPROCS, UNCOM and the like, for DISPLAY QSTATUS and MQINQ."""
        with self.lock:
            obj = self.catalog.queue_def(name)
            if obj is None or obj.objtype != "QLOCAL":
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            mq = self.catalog.queues[obj.qid]
            handles = self._open_handles(mq)
            return {
                "CURDEPTH": mq.depth,
                "IPPROCS": sum(1 for h in handles if h.options & _INPUT_OPTS),
                "OPPROCS": sum(1 for h in handles if h.options & CMQC.MQOO_OUTPUT),
                "UNCOM": mq.uncommitted,
            }

    # ------------------------------------------------------------------ connections

    def connect(self, appl_name: str | None = None, *, user: str | None = None,
                password: str | None = None, channel: str | None = None,
                asserted: str | None = None, adopted: bool = False,
                conname: str | None = None) -> Connection:
        """MQCONN; ``authority`` may refuse it (2035). The check runs outside the engine
        lock: verifying a password takes tens of milliseconds (scrypt).

        ``user`` alone is an asserted identity; ``user`` with ``password`` is an MQCSP, whose
        user the connection runs as only once authenticated (``Authority.check_connect``),
        else as ``asserted`` (default: this process's user). ``adopted``: the channel
        initiator derived ``asserted`` from the MQCSP, so the password must be right.
        ``channel`` and ``conname``: the SVRCONN and the client's address a channel initiator
        connects for (DISPLAY CONN shows them).

        A connection that names no user, password or channel is made by this process itself
        (the daemon's command server, statistics, an embedded application): it runs as the
        process owner and is trusted as MQ trusts its own components."""
        conn = Connection(self, 0, appl_name, None)
        if user is not None or password is not None or channel is not None \
                or asserted is not None:
            default = conn.user.decode("latin-1").strip()
            run_as = self.authority.check_connect(
                default if user is None else user, password,
                conn.appl_name.decode("latin-1"), channel, asserted=asserted or default,
                adopted=adopted)
            conn.user = run_as[:12].encode("latin-1", "replace")
        conn.channel, conn.conname = channel or "", conname or ""
        with self.lock:
            if self.stopped:
                raise _fail(CMQC.MQRC_Q_MGR_NOT_AVAILABLE)
            if self.quiescing:
                raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
            conn.hconn = self._next_hconn
            self._next_hconn += 1
            hconn = conn.hconn
            self.connections[hconn] = conn
            self.stats.mqi.connects += 1
            return conn

    def new_msgid(self) -> bytes:
        self._msgid_base += 1
        prefix = self._msgid_prefix
        if prefix is None:
            prefix = self._msgid_prefix = b"AMQ " + self.name[:12].ljust(12).encode("latin-1")
        return prefix + self._msgid_base.to_bytes(8, "big")

    # ------------------------------------------------------------------ in-doubt resolution

    def indoubt(self) -> list[bytes]:
        """LUWIDs of prepared units of work awaiting COMMIT or BACKOUT."""
        with self.lock:
            return list(self.data.indoubt)

    def resolve(self, luwid: bytes, commit: bool, *, wait: bool = True) -> None:
        """Commit or back out a prepared unit of work (RESOLVE CHANNEL, channel resync).

        ``wait`` False (a commit only): return without waiting for the log force of the
        commit record; the log's next force covers it. A sending MCA's batch may: its
        prepare was forced, and a commit record lost in a crash leaves the unit of work in
        doubt at restart, where the partner's sync record (which has the batch) resolves it
        to commit again."""
        with self.lock:
            uow = self.data.indoubt.get(luwid)
            if uow is None:
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            lsn = _finish_uow(self, uow, commit)
        if lsn is not None and (wait or not commit):
            self.data.force(lsn)


def _qmgr_defaults() -> dict[str, object]:
    from mqpy.engine.objects import QMGR_DEFAULTS

    return dict(QMGR_DEFAULTS)


_NO_IDS: frozenset[int] = frozenset()


def _finish_uow(eng: QueueManagerEngine, uow: UnitOfWork, commit: bool) -> int | None:
    """Commit or back out ``uow`` in memory (engine lock held); return the LSN to force.

    A message the unit of work put and then got itself is in both lists: commit removes it,
    backout removes it too (the put never happened), and its backout count is not raised.
    """
    data = eng.data
    lsn = None
    puts, gets = uow.puts, uow.gets
    own_puts = {id(e) for _, e in puts} if gets and puts else _NO_IDS
    woken: dict[int, MessageQueue] | None = None
    if commit:
        eng.stats.mqi.commits += 1
        if uow.first_lsn is not None:  # (uow.logged)
            lsn = data.log_commit(uow)
        arrived = []
        for mq, e in puts:
            if e.state == PUT_PENDING and e.owner is uow:
                mq.set_state(e, AVAILABLE)
                data.committed_put(mq, e)
                arrived.append((mq, e))
        if gets:
            now = time.time()
            for mq, e in gets:
                if e.state == GET_PENDING and e.owner is uow:
                    if e.report & _RO_COD and id(e) not in own_puts:
                        base = eng.catalog.by_qid.get(mq.qid)
                        if base is not None and base.attributes.get("USAGE") != "XMITQ":
                            eng._report_from_entry("COD", mq, e)
                    mq.remove(e)
                    if id(e) in own_puts:
                        e.record = None
                    else:
                        data.committed_get(mq, e)
                    mq.last_get = now
        for mq, e in arrived:
            # (_arrived, committed: it wakes getters and confirms on arrival, nothing else)
            if (mq.waiters or e.report & _RO_COA) and e.state == AVAILABLE:
                base = eng.catalog.by_qid.get(mq.qid)
                if base is not None:
                    eng._arrived(base, mq, e, committed=True)
    else:
        eng.stats.mqi.backouts += 1
        woken = {}
        counts = []
        for mq, e in gets:
            if e.state == GET_PENDING and e.owner is uow and id(e) not in own_puts:
                mq.set_state(e, AVAILABLE)
                e.backout_count += 1
                if e.persistent:
                    counts.append((mq.qid, e.seq, e.backout_count))
                    data.backout_count_changed(mq, e)
                woken[id(mq)] = mq
        for mq, e in puts:
            if e.state in (PUT_PENDING, GET_PENDING) and e.owner is uow:
                mq.remove(e)
                e.record = None
        if uow.first_lsn is not None:  # (uow.logged)
            lsn = data.log_backout(uow, counts)
            if not counts:
                lsn = None  # nothing to harden: losing this record changes nothing at restart
    if woken:
        for mq in woken.values():
            mq.wake()
    if uow.triggers:
        pending, uow.triggers = uow.triggers, []
        for base, mq, initq, proc, switch_off in pending:
            if eng.catalog.by_qid.get(mq.qid) is base:
                eng._fire_trigger(base, mq, initq, proc, switch_off)
    uow.puts.clear()
    uow.gets.clear()
    return lsn


class Connection:
    """One MQCONN: its handles and its current unit of work."""

    def __init__(self, engine: QueueManagerEngine, hconn: int, appl_name: str | None,
                 user: str | None) -> None:
        self.engine = engine
        self.hconn = hconn
        self.appl_name = (appl_name.encode("latin-1", "replace")[:28] if appl_name
                          else _appl_name())
        try:
            default_user = getpass.getuser()
        except Exception:  # noqa: BLE001 - no user name in this environment
            default_user = "mqpy"
        self.user = (user or default_user)[:12].encode("latin-1", "replace")
        self.handles: dict[int, Handle] = {}
        self.dist_lists: dict[int, distlist.DistList] = {}  # open distribution lists
        self._next_hobj = 1
        self.uow: UnitOfWork | None = None
        self.backed_out = False  # the queue manager backed our unit of work out (log full)
        self.accounting = Statistics()  # this connection's counters (accounting messages)
        self.broken = False  # the queue manager ended under us (MQRC_CONNECTION_BROKEN)
        self.connected = True
        self.connected_at = time.time()
        self.channel = ""  # a client's: its SVRCONN (DISPLAY CONN CHANNEL)
        self.conname = ""  # and its address (CONNAME)
        #: Not None while a caller defers this connection's log forces (:meth:`force_log`).
        self.deferred_lsn: int | None = None
        #: packed default MQMDs by (persistence, priority, user, application) (_default_md)
        self._md_templates: dict[tuple, tuple[bytes, bytes, bytes]] = {}

    # ------------------------------------------------------------------ helpers

    def force_log(self, lsn: int) -> None:
        """Make the log durable up to ``lsn`` before the call returns; or, while
        ``deferred_lsn`` is set, leave that to the caller, which forces before it answers.

        An event loop serving many connections runs quick calls in its own thread and
        must not wait there for an fdatasync: it defers, then forces on a worker thread
        (``mqpy.serving``). Either way the call's answer follows the force."""
        deferred = self.deferred_lsn
        if deferred is None:
            self.engine.data.force(lsn)
        elif lsn > deferred:
            self.deferred_lsn = lsn

    def check_usable(self) -> None:
        """The call fails when this connection can make none: the queue manager ended under
        it (MQRC_CONNECTION_BROKEN) or it was disconnected (MQRC_HCONN_ERROR)."""
        if self.broken or self.engine.stopped:
            raise _fail(CMQC.MQRC_CONNECTION_BROKEN)
        if not self.connected:
            raise _fail(CMQC.MQRC_HCONN_ERROR)

    def _handle(self, hobj: int, not_open: int = CMQC.MQRC_HOBJ_ERROR) -> Handle:
        """The open handle ``hobj``. A distribution list's handle is open for output only, so
        any other call on it fails with ``not_open`` (the call's MQRC_NOT_OPEN_FOR_*)."""
        h = self.handles.get(hobj)
        if h is None:
            raise _fail(not_open if hobj in self.dist_lists else CMQC.MQRC_HOBJ_ERROR)
        if h.deleted:
            raise _fail(CMQC.MQRC_Q_DELETED)
        return h

    def new_hobj(self) -> int:
        """A new object handle number of this connection (a queue's, a distribution list's)."""
        hobj = self._next_hobj
        self._next_hobj += 1
        return hobj

    def _uow(self) -> UnitOfWork:
        if self.uow is None:
            self.uow = self.engine.data.new_uow()
        return self.uow

    # ------------------------------------------------------------------ MQOPEN / MQCLOSE

    def open(self, od: OD, options: int, *, no_model: bool = False) -> int:
        """MQOPEN a queue, resolving its name (resolution.py); returns the object handle.
        ``no_model``: a model queue is refused with 2057 (IBM: not valid on MQPUT1 nor as a
        distribution list's MQOR) rather than a dynamic queue being made from it."""
        _refuse_header(od)
        if options & ~_OO_KNOWN:  # a bit no MQOO_* option has (a distribution list's too)
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        if distlist.is_list_od(od):
            return distlist.open_list(self, od, options)
        eng = self.engine
        with eng.lock:
            self.check_usable()
            name = _strip(od.ObjectName)
            qmname = _strip(od.ObjectQMgrName)
            if od.ObjectType != CMQC.MQOT_Q:
                raise _fail(CMQC.MQRC_OBJECT_TYPE_ERROR)
            if not name:
                raise _fail(CMQC.MQRC_UNKNOWN_OBJECT_NAME)
            inputs = options & _INPUT_OPTS
            if inputs & (inputs - 1):
                raise _fail(CMQC.MQRC_OPTIONS_ERROR)
            if not options & (_INPUT_OPTS | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT
                              | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET):
                raise _fail(CMQC.MQRC_OPTIONS_ERROR)
            if options & CMQC.MQOO_FAIL_IF_QUIESCING and eng.quiescing:
                raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
            route = None
            alternate = _strip(od.AlternateUserId) \
                if options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY else None
            if qmname and resolution.is_blank_qmgr_alias(eng.catalog, qmname):
                qmname = ""  # IBM: an alias with a blank RQMNAME equates its name with blank
            try:
                res = resolution.resolve(eng.catalog, eng.name, name, qmname)
            except MQMIError as err:
                res, route = self._cluster_open(err, name, qmname, options)
            else:
                if eng.cluster is not None and res.target.attributes.get("PUT") == "DISABLED":
                    res, route = self._around_put_disabled(res, name, qmname, options)
                elif eng.cluster is not None and self._local_competes(res, qmname, options):
                    local_queue = res.target
                    by_name = res.opened is local_queue  # not through an alias
                    res, route = self._with_local_instance(res, name, options)
                    if route is not None and by_name:
                        # it may get messages: authorised as itself too (an alias opened
                        # is judged alone, as IBM judges the object named in the MQOPEN)
                        eng.authority.check_open(self.user.decode("latin-1").strip(),
                                                 local_queue.objtype, local_queue.name,
                                                 options, alternate_user=alternate)
            obj, base = res.opened, res.target
            # a cluster queue hosted elsewhere is authorised on the cluster transmission
            # queue (IBM's default, ClusterQueueAccessControl=Xmitq)
            checked = base if route is not None and obj.objtype == "QCLUSTER" else obj
            eng.authority.check_open(self.user.decode("latin-1").strip(), checked.objtype,
                                     checked.name, options, alternate_user=alternate)
            dynamic = None
            if base.objtype == "QMODEL" and no_model:
                raise _fail(CMQC.MQRC_Q_TYPE_ERROR)
            if base.objtype == "QMODEL":
                base, dynamic = self._create_dynamic(base, _strip(od.DynamicQName))
                obj = base
                od.ObjectName = base.name
                res = resolution.Resolved(base, base)
            if res.remote and options & (_INPUT_OPTS | CMQC.MQOO_BROWSE):
                raise _fail(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            if (qmname and qmname != eng.name
                    and options & (CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)):
                raise _fail(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            mq = eng.catalog.queues[base.qid]
            exclusive = False
            if inputs:
                attrs_ = base.attributes
                exclusive = bool(inputs & CMQC.MQOO_INPUT_EXCLUSIVE) or (
                    bool(inputs & CMQC.MQOO_INPUT_AS_Q_DEF) and attrs_.get("DEFSOPT") == "EXCL"
                ) or attrs_.get("SHARE") == "NO"
                holders = [h for h in eng._open_handles(mq) if h.options & _INPUT_OPTS]
                if holders and (exclusive or any(h.exclusive for h in holders)):
                    raise _fail(CMQC.MQRC_OBJECT_IN_USE)
            hobj = self.new_hobj()
            h = Handle(hobj, obj, base, mq, options, exclusive, dynamic=dynamic,
                       remote_q=res.remote_q, remote_qm=res.remote_qm, cluster=route)
            self.handles[hobj] = h
            _trusted(od, {"ResolvedQName": (res.remote_q or base.name).encode(),
                          "ResolvedQMgrName": (res.remote_qm or eng.name).encode()})
            if inputs:
                eng._on_input_open(base)
            eng.stats.mqi.opens += 1
            self.accounting.mqi.opens += 1
            return hobj

    def _cluster_open(self, err: MQMIError, name: str, qmname: str, options: int
                      ) -> tuple[resolution.Resolved, ClusterRoute]:
        """A name that does not resolve here may be a cluster queue or queue manager
        (mqpy.engine.cluster); if the cluster does not know it either, ``err`` stands."""
        eng = self.engine
        local_qm = not qmname or qmname == eng.name
        if eng.cluster is not None and local_qm and err.reason in (
                CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q, CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR):
            return self._cluster_behind_definition(err, name, options)
        wanted = CMQC.MQRC_UNKNOWN_OBJECT_NAME if local_qm else CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
        if eng.cluster is None or err.reason != wanted:
            raise err
        if options & (_INPUT_OPTS | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET):
            raise err  # a cluster queue elsewhere is for output only
        target = "" if local_qm else resolution.qmgr_alias_target(eng.catalog, qmname)
        route = eng.cluster.open(name, target, options)
        if route is None:
            request = eng.cluster.unknown(target or name)
            if request is not None:
                eng._system_put(cluster.COMMAND_QUEUE, "", MD(Format=cluster.REQUEST_FORMAT
                                                              .encode()), request,
                                dead_letter=False)
            raise err
        return self._cluster_resolved(name, route), route

    def _cluster_behind_definition(self, err: MQMIError, name: str, options: int
                                   ) -> tuple[resolution.Resolved, ClusterRoute]:
        """A local definition whose way on is through the cluster (IBM: a QALIAS's TARGET
        may be a cluster queue; a QREMOTE's RQMNAME may be a cluster queue manager, reached
        on SYSTEM.CLUSTER.TRANSMIT.QUEUE when no XMITQ, no transmission queue named like it
        and no DEFXMITQ says otherwise). The definition opened keeps its DEFPSIST, DEFPRTY
        and DEFBIND, and its authority is the one checked. Else ``err`` (2082, 2087)."""
        eng = self.engine
        opened = eng.catalog.queue_def(name)
        if opened is None:
            raise err
        options = _with_defbind(options, opened)
        step = opened
        if step.objtype == "QALIAS":
            target_name = str(step.attributes.get("TARGET") or "").strip()
            step = eng.catalog.queue_def(target_name)
            if step is None:  # 2082 here: a cluster queue hosted elsewhere?
                return self._cluster_route_for(err, opened, target_name, "", options)
        if (step.objtype == "QREMOTE" and err.reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
                and str(step.attributes.get("RNAME") or "").strip()
                and not str(step.attributes.get("XMITQ") or "").strip()):
            rqm = str(step.attributes.get("RQMNAME") or "").strip()
            if rqm and rqm != eng.name:
                return self._cluster_route_for(
                    err, opened, str(step.attributes["RNAME"]).strip(),
                    resolution.qmgr_alias_target(eng.catalog, rqm), options)
        raise err

    def _cluster_route_for(self, err: MQMIError, opened: ObjectDef, queue: str, qmgr: str,
                           options: int) -> tuple[resolution.Resolved, ClusterRoute]:
        eng = self.engine
        if options & (_INPUT_OPTS | CMQC.MQOO_BROWSE):
            raise err  # a cluster queue elsewhere is for output (and inquire of the alias)
        route = eng.cluster.open(queue, qmgr, options)  # type: ignore[union-attr]
        if route is None:
            request = eng.cluster.unknown(qmgr or queue)  # type: ignore[union-attr]
            if request is not None:
                eng._system_put(cluster.COMMAND_QUEUE, "", MD(Format=cluster.REQUEST_FORMAT
                                                              .encode()), request,
                                dead_letter=False)
            raise err
        xmitq = eng.catalog.queue_def(route.xmitq)
        if xmitq is None or xmitq.objtype != "QLOCAL":
            raise _fail(CMQC.MQRC_UNKNOWN_XMIT_Q)
        return resolution.Resolved(opened, xmitq, route.remote_q, route.remote_qm), route

    def _around_put_disabled(self, res: resolution.Resolved, name: str, qmname: str,
                             options: int) -> tuple[resolution.Resolved, ClusterRoute | None]:
        """A clustered local queue that is put-inhibited is not "the local instance" the
        workload algorithm prefers (IBM: CLWLUSEQ(LOCAL) applies only to a put-enabled
        one): an MQOPEN for output goes to another instance if the cluster has one."""
        target = res.target
        clustered = str(target.attributes.get("CLUSTER") or "").strip() or \
            str(target.attributes.get("CLUSNL") or "").strip()
        if (not clustered or target.objtype != "QLOCAL" or res.opened is not target
                or (qmname and qmname != self.engine.name)
                or options & (_INPUT_OPTS | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE
                              | CMQC.MQOO_SET)):
            return res, None
        route = self.engine.cluster.open(name, "", options)  # type: ignore[union-attr]
        if route is None:
            return res, None  # no other instance: MQPUT says 2051
        return self._cluster_resolved(name, route), route

    def _local_competes(self, res: resolution.Resolved, qmname: str, options: int) -> bool:
        """Whether a clustered local queue opened for output takes part in workload
        balancing with the cluster's other instances: its CLWLUSEQ is ANY (or QMGR with the
        queue manager's ANY), no queue manager was named, and the put is not by a cluster
        channel (IBM: a message that arrived over a cluster channel goes to the local
        instance). Spec aliases-channels-storage 1 use 5."""
        target = res.target
        opened_as = res.opened.objtype  # the queue itself, or an alias whose TARGET it is
        if (qmname or target.objtype != "QLOCAL"
                or (res.opened is not target and opened_as != "QALIAS")
                or not options & CMQC.MQOO_OUTPUT
                or options & (_INPUT_OPTS | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE
                              | CMQC.MQOO_SET)
                or self.appl_name.rstrip(b" \x00").decode("latin-1")
                == cluster.CLUSTER_RECEIVER_APPL):
            return False
        attributes = target.attributes
        if not (str(attributes.get("CLUSTER") or "").strip()
                or str(attributes.get("CLUSNL") or "").strip()):
            return False
        useq = str(attributes.get("CLWLUSEQ") or "QMGR").strip().upper()
        if useq == "QMGR":
            useq = str(self.engine.catalog.qmgr.get("CLWLUSEQ") or "LOCAL").strip().upper()
        return useq == "ANY"

    def _with_local_instance(self, res: resolution.Resolved, name: str, options: int
                             ) -> tuple[resolution.Resolved, ClusterRoute | None]:
        """The workload choice between the local queue and the cluster's other instances
        (CLWLUSEQ(ANY)); with BIND_NOT_FIXED it is made again at each MQPUT. Opened through
        a QALIAS, the choice is made for its TARGET with the alias's DEFBIND, and the alias
        stays the object opened (its DEFPSIST, DEFPRTY and authority), as when the TARGET is
        a cluster queue hosted elsewhere."""
        opened, target = res.opened, res.target
        if opened.objtype == "QALIAS":
            options = _with_defbind(options, opened)
        route = self.engine.cluster.open(  # type: ignore[union-attr]
            target.name, "", options, local_instance=True)
        if route is None or route.local:
            return res, None  # no other instance, or bound to the local one
        if opened.objtype != "QALIAS":
            return self._cluster_resolved(name, route), route
        xmitq = self.engine.catalog.queue_def(route.xmitq)
        if xmitq is None or xmitq.objtype != "QLOCAL":
            raise _fail(CMQC.MQRC_UNKNOWN_XMIT_Q)
        return resolution.Resolved(opened, xmitq, route.remote_q, route.remote_qm), route

    def _cluster_resolved(self, name: str, route: ClusterRoute) -> resolution.Resolved:
        eng = self.engine
        xmitq = eng.catalog.queue_def(route.xmitq)
        if xmitq is None or xmitq.objtype != "QLOCAL":
            raise _fail(CMQC.MQRC_UNKNOWN_XMIT_Q)
        opened = ObjectDef("QCLUSTER", name, {"DEFPSIST": "YES" if route.defpsist else "NO",
                                              "DEFPRTY": route.defprty})
        return resolution.Resolved(opened, xmitq, route.remote_q, route.remote_qm)

    def _create_dynamic(self, model: ObjectDef, dyn_name: str) -> tuple[ObjectDef, str]:
        eng = self.engine
        if not dyn_name:
            dyn_name = "AMQ.*"
        if dyn_name.endswith("*"):
            stem = dyn_name[:-1]
            unique = f"{int(time.time() * 1000) & 0xFFFFFFFF:08X}{eng._next_hconn:04X}" \
                     f"{self._next_hobj:04X}"
            name = (stem + unique)[:48]
            while eng.catalog.queue_def(name) is not None:
                unique = f"{eng.data.new_seq():016X}"
                name = (stem + unique)[:48]
        else:
            name = dyn_name
            if eng.catalog.queue_def(name) is not None:
                raise _fail(CMQC.MQRC_OBJECT_ALREADY_EXISTS)
        deftype = str(model.attributes.get("DEFTYPE", "TEMPDYN"))
        attributes = {k: v for k, v in model.attributes.items() if k != "DEFTYPE"}
        attributes["DEFTYPE"] = deftype
        obj = eng.define("QLOCAL", name, attributes)
        return obj, deftype

    def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        """MQCLOSE. The handle that created a temporary dynamic queue deletes it, messages and
        uncommitted work included; MQCO_DELETE(_PURGE) deletes a permanent dynamic queue."""
        eng = self.engine
        with eng.lock:
            self.check_usable()
            h = self.handles.get(hobj)
            if h is None:
                if hobj in self.dist_lists:
                    return distlist.close_list(self, hobj)
                raise _fail(CMQC.MQRC_HOBJ_ERROR)
            if options & ~(CMQC.MQCO_DELETE | CMQC.MQCO_DELETE_PURGE | CMQC.MQCO_QUIESCE):
                raise _fail(CMQC.MQRC_OPTIONS_ERROR)
            delete_opts = options & (CMQC.MQCO_DELETE | CMQC.MQCO_DELETE_PURGE)
            eng.stats.mqi.closes += 1
            self.accounting.mqi.closes += 1
            if h.deleted:
                del self.handles[hobj]
                return
            deftype = h.base.attributes.get("DEFTYPE", "PREDEFINED")
            if delete_opts and (h.obj.objtype == "QALIAS" or deftype == "PREDEFINED"):
                raise _fail(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
            if h.dynamic == "TEMPDYN":
                del self.handles[hobj]
                eng._delete_queue_locked(h.base, purge=True, force=True)
            elif delete_opts and deftype == "PERMDYN":
                others = [x for x in eng._open_handles(h.mq) if x is not h]
                if others:
                    raise _fail(CMQC.MQRC_OBJECT_IN_USE)
                del self.handles[hobj]
                try:
                    eng._delete_queue_locked(h.base,
                                             purge=bool(options & CMQC.MQCO_DELETE_PURGE))
                except MQMIError:
                    self.handles[hobj] = h  # MQCLOSE failed: the handle stays open
                    raise
            else:
                del self.handles[hobj]

    # ------------------------------------------------------------------ MQPUT

    def _facts(self, h: Handle) -> _Facts:
        """The handle's :class:`_Facts`, made again when an attribute dictionary changed."""
        f = h.facts
        qmgr_attrs = self.engine.catalog.qmgr
        if f is None or f.obj_attrs is not h.obj.attributes \
                or f.base_attrs is not h.base.attributes or f.qmgr_attrs is not qmgr_attrs:
            f = h.facts = _Facts(h, qmgr_attrs)
        return f

    def _counters(self, h: Handle) -> HandleCounters:
        """The counters a put or get on ``h`` adds to (:class:`HandleCounters`), made again
        when an interval ended or the handle's local queue changed."""
        c = h.counters
        stats, acc = self.engine.stats, self.accounting
        if c is None or c.qmgr_mqi is not stats.mqi or c.conn_mqi is not acc.mqi \
                or c.base is not h.base:
            name = h.base.name
            c = h.counters = HandleCounters(stats.mqi, stats.queue(name), acc.mqi,
                                            acc.queue(name), h.base)
        return c

    def put(self, hobj: int, md: MD | None, pmo: PMO | None, data: bytes) -> int:
        """MQPUT: fills md (MsgId, context) and pmo.ResolvedQName like the real call.
        ``md`` / ``pmo`` None: the caller passed none (default ones, and nothing comes back).

        Returns 0, or the reason of a warning (MQCC_WARNING) the call completed with.
        """
        if (md is not None and (md.__dict__["StrucId"] != _MD_STRUC_ID
                                or md.__dict__["Version"] not in _MD_VERSIONS)) \
                or (pmo is not None and (pmo.__dict__["StrucId"] != _PMO_STRUC_ID
                                         or pmo.__dict__["Version"] not in _PMO_VERSIONS)):
            _refuse_header(md, pmo)
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
            lsn = self._put_fast(h, md, pmo, data) if _FAST_PATHS else _GENERAL
            if lsn is _GENERAL:
                lsn, warning = self.put_on_handle(h, md if md is not None else MD(),
                                                pmo if pmo is not None else PMO(), data)
            else:
                warning = 0
        if lsn is not None:
            self.force_log(lsn)
        return warning

    def _put_fast(self, h: Handle, md: MD | bytes | None, pmo: PMO | None, data: bytes
                  ) -> int | object | None:
        """MQPUT's usual case, as :meth:`put_on_handle` does it, with less asked each time: a
        local queue (:class:`_Facts`), the default context or all of it set (opened for
        that), no report options nor reply-to queue, values in range, room on the queue.
        ``md`` may be the MQMD packed little-endian (``engine.packed``: a channel's arrival,
        set-all context, its bytes stored as they came but for the resolved Persistence and
        Priority and a BackoutCount of 0). Returns the LSN to force (None if none), or
        _GENERAL, having changed nothing, for anything else: the general path then does it all.
        """
        eng = self.engine
        f = h.facts
        if f is None or f.obj_attrs is not h.obj.attributes \
                or f.base_attrs is not h.base.attributes or f.qmgr_attrs is not eng.catalog.qmgr:
            f = self._facts(h)
        if not f.put:
            return _GENERAL
        if pmo is None:
            opts = 0
        else:
            pd = pmo.__dict__
            opts = pd["Options"]
            if opts & _PMO_NOT_FAST or opts & _PMO_SYNC_BOTH == _PMO_SYNC_BOTH or (
                    pd["RecsPresent"] and pd["Version"] >= 2):
                return _GENERAL
            if opts & _PMO_SET_ALL and (md is None or not h.options & _OO_SET_ALL):
                return _GENERAL  # (2098; or the default MQMD's context, set)
        if opts & _PMO_FAIL_IF_QUIESCING and eng.quiescing:
            return _GENERAL
        if type(data) is not bytes:
            return _GENERAL
        length = len(data)
        mq = h.mq
        if length > f.maxmsgl or mq.count - mq.getting >= f.maxdepth:
            return _GENERAL
        syncpoint = opts & _PMO_SYNCPOINT
        if syncpoint and self.backed_out:
            return _GENERAL
        if md is None:  # nobody will read the MQMD: its bytes from the connection's template
            persistence, priority = f.persistence, f.priority
            if persistence == _PERSISTENT and f.tempdyn:
                return _GENERAL
            msgid = eng.new_msgid()
            now = time.time()
            md_bytes = self._default_md(persistence, priority, msgid, now)
            correlid = _NONE24
            expiry_at = 0.0
        else:
            packed = type(md) is bytes  # (engine.packed: set-all context, nothing filled in)
            if packed:
                if not opts & _PMO_SET_ALL or opts & _PMO_NEW_MSG_ID:
                    return _GENERAL
                version = _MD_BY_LENGTH.get(len(md))
                if version is None:
                    return _GENERAL
                strucid, md_version, report, msg_type, expiry, feedback = \
                    _MD_HEAD.unpack_from(md)
                if strucid != _MD_STRUC_ID or md_version != version or report or feedback \
                        or msg_type == _MT_REQUEST or not _MT_FIRST <= msg_type <= _MT_LAST \
                        or md[_MD_REPLY_TO_Q] not in _BLANK_NAMES \
                        or md[_MD_FORMAT] in _HEADER_FORMATS:
                    return _GENERAL
                asked_priority, asked_persistence = _MD_PRIORITY_PERSISTENCE.unpack_from(
                    md, _MD_PRIORITY_AT)
            else:
                d = md.__dict__
                msg_type = d["MsgType"]
                if d["Report"] or d["Feedback"] or msg_type == _MT_REQUEST \
                        or not _MT_FIRST <= msg_type <= _MT_LAST \
                        or d["ReplyToQ"] not in _BLANK_NAMES or d["Format"] in _HEADER_FORMATS:
                    return _GENERAL
                asked_persistence, asked_priority = d["Persistence"], d["Priority"]
                expiry = d["Expiry"]
            persistence = asked_persistence
            if persistence == _PER_AS_Q_DEF:
                persistence = f.persistence
            elif persistence != _PERSISTENT and persistence != _NOT_PERSISTENT:
                return _GENERAL
            if persistence == _PERSISTENT and f.tempdyn:
                return _GENERAL
            priority = asked_priority
            if priority == _PRI_AS_Q_DEF:
                priority = f.priority
            elif not 0 <= priority <= 9:
                return _GENERAL
            if expiry <= 0 and expiry != _EI_UNLIMITED:
                return _GENERAL
            if packed:  # its bytes as they came but for Persistence, Priority, BackoutCount
                msgid = md[_MD_MSGID]
                if msgid == _NONE24:
                    return _GENERAL  # a new MsgId: the general path makes it
                correlid = md[_MD_CORRELID]
                if correlid == _NONE24:
                    correlid = _NONE24  # (the one object every message without one shares)
                now = time.time()
                md_bytes = b"".join((md[:_MD_PRIORITY_AT],
                                     _MD_PRIORITY_PERSISTENCE.pack(priority, persistence),
                                     md[_MD_PRIORITY_AT + 8:_MD_BACKOUT_AT], _ZERO_LONG,
                                     md[_MD_BACKOUT_AT + 4:]))
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
                asked_backout = d["BackoutCount"]
                d["Persistence"] = persistence
                d["Priority"] = priority
                d["BackoutCount"] = 0
                try:
                    md_bytes = _pack_md(md)
                finally:
                    d["Persistence"] = asked_persistence
                    d["Priority"] = asked_priority
                    d["BackoutCount"] = asked_backout
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
        if pmo is not None:
            resolved = h.resolved
            if resolved is None:
                resolved = h.resolved = (h.base.name.encode(), eng.name.encode())
            pd["ResolvedQName"], pd["ResolvedQMgrName"] = resolved
        return lsn

    def _default_md(self, persistence: int, priority: int, msgid: bytes, now: float) -> bytes:
        """The MQMD a put without one stores: a default MQMD as :meth:`put_on_handle` fills and
        packs it, made from this connection's template with MsgId, PutDate and PutTime."""
        key = (persistence, priority, self.user, self.appl_name)
        t = self._md_templates.get(key)
        if t is None:
            md = MD()
            d = md.__dict__
            d["MsgId"] = _NONE24
            self._set_context(md, 0, PMO(), now)
            d["PutDate"], d["PutTime"] = b"", b""
            d["Persistence"], d["Priority"], d["BackoutCount"] = persistence, priority, 0
            packed = _pack_md(md)
            t = self._md_templates[key] = (packed[:_MD_MSGID_AT], packed[_MD_MSGID_AT + 24:
                                                                       _MD_DATE_AT],
                                            packed[_MD_DATE_AT + 16:])
        date, tod = _put_timestamp(now)
        return b"".join((t[0], msgid, t[1], date, tod, t[2]))

    def put1(self, od: OD, md: MD, pmo: PMO, data: bytes) -> int:
        """MQPUT1: open (with the context options the PMO needs), put, close, as one call."""
        _refuse_header(od, md, pmo)
        opts = CMQC.MQOO_OUTPUT
        if pmo.Options & CMQC.MQPMO_ALTERNATE_USER_AUTHORITY:
            opts |= CMQC.MQOO_ALTERNATE_USER_AUTHORITY  # the OD's AlternateUserId is judged
        for pmo_opt, oo in _CONTEXT_OPEN.items():
            if pmo.Options & pmo_opt:
                opts |= oo
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
        or None, and the reason of a warning, or 0. A distribution list puts through it."""
        eng = self.engine
        opts = pmo.Options
        obj, base = h.obj, h.base
        d = md.__dict__  # fields read here without the attribute machinery (hot path)
        if opts & _PMO_SYNC_BOTH == _PMO_SYNC_BOTH or opts & ~_PMO_KNOWN:
            raise _fail(CMQC.MQRC_OPTIONS_ERROR)
        if d["Report"] & _RO_REJECT:
            raise _fail(CMQC.MQRC_REPORT_OPTIONS_ERROR)
        if not _MT_FIRST <= d["MsgType"] <= _MT_LAST:
            raise _fail(CMQC.MQRC_MSG_TYPE_ERROR)
        if not 0 <= d["Feedback"] <= _FB_LAST:  # MQFB_NONE (0) or a system or application code
            raise _fail(CMQC.MQRC_FEEDBACK_ERROR)
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
        if opts & _PMO_FAIL_IF_QUIESCING and eng.quiescing:
            raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
        competing = h.cluster is not None and h.cluster.with_local  # base: the last choice
        if obj.attributes.get("PUT") == "DISABLED" or (
                not competing and base.attributes.get("PUT") == "DISABLED"):
            raise _fail(CMQC.MQRC_PUT_INHIBITED)
        if h.cluster is not None and not h.cluster.fixed:  # BIND_NOT_FIXED: choose again
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
                    raise _fail(CMQC.MQRC_PUT_INHIBITED)
                h.base = base = target
                h.mq = eng.catalog.queues[target.qid]
            if route.local:
                h.remote_q, h.remote_qm = None, None
                route = None
            else:
                h.remote_q, h.remote_qm = route.remote_q, route.remote_qm
            h.resolved = None  # the destination may differ from the last put's
        else:
            route = h.cluster
        if type(data) is not bytes:
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise _fail(CMQC.MQRC_DATA_LENGTH_ERROR)
            data = bytes(data)
        if len(data) > int(eng.catalog.qmgr.get("MAXMSGL", 4194304)):
            raise _fail(CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
        header = _HEADER_FORMATS.get(d["Format"])
        if header is not None:
            _check_header(header, data, d["Encoding"])
        persistence = d["Persistence"]
        if persistence == _PER_AS_Q_DEF:
            persistence = (_PERSISTENT if obj.attributes.get("DEFPSIST") == "YES"
                           else _NOT_PERSISTENT)
        elif persistence != _PERSISTENT and persistence != _NOT_PERSISTENT:
            raise _fail(CMQC.MQRC_PERSISTENCE_ERROR)
        if persistence == _PERSISTENT and base.attributes.get("DEFTYPE") == "TEMPDYN":
            raise _fail(CMQC.MQRC_PERSISTENT_NOT_ALLOWED)
        asked_priority = priority = d["Priority"]
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
        syncpoint = bool(opts & _PMO_SYNCPOINT)
        if syncpoint and self.backed_out:
            raise _fail(CMQC.MQRC_BACKED_OUT)
        if opts & _PMO_NEW_MSG_ID or d["MsgId"] in _NO_ID or _id24(d["MsgId"]) == _NONE24:
            d["MsgId"] = eng.new_msgid()
        if opts & _PMO_NEW_CORREL_ID:
            d["CorrelId"] = eng.new_msgid()
        now = time.time()
        self._set_context(md, opts, pmo, now)
        if d["ReplyToQ"].strip(b" \x00") and not d["ReplyToQMgr"].strip(b" \x00"):
            rq, rqm = resolution.resolve_reply_to(eng.catalog, eng.name, _strip(md.ReplyToQ), "")
            _trusted(md, {"ReplyToQ": rq.encode("latin-1"), "ReplyToQMgr": rqm.encode("latin-1")})
        # Priority and Persistence are input-only: the stored MQMD carries the resolved values,
        # the application's MQMD keeps what it asked for. Above MAXPRTY the message is queued
        # at 9 but its MQMD keeps the application's value.
        asked_persistence, asked_backout = d["Persistence"], d["BackoutCount"]
        d["Persistence"] = persistence
        d["Priority"] = asked_priority if warning else priority
        d["BackoutCount"] = 0
        try:
            correlid = d["CorrelId"]
            if h.remote_qm is not None:
                # an unbound cluster message names no queue manager in its MQXQH: it may
                # go elsewhere if its channel fails (seed 001)
                stored_md, body = _transmission_message(
                    md, data, h.remote_q, h.remote_qm if route is None or route.fixed else "")
                if route is not None:  # on the cluster xmitq, keyed by its channel
                    stored_md.CorrelId = correlid = route.correl_id
                md_bytes = stored_md.pack()
            else:
                md_bytes, body = _pack_md(md), data
            report = d["Report"]
        finally:
            d["Persistence"] = asked_persistence
            d["Priority"] = asked_priority
            d["BackoutCount"] = asked_backout
        lsn = eng._store(self, base, h.mq, md_bytes, body, priority=priority,
                         persistent=persistence == _PERSISTENT, msgid=d["MsgId"],
                         correlid=correlid, expiry=d["Expiry"], report=report, now=now,
                         syncpoint=syncpoint, put1=put1)
        resolved = h.resolved
        if resolved is None:
            resolved = h.resolved = ((h.remote_q or base.name).encode(),
                                     (h.remote_qm or eng.name).encode())
        pd = pmo.__dict__
        pd["ResolvedQName"], pd["ResolvedQMgrName"] = resolved
        return lsn, warning

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

    # ------------------------------------------------------------------ MQGET

    def get(self, hobj: int, md: MD | None, gmo: GMO | None, max_length: int | None,
            waiter: Callable[[], None] | None = None) -> bytes:
        """MQGET. With MQGMO_WAIT and no ``waiter``, blocks this thread up to WaitInterval.
        ``md`` None: the caller wants no MQMD back, so none is filled in; ``gmo`` None: the
        default MQGMO, none to fill in either.

        With a ``waiter``, never blocks: when no message is available it registers ``waiter``
        on the queue and raises 2033; the caller waits for the callback and calls again.
        """
        if (md is not None and (md.__dict__["StrucId"] != _MD_STRUC_ID
                                or md.__dict__["Version"] not in _MD_VERSIONS)) \
                or (gmo is not None and (gmo.__dict__["StrucId"] != _GMO_STRUC_ID
                                         or gmo.__dict__["Version"] not in _GMO_VERSIONS)):
            _refuse_header(md, gmo)
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
                self._drop_waiter(hobj, event.set)
                raise _fail(CMQC.MQRC_NO_MSG_AVAILABLE)
            event.wait(timeout)
            self._drop_waiter(hobj, event.set)
            if self.engine.quiescing and opts & CMQC.MQGMO_FAIL_IF_QUIESCING:
                raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)

    def _drop_waiter(self, hobj: int, cb: Callable[[], None]) -> None:
        with self.engine.lock:
            h = self.handles.get(hobj)
            if h is not None:
                h.mq.remove_waiter(cb)

    def _get_once(self, hobj: int, md: MD | None, gmo: GMO | None, max_length: int | None,
                  waiter: Callable[[], None] | None) -> bytes:
        if _FAST_PATHS:
            eng = self.engine
            with eng.lock:
                h = self.handles.get(hobj)
                if h is None or h.deleted or self.broken or eng.stopped or not self.connected:
                    done = _GENERAL
                else:
                    done = self._get_fast(h, md, gmo, max_length)
                    if done is _NO_MESSAGE:  # as _get_general ends when it finds none
                        if waiter is not None and gmo is not None \
                                and gmo.__dict__["Options"] & _GMO_WAIT:
                            h.mq.add_waiter(waiter)
                        eng.stats.mqi.get_fails += 1
                        raise _fail(CMQC.MQRC_NO_MSG_AVAILABLE)
            if done is not _GENERAL:
                lsn, out = done  # type: ignore[misc]
                if lsn is not None:
                    self.force_log(lsn)
                return out
        return self._get_general(hobj, md, GMO() if gmo is None else gmo, max_length, waiter)

    def _get_general(self, hobj: int, md: MD | None, gmo: GMO, max_length: int | None,
                     waiter: Callable[[], None] | None) -> bytes:
        eng = self.engine
        lsn = None
        with eng.lock:
            self.check_usable()
            opts = gmo.Options
            browse = opts & _BROWSE_OPTS
            h = self._handle(hobj, CMQC.MQRC_NOT_OPEN_FOR_BROWSE if browse
                             else CMQC.MQRC_NOT_OPEN_FOR_INPUT)
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
            if opts & _GMO_FAIL_IF_QUIESCING and eng.quiescing:
                raise _fail(CMQC.MQRC_Q_MGR_QUIESCING)
            if not browse and (h.obj.attributes.get("GET") == "DISABLED"
                               or h.base.attributes.get("GET") == "DISABLED"):
                raise _fail(CMQC.MQRC_GET_INHIBITED)
            if max_length is not None and max_length < 0:
                raise _fail(CMQC.MQRC_BUFFER_LENGTH_ERROR)
            mq = h.mq
            by_priority = h.base.attributes.get("MSGDLVSQ", "PRIORITY") == "PRIORITY"
            if md is None or md.MsgId in _NO_ID and md.CorrelId in _NO_ID:
                msgid = correlid = None  # no selection whatever the match options say
            else:
                msgid, correlid = self._selection(md, gmo)
            uow = self.uow
            now = time.time()
            clean = False  # see below: the usual get learns what it need not walk past again
            if opts & _GMO_UNDER_CURSOR:
                cursor = h.browse_entry
                # the same message (a cold one is a fresh Entry each time it is read)
                entry = None if cursor is None else mq.find(cursor.seq, cursor.priority,
                                                            cursor.persistent)
                if entry is None or not entry.visible_to(uow):
                    raise _fail(CMQC.MQRC_NO_MSG_UNDER_CURSOR)
            else:
                after = h.browse_key if opts & CMQC.MQGMO_BROWSE_NEXT else None
                entry = None
                expired = []
                # the usual get, from the head: it skips what is got under syncpoint already
                # (mq.got_prefix), and learns how far that goes; ``clean`` while every
                # message skipped is such a one
                usual = msgid is None and correlid is None and after is None
                clean = usual and not browse
                last_got: Entry | None = None
                if msgid is None and correlid is None:
                    if after is None:  # the usual get: the head of the queue, if it can be had
                        e = mq.head(by_priority)
                        if e is not None and e.state == AVAILABLE and not 0 < e.expiry_at <= now:
                            entry = e
                    found = () if entry is not None else mq.iter_order(
                        by_priority, mq.after_got(by_priority) if clean else after)
                else:
                    found = mq.candidates(msgid, correlid, by_priority, after)
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
                    entry = e
                    break
                if clean and last_got is not None:
                    mq.got_prefix = (by_priority, mq.order_key(last_got, by_priority))
                for e in expired:
                    if e.state == AVAILABLE:
                        lsn = self._expire(mq, e) or lsn
                if entry is None:
                    if waiter is not None and opts & CMQC.MQGMO_WAIT:
                        mq.add_waiter(waiter)
                    if lsn is not None:
                        self.force_log(lsn)
                    eng.stats.mqi.get_fails += 1
                    raise _fail(CMQC.MQRC_NO_MSG_AVAILABLE)
            record = eng.data.read_record(mq, entry)
            put_time, _backout, md_bytes, body = R.decode_message(record)
            truncated = max_length is not None and len(body) > max_length
            if truncated and not opts & _GMO_ACCEPT_TRUNCATED and not browse:
                if md is not None:
                    self._fill_md(md, md_bytes, entry, put_time, now)
                gmo.ReturnedLength = len(body)
                err = _fail(CMQC.MQRC_TRUNCATED_MSG_FAILED, _WARNING)
                err.original_length = len(body)  # type: ignore[attr-defined]
                raise err
            if md is not None:
                self._fill_md(md, md_bytes, entry, put_time, now)
                report = entry.report = md.__dict__["Report"]
            else:  # the caller wants no MQMD back (pymqi's get without one)
                report = entry.report = _REPORT_AT.unpack_from(md_bytes, 8)[0]
                if h.options & CMQC.MQOO_SAVE_ALL_CONTEXT or report & _RO_COD:
                    md = MD()  # the context to save, the report's original
                    self._fill_md(md, md_bytes, entry, put_time, now)
            if entry.seq not in mq.live:
                mq.touch(entry)
            if not browse:  # first: a log too full to record it (2102) leaves it uncounted
                drops = mq.got_prefix_drops
                lsn = self._remove_locked(mq, entry, opts, now) or lsn
                # (its log record may have backed another unit of work out for log space,
                # making messages before this one available again: then no hint)
                if clean and entry.state == GET_PENDING and mq.got_prefix_drops == drops:
                    # everything up to this message is got under syncpoint now
                    mq.got_prefix = (by_priority, mq.order_key(entry, by_priority))
            p = 1 if entry.persistent else 0
            n = len(body)
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
                qs.time_on_q_total[p] += max(0.0, now - put_time)
                qs.time_on_q_count[p] += 1
            gd = gmo.__dict__
            gd["ResolvedQName"] = h.base_name
            # the data returned in the buffer (IBM's ReturnedLength), not the message's
            gd["ReturnedLength"] = max_length if truncated else n
            if h.options & CMQC.MQOO_SAVE_ALL_CONTEXT:
                h.saved_context = md.copy()
            if browse:
                h.browse_key = mq.order_key(entry, by_priority)
                h.browse_entry = entry
            else:
                if entry.state != GET_PENDING and report & _RO_COD \
                        and h.base.attributes.get("USAGE") != "XMITQ":
                    eng.report("COD", md.copy(), body)
                if h.browse_entry is not None and h.browse_entry.seq == entry.seq:
                    h.browse_entry = None
            out = body[:max_length] if truncated else body
        if lsn is not None:
            self.force_log(lsn)
        if truncated:
            err = _fail(CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, _WARNING)
            err.message = out  # type: ignore[attr-defined]
            err.original_length = len(body)  # type: ignore[attr-defined]
            raise err
        return out

    def _get_fast(self, h: Handle, md: MD | None, gmo: GMO | None, max_length: int | None,
                  packed: bool = False) -> tuple[int | None, object] | object:
        """MQGET's usual cases, as :meth:`_get_once` does them: a destructive get of the
        first message in delivery order (past those got under syncpoint at the head, as
        :meth:`_get_general` goes past them: a batch in progress), or of the one message
        carrying the MsgId asked for (no CorrelId; the live index alone, no cold message),
        without browse or cursor; a live message, available and unexpired, that fits the
        buffer and asks for no COD report, on a handle that saves no context. Returns (LSN
        to force or None, the message), _NO_MESSAGE when the queue holds no message a get
        could have (none, or all got under syncpoint: the caller answers 2033), or _GENERAL,
        having changed nothing, for anything else: the general path then does it all.

        ``packed`` (``engine.packed``; ``md`` None): the message comes back as (its MQMD
        packed little-endian, as :meth:`_fill_md` would fill one, its data)."""
        if gmo is None:
            opts = 0
            match = _MO_MATCH_BOTH
        else:
            gd = gmo.__dict__
            opts = gd["Options"]
            match = gd["MatchOptions"] if gd["Version"] >= 2 else _MO_MATCH_BOTH
        if opts & _GMO_NOT_FAST or opts & _GMO_SYNC_BOTH == _GMO_SYNC_BOTH \
                or match & _MO_UNKNOWN or (opts & _GMO_IF_PERSISTENT and opts & _GMO_SYNC_BOTH):
            return _GENERAL
        if not h.options & _INPUT_OPTS or h.options & _OO_SAVE_ALL_CONTEXT:
            return _GENERAL
        eng = self.engine
        f = h.facts
        if f is None or f.obj_attrs is not h.obj.attributes \
                or f.base_attrs is not h.base.attributes or f.qmgr_attrs is not eng.catalog.qmgr:
            f = self._facts(h)
        if not f.get:
            return _GENERAL
        if opts & _GMO_FAIL_IF_QUIESCING and eng.quiescing:
            return _GENERAL
        mq = h.mq
        if mq.count == mq.getting:
            # nothing but messages got under syncpoint (a sending MCA's batch has them all),
            # or nothing at all: no get can have any, whatever it selects
            if max_length is not None and max_length < 0:
                return _GENERAL  # (2005 comes first)
            return _NO_MESSAGE
        by_priority = f.by_priority
        msgid = None
        if md is not None:
            d = md.__dict__
            if d["CorrelId"] not in _NO_ID and match & _MO_MATCH_CORREL_ID:
                return _GENERAL
            msgid = d["MsgId"]
            if msgid in _NO_ID or not match & _MO_MATCH_MSG_ID:
                msgid = None
            else:
                msgid = _id24(msgid)
                if msgid == _NONE24:
                    msgid = None
        last_got = None
        if msgid is None:  # the usual get: the head of the queue
            entry = mq.head(by_priority)
            if entry is None:
                return _GENERAL
            if entry.state != AVAILABLE:
                if entry.state != GET_PENDING:
                    return _GENERAL
                # got already under syncpoint: the first message behind what is known to be
                # got, as _get_general finds it
                entry = None
                for e in mq.iter_order(by_priority, mq.after_got(by_priority)):
                    if e.state != GET_PENDING:
                        entry = e
                        break
                    last_got = e
                if entry is None or entry.state != AVAILABLE:
                    return _GENERAL
            if entry.seq not in mq.live:
                return _GENERAL
        else:  # the one live message with this MsgId, none cold
            entry = mq.live_msgid.get(msgid)
            if type(entry) is not Entry or mq.by_msgid._used or entry.state != AVAILABLE:
                return _GENERAL
        now = time.time()
        if 0 < entry.expiry_at <= now:
            return _GENERAL
        record = entry.record
        if type(record) is not bytes:  # (None: only on a pageset)
            return _GENERAL
        put_time, _backout, md_length, _ = _MSG_HEADER.unpack_from(record)  # R.decode_message
        body = record[_MSG_HEADER_SIZE + md_length:]
        length = len(body)
        if max_length is not None and (max_length < 0 or length > max_length):
            return _GENERAL
        report = _REPORT_AT.unpack_from(record, _MSG_HEADER_SIZE + 8)[0]
        if report & _RO_COD:
            return _GENERAL
        if packed:  # the stored MQMD as _fill_md leaves it: its BackoutCount, Expiry left
            md_bytes = record[_MSG_HEADER_SIZE:_MSG_HEADER_SIZE + md_length]
            if _MD_BY_LENGTH.get(md_length) != _VERSION_AT.unpack_from(md_bytes, 4)[0] \
                    or md_bytes[:4] != _MD_STRUC_ID:
                return _GENERAL  # (an MQMD the engine did not pack: _fill_md's general way)
            expiry = _VERSION_AT.unpack_from(md_bytes, _MD_EXPIRY_AT)[0]
            if entry.expiry_at > 0:
                expiry = max(1, int(round((entry.expiry_at - now) * 10)))
            out = (b"".join((md_bytes[:_MD_EXPIRY_AT], _VERSION_AT.pack(expiry),
                             md_bytes[_MD_EXPIRY_AT + 4:_MD_BACKOUT_AT],
                             _VERSION_AT.pack(entry.backout_count),
                             md_bytes[_MD_BACKOUT_AT + 4:])), body)
        else:
            out = body
            if md is not None:
                self._fill_md(md, record[_MSG_HEADER_SIZE:_MSG_HEADER_SIZE + md_length],
                              entry, put_time, now)
        # from here on as _get_once
        if last_got is not None:  # (_get_general learns the same on its way)
            mq.got_prefix = (by_priority, ((9 - last_got.priority) if by_priority else 0,
                                           last_got.seq))
        entry.report = report
        eng.data.stats.body_hits += 1  # (DataManager.read_record, from memory)
        if entry.persistent or opts & _GMO_SYNC_ANY:
            drops = mq.got_prefix_drops
            lsn = self._remove_locked(mq, entry, opts, now)
            if msgid is None and entry.state == GET_PENDING and mq.got_prefix_drops == drops:
                mq.got_prefix = (by_priority, ((9 - entry.priority) if by_priority else 0,
                                               entry.seq))
        else:  # (_remove_locked's last case)
            lsn = None
            mq.last_get = now
            mq.remove(entry)
            entry.record = None
        p = 1 if entry.persistent else 0
        c = h.counters
        if c is None or c.qmgr_mqi is not eng.stats.mqi \
                or c.conn_mqi is not self.accounting.mqi or c.base is not h.base:
            c = self._counters(h)
        qs = c.qmgr_queue
        c.qmgr_mqi.gets[p] += 1
        c.qmgr_mqi.get_bytes[p] += length
        qs.gets[p] += 1
        qs.get_bytes[p] += length
        acc = c.conn_queue
        c.conn_mqi.gets[p] += 1
        c.conn_mqi.get_bytes[p] += length
        acc.gets[p] += 1
        acc.get_bytes[p] += length
        qs.time_on_q_total[p] += max(0.0, now - put_time)
        qs.time_on_q_count[p] += 1
        if gmo is not None:
            gd = gmo.__dict__
            gd["ResolvedQName"] = h.base_name
            gd["ReturnedLength"] = length
        cursor = h.browse_entry
        if cursor is not None and cursor.seq == entry.seq:
            h.browse_entry = None
        return lsn, out

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
                       now: float | None = None) -> int | None:
        """A destructive get: under syncpoint the message is locked, else it is gone."""
        eng = self.engine
        syncpoint = bool(opts & CMQC.MQGMO_SYNCPOINT) or (
            bool(opts & CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT) and entry.persistent)
        mq.last_get = time.time() if now is None else now
        try:
            if entry.state == PUT_PENDING:
                # got back in the unit of work that put it: both vanish at commit, and the GET
                # is logged so that redo of the commit removes what it re-inserts
                uow = self._uow()
                if entry.persistent:
                    eng.data.log_get(uow, mq, entry)
                mq.set_state(entry, GET_PENDING, uow)
                uow.gets.append((mq, entry))
                return None
            if syncpoint:
                if self.backed_out:
                    raise _fail(CMQC.MQRC_BACKED_OUT)
                uow = self._uow()
                if entry.persistent:
                    eng.data.log_get(uow, mq, entry)
                mq.set_state(entry, GET_PENDING, uow)
                uow.gets.append((mq, entry))
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

    # ------------------------------------------------------------------ MQCMIT / MQBACK

    def commit(self) -> None:
        eng = self.engine
        with eng.lock:
            if self.broken or eng.stopped or not self.connected:
                self.check_usable()
            self.accounting.mqi.commits += 1
            uow, self.uow = self.uow, None
            if self.backed_out:
                self.backed_out = False
                if uow is not None:
                    _finish_uow(eng, uow, False)
                raise _fail(CMQC.MQRC_BACKED_OUT)
            if uow is None:
                return
            try:
                lsn = _finish_uow(eng, uow, True)
            except LogFull:
                _finish_uow(eng, uow, False)
                raise _fail(CMQC.MQRC_BACKED_OUT) from None
        if lsn is not None:
            self.force_log(lsn)

    def backout(self) -> None:
        eng = self.engine
        with eng.lock:
            self.check_usable()
            self.accounting.mqi.backouts += 1
            self.backed_out = False
            uow, self.uow = self.uow, None
            lsn = _finish_uow(eng, uow, False) if uow is not None else None
        if lsn is not None:
            self.force_log(lsn)  # backout counts survive restarts (HARDENBO)

    def prepare(self, luwid: bytes) -> None:
        """Harden the current unit of work in doubt under ``luwid`` (the sending MCA's batch).

        It then belongs to the queue manager, not to this connection: a disconnect or crash
        leaves it in doubt until :meth:`QueueManagerEngine.resolve`.
        """
        eng = self.engine
        with eng.lock:
            self.check_usable()
            uow, self.uow = self.uow, None
            if uow is None:
                uow = eng.data.new_uow()
            if luwid in eng.data.indoubt:
                raise _fail(CMQC.MQRC_UOW_IN_PROGRESS)
            lsn = eng.data.log_prepare(uow, luwid)
        self.force_log(lsn)

    def resolve(self, luwid: bytes, commit: bool, wait: bool = True) -> None:
        """Commit or back out a prepared unit of work (channel resynchronisation); ``wait``
        False: a commit that need not wait for its log force (QueueManagerEngine.resolve)."""
        self.check_usable()
        self.engine.resolve(luwid, commit, wait=wait)

    def indoubt(self) -> list[bytes]:
        """The LUWIDs of every prepared unit of work of this queue manager."""
        self.check_usable()
        return self.engine.indoubt()

    # ------------------------------------------------------------------ MQINQ / MQSET

    def inquire(self, hobj: int, selector: int) -> int | bytes:
        """MQINQ of one attribute of an open queue."""
        eng = self.engine
        with eng.lock:
            self.check_usable()
            h = self._handle(hobj, CMQC.MQRC_NOT_OPEN_FOR_INQUIRE)
            if not h.options & CMQC.MQOO_INQUIRE:
                raise _fail(CMQC.MQRC_NOT_OPEN_FOR_INQUIRE)
            if selector == CMQC.MQIA_Q_TYPE:
                return sel.queue_type_of(h.obj.objtype)
            if selector == CMQC.MQCA_Q_NAME:
                return sel.to_mqi(selector, "NAME", h.obj.name)
            keyword = sel.QUEUE_SELECTORS.get(selector)
            if keyword is None:
                raise _fail(CMQC.MQRC_SELECTOR_ERROR)
            if keyword in ("CURDEPTH", "IPPROCS", "OPPROCS"):
                if h.obj.objtype != "QLOCAL":
                    raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, _WARNING)
                return int(eng.queue_status(h.obj.name)[keyword])  # type: ignore[arg-type]
            if keyword == "DEFTYPE" and h.obj.objtype == "QLOCAL":
                return sel.to_mqi(selector, keyword,
                                  h.obj.attributes.get("DEFTYPE", "PREDEFINED"))
            if keyword == "DISTL" and h.obj.objtype == "QLOCAL":  # older definitions lack it
                return sel.to_mqi(selector, keyword, h.obj.attributes.get("DISTL", "NO"))
            if keyword not in h.obj.attributes:
                raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, _WARNING)
            return sel.to_mqi(selector, keyword, h.obj.attributes[keyword])

    def inquire_qmgr(self, selector: int) -> int | bytes:
        eng = self.engine
        with eng.lock:
            self.check_usable()
            keyword = sel.QMGR_SELECTORS.get(selector)
            if keyword is None:
                raise _fail(CMQC.MQRC_SELECTOR_ERROR)
            value = eng.name if keyword == "QMNAME" else eng.catalog.qmgr.get(keyword, "")
            return sel.to_mqi(selector, keyword, value)

    def set(self, hobj: int, selector: int, value: int | bytes | str) -> None:
        """MQSET: only the attributes IBM allows (inhibit put/get, trigger attributes)."""
        eng = self.engine
        with eng.lock:
            self.check_usable()
            h = self._handle(hobj, CMQC.MQRC_NOT_OPEN_FOR_SET)
            if not h.options & CMQC.MQOO_SET:
                raise _fail(CMQC.MQRC_NOT_OPEN_FOR_SET)
            if selector not in sel.SETTABLE:
                raise _fail(CMQC.MQRC_SELECTOR_ERROR)
            keyword = sel.QUEUE_SELECTORS[selector]
            if keyword not in h.obj.attributes and not (keyword == "DISTL"
                                                         and h.obj.objtype == "QLOCAL"):
                raise _fail(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE)
            try:
                stored = sel.from_mqi(keyword, value)
            except (ValueError, TypeError):
                raise _fail(CMQC.MQRC_CHAR_ATTRS_ERROR if isinstance(value, (bytes, str))
                            else CMQC.MQRC_INT_ATTRS_ARRAY_ERROR) from None
            eng.alter(h.obj.objtype, h.obj.name, {keyword: stored})

    # ------------------------------------------------------------------ MQDISC

    def disconnect(self) -> None:
        """Normal end: the unit of work is committed (seed 004)."""
        with self.engine.lock:
            if not self.connected:
                return
            uow, self.uow = self.uow, None
            lsn = _finish_uow(self.engine, uow, True) if uow is not None else None
            self._disconnect_locked(abnormal=False)
        if lsn is not None:
            self.force_log(lsn)

    def _disconnect_locked(self, abnormal: bool) -> None:
        """Abnormal end backs the unit of work out; handles close (temporary queues go)."""
        if not self.connected:
            return
        if self.uow is not None:
            _finish_uow(self.engine, self.uow, False)
            self.uow = None
        for hobj in list(self.handles):
            try:
                self.close(hobj)
            except MQMIError:
                self.handles.pop(hobj, None)
        self.connected = False
        self.engine.connections.pop(self.hconn, None)
        self.engine.stats.mqi.disconnects += 1

    def abend(self) -> None:
        """The application ended abnormally (connection lost, process killed)."""
        with self.engine.lock:
            self._disconnect_locked(abnormal=True)
