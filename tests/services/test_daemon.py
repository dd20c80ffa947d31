"""Services of a queue manager run by strmqm's daemon: CONTROL(QMGR) started with the queue
manager and stopped at endmqm, CONTROL(STARTONLY) started and left running, CONTROL(MANUAL)
neither; the daemon logs AMQ5028I / AMQ5029I (IBM: DEFINE SERVICE's CONTROL, "Managing
services")."""

from __future__ import annotations

import os
import re

import pytest

from mqpy import inprocess
from mqpy.mqsc.processor import MQSCProcessor
from tests.support.installation import QM, cli
from tests.support.waiting import wait_for

from .conftest import alive, read_pid

pytestmark = pytest.mark.timeout(120)


def test_control_qmgr_startonly_and_manual(install, programs):
    """Given three SERVER services, CONTROL(QMGR) with a STOPCMD, CONTROL(STARTONLY) and
    CONTROL(MANUAL), and a CONTROL(QMGR) COMMAND service, when strmqm starts the queue
    manager, then the QMGR and STARTONLY servers run, children of the daemon, and the
    command ran, the MANUAL one does not until runmqsc starts it (through the daemon), and
    DISPLAY SVSTATUS shows all three with their pids;
    when endmqm ends it, the QMGR server is stopped by its STOPCMD (given its pid) and
    AMQ5029I is logged, the STARTONLY and MANUAL ones still run, and the command's
    STOPCMD ran."""
    proc = install.run("crtmqm", QM)
    assert proc.returncode == 0, proc.stderr
    py, server = programs.python, programs.path("server.py")
    record = programs.path("commands.txt")
    script = "\n".join(
        f"DEFINE SERVICE({name}) SERVTYPE(SERVER) CONTROL({control}) STARTCMD('{py}') "
        f"STARTARG('{server} {programs.path(name + '.pid')} +QMNAME+') {extra}"
        for name, control, extra in (
            ("AUTO", "QMGR", f"STOPCMD('{py}') STOPARG('{programs.path('stopper.py')} "
                             f"{programs.path('stopped')} +MQ_SERVER_PID+')"),
            ("ONCE", "STARTONLY", ""),
            ("HAND", "MANUAL", ""))) + (
        f"\nDEFINE SERVICE(LOGGER) SERVTYPE(COMMAND) CONTROL(QMGR) STARTCMD('{py}') "
        f"STARTARG('{programs.path('command.py')} {record} starting +QMNAME+') "
        f"STOPCMD('{py}') STOPARG('{programs.path('command.py')} {record} stopping')")
    eng = inprocess.start(QM, install.root)
    try:
        lines, code = MQSCProcessor(eng).run_script(script, echo=False)
        assert code == 0, lines
    finally:
        inprocess.stop(QM, install.root)

    daemon = install.start()
    auto = wait_for(lambda: read_pid(programs.path("AUTO.pid")))
    once = wait_for(lambda: read_pid(programs.path("ONCE.pid")))
    wait_for(lambda: os.path.exists(record) and "starting QM1" in open(record).read())
    assert not os.path.exists(programs.path("HAND.pid"))
    with open(f"/proc/{auto}/stat") as f:  # state, ppid, ...: the daemon's child
        assert int(f.read().rsplit(")", 1)[1].split()[1]) == daemon

    # runmqsc goes through the daemon's command server: the daemon runs a MANUAL service
    out = cli(install, "runmqsc", "runmqsc", QM,
               stdin="START SERVICE(HAND)\nDISPLAY SVSTATUS(*)\n").stdout
    assert "AMQ8733I: Request to start Service accepted." in out
    hand = wait_for(lambda: read_pid(programs.path("HAND.pid")))
    for name, pid in (("AUTO", auto), ("ONCE", once), ("HAND", hand)):
        assert re.search(rf"SERVICE\({name}\) +STATUS\(RUNNING\)\s+PID\({pid}\)", out), out

    assert install.run("endmqm", "-i", QM).returncode == 0
    install.wait_ended()
    assert wait_for(lambda: os.path.exists(programs.path("stopped")) and
                    open(programs.path("stopped")).read()) == str(auto)
    wait_for(lambda: not alive(auto))
    assert alive(once) and alive(hand)
    assert open(record).read() == "starting QM1\nstopping\n"
    log = open(os.path.join(install.qmdir(), "errors", "AMQERR01.LOG")).read()
    assert f"AMQ5028I: The Server 'AUTO' has started. ProcessId({auto})." in log
    assert f"AMQ5028I: The Server 'ONCE' has started. ProcessId({once})." in log
    assert f"AMQ5029I: The Server 'AUTO' has ended. ProcessId({auto})." in log
    assert "The Server 'ONCE' has ended" not in log
    assert "AMQ5030I: The Command 'LOGGER' has started." in log


def test_a_controlled_end_stops_a_connected_control_qmgr_server(install, programs):
    """Given a CONTROL(QMGR) server that is connected to its queue manager (as a trigger
    monitor is) and has no STOPCMD, when endmqm -c asks for a controlled end, then the
    server is stopped as the end begins (SIGTERM), so its connection goes and the queue
    manager, which waits for its applications, ends."""
    assert install.run("crtmqm", QM).returncode == 0
    pidfile = programs.path("TRM.pid")
    eng = inprocess.start(QM, install.root)
    try:
        lines, code = MQSCProcessor(eng).run_script(
            f"DEFINE SERVICE(TRM) SERVTYPE(SERVER) CONTROL(QMGR) STARTCMD('/usr/bin/env') "
            f"STARTARG('SVC_CONNECT=+QMNAME+ {programs.python} {programs.path('server.py')} "
            f"{pidfile}')", echo=False)
        assert code == 0, lines
    finally:
        inprocess.stop(QM, install.root)
    install.start()
    pid = wait_for(lambda: read_pid(pidfile))
    assert install.run("endmqm", "-c", QM).returncode == 0
    install.wait_ended(timeout=60)
    wait_for(lambda: not alive(pid))
    log = open(os.path.join(install.qmdir(), "errors", "AMQERR01.LOG")).read()
    assert f"AMQ5029I: The Server 'TRM' has ended. ProcessId({pid})." in log
