"""Accounting messages as connections end, through a queue manager started by strmqm: an
application in another process over bindings, and a client through the SVRCONN (the channel
initiator relaying its calls, and the daemon serving them: MQIBindType STANDARD and
FASTPATH), ended by MQDISC or by its process's end; an application still connected when
endmqm ends the queue manager."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

import mqpy
from mqpy import CMQC, CMQCFC, pcf
from tests.support.site import QM, Site
from tests.support.site_here import here_site_per_bind_type, started_site

pytestmark = pytest.mark.timeout(180)

ACCOUNTING_QUEUE = "SYSTEM.ADMIN.ACCOUNTING.QUEUE"

site = here_site_per_bind_type("acctdisc")

#: an application: connects (bindings, or as a client of APP.SVRCONN), puts N messages to
#: APP.Q, then disconnects, ends without MQDISC, or waits to be ended
_APP = """
import os, sys, time
import mqpy
from mqpy import CMQC
how, root, n, ending = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
options = int(sys.argv[5]) if len(sys.argv) > 5 else 0  # an MQCONNX's MQCNO Options
if how == "bindings" and options:
    os.environ["MQPY_DATA_PATH"] = root
    qm = mqpy.QueueManager(None)
    qm.connect_with_options("QMS", cno=mqpy.CNO(Options=options))
elif how == "bindings":
    qm = mqpy.QueueManager(None)
    qm.connect("QMS", data_path=root)
else:
    qm = mqpy.connect("QMS", "APP.SVRCONN", how, cno=mqpy.CNO(Options=options))
q = mqpy.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT)
for _ in range(n):
    q.put(b"x", mqpy.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
if ending == "mqdisc":
    qm.disconnect()
    print("done", flush=True)
elif ending == "exit":
    print("done", flush=True)
    os._exit(0)
else:
    print("done", flush=True)
    time.sleep(60)
"""


def _drain(s: Site) -> list[pcf.PCFMessage]:
    qm = s.bindings()
    try:
        q = mqpy.Queue(qm, ACCOUNTING_QUEUE, CMQC.MQOO_INPUT_SHARED)
        out = []
        while True:
            try:
                out.append(pcf.parse(q.get(None, mqpy.MD(),
                                           mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))))
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
    finally:
        qm.disconnect()


def _mqi_records_putting(s: Site, puts: int, timeout: float = 15) -> list[pcf.PCFMessage]:
    """The MQI accounting records, on the queue within ``timeout``, of the connection that
    put ``puts`` messages (each test's application puts its own number)."""
    deadline = time.monotonic() + timeout
    found: list[pcf.PCFMessage] = []
    while time.monotonic() < deadline:
        found += [m for m in _drain(s) if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_MQI
                  and sum(m.get(CMQCFC.MQIAMO_PUTS) or [0]) == puts]
        if found:
            time.sleep(0.3)  # (a second record would be a count written twice)
            found += [m for m in _drain(s) if m.header.Command == CMQCFC.MQCMD_ACCOUNTING_MQI
                      and sum(m.get(CMQCFC.MQIAMO_PUTS) or [0]) == puts]
            return found
        time.sleep(0.1)
    return found


@pytest.fixture(scope="module")
def accounting_on(site):
    site.mqsc_here("ALTER QMGR ACCTMQI(ON) ACCTQ(ON)\n")
    return site


def _text(value) -> str:
    return value.decode("latin-1").rstrip(" \0") if isinstance(value, bytes) else str(value)


@pytest.mark.parametrize("how, ending, puts, disc_type", [
    ("bindings", "mqdisc", 3, CMQCFC.MQDISCONNECT_NORMAL),
    ("bindings", "exit", 4, CMQCFC.MQDISCONNECT_IMPLICIT),
    ("client", "mqdisc", 5, CMQCFC.MQDISCONNECT_NORMAL),
    ("client", "exit", 6, CMQCFC.MQDISCONNECT_IMPLICIT),
])
def test_an_application_in_another_process_ends_and_its_record_is_written_once(
        accounting_on, how, ending, puts, disc_type):
    """Given ACCTMQI(ON) on a strmqm'd queue manager, when an application in another process
    (bindings; client) puts N messages and ends (MQDISC; its process ends without MQDISC),
    then exactly one MQI accounting record counting those N puts arrives, with DiscType
    MQDISCONNECT_NORMAL or MQDISCONNECT_IMPLICIT; a client's names its channel."""
    s = accounting_on
    _run(s, how, puts, ending)
    records = _mqi_records_putting(s, puts)
    assert len(records) == 1, [m.get(CMQCFC.MQIAMO_DISC_TYPE) for m in records]
    assert records[0].get(CMQCFC.MQIAMO_DISC_TYPE) == disc_type
    if how == "client":
        assert _text(records[0].get(CMQCFC.MQCACH_CHANNEL_NAME)) == "APP.SVRCONN"


def _run(s: Site, how: str, puts: int, ending: str, options: int = 0) -> None:
    where = "bindings" if how == "bindings" else s.conn_info
    proc = subprocess.run([sys.executable, "-c", _APP, where, s.inst.root, str(puts), ending,
                           str(options)],
                          env=s.inst.env, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "done", proc.stdout + proc.stderr


@pytest.mark.parametrize("how, puts", [("bindings", 8), ("client", 9)])
def test_an_mqconnx_with_mqcno_accounting_mqi_enabled_writes_its_record(accounting_on, how,
                                                                        puts, request):
    """Given ACCTMQI(OFF) and ACCTCONO(ENABLED) on a strmqm'd queue manager, when an
    application in another process makes an MQCONNX with MQCNO_ACCOUNTING_MQI_ENABLED
    (bindings; client), puts N messages and disconnects, then its MQI accounting record
    counting those N puts arrives."""
    if how == "bindings" and request.node.callspec.params["site"] == "FASTPATH":
        pytest.skip("a bindings MQCONN is the same whatever the MQIBindType")
    s = accounting_on
    s.mqsc_here("ALTER QMGR ACCTMQI(OFF) ACCTQ(OFF) ACCTCONO(ENABLED)\n")
    try:
        _run(s, how, puts, "mqdisc", CMQC.MQCNO_ACCOUNTING_MQI_ENABLED)
        records = _mqi_records_putting(s, puts, timeout=0.5)  # (written before MQDISC returns)
    finally:
        s.mqsc_here("ALTER QMGR ACCTMQI(ON) ACCTQ(ON) ACCTCONO(DISABLED)\n")
    assert len(records) == 1


def test_endmqm_writes_q_mgr_records_for_a_connected_application(tmp_path):
    """Given ACCTMQI(ON), a persistent accounting queue and an application in another
    process connected over bindings after putting 7 messages, when endmqm -i ends the queue
    manager, then after strmqm its MQI accounting record is there, once, DiscType
    MQDISCONNECT_Q_MGR."""
    body = started_site(str(tmp_path / "data"))
    s = next(body)
    try:
        s.mqsc_here("ALTER QMGR ACCTMQI(ON)\n"
                    f"ALTER QLOCAL({ACCOUNTING_QUEUE}) DEFPSIST(YES)\n")
        proc = subprocess.Popen([sys.executable, "-c", _APP, "bindings", s.inst.root, "7",
                                 "wait"], env=s.inst.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout.readline().strip() == "done"
            ended = s.inst.run("endmqm", "-i", QM)
            assert ended.returncode == 0, ended.stdout + ended.stderr
            s.inst.wait_ended(QM)
        finally:
            proc.kill()
            proc.wait()
        started = s.inst.run("strmqm", QM)
        assert started.returncode == 0, started.stdout + started.stderr
        records = _mqi_records_putting(s, 7, timeout=5)
    finally:
        body.close()
    assert [m.get(CMQCFC.MQIAMO_DISC_TYPE) for m in records] == [CMQCFC.MQDISCONNECT_Q_MGR]


@pytest.mark.parametrize("how, puts", [("bindings", 10), ("client", 11)])
def test_an_mqconnx_with_mqcno_accounting_mqi_disabled_writes_no_record(accounting_on, how,
                                                                       puts, request):
    """Given ACCTMQI(ON) and ACCTCONO(ENABLED) on a strmqm'd queue manager, when an
    application in another process makes an MQCONNX with MQCNO_ACCOUNTING_MQI_DISABLED and
    options that are its own (MQCNO_HANDLE_SHARE_BLOCK: the queue manager acts on none of
    them), puts N messages and disconnects, then no MQI accounting record counts them."""
    if how == "bindings" and request.node.callspec.params["site"] == "FASTPATH":
        pytest.skip("a bindings MQCONN is the same whatever the MQIBindType")
    s = accounting_on
    s.mqsc_here("ALTER QMGR ACCTCONO(ENABLED)\n")
    try:
        _run(s, how, puts, "mqdisc",
             CMQC.MQCNO_ACCOUNTING_MQI_DISABLED | CMQC.MQCNO_HANDLE_SHARE_BLOCK)
        records = _mqi_records_putting(s, puts, timeout=0.5)  # (written before MQDISC returns)
    finally:
        s.mqsc_here("ALTER QMGR ACCTCONO(DISABLED)\n")
    assert records == []
