"""A process's trace watcher and its output file's bound sleep until what they watch changes:
the trace control file's watcher wakes when strmqtrc or endmqtrc writes the file, not once a
second, and sees it at once; the bound of a channel initiator's output file looks when the
file is written, and ends when its process ends, not every 2 s.

Wakes are counted, not timed: each watching thread's voluntary context switches."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from mqpy import trace
from mqpy.outfiles import OutputFile

#: how long each watcher is left idle (a timed look would wake at least twice)
IDLE_S = 4.5
#: how soon a change is seen
PROMPT_S = 0.5


def _voluntary_switches(thread: threading.Thread) -> int:
    with open(f"/proc/{os.getpid()}/task/{thread.native_id}/status") as f:
        for line in f:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches line")


def _idle_wakes(thread: threading.Thread) -> int:
    time.sleep(0.3)  # (its first wait has begun)
    before = _voluntary_switches(thread)
    time.sleep(IDLE_S)
    return _voluntary_switches(thread) - before


def _within(condition, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


@pytest.fixture
def proc_status():
    if not os.path.exists(f"/proc/{os.getpid()}/task/{threading.get_native_id()}/status"):
        pytest.skip("no /proc/PID/task/TID/status here: the wakes cannot be counted")


def test_the_trace_watcher_sleeps_until_strmqtrc(tmp_path, monkeypatch, proc_status):
    """Given a process's trace watcher (``Tracer.watch``) and no trace directory yet, when it
    is left idle for 4.5 s, then its thread does not wake (one that looked once a second
    woke four times); when strmqtrc then starts a trace, the watcher sees it within 0.5 s,
    and endmqtrc likewise."""
    monkeypatch.setenv("MQPY_DATA_PATH", str(tmp_path))
    tracer = trace.Tracer()
    tracer.watch()
    watcher = tracer._watcher
    assert watcher is not None
    assert _idle_wakes(watcher) <= 1
    trace.start(trace.TraceSpec(qmgr="QM1"))
    _within(lambda: tracer.active, PROMPT_S, "strmqtrc not seen")
    assert _idle_wakes(watcher) <= 1
    trace.end(everything=True)
    _within(lambda: not tracer.active, PROMPT_S, "endmqtrc not seen")


def test_an_output_files_bound_looks_when_it_is_written(tmp_path, proc_status):
    """Given the bound of a running process's output file (``OutputFile.keep_bounded``),
    when it is left idle for 4.5 s, then its thread does not wake (one that looked every
    2 s woke twice); when the file is written past its size, it is rotated within 0.5 s;
    when the process ends, the thread ends within 0.5 s."""
    path = str(tmp_path / "runmqchi.out")
    output = OutputFile(path, max_size=100)
    with output.open():
        pass
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        bound = output.keep_bounded(proc)
        assert _idle_wakes(bound) <= 1
        with open(path, "ab") as f:
            f.write(b"x" * 200)
        _within(lambda: os.path.getsize(path) == 0 and os.path.exists(path + ".1"),
                PROMPT_S, "the full file was not rotated")
    finally:
        proc.kill()
        proc.wait()
    bound.join(PROMPT_S)
    assert not bound.is_alive(), "the bound outlived its process"
