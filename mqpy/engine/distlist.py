"""Distribution lists: one MQOPEN, MQPUT or MQPUT1 for several queues (MQOD version 2).

An application names its destinations in MQOR records (``OD.ObjectRecPtr``, ``RecsPresent``
of them); the queue manager opens each one as an ordinary handle and answers with one MQRR
per destination (``ResponseRecPtr``) and the counts KnownDestCount (local queues),
UnknownDestCount (queues behind a transmission queue) and InvalidDestCount (failures). A put
goes to every destination that opened, with that destination's MQPMR (``PMO.PutMsgRecPtr``:
MsgId, CorrelId, GroupId, Feedback, AccountingToken as ``PutMsgRecFields`` says) in place of
the MQMD's fields.

IBM's completion rules: every destination alike gives that outcome; outcomes that differ give
MQRC_MULTIPLE_REASONS (2136), MQCC_WARNING when at least one destination succeeded and
MQCC_FAILED when none did. The response records are always filled here (IBM fills them at
least whenever the reason is 2136).

Destinations behind the same transmission queue travel once when the queue's DISTL is YES
(the sending MCA sets it when its partner takes distribution lists, seed 000): one message
with Format MQHDIST whose data is an MQDH, the MQOR and MQPMR records, then the application
data. With DISTL(NO) each destination gets its own copy (spec dqm-intercommunication 9.48).
:func:`dh_message` and :func:`split_dh_message` are that layout; the receiving MCA uses the
second to put an arriving MQDH message to all its destinations as one distribution-list put.

The engine calls in through :func:`open_list`, :func:`put_list` and :func:`close_list` (the
hooks in ``Connection.open/put/put1/close``); they call back only through the connection's
public interface, :class:`ListConnection`. Everything else here is pure.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

import attrs

from mqpy import CMQC
from mqpy.engine.handle import Handle
from mqpy.errors import MQMIError
from mqpy.structs.fields import StructError
from mqpy.structs.tables import (
    DH,
    MD,
    OD,
    OR,
    PMO,
    PMR,
    PMR_FIELDS,
    RR,
    pack_put_msg_records,
    put_msg_record_length,
    unpack_put_msg_records,
)

__all__ = [
    "DistList",
    "ListConnection",
    "check_od",
    "check_pmo",
    "close_list",
    "dh_message",
    "is_list_od",
    "is_list_pmo",
    "open_list",
    "outcome",
    "put1_list",
    "put_list",
    "split_dh_message",
    "with_record",
]

_OK, _WARNING, _FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED
#: the only open options a distribution list takes (IBM: output and context options)
_LIST_OPEN_OPTIONS = (CMQC.MQOO_OUTPUT | CMQC.MQOO_PASS_IDENTITY_CONTEXT
                      | CMQC.MQOO_PASS_ALL_CONTEXT | CMQC.MQOO_SET_IDENTITY_CONTEXT
                      | CMQC.MQOO_SET_ALL_CONTEXT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY
                      | CMQC.MQOO_FAIL_IF_QUIESCING)
_PMRF_ALL = sum(flag for flag, *_ in PMR_FIELDS)
_NO_ID = (b"", b"\x00" * 24)


def _strip(b: bytes) -> str:
    return b.rstrip(b" \x00").decode("latin-1")


# ---------------------------------------------------------------------------- validation


def is_list_od(od: OD) -> bool:
    """Does this MQOD open a distribution list (version 2 or later, RecsPresent > 0)?"""
    d = od.__dict__
    return d["Version"] >= CMQC.MQOD_VERSION_2 and d["RecsPresent"] != 0


def is_list_pmo(pmo: PMO) -> bool:
    d = pmo.__dict__
    return d["Version"] >= CMQC.MQPMO_VERSION_2 and d["RecsPresent"] != 0


def check_od(od: OD) -> list[OR]:
    """The MQOR records of a distribution-list MQOD, or the MQI's reason for refusing it."""
    n = od.RecsPresent
    if n < 0:
        raise MQMIError(_FAILED, CMQC.MQRC_RECS_PRESENT_ERROR)
    records = od.ObjectRecPtr
    if not isinstance(records, list) or len(records) < n \
            or not all(isinstance(r, OR) for r in records[:n]):
        raise MQMIError(_FAILED, CMQC.MQRC_OBJECT_RECORDS_ERROR)
    return records[:n]


def check_pmo(pmo: PMO) -> list[PMR] | None:
    """The MQPMR records of a distribution-list put (None: the MQMD serves every one).

    IBM: RecsPresent need not match the destinations -- records beyond them are not used,
    destinations beyond the records take the MQMD's values."""
    if not is_list_pmo(pmo):
        return None
    n = pmo.RecsPresent
    if n < 0:
        raise MQMIError(_FAILED, CMQC.MQRC_RECS_PRESENT_ERROR)
    fields = pmo.PutMsgRecFields
    if fields & ~_PMRF_ALL:
        raise MQMIError(_FAILED, CMQC.MQRC_PMO_RECORD_FLAGS_ERROR)
    records = pmo.PutMsgRecPtr
    if not fields or not isinstance(records, list):
        return None  # IBM: the put-message records are optional
    if len(records) < n or not all(isinstance(r, PMR) for r in records[:n]):
        raise MQMIError(_FAILED, CMQC.MQRC_PUT_MSG_RECORDS_ERROR)
    return records[:n]


def outcome(responses: list[RR]) -> tuple[int, int]:
    """IBM's (CompCode, Reason) of a call over several destinations."""
    reasons = {r.Reason for r in responses}
    if len(reasons) == 1:
        r = responses[0]
        return r.CompCode, r.Reason
    if any(r.CompCode != _FAILED for r in responses):
        return _WARNING, CMQC.MQRC_MULTIPLE_REASONS
    return _FAILED, CMQC.MQRC_MULTIPLE_REASONS


# ---------------------------------------------------------------------------- the MQDH message


def dh_message(md: MD, data: bytes, destinations: list[OR], records: list[PMR],
               fields: int) -> tuple[MD, bytes]:
    """The one message that carries ``data`` to several destinations: its MQMD (Format
    MQHDIST) and MQDH + MQORs + MQPMRs (``fields``) + data."""
    n = len(destinations)
    dh = DH(Encoding=md.Encoding, CodedCharSetId=md.CodedCharSetId, Format=md.Format,
            PutMsgRecFields=fields, RecsPresent=n)
    dh.ObjectRecOffset = DH.length()
    dh.PutMsgRecOffset = dh.ObjectRecOffset + n * OR.length() if fields else 0
    dh.StrucLength = dh.ObjectRecOffset + n * OR.length() + n * put_msg_record_length(fields)
    body = b"".join([dh.pack(), *(o.pack() for o in destinations),
                     pack_put_msg_records(records, fields) if fields else b"", data])
    outer = md.copy()
    outer.Format = CMQC.MQFMT_DIST_HEADER
    outer.Encoding = CMQC.MQENC_NATIVE
    return outer, body


def split_dh_message(md: MD, body: bytes) -> tuple[MD, list[OR], list[PMR], int, bytes]:
    """An MQHDIST message taken apart: the application's MQMD (Format, Encoding and CCSID
    from the MQDH), its destinations, their MQPMRs, PutMsgRecFields, and the data.

    A damaged header raises MQMIError MQRC_FORMAT_ERROR (the receiver dead-letters it)."""
    enc = md.Encoding
    try:
        dh = DH.from_bytes(body, enc)
        n, fields = dh.RecsPresent, dh.PutMsgRecFields
        if not 0 < n <= len(body) // OR.length() or not \
                DH.length() <= dh.StrucLength <= len(body):
            raise StructError("MQDH lengths", CMQC.MQRC_FORMAT_ERROR)
        if dh.ObjectRecOffset < DH.length() or \
                dh.ObjectRecOffset + n * OR.length() > dh.StrucLength:
            raise StructError("MQDH ObjectRecOffset", CMQC.MQRC_FORMAT_ERROR)
        destinations = [OR.from_bytes(body, enc, offset=dh.ObjectRecOffset + i * OR.length())
                        for i in range(n)]
        records: list[PMR] = []
        if fields:
            if dh.PutMsgRecOffset < DH.length() or \
                    dh.PutMsgRecOffset + n * put_msg_record_length(fields) > dh.StrucLength:
                raise StructError("MQDH PutMsgRecOffset", CMQC.MQRC_FORMAT_ERROR)
            records = unpack_put_msg_records(body, dh.PutMsgRecOffset, n, fields, enc)
    except (StructError, ValueError) as exc:
        raise MQMIError(_FAILED, CMQC.MQRC_FORMAT_ERROR) from exc
    inner = md.copy()
    inner.Format, inner.Encoding, inner.CodedCharSetId = dh.Format, dh.Encoding, \
        dh.CodedCharSetId
    if dh.Flags & CMQC.MQDHF_NEW_MSG_IDS:
        inner.MsgId = CMQC.MQMI_NONE  # each destination is given a MsgId of its own
    return inner, destinations, records, fields, body[dh.StrucLength:]


# ---------------------------------------------------------------------------- the engine's side


@attrs.define(eq=False)
class Destination:
    """One MQOR of an open list: the handle it opened as, or why it did not."""

    record: OR
    hobj: int = 0
    comp: int = _OK
    reason: int = CMQC.MQRC_NONE


@attrs.define(eq=False)
class DistList:
    """An open distribution list (its own Hobj): its destinations in MQOR order."""

    hobj: int
    options: int
    destinations: list[Destination]


class ListEngine(Protocol):
    """What a distribution list asks of the queue manager: its lock and new MsgIds."""

    lock: threading.RLock

    def new_msgid(self) -> bytes: ...


class ListConnection(Protocol):
    """What a distribution list asks of its connection (``mqpy.engine`` Connection): its open
    handles, and the calls it makes for each destination."""

    engine: ListEngine
    handles: dict[int, Handle]
    dist_lists: dict[int, DistList]

    def check_usable(self) -> None:
        """Raise the MQI's reason when the connection can make no call."""
        ...

    def new_hobj(self) -> int:
        """A new object handle number of this connection."""
        ...

    def open(self, od: OD, options: int, *, no_model: bool = False) -> int:
        """MQOPEN of one queue; its Hobj."""
        ...

    def close(self, hobj: int, options: int = CMQC.MQCO_NONE) -> None:
        """MQCLOSE of one handle."""
        ...

    def put_on_handle(self, h: Handle, md: MD, pmo: PMO, data: bytes, *, put1: bool = False
                      ) -> tuple[int | None, int]:
        """MQPUT on an open handle, engine lock held: (LSN to force or None, warning)."""
        ...

    def force_log(self, lsn: int) -> None:
        """Make the log durable up to ``lsn`` before the call answers."""
        ...


def _counts(conn: ListConnection, dests: list[Destination], failed: set[int]
            ) -> tuple[int, int, int]:
    known = unknown = invalid = 0
    for i, dest in enumerate(dests):
        if i in failed or not dest.hobj:
            invalid += 1
        elif conn.handles[dest.hobj].remote_qm is not None:
            unknown += 1
        else:
            known += 1
    return known, unknown, invalid


def open_list(conn: ListConnection, od: OD, options: int) -> int:
    """MQOPEN of a distribution list: a handle per destination, one Hobj for them all."""
    if od.ObjectType != CMQC.MQOT_Q:
        raise MQMIError(_FAILED, CMQC.MQRC_RECS_PRESENT_ERROR)  # lists are of queues only
    records = check_od(od)
    # IBM: the MQOD's own names are blank for a list (the MQORs name the queues)
    if _strip(od.ObjectName):
        raise MQMIError(_FAILED, CMQC.MQRC_OBJECT_NAME_ERROR)
    if _strip(od.ObjectQMgrName):
        raise MQMIError(_FAILED, CMQC.MQRC_OBJECT_Q_MGR_NAME_ERROR)
    if options & ~_LIST_OPEN_OPTIONS or not options & CMQC.MQOO_OUTPUT:
        raise MQMIError(_FAILED, CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE)
    with conn.engine.lock:
        conn.check_usable()
        dests = []
        for rec in records:
            dest = Destination(rec)
            try:
                # the list's AlternateUserId is judged for every destination
                dest.hobj = conn.open(OD(ObjectName=rec.ObjectName,
                                         ObjectQMgrName=rec.ObjectQMgrName,
                                         AlternateUserId=od.AlternateUserId), options,
                                      no_model=True)
            except MQMIError as e:
                dest.comp, dest.reason = e.comp, e.reason
            dests.append(dest)
        responses = [RR(CompCode=d.comp, Reason=d.reason) for d in dests]
        od.ResponseRecPtr = responses
        od.KnownDestCount, od.UnknownDestCount, od.InvalidDestCount = _counts(conn, dests,
                                                                            set())
        comp, reason = outcome(responses)
        if comp == _FAILED:
            raise MQMIError(comp, reason)
        hobj = conn.new_hobj()
        conn.dist_lists[hobj] = DistList(hobj, options, dests)
        return hobj


def close_list(conn: ListConnection, hobj: int) -> None:
    """MQCLOSE of a distribution list closes every destination's handle."""
    with conn.engine.lock:
        dl = conn.dist_lists.pop(hobj)
        for dest in dl.destinations:
            if dest.hobj and dest.hobj in conn.handles:
                conn.close(dest.hobj)


def with_record(md: MD, record: PMR | None, fields: int) -> MD:
    """A copy of ``md`` with the fields an MQPMR holds (``fields``: MQPMRF_*) put over it."""
    out = md.copy()
    if record is not None:
        for flag, name, _, _ in PMR_FIELDS:
            if fields & flag:
                setattr(out, name, getattr(record, name))
    return out


def _destination_md(md: MD, pmo_opts: int, record: PMR | None, fields: int,
                    new_msgid: Callable[[], bytes]) -> MD:
    """The MQMD one destination's copy carries: the MQPMR's fields over the application's,
    and a MsgId of its own when none is given (no two destinations share one)."""
    dmd = with_record(md, record, fields)
    if pmo_opts & CMQC.MQPMO_NEW_MSG_ID or dmd.MsgId.rstrip(b"\x00") == b"":
        dmd.MsgId = new_msgid()
    return dmd


def put_list(conn: ListConnection, dl: DistList, md: MD, pmo: PMO, data: bytes, *,
             put1: bool = False) -> int:
    """MQPUT to an open distribution list; returns 0 or a warning reason, raises on failure.

    ``pmo.ResponseRecPtr`` gets one MQRR per destination; each MQPMR with MQPMRF_MSG_ID
    gets the MsgId its destination's message was given. The MQMD is left as the
    application gave it (each destination's copy has its own MsgId)."""
    eng = conn.engine
    dests = dl.destinations
    records = check_pmo(pmo)
    fields = pmo.PutMsgRecFields if records is not None else 0
    responses = [RR(CompCode=d.comp, Reason=d.reason) for d in dests]
    lsns: list[int] = []
    with eng.lock:
        conn.check_usable()
        if pmo.Options & CMQC.MQPMO_NEW_CORREL_ID:
            # IBM: ONE new CorrelId for every destination, MQPMRs or not (unlike MsgIds)
            md.CorrelId = eng.new_msgid()
        mds: dict[int, MD] = {}
        groups: dict[int, list[int]] = {}  # transmission queue (qid) -> destinations on it
        for i, dest in enumerate(dests):
            if not dest.hobj:
                continue
            mds[i] = _destination_md(md, pmo.Options,
                                     records[i] if records and i < len(records) else None,
                                     fields, eng.new_msgid)
            if pmo.Options & CMQC.MQPMO_NEW_CORREL_ID:
                mds[i].CorrelId = md.CorrelId
            h = conn.handles[dest.hobj]
            together = (h.remote_qm is not None and h.cluster is None
                        and h.base.attributes.get("DISTL") == "YES")
            groups.setdefault(h.base.qid if together else -1 - i, []).append(i)
        for members in groups.values():
            if len(members) == 1:
                i = members[0]
                _put_one(conn, conn.handles[dests[i].hobj], mds[i], pmo, data, put1,
                         responses, [i], lsns)
                continue
            first = conn.handles[dests[members[0]].hobj]
            ors = [OR(ObjectName=(conn.handles[dests[i].hobj].remote_q or "").encode("latin-1"),
                      ObjectQMgrName=(conn.handles[dests[i].hobj].remote_qm or "")
                      .encode("latin-1")) for i in members]
            dh_fields = fields | CMQC.MQPMRF_MSG_ID
            pmrs = [PMR(MsgId=mds[i].MsgId, CorrelId=mds[i].CorrelId,
                        GroupId=mds[i].GroupId, Feedback=mds[i].Feedback,
                        AccountingToken=mds[i].AccountingToken) for i in members]
            outer, body = dh_message(md, data, ors, pmrs, dh_fields)
            outer.MsgId = eng.new_msgid()
            _put_one(conn, first, outer, pmo, body, put1, responses, members, lsns)
        for i, dmd in mds.items():
            if records and i < len(records) and fields & CMQC.MQPMRF_MSG_ID:
                records[i].MsgId = dmd.MsgId
    if lsns:
        conn.force_log(max(lsns))  # deferred when served from an event loop (mqpy.loopcalls)
    # records beyond the destinations are unused, but kept in the shape the caller gave:
    # as many as it brought (never RecsPresent alone, which costs a caller nothing to inflate)
    given = pmo.ResponseRecPtr if isinstance(pmo.ResponseRecPtr, list) else []
    if is_list_pmo(pmo) and min(pmo.RecsPresent, len(given)) > len(responses):
        responses += [RR() for _ in range(min(pmo.RecsPresent, len(given)) - len(responses))]
    pmo.ResponseRecPtr = responses
    failed = {i for i, r in enumerate(responses[:len(dests)]) if r.CompCode == _FAILED}
    pmo.KnownDestCount, pmo.UnknownDestCount, pmo.InvalidDestCount = _counts(conn, dests,
                                                                            failed)
    comp, reason = outcome(responses[:len(dests)])
    if comp == _FAILED:
        raise MQMIError(comp, reason)
    return reason if comp == _WARNING else 0


def _put_one(conn: ListConnection, h: Handle, md: MD, pmo: PMO, data: bytes, put1: bool,
             responses: list[RR], members: list[int], lsns: list[int]) -> None:
    """One message to one handle on behalf of ``members``; their response records."""
    one = pmo.copy()
    one.RecsPresent = 0
    # the identifiers were settled per destination already (_destination_md, put_list)
    one.Options &= ~(CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_NEW_CORREL_ID)
    try:
        if not h.options & CMQC.MQOO_OUTPUT:
            raise MQMIError(_FAILED, CMQC.MQRC_NOT_OPEN_FOR_OUTPUT)
        lsn, warning = conn.put_on_handle(h, md, one, data, put1=put1)
    except MQMIError as e:
        comp, reason = e.comp, e.reason
    else:
        if lsn is not None:
            lsns.append(lsn)
        comp, reason = (_WARNING, warning) if warning else (_OK, CMQC.MQRC_NONE)
    for i in members:
        responses[i].CompCode, responses[i].Reason = comp, reason


def put1_list(conn: ListConnection, od: OD, md: MD, pmo: PMO, data: bytes, options: int
              ) -> int:
    """MQPUT1 to a distribution list: open, put, close; the destinations that failed to open
    answer in the PMO's response records with their MQOPEN reason."""
    try:
        hobj = open_list(conn, od, options)
    except MQMIError:
        if isinstance(od.ResponseRecPtr, list):
            pmo.ResponseRecPtr = [r.copy() for r in od.ResponseRecPtr]
        pmo.KnownDestCount, pmo.UnknownDestCount, pmo.InvalidDestCount = (
            od.KnownDestCount, od.UnknownDestCount, od.InvalidDestCount)
        raise
    try:
        return put_list(conn, conn.dist_lists[hobj], md, pmo, data, put1=True)
    finally:
        close_list(conn, hobj)
