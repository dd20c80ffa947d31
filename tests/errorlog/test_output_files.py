"""errors/runmqchi.out and errors/daemon.out as the administrator finds them: the
interpreter's complaints of the channel initiator and the daemon, never again what the
error log already has, and size-bounded like AMQERR01-03."""

from __future__ import annotations

import os
import sys
import time

import pytest

from mqpy import config, daemon, outfiles
from mqpy_cli import control

#: A channel initiator that writes an error-log entry's echo on its standard output and a
#: traceback on its standard error, as runmqchi does.
_CHATTY = ("import sys\n"
           "print('AMQ9544W: Messages not put to destination queue.', flush=True)\n"
           "sys.stderr.write('Traceback (most recent call last):\\nKeyError: 1\\n')\n")


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def _wait_for(path: str, text: str, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path) and text in _read(path):
            break
        time.sleep(0.05)
    return _read(path)


@pytest.fixture
def chinit_runs(monkeypatch, tmp_path):
    """Start 'the channel initiator' as the queue manager does (``_start_chinit``), with
    ``_CHATTY`` (or the script given) for its program; returns runmqchi.out's path."""
    qmdir = str(tmp_path / "qmgrs" / "QM1")
    os.makedirs(os.path.join(qmdir, "errors"))
    monkeypatch.delenv("MQPY_NO_CHINIT", raising=False)
    procs = []

    def run(script: str = _CHATTY) -> str:
        monkeypatch.setattr(daemon, "program", lambda *a: [sys.executable, "-c", script])
        proc = daemon._start_chinit("QM1", str(tmp_path), qmdir)
        procs.append(proc)
        proc.wait(timeout=30)
        return os.path.join(qmdir, "errors", "runmqchi.out")

    yield run
    for proc in procs:
        if proc.poll() is None:
            proc.kill()


def test_given_the_channel_initiator_echoes_its_log_entries_then_runmqchi_out_has_none(
        chinit_runs):
    """Given a channel initiator that echoes an AMQ9544W entry on its output and has a
    traceback to tell, when the queue manager ran it, then runmqchi.out has the traceback
    and not the entry (AMQERR01.LOG has it)."""
    out = chinit_runs()
    text = _wait_for(out, "KeyError: 1")
    assert "KeyError: 1" in text
    assert "AMQ9544W" not in text


def test_given_a_full_runmqchi_out_then_the_next_start_rotates_it(chinit_runs):
    """Given a runmqchi.out that has reached its size, when the channel initiator starts
    again, then the old output is runmqchi.out.1 and runmqchi.out starts afresh."""
    out = chinit_runs("pass")
    with open(out, "wb") as f:
        f.write(b"old complaint\n" + b"x" * outfiles.OUTPUT_FILE_SIZE)
    chinit_runs()
    assert _wait_for(out, "KeyError: 1").startswith("Traceback")
    assert _read(out + ".1").startswith("old complaint")


def test_given_a_channel_initiator_that_complains_without_end_then_its_output_stays_bounded(
        chinit_runs, monkeypatch):
    """Given a channel initiator that writes 3 MB of warnings over a few seconds (the files'
    size set to 64 KB), when it ran, then the output was rotated as it grew: runmqchi.out
    and its two older generations are each well under the 3 MB, and the newest warning is
    in runmqchi.out or, rotated just after it was written, in runmqchi.out.1."""
    monkeypatch.setattr(outfiles, "OUTPUT_FILE_SIZE", 64 * 1024)
    monkeypatch.setattr(outfiles, "CHECK_INTERVAL", 0.02)
    out = chinit_runs("import sys, time\nfor i in range(100):\n"
                      "    sys.stderr.write(f'warning {i:03d} ' + 'w' * 30000 + '\\n')\n"
                      "    sys.stderr.flush()\n    time.sleep(0.03)\n")
    names = sorted(n for n in os.listdir(os.path.dirname(out)) if n.startswith("runmqchi"))
    assert names == ["runmqchi.out", "runmqchi.out.1", "runmqchi.out.2"]
    assert "warning 099" in _read(out) + _read(out + ".1")
    assert all(os.path.getsize(os.path.join(os.path.dirname(out), n)) < 2 * 1024 * 1024
               for n in names)


def test_given_a_full_daemon_out_then_strmqm_rotates_it(tmp_path):
    """Given a daemon.out that has reached its size, when strmqm opens it for the daemon it
    starts, then the old output is daemon.out.1 and the daemon writes a fresh daemon.out."""
    root = str(tmp_path)
    errors = os.path.join(config.qmgr_dir("QM1", root), "errors")
    os.makedirs(errors)
    path = os.path.join(errors, control.DAEMON_OUTPUT)
    with open(path, "wb") as f:
        f.write(b"old\n" + b"x" * outfiles.OUTPUT_FILE_SIZE)
    out = control._daemon_output("QM1", root)
    try:
        out.write(b"Traceback\n")
    finally:
        out.close()
    assert _read(path) == "Traceback\n"
    assert _read(path + ".1").startswith("old")
