"""When a connection's accounting records are written, as IBM MQ writes them: an
intermediate record at the connection's first MQI call after ACCTINT has passed (since its
MQCONN or its previous record), none for a connection idle past it (until it calls again or
ends), ALTER QMGR ACCTINT applying to the period in progress; and a record the accounting
queue refuses reported by AMQ7315W in the error log once per reason and ACCTINT, not once
per record. Embedded queue managers."""

from __future__ import annotations

import glob
import os
import time

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.stats.collector import ACCOUNTING_QUEUE, start_statistics

from ._support import drain

QUEUE = "ACCT.Q"


def _text(value) -> str:
    return value.decode("latin-1").rstrip(" \0") if isinstance(value, bytes) else str(value)


def _mqi(qm, appl: str) -> list:
    return [m for _, m in drain(qm, ACCOUNTING_QUEUE)
            if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_MQI
            and _text(m.get(CMQCFC.MQCACF_APPL_NAME)) == appl]


def _puts(record) -> int:
    return sum(record.get(CMQCFC.MQIAMO_PUTS))


@pytest.fixture
def acct(qmgr):
    """ACCTMQI(ON), statistics off, QUEUE defined, the accounting queue empty."""
    _, _, qm, eng = qmgr
    eng.alter_qmgr({"ACCTMQI": "ON", "STATMQI": "OFF", "STATQ": "OFF"})
    eng.define("QLOCAL", QUEUE, {})
    drain(qm, ACCOUNTING_QUEUE)
    return qmgr


def _app(eng, appl: str):
    """An application's connection, named ``appl``, and the handle of QUEUE it puts to."""
    conn = eng.connect(appl)
    return conn, conn.open(mqpy.OD(ObjectName=QUEUE.encode()), CMQC.MQOO_OUTPUT)


def _put(conn, hobj) -> None:
    conn.put(hobj, mqpy.MD(), mqpy.PMO(), b"x")


def _wait_past(seconds: float, since: float) -> None:
    time.sleep(max(0.0, since + seconds - time.monotonic()))


def test_an_idle_connection_writes_its_intermediate_record_at_its_next_call(acct):
    """Given ACCTMQI(ON), ACCTINT(1) and the statistics task running, when an application
    puts once and is idle for more than ACCTINT, then no record is written while it is
    idle; when it then puts again, its intermediate record (SeqNumber 0, no DiscType)
    counting the first put is on the queue as that call returns, and its MQDISC writes its
    last (SeqNumber 1) counting the second: each put counted once."""
    _, _, qm, eng = acct
    eng.alter_qmgr({"ACCTINT": 1})
    stop = start_statistics(eng, qm)
    try:
        began = time.monotonic()
        conn, hobj = _app(eng, "acct-idle")
        _put(conn, hobj)
        _wait_past(1.3, began)
        idle = _mqi(qm, "acct-idle")
        _put(conn, hobj)
        [first] = _mqi(qm, "acct-idle")
        conn.disconnect()
        [last] = _mqi(qm, "acct-idle")
    finally:
        stop()
    assert idle == []
    assert (first.get(CMQCFC.MQIACF_SEQUENCE_NUMBER), first.get(CMQCFC.MQIAMO_DISC_TYPE),
            _puts(first)) == (0, None, 1)
    assert (last.get(CMQCFC.MQIACF_SEQUENCE_NUMBER), last.get(CMQCFC.MQIAMO_DISC_TYPE),
            _puts(last)) == (1, CMQCFC.MQDISCONNECT_NORMAL, 1)


def test_a_shorter_acctint_applies_to_the_period_in_progress(acct):
    """Given ACCTMQI(ON), ACCTINT(1800) and a connected application, when the administrator
    issues ALTER QMGR ACCTINT(1) and the application calls again more than a second after
    its MQCONN, then its intermediate record is written at that call (not 1800 s after its
    MQCONN)."""
    _, _, qm, eng = acct
    eng.alter_qmgr({"ACCTINT": 1800})
    began = time.monotonic()
    conn, hobj = _app(eng, "acct-alter")
    assert MQSCProcessor(eng).execute_text("ALTER QMGR ACCTINT(1)").ok
    _wait_past(1.1, began)
    _put(conn, hobj)
    [record] = _mqi(qm, "acct-alter")
    conn.disconnect()
    assert record.get(CMQCFC.MQIAMO_DISC_TYPE) is None


def _amq7315(root: str) -> list[str]:
    lines = []
    for path in glob.glob(os.path.join(root, "**", "errors", "AMQERR0*.LOG"), recursive=True):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines += [line for line in f if "AMQ7315W" in line]
    return lines


def test_a_refused_record_is_reported_once_per_reason_and_acctint(acct):
    """Given ACCTMQI(ON), ACCTQ(ON), ACCTINT(1800) and a put-inhibited accounting queue,
    when three applications each put and disconnect (six records refused), then the
    queue manager's error log has one AMQ7315W, "Failed to put message to accounting
    queue. Reason(2051)"; and when the queue is full instead, one more for that reason."""
    name, root, qm, eng = acct
    eng.alter_qmgr({"ACCTQ": "ON", "ACCTINT": 1800})
    mqsc = MQSCProcessor(eng)
    assert mqsc.execute_text(f"ALTER QLOCAL({ACCOUNTING_QUEUE}) PUT(DISABLED)").ok
    for n in range(3):
        conn, hobj = _app(eng, f"acct-lost-{n}")
        _put(conn, hobj)
        conn.disconnect()
    inhibited = _amq7315(root)
    assert mqsc.execute_text(f"ALTER QLOCAL({ACCOUNTING_QUEUE}) PUT(ENABLED) MAXDEPTH(1)").ok
    mqpy.Queue(qm, ACCOUNTING_QUEUE, CMQC.MQOO_OUTPUT).put(b"filler")
    for n in range(2):
        conn, hobj = _app(eng, f"acct-full-{n}")
        _put(conn, hobj)
        conn.disconnect()
    full = _amq7315(root)[len(inhibited):]
    assert mqsc.execute_text(f"ALTER QLOCAL({ACCOUNTING_QUEUE}) MAXDEPTH(5000)").ok
    assert len(inhibited) == 1, inhibited
    assert "Failed to put message to accounting queue. Reason(2051)" in inhibited[0]
    assert len(full) == 1 and "Reason(2053)" in full[0], full
