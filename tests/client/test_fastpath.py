"""qm.ini ``Channels: MQIBindType=FASTPATH``: a plain SVRCONN's socket is handed by the channel
initiator's listener to the queue-manager daemon, which serves the client on its own engine
(``mqpy_chinit.clienthost``). What must not change for the application or the operator: the
MQI's semantics, DISPLAY CHSTATUS / CONN, STOP CHANNEL, MAXINST, units of work backed out when a
client or the queue manager goes; TLS channels stay in the channel initiator.

Each test checks who holds the client's server-side socket (:func:`_holders`), so that it
fails if the connection was served by the channel initiator instead."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest
import trustme

import mqpy
from mqpy import CMQC, CMQCFC, config, inprocess
from mqpy_chinit import handoff
from tests.client.conftest import wait_for
from tests.support.fastpath import QUEUE, _holders, daemon_alone_holds
from tests.support.site import CHANNEL, QM, Site, as_nobody, key_repository
from tests.support.site_here import FastpathHereSite

CIPH = "ECDHE_ECDSA_AES_128_GCM_SHA256"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("fastpath")
    s = FastpathHereSite(str(root / "data"))
    try:
        s.start()
        yield s
    finally:
        s.stop()


@pytest.fixture(autouse=True)
def _clean(request):
    """The module's site, for a test that uses it: marked, then its channel and queue as
    they were."""
    if "site" not in request.fixturenames:
        yield
        return
    site = request.getfixturevalue("site")
    site.mark()
    yield
    site.mqsc_here(f"START CHANNEL({CHANNEL})\nALTER CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) "
              f"MAXINST(999999999) SHARECNV(10)\n", ok=False)
    qm = site.bindings()
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
        try:
            while True:
                q.get()
        except mqpy.MQMIError:
            pass
        q.close()
    finally:
        qm.disconnect()


def _depth(site: Site) -> int:
    qm = site.bindings()
    try:
        return mqpy.Queue(qm, QUEUE, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        qm.disconnect()


def test_pymqi_programs_are_served_by_the_daemon(site):
    """Given a FASTPATH queue manager, when a pymqi program puts, browses, gets with wait and
    commits and backs out through its SVRCONN, then every call answers as in bindings mode,
    and the client's socket is held by the daemon, not by the channel initiator."""
    qm = site.client()
    try:
        assert daemon_alone_holds(site), _holders(site)
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF
                       | CMQC.MQOO_BROWSE)
        q.put(b"first")
        q.put(b"second")
        browsed = q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
        assert browsed == b"first" and _depth(site) == 2
        assert q.get() == b"first" and q.get() == b"second"
        with pytest.raises(mqpy.MQMIError) as got:
            q.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=200))
        assert got.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        q.put(b"kept", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        assert "UNCOM(1)" in _qstatus(site)
        qm.commit()
        assert "UNCOM(NO)" in _qstatus(site)
        q.put(b"dropped", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        qm.backout()
        assert _depth(site) == 1
        assert q.get() == b"kept"
        q.close()
    finally:
        qm.disconnect()


def test_chstatus_and_conn_show_the_daemons_client(site):
    """Given a client of a FASTPATH queue manager, when the operator displays its channel's
    status (runmqsc and PCF) and the connections, then they show it, as with STANDARD:
    CHSTATUS from the daemon's client host through the channel initiator, CONN from the
    engine."""
    qm = site.client()
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
    try:
        assert daemon_alone_holds(site), _holders(site)
        out = " ".join(site.mqsc_here(f"DISPLAY CHSTATUS({CHANNEL}) ALL").split())
        assert f"CHANNEL({CHANNEL})" in out and "CHLTYPE(SVRCONN)" in out
        assert "STATUS(RUNNING)" in out and "CONNAME(127.0.0.1)" in out
        assert "CURSHCNV(1)" in out
        admin = site.bindings()
        try:
            pcf = mqpy.PCFExecute(admin).MQCMD_INQUIRE_CHANNEL_STATUS(
                {CMQCFC.MQCACH_CHANNEL_NAME: CHANNEL.encode()})
        finally:
            admin.disconnect()
        assert [r[CMQCFC.MQIACH_CHANNEL_TYPE] for r in pcf] == [CMQC.MQCHT_SVRCONN]
        assert pcf[0][CMQCFC.MQIACH_CHANNEL_STATUS] == CMQCFC.MQCHS_RUNNING
        conns = " ".join(site.mqsc_here("DISPLAY CONN(*) TYPE(ALL)").split())
        assert f"OBJNAME({QUEUE})" in conns  # the client's open queue, in its connection
        q.close()
    finally:
        qm.disconnect()
    assert wait_for(lambda: "STATUS(RUNNING)" not in " ".join(
        site.mqsc_here(f"DISPLAY CHSTATUS({CHANNEL})", ok=False).split()))


def test_stop_channel_ends_the_daemons_instances(site):
    """Given a client served by the daemon, when the operator stops its channel
    (MODE(FORCE) STATUS(INACTIVE)), then the client's next call gets 2009; with
    STATUS(STOPPED) a new client is refused (2537) until START CHANNEL."""
    qm = site.client()
    q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
    site.mqsc_here(f"STOP CHANNEL({CHANNEL}) MODE(FORCE) STATUS(INACTIVE)")
    assert "AMQ9528I" in site.wait_for_log("AMQ9528I")
    with pytest.raises(mqpy.MQMIError) as broken:
        q.put(b"after the stop")
    assert broken.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    site.mqsc_here(f"STOP CHANNEL({CHANNEL}) STATUS(STOPPED)")
    with pytest.raises(mqpy.MQMIError) as refused:
        site.client()
    assert refused.value.reason == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
    site.mqsc_here(f"START CHANNEL({CHANNEL})")
    site.client().disconnect()


def test_maxinst_is_counted_in_the_daemon(site):
    """Given MAXINST(1) on the channel and one client connected, when a second client
    connects (a channel instance of its own), then it is refused with 2537 and AMQ9489E."""
    site.mqsc_here(f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SVRCONN) MAXINST(1) SHARECNV(1)")
    first = site.client()
    try:
        assert daemon_alone_holds(site), _holders(site)
        with pytest.raises(mqpy.MQMIError) as refused:
            site.client().disconnect()
        assert refused.value.reason == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
        assert "AMQ9489E" in site.wait_for_log("AMQ9489E")
    finally:
        first.disconnect()


_KILLED = """
import sys, time, mqpy
from mqpy import CMQC
qm = mqpy.connect("{qm}", "{channel}", "{conn}")
q = mqpy.Queue(qm, "{queue}", CMQC.MQOO_OUTPUT)
q.put(b"never committed", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
print("put", flush=True)
time.sleep(60)
"""


def test_killed_clients_unit_of_work_is_backed_out(site):
    """Given a client process that put a message under syncpoint through the daemon, when
    it is killed, then its unit of work is backed out: the queue holds nothing, committed
    or not."""
    proc = subprocess.Popen([sys.executable, "-c", _KILLED.format(
        qm=QM, channel=CHANNEL, conn=site.conn_info, queue=QUEUE)], stdout=subprocess.PIPE,
        text=True, env=site.inst.env)
    try:
        assert proc.stdout.readline().strip() == "put"
        assert daemon_alone_holds(site), _holders(site)
        assert "UNCOM(1)" in _qstatus(site)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert wait_for(lambda: "UNCOM(NO)" in _qstatus(site))
    assert _depth(site) == 0


def _qstatus(site: Site) -> str:
    return " ".join(site.mqsc_here(f"DISPLAY QSTATUS({QUEUE}) UNCOM CURDEPTH").split())


def test_a_tls_svrconn_stays_in_the_channel_initiator(site, tmp_path):
    """Given a FASTPATH queue manager with a TLS SVRCONN, when a client connects over TLS,
    then it works, served by the channel initiator (a TLS session is not handed over)."""
    ca = trustme.CA(organization_name="mqpy test CA")
    qm_repo = key_repository(str(tmp_path / "qmkeys"), ca,
                          ca.issue_cert("qms.example", common_name="QMS"))
    app = key_repository(str(tmp_path / "app"), ca, ca.issue_cert("app.example",
                                                               common_name="app"))
    site.mqsc_here(f"ALTER QMGR SSLKEYR('{qm_repo}')\n"
              f"DEFINE CHANNEL(TLS.SVRCONN) CHLTYPE(SVRCONN) SSLCIPH({CIPH}) "
              f"SSLCAUTH(OPTIONAL) REPLACE\n"
              f"SET CHLAUTH(TLS.SVRCONN) TYPE(BLOCKUSER) USERLIST('nobody')\n")
    qm = mqpy.QueueManager(None)
    qm.connect_tcp_client(QM, mqpy.CD(SSLCipherSpec=CIPH.encode()), "TLS.SVRCONN",
                          site.conn_info, sco=mqpy.SCO(KeyRepository=app.encode()))
    try:
        assert _holders(site) == {"chinit"}
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        q.put(b"over TLS")
        assert q.get() == b"over TLS"
        q.close()
        out = " ".join(site.mqsc_here("DISPLAY CHSTATUS(TLS.SVRCONN) ALL").split())
        assert "CHANNEL(TLS.SVRCONN)" in out and f"SSLCIPH({CIPH})" in out
    finally:
        qm.disconnect()


def test_a_killed_channel_initiator_leaves_the_daemons_clients_connected(site):
    """Given a client served by the daemon, when the channel initiator is SIGKILLed, then
    the client's calls go on (the daemon serves them), and once the daemon has restarted
    the channel initiator, DISPLAY CHSTATUS shows the client again and new clients are
    handed over as before."""
    qm = site.client()
    try:
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        old = site.inst.chinit_pid(QM)
        os.kill(old, signal.SIGKILL)
        q.put(b"while the channel initiator is down")
        assert q.get() == b"while the channel initiator is down"
        assert wait_for(lambda: site.inst.chinit_pid(QM) not in (None, old), 30)
        site._wait_listening(30)
        shown: list[str] = []

        def status_shown() -> bool:
            # (the new channel initiator answers channel commands once it serves its
            # initiation queue, a moment after its listener listens: AMQ8420I until then)
            out = site.mqsc_here(f"DISPLAY CHSTATUS({CHANNEL})", ok=False)
            shown[:] = [" ".join(out.split())]
            return f"CHANNEL({CHANNEL})" in shown[0]

        assert wait_for(status_shown, 30), shown
        assert "STATUS(RUNNING)" in shown[0], shown
        second = site.client()
        assert daemon_alone_holds(site), _holders(site)
        second.disconnect()
        q.close()
    finally:
        qm.disconnect()


def _restarted(site: Site) -> None:
    """The module's queue manager started again if a test ended it, serving clients as
    before (for the tests after it)."""
    if not inprocess.is_locked(site.qmdir):
        assert site.inst.run("strmqm", QM).returncode == 0
    site._wait_listening(30)


def test_endmqm_backs_out_the_daemons_clients(site):
    """Given a client of a FASTPATH queue manager with a message put under syncpoint, when
    endmqm -i ends the queue manager, then the client's next call gets 2009 (or 2161/2162),
    and after strmqm the message is not there."""
    try:
        qm = site.client()
        assert daemon_alone_holds(site), _holders(site)
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT)
        q.put(b"in flight", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        assert site.inst.run("endmqm", "-i", QM).returncode == 0
        site.inst.wait_ended(QM)
        with pytest.raises(mqpy.MQMIError) as ended:
            q.put(b"after the end")
        assert ended.value.reason in (CMQC.MQRC_CONNECTION_BROKEN,
                                      CMQC.MQRC_Q_MGR_STOPPING, CMQC.MQRC_Q_MGR_QUIESCING)
        assert site.inst.run("strmqm", QM).returncode == 0
        assert _depth(site) == 0
    finally:
        _restarted(site)


def test_a_bad_mqibindtype_is_refused_by_strmqm(tmp_path):
    """Given qm.ini Channels: MQIBindType=TURBO, when strmqm starts the queue manager, then
    it refuses (exit 39) with AMQ8940E naming the setting and the words it takes, as for
    any bad Channels value."""
    s = Site(str(tmp_path / "data"))
    try:
        assert s.inst.run("crtmqm", QM).returncode == 0
        config.set_channels_value(QM, "MQIBindType", "TURBO", s.inst.root)
        proc = s.inst.run("strmqm", QM)
        assert proc.returncode == 39
        assert "AMQ8940E" in proc.stdout + proc.stderr
        assert "MQIBindType=TURBO" in proc.stdout + proc.stderr
        assert "is not FASTPATH or STANDARD" in proc.stdout + proc.stderr
    finally:
        s.inst.kill_all()


def test_mqibindtype_values():
    """FASTPATH and STANDARD in any case; STANDARD when absent; anything else refused."""
    parse = config.ChannelsConfig.parse
    assert parse({}).mqi_bind_type == "STANDARD" and not parse({}).fastpath
    assert parse({"mqibindtype": "fastpath"}).fastpath
    assert parse({"MQIBindType": " STANDARD "}).mqi_bind_type == "STANDARD"
    with pytest.raises(config.ConfigError, match="FASTPATH or STANDARD"):
        parse({"MQIBindType": "TURBO"})


def _connect_as_nobody(path: str) -> str:
    """In a child process of user nobody (65534): connect to ``path`` and send the start of
    a hand-over request; "mode" (the connection was refused), "closed" (the other end
    closed it unanswered) or "answered"."""
    def connect() -> str:
        with socket.socket(socket.AF_UNIX) as s:
            try:
                s.connect(path)
            except PermissionError:
                return "mode"
            try:
                s.sendall(b"S" + bytes(64))
                s.settimeout(10)
                return "closed" if s.recv(100) == b"" else "answered"
            except (ConnectionResetError, BrokenPipeError):
                return "closed"  # closed before (or while) the bytes went

    return as_nobody(connect)


@pytest.mark.skipif(os.geteuid() != 0, reason="connecting as another user needs root")
def test_another_users_connection_to_the_hand_over_socket_is_refused(site):
    """Given a FASTPATH queue manager, when a process of another user connects to its
    qm.fastpath.sock, then the socket's mode (0600) refuses it; and were the mode opened to
    everyone, the daemon reads the connecting process's user id (SO_PEERCRED), refuses it
    without reading a request (AMQ9999E names the user id) and closes the connection. The
    clients keep being served. (Run as root: the other user is nobody, 65534; the socket is
    reached through a hard link in a directory that user may search.)"""
    path = os.path.join(site.qmdir, handoff.SOCKET_NAME)
    where = tempfile.mkdtemp()
    os.chmod(where, 0o755)
    link = os.path.join(where, "fastpath.sock")
    try:
        os.link(path, link)
    except OSError as e:
        pytest.skip(f"the socket cannot be linked where another user may reach it: {e}")

    try:
        assert _connect_as_nobody(link) == "mode"
        os.chmod(path, 0o666)
        assert _connect_as_nobody(link) == "closed"
        assert "from user id 65534 was refused" in site.wait_for_log("AMQ9999E")
    finally:
        os.chmod(path, 0o600)
        os.unlink(link)
        os.rmdir(where)
    qm = site.client()
    try:
        assert daemon_alone_holds(site), _holders(site)
    finally:
        qm.disconnect()


def test_only_the_queue_managers_user_may_hand_over():
    """The hand-off socket's check: the peer's uid must be the queue manager's own."""
    assert handoff.peer_allowed(os.getuid())
    assert not handoff.peer_allowed(os.getuid() + 1)
    assert not handoff.peer_allowed(0, own_uid=1000)


def test_a_controlled_end_waits_for_the_daemons_clients(site):
    """Given a client of a FASTPATH queue manager, when endmqm -c asks for a controlled end,
    then the client is not cut off: its calls that fail if quiescing get 2161 while it stays
    connected, and the queue manager ends once it disconnects."""
    try:
        qm = site.client()
        assert daemon_alone_holds(site), _holders(site)
        q = mqpy.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_FAIL_IF_QUIESCING)
        assert site.inst.run("endmqm", "-c", QM).returncode == 0
        pmo = mqpy.PMO(Options=CMQC.MQPMO_FAIL_IF_QUIESCING | CMQC.MQPMO_NO_SYNCPOINT)
        with pytest.raises(mqpy.MQMIError) as quiescing:
            for _ in range(2000):
                q.put(b"while it quiesces", mqpy.MD(), pmo)
                time.sleep(0.01)
        assert quiescing.value.reason == CMQC.MQRC_Q_MGR_QUIESCING
        qm.disconnect()
        site.inst.wait_ended(QM, timeout=30)
    finally:
        _restarted(site)


def test_a_failed_hand_off_is_served_by_the_channel_initiator(env, tmp_path):
    """Given a FASTPATH channel initiator whose queue manager does not take sockets (no
    client host listening), when a client connects, then the channel initiator serves it
    as with STANDARD and logs why."""
    chinit = env.chinit.chinit
    missing = str(tmp_path / handoff.SOCKET_NAME)
    env.chinit.run_sync(lambda: setattr(chinit, "fastpath", missing))
    qm = env.client()
    try:
        q = mqpy.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        q.put(b"served here")
        assert q.get() == b"served here"
    finally:
        qm.disconnect()
    assert any("the queue manager did not take it" in text
               for text in env.chinit.messages("AMQ9999E"))
