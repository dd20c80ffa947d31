"""pymqi's own test suite run against mqpy (``make compat``).

The queue manager is set up as pymqi's CI sets up IBM's developer container: queue manager
MQTEST, users ``admin`` (group mqm) and ``app`` (group mqclient) with the container's password,
the container's MQSC (``container-setup.mqsc``: DEV.* queues and channels, CONNAUTH with
CHCKCLNT(REQDADM), CHLAUTH and authority records) with its listener on a free 127.0.0.1 port,
and the environment of pymqi's ``tox -e docker``. The test files are read from
``../shared/peer-tests/pymqi/tests`` beside the repository, never copied into it; ``import
pymqi`` is resolved to mqpy by a module written to a temporary directory at run time. Every
process started here is stopped by pid at the end.

The result line counts the failures outside the files of ``EXCEPTIONS`` (features mqpy does
not have yet, or IBM's own tools; their failures are counted on the line before it). Exit
status: 0 when there are none, 1 otherwise; 0 with a message when the peer tests are absent.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import Counter

from mqpy.security.users import UserFile, users_path
from tests.support.installation import Installation
from tests.support.ports import free_port

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER = os.path.join(os.path.dirname(REPO), "shared", "peer-tests", "pymqi")
QM = "MQTEST"
PASSWORD = "passw0rd"
#: the developer container's users and their groups
USERS = {"admin": ("mqm",), "app": ("mqclient",)}
#: test_tls.py builds CMS key stores with IBM's runmqakm
EXCEPTIONS = ("test_tls.py",)
OUTCOMES = ("passed", "failed", "error", "skipped")

#: ``import pymqi`` is mqpy, and pymqi.CMQC (...) are mqpy's modules: nothing is added
SHIM = '''"""pymqi resolved to mqpy."""
import sys

import mqpy

for _name in ("CMQC", "CMQCFC", "CMQXC", "CMQZC"):
    sys.modules["pymqi." + _name] = getattr(mqpy, _name)
sys.modules[__name__] = mqpy
'''


def environment(port: int, data_path: str, shim: str) -> dict[str, str]:
    """pymqi's ``[testenv]`` and ``[testenv:docker]`` settings, pointed at this listener."""
    env = {**os.environ, "MQPY_DATA_PATH": data_path, "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [shim, os.environ.get("PYTHONPATH")]))}
    env.pop("MQPY_NO_CHINIT", None)
    env.update({
        "PYMQI_TEST_QM_NAME": QM, "PYMQI_TEST_QM_HOST": "127.0.0.1",
        "PYMQI_TEST_QM_TRANSPORT": "TCP", "PYMQI_TEST_QM_PORT": str(port),
        "PYMQI_TEST_QM_CHANNEL": "DEV.ADMIN.SVRCONN", "PYMQI_TEST_QM_USER": "admin",
        "PYMQI_TEST_QM_PASSWORD": PASSWORD, "PYMQI_TEST_QM_APP_CHANNEL": "DEV.APP.SVRCONN",
        "PYMQI_TEST_QM_APP_USER": "app", "PYMQI_TEST_QM_APP_PASSWORD": PASSWORD,
        "PYMQI_TEST_QM_CONN_AUTH_USE_PW": "REQUIRED",
    })
    return env


def start_queue_manager(inst: Installation, port: int) -> None:
    """crtmqm, strmqm, the container's users, then the container's MQSC."""
    inst.env.pop("MQPY_NO_CHINIT", None)  # the listener and SVRCONNs are the chinit's
    _check(inst.run("crtmqm", QM))
    _check(inst.run("strmqm", QM))
    users = UserFile(users_path(inst.qmdir(QM)))
    for name, groups in USERS.items():
        users.add(name, PASSWORD, groups)
    with open(os.path.join(PEER, "container-setup.mqsc")) as f:
        script = f.read().replace("PORT(@PORT@)", f"PORT({port}) IPADDR(127.0.0.1)")
    proc = subprocess.run([sys.executable, "-c", _RUNMQSC, QM], input=script, text=True,
                          capture_output=True, env=inst.env, timeout=120)
    refused = refused_commands(proc.stdout)
    if proc.returncode not in (0, RUNMQSC_SOME_FAILED) or \
            any(not command.startswith(UNBUILT) for command in refused):
        _check(proc)
    for command in refused:
        print(f"make compat: not set up (publish/subscribe is not built): {command}")
    _wait_listening(port)


def refused_commands(output: str) -> list[str]:
    """The MQSC commands of runmqsc's ``output`` answered by an error message."""
    refused, command = [], ""
    for line in output.splitlines():
        number, colon, text = line.partition(" : ")
        if colon and number.strip().isdigit():
            command = text
        elif re.match(r"AMQ\d{4}[ES]:", line) and command:
            refused.append(command)
    return refused


#: runmqsc's exit status when some commands failed
RUNMQSC_SOME_FAILED = 10
#: commands of the container's MQSC that need publish/subscribe, which mqpy does not have
UNBUILT = ("DEFINE TOPIC",)
_RUNMQSC = ("import sys; from mqpy_cli.runmqsc import runmqsc; "
            "runmqsc.main(args=sys.argv[1:], prog_name='runmqsc')")


def _check(proc: subprocess.CompletedProcess) -> None:
    if proc.returncode != 0:
        raise SystemExit(f"make compat: set-up failed ({proc.args[-2:]}):\n"
                         f"{proc.stdout}{proc.stderr}")


def _wait_listening(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit("make compat: the listener did not start") from None
            time.sleep(0.1)


def run_tests(env: dict[str, str], tmp: str, args: list[str]) -> str:
    """pytest over the peer test files, its report as JUnit XML; the path of the report."""
    ini = os.path.join(tmp, "pytest.ini")
    with open(ini, "w") as f:
        f.write("[pytest]\njunit_family = xunit1\n")
    report = os.path.join(tmp, "report.xml")
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", ini,
                    "--rootdir", os.path.join(PEER, "tests"), "--timeout", "120", "--tb=line", "-rfE",
                    f"--junitxml={report}", *(args or [os.path.join(PEER, "tests")])],
                   cwd=os.path.join(PEER, "tests"), env=env, timeout=1800)
    return report


def outcomes(report: str) -> dict[str, Counter]:
    """Per test file, how many tests passed, failed, errored and were skipped."""
    per_file: dict[str, Counter] = {}
    for case in ET.parse(report).iter("testcase"):
        name = os.path.basename(case.get("file") or case.get("classname").split(".")[0] + ".py")
        outcome = "passed"
        for child, tag in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
            if case.find(child) is not None:
                outcome = tag
                break
        per_file.setdefault(name, Counter())[outcome] += 1
    return per_file


def summary(per_file: dict[str, Counter]) -> tuple[str, int, int]:
    """The result line (every file's passes and skips, the failures outside
    ``EXCEPTIONS``, errors counted as failures), those failures, and how many failed in
    ``EXCEPTIONS``."""
    total = sum(per_file.values(), Counter())
    allowed = sum(c["failed"] + c["error"] for name, c in per_file.items()
                  if name in EXCEPTIONS)
    failed = total["failed"] + total["error"] - allowed
    line = f"pymqi: {total['passed']} passed, {failed} failed, {total['skipped']} skipped"
    return line, failed, allowed


def main(args: list[str]) -> int:
    if not os.path.isdir(os.path.join(PEER, "tests")):
        print(f"make compat: skipped: pymqi's tests are not at {PEER}")
        return 0
    with tempfile.TemporaryDirectory(prefix="mqpy-compat-") as tmp:
        data, shim = os.path.join(tmp, "data"), os.path.join(tmp, "shim")
        os.makedirs(shim)
        with open(os.path.join(shim, "pymqi.py"), "w") as f:
            f.write(SHIM)
        inst, port = Installation(data), free_port()
        try:
            start_queue_manager(inst, port)
            report = run_tests(environment(port, data, shim), tmp, args)
        finally:
            try:
                inst.run("endmqm", "-i", QM, timeout=30)
            except subprocess.TimeoutExpired:
                pass
            inst.kill_all()
        per_file = outcomes(report)
    for name, counts in sorted(per_file.items()):
        note = " (allowed to fail)" if name in EXCEPTIONS else ""
        print(f"  {name}: " + ", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts[o])
              + note)
    line, failed, allowed = summary(per_file)
    print(f"  {allowed} more failed in {', '.join(EXCEPTIONS)}, which are allowed to fail")
    print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
