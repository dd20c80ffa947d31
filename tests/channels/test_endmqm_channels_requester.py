"""A requester-server channel through a controlled end (endmqm -c) of either queue manager.

IBM: the channel initiator ends with its queue manager, its server channels as STOP
CHANNEL MODE(QUIESCE) STATUS(INACTIVE) ends them (the batch in progress completed with the
partner) and its other channels, requesters among them, as MODE(FORCE) (a batch in doubt is
resolved when the channel next starts).

Given QM1's requester C (started with START CHANNEL) calling QM2's server C, which sends
600 persistent messages in batches of 10, when endmqm -c is issued to QM1 (the requester's
end) or to QM2 (the server's) while batches flow, then that queue manager ends within
seconds, and once it is started again and the requester with it, every message arrives at
QM1, once and in order, and none is left on QM2's transmission queue.
"""

from __future__ import annotations

import time

import pytest

import mqpy
from mqpy import CMQC, inprocess
from tests.support.daemon_pair import bind, command_server, depth, drain, mqsc_here, two_daemons
from tests.support.endings import came
from tests.support.installation import Installation
from tests.support.ports import free_port

pytestmark = [pytest.mark.system, pytest.mark.timeout(300)]

N = 600
#: how long a controlled end may take with a batch in flight
PROMPTLY = 10.0


def _pair(site: Installation) -> None:
    """QM1's RQSTR C calling QM2's SVR C (BATCHSZ 10), N messages put at QM2 for QM1, and
    C started at QM1: the batches flowing."""
    port = free_port()
    two_daemons(site)
    # the server runs as the (privileged) channel initiator: SET CHLAUTH lifts the default
    # *MQADMIN BLOCKUSER rule for that channel, as an MQ administrator does
    command_server(site, "QM2", f"""
        DEFINE LISTENER(L) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
        START LISTENER(L)
        DEFINE QLOCAL(QM1) USAGE(XMITQ) MAXDEPTH(100000)
        DEFINE CHANNEL(C) CHLTYPE(SVR) XMITQ(QM1) BATCHSZ(10) DISCINT(0)
        SET CHLAUTH('C') TYPE(BLOCKUSER) USERLIST('nobody')
        DEFINE QREMOTE(REMOTE) RNAME(TARGET) RQMNAME(QM1) XMITQ(QM1)
    """)
    command_server(site, "QM1", f"""
        DEFINE QLOCAL(TARGET) MAXDEPTH(100000)
        DEFINE CHANNEL(C) CHLTYPE(RQSTR) CONNAME('127.0.0.1({port})')
    """)
    qm = bind(site, "QM2")
    q = mqpy.Queue(qm, "REMOTE", CMQC.MQOO_OUTPUT)
    for i in range(N):
        q.put(b"%05d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
              mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    qm.disconnect()
    command_server(site, "QM1", "START CHANNEL(C)\n")
    assert came(lambda: _arrived(site) > 0, 30), "the batches did not flow"


def _arrived(site: Installation) -> int:
    try:
        return depth(site, "QM1", "TARGET")
    except mqpy.MQMIError:
        return -1


def _end_promptly(site: Installation, name: str) -> None:
    assert site.run("endmqm", "-c", name).returncode == 0
    started = time.monotonic()
    assert came(lambda: not inprocess.is_locked(site.qmdir(name)), PROMPTLY), \
        f"{name}'s controlled end waited for its channel"
    assert time.monotonic() - started < PROMPTLY


def _all_arrive_once_in_order(site: Installation) -> None:
    assert came(lambda: _arrived(site) >= N, 120), f"only {_arrived(site)} of {N} arrived"
    time.sleep(1.0)  # a duplicate would arrive now, if there were one
    data = drain(site, "QM1")
    assert data == [b"%05d" % i for i in range(N)]
    assert depth(site, "QM2", "QM1") == 0


@pytest.mark.parametrize("ended", ["QM1", "QM2"])
def test_a_controlled_end_ends_a_requester_server_channel_promptly(site, ended):
    """Given the server's batches flowing to the requester, when endmqm -c ends QM1 (the
    requester's end) or QM2 (the server's), then it ends within seconds, and once it is
    started again (and C at QM1) every message arrives once and in order."""
    _pair(site)
    _end_promptly(site, ended)
    assert site.run("strmqm", ended).returncode == 0
    # the requester started again (ended INACTIVE at QM1's end, by its error at QM2's)
    mqsc_here(site, "QM1", "START CHANNEL(C)\n")
    _all_arrive_once_in_order(site)
