"""A connection's accounting messages: at its first MQI call after each ACCTINT, and when
it ends; which records a connection writes, decided at its MQCONN.

IBM writes a connection's MQI and queue accounting messages on SYSTEM.ADMIN.ACCOUNTING.QUEUE
when the application disconnects, and, for a connection that lives longer than ACCTINT, an
intermediate record at its first MQI call once ACCTINT has passed since its MQCONN or its
previous record (an idle connection writes none until it calls again or ends). Each record
covers the counts since the connection's previous one (its period: IntervalStart/End),
carries the connection's SeqNumber (0 first, one more each record), and the last carries
DiscDate, DiscTime and DiscType:

1. MQDISC: MQDISCONNECT_NORMAL.
2. The application ended without MQDISC (its socket closed, its process ended):
   MQDISCONNECT_IMPLICIT.
3. The queue manager ended the connection (STOP CONN, endmqm): MQDISCONNECT_Q_MGR.

Which records, decided once, at MQCONN (:func:`choose`; a later ALTER QMGR does not change
an open connection's):

4. MQI records when ACCTMQI is ON; queue records for a queue whose ACCTQ is ON, or QMGR
   with the queue manager's ACCTQ ON; none for any queue when the queue manager's ACCTQ
   is NONE (a queue's own ACCTQ(ON) is honoured under the queue manager's OFF).
5. With ACCTCONO(ENABLED) an MQCONNX's MQCNO_ACCOUNTING_MQI_ENABLED / _DISABLED and
   MQCNO_ACCOUNTING_Q_ENABLED / _DISABLED override ACCTMQI and the queue manager's ACCTQ
   for that connection (ACCTQ NONE stays NONE); with ACCTCONO(DISABLED) they are ignored.
   IBM does not say what both options of a pair do: ENABLED wins here.

The engine writes the records holding its lock: :func:`write_at_disconnect` once the
connection has left the connection table, :func:`write_intermediate` from the first call past
the period's deadline (``mqpy.engine.stats.ConnectionAccounting``), so no count is written
twice. The messages are the queue manager's own puts, outside syncpoint, persistent as the
queue's DEFPSIST says; their log force is the caller's, once it has let go of the lock (at
MQDISC), or the connection's next force (an intermediate record). One that cannot be put
(the queue full, put-inhibited or deleted) is lost, as IBM loses them, counted in
:data:`LOST`, and reported by AMQ7315W in the queue manager's error log once per reason and
ACCTINT (:class:`LostRecords`): the call neither fails nor waits for it.

Owns building and putting the records of one connection; never puts through a connection,
never sleeps.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

import attrs

from mqpy import CMQC, CMQCFC, errorlog
from mqpy.amqmsgs import AMQMessage
from mqpy.engine.stats import NEVER, ConnectionAccounting, Statistics, WatchedStatistics
from mqpy.pcf import PCFMessage
from mqpy.stats.records import (
    ConnectionInfo,
    QueueInfo,
    accounting_mqi,
    accounting_q,
    pack,
)
from mqpy.structs.tables import MD

if TYPE_CHECKING:
    from mqpy.engine.connection import Connection
    from mqpy.engine.qmgr import QueueManagerEngine

ACCOUNTING_QUEUE = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"

#: accounting messages that could not be put, by queue manager name
LOST: Counter[str] = Counter()

#: IBM's message for an accounting record the queue refused (id, letter and line: IBM's
#: technote "AMQ7315 or AMQ7316 errors after deleting messages from the
#: SYSTEM.ADMIN.ACCOUNTING.QUEUE"; belongs in ``mqpy.amqmsgs`` beside the others)
AMQ7315 = AMQMessage(
    "AMQ7315W", "Failed to put message to accounting queue. Reason({reason})",
    "The attempt to put a message containing accounting data to the queue "
    "SYSTEM.ADMIN.ACCOUNTING.QUEUE failed with reason code {reason}. The message data has "
    "been discarded. This error message is written once for the failed puts of one "
    "accounting interval (ACCTINT) that fail for the same reason.",
    "Ensure that the queue SYSTEM.ADMIN.ACCOUNTING.QUEUE is available and operational: "
    "that it exists, is not put-inhibited, and that an application such as amqsmon empties "
    "it.",
    arith=("reason",))

_MQI_OPTIONS = CMQC.MQCNO_ACCOUNTING_MQI_ENABLED | CMQC.MQCNO_ACCOUNTING_MQI_DISABLED
_Q_OPTIONS = CMQC.MQCNO_ACCOUNTING_Q_ENABLED | CMQC.MQCNO_ACCOUNTING_Q_DISABLED


def on(value: object) -> bool:
    return str(value).upper() == "ON"


def queue_enabled(queue_attr: object, qmgr_attr: object) -> bool:
    """A queue's STATQ / ACCTQ: ON or OFF decide; QMGR defers to the queue manager's; the
    queue manager's NONE is off for every queue (rule 4)."""
    q = str(queue_attr or "QMGR").upper()
    if str(qmgr_attr).upper() == "NONE":
        return False
    return q == "ON" or (q == "QMGR" and on(qmgr_attr))


@attrs.frozen
class Choice:
    """The records a connection writes (rules 4 and 5): MQI records or not, and the queue
    manager's ACCTQ as it applies to the connection (ON, OFF or NONE)."""

    mqi: bool = False
    queues: str = "OFF"

    @property
    def from_mqconn(self) -> bool:
        """Records whatever queues it uses: MQI ones, or queue ones for ACCTQ(QMGR)."""
        return self.mqi or self.queues == "ON"

    @property
    def queue_level_only(self) -> bool:
        """Only a queue's own ACCTQ(ON) can give it records."""
        return not self.mqi and self.queues == "OFF"


#: the choice of a connection that writes no records at all
NONE = Choice(False, "NONE")


def choose(qmgr_attrs: dict, options: int = 0) -> Choice:
    """The records of a connection made now with the MQCNO ``options`` (rules 4 and 5)."""
    mqi = on(qmgr_attrs.get("ACCTMQI"))
    queues = str(qmgr_attrs.get("ACCTQ") or "OFF").upper()
    if options & (_MQI_OPTIONS | _Q_OPTIONS) \
            and str(qmgr_attrs.get("ACCTCONO", "DISABLED")).upper() == "ENABLED":
        if options & CMQC.MQCNO_ACCOUNTING_MQI_ENABLED:
            mqi = True
        elif options & CMQC.MQCNO_ACCOUNTING_MQI_DISABLED:
            mqi = False
        if queues != "NONE":
            if options & CMQC.MQCNO_ACCOUNTING_Q_ENABLED:
                queues = "ON"
            elif options & CMQC.MQCNO_ACCOUNTING_Q_DISABLED:
                queues = "OFF"
    return Choice(mqi, queues)


def acctint(qmgr_attrs: dict) -> float:
    """ACCTINT in seconds (at least 1; 1800 when not a number)."""
    try:
        return max(1.0, float(qmgr_attrs.get("ACCTINT", 1800)))
    except (TypeError, ValueError):
        return 1800.0


def queue_records(engine: QueueManagerEngine, name: str, queues: str) -> bool:
    """Does a connection whose queue manager's ACCTQ is ``queues`` write records for the
    queue ``name`` (rule 4)? Not for one that is gone."""
    obj = engine.catalog.queue_def(name)
    return obj is not None and queue_enabled(obj.attributes.get("ACCTQ"), queues)


def account(conn: Connection, options: int | None) -> None:
    """Decide at MQCONN which records ``conn`` writes (rules 4 and 5; ``options`` None: none,
    the queue manager's own component) and give it the counters that go with that: ones
    that end a period at its first call past ACCTINT when it writes records from now on,
    ones that watch for a queue of its own ACCTQ(ON) when only such a queue can give it
    records, plain ones otherwise (a call pays nothing for accounting then)."""
    choice = NONE if options is None else choose(conn.engine.catalog.qmgr, options)
    conn.accounting_choice = choice
    conn.accounted = False
    if choice.from_mqconn:
        start(conn, Statistics())
    elif choice.queue_level_only:
        conn.accounting = WatchedStatistics(functools.partial(queue_counted, conn))
    else:
        conn.accounting = Statistics()


def start(conn: Connection, counted: Statistics) -> None:
    """``conn``'s records are written from now: the counts so far (``counted``) are its first
    period's, which ends ACCTINT after its MQCONN."""
    conn.accounted = True
    began = time.monotonic() - max(0.0, time.time() - conn.connected_at)
    conn.accounting = ConnectionAccounting(
        counted.mqi, counted.queues, conn.connected_at, began,
        acctint(conn.engine.catalog.qmgr), functools.partial(period_due, conn))


def queue_counted(conn: Connection, name: str) -> None:
    """A queue first counted by a connection whose records only a queue's own ACCTQ(ON) can
    give: one that has it starts the connection's accounting (engine lock held)."""
    acc = conn.accounting
    if not conn.accounted and isinstance(acc, Statistics) \
            and queue_records(conn.engine, name, conn.accounting_choice.queues):
        start(conn, acc)


def period_due(conn: Connection) -> None:
    """``conn``'s first call past its period's deadline (engine lock held): the period's
    records are written, the next period begins. A connection whose records were switched
    off after its MQCONN (``mqi.attach``: the queue manager's own) looks no more."""
    acc = conn.accounting
    if not isinstance(acc, ConnectionAccounting):
        return
    if not conn.accounted or not conn.connected:
        acc.due = NEVER
        return
    lsn = write_intermediate(conn)
    if lsn > conn.accounting_lsn:
        conn.accounting_lsn = lsn


def interval_changed(engine: QueueManagerEngine) -> None:
    """ALTER QMGR ACCTINT: each connection's period in progress ends the new ACCTINT after
    it began (at its next call, if that is past)."""
    with engine.lock:
        seconds = acctint(engine.catalog.qmgr)
        for conn in list(engine.connections.values()):
            acc = conn.accounting
            if conn.accounted and isinstance(acc, ConnectionAccounting):
                acc.interval(seconds)


class LostRecords:
    """AMQ7315W for the records one queue manager could not put: once per reason in each
    ACCTINT (IBM writes it once for the puts of one operation that fail for the same
    reason, not once per record)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reported: dict[tuple[str, int], float] = {}  # (qmgr dir, reason) -> monotonic

    def report(self, engine: QueueManagerEngine, reason: int) -> None:
        key, now = (engine.qmdir, reason), time.monotonic()
        with self._lock:
            last = self._reported.get(key)
            if last is not None and now - last < acctint(engine.catalog.qmgr):
                return
            self._reported[key] = now
        log = errorlog.ErrorLog(os.path.join(engine.qmdir, "errors"), qmgr=engine.name,
                                program="amqzlaa0")
        log.write(AMQ7315, inserts={"reason": reason})


#: the AMQ7315W reports of this process's queue managers
lost_records = LostRecords()


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


def connection_messages(engine: QueueManagerEngine, conn: Connection, end: float,
                        disc_type: int | None = None) -> list[PCFMessage]:
    """End the connection's period at ``end``: its MQCMD_ACCOUNTING_MQI and
    MQCMD_ACCOUNTING_Q (per queue) messages, as its :class:`Choice` says; ``disc_type``
    makes them its last. Called under the engine's lock; the counters start again (or, at
    the end, are done)."""
    choice = conn.accounting_choice
    start = period_start(conn)
    done = conn.accounting.take(acctint(engine.catalog.qmgr))
    qs = []
    for name, counters in sorted(done.queues.items()):
        obj = engine.catalog.queue_def(name)
        if obj is not None and queue_enabled(obj.attributes.get("ACCTQ"), choice.queues):
            found = queue_info(engine, name)
            if found is not None:
                qs.append((found[0], counters))
    if not choice.mqi and not qs:
        return []
    seq = conn.accounting_seq
    conn.accounting_seq = seq + 1
    info = ConnectionInfo(
        connection_id=conn.hconn.to_bytes(8, "big").rjust(24, b"\0"),
        appl_name=bytes(conn.appl_name).decode("latin-1"),
        user=bytes(conn.user).decode("latin-1"), conn_time=conn.connected_at, seq=seq,
        channel=conn.channel, conn_name=conn.conname)
    out: list[PCFMessage] = []
    if choice.mqi:
        out.append(accounting_mqi(engine.name, info, done.mqi, start, end,
                                  disc_type=disc_type))
    if qs:
        out += accounting_q(engine.name, info, qs, start, end)
    return out


def _refusal(engine: QueueManagerEngine, size: int) -> int:
    """Why the accounting queue refused a message of ``size`` bytes (for AMQ7315W)."""
    obj = engine.catalog.queue_def(ACCOUNTING_QUEUE)
    if obj is None:
        return CMQC.MQRC_UNKNOWN_OBJECT_NAME
    a = obj.attributes
    if a.get("PUT") == "DISABLED":
        return CMQC.MQRC_PUT_INHIBITED
    mq = engine.catalog.queues.get(obj.qid) if obj.objtype == "QLOCAL" else None
    if mq is not None and mq.depth >= int(a.get("MAXDEPTH", 5000)):
        return CMQC.MQRC_Q_FULL
    if size > int(a.get("MAXMSGL", 4194304)):
        return CMQC.MQRC_MSG_TOO_BIG_FOR_Q
    return CMQC.MQRC_UNEXPECTED_ERROR


def _put(conn: Connection, msgs: list[PCFMessage]) -> int:
    """Put the records (engine lock held); the log position their force needs (0: none, or
    an event loop serving the call forces it: ``mqpy.loopcalls``)."""
    engine = conn.engine
    obj = engine.catalog.queue_def(ACCOUNTING_QUEUE)
    persistent = obj is not None and obj.attributes.get("DEFPSIST") == "YES"
    deferring = engine.deferring
    outer = getattr(deferring, "conn", None)
    if outer is None:  # (a persistent put's log force is left to the caller: not under the lock)
        conn.deferred_lsn, deferring.conn = 0, conn
    refused = 0
    try:
        for msg in msgs:
            md = MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_DATAGRAM,
                    Persistence=CMQC.MQPER_PERSISTENT if persistent
                    else CMQC.MQPER_NOT_PERSISTENT)
            body = pack(msg)
            if not engine._system_put(ACCOUNTING_QUEUE, "", md, body, dead_letter=False):
                LOST[engine.name] += 1
                refused = refused or _refusal(engine, len(body))
    finally:
        lsn = 0
        if outer is None:
            deferring.conn = None
            lsn, conn.deferred_lsn = conn.deferred_lsn or 0, None
    if refused:
        lost_records.report(engine, refused)
    return lsn


def write_at_disconnect(conn: Connection, disc_type: int) -> int:
    """Put the ending connection's last accounting messages (engine lock held); returns the
    log position the caller forces once it has let go of the lock (0: nothing to force, or
    an event loop serving the call forces it: ``mqpy.loopcalls``)."""
    msgs = connection_messages(conn.engine, conn, time.time(), disc_type)
    return _put(conn, msgs) if msgs else 0


def write_intermediate(conn: Connection) -> int:
    """Put the connection's intermediate accounting messages: its first call past the
    period's deadline (engine lock held). Returns the log position to force (0: none),
    which the connection's next force covers."""
    msgs = connection_messages(conn.engine, conn, time.time())
    return _put(conn, msgs) if msgs else 0


#: DiscType of each way a connection ends
NORMAL = CMQCFC.MQDISCONNECT_NORMAL
IMPLICIT = CMQCFC.MQDISCONNECT_IMPLICIT
Q_MGR = CMQCFC.MQDISCONNECT_Q_MGR
