"""runmqchl, the operator's way to run one channel in the foreground, ends with IBM's return
codes: 0 the channel ended normally, 10 an operator stopped it, 20 it could not run."""

from __future__ import annotations

import concurrent.futures

import pytest

from tests.support.daemon_pair import _start, killed_at_end, mqsc_here
from tests.support.installation import run_chinit
from tests.support.ports import free_port

from .test_operator_restart import CHANNEL, QM, define_sender

site = pytest.fixture(killed_at_end, name="site")


def test_runmqchl_of_a_channel_that_cannot_run_ends_with_20(site):
    """Given QM1 with a sender whose partner is not there and that has no retries, and a
    server with no CONNAME, when the operator runs each with runmqchl, then runmqchl ends
    with 20 (an error occurred), not 0."""
    define_sender(site, free_port(), SHORTRTY=0, LONGRTY=0)
    out = mqsc_here(site, QM, "DEFINE CHANNEL(ANSWERS.ONLY) CHLTYPE(SVR) XMITQ(NOWHERE)\n")
    assert out.returncode == 0, out.stdout
    proc = run_chinit(site, "runmqchl", "-c", CHANNEL, "-m", QM)
    assert proc.returncode == 20, proc.stdout + proc.stderr
    proc = run_chinit(site, "runmqchl", "-c", "ANSWERS.ONLY", "-m", QM)
    assert proc.returncode == 20, proc.stdout + proc.stderr


def test_runmqchl_of_a_channel_that_ends_normally_ends_with_0(site):
    """Given QM2 listening with the receiver, and QM1's sender to it with a disconnect
    interval of 1 second, when the operator runs the sender with runmqchl, then the channel
    runs, ends at its disconnect interval, and runmqchl ends with 0."""
    port = free_port()
    assert site.run("crtmqm", "QM2").returncode == 0
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # QM2 starts while QM1 is made
        qm2_started = pool.submit(_start, site, "QM2")
        define_sender(site, port, DISCINT=1)
        qm2_started.result()
    out = mqsc_here(site, "QM2", f"""
        DEFINE LISTENER(TCP.LSTR) TRPTYPE(TCP) PORT({port}) IPADDR(127.0.0.1) CONTROL(QMGR)
        START LISTENER(TCP.LSTR)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) TRPTYPE(TCP)
        SET CHLAUTH('{CHANNEL}') TYPE(BLOCKUSER) USERLIST('nobody')
    """)
    assert out.returncode == 0, out.stdout
    proc = run_chinit(site, "runmqchl", "-c", CHANNEL, "-m", QM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "AMQ9001I" in proc.stdout + proc.stderr
