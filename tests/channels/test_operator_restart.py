"""A channel the operator stopped stays STOPPED across a restart of its queue manager
(``endmqm -w`` or ``endmqm -i``, then ``strmqm``), as IBM MQ remembers it: only START CHANNEL
starts it again."""

from __future__ import annotations

import pytest

from tests.support.daemon_pair import killed_at_end, mqsc_here
from tests.support.ports import free_port
from tests.support.waiting import wait_for

QM = "QM1"
CHANNEL = "TO.NOWHERE"
site = pytest.fixture(killed_at_end, name="site")


def define_sender(site, port: int, **attributes: object) -> None:
    """QM1 created and started, with a sender to ``port`` on 127.0.0.1 (nobody listens)."""
    assert site.run("crtmqm", QM).returncode == 0
    proc = site.run("strmqm", QM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    extra = " ".join(f"{k}({v})" for k, v in attributes.items())
    out = mqsc_here(site, QM, f"""
        DEFINE QLOCAL(NOWHERE) USAGE(XMITQ)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(NOWHERE) {extra}
    """)
    assert out.returncode == 0, out.stdout


def channel_status(site) -> str:
    return mqsc_here(site, QM, f"DISPLAY CHSTATUS({CHANNEL}) STATUS\n").stdout


@pytest.mark.parametrize(("endmqm", "mode"), [("-w", "QUIESCE"), ("-i", "FORCE")])
def test_a_stopped_channel_stays_stopped_across_endmqm_and_strmqm(site, endmqm, mode):
    """Given QM1's sender RETRYING towards a closed port and then stopped with STOP CHANNEL
    MODE(QUIESCE) or MODE(FORCE), when the operator ends QM1 (endmqm -w or -i) and starts it
    again, then DISPLAY CHSTATUS shows the channel STOPPED and it is not started (no
    AMQ9002I for it after the restart), RESET CHANNEL leaves it STOPPED, and START CHANNEL
    starts it again."""
    define_sender(site, free_port(), SHORTRTY=10, SHORTTMR=600)
    assert "AMQ8018I" in mqsc_here(site, QM, f"START CHANNEL({CHANNEL})\n").stdout
    wait_for(lambda: "STATUS(RETRYING)" in channel_status(site), what="RETRYING")
    out = mqsc_here(site, QM, f"STOP CHANNEL({CHANNEL}) MODE({mode})\n").stdout
    assert "AMQ8019I" in out, out
    wait_for(lambda: "STATUS(STOPPED)" in channel_status(site), what="STOPPED")
    proc = site.run("endmqm", endmqm, QM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    site.wait_ended(QM)
    log = site.qmdir(QM) + "/errors/AMQERR01.LOG"
    with open(log, encoding="utf-8", errors="replace") as f:
        before = len(f.read())
    proc = site.run("strmqm", QM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # a status shown (AMQ8417I: the echoed command alone holds "STATUS(")
    wait_for(lambda: "AMQ8417I" in channel_status(site), what="a status")
    assert "STATUS(STOPPED)" in channel_status(site)
    with open(log, encoding="utf-8", errors="replace") as f:
        after = " ".join(f.read()[before:].split())
    assert f"AMQ9002I: Channel '{CHANNEL}' is starting" not in after, after
    # RESET CHANNEL resets its sequence number only (IBM): it stays STOPPED
    assert "AMQ8023I" in mqsc_here(site, QM, f"RESET CHANNEL({CHANNEL})\n").stdout
    assert "STATUS(STOPPED)" in channel_status(site)
    assert "AMQ8018I" in mqsc_here(site, QM, f"START CHANNEL({CHANNEL})\n").stdout
    wait_for(lambda: "STATUS(STOPPED)" not in channel_status(site), what="started")
