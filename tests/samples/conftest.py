"""A queue manager started by strmqm for the samples run as commands: bindings samples reach
it through its socket, client samples (amqsputc, ...) through a listener on a free
127.0.0.1 port and SAMP.SVRCONN, as an operator sets them up (crtmqm, strmqm, runmqsc, a
user in the user file for MQSAMP_USER_ID). Every process is killed at the end.

A sample runs as a subprocess, its console script's function called as the command calls
it (``sample``); a client sample's environment names no data path, so that nothing but the
channel can reach the queue manager."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import attrs
import pytest

import mqpy
from mqpy.security.users import UserFile, users_path
from tests.support.installation import Installation, cli
from tests.support.ports import free_port

QM = "SAMPQM"
CHANNEL = "SAMP.SVRCONN"
USER, PASSWORD = "sampuser", "samp-secret"
#: the objects the sample tests use; each test file its own queues
SETUP = """\
DEFINE QLOCAL(SAMP.PUT) MAXDEPTH(5000)
DEFINE QLOCAL(SAMP.BROWSE)
DEFINE QLOCAL(SAMP.AUTH)
DEFINE QLOCAL(SAMP.ECHO) SHARE
DEFINE QLOCAL(SAMP.INQ) SHARE
DEFINE QLOCAL(SAMP.SET) SHARE
DEFINE QLOCAL(SAMP.TARGET)
DEFINE QLOCAL(SAMP.REPLY)
DEFINE QLOCAL(SAMP.RUA)
DEFINE CHANNEL(SAMP.SVRCONN) CHLTYPE(SVRCONN)
SET CHLAUTH(SAMP.SVRCONN) TYPE(BLOCKUSER) USERLIST('nobody')
ALTER AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS) AUTHTYPE(IDPWOS) CHCKCLNT(OPTIONAL)
REFRESH SECURITY TYPE(CONNAUTH)
DEFINE LISTENER(SAMP.LISTENER) TRPTYPE(TCP) IPADDR('127.0.0.1') PORT({port}) CONTROL(MANUAL)
START LISTENER(SAMP.LISTENER)
"""
_RUN = ("import sys, importlib; m = importlib.import_module('mqpy_cli.samples.' + "
        "sys.argv.pop(1)); getattr(m, sys.argv.pop(1))()")
#: where each sample's console script is (module of mqpy_cli.samples, function)
SCRIPTS = {
    "amqsput": ("amqsput", "amqsput"), "amqsputc": ("amqsput", "amqsputc"),
    "amqsget": ("amqsget", "amqsget"), "amqsgetc": ("amqsget", "amqsgetc"),
    "amqsbcg": ("amqsbcg", "amqsbcg"), "amqsbcgc": ("amqsbcg", "amqsbcgc"),
    "amqsreq": ("amqsreq", "amqsreq"), "amqsreqc": ("amqsreq", "amqsreqc"),
    "amqspub": ("amqspub", "amqspub"), "amqspubc": ("amqspub", "amqspubc"),
    "amqssub": ("amqssub", "amqssub"), "amqssubc": ("amqssub", "amqssubc"),
    "amqsgbr": ("amqsgbr", "amqsgbr"), "amqsgbrc": ("amqsgbr", "amqsgbrc"),
    "amqsech": ("amqsech", "amqsech"), "amqsechc": ("amqsech", "amqsechc"),
    "amqsinq": ("amqsinq", "amqsinq"), "amqsinqc": ("amqsinq", "amqsinqc"),
    "amqsset": ("amqsset", "amqsset"), "amqssetc": ("amqsset", "amqssetc"),
    "amqscnxc": ("amqscnxc", "amqscnxc"),
    "amqsrua": ("amqsrua", "amqsrua"), "amqsruac": ("amqsrua", "amqsruac"),
}


@attrs.frozen
class Site:
    inst: Installation
    port: int

    @property
    def conname(self) -> str:
        return f"127.0.0.1({self.port})"

    @property
    def mqserver(self) -> str:
        return f"{CHANNEL}/TCP/{self.conname}"

    def env(self, client: bool = False, **extra: str) -> dict[str, str]:
        """The environment of a sample: the data path for bindings; for a client, MQSERVER
        and a data path with no queue manager in it."""
        env = {k: v for k, v in self.inst.env.items()
               if k not in ("MQSERVER", "MQCCDTURL", "MQ_CONNECT_TYPE", "MQSAMP_USER_ID",
                            "MQCHLLIB", "MQCHLTAB", "MQCLNTCF")}
        if client:
            env["MQPY_DATA_PATH"] = os.path.join(self.inst.root, "no-qmgrs-here")
            env["MQSERVER"] = self.mqserver
        env.update(extra)
        return env

    def connect(self) -> mqpy.QueueManager:
        """A bindings connection of this process to the queue manager."""
        qm = mqpy.QueueManager(None)
        qm.connect(QM, data_path=self.inst.root)
        return qm

    def mqsc(self, script: str) -> str:
        proc = cli(self.inst, "runmqsc", "runmqsc", QM, stdin=script)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout


def command(name: str, *args: str) -> list[str]:
    """The command line of sample ``name`` with ``args``."""
    module, function = SCRIPTS[name]
    return [sys.executable, "-c", _RUN, module, function, *args]


def sample(env: dict[str, str], name: str, *args: str, stdin: str = "",
           timeout: float = 120) -> subprocess.CompletedProcess:
    """Sample ``name`` run to its end, as an operator runs it."""
    return subprocess.run(command(name, *args), env=env, input=stdin, capture_output=True,
                          text=True, timeout=timeout)


def started(env: dict[str, str], name: str, *args: str) -> subprocess.Popen:
    """Sample ``name`` started, its standard input and output pipes (line buffered)."""
    return subprocess.Popen(command(name, *args), env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            bufsize=1)


def read_until(proc: subprocess.Popen, wanted: str, timeout: float = 60) -> list[str]:
    """The lines ``proc`` prints up to and including the first that starts with
    ``wanted``."""
    deadline = time.monotonic() + timeout
    lines: list[str] = []
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"ended before {wanted!r}: {lines} {proc.stderr.read()}")
        lines.append(line.rstrip("\n"))
        if line.startswith(wanted):
            return lines
    raise AssertionError(f"no {wanted!r} in {timeout} s: {lines}")


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Iterator[Site]:
    """SAMPQM started by strmqm with its channel initiator, the samples' queues, SAMP.SVRCONN
    and a listener; user ``sampuser`` (group mqm) with a password."""
    inst = Installation(str(tmp_path_factory.mktemp("samples") / "data"))
    inst.env.pop("MQPY_NO_CHINIT", None)
    inst.env["MQPY_MONINT"] = "1"  # resource statistics every second (amqsrua's tests)
    port = free_port()
    try:
        assert inst.run("crtmqm", QM).returncode == 0
        assert inst.run("strmqm", QM).returncode == 0
        UserFile(users_path(inst.qmdir(QM))).add(USER, PASSWORD, ("mqm",))
        here = Site(inst, port)
        here.mqsc(SETUP.format(port=port))
        deadline = time.monotonic() + 30
        while not _listening(port):
            assert time.monotonic() < deadline, "the listener did not start"
            time.sleep(0.1)
        yield here
    finally:
        inst.run("endmqm", "-i", QM, timeout=30)
        inst.kill_all()
