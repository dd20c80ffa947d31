"""A connection's accounting messages: at each ACCTINT it lives through, and when it ends.

IBM writes a connection's MQI and queue accounting messages on SYSTEM.ADMIN.ACCOUNTING.QUEUE
when the application disconnects, and, for a connection that lives longer than ACCTINT, an
intermediate record each ACCTINT. Each record covers the counts since the connection's
previous one (its period: IntervalStart/End), carries the connection's SeqNumber (0 first,
one more each record), and the last carries DiscDate, DiscTime and DiscType:

1. MQDISC: MQDISCONNECT_NORMAL.
2. The application ended without MQDISC (its socket closed, its process ended):
   MQDISCONNECT_IMPLICIT.
3. The queue manager ended the connection (STOP CONN, endmqm): MQDISCONNECT_Q_MGR.

The engine calls :func:`write_at_disconnect` holding its lock, for a connection made while
ACCTMQI or ACCTQ was ON (``Connection.accounted``: IBM decides at MQCONN), once the connection
has left the connection table: the ACCTINT task never sees it again, so its counts are
written once. The messages are the queue manager's own puts, outside syncpoint, persistent as
the queue's DEFPSIST says (the log force, if any, made by the disconnect once it has let go of
the engine's lock); one that cannot be put (the queue full, put-inhibited or deleted) is lost, as
IBM loses them, and counted in :data:`LOST`: the disconnect neither fails nor waits for it.

Owns building the records of one connection; never puts through a connection, never sleeps.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from mqpy import CMQC, CMQCFC
from mqpy.pcf import PCFMessage, build
from mqpy.stats.records import ConnectionInfo, QueueInfo, accounting_mqi, accounting_q
from mqpy.structs.tables import MD

if TYPE_CHECKING:
    from mqpy.engine.connection import Connection
    from mqpy.engine.qmgr import QueueManagerEngine

ACCOUNTING_QUEUE = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"

#: accounting messages written at a disconnect that could not be put, by queue manager name
LOST: Counter[str] = Counter()


def on(value: object) -> bool:
    return str(value).upper() == "ON"


def queue_enabled(queue_attr: object, qmgr_attr: object) -> bool:
    """A queue's STATQ / ACCTQ: ON or OFF decide; QMGR defers to the queue manager's."""
    q = str(queue_attr or "QMGR").upper()
    if str(qmgr_attr).upper() == "NONE":
        return False
    return q == "ON" or (q == "QMGR" and on(qmgr_attr))


def queue_info(engine: QueueManagerEngine, name: str) -> tuple[QueueInfo, int, Any] | None:
    """(QueueInfo, current depth, attributes) of a queue, None if it is gone."""
    obj = engine.catalog.queue_def(name)
    if obj is None:
        return None
    a = obj.attributes
    depth = 0
    mq = engine.catalog.queues.get(obj.qid) if obj.objtype == "QLOCAL" else None
    if mq is not None:
        depth = mq.depth
    info = QueueInfo(name=name, qtype=obj.objtype, deftype=str(a.get("DEFTYPE", "PREDEFINED")),
                     crdate=str(a.get("CRDATE", "")), crtime=str(a.get("CRTIME", "")))
    return info, depth, a


def period_start(conn: Connection) -> float:
    """When the period the connection's next record covers began (its MQCONN, or the end of
    its previous record's)."""
    return max(conn.accounting.interval_start, conn.connected_at)


def connection_messages(engine: QueueManagerEngine, conn: Connection, qmgr_attrs: dict,
                        end: float, disc_type: int | None = None) -> list[PCFMessage]:
    """End the connection's period at ``end``: its MQCMD_ACCOUNTING_MQI (ACCTMQI ON) and
    MQCMD_ACCOUNTING_Q (ACCTQ, per queue) messages; ``disc_type`` makes them its last.
    Called under the engine's lock; the counters start again (or, at the end, are done)."""
    mqi_on, q_on = on(qmgr_attrs.get("ACCTMQI")), qmgr_attrs.get("ACCTQ", "OFF")
    start = period_start(conn)
    done = conn.accounting.take()
    seq = conn.accounting_seq
    conn.accounting_seq = seq + 1
    info = ConnectionInfo(
        connection_id=conn.hconn.to_bytes(8, "big").rjust(24, b"\0"),
        appl_name=bytes(conn.appl_name).decode("latin-1"),
        user=bytes(conn.user).decode("latin-1"), conn_time=conn.connected_at, seq=seq,
        channel=conn.channel, conn_name=conn.conname)
    out: list[PCFMessage] = []
    if mqi_on:
        out.append(accounting_mqi(engine.name, info, done.mqi, start, end,
                                  disc_type=disc_type))
    qs = []
    for name, counters in sorted(done.queues.items()):
        found = queue_info(engine, name)
        if found and queue_enabled(found[2].get("ACCTQ"), q_on):
            qs.append((found[0], counters))
    if qs:
        out += accounting_q(engine.name, info, qs, start, end)
    return out


def write_at_disconnect(conn: Connection, disc_type: int) -> int:
    """Put the ending connection's last accounting messages (engine lock held); returns the
    log position the caller forces once it has let go of the lock (0: nothing to force, or
    an event loop serving the call forces it: ``mqpy.loopcalls``). One that cannot be put is
    lost (counted in :data:`LOST`)."""
    engine = conn.engine
    msgs = connection_messages(engine, conn, engine.catalog.qmgr, time.time(), disc_type)
    if not msgs:
        return 0
    obj = engine.catalog.queue_def(ACCOUNTING_QUEUE)
    persistent = obj is not None and obj.attributes.get("DEFPSIST") == "YES"
    deferring = engine.deferring
    outer = getattr(deferring, "conn", None)
    if outer is None:  # (a persistent put's log force is left to the caller: not under the lock)
        conn.deferred_lsn, deferring.conn = 0, conn
    try:
        for msg in msgs:
            md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_DATAGRAM,
                    Persistence=CMQC.MQPER_PERSISTENT if persistent
                    else CMQC.MQPER_NOT_PERSISTENT)
            if not engine._system_put(ACCOUNTING_QUEUE, "", md, build(msg), dead_letter=False):
                LOST[engine.name] += 1
    finally:
        lsn = 0
        if outer is None:
            deferring.conn = None
            lsn, conn.deferred_lsn = conn.deferred_lsn or 0, None
    return lsn


#: DiscType of each way a connection ends
NORMAL = CMQCFC.MQDISCONNECT_NORMAL
IMPLICIT = CMQCFC.MQDISCONNECT_IMPLICIT
Q_MGR = CMQCFC.MQDISCONNECT_Q_MGR
