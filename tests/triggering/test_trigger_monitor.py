"""Triggering end to end: a put makes a trigger message; the trigger monitor starts the process."""

from __future__ import annotations

import sys
import threading
import time

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.trigmon import TriggerMonitor, command_for
from tests.support.waiting import came_true


@pytest.fixture
def qm(tmp_path):
    root = str(tmp_path)
    qm = mqpy.embedded("TRIGQM", data_path=root)
    yield qm, inprocess.running("TRIGQM", root), tmp_path
    inprocess.stop_all()



def test_first_message_starts_the_process_with_the_mqtmc2(qm):
    """Given a queue with TRIGGER TRIGTYPE(FIRST) PROCESS(APP) INITQ(the default initiation
    queue) and runmqtrm serving it, when the first message is put, then the process's APPLICID
    runs once with the MQTMC2 as its argument (queue name, TRIGDATA, USERDATA, QMgrName) and
    ENVRDATA after it.  spec: aliases-channels-storage 4.47"""
    qmgr, eng, tmp = qm
    marker = tmp / "ran.txt"
    script = (f"import sys; open({str(marker)!r}, 'a').write(repr(sys.argv[1:]) + chr(10))")
    eng.define("PROCESS", "APP", {"APPLICID": f"{sys.executable} -c \"{script}\"",
                                  "USERDATA": "user-data", "ENVRDATA": "--env"})
    eng.define("QLOCAL", "WORK", {"TRIGGER": "YES", "TRIGTYPE": "FIRST", "PROCESS": "APP",
                                  "INITQ": "SYSTEM.DEFAULT.INITIATION.QUEUE",
                                  "TRIGDATA": "tdata"})
    monitor_qm = mqpy.embedded("TRIGQM", data_path=str(tmp))
    stop = threading.Event()
    mon = TriggerMonitor(monitor_qm)
    t = threading.Thread(target=mon.serve, args=(stop, 100))
    t.start()
    try:
        assert came_true(lambda: eng.queue_status("SYSTEM.DEFAULT.INITIATION.QUEUE")
                         ["IPPROCS"] == 1)
        out = mqpy.Queue(qmgr, "WORK", CMQC.MQOO_OUTPUT)
        out.put(b"one")
        out.put(b"two")  # not the first: no second trigger
        assert came_true(lambda: marker.exists())
        time.sleep(0.3)
    finally:
        stop.set()
        t.join(5)
    lines = marker.read_text().splitlines()
    assert len(lines) == 1
    args = eval(lines[0])  # noqa: S307 - our own repr
    tmc2, env = args[0], args[1:]
    assert tmc2.startswith("TMC    2WORK")
    assert "tdata" in tmc2 and "user-data" in tmc2 and "TRIGQM" in tmc2
    assert env == ["--env"]
    assert mon.started == 1


def test_a_trigger_message_is_only_made_while_a_monitor_listens(qm):
    """Given a FIRST-triggered queue whose initiation queue nobody has open, when a message is
    put, then no trigger message is made; when a monitor then opens the initiation queue, the
    waiting queue is triggered at once ("trigger on open")."""
    qmgr, eng, tmp = qm
    eng.define("PROCESS", "APP", {"APPLICID": "true"})
    eng.define("QLOCAL", "WORK", {"TRIGGER": "YES", "PROCESS": "APP",
                                  "INITQ": "SYSTEM.DEFAULT.INITIATION.QUEUE"})
    mqpy.Queue(qmgr, "WORK", CMQC.MQOO_OUTPUT).put(b"x")
    assert eng.queue_status("SYSTEM.DEFAULT.INITIATION.QUEUE")["CURDEPTH"] == 0
    mon = mqpy.Queue(qmgr, "SYSTEM.DEFAULT.INITIATION.QUEUE", CMQC.MQOO_INPUT_AS_Q_DEF)
    md = mqpy.MD()
    data = mon.get(None, md)
    assert md.Format == CMQC.MQFMT_TRIGGER
    tm = mqpy.TM().unpack(data)
    assert tm.QName.rstrip() == b"WORK" and tm.ApplId.rstrip() == b"true"


def test_command_line_of_a_background_application():
    """Given EnvData ending in '&', then the application runs in the background, EnvData
    without the '&' after the MQTMC2."""
    tm = mqpy.TM(QName=b"Q", ApplId=b"/bin/app --flag", EnvData=b"extra &")
    argv, background = command_for(tm, "QM1")
    assert background and argv[0] == "/bin/app" and argv[1] == "--flag"
    assert argv[2].startswith("TMC    2Q") and argv[3:] == ["extra"]
