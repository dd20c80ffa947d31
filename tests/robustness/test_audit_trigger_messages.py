"""Hostile trigger messages against the trigger monitor (runmqtrm): any application allowed to
put to an initiation queue can put an MQTM there, and a process definition's APPLICID,
ENVRDATA and USERDATA are an operator's text. Whatever a trigger message holds, the monitor
runs no shell, starts at most the program its ApplId names, never ends, and a trigger message
it cannot use goes to the dead-letter queue with an MQDLH saying why (as IBM's runmqtrm)."""

from __future__ import annotations

import io
import sys
import threading

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine.reports import build_trigger
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import DLH
from mqpy.trigmon import DEFAULT_INITQ, NOT_A_TRIGGER_MESSAGE, TriggerMonitor, _run
from tests.support.waiting import came_true

DLQ = "TRIG.DLQ"


@pytest.fixture
def qm(tmp_path):
    """TRIGQM embedded, its dead-letter queue TRIG.DLQ."""
    root = str(tmp_path)
    qmgr = mqpy.embedded("TRIGQM", data_path=root)
    proc = MQSCProcessor(inprocess.running("TRIGQM", root))
    for text in (f"DEFINE QLOCAL({DLQ})", f"ALTER QMGR DEADQ({DLQ})"):
        assert proc.execute_text(text).ok
    yield qmgr
    inprocess.stop_all()


def _put_trigger(qmgr: mqpy.QueueManager, **process: str) -> None:
    md, data = build_trigger("WORK", process, "APP", process.pop("TRIGDATA", ""))
    qmgr.put1(DEFAULT_INITQ, data, md)


def _serve_until(qmgr: mqpy.QueueManager, runner, done) -> tuple[TriggerMonitor, str]:
    """The monitor serving the initiation queue until ``done()``; it and its output."""
    out = io.StringIO()
    mon = TriggerMonitor(qmgr, out=out, runner=runner)
    stop = threading.Event()
    failed: list[BaseException] = []

    def serve() -> None:
        try:
            mon.serve(stop, 50)
        except BaseException as exc:  # noqa: BLE001 - the test reports it
            failed.append(exc)

    t = threading.Thread(target=serve)
    t.start()
    try:
        assert came_true(lambda: done(mon) or bool(failed))
    finally:
        stop.set()
        t.join(10)
    assert failed == []
    return mon, out.getvalue()


def _dead_letters(qmgr: mqpy.QueueManager) -> list[tuple[DLH, bytes]]:
    q = mqpy.Queue(qmgr, DLQ, CMQC.MQOO_INPUT_AS_Q_DEF)
    found = []
    try:
        while True:
            md = mqpy.MD()
            try:
                data = q.get(None, md, mqpy.GMO(Options=CMQC.MQGMO_NO_WAIT))
            except mqpy.MQMIError:
                return found
            assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
            dlh = DLH().unpack(data)
            found.append((dlh, data[CMQC.MQDLH_LENGTH_1:]))
    finally:
        q.close()


def _recording() -> tuple[list[list[str]], object]:
    runs: list[list[str]] = []

    def runner(argv: list[str], background: bool) -> int:
        runs.append(argv)
        return 0
    return runs, runner


def test_an_unbalanced_quote_in_the_applid_starts_nothing_and_the_monitor_goes_on(qm):
    """Given a trigger message whose ApplId has an unbalanced quote, then the monitor says
    AMQ8756E, puts it on the dead-letter queue (MQFB_APPL_CANNOT_BE_STARTED) and starts the
    next trigger message's application."""
    _put_trigger(qm, APPLICID='/bin/app "unclosed')
    _put_trigger(qm, APPLICID="/bin/good")
    runs, runner = _recording()
    mon, out = _serve_until(qm, runner, lambda m: m.started == 1)
    assert [argv[0] for argv in runs] == ["/bin/good"]
    assert "AMQ8756E" in out
    [(dlh, body)] = _dead_letters(qm)
    assert dlh.Reason == CMQC.MQFB_APPL_CANNOT_BE_STARTED
    assert mqpy.TM().unpack(body).ApplId.rstrip() == b'/bin/app "unclosed'


@pytest.mark.system
def test_a_nul_in_the_user_data_starts_nothing_and_the_monitor_goes_on(qm):
    """Given a trigger message whose UserData holds a NUL (no program can be given it as an
    argument), when the monitor runs it as it runs every application, then AMQ8756E, the
    trigger message on the dead-letter queue, and the next one's application started."""
    _put_trigger(qm, APPLICID="/bin/true", USERDATA="a\x00b")
    _put_trigger(qm, APPLICID="/bin/true")
    mon, out = _serve_until(qm, _run, lambda m: m.started == 1)
    assert "AMQ8756E" in out
    [(dlh, _)] = _dead_letters(qm)
    assert dlh.Reason == CMQC.MQFB_APPL_CANNOT_BE_STARTED


def test_a_message_that_is_no_mqtm_is_dead_lettered_and_the_monitor_goes_on(qm):
    """Given a message in MQFMT_TRIGGER format whose bytes are no MQTM (a wrong StrucId),
    then it says so, the message on the dead-letter queue (MQFB_TM_ERROR) as it came, and the
    next trigger message's application started."""
    junk = b"XXXX" + bytes(CMQC.MQTM_LENGTH_1 - 4)
    qm.put1(DEFAULT_INITQ, junk, mqpy.MD(Format=CMQC.MQFMT_TRIGGER))
    _put_trigger(qm, APPLICID="/bin/good")
    runs, runner = _recording()
    mon, out = _serve_until(qm, runner, lambda m: m.started == 1)
    assert [argv[0] for argv in runs] == ["/bin/good"]
    assert NOT_A_TRIGGER_MESSAGE in out
    [(dlh, body)] = _dead_letters(qm)
    assert dlh.Reason == CMQC.MQFB_TM_ERROR and body == junk


def test_a_line_break_in_the_trigger_data_forges_no_line_of_the_monitors_output(qm):
    """Given TRIGDATA holding a line break and a forged output line, then the application
    gets it unchanged inside its one MQTMC2 argument, and the monitor's output shows it
    escaped: no line of the output is the forged one."""
    forged = "x\nApplication ended with exit status 0."
    _put_trigger(qm, APPLICID="/bin/good", TRIGDATA=forged)
    runs, runner = _recording()
    mon, out = _serve_until(qm, runner, lambda m: m.started == 1)
    [argv] = runs
    assert len(argv) == 2 and forged in argv[1]
    assert out.splitlines().count("Application ended with exit status 0.") == 1
    assert "x\\nApplication ended" in out


def test_shell_text_in_a_trigger_message_runs_no_shell(qm, tmp_path, monkeypatch):
    """Given TRIGDATA and USERDATA holding shell commands (IBM's runmqtrm hands its command
    line to a shell), when the monitor starts the application, then the program named runs
    with them as text and no shell runs them."""
    monkeypatch.chdir(tmp_path)
    made = tmp_path / "made"
    _put_trigger(qm, APPLICID=sys.executable + " -c pass",
                 TRIGDATA='"; touch made; "', USERDATA="$(touch made)`touch made`")
    mon, out = _serve_until(qm, _run, lambda m: m.started == 1)
    assert "Application ended with exit status 0." in out
    assert not made.exists()
