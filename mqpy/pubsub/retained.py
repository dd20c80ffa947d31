"""Retained publications kept over a restart: a persistent retained publication is also a
message on SYSTEM.RETAINED.PUB.QUEUE (IBM's queue for them), its data the topic string's
length (4 bytes, big-endian), the topic string (UTF-8) and the publication's data, its MQMD
the publication's. A non-persistent one is kept in memory only and is gone after a restart,
as IBM documents. The queue manager's own connection puts, gets and browses it."""

from __future__ import annotations

from typing import Any

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy.structs.tables import GMO, MD, OD, PMO

__all__ = ["QUEUE", "forget", "load", "store"]

QUEUE = "SYSTEM.RETAINED.PUB.QUEUE"
_LENGTH = 4


def _encode(topic: str, data: bytes) -> bytes:
    raw = topic.encode("utf-8")
    return len(raw).to_bytes(_LENGTH, "big") + raw + data


def _decode(body: bytes) -> tuple[str, bytes] | None:
    if len(body) < _LENGTH:
        return None
    n = int.from_bytes(body[:_LENGTH], "big")
    if len(body) < _LENGTH + n:
        return None
    return body[_LENGTH:_LENGTH + n].decode("utf-8", "replace"), body[_LENGTH + n:]


def store(eng: Any, topic: str, md: MD, data: bytes) -> bytes | None:
    """Put a persistent retained publication on the queue; its MsgId (None: no queue)."""
    if eng.catalog.queue_def(QUEUE) is None:
        return None
    conn = eng.connect("amqfqpub")
    try:
        kept = md.copy()
        kept.Persistence = CMQC.MQPER_PERSISTENT
        pmo = PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_SET_ALL_CONTEXT
                  | CMQC.MQPMO_NEW_MSG_ID)
        conn.put1(OD(ObjectName=QUEUE), kept, pmo, _encode(topic, data))
        return bytes(kept.MsgId)
    finally:
        conn.disconnect()


def forget(eng: Any, msgid: bytes) -> None:
    """Remove the retained publication stored as ``msgid`` (replaced, or cleared)."""
    if eng.catalog.queue_def(QUEUE) is None:
        return
    conn = eng.connect("amqfqpub")
    try:
        hobj = conn.open(OD(ObjectName=QUEUE), CMQC.MQOO_INPUT_AS_Q_DEF)
        try:
            conn.get(hobj, MD(MsgId=msgid), GMO(Options=CMQC.MQGMO_NO_SYNCPOINT,
                                                MatchOptions=CMQC.MQMO_MATCH_MSG_ID), None)
        except MQMIError as err:
            if err.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
        finally:
            conn.close(hobj, CMQC.MQCO_NONE)
    finally:
        conn.disconnect()


def load(eng: Any) -> dict[str, tuple[MD, bytes, bytes]]:
    """The retained publications on the queue by topic, the latest of each: (MQMD, data,
    MsgId); older ones of the same topic are removed."""
    found: dict[str, tuple[MD, bytes, bytes]] = {}
    if eng.catalog.queue_def(QUEUE) is None:
        return found
    stale = []
    conn = eng.connect("amqfqpub")
    try:
        hobj = conn.open(OD(ObjectName=QUEUE), CMQC.MQOO_BROWSE)
        try:
            options = CMQC.MQGMO_BROWSE_FIRST
            while True:
                md = MD()
                try:
                    body = conn.get(hobj, md, GMO(Options=options | CMQC.MQGMO_NO_SYNCPOINT),
                                    None)
                except MQMIError as err:
                    if err.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                        break
                    raise
                options = CMQC.MQGMO_BROWSE_NEXT
                decoded = _decode(body)
                if decoded is None:
                    continue
                topic, data = decoded
                if topic in found:
                    stale.append(found[topic][2])
                found[topic] = (md, data, bytes(md.MsgId))
        finally:
            conn.close(hobj, CMQC.MQCO_NONE)
    finally:
        conn.disconnect()
    for msgid in stale:
        forget(eng, msgid)
    return found
