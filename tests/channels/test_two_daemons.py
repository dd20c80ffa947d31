"""Two queue managers as an operator runs them: strmqm, runmqsc, channels, runmqsc status."""

from __future__ import annotations

import time

import mqpy
from mqpy import CMQC
from tests.support.daemon_pair import bind, depth, mqsc, two_daemons
from tests.support.ports import free_port


def test_sdr_rcvr_between_two_daemons_set_up_with_runmqsc(site):
    """Given two queue managers started with strmqm (each with its channel initiator), a
    listener, RCVR and target queue defined on QM2 and an xmitq, SDR and remote-queue definition
    on QM1 with runmqsc, when 50 persistent messages are put to the remote queue and START
    CHANNEL is issued, then all 50 arrive on QM2, and DISPLAY CHSTATUS shows the channel
    RUNNING with 50 messages.  spec: dqm-intercommunication 9.1; dqm-intercommunication 9.23"""
    port = free_port()
    two_daemons(site)  # crtmqm -u SYSTEM.DEAD.LETTER.QUEUE and strmqm of each (started together)
    # the receiver runs as the (privileged) channel initiator: SET CHLAUTH lifts the
    # default *MQADMIN BLOCKUSER rule for that channel, as an MQ administrator does
    out = mqsc(site, "QM2", f"""
        DEFINE LISTENER(TCP.LSTR) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
        START LISTENER(TCP.LSTR)
        DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(RCVR) TRPTYPE(TCP)
        SET CHLAUTH('QM1.TO.QM2') TYPE(BLOCKUSER) USERLIST('nobody')
        DEFINE QLOCAL(TARGET)
    """)
    assert out.returncode == 0, out.stdout
    out = mqsc(site, "QM1", f"""
        DEFINE QLOCAL(QM2) USAGE(XMITQ)
        DEFINE CHANNEL(QM1.TO.QM2) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2)
        DEFINE QREMOTE(TARGET.REMOTE) RNAME(TARGET) RQMNAME(QM2) XMITQ(QM2)
    """)
    assert out.returncode == 0, out.stdout
    qm = bind(site, "QM1")
    for i in range(50):
        qm.put1("TARGET.REMOTE", b"order %02d" % i,
                mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    qm.disconnect()
    out = mqsc(site, "QM1", "START CHANNEL(QM1.TO.QM2)\n")
    assert "AMQ8018I" in out.stdout, out.stdout
    deadline = time.monotonic() + 30
    while depth(site, "QM2", "TARGET") < 50:
        assert time.monotonic() < deadline, "messages did not arrive"
        time.sleep(0.2)
    assert depth(site, "QM1", "QM2") == 0
    out = mqsc(site, "QM1", "DISPLAY CHSTATUS(QM1.TO.QM2) ALL\n")
    assert "STATUS(RUNNING)" in out.stdout and "MSGS(50)" in out.stdout, out.stdout
    qm = bind(site, "QM2")
    got = mqpy.Queue(qm, "TARGET", CMQC.MQOO_INPUT_AS_Q_DEF)
    assert [got.get() for _ in range(50)] == [b"order %02d" % i for i in range(50)]
    qm.disconnect()
