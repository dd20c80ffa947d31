"""Trace of embedded connections: strmqtrc and endmqtrc reach an application whose queue
manager runs in its own process, as they reach a bindings application (tests/daemon/
test_trace.py). The applications are real processes; the trace switch is the control file."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.system

_RUN = ("import sys; from mqpy_cli import trace; "
        "getattr(trace, sys.argv[1]).main(args=sys.argv[2:], prog_name=sys.argv[1])")

#: an embedded queue manager: puts and gets on Q1, says its pid, then on "again-traced" or
#: "again-untraced" (once its look at the control file says so) does it once more
APP = r"""
import os, sys, time
import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine.connection import Connection
qm = mqpy.embedded("EMB")
eng = inprocess.running("EMB")
if eng.lookup("QLOCAL", "Q1") is None:
    eng.define("QLOCAL", "Q1")
q = mqpy.Queue(qm, "Q1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
def work():
    q.put(b"traced", mqpy.MD(MsgId=b"TRACEME"))
    q.get()
    try:
        q.get()
    except mqpy.MQMIError:
        pass
    qm.commit()
work()
assert type(qm.connection()) is Connection  # the engine's own, traced or not
print(os.getpid(), flush=True)
wanted = sys.stdin.readline().strip()
if wanted.startswith("again"):
    # the watch thread's next look at the control file (once a second): waited for, with
    # a bound, rather than slept for
    from mqpy.trace import TRACER
    deadline = time.monotonic() + 30
    while TRACER.active != (wanted == "again-traced") and time.monotonic() < deadline:
        time.sleep(0.05)
    work()
q.close()
qm.disconnect()
"""


@pytest.fixture
def env(tmp_path):
    environ = dict(os.environ, MQPY_DATA_PATH=str(tmp_path))
    yield environ
    _cmd(environ, "endmqtrc", "-a")


def _cmd(env, name: str, *args: str) -> None:
    out = subprocess.run([sys.executable, "-c", _RUN, name, *args], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr


def _app(env) -> tuple[int, subprocess.Popen]:
    proc = subprocess.Popen([sys.executable, "-c", APP], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.strip().isdigit(), proc.stderr.read() if proc.poll() is not None else line
    return int(line), proc


def _finish(proc: subprocess.Popen, then: str) -> None:
    _out, err = proc.communicate(then + "\n", timeout=60)
    assert proc.returncode == 0, err


def _trace_file(env, pid: int) -> str:
    return os.path.join(env["MQPY_DATA_PATH"], "trace", f"AMQ{pid}.TRC")


def _calls(env, pid: int) -> list[dict]:
    with open(_trace_file(env, pid)) as f:
        return [json.loads(line) for line in f][1:]


def test_an_embedded_application_is_traced_until_endmqtrc(env):
    """Given strmqtrc -m EMB -t api -t parms, when an application with its queue manager
    EMB in its own process connects, opens, puts, gets and commits, then its AMQ<pid>.TRC
    holds those calls, entry and exit, with their parameters and reason codes (as a
    bindings application's do), and its handle is still the engine's connection; when
    endmqtrc -m EMB is issued while it runs, then its later calls add nothing.
    spec: operations-dlq-clusters 7.6"""
    _cmd(env, "strmqtrc", "-m", "EMB", "-t", "api", "-t", "parms")
    pid, proc = _app(env)
    try:
        records = _calls(env, pid)
        calls = [(r["k"], r["fn"]) for r in records]
        assert calls[:4] == [("{", "MQCONN"), ("}", "MQCONN"), ("{", "MQOPEN"), ("}", "MQOPEN")]
        opened = next(r for r in records if r["fn"] == "MQOPEN" and r["k"] == "}")
        assert opened["parms"]["Hobj"] > 0
        put = next(r for r in records if r["fn"] == "MQPUT" and r["k"] == "{")
        assert put["parms"]["MQMD.MsgId"] == "TRACEME" and put["parms"]["DataLength"] == 6
        gets = [r for r in records if r["fn"] == "MQGET" and r["k"] == "}"]
        assert [(g["cc"], g["rc"]) for g in gets] == [(0, 0), (2, 2033)]
        assert gets[0]["parms"]["DataLength"] == 6
        assert ("}", "MQCMIT") in calls
        _cmd(env, "endmqtrc", "-m", "EMB")
        _finish(proc, "again-untraced")
    finally:
        proc.kill()
    assert len(_calls(env, pid)) == len(records)


def test_an_embedded_application_of_another_queue_manager_writes_no_trace(env):
    """Given strmqtrc -m OTHER, when an application with its queue manager EMB in its own
    process makes its calls, then it writes no trace file."""
    _cmd(env, "strmqtrc", "-m", "OTHER")
    pid, proc = _app(env)
    _finish(proc, "end")
    assert not os.path.exists(_trace_file(env, pid))


def test_strmqtrc_reaches_an_embedded_application_already_running(env):
    """Given an application with its queue manager EMB in its own process, running untraced,
    when strmqtrc -m EMB is issued, then its next calls (a second later) are traced."""
    pid, proc = _app(env)
    try:
        assert not os.path.exists(_trace_file(env, pid))
        _cmd(env, "strmqtrc", "-m", "EMB")
        _finish(proc, "again-traced")
    finally:
        proc.kill()
    calls = [(r["k"], r["fn"]) for r in _calls(env, pid)]
    assert ("{", "MQPUT") in calls and ("}", "MQGET") in calls and ("}", "MQDISC") in calls
