"""Distribution lists on message channels (seed 000, "Sending messages to a distribution list").

- At channel start the sending MCA learns from the ID exchange whether its partner takes
  distribution lists (CapFlags2 DIST_LIST_CAPABLE) and sets its transmission queue's DISTL
  attribute to match (:func:`mark_xmitq`); the queue manager then puts one MQDH message per
  transmission queue for a list's destinations behind it, or one copy per destination.
- A sending MCA whose partner does not take them splits an MQDH message still on the queue
  from an earlier partner into one message per destination (:func:`per_destination`).
- A receiving MCA puts an arriving MQDH message to every destination it names as one
  distribution-list MQPUT1 (:func:`deliver_list`) with the authority the channel's PUTAUT
  names (``mqpy_chinit.putaut``; ALTMCA's two users: one destination at a time); each
  destination that fails goes the usual way on its own (message retry, exception report,
  dead-letter queue).

The MQDH layout itself is ``mqpy.engine.distlist``'s (``dh_message`` / ``split_dh_message``),
loaded by the first MQDH message a channel carries (:func:`_distlist`).
"""

from __future__ import annotations

from typing import Any

import mqpy
from mqpy import CMQC
from mqpy.fap.initialdata import CapFlags2
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH, MessageData

__all__ = ["deliver_list", "failed_in_list", "is_dh_message", "list_put", "mark_xmitq",
           "partner_takes_lists", "per_destination"]


def _distlist():
    """``mqpy.engine.distlist``, imported by the first list message a channel carries: a
    channel initiator whose channels carry none does not load it (nor the engine's handles
    and counters it brings)."""
    from mqpy.engine import distlist

    return distlist


def partner_takes_lists(agreed: Any) -> bool:
    """Did the ID exchange agree on distribution lists (both ends DIST_LIST_CAPABLE)?"""
    return bool(agreed.cap_flags2 & CapFlags2.DIST_LIST_CAPABLE)


def mark_xmitq(qm: mqpy.QueueManager, xmitq: str, capable: bool) -> bool:
    """Set the transmission queue's DISTL (MQIA_DIST_LISTS) from the partner's capability.

    False if the queue manager refused (the channel runs on: a stale DISTL(YES) only means
    this MCA splits list messages itself, :func:`per_destination`)."""
    wanted = CMQC.MQDL_SUPPORTED if capable else CMQC.MQDL_NOT_SUPPORTED
    try:
        q = mqpy.Queue(qm, xmitq, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
        try:
            if q.inquire(CMQC.MQIA_DIST_LISTS) != wanted:
                q.set(CMQC.MQIA_DIST_LISTS, wanted)
        finally:
            q.close()
    except mqpy.MQMIError:
        return False
    return True


def is_dh_message(data: bytes) -> bool:
    """Is this transmission-queue message (MQXQH + data) an MQDH message?"""
    # the MQMD embedded in the MQXQH starts at 104; its Format at 32 within it
    return data[104 + 32:104 + 40] == CMQC.MQFMT_DIST_HEADER


def _single(xqh: Any, inner: mqpy.MD, dest: mqpy.OR, record: mqpy.PMR | None, fields: int
            ) -> Any:
    """The MQXQH of one destination's own copy: its queue names, its MQPMR's fields."""
    md = _distlist().with_record(inner, record, fields)
    one = xqh.copy()
    one.RemoteQName, one.RemoteQMgrName, one.MsgDesc = dest.ObjectName, dest.ObjectQMgrName, md
    return one


def per_destination(md: mqpy.MD, data: bytes) -> list[tuple[mqpy.MD, bytes]]:
    """An MQDH transmission-queue message as one message per destination (for a partner
    without distribution lists); a damaged MQDH leaves the message whole, for the partner
    to dead-letter."""
    xqh = mqpy.XQH().unpack(data)
    try:
        inner, dests, records, fields, payload = _distlist().split_dh_message(
            xqh.MsgDesc, data[XQH_WITH_MD_LENGTH:])
    except mqpy.MQMIError:
        return [(md, data)]
    return [(md, _single(xqh, inner, dest, records[i] if records else None, fields).pack()
             + payload) for i, dest in enumerate(dests)]


def list_put(count: int, second_user: bool, remote_definitions: set[int]
             ) -> tuple[list[int], list[int]]:
    """Which of a list message's ``count`` destinations go in its one distribution-list put
    (together), and which one by one as single arrivals (alone): every one with ALTMCA's
    second user (judged per destination), else those naming a local remote-queue definition
    (``remote_definitions``: undeliverable, as for a single arrival, seed 000 §1 rule 6)."""
    alone = list(range(count)) if second_user else sorted(remote_definitions)
    return [i for i in range(count) if i not in alone], alone


def failed_in_list(together: list[int], comp: int, responses: list[int]) -> list[int]:
    """The destinations of a list's put that failed (``comp``, the put's completion code,
    ``responses`` its response records' CompCodes): with a warning and a response each,
    those whose response failed; else every one (nothing was put)."""
    if comp == CMQC.MQCC_WARNING and len(responses) == len(together):
        return [i for i, cc in zip(together, responses, strict=True) if cc == CMQC.MQCC_FAILED]
    return list(together)


async def deliver_list(mca: Any, qm: mqpy.QueueManager, ev: MessageData, mqi: Any) -> Any:
    """Put an arriving MQDH message to all its destinations (one distribution-list MQPUT1);
    the destinations that fail, and those naming a local remote-queue definition, go one
    by one through the receiving MCA's ``deliver`` (retry, report, dead-letter queue).
    Returns what ``deliver`` returns: None, or the EndChannel that stops the channel."""
    xqh = ev.transmission_header
    md = xqh.MsgDesc
    sync = CMQC.MQPMO_NO_SYNCPOINT if mca.batch.outside_syncpoint(ev) else CMQC.MQPMO_SYNCPOINT
    try:
        inner, dests, records, fields, payload = _distlist().split_dh_message(md, ev.data)
    except mqpy.MQMIError as e:
        return await mca.undeliverable(
            qm, ev, md, e.reason, xqh.RemoteQName.rstrip(b" \x00").decode("latin-1"),
            xqh.RemoteQMgrName.rstrip(b" \x00").decode("latin-1"))
    local = {b"", mca.local_qm.encode("latin-1")}
    authority = mca.put_authority
    second_user = authority.also_checked() is not None
    remote = set() if second_user else {
        i for i, d in enumerate(dests) if d.ObjectQMgrName.rstrip(b" \x00") in local
        and await mca.is_remote_definition(qm, d.ObjectName.rstrip(b" \x00").decode("latin-1"))}
    together, alone = list_put(len(dests), second_user, remote)
    failed = list(alone)
    if together:
        od = mqpy.OD(Version=CMQC.MQOD_VERSION_2, RecsPresent=len(together),
                     ObjectRecPtr=[dests[i] for i in together])
        # the list's put is judged for the user PUTAUT names, as every single arrival is
        user = authority.put_user(md.UserIdentifier)
        alternate = 0
        if user is not None:
            od.AlternateUserId = user.encode("latin-1", "replace")[:12]
            alternate = CMQC.MQPMO_ALTERNATE_USER_AUTHORITY
        pmo = mqpy.PMO(Options=sync | alternate | CMQC.MQPMO_SET_ALL_CONTEXT,
                       RecsPresent=len(together),
                       PutMsgRecFields=fields if records else 0,
                       PutMsgRecPtr=[records[i] for i in together] if records else 0)
        try:
            await mqi(qm.put1, od, payload, inner.copy(), pmo)
        except mqpy.MQMIError as e:
            responses = pmo.ResponseRecPtr if isinstance(pmo.ResponseRecPtr, list) else []
            failed += failed_in_list(together, e.comp, [rr.CompCode for rr in responses])
        moved = len(together) - (len(failed) - len(alone))
        if moved:
            mca.status.message_moved(len(payload), sent=False)
    for i in sorted(failed):
        one = _single(xqh, inner, dests[i], records[i] if records else None, fields)
        problem = await mca.deliver(qm, MessageData.from_xqh(ev.seqnum, one, payload))
        if problem is not None:
            return problem
    return None
