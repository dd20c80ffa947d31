"""runmqchl, the operator's way to run one channel in the foreground, ends with IBM's return
codes: 0 the channel ended normally, 10 an operator stopped it, 20 it could not run."""

from __future__ import annotations

from tests.support.installation import run_chinit
from tests.support.ports import free_port

from .test_operator_restart import CHANNEL, QM, define_sender
from .test_two_daemons import mqsc


def test_runmqchl_of_a_channel_that_cannot_run_ends_with_20(site):
    """Given QM1 with a sender whose partner is not there and that has no retries, and a
    server with no CONNAME, when the operator runs each with runmqchl, then runmqchl ends
    with 20 (an error occurred), not 0."""
    define_sender(site, free_port(), SHORTRTY=0, LONGRTY=0)
    out = mqsc(site, QM, "DEFINE CHANNEL(ANSWERS.ONLY) CHLTYPE(SVR) XMITQ(NOWHERE)\n")
    assert out.returncode == 0, out.stdout
    proc = run_chinit(site, "runmqchl", "-c", CHANNEL, "-m", QM)
    assert proc.returncode == 20, proc.stdout + proc.stderr
    proc = run_chinit(site, "runmqchl", "-c", "ANSWERS.ONLY", "-m", QM)
    assert proc.returncode == 20, proc.stdout + proc.stderr
