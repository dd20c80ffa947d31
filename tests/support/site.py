"""A queue manager started by strmqm with its channel initiator, for the security wiring tests.

Set up as an operator would: crtmqm, strmqm, runmqsc (a listener on a free 127.0.0.1 port, a
SVRCONN, a queue), and users in the queue manager's user file (what ``mqpyuser`` writes).
Daemons are stopped by pid at teardown (``tests.support.installation.Installation``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import mqpy
from mqpy import config
from tests.support.daemon_pair import mqsc_here
from tests.support.installation import Installation
from tests.support.ports import free_port

if TYPE_CHECKING:
    import trustme

QM = "QMS"
CHANNEL = "APP.SVRCONN"
QUEUE = "APP.Q"
ALICE, ALICE_PW = "alice", "alice-secret"
_RUNMQSC = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
            "runmqsc.main(args=sys.argv[1:], prog_name='runmqsc')")


#: MQSC that lets the tests, which run as the installation's owner, connect as clients of
#: CHANNEL without a password: the default back-stop rule blocks privileged users there
ADMIT_OWNER = (f"SET CHLAUTH({CHANNEL}) TYPE(BLOCKUSER) USERLIST('nobody')\n"
               "ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) CHCKCLNT(NONE)\n"
               "REFRESH SECURITY TYPE(CONNAUTH)\n")


def key_repository(path: str, ca: trustme.CA, leaf: trustme.LeafCert | None) -> str:
    """A key repository directory as SSLKEYR / an SCO's KeyRepository name it: the CA's
    certificate, and ``leaf``'s chain and private key when given."""
    os.makedirs(path, exist_ok=True)
    ca.cert_pem.write_to_path(os.path.join(path, "ca.pem"))
    if leaf is not None:
        with open(os.path.join(path, "cert.pem"), "wb") as f:
            for blob in leaf.cert_chain_pems:
                f.write(blob.bytes())
        leaf.private_key_pem.write_to_path(os.path.join(path, "key.pem"))
    return path


#: user and group nobody, the other user of the tests that run as root
NOBODY = 65534


def as_nobody(action: Callable[[], str]) -> str:
    """``action()`` in a child process of user and group nobody, forked (no exec: the
    interpreter may not be readable by nobody; what it imports late must be imported
    already): what it returns, or the exception it raised as ``"Name: text"``."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        outcome = "error"
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            outcome = action()
        except BaseException as e:  # noqa: BLE001 - told to the parent
            outcome = f"{type(e).__name__}: {e}"
        finally:
            os.write(write_end, outcome.encode()[:4096])
            os._exit(0)
    os.close(write_end)
    try:
        return os.read(read_end, 4096).decode()
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)



class Site:
    def __init__(self, root: str, channels: dict[str, str] | None = None) -> None:
        """``channels``: qm.ini Channels stanza values written before strmqm (say
        MQIBindType=FASTPATH)."""
        self.inst = Installation(root)
        self.inst.env.pop("MQPY_NO_CHINIT", None)
        self.port = free_port()
        self.channels = channels or {}

    @property
    def qmdir(self) -> str:
        return self.inst.qmdir(QM)

    @property
    def conn_info(self) -> str:
        return f"127.0.0.1({self.port})"

    def start(self) -> Site:
        assert self.inst.run("crtmqm", QM).returncode == 0
        for key, value in self.channels.items():
            config.set_channels_value(QM, key, value, self.inst.root)
        proc = self.inst.run("strmqm", QM)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        self.mqsc_here(f"""
DEFINE LISTENER(APP.LSTR) TRPTYPE(TCP) PORT({self.port}) IPADDR(127.0.0.1) CONTROL(QMGR)
START LISTENER(APP.LSTR)
DEFINE CHANNEL({CHANNEL}) CHLTYPE(SVRCONN)
DEFINE QLOCAL({QUEUE})
""")
        from mqpy.security.users import UserFile, users_path

        users = UserFile(users_path(self.qmdir))
        users.add(ALICE, ALICE_PW)
        users.add("bob", None, ["apps"])
        self._wait_listening()
        return self

    def _wait_listening(self, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("the listener did not start")

    def stop(self) -> None:
        """endmqm -i, then whatever is left is killed by pid (daemon and channel initiator),
        even when endmqm fails or times out."""
        try:
            self.inst.run("endmqm", "-i", QM)
        except subprocess.TimeoutExpired:
            pass
        finally:
            self.inst.kill_all()

    def mqsc(self, script: str, *, ok: bool = True) -> str:
        proc = subprocess.run([sys.executable, "-c", _RUNMQSC, QM], input=script, text=True,
                              capture_output=True, env=self.inst.env, timeout=120)
        if ok:
            assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    def mqsc_here(self, script: str, *, ok: bool = True) -> str:
        """``mqsc``'s answer from runmqsc's own code run in this process (no interpreter
        for each script: ``tests.support.daemon_pair.mqsc_here``)."""
        proc = mqsc_here(self.inst, QM, script)
        if ok:
            assert proc.returncode == 0, proc.stdout
        return proc.stdout

    def bindings(self, user: str | None = None, password: str | None = None
                 ) -> mqpy.QueueManager:
        qm = mqpy.QueueManager(None)
        qm.connect(QM, data_path=self.inst.root, user=user, password=password)
        return qm

    def client(self, user: str | None = None, password: str | None = None,
               channel: str = CHANNEL) -> mqpy.QueueManager:
        return mqpy.connect(QM, channel, self.conn_info, user=user, password=password)

    def _log_text(self) -> str:
        path = os.path.join(self.qmdir, "errors", "AMQERR01.LOG")
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def mark(self) -> int:
        """Remember where AMQERR01.LOG ends now: ``wait_for_log`` then looks only at what is
        written after it (a shared site's log holds earlier tests' entries too)."""
        self._mark = len(self._log_text())
        return self._mark

    def errors(self, since: int = 0) -> str:
        """AMQERR01.LOG from ``since`` on, line wrapping undone (white space runs made one)."""
        text = self._log_text()
        return " ".join(text[since if since <= len(text) else 0:].split())

    def wait_for_log(self, text: str, timeout: float = 10, since: int | None = None) -> str:
        """The log written since ``since`` (default: the last ``mark``), once it holds
        ``text`` or ``timeout`` passed."""
        start = getattr(self, "_mark", 0) if since is None else since
        deadline = time.monotonic() + timeout
        while True:
            log = self.errors(start)
            if text in log or time.monotonic() > deadline:
                return log
            time.sleep(0.05)
