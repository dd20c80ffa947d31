"""START SERVICE, STOP SERVICE and DISPLAY SVSTATUS carried out for an embedded queue
manager: the application's process runs the programs (IBM: "Working with services",
"Managing services", "START SERVICE", "STOP SERVICE", "DISPLAY SVSTATUS")."""

from __future__ import annotations

import os
import re
import signal
import threading

import pytest

from mqpy import CMQC, CMQCFC, services
from tests.support.waiting import wait_for

from .conftest import alive, attrs_of, errlog, read_pid, run

pytestmark = [pytest.mark.system, pytest.mark.timeout(60)]


def _define_server(proc, programs, name="S1", extra=""):
    pidfile = programs.path(f"{name}.pid")
    assert run(proc, f"DEFINE SERVICE({name}) SERVTYPE(SERVER) CONTROL(MANUAL) "
                     f"STARTCMD('{programs.python}') "
                     f"STARTARG('{programs.path('server.py')} {pidfile}') {extra}") == [
        "AMQ8625I: IBM MQ service created."]
    return pidfile


def test_a_server_runs_shows_its_real_pid_and_has_no_status_once_stopped(qmgr, proc, programs):
    """Given a SERVER service running a Python program, when START SERVICE is issued, then
    AMQ8733I answers, the program runs, DISPLAY SVSTATUS shows STATUS(RUNNING) and the pid
    the program itself recorded, with STARTDA/STARTTI and the definition's attributes under
    ALL (a list and WHERE as other status displays); when STOP SERVICE runs its STOPCMD (given the server's pid), the program ends,
    SVSTATUS finds no status (CB4, MQRCCF_SERV_STATUS_NOT_FOUND), and the error log has
    AMQ5028I and AMQ5029I with that pid."""
    pidfile = _define_server(proc, programs, extra=(
        f"STOPCMD('{programs.python}') "
        f"STOPARG('{programs.path('stopper.py')} {programs.path('stopped')} "
        "+MQ_SERVER_PID+ +QMNAME+')"))
    assert run(proc, "START SERVICE(S1)") == ["AMQ8733I: Request to start Service accepted."]
    pid = wait_for(lambda: read_pid(pidfile))
    lines = run(proc, "DISPLAY SVSTATUS(S1)")
    assert lines[0] == "AMQ8632I: Display service status details."
    assert attrs_of(lines[1:]) == {"SERVICE": "S1", "STATUS": "RUNNING", "PID": str(pid)}
    assert attrs_of(run(proc, "DISPLAY SVSTATUS(S*) STARTCMD")[1:]) == {
        "SERVICE": "S1", "STATUS": "RUNNING", "PID": str(pid), "STARTCMD": programs.python}
    assert attrs_of(run(proc, "DISPLAY SVSTATUS(*) WHERE(CONTROL EQ MANUAL)")[1:]) == {
        "SERVICE": "S1", "STATUS": "RUNNING", "PID": str(pid), "CONTROL": "MANUAL"}
    assert run(proc, "DISPLAY SVSTATUS(*) WHERE(CONTROL EQ QMGR)") == []
    shown = attrs_of(run(proc, "DISPLAY SVSTATUS(*) ALL")[1:])
    assert shown["SERVTYPE"] == "SERVER" and shown["CONTROL"] == "MANUAL"
    assert shown["STARTDA"].count("-") == 2 and shown["STARTTI"].count(".") == 2
    assert shown["STARTCMD"] == programs.python

    assert run(proc, "STOP SERVICE(S1)") == ["AMQ8732I: Request to stop Service accepted."]
    # the stop program got the server's pid and the queue manager's name
    assert wait_for(lambda: os.path.exists(programs.path("stopped")) and
                    open(programs.path("stopped")).read()) == f"{pid} QM1"
    wait_for(lambda: not alive(pid))
    wait_for(lambda: run(proc, "DISPLAY SVSTATUS(S1)") == [
        "AMQ8101S: IBM MQ error (CB4) has occurred."])
    root = qmgr[2]
    log = wait_for(lambda: "AMQ5029I" in errlog(root) and errlog(root))
    assert f"AMQ5028I: The Server 'S1' has started. ProcessId({pid})." in log
    assert f"AMQ5029I: The Server 'S1' has ended. ProcessId({pid})." in log
    assert "Program(amqzmgr0)" in log


def test_only_one_instance_of_a_server_and_stop_without_stopcmd_is_refused(proc, programs):
    """Given a running server with no STOPCMD, when START SERVICE is issued again, then it is
    refused with MQRCCF_SERVICE_RUNNING (CB3), or accepted with IGNSTATE(YES), and no second
    program starts; STOP SERVICE is
    refused with MQRCCF_NO_STOP_CMD (CBF) as IBM documents, and DELETE SERVICE with
    AMQ8148E while it runs; once it has ended by itself, STOP is MQRCCF_SERVICE_STOPPED
    (CB5), accepted with IGNSTATE(YES), and DELETE works."""
    pidfile = _define_server(proc, programs)
    run(proc, "START SERVICE(S1)")
    pid = wait_for(lambda: read_pid(pidfile))
    result = proc.execute_text("START SERVICE(S1)")
    assert (result.ok, result.reason) == (False, CMQCFC.MQRCCF_SERVICE_RUNNING)
    assert result.lines == ["AMQ8101S: IBM MQ error (CB3) has occurred."]
    assert run(proc, "START SERVICE(S1) IGNSTATE(YES)") == [
        "AMQ8733I: Request to start Service accepted."]
    result = proc.execute_text("STOP SERVICE(S1)")
    assert result.reason == CMQCFC.MQRCCF_NO_STOP_CMD
    assert result.lines == ["AMQ8101S: IBM MQ error (CBF) has occurred."]
    assert run(proc, "DELETE SERVICE(S1)") == ["AMQ8148E: IBM MQ object in use."]
    assert read_pid(pidfile) == pid  # still the one instance

    os.kill(pid, 9)  # the server ends by itself
    wait_for(lambda: proc.execute_text("DISPLAY SVSTATUS(*)").reason
             == CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND)
    result = proc.execute_text("STOP SERVICE(S1)")
    assert (result.reason, result.lines) == (CMQCFC.MQRCCF_SERVICE_STOPPED,
                                             ["AMQ8101S: IBM MQ error (CB5) has occurred."])
    assert run(proc, "STOP SERVICE(S1) IGNSTATE(YES)") == [
        "AMQ8732I: Request to stop Service accepted."]
    assert run(proc, "DELETE SERVICE(S1)") == ["AMQ8624I: IBM MQ service deleted."]


def test_a_server_is_stopping_while_its_stop_program_runs(proc, programs):
    """Given a running server whose STOPCMD does not end it, when STOP SERVICE is issued,
    then SVSTATUS shows STATUS(STOPPING) while the stop program runs, and RUNNING again
    once the stop program has ended with the server still running."""
    release = programs.path("release")
    pidfile = _define_server(proc, programs, extra=(
        f"STOPCMD('{programs.python}') STOPARG('{programs.path('hold.py')} {release}')"))
    run(proc, "START SERVICE(S1)")
    pid = wait_for(lambda: read_pid(pidfile))
    assert run(proc, "STOP SERVICE(S1)") == ["AMQ8732I: Request to stop Service accepted."]
    assert attrs_of(run(proc, "DISPLAY SVSTATUS(S1)")[1:]) == {
        "SERVICE": "S1", "STATUS": "STOPPING", "PID": str(pid)}
    # a second STOP while it is stopping is accepted and starts no second stop program
    children = set(services.runner_for(proc.engine).children)
    assert run(proc, "STOP SERVICE(S1)") == ["AMQ8732I: Request to stop Service accepted."]
    assert services.runner_for(proc.engine).children == children
    open(release, "w").close()
    wait_for(lambda: attrs_of(run(proc, "DISPLAY SVSTATUS(S1)")[1:]).get("STATUS")
             == "RUNNING")
    assert alive(pid)


def test_a_server_altered_to_a_command_while_it_runs_can_still_be_stopped(proc, programs):
    """Given a running server whose STOPCMD kills +MQ_SERVER_PID+, when it is altered to
    SERVTYPE(COMMAND) and STOP SERVICE is issued, then the stop program gets the running
    server's pid (not 0) and the server ends."""
    pidfile = _define_server(proc, programs, extra="STOPCMD('/bin/kill') "
                                                   "STOPARG('+MQ_SERVER_PID+')")
    run(proc, "START SERVICE(S1)")
    pid = wait_for(lambda: read_pid(pidfile))
    run(proc, "ALTER SERVICE(S1) SERVTYPE(COMMAND)")
    assert run(proc, "STOP SERVICE(S1)") == ["AMQ8732I: Request to stop Service accepted."]
    wait_for(lambda: not alive(pid))


def test_an_output_file_name_with_a_nul_is_file_not_available(proc, programs):
    """Given a service whose STDOUT holds a NUL byte, when it is started, then the answer is
    MQRCCF_FILE_NOT_AVAILABLE naming the file, not a traceback."""
    runner = services.runner_for(proc.engine)
    with pytest.raises(services.ServiceError) as err:
        runner.start("NUL", {"SERVTYPE": "COMMAND", "STARTCMD": programs.python,
                             "STDOUT": programs.path("out\x00put")})
    assert err.value.reason == CMQCFC.MQRCCF_FILE_NOT_AVAILABLE


def test_inserts_environment_and_output_files(qmgr, proc, programs):
    """Given service.env in the queue manager's directory and a server whose STARTARG,
    STDOUT and STDERR use inserts, when it is started twice (stopped in between), then the
    program got the substituted arguments and the service.env variable, its stdout went to
    the substituted file and was appended to, not replaced, and stderr to its own file."""
    _, _, root = qmgr
    qmdir = os.path.join(root, "qmgrs", "QM1")
    with open(os.path.join(qmdir, "service.env"), "w") as f:
        f.write("SVC_COLOUR=green\n")
    pidfile = programs.path("S1.pid")
    run(proc, f"DEFINE SERVICE(S1) SERVTYPE(SERVER) STARTCMD('{programs.python}') "
              f"STARTARG('{programs.path('server.py')} {pidfile} +QMNAME+ +MQ_SERVICE_NAME+ "
              "+SVC_COLOUR+ +MQ_Q_MGR_DATA_NAME+ ''two words''') "
              "STDOUT('+MQ_Q_MGR_DATA_PATH+/+MQ_SERVICE_NAME+.out') "
              f"STDERR('{programs.path('S1.err')}')")
    out = os.path.join(qmdir, "S1.out")
    for _ in range(2):
        if os.path.exists(pidfile):
            os.unlink(pidfile)
        run(proc, "START SERVICE(S1)")
        pid = wait_for(lambda: read_pid(pidfile))
        wait_for(lambda: os.path.exists(out) and open(out).read().count("\n") >= 1)
        os.kill(pid, 9)
        wait_for(lambda: proc.execute_text("DISPLAY SVSTATUS(S1)").reason
                 == CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND)
    assert open(out).read() == "out QM1 S1 green QM1 two words\n" * 2
    assert open(programs.path("S1.err")).read() == "err green\n" * 2


def test_a_command_service_runs_each_time_and_has_no_status(qmgr, proc, programs):
    """Given a COMMAND service, when START SERVICE is issued twice, then the program runs
    twice (AMQ5030I logged each time) and DISPLAY SVSTATUS shows no status for it;
    STOP SERVICE runs its STOPCMD without checking anything runs."""
    record = programs.path("commands.txt")
    run(proc, f"DEFINE SERVICE(C1) SERVTYPE(COMMAND) STARTCMD('{programs.python}') "
              f"STARTARG('{programs.path('command.py')} {record} start +MQ_SERVICE_NAME+') "
              f"STOPCMD('{programs.python}') "
              f"STOPARG('{programs.path('command.py')} {record} stop +MQ_SERVER_PID+')")
    assert run(proc, "START SERVICE(C1)\nSTART SERVICE(C1)") == [
        "AMQ8733I: Request to start Service accepted."] * 2
    wait_for(lambda: os.path.exists(record) and open(record).read().count("\n") == 2)
    assert run(proc, "DISPLAY SVSTATUS(C1)") == ["AMQ8101S: IBM MQ error (CB4) has occurred."]
    assert run(proc, "STOP SERVICE(C1)") == ["AMQ8732I: Request to stop Service accepted."]
    wait_for(lambda: open(record).read().count("\n") == 3)
    assert open(record).read() == "start C1\nstart C1\nstop 0\n"
    log = errlog(qmgr[2])
    assert len(re.findall(r"AMQ5030I: The Command 'C1' has started\. ProcessId\(\d+\)\.", log)) == 2


def test_bad_input_gets_mq_answers(qmgr, proc, programs):
    """Given services with a blank STARTCMD and with a STARTCMD that does not exist, when
    started, then the first is MQRCCF_NO_START_CMD (CBE), the second MQRCCF_PROGRAM_NOT_
    AVAILABLE with a message naming the program (also in the error log), no traceback; a
    program that is not executable is MQRCCF_PROGRAM_AUTH_FAILED, an STDOUT that cannot be
    opened MQRCCF_FILE_NOT_AVAILABLE;
    START, STOP and DISPLAY SVSTATUS of an unknown service are AMQ8147E / 2085."""
    run(proc, "DEFINE SERVICE(BLANK) SERVTYPE(SERVER)\n"
              "DEFINE SERVICE(GONE) SERVTYPE(SERVER) STARTCMD('/no/such/program')")
    result = proc.execute_text("START SERVICE(BLANK)")
    assert (result.reason, result.lines) == (CMQCFC.MQRCCF_NO_START_CMD,
                                             ["AMQ8101S: IBM MQ error (CBE) has occurred."])
    result = proc.execute_text("START SERVICE(GONE)")
    assert result.reason == CMQCFC.MQRCCF_PROGRAM_NOT_AVAILABLE
    assert result.lines == ["AMQ8934E: A program of service 'GONE' could not be run: "
                            "'/no/such/program': No such file or directory."]
    assert "AMQ8934E: A program of service 'GONE' could not be run" in errlog(qmgr[2])
    # a program that is not executable, an output file that cannot be opened
    run(proc, f"DEFINE SERVICE(NOEXEC) STARTCMD('{programs.path('server.py')}')\n"
              f"DEFINE SERVICE(NOFILE) STARTCMD('{programs.python}') "
              f"STDOUT('{programs.dir}')")
    assert proc.execute_text("START SERVICE(NOEXEC)").reason == \
        CMQCFC.MQRCCF_PROGRAM_AUTH_FAILED
    result = proc.execute_text("START SERVICE(NOFILE)")
    assert result.reason == CMQCFC.MQRCCF_FILE_NOT_AVAILABLE
    assert result.lines == [f"AMQ8934E: A program of service 'NOFILE' could not be run: "
                            f"'{programs.dir}': Is a directory."]
    assert run(proc, "DISPLAY SVSTATUS(GONE)") == [
        "AMQ8101S: IBM MQ error (CB4) has occurred."]
    for command in ("START SERVICE(NOSUCH)", "STOP SERVICE(NOSUCH)",
                    "DISPLAY SVSTATUS(NOSUCH)"):
        result = proc.execute_text(command)
        assert (result.reason, result.lines) == (
            CMQC.MQRC_UNKNOWN_OBJECT_NAME, ["AMQ8147E: IBM MQ object NOSUCH not found."])


def test_queue_manager_end_stops_control_qmgr_servers_by_signal(qmgr, proc, programs):
    """Given CONTROL(QMGR) servers without a STOPCMD, one of them ignoring SIGTERM, and a
    STARTONLY server, when the queue manager's end stops its services (as the daemon does
    at endmqm), then the first ends by SIGTERM, the second by SIGKILL after the grace
    period, both are logged AMQ5029I, and the STARTONLY server still runs."""
    _, eng, root = qmgr
    py, server = programs.python, programs.path("server.py")
    for name, control, env in (("TERM", "QMGR", ""), ("STUBBORN", "QMGR", "SVC_IGNORE_TERM=1"),
                               ("KEEP", "STARTONLY", "")):
        run(proc, f"DEFINE SERVICE({name}) SERVTYPE(SERVER) CONTROL({control}) "
                  f"STARTCMD('/usr/bin/env') "
                  f"STARTARG('{env} {py} {server} {programs.path(name + '.pid')}')")
    services.start_at_qmgr_start(eng)
    pids = {n: wait_for(lambda n=n: read_pid(programs.path(f"{n}.pid")))
            for n in ("TERM", "STUBBORN", "KEEP")}
    runner = services.runner_for(eng)
    runner.grace = 1.0
    ended = {n: runner.servers[n].proc for n in ("TERM", "STUBBORN")}
    services.stop_at_qmgr_end(eng)
    assert not alive(pids["TERM"]) and not alive(pids["STUBBORN"])
    wait_for(lambda: all(p.returncode is not None for p in ended.values()))
    assert (ended["TERM"].returncode, ended["STUBBORN"].returncode) == (
        -signal.SIGTERM, -signal.SIGKILL)
    assert alive(pids["KEEP"])
    log = wait_for(lambda: errlog(root).count("AMQ5029I") == 2 and errlog(root))
    for name in ("TERM", "STUBBORN"):
        assert f"The Server '{name}' has ended. ProcessId({pids[name]})." in log


def _hold_launches(runner):
    """The runner's launches wait at a gate: (gate, launching), events the test sets and
    waits for; a held launch is a server STATUS(STARTING)."""
    gate, launching = threading.Event(), threading.Event()
    real = runner.spawn

    def held(launch):
        launching.set()
        assert gate.wait(30)
        return real(launch)
    runner.spawn = held
    return gate, launching


def test_a_server_is_starting_until_its_process_exists(qmgr, proc, programs):
    """Given a server whose program is still being launched (the runner's launch held at a
    gate), when DISPLAY SVSTATUS is issued, then it shows STATUS(STARTING) and PID(0), a
    second START is MQRCCF_SERVICE_RUNNING (CB3) and a STOP MQRCCF_SERVICE_REQUEST_PENDING
    (CBD); once the launch completes, START's answer is AMQ8733I and the status RUNNING with
    the program's own pid. A launch that fails leaves no status."""
    pidfile = _define_server(proc, programs)
    runner = services.runner_for(proc.engine)
    gate, launching = _hold_launches(runner)
    answer: list[list[str]] = []
    starter = threading.Thread(target=lambda: answer.append(run(proc, "START SERVICE(S1)")))
    starter.start()
    try:
        assert launching.wait(30)
        assert attrs_of(run(proc, "DISPLAY SVSTATUS(S1)")[1:]) == {
            "SERVICE": "S1", "STATUS": "STARTING", "PID": "0"}
        assert proc.execute_text("START SERVICE(S1)").reason == CMQCFC.MQRCCF_SERVICE_RUNNING
        result = proc.execute_text("STOP SERVICE(S1)")
        assert (result.reason, result.lines) == (
            CMQCFC.MQRCCF_SERVICE_REQUEST_PENDING, ["AMQ8101S: IBM MQ error (CBD) has occurred."])
    finally:
        gate.set()
        starter.join(30)
    assert answer == [["AMQ8733I: Request to start Service accepted."]]
    pid = wait_for(lambda: read_pid(pidfile))
    assert attrs_of(run(proc, "DISPLAY SVSTATUS(S1)")[1:]) == {
        "SERVICE": "S1", "STATUS": "RUNNING", "PID": str(pid)}

    # a launch that fails: STARTING is withdrawn
    def failing(launch):
        raise services.ServiceError(CMQCFC.MQRCCF_PROGRAM_NOT_AVAILABLE, "'x': gone")
    runner.spawn = failing
    run(proc, f"DEFINE SERVICE(S2) LIKE(S1) STARTARG('{programs.path('server.py')} "
              f"{programs.path('S2.pid')}')")
    assert proc.execute_text("START SERVICE(S2)").reason == \
        CMQCFC.MQRCCF_PROGRAM_NOT_AVAILABLE
    assert proc.execute_text("DISPLAY SVSTATUS(S2)").reason == \
        CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND


def test_start_all_goes_on_past_services_that_cannot_start(qmgr, proc, programs):
    """Given CONTROL(QMGR) services whose program does not exist, with a blank STARTCMD,
    and whose output file cannot be opened, named so they come first, and a good
    CONTROL(STARTONLY) server after them, when the queue manager's start starts its
    services, then the good one runs, each failure is logged (AMQ8934E naming the service
    and its cause) and nothing is raised."""
    py, server = programs.python, programs.path("server.py")
    run(proc, "DEFINE SERVICE(A.GONE) SERVTYPE(SERVER) CONTROL(QMGR) "
              "STARTCMD('/no/such/program')\n"
              "DEFINE SERVICE(B.BLANK) SERVTYPE(SERVER) CONTROL(QMGR)\n"
              f"DEFINE SERVICE(C.NOFILE) SERVTYPE(COMMAND) CONTROL(QMGR) STARTCMD('{py}') "
              f"STDOUT('{programs.dir}')\n"
              f"DEFINE SERVICE(D.GOOD) SERVTYPE(SERVER) CONTROL(STARTONLY) STARTCMD('{py}') "
              f"STARTARG('{server} {programs.path('GOOD.pid')}')")
    services.start_at_qmgr_start(proc.engine)
    pid = wait_for(lambda: read_pid(programs.path("GOOD.pid")))
    assert attrs_of(run(proc, "DISPLAY SVSTATUS(*)")[1:]) == {
        "SERVICE": "D.GOOD", "STATUS": "RUNNING", "PID": str(pid)}
    log = " ".join(errlog(qmgr[2]).split())  # (the log wraps its lines)
    assert "AMQ8934E: A program of service 'A.GONE' could not be run: " \
           "'/no/such/program': No such file or directory." in log
    assert f"A program of service 'C.NOFILE' could not be run: '{programs.dir}'" in log
    assert "B.BLANK" not in log  # nothing to start: IBM starts nothing and says nothing


def test_the_queue_managers_end_stops_a_server_still_starting(qmgr, proc, programs):
    """Given a CONTROL(QMGR) server whose launch is held (STATUS(STARTING)) when the queue
    manager's end stops its services, when the launch then completes, then the end waits
    for it and stops the server (SIGTERM, no STOPCMD) instead of leaving it running."""
    pidfile = programs.path("LATE.pid")
    run(proc, f"DEFINE SERVICE(LATE) SERVTYPE(SERVER) CONTROL(QMGR) "
              f"STARTCMD('{programs.python}') "
              f"STARTARG('{programs.path('server.py')} {pidfile}')")
    gate, launching = _hold_launches(services.runner_for(proc.engine))
    starter = threading.Thread(target=services.start_at_qmgr_start, args=(proc.engine,))
    starter.start()
    assert launching.wait(30)
    ender = threading.Thread(target=services.stop_at_qmgr_end, args=(proc.engine,))
    ender.start()
    gate.set()
    starter.join(30)
    ender.join(60)
    assert not ender.is_alive()
    pid = read_pid(pidfile)
    wait_for(lambda: proc.execute_text("DISPLAY SVSTATUS(LATE)").reason
             == CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND)
    assert pid is None or not alive(pid)
