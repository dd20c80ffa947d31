"""Accounting messages written as a connection ends, as IBM MQ writes them: MQDISC, an
application that ends without MQDISC, and a connection the queue manager ends (STOP CONN,
endmqm) each write the connection's last MQI and queue accounting records once, with its
DiscType; a connection that lives longer than ACCTINT writes one at its first call after each
ACCTINT before.
Embedded queue managers; ``test_accounting_disconnect_daemon`` runs the bindings and client
paths through strmqm."""

from __future__ import annotations

import time

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.engine import connection
from mqpy.mqi import QueueManager, attach
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.stats import connaccounting
from mqpy.stats.collector import ACCOUNTING_QUEUE, emit_now

from ._support import drain

QUEUE = "ACCT.Q"


def _text(value) -> str:
    return value.decode("latin-1").rstrip(" \0") if isinstance(value, bytes) else str(value)


def _records(qm, appl: str) -> list:
    """The accounting messages on the queue now of the connections named ``appl``, in order."""
    return [m for _, m in drain(qm, ACCOUNTING_QUEUE)
            if _text(m.get(CMQCFC.MQCACF_APPL_NAME)) == appl]


def _mqi(records: list) -> list:
    return [m for m in records if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_MQI]


def _queue_groups(records: list, queue: str = QUEUE) -> list:
    return [g for m in records if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_Q
            for g in m.params if getattr(g, "Parameter", None) == CMQCFC.MQGACF_Q_ACCOUNTING_DATA
            and _text({p.Parameter: p.value for p in g.Parameters}[CMQC.MQCA_Q_NAME]) == queue]


def _group_value(group, param: int):
    return {p.Parameter: p.value for p in group.Parameters}[param]


def _connect(qmgr, appl: str) -> mqpy.QueueManager:
    """An application's connection to the embedded queue manager, named ``appl``."""
    name, _, _, eng = qmgr
    app = QueueManager(None)
    app._conn, app._name = eng.connect(appl), name
    return app


@pytest.fixture
def acct(qmgr):
    """ACCTMQI(ON) and ACCTQ(ON), QUEUE defined; (name, root, admin connection, engine)."""
    _, _, qm, eng = qmgr
    eng.alter_qmgr({"ACCTMQI": "ON", "ACCTQ": "ON", "STATMQI": "OFF", "STATQ": "OFF"})
    eng.define("QLOCAL", QUEUE, {})
    drain(qm, ACCOUNTING_QUEUE)
    return qmgr


def _work(app: mqpy.QueueManager, puts: int = 2) -> mqpy.Queue:
    q = mqpy.Queue(app, QUEUE, CMQC.MQOO_OUTPUT)
    for n in range(puts):
        q.put(b"m%d" % n)
    return q


@pytest.mark.parametrize("ending, disc_type", [
    ("mqdisc", CMQCFC.MQDISCONNECT_NORMAL),
    ("ended without MQDISC", CMQCFC.MQDISCONNECT_IMPLICIT),
    ("STOP CONN", CMQCFC.MQDISCONNECT_Q_MGR),
])
def test_a_connection_that_ends_writes_its_records_once_with_its_disc_type(acct, ending,
                                                                          disc_type):
    """Given ACCTMQI(ON) and ACCTQ(ON) and an application that puts twice to ACCT.Q, when it
    ends (MQDISC; without MQDISC; STOP CONN), then an MQI accounting record for it is on
    SYSTEM.ADMIN.ACCOUNTING.QUEUE at once, SeqNumber 0, with DiscDate, DiscTime and the
    DiscType of that end, its period starting at its MQCONN, and a queue accounting record
    counting the two puts; the next accounting interval writes nothing more for it."""
    _, _, qm, eng = acct
    app = _connect(acct, "acct-ending")
    _work(app)
    conn = app.connection()
    if ending == "mqdisc":
        app.disconnect()
    elif ending == "ended without MQDISC":
        conn.abend()
    else:
        conn.stop()
    records = _records(qm, "acct-ending")
    [mqi] = _mqi(records)
    assert mqi.get(CMQCFC.MQIAMO_DISC_TYPE) == disc_type
    assert mqi.get(CMQCFC.MQIACF_SEQUENCE_NUMBER) == 0
    assert sum(mqi.get(CMQCFC.MQIAMO_PUTS)) == 2
    assert _text(mqi.get(CMQCFC.MQCAMO_DISC_DATE)) == _text(mqi.get(CMQCFC.MQCAMO_END_DATE))
    assert _text(mqi.get(CMQCFC.MQCAMO_DISC_TIME)) == _text(mqi.get(CMQCFC.MQCAMO_END_TIME))
    assert _text(mqi.get(CMQCFC.MQCAMO_START_TIME)) == _text(mqi.get(CMQCFC.MQCAMO_CONN_TIME))
    [group] = _queue_groups(records)
    assert sum(_group_value(group, CMQCFC.MQIAMO_PUTS)) == 2
    emit_now(eng, qm)
    assert _records(qm, "acct-ending") == []


def test_the_queue_manager_ending_writes_q_mgr_records_for_connected_applications(acct):
    """Given ACCTMQI(ON), a persistent accounting queue and an application still connected,
    when the queue manager ends (endmqm), then after the restart its MQI accounting record is
    there, DiscType MQDISCONNECT_Q_MGR, counting its puts."""
    name, root, qm, eng = acct
    MQSCProcessor(eng).execute_text(f"ALTER QLOCAL({ACCOUNTING_QUEUE}) DEFPSIST(YES)")
    app = _connect(acct, "acct-endmqm")
    _work(app, 3)
    mqpy.stop_embedded(name, data_path=root)
    again = mqpy.embedded(name, data_path=root, create=False)
    try:
        [mqi] = _mqi(_records(again, "acct-endmqm"))
    finally:
        again.disconnect()
    assert mqi.get(CMQCFC.MQIAMO_DISC_TYPE) == CMQCFC.MQDISCONNECT_Q_MGR
    assert sum(mqi.get(CMQCFC.MQIAMO_PUTS)) == 3


def test_no_records_for_a_connection_made_while_accounting_was_off(qmgr):
    """Given ACCTMQI(OFF) and ACCTQ(OFF) when an application connects (IBM decides at
    MQCONN), when accounting is switched on and it then works and disconnects, then no
    accounting record is written at its MQDISC."""
    _, _, qm, eng = qmgr
    eng.define("QLOCAL", QUEUE, {})
    app = _connect(qmgr, "acct-off")
    assert app.connection().accounted is False
    eng.alter_qmgr({"ACCTMQI": "ON", "ACCTQ": "ON"})
    _work(app)
    app.disconnect()
    assert _records(qm, "acct-off") == []


@pytest.mark.parametrize("blocked", ["PUT(DISABLED)", "MAXDEPTH(1)"])
def test_an_accounting_queue_that_refuses_loses_the_records_and_mqdisc_succeeds(acct, blocked):
    """Given ACCTMQI(ON) and an accounting queue that refuses puts (put-inhibited; full),
    when an application disconnects, then MQDISC succeeds at once, its records are lost (and
    counted), and the application's messages are all there."""
    name, _, qm, eng = acct
    if blocked == "MAXDEPTH(1)":
        mqpy.Queue(qm, ACCOUNTING_QUEUE, CMQC.MQOO_OUTPUT).put(b"filler")
    MQSCProcessor(eng).execute_text(f"ALTER QLOCAL({ACCOUNTING_QUEUE}) {blocked}")
    lost = connaccounting.LOST[name]
    app = _connect(acct, "acct-refused")
    _work(app)
    began = time.monotonic()
    app.disconnect()
    assert time.monotonic() - began < 1.0
    assert connaccounting.LOST[name] >= lost + 2  # its MQI and its queue record
    assert eng.queue_status(QUEUE)["CURDEPTH"] == 2
    MQSCProcessor(eng).execute_text(f"ALTER QLOCAL({ACCOUNTING_QUEUE}) PUT(ENABLED) "
                                    "MAXDEPTH(5000)")
    if blocked == "MAXDEPTH(1)":
        assert mqpy.Queue(qm, ACCOUNTING_QUEUE, CMQC.MQOO_INPUT_SHARED).get() == b"filler"
    assert _records(qm, "acct-refused") == []


def test_a_long_connection_writes_a_record_each_acctint_then_its_last(acct):
    """Given ACCTMQI(ON) and ACCTINT(1), when an application connected for about 2.5 s puts
    once in each half second and disconnects, then its records have SeqNumber 0, 1, ... in
    order, the first written at least ACCTINT after its MQCONN, only the last with a
    DiscType, consecutive periods end where the next begins, and their puts add up to the
    puts made: none counted twice, none lost."""
    _, _, qm, eng = acct
    eng.alter_qmgr({"ACCTINT": 1})
    app = _connect(acct, "acct-long")
    connected = time.time()
    q = mqpy.Queue(app, QUEUE, CMQC.MQOO_OUTPUT)
    for n in range(5):
        q.put(b"m%d" % n)
        time.sleep(0.5)
    app.disconnect()
    mqi = _mqi(_records(qm, "acct-long"))
    assert len(mqi) >= 2, len(mqi)
    assert [m.get(CMQCFC.MQIACF_SEQUENCE_NUMBER) for m in mqi] == list(range(len(mqi)))
    assert [m.get(CMQCFC.MQIAMO_DISC_TYPE) for m in mqi[:-1]] == [None] * (len(mqi) - 1)
    assert mqi[-1].get(CMQCFC.MQIAMO_DISC_TYPE) == CMQCFC.MQDISCONNECT_NORMAL
    assert sum(sum(m.get(CMQCFC.MQIAMO_PUTS)) for m in mqi) == 5
    first_end = (_text(mqi[0].get(CMQCFC.MQCAMO_END_DATE)),
                 _text(mqi[0].get(CMQCFC.MQCAMO_END_TIME)))
    first_seen = time.mktime(time.strptime(" ".join(first_end), "%Y-%m-%d %H.%M.%S"))
    assert first_seen >= int(connected) + 1
    for before, after in zip(mqi, mqi[1:], strict=False):
        assert (_text(before.get(CMQCFC.MQCAMO_END_TIME))
                == _text(after.get(CMQCFC.MQCAMO_START_TIME)))


def test_the_engine_disconnect_path_tests_one_attribute_when_accounting_is_off(qmgr,
                                                                            monkeypatch):
    """Given accounting OFF when an application connected, when it disconnects, then the
    accounting writer is never called (its MQDISC pays one attribute test)."""
    called = []
    monkeypatch.setattr(connection, "write_at_disconnect", lambda *a: called.append(a))
    app = _connect(qmgr, "acct-cheap")
    app.disconnect()
    assert called == []


def test_the_channel_initiators_own_connections_write_no_records(acct):
    """Given ACCTMQI(ON) and ACCTQ(ON), when the channel initiator (its MQCONNs name it
    runmqchi) connects, puts and disconnects, then no accounting record is written for it:
    it is the queue manager's own component, not an application."""
    _, _, qm, _ = acct
    chinit = _connect(acct, "runmqchi")
    _work(chinit)
    chinit.disconnect()
    assert _records(qm, "runmqchi") == []


def test_the_queue_managers_own_connections_write_no_records(acct):
    """Given ACCTMQI(ON), when a connection of the queue manager's own (``mqi.attach``: the
    command server's, the statistics task's) ends, then no accounting record names it."""
    _, _, qm, eng = acct
    own = attach(eng)
    connection_id = own.connection().hconn.to_bytes(8, "big").rjust(24, b"\0")
    own.disconnect()
    ids = [bytes(m.get(CMQCFC.MQBACF_CONNECTION_ID)) for _, m in drain(qm, ACCOUNTING_QUEUE)]
    assert connection_id not in ids
