"""Trace: strmqtrc and endmqtrc switch the AMQ<pid>.TRC file of running applications on and
off; dspmqtrc formats it. Applications are real processes connected to a real daemon."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mqpy import trace
from mqpy_cli import trace as trace_commands

_RUN = ("import sys; from mqpy_cli import trace; "
        "getattr(trace, sys.argv[1]).main(args=sys.argv[2:], prog_name=sys.argv[1])")

#: puts and gets on Q1, then waits for a line on stdin before doing it again (after the
#: once-a-second look at the control file has had its chance), then ends
APP = r"""
import os, sys, time
import mqpy
from mqpy import CMQC
qm = mqpy.connect("QM1")
q = mqpy.Queue(qm, "Q1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
def work(rounds):
    for _ in range(rounds):
        q.put(b"traced", mqpy.MD(MsgId=b"TRACEME"))
        q.get()
    try:
        q.get()
    except mqpy.MQMIError:
        pass
work(int(sys.argv[1]))
print(os.getpid(), flush=True)
if sys.stdin.readline().strip() == "again":
    time.sleep(1.2)
    work(1)
q.close()
qm.disconnect()
"""


def _cmd(inst, name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _RUN, name, *args], env=inst.env,
                          capture_output=True, text=True, timeout=60)


def _given(inst, name: str, *args: str) -> None:
    """strmqtrc or endmqtrc run in this process, for a test's given state or its clean-up
    (the same command without an interpreter started for it); it must succeed."""
    result = CliRunner().invoke(getattr(trace_commands, name),
                                [*args, "--data-path", inst.root])
    assert result.exit_code == 0, (name, args, result.output)


def _app(inst, rounds: int = 1, then: str = "end") -> tuple[int, subprocess.Popen]:
    """Run APP until it has done its first calls; its pid and the process."""
    proc = subprocess.Popen([sys.executable, "-c", APP, str(rounds)], env=inst.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    line = proc.stdout.readline()
    assert line.strip().isdigit(), proc.stderr.read() if proc.poll() is not None else line
    return int(line), proc


def _finish(proc: subprocess.Popen, then: str = "end") -> None:
    out, err = proc.communicate(then + "\n", timeout=60)
    assert proc.returncode == 0, err


def _records(inst, pid: int, suffix: str = "TRC") -> list[dict]:
    path = os.path.join(inst.root, "trace", f"AMQ{pid}.{suffix}")
    with open(path) as f:
        return [json.loads(line) for line in f]


@pytest.fixture
def traced(running):
    """The module's queue manager with tracing off before and after each test."""
    _given(running, "endmqtrc", "-a")
    yield running
    _given(running, "endmqtrc", "-a")


def test_strmqtrc_traces_a_running_application_and_endmqtrc_stops_it(traced):
    """Given strmqtrc -m QM1 -t api -t parms, when an application with pid P puts and gets,
    then trace/AMQ<P>.TRC holds its MQI calls, entry and exit, with their parameters and
    reason codes; when endmqtrc -m QM1 is issued while it runs, then the file gets nothing
    more from its later calls.  spec: operations-dlq-clusters 7.6"""
    out = _cmd(traced, "strmqtrc", "-m", "QM1", "-t", "api", "-t", "parms")
    assert out.returncode == 0, out.stderr
    pid, proc = _app(traced)
    try:
        records = _records(traced, pid)
        assert records[0]["header"]["pid"] == pid
        calls = [(r["k"], r["fn"]) for r in records[1:]]
        assert calls[:4] == [("{", "MQCONN"), ("}", "MQCONN"), ("{", "MQOPEN"), ("}", "MQOPEN")]
        opened = next(r for r in records if r.get("fn") == "MQOPEN" and r["k"] == "{")
        assert opened["parms"]["MQOD.ObjectName"] == "Q1"
        put = next(r for r in records if r.get("fn") == "MQPUT" and r["k"] == "{")
        assert put["parms"]["MQMD.MsgId"] == "TRACEME" and put["parms"]["DataLength"] == 6
        gets = [r for r in records if r.get("fn") == "MQGET" and r["k"] == "}"]
        assert [(g["cc"], g["rc"]) for g in gets] == [(0, 0), (2, 2033)]
        assert gets[0]["parms"]["DataLength"] == 6
        out = _cmd(traced, "endmqtrc", "-m", "QM1")
        assert out.returncode == 0, out.stderr
        _finish(proc, "again")
    finally:
        proc.kill()
    assert len(_records(traced, pid)) == len(records)


def test_the_queue_manager_traces_its_side_of_the_calls(traced):
    """Given strmqtrc -m QM1 -t lqmflows while the daemon runs, when an application puts and
    gets (a second after, so the daemon has looked at the control file), then the daemon's
    own AMQ<pid>.TRC has those calls as it served them, and the application, which does not
    trace lqmflows, writes none."""
    assert _cmd(traced, "strmqtrc", "-m", "QM1", "-t", "lqmflows").returncode == 0
    pid, proc = _app(traced)
    _finish(proc, "again")
    daemon = traced.pid("QM1")
    served = _records(traced, daemon)[1:]
    assert all(r.get("side") == "lqmflows" for r in served if r["k"] == "{")
    assert ("{", "MQPUT") in [(r["k"], r["fn"]) for r in served]
    assert any(r["k"] == "}" and r["fn"] == "MQGET" and r["rc"] == 2033 for r in served), served
    assert not os.path.exists(os.path.join(traced.root, "trace", f"AMQ{pid}.TRC"))


def test_only_the_named_queue_managers_and_programs_are_traced(traced):
    """Given strmqtrc for another queue manager, or for QM1 but another program, when an
    application of QM1 runs, then it writes no trace; given a wildcard that matches QM1 and
    the program, then it does."""
    for args in (["-m", "QM2"], ["-m", "QM1", "-p", "amqsput"]):
        _given(traced, "endmqtrc", "-a")
        assert _cmd(traced, "strmqtrc", *args).returncode == 0
        pid, proc = _app(traced)
        _finish(proc)
        assert not os.path.exists(os.path.join(traced.root, "trace", f"AMQ{pid}.TRC")), args
    _given(traced, "endmqtrc", "-a")
    assert _cmd(traced, "strmqtrc", "-m", "Q?1", "-p", "pyth*,amqsput").returncode == 0
    pid, proc = _app(traced)
    _finish(proc)
    assert any(r.get("fn") == "MQPUT" for r in _records(traced, pid))


def test_a_full_trace_file_becomes_trs_and_a_new_one_starts(traced):
    """Given strmqtrc -l 1 (MB), when an application writes more than 1 MB of trace, then
    AMQ<pid>.TRS holds the full file and a new AMQ<pid>.TRC, with its own header, goes on."""
    assert _cmd(traced, "strmqtrc", "-m", "QM1", "-l", "1", "-t", "parms").returncode == 0
    pid, proc = _app(traced, rounds=1500)
    _finish(proc)
    old = _records(traced, pid, "TRS")
    new = _records(traced, pid)
    size = os.path.getsize(os.path.join(traced.root, "trace", f"AMQ{pid}.TRS"))
    assert size >= 1024 * 1024
    assert "header" in old[0] and "header" in new[0]
    assert [r["fn"] for r in new[-6:] if r["k"] == "}"] == ["MQGET", "MQCLOSE", "MQDISC"]


def test_dspmqtrc_formats_the_calls_with_reason_names(traced):
    """Given a trace file, when dspmqtrc formats it, then each call shows as a '{' entry and
    a '}' exit line with CompCode, Reason and its name (and elapsed time with -t timing),
    after a header naming the process; -h leaves the header out and -o writes a file."""
    assert _cmd(traced, "strmqtrc", "-m", "QM1", "-t", "api", "-t", "timing").returncode == 0
    pid, proc = _app(traced)
    _finish(proc)
    path = os.path.join(traced.root, "trace", f"AMQ{pid}.TRC")
    out = _cmd(traced, "dspmqtrc", path)
    assert out.returncode == 0, out.stderr
    assert f"Process         : {pid}" in out.stdout
    assert "{ MQPUT QMgr=QM1" in out.stdout
    assert "} MQGET CompCode=2 Reason=2033 (MQRC_NO_MSG_AVAILABLE)" in out.stdout
    assert " us" in out.stdout
    fmt = os.path.join(traced.root, "AMQ.FMT")
    out = _cmd(traced, "dspmqtrc", "-h", "-o", fmt, path)
    assert out.returncode == 0, out.stderr
    with open(fmt) as f:
        text = f.read()
    assert "Process" not in text and "} MQCONN CompCode=0 Reason=0 (MQRC_NONE)" in text
    missing = _cmd(traced, "dspmqtrc", os.path.join(traced.root, "trace", "AMQ1.TRC"))
    assert missing.returncode != 0 and "cannot read" in missing.stderr


def test_trace_specifications_are_ored_replaced_and_ended_as_described(traced):
    """Given several strmqtrc, then -s reports each; a second one for the same queue manager
    replaces the first; a 17th is refused; endmqtrc with no parameters ends only early
    tracing, -m only the one named exactly, -a everything; an unknown trace type is refused
    with the list of types."""
    for i in range(15):
        _given(traced, "strmqtrc", "-m", f"QM{i}")
    assert _cmd(traced, "strmqtrc", "-m", "QM3", "-t", "parms").returncode == 0  # replaces
    assert _cmd(traced, "strmqtrc", "-e").returncode == 0  # the 16th
    refused = _cmd(traced, "strmqtrc", "-m", "QMX")
    assert refused.returncode != 0 and "at most 16" in refused.stderr
    report = _cmd(traced, "strmqtrc", "-s").stdout
    assert report.count("Tracing is enabled") == 16 and "-m QM3 -t parms" in report
    assert _cmd(traced, "endmqtrc").returncode == 0
    assert not any(s.early for s in trace.read_specs(traced.root))
    assert _cmd(traced, "endmqtrc", "-m", "QM?").returncode == 0  # not the same text
    assert len(trace.read_specs(traced.root)) == 15
    assert _cmd(traced, "endmqtrc", "-m", "QM4").returncode == 0
    assert "QM4" not in [s.qmgr for s in trace.read_specs(traced.root)]
    assert _cmd(traced, "endmqtrc", "-a").returncode == 0
    assert _cmd(traced, "strmqtrc", "-s").stdout.strip() == "Tracing is not enabled."
    bad = _cmd(traced, "strmqtrc", "-t", "everything")
    assert bad.returncode != 0 and "unknown trace type 'everything'" in bad.stderr
    assert "api" in bad.stderr and not trace.read_specs(traced.root)


def test_spec_matching_is_the_and_of_its_qualifiers():
    """A specification traces a process only if the queue manager, program and pid all
    match; -e traces processes not connected to any queue manager; -x wins over -t."""
    spec = trace.TraceSpec(qmgr="QM*", apps=("runmq*",), pids=(7,))
    assert spec.matches("QM1", "runmqchi", 7)
    assert not spec.matches("QM1", "runmqchi", 8)
    assert not spec.matches("XQM", "runmqchi", 7)
    assert not spec.matches("QM1", "myapp", 7)
    assert not trace.TraceSpec().matches(None, "myapp", 7)
    assert trace.TraceSpec(early=True).matches(None, "myapp", 7)
    kinds = trace.TraceSpec(types=("all",), exclude=("api",))
    assert not kinds.traces("api") and kinds.traces("timing") and not kinds.traces("parms")
    assert trace.TraceSpec(types=("api", "detail")).traces("parms")
    assert trace.TraceSpec(types=("parms",)).traces("api")  # a level alone: every type


def test_a_trace_file_that_cannot_be_written_never_fails_a_call(traced, monkeypatch):
    """Given tracing on for QM1 and this process's trace file impossible to create (a
    directory stands in its place), when the process makes MQI calls, then they work as
    untraced calls; given a trace file whose writes fail (a full disk), then the process
    stops tracing, says so once on stderr, and its calls go on."""
    import mqpy
    from mqpy import CMQC

    monkeypatch.setenv("MQPY_DATA_PATH", traced.root)
    assert _cmd(traced, "strmqtrc", "-m", "QM1").returncode == 0
    blocker = os.path.join(traced.root, "trace", f"AMQ{os.getpid()}.TRC")
    os.makedirs(blocker)
    tracer = trace.Tracer()
    monkeypatch.setattr("mqpy.fap.mqicalls.TRACER", tracer)
    try:
        qm = mqpy.connect("QM1")
        q = mqpy.Queue(qm, "Q1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        q.put(b"untraced")
        assert q.get() == b"untraced"
        os.rmdir(blocker)
        tracer.look_again()  # look again now

        def full(*_args):
            raise OSError(28, "No space left on device")

        q.put(b"traced")  # opens the file
        monkeypatch.setattr(tracer._file._f, "write", full)
        assert q.get() == b"traced"  # its write fails: tracing stops, the call does not
        q.put(b"after")
        assert q.get() == b"after"
        assert tracer._file._f is None
        q.close()
        qm.disconnect()
    finally:
        if os.path.isdir(blocker):
            os.rmdir(blocker)


def test_dspmqtrc_names_lines_that_are_not_trace_records():
    """Given a trace file with lines that are not records (not JSON, JSON of another shape),
    when dspmqtrc formats it, then each such line is named as such, and no traceback."""
    lines = ["not json", "[1, 2]", '{"header": 5}', "7"]
    assert list(trace.format_records(lines)) == [
        f"(line {n}: not a trace record)" for n in range(1, 5)]
