"""A channel the operator stopped stays STOPPED across a restart of its queue manager
(``endmqm -w`` or ``endmqm -i``, then ``strmqm``), as IBM MQ remembers it: only START CHANNEL
starts it again. And runmqchl ends with IBM's return codes."""

from __future__ import annotations

import pytest

from tests.support.installation import run_chinit
from tests.support.ports import free_port
from tests.support.waiting import wait_for

from .test_two_daemons import bind, depth, mqsc

QM = "QM1"
CHANNEL = "TO.NOWHERE"


def _define_sender(site, port: int, **attributes: object) -> None:
    """QM1 created and started, with a sender to ``port`` on 127.0.0.1 (nobody listens)."""
    assert site.run("crtmqm", QM).returncode == 0
    proc = site.run("strmqm", QM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    extra = " ".join(f"{k}({v})" for k, v in attributes.items())
    out = mqsc(site, QM, f"""
        DEFINE QLOCAL(NOWHERE) USAGE(XMITQ)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(NOWHERE) {extra}
    """)
    assert out.returncode == 0, out.stdout


def _status(site) -> str:
    return mqsc(site, QM, f"DISPLAY CHSTATUS({CHANNEL}) STATUS\n").stdout


@pytest.mark.parametrize(("endmqm", "mode"), [("-w", "QUIESCE"), ("-i", "FORCE")])
def test_a_stopped_channel_stays_stopped_across_endmqm_and_strmqm(site, endmqm, mode):
    """Given QM1's sender RETRYING towards a closed port and then stopped with STOP CHANNEL
    MODE(QUIESCE) or MODE(FORCE), when the operator ends QM1 (endmqm -w or -i) and starts it
    again, then DISPLAY CHSTATUS shows the channel STOPPED and it is not started (no
    AMQ9002I for it after the restart), RESET CHANNEL leaves it STOPPED, and START CHANNEL
    starts it again."""
    _define_sender(site, free_port(), SHORTRTY=10, SHORTTMR=600)
    assert "AMQ8018I" in mqsc(site, QM, f"START CHANNEL({CHANNEL})\n").stdout
    wait_for(lambda: "STATUS(RETRYING)" in _status(site), what="RETRYING")
    out = mqsc(site, QM, f"STOP CHANNEL({CHANNEL}) MODE({mode})\n").stdout
    assert "AMQ8019I" in out, out
    wait_for(lambda: "STATUS(STOPPED)" in _status(site), what="STOPPED")
    proc = site.run("endmqm", endmqm, QM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    site.wait_ended(QM)
    log = site.qmdir(QM) + "/errors/AMQERR01.LOG"
    with open(log, encoding="utf-8", errors="replace") as f:
        before = len(f.read())
    proc = site.run("strmqm", QM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wait_for(lambda: "STATUS(" in _status(site), what="a status")
    assert "STATUS(STOPPED)" in _status(site)
    with open(log, encoding="utf-8", errors="replace") as f:
        after = " ".join(f.read()[before:].split())
    assert f"AMQ9002I: Channel '{CHANNEL}' is starting" not in after, after
    # RESET CHANNEL resets its sequence number only (IBM): it stays STOPPED
    assert "AMQ8023I" in mqsc(site, QM, f"RESET CHANNEL({CHANNEL})\n").stdout
    assert "STATUS(STOPPED)" in _status(site)
    assert "AMQ8018I" in mqsc(site, QM, f"START CHANNEL({CHANNEL})\n").stdout
    wait_for(lambda: "STATUS(STOPPED)" not in _status(site), what="started")


def test_runmqchl_of_a_channel_that_cannot_run_ends_with_20(site):
    """Given QM1 with a sender whose partner is not there and that has no retries, and a
    server with no CONNAME, when the operator runs each with runmqchl, then runmqchl ends
    with 20 (an error occurred), not 0."""
    _define_sender(site, free_port(), SHORTRTY=0, LONGRTY=0)
    out = mqsc(site, QM, "DEFINE CHANNEL(ANSWERS.ONLY) CHLTYPE(SVR) XMITQ(NOWHERE)\n")
    assert out.returncode == 0, out.stdout
    proc = run_chinit(site, "runmqchl", "-c", CHANNEL, "-m", QM)
    assert proc.returncode == 20, proc.stdout + proc.stderr
    proc = run_chinit(site, "runmqchl", "-c", "ANSWERS.ONLY", "-m", QM)
    assert proc.returncode == 20, proc.stdout + proc.stderr


def test_start_channel_of_a_retrying_sender_uses_its_altered_conname_now(site):
    """Given QM1's sender TO.QM2 RETRYING towards a closed port (retry timer 600 s) with a
    message for QM2, and QM2 started with a listener and the receiver, when the operator
    alters the sender's CONNAME to QM2's listener and issues START CHANNEL on QM1, then the
    channel runs now with the new CONNAME and the message arrives on QM2."""
    port = free_port()
    assert site.run("crtmqm", "QM2").returncode == 0
    assert site.run("strmqm", "QM2").returncode == 0
    out = mqsc(site, "QM2", f"""
        DEFINE LISTENER(TCP.LSTR) TRPTYPE(TCP) PORT({port}) IPADDR(127.0.0.1) CONTROL(QMGR)
        START LISTENER(TCP.LSTR)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) TRPTYPE(TCP)
        SET CHLAUTH('{CHANNEL}') TYPE(BLOCKUSER) USERLIST('nobody')
        DEFINE QLOCAL(TARGET)
    """)
    assert out.returncode == 0, out.stdout
    _define_sender(site, free_port(), SHORTRTY=10, SHORTTMR=600)
    out = mqsc(site, QM, "DEFINE QREMOTE(TARGET.REMOTE) RNAME(TARGET) RQMNAME(QM2) "
                         "XMITQ(NOWHERE)\n")
    assert out.returncode == 0, out.stdout
    qm = bind(site, QM)
    qm.put1("TARGET.REMOTE", b"waited")
    qm.disconnect()
    assert "AMQ8018I" in mqsc(site, QM, f"START CHANNEL({CHANNEL})\n").stdout
    wait_for(lambda: "STATUS(RETRYING)" in _status(site), what="RETRYING")
    out = mqsc(site, QM, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) "
                         f"CONNAME('127.0.0.1({port})')\n").stdout
    assert "AMQ8016I" in out, out
    assert "AMQ8018I" in mqsc(site, QM, f"START CHANNEL({CHANNEL})\n").stdout
    wait_for(lambda: depth(site, "QM2", "TARGET") == 1, timeout=15, what="delivered")
