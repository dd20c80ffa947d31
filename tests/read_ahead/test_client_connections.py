"""Client connections through a SVRCONN channel, relayed (MQIBindType=STANDARD) and served by
the daemon (MQIBindType=FASTPATH, what crtmqm writes): the read-ahead options are accepted and
gets behave as IBM documents; either way messages are streamed to the client's buffer (the
relay passes read ahead's flows between client and daemon); asynchronous consume works."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC
from tests.support.site import ADMIT_OWNER
from tests.support.site_here import HereSite

pytestmark = pytest.mark.system

NP = CMQC.MQPER_NOT_PERSISTENT


@pytest.fixture(scope="module", params=["relay", "fastpath"])
def site(request, tmp_path_factory):
    channels = {"MQIBindType": "FASTPATH" if request.param == "fastpath" else "STANDARD"}
    s = HereSite(str(tmp_path_factory.mktemp(f"ra-{request.param}") / "data"), channels)
    try:
        s.start()
        s.mqsc(ADMIT_OWNER + "DEFINE QLOCAL(RA.CQ) DEFREADA(YES)\n")
        yield s
    finally:
        s.stop()


def test_read_ahead_options_over_a_client_connection(site):
    """Given a client connection and a queue with DEFREADA(YES), when it opens the queue
    with MQOO_READ_AHEAD (and AS_Q_DEF) and gets persistent and non-persistent messages,
    then it gets them all in order, once; with both MQOO_READ_AHEAD and
    MQOO_NO_READ_AHEAD, MQOPEN is MQRC_OPTIONS_ERROR (2046)."""
    qm = site.client()
    try:
        out = mqpy.Queue(qm, "RA.CQ", CMQC.MQOO_OUTPUT)
        bodies = [b"c%d" % i for i in range(6)]
        got = []
        for n, option in enumerate((CMQC.MQOO_READ_AHEAD, CMQC.MQOO_READ_AHEAD_AS_Q_DEF)):
            for i in range(3 * n, 3 * n + 3):  # what each handle gets, no more: a handle
                # closed with messages read ahead loses them
                out.put(bodies[i], mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT if i % 3 == 1
                                           else NP))
            q = mqpy.Queue(qm, "RA.CQ", CMQC.MQOO_INPUT_SHARED | option)
            got += [q.get(None) for _ in range(3)]
            q.close()
        assert got == bodies
        with pytest.raises(mqpy.MQMIError) as e:
            mqpy.Queue(qm, "RA.CQ", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD
                       | CMQC.MQOO_NO_READ_AHEAD)
        assert e.value.reason == CMQC.MQRC_OPTIONS_ERROR
    finally:
        qm.disconnect()


def test_asynchronous_consume_over_a_client_connection(site):
    """Given a client connection with a consumer registered on a queue holding five
    messages, when MQOP_START_WAIT runs and the function stops the connection at the last,
    then it was called for the five in order."""
    qm = site.client()
    try:
        out = mqpy.Queue(qm, "RA.CQ", CMQC.MQOO_OUTPUT)
        for i in range(5):
            out.put(b"a%d" % i, mqpy.MD(Persistence=NP))
        got = []

        def consume(*, queue_manager, queue, md, gmo, msg, cbc):
            if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED:
                got.append(msg)
                if len(got) == 5:
                    queue_manager.ctl(CMQC.MQOP_STOP)

        q = mqpy.Queue(qm, "RA.CQ", CMQC.MQOO_INPUT_SHARED)
        q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=consume),
             gmo=mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        qm.ctl(CMQC.MQOP_START_WAIT)
        assert got == [b"a%d" % i for i in range(5)]
    finally:
        qm.disconnect()


def test_clients_are_streamed_ahead_relayed_or_fastpath(site):
    """Given five non-persistent messages and a client handle opened with MQOO_READ_AHEAD,
    when it gets the first, then the rest were already sent to the client (the queue is
    empty), whether the channel initiator relays its calls to the daemon (STANDARD) or the
    daemon serves it (FASTPATH), as IBM streams to every client; the client then gets the
    four in order, and has none left."""
    qm = site.client()
    local = site.bindings()
    try:
        out = mqpy.Queue(qm, "RA.CQ", CMQC.MQOO_OUTPUT)
        for i in range(5):
            out.put(b"s%d" % i, mqpy.MD(Persistence=NP))
        q = mqpy.Queue(qm, "RA.CQ", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD)
        assert q.get(None) == b"s0"
        depth = mqpy.Queue(local, "RA.CQ", CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        assert depth == 0
        assert [q.get(None) for _ in range(4)] == [b"s1", b"s2", b"s3", b"s4"]
        with pytest.raises(mqpy.MQMIError) as e:
            q.get(None)
        assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        q.close()
    finally:
        local.disconnect()
        qm.disconnect()
