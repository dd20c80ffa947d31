"""Fixtures for the service tests, one set for every file: an embedded queue manager
(``qmgr``), its MQSC processor (``proc``) and a PCF administrator through its command server
(``admin``); an installation whose queue managers strmqm starts (``install``); small Python
programs a service runs (sys.executable); and a teardown that ends, by pid, every process a
test started (the programs record their pid in a file)."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from mqpy import services
from mqpy.cmdserver import start_command_server, stop_command_server
from mqpy.mqsc.dump import parse_items
from mqpy.mqsc.processor import MQSCProcessor
from tests.support.embedded import administered
from tests.support.embedded import mqsc_lines as run  # noqa: F401 - its tests import it
from tests.support.installation import Installation
from tests.support.pcf import Admin

#: a server: records its pid and arguments, writes a line to stdout and stderr, sleeps
SERVER = """\
import os, signal, sys, time
if os.environ.get("SVC_IGNORE_TERM"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if os.environ.get("SVC_CONNECT"):  # an application of the queue manager, as runmqtrm is
    import mqpy
    qm = mqpy.connect(os.environ["SVC_CONNECT"])
pidfile = sys.argv[1]
with open(pidfile + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.replace(pidfile + ".tmp", pidfile)
print("out", *sys.argv[2:], flush=True)
print("err", os.environ.get("SVC_COLOUR", ""), file=sys.stderr, flush=True)
time.sleep(float(os.environ.get("SVC_SLEEP", "120")))
"""

#: a stop program: records its arguments in a file, then sends SIGTERM to the pid given
STOPPER = """\
import os, signal, sys
with open(sys.argv[1], "w") as f:
    f.write(" ".join(sys.argv[2:]))
os.kill(int(sys.argv[2]), signal.SIGTERM)
"""

#: a stop program that ends only once a file exists (and stops nothing)
HOLD = """\
import os, sys, time
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
"""

#: a command: appends its arguments to a file
COMMAND = """\
import sys
with open(sys.argv[1], "a") as f:
    f.write(" ".join(sys.argv[2:]) + "\\n")
"""



def read_pid(path: str) -> int | None:
    try:
        with open(path) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def alive(pid: int) -> bool:
    """Running (a zombie, ended but not yet waited for by its parent, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


class Programs:
    """The test's programs in a directory, and the pid files they write."""

    def __init__(self, directory: str) -> None:
        self.dir = directory
        for name, text in (("server.py", SERVER), ("stopper.py", STOPPER),
                           ("command.py", COMMAND), ("hold.py", HOLD)):
            with open(os.path.join(directory, name), "w") as f:
                f.write(text)
        self.python = sys.executable

    def path(self, name: str) -> str:
        return os.path.join(self.dir, name)

    def pidfiles(self) -> list[str]:
        return [os.path.join(self.dir, n) for n in os.listdir(self.dir) if n.endswith(".pid")]

    def kill_all(self, extra: set[int] = frozenset()) -> None:  # type: ignore[assignment]
        pids = {p for f in self.pidfiles() if (p := read_pid(f))} | set(extra)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture
def programs(tmp_path) -> Programs:
    directory = tmp_path / "programs"
    directory.mkdir()
    return Programs(str(directory))


@pytest.fixture
def qmgr(tmp_path, programs):
    with administered("QM1", str(tmp_path / "data")) as made:
        runner = services.runner_for(made[1])
        try:
            yield made
        finally:
            programs.kill_all(set(runner.children))


@pytest.fixture
def proc(qmgr) -> MQSCProcessor:
    return MQSCProcessor(qmgr[1])


@pytest.fixture
def admin(qmgr) -> Admin:
    """PCF requests to the embedded queue manager's command server, and their replies."""
    qm, _, root = qmgr
    start_command_server("QM1", root)
    yield Admin(qm)
    stop_command_server("QM1", root)


@pytest.fixture
def install(tmp_path, programs, monkeypatch) -> Installation:
    """A data path whose queue managers strmqm starts (tests.daemon's Installation); its
    daemons, channel initiators and the test's programs are killed at teardown."""
    inst = Installation(str(tmp_path / "inst"))
    os.makedirs(inst.root)
    monkeypatch.setenv("MQPY_DATA_PATH", inst.root)
    try:
        yield inst
    finally:
        inst.kill_all()
        programs.kill_all()


def attrs_of(lines: list[str]) -> dict[str, str | None]:
    """KEYWORD -> value of one DISPLAY's attribute lines, read as dmpmqcfg reads them (a
    blank value is " ")."""
    out: dict[str, str | None] = {}
    for line in lines:
        for key, value in parse_items(line):
            out[key] = " " if value == "" else value
    return out


def errlog(root: str) -> str:
    try:
        with open(os.path.join(root, "qmgrs", "QM1", "errors", "AMQERR01.LOG")) as f:
            return f.read()
    except OSError:
        return ""
