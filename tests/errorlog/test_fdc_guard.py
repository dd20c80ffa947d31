"""fdc_guard: an unexpected exception becomes an FDC, an AMQ message and an exit status."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from mqpy.errorlog import EXIT_UNEXPECTED, fdc_guard, read_entries

pytestmark = pytest.mark.system

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(tmp_path, body: str) -> subprocess.CompletedProcess:
    script = textwrap.dedent(f"""
        from mqpy.errorlog import fdc_guard
        ERR = {str(tmp_path)!r}
    """) + textwrap.dedent(body)
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=60)


def test_crashing_command_shows_an_amq_message_not_a_traceback(tmp_path):
    """Given a command whose entry point raises, when it runs under fdc_guard, then it exits
    with status 71, prints AMQ6184W naming the FDC on stderr, shows no Python traceback, and
    leaves AMQ<pid>.0.FDC plus an error-log entry."""
    r = _run(tmp_path, """
        def start_queue_manager():
            raise RuntimeError("pageset 0 vanished")

        with fdc_guard(ERR, "ZM000001", "zmStart", qmgr="QM1"):
            start_queue_manager()
    """)
    assert r.returncode == EXIT_UNEXPECTED == 71
    assert "Traceback" not in r.stderr + r.stdout
    assert r.stderr.startswith("AMQ6184W: An internal IBM MQ error has occurred on queue "
                               "manager QM1. See ")
    fdcs = [n for n in os.listdir(tmp_path) if n.endswith(".FDC")]
    assert len(fdcs) == 1 and fdcs[0].endswith(".0.FDC")
    fdc = open(tmp_path / fdcs[0]).read()
    assert "start_queue_manager" in fdc and "pageset 0 vanished" in fdc
    assert "Minor Errorcode   :- RuntimeError" in fdc
    assert [e.msgid for e in read_entries(str(tmp_path))] == ["AMQ6184W"]


def test_decorator_form_and_clean_exit_pass_through(tmp_path):
    """Given fdc_guard as a decorator, when the function exits normally or via SystemExit,
    then nothing is recorded and the status is the function's own."""
    r = _run(tmp_path, """
        import sys

        @fdc_guard(ERR, "ZM000002", "zmMain")
        def main():
            sys.exit(5)

        main()
    """)
    assert r.returncode == 5 and r.stderr == ""
    assert os.listdir(tmp_path) == []


def test_expected_exceptions_are_not_recorded(tmp_path):
    """Given an exception listed as expected (an MQ reason code the caller handles), then it
    passes through untouched and no FDC is written."""
    from mqpy.errors import MQMIError

    with pytest.raises(MQMIError):
        with fdc_guard(str(tmp_path), "ZM000003", "zm", expected=(MQMIError,)):
            raise MQMIError(2, 2059)
    assert os.listdir(tmp_path) == []


def test_exit_status_none_records_then_reraises(tmp_path, capsys):
    """Given exit_status=None, then the failure is recorded and the exception re-raised for a
    caller that handles it; the guard remembers the FDC's path."""
    guard = fdc_guard(str(tmp_path), "ZM000004", "zm", exit_status=None, qmgr="QM1",
                      extra=lambda: {"state": "RUNNING"})
    with pytest.raises(ZeroDivisionError):
        with guard:
            1 / 0  # noqa: B018
    assert guard.fdc_path is not None and os.path.exists(guard.fdc_path)
    assert "state             :- 'RUNNING'" in open(guard.fdc_path).read()
    assert capsys.readouterr().err.startswith("AMQ6184W: ")


def test_unwritable_errors_directory_still_gives_a_clean_exit(tmp_path, capsys):
    """Given nowhere to write the FDC, then the operator still gets the AMQ line (saying
    the FDC could not be written) and an exit status, not a traceback."""
    blocker = tmp_path / "errors"
    blocker.write_text("a file where the directory should be")
    with pytest.raises(SystemExit) as info:
        with fdc_guard(str(blocker), "ZM000005", "zm"):
            raise ValueError("boom")
    assert info.value.code == EXIT_UNEXPECTED
    err = capsys.readouterr().err
    assert err.startswith("AMQ6183W: An internal IBM MQ error has occurred.")
    assert "could not be written" in err
