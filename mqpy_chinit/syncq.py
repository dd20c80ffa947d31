"""Channel synchronisation records on SYSTEM.CHANNEL.SYNCQ, and the keys of in-doubt batches.

Each end of a message channel keeps one persistent record per channel: the sequence number of
the last message of the last committed batch, that batch's LUWID and the partner queue manager.
The record is replaced in the same unit of work as the batch itself (the receiver's puts, the
sender's gets), so the record and the messages can never disagree after a crash.

A sending MCA hardens its batch *in doubt* before asking for confirmation: it prepares the unit
of work under a key naming the channel, the batch's last sequence number and its LUWID
(:func:`prepare_key`). The key survives restarts of either process, so at the next start the
MCA finds its in-doubt batch and resolves it with the partner's record.
"""

from __future__ import annotations

import json

import attrs

import mqpy
from mqpy import CMQC

SYNCQ = "SYSTEM.CHANNEL.SYNCQ"
_PREFIX = b"CHL:"


@attrs.define
class SyncRecord:
    channel: str
    role: str  # "S" sender, "R" receiver
    seq: int = 0
    luwid: bytes = bytes(8)
    partner_qm: str = ""
    reset: bool = False  # RESET CHANNEL at a sender: tell the receiver at the next start

    def to_bytes(self) -> bytes:
        return json.dumps({"channel": self.channel, "role": self.role, "seq": self.seq,
                           "luwid": self.luwid.hex(), "partner": self.partner_qm,
                           "reset": self.reset}).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> SyncRecord:
        d = json.loads(data)
        return cls(d["channel"], d["role"], int(d["seq"]), bytes.fromhex(d["luwid"]),
                   d.get("partner", ""), bool(d.get("reset", False)))


def partner_key(channel: str, partner_qm: str) -> str:
    """The record name of one partner of a channel many partners start (a CLUSRCVR): short
    enough for the CorrelId, the same for the same pair every time."""
    import hashlib

    digest = hashlib.sha1(f"{channel}\0{partner_qm}".encode("latin-1")).hexdigest()
    return "~" + digest[:20]


def correl_id(channel: str, role: str) -> bytes:
    """The CorrelId a channel's record is kept under: the role, then the channel name."""
    return (role.encode() + b":" + channel.encode("latin-1")).ljust(24, b" ")[:24]


def read(qm: mqpy.QueueManager, channel: str, role: str) -> SyncRecord | None:
    """The committed record of ``channel`` (browse: nothing is locked or changed)."""
    q = mqpy.Queue(qm, SYNCQ, CMQC.MQOO_BROWSE)
    try:
        md = mqpy.MD(CorrelId=correl_id(channel, role))
        gmo = mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST,
                       MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        try:
            return SyncRecord.from_bytes(q.get(None, md, gmo))
        except mqpy.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
    finally:
        q.close()


def replace_in_uow(qm: mqpy.QueueManager, record: SyncRecord) -> None:
    """Replace the channel's record inside the caller's current unit of work."""
    _replace(qm, correl_id(record.channel, record.role), record.to_bytes())


def _replace(qm: mqpy.QueueManager, cid: bytes, body: bytes | None) -> None:
    """Under syncpoint: remove every message with CorrelId ``cid``, then put ``body``."""
    q = mqpy.Queue(qm, SYNCQ, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    try:
        while True:
            try:
                q.get(None, mqpy.MD(CorrelId=cid),
                      mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT,
                               MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
        if body is not None:
            q.put(body, mqpy.MD(CorrelId=cid, Persistence=CMQC.MQPER_PERSISTENT),
                  mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    finally:
        q.close()


def prepare_key(channel: str, prev_seq: int, seq: int, luwid: bytes, partner: str) -> bytes:
    """The in-doubt key of a sender's batch: channel, the sequence number before the batch
    and its last one, its LUWID and the partner queue manager. The key carries what the sync
    record would say because that record is locked by the very unit of work in doubt."""
    return (_PREFIX + channel.encode("latin-1").ljust(20) + prev_seq.to_bytes(4, "big")
            + seq.to_bytes(4, "big") + luwid + partner.encode("latin-1"))


@attrs.frozen
class InDoubt:
    channel: str
    prev_seq: int
    seq: int
    luwid: bytes
    partner: str
    key: bytes


def parse_prepare_key(key: bytes) -> InDoubt | None:
    if not key.startswith(_PREFIX) or len(key) < len(_PREFIX) + 36:
        return None
    body = key[len(_PREFIX):]
    return InDoubt(body[:20].rstrip().decode("latin-1"), int.from_bytes(body[20:24], "big"),
                   int.from_bytes(body[24:28], "big"), body[28:36],
                   body[36:].decode("latin-1"), key)


def indoubt_batch(qm: mqpy.QueueManager, channel: str) -> InDoubt | None:
    """The channel's in-doubt batch, if it has one."""
    for key in qm.get_handle().indoubt():
        parsed = parse_prepare_key(key)
        if parsed is not None and parsed.channel == channel:
            return parsed
    return None


# ---------------------------------------------------------------- channel states that persist

_STATE_ROLE = "T"


def write_state(qm: mqpy.QueueManager, channel: str, state: str | None) -> None:
    """Remember that ``channel`` is STOPPED or RETRYING across restarts; None forgets it."""
    body = json.dumps({"channel": channel, "state": state}).encode() if state else None
    _replace(qm, correl_id(channel, _STATE_ROLE), body)
    qm.commit()


def read_states(qm: mqpy.QueueManager) -> dict[str, str]:
    """Every remembered channel state: channel -> STOPPED | RETRYING."""
    out: dict[str, str] = {}
    q = mqpy.Queue(qm, SYNCQ, CMQC.MQOO_BROWSE)
    try:
        opts = CMQC.MQGMO_BROWSE_FIRST
        while True:
            md = mqpy.MD()
            try:
                data = q.get(None, md, mqpy.GMO(Options=opts))
            except mqpy.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return out
                raise
            opts = CMQC.MQGMO_BROWSE_NEXT
            if md.CorrelId.startswith(_STATE_ROLE.encode() + b":"):
                d = json.loads(data)
                out[d["channel"]] = d["state"]
    finally:
        q.close()
