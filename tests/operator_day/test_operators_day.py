"""docs/operators-day.md is an operator's day, and stays true: every ``$`` command of its
```console blocks is run in order, as written, against a data path of its own, and what it
prints is checked against the lines the document shows after it (the rule the document
states: ``...`` alone on a line stands for any lines, ``<...>`` for any text within one;
port 1414 is replaced by a free port; a block marked ``console retry`` is run again, for up
to 30 seconds, until its output matches, as an operator re-runs DISPLAY CHSTATUS).
``amqsget`` is the sample itself, run from a script ahead on PATH that cuts its wait for a
further message from IBM's 15 seconds to AMQSGET_WAIT_MS: each of the day's three gets ends
by waiting that out, and what it prints is the same. Before it gets, that ``amqsget`` waits (up
to ARRIVE_FOR seconds) until the messages the document shows it getting can be browsed on
the queue, committed (one may still be crossing the channel), as an operator who has seen the
channel move them; so the sample's own wait is only for a further message, which never
comes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import attrs
import pytest

from tests.support.installation import Installation
from tests.support.ports import free_port

DOC = Path(__file__).resolve().parents[2] / "docs" / "operators-day.md"
PORT = "1414"
RETRY_FOR = 30.0
#: how long the messages an amqsget of the document gets are waited for before it runs
ARRIVE_FOR = 60.0
#: amqsget's wait for a further message here, once the messages it gets have arrived
AMQSGET_WAIT_MS = 1000
#: the environment variable that tells the amqsget here how many messages to wait for
EXPECT_VARIABLE = "OPERATORS_DAY_GETS"


@attrs.frozen
class Step:
    """One ``$`` command (with its here-document, if any) and the lines shown after it."""

    command: str
    expected: tuple[str, ...]
    retry: bool


def steps(text: str) -> list[Step]:
    """The document's commands in order, from its ```console blocks."""
    out: list[Step] = []
    for info, body in re.findall(r"^```(console[^\n]*)\n(.*?)^```", text, re.M | re.S):
        retry = "retry" in info.split()
        lines = body.splitlines()
        i = 0
        while i < len(lines):
            assert lines[i].startswith("$ "), f"not a command: {lines[i]!r}"
            command = [lines[i][2:]]
            i += 1
            if "<<EOF" in command[0]:
                while lines[i] != "EOF":
                    command.append(lines[i])
                    i += 1
                command.append(lines[i])
                i += 1
            expected = []
            while i < len(lines) and not lines[i].startswith("$ "):
                expected.append(lines[i])
                i += 1
            out.append(Step("\n".join(command), tuple(expected), retry))
    return out


def _squeeze(line: str) -> str:
    """A line with its runs of spaces made one (a substituted port widens a column)."""
    return " ".join(line.split())


def _line_pattern(line: str) -> re.Pattern[str]:
    parts = re.split(r"<\.\.\.>", _squeeze(line))
    return re.compile(".*".join(re.escape(p) for p in parts))


def matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` under the document's rule."""
    def at(e: int, a: int) -> bool:
        if e == len(expected):
            return a == len(actual)
        if expected[e] == "...":
            return any(at(e + 1, k) for k in range(a, len(actual) + 1))
        return a < len(actual) and \
            bool(_line_pattern(expected[e]).fullmatch(_squeeze(actual[a]))) \
            and at(e + 1, a + 1)
    return at(0, 0)


def test_the_document_has_the_days_commands():
    """Given the operator's day, then it runs the commands the day needs: two queue
    managers, MQSC, setmqaut, samples, the DLQ handler, a client, a restart and channel
    status."""
    commands = re.findall(r"[a-z]+", " ".join(s.command for s in steps(DOC.read_text())))
    for name in ("crtmqm", "strmqm", "runmqsc", "setmqaut", "amqsput", "amqsget", "runmqdlq",
                 "dspmq"):
        assert name in commands, name


@pytest.fixture
def installation(tmp_path):
    inst = Installation(str(tmp_path / "data"))
    os.makedirs(inst.root)
    yield inst
    for name in ("QM1", "QM2"):  # the daemons the document started, by pid
        pid = inst.pid(name)
        if pid:
            inst.pids.add(pid)
            inst.started.add(name)
    inst.kill_all()


def _amqsget_waiting_less(folder: Path) -> Path:
    """A folder holding an ``amqsget`` that runs the sample with AMQSGET_WAIT_MS, after
    browsing its queue until it holds the number of committed messages in EXPECT_VARIABLE
    (if set), or ARRIVE_FOR seconds have passed."""
    folder.mkdir()
    script = folder / "amqsget"
    script.write_text(f"#!{sys.executable}\n"
                      "import os, sys, time\n"
                      "import mqpy\n"
                      "from mqpy import CMQC\n"
                      "from mqpy_cli.samples import amqsget\n"
                      f"expect = int(os.environ.get({EXPECT_VARIABLE!r}, '0'))\n"
                      f"deadline = time.monotonic() + {ARRIVE_FOR}\n"
                      "if expect:\n"
                      "    qm = mqpy.connect(sys.argv[2])\n"
                      "    q = mqpy.Queue(qm, sys.argv[1], CMQC.MQOO_BROWSE)\n"
                      "    while True:\n"
                      "        seen, option = 0, CMQC.MQGMO_BROWSE_FIRST\n"
                      "        while True:\n"
                      "            try:\n"
                      "                q.get(None, mqpy.MD(), mqpy.GMO(Options=option))\n"
                      "            except mqpy.MQMIError as e:\n"
                      "                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:\n"
                      "                    raise\n"
                      "                break\n"
                      "            seen, option = seen + 1, CMQC.MQGMO_BROWSE_NEXT\n"
                      "        if seen >= expect or time.monotonic() > deadline:\n"
                      "            break\n"
                      "        time.sleep(0.1)\n"
                      "    q.close()\n"
                      "    qm.disconnect()\n"
                      f"amqsget.WAIT_MS = {AMQSGET_WAIT_MS}\n"
                      "amqsget.amqsget()\n")
    script.chmod(0o755)
    return folder


def _gets(command: str, expected: tuple[str, ...]) -> dict[str, str]:
    """For ``amqsget QUEUE QMGR``: EXPECT_VARIABLE, the number of messages the document shows
    it getting."""
    words = command.split()
    if words[0] != "amqsget" or len(words) != 3:
        return {}
    return {EXPECT_VARIABLE: str(sum(line.startswith("message <") for line in expected))}


def test_every_command_of_the_operators_day_prints_what_the_document_shows(installation,
                                                                           tmp_path):
    """Given an empty data path, when each command of docs/operators-day.md is run in
    order, then each prints what the document shows after it."""
    port = str(free_port())
    shim = _amqsget_waiting_less(tmp_path / "bin")
    env = {**installation.env,
           "PATH": f"{shim}:{Path(sys.executable).parent}:{os.environ['PATH']}"}
    env.pop("MQPY_NO_CHINIT", None)
    for step in steps(DOC.read_text()):
        command = step.command.replace(PORT, port)
        expected = tuple(e.replace(PORT, port) for e in step.expected)
        step_env = {**env, **_gets(command, expected)}
        deadline = time.monotonic() + (RETRY_FOR if step.retry else 0)
        while True:
            proc = subprocess.run(["bash", "-c", command], env=step_env, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=120)
            actual = (proc.stdout + proc.stderr).splitlines()
            if matches(expected, actual) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert matches(expected, actual), (
            f"$ {command}\n--- the document shows:\n" + "\n".join(expected)
            + "\n--- the command printed:\n" + "\n".join(actual))
