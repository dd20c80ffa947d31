"""Channel synchronisation records on SYSTEM.CHANNEL.SYNCQ, and the keys of in-doubt batches:
their format and the blocking MQI calls that read and replace them.

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

The channel initiator's MCAs write these records (``mqpy_chinit.syncq`` keeps an MCA's record
on a handle held open); the queue manager's commands read and replace them too, with no channel
initiator running: RESET CHANNEL, RESOLVE CHANNEL, DISPLAY CHSTATUS SAVED. The states a
channel keeps across restarts (STOPPED, RETRYING) are kept on the same queue.
"""

from __future__ import annotations

import json

import attrs

from mqpy import CMQC
from mqpy.browsing import browse
from mqpy.errors import MQMIError
from mqpy.mqi import Queue, QueueManager
from mqpy.structs.tables import GMO, MD, PMO

__all__ = ["OPEN_OPTIONS", "SYNCQ", "InDoubt", "SyncRecord", "correl_id", "indoubt_batch",
           "parse_prepare_key", "prepare_key", "read", "read_all", "read_disabled_xmitqs",
           "read_states", "replace_in_uow", "write_state"]

SYNCQ = "SYSTEM.CHANNEL.SYNCQ"
#: how the records' queue is opened to replace one: input and output
OPEN_OPTIONS = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT
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


def _records(qm: QueueManager, channel: str, role: str
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


def read(qm: QueueManager, channel: str, role: str, partner: str = ""
         ) -> SyncRecord | None:
    """The committed record of ``channel``; a receiver's is the one naming ``partner``."""
    for _, record in _records(qm, channel, role):
        if role != "R" or record.partner_qm == partner:
            return record
    return None


def read_all(qm: QueueManager) -> list[SyncRecord]:
    """Every channel's sync record, senders' and each receiver partner's (DISPLAY CHSTATUS
    SAVED, RESET CHANNEL at a generic receiver)."""
    out: list[SyncRecord] = []
    for md, data in browse(qm, SYNCQ):
        if md.CorrelId[:2] in (b"S:", b"R:") and (record := _decoded(data)) is not None:
            out.append(record)
    return out


def replace_in_uow(qm: QueueManager, record: SyncRecord,
                   queue: Queue | None = None) -> bytes | None:
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


def _replace(qm: QueueManager, cid: bytes, msgids: list[bytes] | None,
             body: bytes | None, queue: Queue | None = None) -> bytes | None:
    """Under syncpoint: remove the messages with CorrelId ``cid`` (those with ``msgids``
    only, when given), then put ``body`` under it; the MsgId it was put with. ``queue``: the
    SYNCQ opened for input and output, left open (else it is opened and closed here)."""
    q = queue or Queue(qm, SYNCQ, OPEN_OPTIONS)
    try:
        keys = [MD(CorrelId=cid, MsgId=m) for m in msgids] if msgids is not None else None
        match = CMQC.MQMO_MATCH_CORREL_ID | (CMQC.MQMO_MATCH_MSG_ID if keys is not None else 0)
        while keys is None or keys:
            md = keys.pop() if keys is not None else MD(CorrelId=cid)
            try:
                q.get(None, md, GMO(Options=CMQC.MQGMO_SYNCPOINT, MatchOptions=match))
            except MQMIError as e:
                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    raise
                if keys is None:
                    break  # (a record another instance holds is its own business)
        if body is None:
            return None
        md = MD(CorrelId=cid, Persistence=CMQC.MQPER_PERSISTENT)
        q.put(body, md, PMO(Options=CMQC.MQPMO_SYNCPOINT))
        return bytes(md.MsgId)
    finally:
        if queue is None:
            q.close()


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


def indoubt_batch(qm: QueueManager, channel: str) -> InDoubt | None:
    """The channel's in-doubt batch, if it has one."""
    for key in qm.connection().indoubt():
        parsed = parse_prepare_key(key)
        if parsed is not None and parsed.channel == channel:
            return parsed
    return None


# ---------------------------------------------------------------- channel states that persist

_STATE_ROLE = "T"


def write_state(qm: QueueManager, channel: str, state: str | None,
                disabled: tuple[str, str] | None = None) -> None:
    """Remember that ``channel`` is STOPPED or RETRYING across restarts; None forgets it.
    ``disabled``: the (transmission queue, its TRIGGER) that the error stop disabled."""
    record: dict[str, object] = {"channel": channel, "state": state}
    if disabled is not None:
        record["xmitq"], record["trigger"] = disabled
    body = json.dumps(record).encode() if state else None
    _replace(qm, correl_id(channel, _STATE_ROLE), None, body)
    qm.commit()


def read_states(qm: QueueManager) -> dict[str, str]:
    """Every remembered channel state: channel -> STOPPED | RETRYING."""
    return {d["channel"]: d["state"] for d in _state_records(qm)}


def read_disabled_xmitqs(qm: QueueManager) -> dict[str, tuple[str, str]]:
    """The transmission queues error stops disabled: channel -> (xmitq, the TRIGGER it
    had)."""
    return {str(d["channel"]): (str(d["xmitq"]), str(d.get("trigger") or "NO"))
            for d in _state_records(qm) if d.get("state") == "STOPPED" and d.get("xmitq")}


def _state_records(qm: QueueManager) -> list[dict[str, object]]:
    return [json.loads(data) for md, data in browse(qm, SYNCQ)
            if md.CorrelId.startswith(_STATE_ROLE.encode() + b":")]
