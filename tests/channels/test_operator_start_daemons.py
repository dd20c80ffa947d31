"""START CHANNEL of a RETRYING sender, as an operator issues it with runmqsc (its code run in
this process) against queue managers run by strmqm: the channel starts now, with the
definition it has now."""

from __future__ import annotations

import concurrent.futures

from tests.support.daemon_pair import _start, bind, depth, mqsc_here
from tests.support.ports import free_port
from tests.support.waiting import wait_for

from .test_operator_restart import CHANNEL, QM, channel_status, define_sender


def test_start_channel_of_a_retrying_sender_uses_its_altered_conname_now(site):
    """Given QM1's sender TO.QM2 RETRYING towards a closed port (retry timer 600 s) with a
    message for QM2, and QM2 started with a listener and the receiver, when the operator
    alters the sender's CONNAME to QM2's listener and issues START CHANNEL on QM1, then the
    channel runs now with the new CONNAME and the message arrives on QM2."""
    port = free_port()
    assert site.run("crtmqm", "QM2").returncode == 0
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # QM2 starts while QM1 is made
        qm2_started = pool.submit(_start, site, "QM2")
        define_sender(site, free_port(), SHORTRTY=10, SHORTTMR=600)
        qm2_started.result()
    out = mqsc_here(site, "QM2", f"""
        DEFINE LISTENER(TCP.LSTR) TRPTYPE(TCP) PORT({port}) IPADDR(127.0.0.1) CONTROL(QMGR)
        START LISTENER(TCP.LSTR)
        DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) TRPTYPE(TCP)
        SET CHLAUTH('{CHANNEL}') TYPE(BLOCKUSER) USERLIST('nobody')
        DEFINE QLOCAL(TARGET)
    """)
    assert out.returncode == 0, out.stdout
    out = mqsc_here(site, QM, "DEFINE QREMOTE(TARGET.REMOTE) RNAME(TARGET) RQMNAME(QM2) "
                         "XMITQ(NOWHERE)\n")
    assert out.returncode == 0, out.stdout
    qm = bind(site, QM)
    qm.put1("TARGET.REMOTE", b"waited")
    qm.disconnect()
    assert "AMQ8018I" in mqsc_here(site, QM, f"START CHANNEL({CHANNEL})\n").stdout
    wait_for(lambda: "STATUS(RETRYING)" in channel_status(site), what="RETRYING")
    out = mqsc_here(site, QM, f"ALTER CHANNEL({CHANNEL}) CHLTYPE(SDR) "
                         f"CONNAME('127.0.0.1({port})')\n").stdout
    assert "AMQ8016I" in out, out
    assert "AMQ8018I" in mqsc_here(site, QM, f"START CHANNEL({CHANNEL})\n").stdout
    wait_for(lambda: depth(site, "QM2", "TARGET") == 1, timeout=15, what="delivered")
