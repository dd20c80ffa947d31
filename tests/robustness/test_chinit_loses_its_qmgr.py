"""A channel initiator whose queue manager dies (SIGKILL) ends as an ordinary, logged event:
AMQ9542I "Queue manager is ending." in AMQERR01.LOG, and no traceback (in runmqchi.out) from
any of its tasks (initiation queue, statistics, repository manager and its command, watch and
lifetime tasks)."""

from __future__ import annotations

import os
import signal

import pytest

from tests.support.installation import Installation, gone
from tests.support.waiting import wait_for

pytestmark = pytest.mark.timeout(300)


def _read(inst: Installation, name: str) -> str:
    try:
        with open(os.path.join(inst.qmdir(), "errors", name), encoding="latin-1") as f:
            return f.read()
    except OSError:
        return ""



@pytest.mark.parametrize("attempt", range(3))
def test_sigkill_of_the_daemon_ends_the_chinit_without_a_traceback(tmp_path, attempt):
    """Given QM1 started by strmqm with its channel initiator and repository manager running,
    when the daemon is killed with SIGKILL, then the channel initiator ends, runmqchi.out has
    no traceback or exception group and AMQERR01.LOG says AMQ9542I once."""
    inst = Installation(str(tmp_path))
    inst.env.pop("MQPY_NO_CHINIT", None)
    try:
        inst.create(queues=())
        daemon = inst.start()
        wait_for(lambda: "AMQ9410I" in _read(inst, "AMQERR01.LOG"), 60, "the repository manager", 0.1)
        chinit = inst.chinit_pid()
        assert chinit is not None
        os.kill(daemon, signal.SIGKILL)
        wait_for(lambda: gone(chinit), 60, "the channel initiator to end", 0.1)
    finally:
        inst.kill_all()
    out = _read(inst, "runmqchi.out")
    assert "Traceback" not in out and "ExceptionGroup" not in out, out
    log = _read(inst, "AMQERR01.LOG")
    assert log.count("AMQ9542I: Queue manager is ending.") == 1, log
