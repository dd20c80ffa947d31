"""Channels served by a runmqlsr process are the queue manager's channels, as IBM's are: DISPLAY
CHSTATUS shows them (a receiver, a server-connection instance), STOP CHANNEL stops them with
its MODE and STATUS, a STOPPED receiver there refuses its partner until START CHANNEL, only
the queue manager's user may ask a runmqlsr anything, and one that was killed leaves nothing
that holds DISPLAY CHSTATUS up. Found by the chaos harness: an operator resolving an in-doubt
channel chose BACKOUT because DISPLAY CHSTATUS showed nothing while the receiver, served by a
runmqlsr, had committed."""

from __future__ import annotations

import itertools
import os
import re
import signal
import socket
import tempfile
import time
from collections.abc import Iterator

import attrs
import pytest

import mqpy
from mqpy import CMQC, config
from mqpy_chinit import handoff
from tests.support.daemon_pair import (
    bind,
    command_server,
    depth,
    killed_at_end,
    mqsc_here,
    two_daemons,
)
from tests.support.installation import Installation
from tests.support.runmqlsr import Runmqlsr
from tests.support.site import NOBODY, as_nobody
from tests.support.waiting import wait_for

pytestmark = pytest.mark.timeout(180)

#: each test's own channels and queues (the queue managers are the module's): its number
_TESTS = itertools.count(1)


#: the last line of an error-log entry (its trailer: ``----- file.py : line ----...``)
_ENTRY_END = re.compile(r"^----- .*\n", re.MULTILINE)


def _log_path(site: Installation, qmgr: str) -> str:
    return os.path.join(site.qmdir(qmgr), "errors", "AMQERR01.LOG")


def _log_size(site: Installation, qmgr: str) -> int:
    try:
        return os.path.getsize(_log_path(site, qmgr))
    except FileNotFoundError:
        return 0


@attrs.define
class Pair:
    """A test's RCVR and SDR ``channel`` (QM2's runmqlsr ``lsr`` serving the receiver), its
    SVRCONN ``svrconn``, QM2's ``target`` queue, QM1's ``remote`` queue for it; and the size
    of each queue manager's error log when the test began (``marks``)."""

    site: Installation
    lsr: Runmqlsr
    channel: str
    svrconn: str
    target: str
    remote: str
    marks: dict[str, int]


def _log(pair: Pair, qmgr: str, channel: str = "") -> str:
    """What ``qmgr``'s error log says since the test began (only its entries that name
    ``channel``, if given)."""
    try:
        with open(_log_path(pair.site, qmgr), encoding="latin-1") as f:
            f.seek(pair.marks[qmgr])
            text = f.read()
    except FileNotFoundError:
        return ""
    if not channel:
        return text
    return "".join(entry for entry in _ENTRY_END.split(text)
                   if f"'{channel}'" in entry or f"({channel})" in entry)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Installation]:
    """QM1 and QM2 started by strmqm (each with its channel initiator); QM2 with
    MQIBindType=STANDARD for its runmqlsrs (which then serve its clients themselves), and
    without connection authentication; every process killed at the end."""
    ending = killed_at_end(tmp_path_factory.mktemp("runmqlsr"))
    inst = next(ending)
    try:
        two_daemons(inst)
        config.set_channels_value("QM2", "MQIBindType", "STANDARD", inst.root)
        command_server(inst, "QM2", """
            ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) CHCKCLNT(NONE)
            REFRESH SECURITY TYPE(CONNAUTH)
        """)
        yield inst
    finally:
        next(ending, None)


@pytest.fixture
def pair(site, tmp_path) -> Iterator[Pair]:
    """Of this test's own (numbered) names: a runmqlsr of QM2, RCVR QM1.TO.QM2.n, SVRCONN
    APP.SVRCONN.n and TARGET.n at QM2; SDR QM1.TO.QM2.n at QM1 to that runmqlsr (a retry
    and a heartbeat every second, so that it sees its partner end while idle), its
    transmission queue and TARGET.REMOTE.n; nothing started yet. At the end the sender is
    stopped (no retries into the next test) and the runmqlsr ended."""
    n = next(_TESTS)
    channel, svrconn, target, xmitq = (f"QM1.TO.QM2.{n}", f"APP.SVRCONN.{n}", f"TARGET.{n}",
                                       f"XMITQ.{n}")
    command_server(site, "QM2", f"""
        DEFINE CHANNEL({channel}) CHLTYPE(RCVR) TRPTYPE(TCP) HBINT(1)
        SET CHLAUTH('{channel}') TYPE(BLOCKUSER) USERLIST('nobody')
        DEFINE CHANNEL({svrconn}) CHLTYPE(SVRCONN)
        SET CHLAUTH({svrconn}) TYPE(BLOCKUSER) USERLIST('nobody')
        DEFINE QLOCAL({target})
    """)
    marks = {qmgr: _log_size(site, qmgr) for qmgr in ("QM1", "QM2")}
    lsr = Runmqlsr(site, str(tmp_path / "runmqlsr.out"))
    try:
        command_server(site, "QM1", f"""
            DEFINE QLOCAL({xmitq}) USAGE(XMITQ)
            DEFINE CHANNEL({channel}) CHLTYPE(SDR) CONNAME('127.0.0.1({lsr.port})') +
                   XMITQ({xmitq}) SHORTRTY(1000) SHORTTMR(1) DISCINT(0) HBINT(1)
            DEFINE QREMOTE(TARGET.REMOTE.{n}) RNAME({target}) RQMNAME(QM2) XMITQ({xmitq})
        """)
        yield Pair(site, lsr, channel, svrconn, target, f"TARGET.REMOTE.{n}", marks)
    finally:
        mqsc_here(site, "QM1", f"STOP CHANNEL({channel}) MODE(FORCE) STATUS(STOPPED)\n")
        lsr.end()


def _put(pair: Pair, count: int = 1) -> None:
    qm = bind(pair.site, "QM1")
    try:
        for i in range(count):
            qm.put1(pair.remote, b"message %d" % i,
                    mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    finally:
        qm.disconnect()


def _chstatus(site: Installation, qmgr: str, name: str) -> str:
    return mqsc_here(site, qmgr, f"DISPLAY CHSTATUS({name}) ALL\n").stdout


def _status_of(site: Installation, qmgr: str, name: str) -> list[str]:
    """The STATUS of each row DISPLAY CHSTATUS shows for ``name`` at ``qmgr``."""
    return [line.split("STATUS(", 1)[1].split(")", 1)[0]
            for line in _chstatus(site, qmgr, name).replace(" ", "\n").splitlines()
            if line.startswith("STATUS(")]


def _running(pair: Pair) -> None:
    """The sender started and one message delivered through the runmqlsr."""
    site = pair.site
    _put(pair)
    assert "AMQ8018I" in mqsc_here(site, "QM1", f"START CHANNEL({pair.channel})\n").stdout
    wait_for(lambda: depth(site, "QM2", pair.target) >= 1, 30, "the message delivered")


def test_display_chstatus_shows_a_receiver_that_a_runmqlsr_serves(pair):
    """Given a sender on QM1 running into a receiver that QM2's runmqlsr serves, when QM2's
    operator displays the channel's status, then the receiver's instance is shown RUNNING,
    with its partner queue manager and the message it received; its saved status (the
    queue manager's sync record) shows the batch it committed."""
    site = pair.site
    _running(pair)
    shown = _chstatus(site, "QM2", pair.channel)
    assert "AMQ8417I" in shown, shown
    assert "CHLTYPE(RCVR)" in shown and "STATUS(RUNNING)" in shown, shown
    assert "RQMNAME(QM1)" in shown and "MSGS(1)" in shown, shown
    saved = mqsc_here(site, "QM2", f"DISPLAY CHSTATUS({pair.channel}) SAVED\n").stdout
    assert "CHLTYPE(RCVR)" in saved and "LSTSEQNO(1)" in saved, saved


def test_display_chstatus_shows_a_client_connected_through_a_runmqlsr(pair):
    """Given a client connected to QM2 through its runmqlsr (STANDARD: served by the
    runmqlsr itself), when QM2's operator displays the SVRCONN's status, then its instance
    is shown RUNNING; and once the client has gone, STOP CHANNEL of the SVRCONN reaches the
    runmqlsr (nothing left to stop: answered, no failure)."""
    site, lsr = pair.site, pair.lsr
    qm = mqpy.connect("QM2", pair.svrconn, f"127.0.0.1({lsr.port})")
    try:
        mqpy.Queue(qm, pair.target, CMQC.MQOO_OUTPUT).put(b"from a client")
        shown = _chstatus(site, "QM2", pair.svrconn)
        assert "CHLTYPE(SVRCONN)" in shown and "STATUS(RUNNING)" in shown, shown
    finally:
        qm.disconnect()


def test_stop_channel_quiesce_stops_a_runmqlsr_receiver_until_start_channel(pair):
    """Given a sender running into QM2's runmqlsr's receiver, when QM2's operator stops the
    channel (MODE(QUIESCE), STATUS(STOPPED) by default), then the receiver's instance ends,
    QM2 shows the channel STOPPED, the sender goes RETRYING, its restarts are refused by the
    runmqlsr (AMQ9534E: not enabled) so that a message put meanwhile waits; START CHANNEL at
    QM2 enables the receiver again and the sender's next retry delivers it."""
    site, lsr, channel = pair.site, pair.lsr, pair.channel
    _running(pair)
    out = mqsc_here(site, "QM2", f"STOP CHANNEL({channel}) MODE(QUIESCE)\n")
    assert "AMQ8019I" in out.stdout, out.stdout
    wait_for(lambda: "RUNNING" not in _status_of(site, "QM2", channel), 10,
             "the receiver's instance ended")
    assert "STOPPED" in _status_of(site, "QM2", channel)
    seen = []
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        seen.append(_status_of(site, "QM1", channel))
        if seen[-1] in (["RETRYING"], ["STOPPED"]):
            break
        time.sleep(0.1)
    else:
        raise AssertionError(f"{seen[-5:]} {_log(pair, 'QM1')[-3000:]}")
    _put(pair)
    wait_for(lambda: "AMQ9534E" in _log(pair, "QM2"), 15, "a restart refused")
    time.sleep(1.5)  # retries every second: each refused
    assert depth(site, "QM2", pair.target) == 1
    assert "RUNNING" not in _status_of(site, "QM2", channel)
    assert "AMQ8018I" in mqsc_here(site, "QM2", f"START CHANNEL({channel})\n").stdout
    wait_for(lambda: depth(site, "QM2", pair.target) == 2, 30, "delivered once enabled")
    assert lsr.proc.poll() is None


def test_stop_channel_force_status_inactive_ends_the_instance_and_lets_the_sender_back(pair):
    """Given a sender running into QM2's runmqlsr's receiver, when QM2's operator stops the
    channel's instance from QM1 with MODE(FORCE) STATUS(INACTIVE) QMNAME(QM1), then the
    instance ends at once (the command succeeds although the channel initiator itself has
    no instance), the sender sees it (its retry) and, the channel not STOPPED, runs again:
    a message put afterwards is delivered."""
    site, channel = pair.site, pair.channel
    _running(pair)
    out = mqsc_here(site, "QM2", f"STOP CHANNEL({channel}) MODE(FORCE) STATUS(INACTIVE) "
                                 f"QMNAME(QM1)\n")
    assert "AMQ8019I" in out.stdout, out.stdout
    wait_for(lambda: "AMQ9528I" in _log(pair, "QM2"), 10, "the instance ended")
    wait_for(lambda: "ended abnormally" in _log(pair, "QM1", channel), 15,
             "the sender saw its partner end (RETRYING)")
    assert "STOPPED" not in _status_of(site, "QM2", channel)
    _put(pair)
    wait_for(lambda: depth(site, "QM2", pair.target) == 2, 30, "delivered again")
    wait_for(lambda: _status_of(site, "QM1", channel) == ["RUNNING"], 15)


def test_a_runmqlsr_started_after_stop_channel_keeps_the_channel_stopped(pair, tmp_path):
    """Given RCVR QM1.TO.QM2 stopped at QM2 (STOP CHANNEL) and its runmqlsr then ended and
    started again on the same port, when QM1's sender starts, then the new runmqlsr refuses
    it (the STOPPED state is the queue manager's, read at the runmqlsr's start) until START
    CHANNEL at QM2, after which the message is delivered."""
    site, lsr, channel = pair.site, pair.lsr, pair.channel
    assert "AMQ8019I" in mqsc_here(site, "QM2", f"STOP CHANNEL({channel})\n").stdout
    lsr.end()
    again = Runmqlsr(site, str(tmp_path / "runmqlsr-again.out"), lsr.port)
    try:
        _put(pair)
        assert "AMQ8018I" in mqsc_here(site, "QM1", f"START CHANNEL({channel})\n").stdout
        wait_for(lambda: "AMQ9534E" in again.output(), 15, "the sender's start refused")
        assert depth(site, "QM2", pair.target) == 0
        assert "AMQ8018I" in mqsc_here(site, "QM2", f"START CHANNEL({channel})\n").stdout
        wait_for(lambda: depth(site, "QM2", pair.target) == 1, 30, "delivered once enabled")
    finally:
        again.end()


def test_a_runmqlsr_is_found_by_a_restarted_channel_initiator(pair):
    """Given a receiver running in QM2's runmqlsr, when QM2's channel initiator is killed
    and its queue manager starts a new one, then the new one shows the runmqlsr's receiver
    too (the runmqlsr is found in the queue-manager directory, not told at its start)."""
    site = pair.site
    _running(pair)
    old = site.chinit_pid("QM2")
    assert old is not None
    os.kill(old, signal.SIGKILL)
    wait_for(lambda: site.chinit_pid("QM2") not in (None, old), 60, "a new channel initiator")
    wait_for(lambda: "RUNNING" in _status_of(site, "QM2", pair.channel), 30,
             "the receiver shown by the new channel initiator")


def test_a_killed_runmqlsr_leaves_nothing_that_holds_up_display_chstatus(pair):
    """Given a runmqlsr of QM2 killed with SIGKILL (its socket left in the queue-manager
    directory), when QM2's operator displays channel status, then the answer comes at once
    (no channel status), the socket it left is removed and the error log says so."""
    site, lsr = pair.site, pair.lsr
    path = _socket_of(site, lsr)
    assert os.path.exists(path)
    lsr.proc.kill()
    lsr.proc.wait(10)
    began = time.monotonic()
    shown = _chstatus(site, "QM2", pair.channel)
    assert time.monotonic() - began < 2.0
    assert "AMQ8420I" in shown, shown
    assert not os.path.exists(path)
    assert "was left by a listener (runmqlsr) that has ended" in _log(pair, "QM2")


def _socket_of(site: Installation, lsr: Runmqlsr) -> str:
    """The runmqlsr's control socket in QM2's directory."""
    return os.path.join(site.qmdir("QM2"), f"runmqlsr.{lsr.proc.pid}.sock")


def _command_as_nobody(path: str, channel: str) -> str:
    def ask() -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            try:
                s.connect(path)
            except PermissionError:
                return "mode"
            try:
                s.sendall(handoff._frame(b"C", {"command": "STOP", "channel": channel}))
                s.settimeout(10)
                return "closed" if s.recv(100) == b"" else "answered"
            except (ConnectionResetError, BrokenPipeError):
                return "closed"
    return as_nobody(ask)


@pytest.mark.skipif(os.geteuid() != 0, reason="connecting as another user needs root")
def test_only_the_queue_managers_user_may_ask_a_runmqlsr(pair):
    """Given a runmqlsr of QM2 serving a receiver, when a process of another user connects
    to its control socket, then the socket's mode (0600) refuses it; and were the mode
    opened to everyone, the runmqlsr reads the peer's user id (SO_PEERCRED), refuses it
    without a command carried out (AMQ9999E names the user id), and the receiver runs on.
    (Run as root: the other user is nobody; the socket is reached through a hard link.)"""
    site, lsr, channel = pair.site, pair.lsr, pair.channel
    _running(pair)
    path = _socket_of(site, lsr)
    where = tempfile.mkdtemp()
    os.chmod(where, 0o755)
    link = os.path.join(where, "lsr.sock")
    os.link(path, link)
    try:
        assert _command_as_nobody(link, channel) == "mode"
        os.chmod(path, 0o666)
        assert _command_as_nobody(link, channel) == "closed"
        wait_for(lambda: f"from user id {NOBODY} was refused" in lsr.output(), 10)
    finally:
        os.chmod(path, 0o600)
        os.unlink(link)
        os.rmdir(where)
    assert _status_of(site, "QM2", channel) == ["RUNNING"]
