"""Where the operator stands does not change what the queue manager runs: strmqm started from a
folder holding folders named like mqpy's packages (the parent of a clone, say) starts the same
daemon, command server and channel initiator as from anywhere else, and strmqm says so when
one of them did not come up."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tests.support.installation import QM

BIN = os.path.dirname(sys.executable)


def _command(install, folder, name: str, *args: str, stdin: str | None = None,
             env: dict | None = None) -> subprocess.CompletedProcess:
    """A control command run as the operator types it: its console script, in ``folder``."""
    return subprocess.run([os.path.join(BIN, name), *args], cwd=folder, input=stdin,
                          env=env or install.env, capture_output=True, text=True, timeout=90)


def _shadowing_folder(path) -> str:
    """A folder with a folder named after each of mqpy's packages (without an __init__.py, as
    the parent of a clone has ``mqpy/``): on sys.path they are namespace packages that hide
    the installed ones."""
    for package in ("mqpy", "mqpy_chinit", "mqpy_cli"):
        os.makedirs(os.path.join(path, package), exist_ok=True)
    return str(path)


def _chinit_running(install, folder, timeout: float = 30) -> str:
    deadline = time.monotonic() + timeout
    while True:
        shown = _command(install, folder, "runmqsc", QM, stdin="DISPLAY QMSTATUS CHINIT\n")
        if "CHINIT(RUNNING)" in shown.stdout or time.monotonic() > deadline:
            return shown.stdout
        time.sleep(0.5)


@pytest.mark.system
def test_strmqm_run_beside_folders_named_mqpy_starts_a_working_queue_manager(install, tmp_path):
    """Given a folder holding folders named mqpy, mqpy_chinit and mqpy_cli, when the operator
    runs strmqm there, then the queue manager serves: DISPLAY QMSTATUS answers RUNNING from
    the command server, its channel initiator runs (CHINIT(RUNNING)) and stays the same
    process, and DISPLAY LSSTATUS answers without AMQ8101S."""
    install.env = {k: v for k, v in install.env.items() if k != "MQPY_NO_CHINIT"}
    install.create(queues=())
    folder = _shadowing_folder(tmp_path / "operator")
    started = _command(install, folder, "strmqm", QM)
    pid = install.pid()
    if pid:
        install.pids.add(pid)
        install.started.add(QM)
    assert started.returncode == 0, started.stdout + started.stderr
    assert "did not start" not in started.stdout + started.stderr
    status = _chinit_running(install, folder)
    assert "STATUS(RUNNING)" in status and "CHINIT(RUNNING)" in status, status
    chinit = install.chinit_pid()
    time.sleep(2.5)  # a channel initiator dying in a loop would have been restarted by now
    assert install.chinit_pid() == chinit
    listeners = _command(install, folder, "runmqsc", QM, stdin="DISPLAY LSSTATUS(*)\n")
    assert "AMQ8101S" not in listeners.stdout, listeners.stdout
    assert _command(install, folder, "endmqm", "-i", QM).returncode == 0


@pytest.mark.system
def test_strmqm_says_when_the_channel_initiator_did_not_start(install, tmp_path):
    """Given an installation whose channel initiator cannot start (its package is hidden from
    the processes strmqm starts), when the operator runs strmqm, then the queue manager
    starts (exit 0) and strmqm says the channel initiator did not start, with IBM's AMQ9570E
    id and where to look; the queue manager itself serves."""
    hidden = tmp_path / "hidden"
    os.makedirs(hidden / "mqpy_cli")
    (hidden / "mqpy_cli" / "__init__.py").write_text("raise ImportError('hidden')\n")
    install.env = {k: v for k, v in install.env.items() if k != "MQPY_NO_CHINIT"}
    install.create(queues=())
    env = {**install.env, "PYTHONPATH": str(hidden)}
    # strmqm itself must see the real mqpy_cli: run it with the hidden folder taken off
    run = (f"import sys; sys.path.remove({str(hidden)!r}); from mqpy_cli import control; "
           "control.strmqm.main(args=sys.argv[1:], prog_name='strmqm')")
    started = subprocess.run([sys.executable, "-c", run, QM], env=env, capture_output=True,
                             text=True, timeout=120)
    pid = install.pid()
    if pid:
        install.pids.add(pid)
        install.started.add(QM)
    said = started.stdout + started.stderr
    assert started.returncode == 0, said
    assert "AMQ9570E" in said and "channel initiator" in said and "runmqchi.out" in said, said
    shown = _command(install, str(tmp_path), "runmqsc", QM, stdin="DISPLAY QMSTATUS\n")
    assert "STATUS(RUNNING)" in shown.stdout, shown.stdout
