"""The operator's channel commands through runmqsc against two queue managers started by
strmqm (each with its channel initiator), as IBM MQ answers them: START, RESET and RESOLVE
CHANNEL of a running channel are refused (AMQ9514E), STOP CHANNEL QMNAME ends a sender's
instance INACTIVE, and STOP CHANNEL of a channel already STOPPED answers AMQ9533E."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.support.daemon_pair import (
    bind,
    command_server,
    depth,
    killed_at_end,
    mqsc_here,
    two_daemons,
)
from tests.support.ports import free_port
from tests.support.waiting import wait_for

site = pytest.fixture(killed_at_end, name="site")
CHANNEL = "QM1.TO.QM2"


def _status(site) -> str:
    return mqsc_here(site, "QM1", f"DISPLAY CHSTATUS({CHANNEL}) STATUS\n").stdout


def _running_channel(site) -> None:
    """QM1 and QM2 started, SDR QM1.TO.QM2 to QM2's listener (no DISCINT, no heartbeats)
    RUNNING after one message reached TARGET."""
    port = free_port()
    two_daemons(site)
    command_server(site, "QM2", f"""
        DEFINE LISTENER(L) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
        START LISTENER(L)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) HBINT(0)
        SET CHLAUTH('{CHANNEL}') TYPE(BLOCKUSER) USERLIST('nobody')
        DEFINE QLOCAL(TARGET)
    """)
    command_server(site, "QM1", f"""
        DEFINE QLOCAL(QM2) USAGE(XMITQ)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2) +
               DISCINT(0) HBINT(0) SHORTTMR(1)
        DEFINE QREMOTE(REMOTE) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
        START CHANNEL({CHANNEL})
    """)
    qm = bind(site, "QM1")
    qm.put1("REMOTE", b"one", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    qm.disconnect()
    wait_for(lambda: depth(site, "QM2", "TARGET") == 1, 30, what="the message at QM2")
    wait_for(lambda: "STATUS(RUNNING)" in _status(site), what="RUNNING")


def test_operator_commands_of_a_running_channel_between_two_daemons(site):
    """Given SDR QM1.TO.QM2 RUNNING between two daemons, when the operator issues through
    runmqsc START, RESET and RESOLVE CHANNEL at QM1 and RESET CHANNEL at QM2, then each
    answers AMQ9514E (runmqsc's exit code 10) and the channel runs on; when STOP CHANNEL
    QMNAME(QM2) is issued, then the channel ends INACTIVE (not STOPPED); STOP CHANNEL makes
    it STOPPED (AMQ8019I) and a second STOP CHANNEL answers AMQ9533E."""
    _running_channel(site)
    for qmgr, command in (("QM1", f"START CHANNEL({CHANNEL})"),
                          ("QM1", f"RESET CHANNEL({CHANNEL}) SEQNUM(7)"),
                          ("QM1", f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)"),
                          ("QM2", f"RESET CHANNEL({CHANNEL})")):
        out = mqsc_here(site, qmgr, command + "\n")
        assert out.returncode == 10 and "AMQ9514E" in out.stdout, out.stdout
    assert "STATUS(RUNNING)" in _status(site)
    out = mqsc_here(site, "QM1", f"STOP CHANNEL({CHANNEL}) QMNAME(QM2)\n")
    assert "AMQ8019I" in out.stdout, out.stdout
    wait_for(lambda: "STATUS(RUNNING)" not in _status(site), what="the instance ended")
    assert "STATUS(STOPPED)" not in _status(site)
    out = mqsc_here(site, "QM1", f"STOP CHANNEL({CHANNEL})\n")
    assert "AMQ8019I" in out.stdout, out.stdout
    wait_for(lambda: "STATUS(STOPPED)" in _status(site), what="STOPPED")
    out = mqsc_here(site, "QM1", f"STOP CHANNEL({CHANNEL})\n")
    assert out.returncode == 10 and "AMQ9533E" in out.stdout, out.stdout
    assert "AMQ8023I" in mqsc_here(site, "QM1", f"RESET CHANNEL({CHANNEL})\n").stdout
