"""A receiving channel that dead-letters steadily, under the error-log suppression an
operator sets in qm.ini (QMErrorLog SuppressMessage/SuppressInterval): two queue managers
as deployed (strmqm), the receiving MCA in the channel initiator's process."""

from __future__ import annotations

import concurrent.futures
import os

import pytest

import mqpy
from mqpy import CMQC, config
from mqpy.errorlog import read_entries
from tests.support.daemon_pair import _start, bind, depth, mqsc_here
from tests.support.ports import free_port
from tests.support.waiting import wait_for

pytestmark = pytest.mark.system

N = 100
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def test_given_amq9544_suppressed_when_a_hundred_messages_are_dead_lettered_then_one_entry(
        site):
    """Given QM2's qm.ini with QMErrorLog SuppressMessage=9544 and SuppressInterval=600,
    written before strmqm, when 100 persistent messages for a queue QM2 does not have arrive
    over a channel, then all 100 are on QM2's dead-letter queue and its error log has one
    AMQ9544W (not one a message), while the channel's other entries (AMQ9002I, channel
    started) are still written."""
    port = free_port()
    for name in ("QM1", "QM2"):
        assert site.run("crtmqm", "-u", DLQ, name).returncode == 0
    ini = os.path.join(site.qmdir("QM2"), "qm.ini")
    config.write_stanzas(ini, [*config.read_stanzas(ini), (
        "QMErrorLog", {"SuppressMessage": "9544", "SuppressInterval": "600"})])
    with concurrent.futures.ThreadPoolExecutor(2) as pool:  # (strmqm: one each, at once)
        for started in [pool.submit(_start, site, name) for name in ("QM1", "QM2")]:
            started.result()
    out = mqsc_here(site, "QM2", f"""
        DEFINE LISTENER(L) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
        START LISTENER(L)
        DEFINE CHANNEL(C) CHLTYPE(RCVR)
        SET CHLAUTH('C') TYPE(BLOCKUSER) USERLIST('nobody')
    """)
    assert out.returncode == 0, out.stdout
    out = mqsc_here(site, "QM1", f"""
        DEFINE QLOCAL(QM2) USAGE(XMITQ) TRIGGER TRIGTYPE(FIRST) +
               INITQ(SYSTEM.CHANNEL.INITQ) TRIGDATA(C)
        DEFINE CHANNEL(C) CHLTYPE(SDR) CONNAME('127.0.0.1({port})') XMITQ(QM2) +
               BATCHSZ(10) SHORTTMR(1)
        DEFINE QREMOTE(NOWHERE) RNAME(NOSUCH.Q) RQMNAME(QM2) XMITQ(QM2)
    """)
    assert out.returncode == 0, out.stdout
    qm = bind(site, "QM1")
    q = mqpy.Queue(qm, "NOWHERE", CMQC.MQOO_OUTPUT)
    for i in range(N):
        q.put(b"%03d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
              mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    qm.disconnect()
    wait_for(lambda: depth(site, "QM2", DLQ) == N, 120, f"{N} messages dead-lettered")
    ids = [e.msgid for e in read_entries(os.path.join(site.qmdir("QM2"), "errors"))]
    assert ids.count("AMQ9544W") == 1, ids
    assert "AMQ9002I" in ids
