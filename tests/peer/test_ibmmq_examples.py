"""IBM's ``ibmmq`` package's programs run unchanged on mqpy: the programs of
examples/ibmmq (put/get, browse, a PCF inquiry, begin/commit; each starts with ``import
ibmmq``) run as they are, with ``ibmmq`` resolved to mqpy by a three-line module (as
tests/peer/pymqi_suite.py resolves pymqi), against a queue manager started by strmqm: over a
bindings connection, and over a client connection (a listener and a SVRCONN channel with
CONNAUTH checking the user's password)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from mqpy.security.users import UserFile, users_path
from tests.support.installation import Installation, cli
from tests.support.ports import free_port

pytestmark = pytest.mark.timeout(300)

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples", "ibmmq")
QM = "QM1"
PASSWORD = "passw0rd"
#: ``import ibmmq`` is mqpy, ibmmq.CMQC (...) are mqpy's modules: nothing is added
SHIM = """import sys, mqpy
sys.modules.update({"ibmmq." + m: getattr(mqpy, m) for m in ("CMQC", "CMQCFC", "CMQXC", "CMQSTRC")})
sys.modules[__name__] = mqpy
"""
SETUP = """\
DEFINE QLOCAL(DEV.QUEUE.1) MAXDEPTH(5000)
DEFINE CHANNEL(DEV.APP.SVRCONN) CHLTYPE(SVRCONN)
SET CHLAUTH(DEV.APP.SVRCONN) TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) CHCKCLNT(REQUIRED)
SET CHLAUTH(DEV.APP.SVRCONN) TYPE(BLOCKUSER) USERLIST('nobody')
DEFINE LISTENER(DEV.LISTENER.TCP) TRPTYPE(TCP) IPADDR('127.0.0.1') PORT({port}) CONTROL(MANUAL)
START LISTENER(DEV.LISTENER.TCP)
"""


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def installation(tmp_path_factory) -> Iterator[tuple[Installation, int, str]]:
    """QM1 created and started by strmqm with its channel initiator, user ``admin`` (mqm)
    with a password, DEV.QUEUE.1, DEV.APP.SVRCONN and a listener on a free port; the
    three-line ``ibmmq`` module in a directory of its own. Every process is killed at the
    end."""
    root = tmp_path_factory.mktemp("ibmmq-examples")
    shim = root / "shim"
    shim.mkdir()
    (shim / "ibmmq.py").write_text(SHIM)
    inst = Installation(str(root / "data"))
    inst.env.pop("MQPY_NO_CHINIT", None)
    port = free_port()
    try:
        assert inst.run("crtmqm", QM).returncode == 0
        assert inst.run("strmqm", QM).returncode == 0
        UserFile(users_path(inst.qmdir(QM))).add("admin", PASSWORD, ("mqm",))
        proc = cli(inst, "runmqsc", "runmqsc", QM, stdin=SETUP.format(port=port))
        assert proc.returncode == 0, proc.stdout + proc.stderr
        deadline = time.monotonic() + 30
        while not _listening(port):
            assert time.monotonic() < deadline, "the listener did not start"
            time.sleep(0.1)
        yield inst, port, str(shim)
    finally:
        inst.run("endmqm", "-i", QM, timeout=30)
        inst.kill_all()


def run_example(installation, program: str, mode: str) -> list[str]:
    """The output lines of examples/ibmmq/<program> run unchanged, over ``mode``."""
    inst, port, shim = installation
    env = {**inst.env, "MQ_QMGR": QM, "MQ_QUEUE": "DEV.QUEUE.1",
           "PYTHONPATH": os.pathsep.join(filter(None, [shim, os.environ.get("PYTHONPATH")]))}
    if mode == "client":
        env.update(MQ_CHANNEL="DEV.APP.SVRCONN", MQ_CONN_INFO=f"127.0.0.1({port})",
                   MQ_USER="admin", MQ_PASSWORD=PASSWORD)
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, program)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.splitlines()


MODES = ("bindings", "client")


def test_the_examples_start_with_import_ibmmq():
    """Given examples/ibmmq, then it holds the four programs, each an ``import ibmmq``
    program (no mqpy in it)."""
    programs = sorted(p for p in os.listdir(EXAMPLES) if p.endswith(".py"))
    assert programs == ["async_put_stat.py", "begin_commit.py", "browse.py", "pcf_inquiry.py",
                        "put_get.py"]
    for program in programs:
        with open(os.path.join(EXAMPLES, program)) as f:
            text = f.read()
        assert "\nimport ibmmq\n" in text and "mqpy" not in text


@pytest.mark.parametrize("mode", MODES)
def test_put_get(installation, mode):
    """Given put_get.py, then it puts a text message and gets it back by its MsgId."""
    assert run_example(installation, "put_get.py", mode) == [
        "Put a message, MsgId set by the queue manager: True",
        "Got: Hello from an ibmmq program", "Format: MQSTR", "Done."]


@pytest.mark.parametrize("mode", MODES)
def test_browse(installation, mode):
    """Given browse.py, then it browses its three messages in order, sees the depth 3,
    then removes them."""
    assert run_example(installation, "browse.py", mode) == [
        "Browsed 1: message 1 (priority 0)", "Browsed 2: message 2 (priority 0)",
        "Browsed 3: message 3 (priority 0)", "No more messages.", "Current depth: 3",
        "Removed: 3"]


@pytest.mark.parametrize("mode", MODES)
def test_pcf_inquiry(installation, mode):
    """Given pcf_inquiry.py, then the command server answers its inquiries: the queue
    manager's name and platform, DEV.QUEUE.1 empty, NO.SUCH.QUEUE unknown."""
    assert run_example(installation, "pcf_inquiry.py", mode) == [
        f"Queue manager: {QM}", "Platform is UNIX: True",
        "Queue DEV.QUEUE.1: depth 0 of 5000, reason MQRC_NONE",
        "NO.SUCH.QUEUE: MQRC_UNKNOWN_OBJECT_NAME"]


@pytest.mark.parametrize("mode", MODES)
def test_begin_commit(installation, mode):
    """Given begin_commit.py, then MQBEGIN answers as for its connection, the put backed
    out is gone and the committed one is got."""
    begin = ("MQBEGIN: only MQ resources take part in the unit of work" if mode == "bindings"
             else "MQBEGIN is not available to a client: the first syncpoint call starts "
                  "the unit")
    assert run_example(installation, "begin_commit.py", mode) == [
        begin, "After backout: MQRC_NO_MSG_AVAILABLE", "After commit: second, committed"]


@pytest.mark.parametrize("mode", MODES)
def test_async_put_stat(installation, mode):
    """Given async_put_stat.py, then its three asynchronous puts return with a MsgId each,
    MQSTAT counts three successes and no error, and the messages are there to get."""
    assert run_example(installation, "async_put_stat.py", mode) == [
        *[f"Put {n} returned, MsgId made before the queue manager answered: True"
          for n in (1, 2, 3)],
        "MQSTAT: succeeded 3 warnings 0 failed 0 reason MQRC_NONE",
        "Got: asynchronous 1, asynchronous 2, asynchronous 3"]
