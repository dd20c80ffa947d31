"""Which accounting records a connection writes, decided at its MQCONN as IBM MQ decides:
ACCTMQI and ACCTQ, a queue's own ACCTQ (ON honoured under the queue manager's OFF, nothing
under its NONE), and with ACCTCONO(ENABLED) an MQCONNX's MQCNO_ACCOUNTING_MQI_* and
MQCNO_ACCOUNTING_Q_* options overriding them for that connection. Embedded queue managers;
the bindings and client MQCONNX are in ``test_accounting_disconnect_daemon``."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, config
from mqpy.cmdserver import start_command_server
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.pcfexec import PCFExecute
from mqpy.stats.collector import ACCOUNTING_QUEUE
from mqpy.stats.connaccounting import Choice, choose

from ._support import drain

MQI_ON, MQI_OFF = CMQC.MQCNO_ACCOUNTING_MQI_ENABLED, CMQC.MQCNO_ACCOUNTING_MQI_DISABLED
Q_ON, Q_OFF = CMQC.MQCNO_ACCOUNTING_Q_ENABLED, CMQC.MQCNO_ACCOUNTING_Q_DISABLED


def _text(value) -> str:
    return value.decode("latin-1").rstrip(" \0") if isinstance(value, bytes) else str(value)


def _records(qm, appl: str) -> list:
    return [m for _, m in drain(qm, ACCOUNTING_QUEUE)
            if _text(m.get(CMQCFC.MQCACF_APPL_NAME)) == appl]


def _queues_in(records: list) -> list[str]:
    """The queues the queue accounting records name, in order."""
    return [_text({p.Parameter: p.value for p in g.Parameters}[CMQC.MQCA_Q_NAME])
            for m in records if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_Q
            for g in m.params if getattr(g, "Parameter", None) == CMQCFC.MQGACF_Q_ACCOUNTING_DATA]


def _mqi(records: list) -> list:
    return [m for m in records if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_MQI]


def _run(qmgr, appl: str, options: int | None = None, queues=("ACCT.A", "ACCT.B")) -> list:
    """An application named ``appl`` connects (an MQCONNX's MQCNO ``options`` as the queue
    manager receives them), puts once to each queue and disconnects: its records."""
    _, _, qm, eng = qmgr
    conn = eng.connect(appl)
    if options is not None:
        conn.account_as_asked(options)
    for name in queues:
        hobj = conn.open(mqpy.OD(ObjectName=name.encode()), CMQC.MQOO_OUTPUT)
        conn.put(hobj, mqpy.MD(), mqpy.PMO(), b"x")
    conn.disconnect()
    return _records(qm, appl)


@pytest.fixture
def queues(qmgr):
    """ACCT.A with its own ACCTQ(ON), ACCT.B with ACCTQ(QMGR), ACCT.C with ACCTQ(OFF);
    statistics off, the accounting queue empty."""
    _, _, qm, eng = qmgr
    eng.alter_qmgr({"STATMQI": "OFF", "STATQ": "OFF"})
    eng.define("QLOCAL", "ACCT.A", {"ACCTQ": "ON"})
    eng.define("QLOCAL", "ACCT.B", {})
    eng.define("QLOCAL", "ACCT.C", {"ACCTQ": "OFF"})
    drain(qm, ACCOUNTING_QUEUE)
    return qmgr


@pytest.mark.parametrize("acctq, written", [
    ("OFF", ["ACCT.A"]),
    ("ON", ["ACCT.A", "ACCT.B"]),
    ("NONE", []),
])
def test_a_queues_own_acctq_on_is_honoured_unless_the_queue_manager_says_none(
        queues, acctq, written):
    """Given ACCTMQI(OFF), the queue manager's ACCTQ(OFF / ON / NONE), and queues with
    ACCTQ ON, QMGR and OFF, when an application puts to each and disconnects, then its queue
    accounting record is written at its MQDISC and names the queues IBM's rule gives: the
    one of its own ACCTQ(ON) under OFF, that and the QMGR one under ON, none under NONE;
    never the OFF one, and no MQI record."""
    queues[3].alter_qmgr({"ACCTMQI": "OFF", "ACCTQ": acctq})
    records = _run(queues, f"acct-q-{acctq}", queues=("ACCT.A", "ACCT.B", "ACCT.C"))
    assert _queues_in(records) == written
    assert _mqi(records) == []


@pytest.mark.parametrize("acctcono, options, mqi, written", [
    ("ENABLED", MQI_ON | Q_ON, 1, ["ACCT.A", "ACCT.B"]),
    ("ENABLED", MQI_ON, 1, ["ACCT.A"]),
    ("ENABLED", 0, 0, ["ACCT.A"]),
    ("DISABLED", MQI_ON | Q_ON, 0, ["ACCT.A"]),
])
def test_mqcno_accounting_options_enable_what_the_queue_manager_has_off_under_acctcono(
        queues, acctcono, options, mqi, written):
    """Given ACCTMQI(OFF) and ACCTQ(OFF), when an application connects with
    MQCNO_ACCOUNTING_MQI_ENABLED and/or _Q_ENABLED, puts and disconnects, then with
    ACCTCONO(ENABLED) its MQI record, and queue records for the ACCTQ(QMGR) queue, are
    written; with ACCTCONO(DISABLED), or without the options, only what the queue manager's
    attributes give (the queue of its own ACCTQ(ON))."""
    queues[3].alter_qmgr({"ACCTMQI": "OFF", "ACCTQ": "OFF", "ACCTCONO": acctcono})
    records = _run(queues, f"acct-cno-{acctcono}-{options}", options)
    assert len(_mqi(records)) == mqi
    assert _queues_in(records) == written


@pytest.mark.parametrize("acctcono, options, mqi, written", [
    ("ENABLED", MQI_OFF | Q_OFF, 0, ["ACCT.A"]),
    ("ENABLED", MQI_OFF, 0, ["ACCT.A", "ACCT.B"]),
    ("DISABLED", MQI_OFF | Q_OFF, 1, ["ACCT.A", "ACCT.B"]),
])
def test_mqcno_accounting_options_disable_what_the_queue_manager_has_on_under_acctcono(
        queues, acctcono, options, mqi, written):
    """Given ACCTMQI(ON) and ACCTQ(ON), when an application connects with
    MQCNO_ACCOUNTING_MQI_DISABLED and/or _Q_DISABLED, then with ACCTCONO(ENABLED) its MQI
    record, and the ACCTQ(QMGR) queue's records, are not written (a queue of its own
    ACCTQ(ON) still is); with ACCTCONO(DISABLED) the options change nothing."""
    queues[3].alter_qmgr({"ACCTMQI": "ON", "ACCTQ": "ON", "ACCTCONO": acctcono})
    records = _run(queues, f"acct-cnd-{acctcono}-{options}", options)
    assert len(_mqi(records)) == mqi
    assert _queues_in(records) == written


@pytest.mark.parametrize("attrs, options, choice", [
    ({"ACCTMQI": "OFF", "ACCTQ": "NONE", "ACCTCONO": "ENABLED"}, MQI_ON | Q_ON,
     Choice(True, "NONE")),
    ({"ACCTMQI": "ON", "ACCTQ": "OFF"}, 0, Choice(True, "OFF")),
    ({"ACCTMQI": "OFF", "ACCTQ": "ON", "ACCTCONO": "ENABLED"}, MQI_ON | MQI_OFF,
     Choice(True, "ON")),
])
def test_the_choice_at_mqconn(attrs, options, choice):
    """Given the queue manager's attributes, when a connection is made with MQCNO options,
    then its records are chosen so: ACCTQ(NONE) is not overridden by
    MQCNO_ACCOUNTING_Q_ENABLED; without options the attributes decide; of both options of a
    pair (IBM does not say) ENABLED wins."""
    assert choose(attrs, options) == choice


def test_acctcono_is_altered_and_displayed_by_mqsc_and_pcf(qmgr):
    """Given a queue manager (ACCTCONO(DISABLED) at creation), when ALTER QMGR
    ACCTCONO(ENABLED) is run, then DISPLAY QMGR shows it and MQINQ answers MQMON_ENABLED;
    when a PCF Change Queue Manager sets AccountingConnOverride MQMON_DISABLED, then an
    Inquire Queue Manager answers it."""
    name, root, qm, eng = qmgr
    assert qm.inquire(CMQC.MQIA_ACCOUNTING_CONN_OVERRIDE) == CMQC.MQMON_DISABLED
    mqsc = MQSCProcessor(eng)
    assert mqsc.execute_text("ALTER QMGR ACCTCONO(ENABLED)").ok
    shown = mqsc.execute_text("DISPLAY QMGR ACCTCONO").lines
    assert any("ACCTCONO(ENABLED)" in line for line in shown), shown
    assert qm.inquire(CMQC.MQIA_ACCOUNTING_CONN_OVERRIDE) == CMQC.MQMON_ENABLED
    start_command_server(name, root)
    pcf = PCFExecute(qm)
    pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQIA_ACCOUNTING_CONN_OVERRIDE: CMQC.MQMON_DISABLED})
    [answer] = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS:
                                        [CMQC.MQIA_ACCOUNTING_CONN_OVERRIDE]})
    assert answer[CMQC.MQIA_ACCOUNTING_CONN_OVERRIDE] == CMQC.MQMON_DISABLED


def test_an_embedded_mqconnx_with_mqcno_accounting_mqi_enabled_writes_mqi_records(
        queues, monkeypatch):
    """Given ACCTMQI(OFF) and ACCTCONO(ENABLED), when an application of the process makes an
    MQCONNX with MQCNO_ACCOUNTING_MQI_ENABLED to the embedded queue manager, puts and
    disconnects, then its MQI accounting record is written."""
    name, root, qm, eng = queues
    monkeypatch.setenv(config.ENV_DATA_PATH, root)
    eng.alter_qmgr({"ACCTMQI": "OFF", "ACCTQ": "OFF", "ACCTCONO": "ENABLED"})
    app = mqpy.QueueManager(None)
    app.connect_with_options(name, opts=MQI_ON | CMQC.MQCNO_HANDLE_SHARE_BLOCK)
    mqpy.Queue(app, "ACCT.B", CMQC.MQOO_OUTPUT).put(b"x")
    connection_id = app.connection().hconn.to_bytes(8, "big").rjust(24, b"\0")
    app.disconnect()
    ids = [bytes(m.get(CMQCFC.MQBACF_CONNECTION_ID)) for _, m in drain(qm, ACCOUNTING_QUEUE)
           if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_MQI]
    assert connection_id in ids
