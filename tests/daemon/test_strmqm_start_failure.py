"""strmqm whose queue-manager process dies before it serves: IBM's "unexpected error" return
code (71) and an AMQ message, never the raw status of a killed process."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from click.testing import CliRunner

from mqpy import inprocess
from mqpy_cli import control

pytestmark = pytest.mark.system

_DIE = "import os, signal; os.kill(os.getpid(), signal.SIG{})"


def _daemon_dying_by(monkeypatch, sig: str) -> None:
    """strmqm's daemon replaced by a process that kills itself with ``sig`` at once."""
    real = subprocess.Popen

    def popen(args, **kwargs):
        return real([sys.executable, "-c", _DIE.format(sig)], **kwargs)

    monkeypatch.setattr(control.subprocess, "Popen", popen)


def test_a_daemon_killed_during_start_up_makes_strmqm_exit_71_with_amq6184(tmp_path,
                                                                           monkeypatch):
    """Given a created queue manager, when its daemon is SIGKILLed before it says it serves,
    then strmqm exits 71 (IBM's "unexpected error"; not 247, the shell's 256 - 9) and says
    AMQ6184W naming the signal."""
    root = str(tmp_path)
    inprocess.create("KILLQM", root)
    _daemon_dying_by(monkeypatch, "KILL")
    result = CliRunner().invoke(control.strmqm, ["--data-path", root, "KILLQM"])
    assert result.exit_code == control.RC_UNEXPECTED == 71
    assert "AMQ6184W" in result.output and signal.Signals.SIGKILL.name in result.output


def test_start_daemon_turns_every_signal_death_into_71(tmp_path, monkeypatch):
    """Given a daemon ended by SIGTERM during start-up, then start_daemon's status is 71."""
    root = str(tmp_path)
    inprocess.create("TERMQM", root)
    _daemon_dying_by(monkeypatch, "TERM")
    rc, lines = control.start_daemon("TERMQM", root)
    assert rc == control.RC_UNEXPECTED
    assert any("AMQ6184W" in line and "SIGTERM" in line for line in lines)


def test_a_child_status_is_told_as_a_signal_when_a_signal_ended_it():
    """Given child statuses as Popen gives them, then the operator's wording names the
    signal (the channel initiator's AMQ9570E uses it too), never a negative status."""
    from mqpy.qmstatus import describe_status

    assert describe_status(-9) == "signal 9, SIGKILL"
    assert describe_status(20) == "status 20"
    assert describe_status(-200) == "signal 200"
