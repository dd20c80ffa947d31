"""Hostile peers of the channel-command sockets (``lsrcontrol``, ``handoff``'s frames): a
process of the queue manager's own user, or a member of its group that can write in the
queue-manager directory, puts a socket of its own where the channel initiator looks for
runmqlsr processes (``runmqlsr.<pid>.sock``), or connects to a runmqlsr's control socket or
the daemon's ``qm.fastpath.sock``, and sends what it likes.

Whatever it sends, DISPLAY CHSTATUS and STOP CHANNEL are answered (within a few seconds,
never the command server's timeout), nothing it sends is shown as a channel's status, the
channel initiator, the runmqlsr and the daemon's client host serve on, and a socket that is
not the queue manager's user's own (a symbolic link in the directory) is never asked. Real
sockets, a queue manager started by strmqm with its channel initiator and a runmqlsr."""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator

import pytest
import trio

from mqpy.bindings import bind_address
from mqpy_chinit import handoff
from tests.support.runmqlsr import Runmqlsr
from tests.support.site import NOBODY, QM
from tests.support.site_here import here_started_site
from tests.support.waiting import wait_for

pytestmark = pytest.mark.timeout(300)

_LEN = struct.Struct(">I")
#: JSON nested deeper than the parser's recursion limit
_NESTED = b"[" * 200_000


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A queue manager started by strmqm with its channel initiator (and its client host:
    MQIBindType=FASTPATH, crtmqm's), and a runmqlsr of its own."""
    yield from here_started_site(str(tmp_path_factory.mktemp("hostile_lsr") / "data"))


@pytest.fixture(scope="module")
def runmqlsr(site, tmp_path_factory) -> Iterator[_Runmqlsr]:
    lsr = _Runmqlsr(site, str(tmp_path_factory.mktemp("lsr_out") / "runmqlsr.out"))
    try:
        yield lsr
    finally:
        lsr.end()


class _Runmqlsr(Runmqlsr):
    """A runmqlsr of the site's queue manager (its output in a file), with its control
    socket."""

    def __init__(self, site, out: str) -> None:
        super().__init__(site.inst, out, qmgr=QM)
        self.path = os.path.join(site.qmdir, f"runmqlsr.{self.proc.pid}.sock")
        wait_for(lambda: self.alive() and os.path.exists(self.path), 60,
                 "runmqlsr's control socket")

    def alive(self) -> bool:
        assert self.proc.poll() is None, self.output()
        return True

    def status(self) -> dict:
        """Its answer to the channel initiator's STATUS, asked as the channel initiator asks."""
        return trio.run(handoff.ask, self.path, {"command": "STATUS", "channel": "*"})


class _FakeListener:
    """A socket of the test's own at ``path`` that answers every connection with
    ``behave(conn)``; counts the connections it was asked on."""

    def __init__(self, path: str, behave: Callable[[socket.socket], None]) -> None:
        self.path, self.behave, self.asked = path, behave, 0
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        with bind_address(path) as address:
            self.sock.bind(address)
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.stopping = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopping:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.asked += 1
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(30)
            self.behave(conn)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stopping = True
        self.sock.close()
        self.thread.join(5)
        for path in (self.path,):
            if os.path.lexists(path):
                os.unlink(path)


def _read_command(conn: socket.socket) -> None:
    """Read the channel initiator's command frame (its kind, header and body)."""
    data = b""
    while len(data) < 5:
        data += conn.recv(65536)
    need = 5 + _LEN.unpack_from(data, 1)[0] + 4
    while len(data) < need:
        data += conn.recv(65536)
    need += _LEN.unpack_from(data, need - 4)[0]
    while len(data) < need:
        data += conn.recv(65536)


def _answering(payload: bytes) -> Callable[[socket.socket], None]:
    def behave(conn: socket.socket) -> None:
        _read_command(conn)
        conn.sendall(_LEN.pack(len(payload)) + payload)
        time.sleep(0.5)
    return behave


def _fake_path(site, pid: int) -> str:
    return os.path.join(site.qmdir, f"runmqlsr.{pid}.sock")


def _display(site) -> tuple[str, float]:
    began = time.monotonic()
    out = site.mqsc_here("DISPLAY CHSTATUS(*) ALL\n", ok=False)
    return out, time.monotonic() - began


def _answered(out: str) -> bool:
    """DISPLAY CHSTATUS answered by the channel initiator (rows, or none found), not
    "the command server's request timed out"."""
    return "AMQ8420I" in out or "AMQ8417I" in out


def _chinit_out(site) -> str:
    try:
        with open(os.path.join(site.qmdir, "errors", "runmqchi.out"), errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


@pytest.fixture
def chinit(site) -> Iterator[int]:
    """The channel initiator's pid; at the end, checked to be the same process (not one the
    daemon started again after a fault), serving, with no traceback written."""
    pid = site.inst.chinit_pid(QM)
    assert pid is not None
    before = len(_chinit_out(site))
    yield pid
    assert "Traceback" not in _chinit_out(site)[before:], _chinit_out(site)[before:]
    assert site.inst.chinit_pid(QM) == pid, "the channel initiator was started again"
    out, _took = _display(site)
    assert _answered(out), out


@pytest.mark.parametrize("payload", [
    _NESTED,
    b'{"ok": true, "status": 5}',
    b'{"ok": true, "status": [{"CHANNEL": "EVIL.ROW", "STATUS": {"RUNNING": [1]}}]}',
    b'{"ok": true, "status": [{"CHANNEL": "EVIL.ROW", "STATUS": "RUNNING", "X": [1]}]}',
    b'{"ok": true, "status": "EVIL.ROW"}',
    b'[1, 2]',
    b'\xff\xfe not json',
], ids=["nested", "status-int", "nested-value", "list-value", "status-str", "not-object",
        "not-json"])
def test_a_garbled_answer_from_a_listener_socket_is_left_out(site, chinit, payload):
    """Given a socket in the queue-manager directory named as a runmqlsr's that answers the
    channel initiator's STATUS with a garbled reply (JSON nested too deep, a status that is
    no list of rows, a row whose values are not values), when the operator displays channel
    status (twice), then each is answered, no row of the garbled reply is shown, and the
    channel initiator serves on."""
    fake = _FakeListener(_fake_path(site, 999_901), _answering(payload))
    try:
        for _ in range(2):
            out, _took = _display(site)
            assert _answered(out), out
            assert "EVIL.ROW" not in out, out
        assert fake.asked >= 1
    finally:
        fake.close()


def test_an_answer_of_a_huge_length_is_refused_unread(site, chinit):
    """Given a listener socket that answers STATUS with a length of almost 4 GiB and then
    streams bytes, when the operator displays channel status, then the channel initiator
    gives up on it at once (it reads little of what is streamed) and answers."""
    streamed = [0]

    def behave(conn: socket.socket) -> None:
        _read_command(conn)
        conn.sendall(_LEN.pack(0xFFFF_FFF0))
        chunk = b"x" * 65536
        conn.settimeout(20)
        try:
            while True:
                streamed[0] += conn.send(chunk)
        except OSError:
            pass

    fake = _FakeListener(_fake_path(site, 999_902), behave)
    try:
        out, took = _display(site)
        assert _answered(out), out
        assert took < 6, took
        time.sleep(0.5)
        assert streamed[0] < 4 << 20, f"{streamed[0]} bytes were read"
    finally:
        fake.close()


def test_a_silent_listener_socket_holds_commands_up_a_few_seconds_only(site, chinit):
    """Given a listener socket that takes the channel initiator's command and never answers,
    when the operator displays channel status and stops a channel, then each is answered in
    a few seconds (the channel initiator gives a runmqlsr seconds, not the command server's
    whole wait), and the log names the socket."""
    def behave(conn: socket.socket) -> None:
        _read_command(conn)
        time.sleep(25)

    fake = _FakeListener(_fake_path(site, 999_903), behave)
    try:
        out, took = _display(site)
        assert _answered(out), out
        assert took < 6.5, took
        began = time.monotonic()
        out = site.mqsc_here("STOP CHANNEL(SYSTEM.DEF.SVRCONN) MODE(FORCE)\n", ok=False)
        assert "AMQ" in out and "timed out" not in out, out
        assert time.monotonic() - began < 6.5
    finally:
        fake.close()


def test_a_symbolic_link_in_the_directory_is_never_asked(site, chinit, tmp_path):
    """Given a symbolic link named as a runmqlsr's socket in the queue-manager directory,
    pointing to a socket of the same user elsewhere (another queue manager's runmqlsr, say),
    when the operator displays channel status and stops a channel, then that socket is never
    asked (its rows are not shown, nothing is stopped there) and the commands are
    answered."""
    elsewhere = _FakeListener(str(tmp_path / "other.sock"), _answering(json.dumps(
        {"ok": True, "status": [{"CHANNEL": "EVIL.ROW", "STATUS": "RUNNING"}]}).encode()))
    link = _fake_path(site, 999_904)
    os.symlink(elsewhere.path, link)
    try:
        out, _took = _display(site)
        assert _answered(out) and "EVIL.ROW" not in out, out
        site.mqsc_here("STOP CHANNEL(SYSTEM.DEF.SVRCONN) MODE(FORCE)\n", ok=False)
        assert elsewhere.asked == 0
    finally:
        if os.path.lexists(link):
            os.unlink(link)
        elsewhere.close()


def _connect(path: str) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with bind_address(path) as address:
        s.connect(address)
    return s


def test_a_runmqlsr_serves_on_after_a_header_nested_too_deep(runmqlsr):
    """Given a runmqlsr, when a process of its user sends its control socket a command whose
    JSON header is nested too deep for the parser, then that connection is closed, and the
    runmqlsr answers the channel initiator's next STATUS."""
    with _connect(runmqlsr.path) as s:
        s.sendall(b"C" + _LEN.pack(len(_NESTED)) + _NESTED + _LEN.pack(0))
        s.settimeout(10)
        assert s.recv(100) == b""
    time.sleep(0.5)
    assert runmqlsr.alive()
    assert runmqlsr.status()["ok"]


def test_a_runmqlsr_drops_a_half_command_within_seconds(runmqlsr):
    """Given a runmqlsr, when a process sends half a command and stays silent, then the
    runmqlsr closes that connection within seconds, not the hand-off's ten."""
    with _connect(runmqlsr.path) as s:
        s.sendall(b"C" + _LEN.pack(100) + b"{")
        s.settimeout(20)
        began = time.monotonic()
        assert s.recv(100) == b""
        assert time.monotonic() - began < 6
    assert runmqlsr.status()["ok"]


def test_a_flood_of_silent_connections_keeps_no_command_out(runmqlsr):
    """Given a runmqlsr, when a process opens a hundred connections to its control socket
    and sends nothing on them, then the channel initiator's STATUS is still answered at
    once, and the runmqlsr serves on."""
    flood = []
    try:
        for _ in range(100):
            flood.append(_connect(runmqlsr.path))
        time.sleep(0.3)
        began = time.monotonic()
        assert runmqlsr.status()["ok"]
        assert time.monotonic() - began < 2
    finally:
        for s in flood:
            s.close()
    assert runmqlsr.alive()


def test_the_client_host_serves_on_after_a_header_nested_too_deep(site, chinit):
    """Given the daemon's client host (MQIBindType=FASTPATH), when a process of the queue
    manager's user sends ``qm.fastpath.sock`` a command whose JSON header is nested too deep,
    then that connection is closed, and clients still connect and the channel initiator's
    STATUS still reaches the host."""
    daemon = site.inst.pid(QM)
    with _connect(os.path.join(site.qmdir, handoff.SOCKET_NAME)) as s:
        s.sendall(b"C" + _LEN.pack(len(_NESTED)) + _NESTED + _LEN.pack(0))
        s.settimeout(10)
        assert s.recv(100) == b""
    qm = site.client()
    try:
        out, _took = _display(site)
        assert "CHANNEL(SYSTEM.DEF.SVRCONN)" in out or _answered(out), out
    finally:
        qm.disconnect()
    assert trio.run(handoff.ask, os.path.join(site.qmdir, handoff.SOCKET_NAME),
                    {"command": "STATUS", "channel": "*"})["ok"]
    assert site.inst.pid(QM) == daemon


@pytest.mark.skipif(os.geteuid() != 0, reason="a file of another user needs root")
def test_a_socket_file_of_another_user_is_never_asked(site, chinit):
    """Given a socket named as a runmqlsr's in the queue-manager directory whose file belongs
    to another user (nobody), when the operator displays channel status, then it is never
    asked, and the command is answered."""
    fake = _FakeListener(_fake_path(site, 999_905), _answering(json.dumps(
        {"ok": True, "status": [{"CHANNEL": "EVIL.ROW", "STATUS": "RUNNING"}]}).encode()))
    os.chown(fake.path, NOBODY, NOBODY)
    try:
        out, _took = _display(site)
        assert _answered(out) and "EVIL.ROW" not in out, out
        assert fake.asked == 0
    finally:
        fake.close()
