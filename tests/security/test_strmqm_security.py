"""Security switched on by strmqm, as MQ has it: IBM's defaults, the owner privileged, CONNAUTH
and object authorities checked at MQCONN and MQOPEN of real (bindings and client) connections,
an MQCSP carried over the bindings socket and over a SVRCONN channel."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.support.installation import gone
from tests.support.site import ALICE, ALICE_PW, QUEUE, Site


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    s = Site(str(tmp_path_factory.mktemp("strmqmsec")))
    try:
        yield s.start()
    finally:
        s.stop()


@pytest.fixture(autouse=True)
def _log_mark(site):
    """Each test's log checks see only what was written during that test."""
    site.mark()


def _refused(fn) -> int:
    with pytest.raises(mqpy.MQMIError) as err:
        fn()
    return err.value.reason


def test_strmqm_creates_ibm_defaults(site):
    """Given a queue manager made by crtmqm and started by strmqm, when runmqsc displays the
    queue manager, its AUTHINFO and its CHLAUTH records, then CONNAUTH names
    SYSTEM.DEFAULT.AUTHINFO.IDPWOS (CHCKLOCL(OPTIONAL) CHCKCLNT(REQDADM)), CHLAUTH is ENABLED
    and IBM's three back-stop rules exist."""
    out = site.mqsc_here("DISPLAY QMGR CONNAUTH CHLAUTH\n")
    assert "CONNAUTH(SYSTEM.DEFAULT.AUTHINFO.IDPWOS)" in out
    assert "CHLAUTH(ENABLED)" in out
    out = site.mqsc_here("DISPLAY AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) ALL\n")
    assert "CHCKLOCL(OPTIONAL)" in out and "CHCKCLNT(REQDADM)" in out
    out = site.mqsc_here("DISPLAY CHLAUTH(*)\n")
    assert "CHLAUTH(SYSTEM.ADMIN.SVRCONN)" in out
    assert "CHLAUTH(SYSTEM.*)" in out
    assert "USERLIST(*MQADMIN)" in out


def test_the_owner_is_privileged(site):
    """Given the queue manager's owner (the user who ran crtmqm, in group mqm), when it
    connects in bindings mode without a password and opens a queue for every use, then all
    is allowed, as for a member of mqm."""
    qm = site.bindings()
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF
                       | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
        q.close()
    finally:
        qm.disconnect()


def test_wrong_password_in_bindings_is_2035_and_amq5534(site):
    """Given user alice in the queue manager's user file, when a bindings application
    connects as alice with a wrong password, then MQCONN fails with MQRC_NOT_AUTHORIZED (2035)
    and the queue manager's AMQERR01.LOG has AMQ5534E naming alice."""
    assert _refused(lambda: site.bindings(ALICE, "wrong")) == CMQC.MQRC_NOT_AUTHORIZED
    log = site.wait_for_log("User ID 'alice' authentication failed")
    assert "AMQ5534E" in log


def test_object_authority_at_mqconn_and_mqopen_in_bindings(site):
    """Given alice authenticated by her password (the connection runs as alice), when she has
    no authority, then MQCONN is 2035 (AMQ8077W); with +connect on the queue manager MQCONN
    works but MQOPEN for output is 2035; with +put on the queue she can put, and still not get."""
    site.mqsc_here(f"DELETE AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) PRINCIPAL('{ALICE}')\n"
              f"DELETE AUTHREC OBJTYPE(QMGR) PRINCIPAL('{ALICE}')\n", ok=False)
    assert _refused(lambda: site.bindings(ALICE, ALICE_PW)) == CMQC.MQRC_NOT_AUTHORIZED
    assert "AMQ8077W" in site.wait_for_log("AMQ8077W")
    site.mqsc_here(f"SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('{ALICE}') AUTHADD(CONNECT)\n")
    qm = site.bindings(ALICE, ALICE_PW)
    try:
        assert _refused(lambda: mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)) == \
            CMQC.MQRC_NOT_AUTHORIZED
        site.mqsc_here(f"SET AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') "
                  f"AUTHADD(PUT)\n")
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        q.put(b"from alice")
        q.close()
        assert _refused(lambda: mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)) == \
            CMQC.MQRC_NOT_AUTHORIZED
    finally:
        qm.disconnect()


def test_client_mqcsp_right_and_wrong_password(site):
    """Given the SVRCONN APP.SVRCONN served by the channel initiator strmqm started, when
    alice connects as a client with her password (and +connect +put), then she can put; with a
    wrong password MQCONN is 2035 and AMQ5534E is logged; the listener serves the next
    client."""
    site.mqsc_here(f"SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('{ALICE}') AUTHADD(CONNECT)\n"
              f"SET AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) PRINCIPAL('{ALICE}') "
              f"AUTHADD(PUT)\n")
    assert _refused(lambda: site.client(ALICE, "nope")) == CMQC.MQRC_NOT_AUTHORIZED
    assert "AMQ5534E" in site.wait_for_log("User ID 'alice' authentication failed")
    qm = site.client(ALICE, ALICE_PW)
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        q.put(b"client alice")
        q.close()
        assert _refused(lambda: mqpy.Queue(qm, QUEUE, CMQC.MQOO_BROWSE)) == \
            CMQC.MQRC_NOT_AUTHORIZED
    finally:
        qm.disconnect()


def test_client_chckclnt_required_refuses_a_client_without_password(site):
    """Given a SVRCONN with MCAUSER('bob') (not privileged, +connect) and CHCKCLNT(REQUIRED),
    when a client connects without a password, then MQCONN is 2035; with CHCKCLNT(OPTIONAL)
    the same client connects and runs as bob."""
    site.mqsc_here("DEFINE CHANNEL(BOB.SVRCONN) CHLTYPE(SVRCONN) MCAUSER('bob') REPLACE\n"
              "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('bob') AUTHADD(CONNECT)\n"
              "ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) "
              "CHCKCLNT(REQUIRED)\n")
    try:
        assert _refused(lambda: site.client(channel="BOB.SVRCONN")) == \
            CMQC.MQRC_NOT_AUTHORIZED
    finally:
        site.mqsc_here("ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) "
                  "CHCKCLNT(OPTIONAL)\n")
    qm = site.client(channel="BOB.SVRCONN")
    try:
        # bob may connect but has no authority on the queue: the open is his, not root's
        assert _refused(lambda: mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)) == \
            CMQC.MQRC_NOT_AUTHORIZED
    finally:
        qm.disconnect()
    site.mqsc_here("ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) "
              "CHCKCLNT(REQDADM)\n")



def _setmqaut(site, *args: str):
    import subprocess
    import sys

    code = ("import sys; from mqpy_cli.security import setmqaut; "
            "setmqaut.main(args=sys.argv[1:], prog_name='setmqaut')")
    return subprocess.run([sys.executable, "-c", code, "-m", "QMS", *args], env=site.inst.env,
                          capture_output=True, text=True, timeout=120)


def test_setmqaut_on_the_running_queue_manager(site):
    """Given the queue manager running in its daemon, when setmqaut grants alice +browse on
    APP.Q, then her bindings connection can browse it; setmqaut -remove takes her record away
    (2035 again); an unknown principal is setmqaut's AMQ7026E (149)."""
    site.mqsc_here(f"SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('{ALICE}') AUTHADD(CONNECT)\n")
    proc = _setmqaut(site, "-t", "q", "-n", QUEUE, "-p", ALICE, "+browse", "+inq")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "completed successfully" in proc.stdout
    qm = site.bindings(ALICE, ALICE_PW)
    try:
        mqpy.Queue(qm, QUEUE, CMQC.MQOO_BROWSE).close()
        assert _setmqaut(site, "-t", "q", "-n", QUEUE, "-p", ALICE, "-remove").returncode == 0
        assert _refused(lambda: mqpy.Queue(qm, QUEUE, CMQC.MQOO_BROWSE)) == \
            CMQC.MQRC_NOT_AUTHORIZED
    finally:
        qm.disconnect()
    proc = _setmqaut(site, "-t", "q", "-n", QUEUE, "-p", "nobody.here", "+put")
    assert proc.returncode == 149 and "AMQ7026E" in proc.stderr


def test_chcklocl_reqdadm_and_the_queue_managers_own_processes(site):
    """Given CHCKLOCL(REQDADM), when the owner (privileged) connects in bindings mode without
    a password, then MQCONN is 2035 and runmqsc answers AMQ8135E; with runmqsc -u and the
    password as its first input line it works. The channel initiator, a process of the queue
    manager, is not asked for one: killed, it is restarted by the daemon and serves clients."""
    import getpass
    import os
    import signal
    import subprocess
    import sys
    import time

    from mqpy.security.users import UserFile, users_path

    owner = getpass.getuser()[:12]
    UserFile(users_path(site.qmdir)).set_password(owner, "owner-pw")
    site.mqsc_here(f"SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('{ALICE}') AUTHADD(CONNECT)\n"
              "ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) "
              "CHCKLOCL(REQDADM)\n")
    runmqsc = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
               "runmqsc.main(args=sys.argv[1:], prog_name='runmqsc')")
    try:
        assert _refused(site.bindings) == CMQC.MQRC_NOT_AUTHORIZED
        site.bindings(owner, "owner-pw").disconnect()
        assert "AMQ8135E" in site.mqsc_here("DISPLAY QMGR CHLAUTH\n", ok=False)
        with open(os.path.join(site.qmdir, "chinit.pid")) as f:
            old = int(f.read())
        os.kill(old, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while True:  # the daemon restarts it; it reconnects and restarts its listener
            try:
                site.client(ALICE, ALICE_PW).disconnect()
                break
            except mqpy.MQMIError:
                assert time.monotonic() < deadline, "the channel initiator did not come back"
                time.sleep(0.2)
    finally:
        proc = subprocess.run(
            [sys.executable, "-c", runmqsc, "-u", owner, "QMS"], env=site.inst.env,
            input="owner-pw\nALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) "
                  "CHCKLOCL(OPTIONAL)\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    site.bindings().disconnect()


def _dspmqaut(site, *args: str):
    import subprocess
    import sys

    code = ("import sys; from mqpy_cli.security import dspmqaut; "
            "dspmqaut.main(args=sys.argv[1:], prog_name='dspmqaut')")
    return subprocess.run([sys.executable, "-c", code, "-m", "QMS", *args], env=site.inst.env,
                          capture_output=True, text=True, timeout=120)


def test_dspmqaut_on_the_running_queue_manager(site):
    """Given the queue manager running in its daemon and a group record for a generic
    profile (SET AUTHREC PROFILE('APP.*') GROUP('apps') AUTHADD(BROWSE)) plus bob's own +inq
    on APP.Q, when dspmqaut asks for bob (a member of apps) on APP.Q, then it lists browse
    and inq; for the group it lists browse; the owner (mqm) has every authority."""
    site.mqsc_here("SET AUTHREC PROFILE('APP.*') OBJTYPE(QUEUE) GROUP('apps') AUTHADD(BROWSE)\n"
              f"SET AUTHREC PROFILE({QUEUE}) OBJTYPE(QUEUE) PRINCIPAL('bob') AUTHADD(INQ)\n")
    out = _dspmqaut(site, "-t", "q", "-n", QUEUE, "-p", "bob")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split()[-2:] == ["browse", "inq"]
    out = _dspmqaut(site, "-t", "q", "-n", QUEUE, "-g", "apps")
    assert out.stdout.split()[-1:] == ["browse"] and "inq" not in out.stdout
    import getpass

    out = _dspmqaut(site, "-t", "q", "-n", QUEUE, "-p", getpass.getuser()[:12])
    assert "put" in out.stdout and "dlt" in out.stdout


def test_teardown_kills_the_daemon_and_its_channel_initiator(tmp_path):
    """Given a queue manager started by strmqm with its channel initiator (its own session,
    so not ended with the daemon), when a test's teardown kills what it started (as it does
    when endmqm fails), then neither process is left running."""

    s = Site(str(tmp_path))
    try:
        s.start()
        daemon, chinit = s.inst.pid("QMS"), s.inst.chinit_pid("QMS")
        assert daemon and chinit and not gone(chinit)
    finally:
        s.inst.kill_all()
    assert gone(daemon) and gone(chinit)


def test_runmqsc_as_a_user_outside_mqm_is_checked_by_the_command_server(site):
    """Given alice (not in mqm) with +connect, +dsp on the queue manager and what runmqsc
    needs (put to the command queue, its reply queues), when she runs runmqsc -u, then
    DISPLAY QLOCAL(APP.Q) and DEFINE QLOCAL(ALICE.Q) answer AMQ8135E, and AMQ8077W is
    logged; after setmqaut +dsp on APP.Q she sees it; the operator's runmqsc is unaffected."""
    import subprocess
    import sys

    site.mqsc_here(f"SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('{ALICE}') AUTHADD(CONNECT, DSP)\n"
              f"SET AUTHREC PROFILE(SYSTEM.ADMIN.COMMAND.QUEUE) OBJTYPE(QUEUE) "
              f"PRINCIPAL('{ALICE}') AUTHADD(PUT)\n"
              f"SET AUTHREC PROFILE(SYSTEM.MQSC.REPLY.QUEUE) OBJTYPE(QUEUE) "
              f"PRINCIPAL('{ALICE}') AUTHADD(GET, DSP)\n"
              f"SET AUTHREC PROFILE('AMQ.MQSC.**') OBJTYPE(QUEUE) "
              f"PRINCIPAL('{ALICE}') AUTHADD(GET)\n")
    runmqsc = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
               "runmqsc.main(args=sys.argv[1:], prog_name='runmqsc')")

    def as_alice(script: str) -> str:
        proc = subprocess.run([sys.executable, "-c", runmqsc, "-u", ALICE, "QMS"],
                              env=site.inst.env, input=f"{ALICE_PW}\n{script}",
                              capture_output=True, text=True, timeout=120)
        return proc.stdout + proc.stderr

    out = as_alice(f"DISPLAY QLOCAL({QUEUE})\nDEFINE QLOCAL(ALICE.Q)\n")
    assert out.count("AMQ8135E: Not authorized.") == 2, out
    assert f"QUEUE({QUEUE})" not in out
    assert "Entity 'alice' has insufficient authority to access object 'ALICE.Q'" in \
        site.wait_for_log("ALICE.Q")
    assert _setmqaut(site, "-t", "q", "-n", QUEUE, "-p", ALICE, "+dsp").returncode == 0
    out = as_alice(f"DISPLAY QLOCAL({QUEUE})\n")
    assert f"QUEUE({QUEUE})" in out and "AMQ8135E" not in out, out
    assert "AMQ8006I" in site.mqsc_here("DEFINE QLOCAL(OPERATOR.Q)\n")


def test_dmpmqaut_on_the_running_queue_manager(site):
    """Given the queue manager running in its daemon and a group record on APP.*, when
    dmpmqaut runs for that group, then the record is read through the command server
    (DISPLAY AUTHREC) and printed as IBM's dmpmqaut prints it."""
    import subprocess
    import sys

    site.mqsc_here("SET AUTHREC PROFILE('APP.*') OBJTYPE(QUEUE) GROUP('apps') AUTHADD(BROWSE,INQ)\n")
    code = ("import sys; from mqpy_cli.security import dmpmqaut; "
            "dmpmqaut.main(args=sys.argv[1:], prog_name='dmpmqaut')")
    out = subprocess.run([sys.executable, "-c", code, "-m", "QMS", "-g", "apps", "-t", "q"],
                         env=site.inst.env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "profile:     APP.*\nobject type: queue\nentity:      apps\n" \
           "entity type: group\nauthority:   browse inq" in out.stdout
