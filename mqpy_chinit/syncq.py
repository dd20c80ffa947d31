"""Channel synchronisation records on SYSTEM.CHANNEL.SYNCQ, and the keys of in-doubt batches.

Each end of a message channel keeps one persistent record per channel: the sequence number of
the last message of the last committed batch, that batch's LUWID and the partner queue manager.
A receiver may be generic (seed 000 §2: many senders of one name against one RCVR definition),
so its records are kept per channel *and partner*: the CorrelId names the channel (found through
the queue's index) and the record names its partner.
The record is replaced in the same unit of work as the batch itself (the receiver's puts, the
sender's gets), so the record and the messages can never disagree after a crash.

A sending MCA hardens its batch *in doubt* before asking for confirmation: it prepares the unit
of work under a key naming the channel, the batch's last sequence number and its LUWID
(:func:`prepare_key`). The key survives restarts of either process, so at the next start the
MCA finds its in-doubt batch and resolves it with the partner's record.
"""

from __future__ import annotations

import json
import os
from typing import Any

import attrs
import trio

import mqpy
from mqpy import CMQC
from mqpy.browsing import browse
from mqpy.fap.mqicalls import Step
from mqpy_chinit import xmitgets

SYNCQ = "SYSTEM.CHANNEL.SYNCQ"
_PREFIX = b"CH2:"  # in-doubt keys; b"CHL:" keys (no previous LUWID) are still read


@attrs.define
class SyncRecord:
    channel: str
    role: str  # "S" sender, "R" receiver
    seq: int = 0
    luwid: bytes = bytes(8)
    partner_qm: str = ""
    reset: bool = False  # RESET CHANNEL at a sender: tell the receiver at the next start
    conname: str = ""  # a receiver's: the partner's address (DISPLAY CHSTATUS SAVED CONNAME)

    def to_bytes(self) -> bytes:
        return json.dumps({"channel": self.channel, "role": self.role, "seq": self.seq,
                           "luwid": self.luwid.hex(), "partner": self.partner_qm,
                           "reset": self.reset, "conname": self.conname}).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> SyncRecord:
        d = json.loads(data)
        return cls(d["channel"], d["role"], int(d["seq"]), bytes.fromhex(d["luwid"]),
                   d.get("partner", ""), bool(d.get("reset", False)), d.get("conname", ""))


def correl_id(channel: str, role: str) -> bytes:
    """The CorrelId a channel's record is kept under: the role, then the channel name."""
    return (role.encode() + b":" + channel.encode("latin-1")).ljust(24, b" ")[:24]


def _records(qm: mqpy.QueueManager, channel: str, role: str
             ) -> list[tuple[bytes, SyncRecord]]:
    """(MsgId, record) of the committed records of ``channel`` in ``role``: one for a sender,
    one a partner for a receiver (browse: nothing is locked or changed)."""
    return [(bytes(md.MsgId), record)
            for md, data in browse(qm, SYNCQ, correl_id=correl_id(channel, role))
            if (record := _decoded(data)) is not None]


def _decoded(data: bytes) -> SyncRecord | None:
    """A sync record, or None for a message that is not one (something else put on the
    queue under a channel's CorrelId is ignored, never fatal to the channel)."""
    try:
        return SyncRecord.from_bytes(data)
    except (ValueError, KeyError, TypeError):
        return None


def read(qm: mqpy.QueueManager, channel: str, role: str, partner: str = ""
         ) -> SyncRecord | None:
    """The committed record of ``channel``; a receiver's is the one naming ``partner``."""
    for _, record in _records(qm, channel, role):
        if role != "R" or record.partner_qm == partner:
            return record
    return None


def read_all(qm: mqpy.QueueManager) -> list[SyncRecord]:
    """Every channel's sync record, senders' and each receiver partner's (DISPLAY CHSTATUS
    SAVED, RESET CHANNEL at a generic receiver)."""
    out: list[SyncRecord] = []
    for md, data in browse(qm, SYNCQ):
        if md.CorrelId[:2] in (b"S:", b"R:") and (record := _decoded(data)) is not None:
            out.append(record)
    return out


def replace_in_uow(qm: mqpy.QueueManager, record: SyncRecord,
                   queue: mqpy.Queue | None = None) -> bytes | None:
    """Replace the channel's record inside the caller's current unit of work; the MsgId of
    the record put. A receiver replaces only its partner's record, and one RESET CHANNEL
    made before any partner was known (the first partner to commit has taken its number
    over). ``queue``: the SYNCQ already open for input and output (see ``_replace``)."""
    msgids = None
    if record.role == "R":
        msgids = [msgid for msgid, r in _records(qm, record.channel, "R")
                  if r.partner_qm in (record.partner_qm, "")]
    return _replace(qm, correl_id(record.channel, record.role), msgids, record.to_bytes(),
                    queue)


def _replace(qm: mqpy.QueueManager, cid: bytes, msgids: list[bytes] | None,
             body: bytes | None, queue: mqpy.Queue | None = None) -> bytes | None:
    """Under syncpoint: remove the messages with CorrelId ``cid`` (those with ``msgids``
    only, when given), then put ``body`` under it; the MsgId it was put with. ``queue``: the
    SYNCQ opened for input and output, left open (else it is opened and closed here)."""
    q = queue or mqpy.Queue(qm, SYNCQ, _OPEN_OPTIONS)
    try:
        keys = [mqpy.MD(CorrelId=cid, MsgId=m) for m in msgids] if msgids is not None else None
        match = CMQC.MQMO_MATCH_CORREL_ID | (CMQC.MQMO_MATCH_MSG_ID if keys is not None else 0)
        while keys is None or keys:
            md = keys.pop() if keys is not None else mqpy.MD(CorrelId=cid)
            try:
                q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT, MatchOptions=match))
            except mqpy.MQMIError as e:
                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    raise
                if keys is None:
                    break  # (a record another instance holds is its own business)
        if body is None:
            return None
        md = mqpy.MD(CorrelId=cid, Persistence=CMQC.MQPER_PERSISTENT)
        q.put(body, md, mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        return bytes(md.MsgId)
    finally:
        if queue is None:
            q.close()


_OPEN_OPTIONS = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT


class ChannelSyncQ:
    """One MCA's sync record, replaced batch after batch on a SYSTEM.CHANNEL.SYNCQ handle
    held open for the channel's life (blocking calls, from a worker thread).

    The first replacement is :func:`replace_in_uow`'s (the records are looked for by
    CorrelId, a receiver's by browsing for its partner's). It remembers the MsgId of the
    record it put (later ones it names itself), so every later batch replaces the record in
    one round trip: MQGET of that MsgId, then MQPUT of the new record (:meth:`steps`), calls
    a receiver can even add to the run of its batch's last puts. Whenever that MQGET does not find the record as this MCA
    left it (its unit of work was backed out, RESET CHANNEL replaced it), the replacement
    falls back to the full search, so the records end as :func:`replace_in_uow` leaves them.
    """

    def __init__(self, qm: mqpy.QueueManager) -> None:
        self.qm = qm
        self.queue: mqpy.Queue | None = None
        self.msgid: bytes | None = None  # the record this MCA last put
        self._put_msgid: bytes | None = None

    def _queue(self) -> mqpy.Queue:
        if self.queue is None:
            self.queue = mqpy.Queue(self.qm, SYNCQ, _OPEN_OPTIONS)
        return self.queue

    def steps(self, record: SyncRecord) -> list[Step]:
        """The MQGET of the record last put and the MQPUT of ``record``, as steps of
        ``verbs.run_in_order`` (hand the results to :meth:`done`); [] when no record of
        this MCA is known yet."""
        if self.msgid is None:
            return []
        hobj = self._queue().get_handle()
        cid = correl_id(record.channel, record.role)
        # the MCA names the new record itself, so that nothing of the put comes back
        self._put_msgid = os.urandom(24)
        match = CMQC.MQMO_MATCH_CORREL_ID | CMQC.MQMO_MATCH_MSG_ID
        return [("get", (hobj, mqpy.MD(CorrelId=cid, MsgId=self.msgid),
                         mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT, MatchOptions=match), None)),
                ("put", (hobj, mqpy.MD(CorrelId=cid, MsgId=self._put_msgid,
                                       Persistence=CMQC.MQPER_PERSISTENT),
                         mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT), record.to_bytes()), False)]

    def done(self, results: list[Any]) -> bool:
        """Did the :meth:`steps` replace the record? (False: call :meth:`replace_in_uow`.)"""
        ok = len(results) == 2 and not any(isinstance(r, mqpy.MQMIError) for r in results)
        self.msgid = self._put_msgid if ok else None
        return ok

    def replace_in_uow(self, record: SyncRecord, before: list[Step] | None = None,
                       prepare: bytes | None = None) -> bool:
        """:func:`replace_in_uow` on the open handle: one round trip once the record this
        MCA put is known, the full search otherwise. ``before``: calls of
        ``verbs.run_in_order`` made first, in the same round trip (a pipelined sending
        MCA's commit of the batch before); the first of them that fails is raised, with
        the record not replaced. ``prepare``: an in-doubt key under which that round trip
        also prepares the unit of work once the record is replaced (a sending MCA's batch
        end, xmitgets.run_quiet): whether it did (else the caller prepares)."""
        before = before or []
        ours = self.steps(record)
        if before or ours:
            done, prepared = xmitgets.run_quiet(self.qm.get_handle(), [*before, *ours],
                                                prepare=prepare if ours else None)
            for result in done[:len(before)]:
                if isinstance(result, mqpy.MQMIError):
                    raise result
            if ours and self.done(done[len(before):]):
                return prepared
        self.msgid = None  # unknown until the full search has put the record
        self.msgid = replace_in_uow(self.qm, record, self._queue())
        return False


    async def replace_in_uow_in_loop(self, record: SyncRecord,
                                     before: list[Step] | None = None,
                                     prepare: bytes | None = None) -> bool | None:
        """:meth:`replace_in_uow` with its one round trip made from the event loop, without
        a worker thread (xmitgets.run_quiet_in_loop): whether it prepared. None, nothing
        done, when it cannot be (the record this MCA put not known yet, a connection
        another thread is using or one strmqtrc traces): the caller then calls
        replace_in_uow in a worker thread. The full search, when the round trip did not
        find the record as this MCA left it, is made in one."""
        if self.msgid is None:
            return None
        before = before or []
        ran = await xmitgets.run_quiet_in_loop(self.qm.get_handle(),
                                               [*before, *self.steps(record)],
                                               prepare=prepare)
        if ran is None:
            return None
        done, prepared = ran
        for result in done[:len(before)]:
            if isinstance(result, mqpy.MQMIError):
                raise result
        if self.done(done[len(before):]):
            return prepared
        self.msgid = None  # unknown until the full search has put the record
        self.msgid = await trio.to_thread.run_sync(replace_in_uow, self.qm, record,
                                                   self._queue())
        return False


def prepare_key(channel: str, prev_seq: int, seq: int, luwid: bytes, partner: str, *,
                prev_luwid: bytes = bytes(8)) -> bytes:
    """The in-doubt key of a sender's batch: channel, the sequence number before the batch
    and its last one, its LUWID, the LUWID of the batch before it and the partner queue
    manager. The key carries what the sync record says because that record is locked by the
    very unit of work in doubt (DISPLAY CHSTATUS SAVED shows both LUWIDs from it)."""
    return (_PREFIX + channel.encode("latin-1").ljust(20) + prev_seq.to_bytes(4, "big")
            + seq.to_bytes(4, "big") + luwid + prev_luwid + partner.encode("latin-1"))


@attrs.frozen
class InDoubt:
    channel: str
    prev_seq: int
    seq: int
    luwid: bytes
    partner: str
    key: bytes
    prev_luwid: bytes = bytes(8)


def parse_prepare_key(key: bytes) -> InDoubt | None:
    head = key[:len(_PREFIX)]
    if head not in (_PREFIX, b"CHL:") or len(key) < len(_PREFIX) + 36:
        return None
    body = key[len(_PREFIX):]
    prev_luwid, partner = (body[36:44], body[44:]) if head == _PREFIX else (bytes(8), body[36:])
    return InDoubt(body[:20].rstrip().decode("latin-1"), int.from_bytes(body[20:24], "big"),
                   int.from_bytes(body[24:28], "big"), body[28:36],
                   partner.decode("latin-1"), key, prev_luwid)


def indoubt_batch(qm: mqpy.QueueManager, channel: str) -> InDoubt | None:
    """The channel's in-doubt batch, if it has one."""
    for key in qm.get_handle().indoubt():
        parsed = parse_prepare_key(key)
        if parsed is not None and parsed.channel == channel:
            return parsed
    return None


# ---------------------------------------------------------------- channel states that persist

_STATE_ROLE = "T"


def write_state(qm: mqpy.QueueManager, channel: str, state: str | None,
                disabled: tuple[str, str] | None = None) -> None:
    """Remember that ``channel`` is STOPPED or RETRYING across restarts; None forgets it.
    ``disabled``: the (transmission queue, its TRIGGER) that the error stop disabled."""
    record: dict[str, object] = {"channel": channel, "state": state}
    if disabled is not None:
        record["xmitq"], record["trigger"] = disabled
    body = json.dumps(record).encode() if state else None
    _replace(qm, correl_id(channel, _STATE_ROLE), None, body)
    qm.commit()


def read_states(qm: mqpy.QueueManager) -> dict[str, str]:
    """Every remembered channel state: channel -> STOPPED | RETRYING."""
    return {d["channel"]: d["state"] for d in _state_records(qm)}


def read_disabled_xmitqs(qm: mqpy.QueueManager) -> dict[str, tuple[str, str]]:
    """The transmission queues error stops disabled: channel -> (xmitq, the TRIGGER it
    had)."""
    return {str(d["channel"]): (str(d["xmitq"]), str(d.get("trigger") or "NO"))
            for d in _state_records(qm) if d.get("state") == "STOPPED" and d.get("xmitq")}


def _state_records(qm: mqpy.QueueManager) -> list[dict[str, object]]:
    return [json.loads(data) for md, data in browse(qm, SYNCQ)
            if md.CorrelId.startswith(_STATE_ROLE.encode() + b":")]
