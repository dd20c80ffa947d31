"""FFST records: AMQ<pid>.<n>.FDC with IBM's header box, the stacks and the caller's state."""

from __future__ import annotations

import os
import re
import threading

import pytest

from mqpy import errorlog
from mqpy.errorlog import FFST_TITLE, PAGE_WIDTH, read_entries, syslog_alert, write_fdc

HEADER_ORDER = ["Date/Time", "UTC Time", "UTC Time Offset", "Host Name", "Operating System",
                "PIDS", "LVLS", "Product Long Name", "Vendor", "Probe Id", "Application Name",
                "Component", "SCCS Info", "Line Number", "Build Level", "UserID",
                "Program Name", "Addressing mode", "Process", "Thread", "QueueManager",
                "Major Errorcode", "Minor Errorcode", "Probe Type", "Probe Severity",
                "Probe Description", "FDCSequenceNumber", "Comment1"]


def _header(text: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for m in re.finditer(r"^\| (\S[^:|]*?)\s*:- (.*?)\s*\|$", text, re.M):
        fields.setdefault(m.group(1), m.group(2))
    return fields


def replay_log_records(records):
    """Stands in for a queue-manager function that fails."""
    return records["missing"]


def _fail() -> KeyError:
    try:
        replay_log_records({})
    except KeyError as exc:
        return exc
    raise AssertionError("did not fail")


def test_fdc_file_is_named_for_the_process_and_starts_at_zero(tmp_path, utc):
    """Given a fatal error in this process, when it is recorded, then errors/AMQ<pid>.0.FDC
    holds it. spec: operations-dlq-clusters 7.5"""
    path = write_fdc(str(tmp_path), "ZX000001", "zxReplayLog", _fail(), qmgr="QM1")
    assert os.path.basename(path) == f"AMQ{os.getpid()}.0.FDC"
    assert os.path.dirname(path) == str(tmp_path)


def test_header_box_has_ibms_fields_in_ibms_order(tmp_path, utc):
    """Given an FDC, then its header is IBM's 79-column box titled 'First Failure Symptom
    Report' with Probe Id, Component, Process, Thread, QueueManager, Major/Minor Errorcode,
    Probe Type/Severity/Description in IBM's order."""
    path = write_fdc(str(tmp_path), "ZX000001", "zxReplayLog", _fail(), qmgr="QM1",
                     major_errorcode="MQRC_UNEXPECTED_ERROR", minor_errorcode="KeyError",
                     probe_description="AMQ7017S: Log not available.")
    text = open(path).read()
    lines = text.split("\n")
    assert lines[0] == "+" + "-" * 77 + "+"
    assert lines[1] == f"| {FFST_TITLE:<75} |"
    assert lines[2] == f"| {'=' * len(FFST_TITLE):<75} |"
    box = lines[: lines.index("+" + "-" * 77 + "+", 1) + 1]
    assert all(len(ln) == PAGE_WIDTH for ln in box)
    labels = [m.group(1) for ln in box if (m := re.match(r"^\| (\S[^:|]*?)\s*:- ", ln))]
    assert labels == HEADER_ORDER
    h = _header(text)
    assert h["Probe Id"] == "ZX000001" and h["Component"] == "zxReplayLog"
    assert h["Process"] == str(os.getpid()) and h["QueueManager"] == "QM1"
    assert h["Thread"].startswith(str(threading.get_native_id()))
    assert (h["Major Errorcode"], h["Minor Errorcode"]) == ("MQRC_UNEXPECTED_ERROR", "KeyError")
    assert h["Probe Description"] == "AMQ7017S: Log not available."
    assert h["SCCS Info"] == "test_fdc.py" and h["FDCSequenceNumber"] == "0"
    assert h["Comment1"] == "KeyError: 'missing'"


def test_stack_sections_name_the_failing_function_and_every_thread(tmp_path, utc):
    """Given a failure while another thread waits, then the FDC's function stack ends in the
    failing function, the Python traceback is there, and the other thread's stack too."""
    release = threading.Event()

    def parked_channel_thread():
        release.wait(10)

    t = threading.Thread(target=parked_channel_thread, name="MCA-TO.QM2")
    t.start()
    try:
        path = write_fdc(str(tmp_path), "ZX000002", "zxReplayLog", _fail(), qmgr="QM1")
    finally:
        release.set()
        t.join()
    text = open(path).read()
    stack = text.split("MQM Function Stack\n", 1)[1].split("\n\n", 1)[0].split("\n")
    assert stack[-2:] == ["_fail", "replay_log_records"]
    assert "Python Traceback\nTraceback (most recent call last):" in text
    assert "KeyError: 'missing'" in text
    threads = text.split("Thread Stacks\n", 1)[1]
    assert "(MCA-TO.QM2):" in threads and "in parked_channel_thread" in threads
    assert "errorlog.py" not in threads  # the recorder is not part of the failure


def test_component_data_holds_the_callers_state(tmp_path, utc):
    """Given extra state, then it is written under Component Data, one key a line."""
    path = write_fdc(str(tmp_path), "ZX000003", "zxReplayLog", _fail(), qmgr="QM1",
                     extra={"lsn": 4096, "segment": "S0000003.LOG"})
    data = open(path).read().split("Component Data\n", 1)[1]
    assert "lsn               :- 4096\n" in data
    assert "segment           :- 'S0000003.LOG'\n" in data


def test_second_failure_in_the_process_appends_to_the_same_file(tmp_path, utc):
    """Given two failures in one process, then both records are in the one FDC file with
    FDCSequenceNumber 0 and 1 (IBM: one file per process instance)."""
    p1 = write_fdc(str(tmp_path), "ZX000004", "a", _fail(), qmgr="QM1")
    p2 = write_fdc(str(tmp_path), "ZX000005", "b", _fail(), qmgr="QM1")
    assert p1 == p2
    text = open(p1).read()
    assert text.count(FFST_TITLE) == 2
    assert re.findall(r"FDCSequenceNumber :- (\d+)", text) == ["0", "1"]


def test_reused_process_id_takes_the_next_sequence_number(tmp_path, utc):
    """Given an AMQ<pid>.0.FDC left by an earlier process with the same id, then this
    process writes AMQ<pid>.1.FDC and leaves the old one alone."""
    old = tmp_path / f"AMQ{os.getpid()}.0.FDC"
    old.write_text("earlier process\n")
    path = write_fdc(str(tmp_path), "ZX000006", "a", _fail(), qmgr="QM1")
    assert os.path.basename(path) == f"AMQ{os.getpid()}.1.FDC"
    assert old.read_text() == "earlier process\n"


def test_fdc_is_announced_in_the_error_log(tmp_path, utc):
    """Given an FDC for QM1, then AMQ6184W naming the process, probe and file is appended to
    the error log; without a queue manager it is AMQ6183W."""
    path = write_fdc(str(tmp_path), "ZX000007", "a", _fail(), qmgr="QM1")
    (e,) = read_entries(str(tmp_path))
    assert e.msgid == "AMQ6184W" and e.qmgr == "QM1"
    assert e.text == "An internal IBM MQ error has occurred on queue manager QM1."
    assert e.arith_inserts == (os.getpid(), 0)
    assert "ZX000007" in e.explanation and path in e.explanation
    sysdir = tmp_path / "system"
    write_fdc(str(sysdir), "ZX000008", "a", None)
    (e2,) = read_entries(str(sysdir))
    assert e2.msgid == "AMQ6183W" and e2.qmgr is None


def test_fdc_without_exception_records_the_current_stack(tmp_path, utc):
    """Given a probe fired without an exception, then the function stack is the caller's."""
    path = write_fdc(str(tmp_path), "ZX000009", "a", None, qmgr="QM1",
                     probe_description="log full")
    text = open(path).read()
    stack = text.split("MQM Function Stack\n", 1)[1].split("\n\n", 1)[0].split("\n")
    assert stack[-1] == "test_fdc_without_exception_records_the_current_stack"
    assert "Python Traceback" not in text and "Comment1" not in text


def test_alert_is_called_with_the_file_and_syslog_alert_uses_user_error(tmp_path, utc,
                                                                         monkeypatch):
    """Given an alert hook, then it is told the FDC's path; syslog_alert sends it at
    user.error naming the file. spec: operations-dlq-clusters 7.5"""
    seen: list[tuple[str, str]] = []
    path = write_fdc(str(tmp_path), "ZX000010", "a", _fail(), qmgr="QM1",
                     alert=lambda p, probe: seen.append((p, probe)))
    assert seen == [(path, "ZX000010")]

    import syslog

    sent: list[tuple] = []
    monkeypatch.setattr(syslog, "openlog", lambda *a: sent.append(("open", *a)))
    monkeypatch.setattr(syslog, "syslog", lambda *a: sent.append(("log", *a)))
    syslog_alert(path, "ZX000010")
    assert sent[0] == ("open", "mqpy", syslog.LOG_PID, syslog.LOG_USER)
    assert sent[1][1] == syslog.LOG_ERR and path in sent[1][2]


@pytest.fixture(autouse=True)
def _forget_fdc_files():
    """Each test starts as a fresh process would: no FDC file opened yet."""
    errorlog._fdc_files.clear()
    yield
    errorlog._fdc_files.clear()
