"""SVRCONN channel instances: shared conversations, MAXINST / MAXINSTC, DISCINT,
heartbeats, and what DISPLAY CHSTATUS shows (client connections)."""

from __future__ import annotations

import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from tests.client.conftest import CHANNEL, QUEUE, wait_for


def test_conversations_share_an_instance_up_to_sharecnv(env):
    """Given SHARECNV(2), when a process makes three client connections, then two share one
    channel instance (CURSHCNV 2, MAXSHCNV 2) and the third starts a second instance."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", SHARECNV=2)
    conns = [env.client() for _ in range(3)]
    statuses = env.chinit.svrconn_statuses()
    assert sorted(s["CURSHCNV"] for s in statuses) == [1, 2]
    assert {s["MAXSHCNV"] for s in statuses} == {2}
    # the shared conversations are independent Hconns (their own units of work)
    q0 = mqpy.Queue(conns[0], QUEUE)
    q0.put(b"uncommitted", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    mqpy.Queue(conns[1], QUEUE).put(b"committed")
    conns[0].backout()
    assert env.depth() == 1
    for qm in conns:
        qm.disconnect()
    assert wait_for(lambda: env.chinit.svrconn_statuses() == [])


def test_sharecnv_zero_is_one_conversation_per_socket_on_plain_tsh(env):
    """Given SHARECNV(0), then every connection is its own instance and still works."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", SHARECNV=0)
    a, b = env.client(), env.client()
    assert a.connection().sharing_conversations == 0
    mqpy.Queue(a, QUEUE).put(b"x")
    assert mqpy.Queue(b, QUEUE, CMQC.MQOO_INPUT_SHARED).get() == b"x"
    assert len(env.chinit.svrconn_statuses()) == 2
    a.disconnect()
    b.disconnect()


def test_maxinst_refuses_with_2537_and_amq9489(env):
    """Given MAXINST(2) and SHARECNV(1), when a third instance starts, then its MQCONN fails
    MQRC_CHANNEL_NOT_AVAILABLE (2537), the log says AMQ9489E, and once an instance ends a new
    connection is accepted again. spec: aliases-channels-storage 4.31"""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", SHARECNV=1, MAXINST=2)
    a, b = env.client(), env.client()
    with pytest.raises(mqpy.MQMIError) as err:
        env.client()
    assert (err.value.comp, err.value.reason) == (CMQC.MQCC_FAILED,
                                                  CMQC.MQRC_CHANNEL_NOT_AVAILABLE)
    assert env.chinit.messages("AMQ9489E")
    a.disconnect()
    assert wait_for(lambda: len(env.chinit.svrconn_statuses()) == 1)
    c = env.client()
    b.disconnect()
    c.disconnect()


def test_maxinstc_limits_one_client_address(env):
    """Given MAXINSTC(1) and SHARECNV(1), when the same client address starts a second
    instance, then it is refused 2537 with AMQ9490E. spec: aliases-channels-storage 4.31"""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", SHARECNV=1, MAXINSTC=1)
    a = env.client()
    with pytest.raises(mqpy.MQMIError) as err:
        env.client()
    assert err.value.reason == CMQC.MQRC_CHANNEL_NOT_AVAILABLE
    assert env.chinit.messages("AMQ9490E")
    a.disconnect()


def test_chstatus_shows_each_client_instance(env):
    """Given two client instances, then CHSTATUS has one SVRCONN entry per instance with
    the client's address, RUNNING, the MQI calls made and the application's name; the
    entries go when the clients disconnect."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", SHARECNV=1)
    a, b = env.client(), env.client()
    mqpy.Queue(a, QUEUE).put(b"counted")
    statuses = env.chinit.svrconn_statuses()
    assert len(statuses) == 2
    for s in statuses:
        assert s["CHLTYPE"] == "SVRCONN" and s["STATUS"] == "RUNNING"
        assert s["CONNAME"] == "127.0.0.1" and s["RAPPLTAG"]
    assert max(s["MSGS"] for s in statuses) >= 3  # MQCONN, MQOPEN, MQPUT
    keys = env.chinit.run_sync(lambda: sorted(env.chinit.chinit.statuses))
    assert len(keys) == 2 and all(k.startswith(CHANNEL + "#") for k in keys)
    a.disconnect()
    b.disconnect()
    assert wait_for(lambda: env.chinit.svrconn_statuses() == [])


def test_discint_ends_an_idle_instance_and_backs_out(env):
    """Given DISCINT(1), when a client puts in syncpoint then makes no call for 2 s, then the
    instance ends (AMQ9001I), the put is backed out and the next call gets 2009.
    spec: aliases-channels-storage 4.30"""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", DISCINT=1)
    qm = env.client()
    queue = mqpy.Queue(qm, QUEUE)
    queue.put(b"abandoned", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    assert wait_for(lambda: env.chinit.svrconn_statuses() == [], timeout=5)
    assert env.chinit.messages("AMQ9001I")
    assert env.depth() == 0 and env.uncommitted() in (0, "NO")
    with pytest.raises(mqpy.MQMIError) as err:
        queue.put(b"too late")
    assert err.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    assert not qm.is_connected


def test_discint_does_not_cut_a_waiting_get(env):
    """Given DISCINT(1), when a client waits 2.5 s in MQGET, then it is not disconnected
    (the interval applies between calls) and gets the message put meanwhile."""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", DISCINT=1)
    qm = env.client()
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    timer = threading.Timer(2.0, lambda: env.engine.connect().put1(
        mqpy.OD(ObjectName=QUEUE.encode()), mqpy.MD(), mqpy.PMO(), b"late"))
    timer.start()
    gmo = mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)
    assert queue.get(None, mqpy.MD(), gmo) == b"late"
    timer.join()
    qm.disconnect()


def test_heartbeats_flow_during_a_wait_and_between_calls(env):
    """Given HBINT(1) at both ends, when a client waits 2.6 s in MQGET and then idles 2.6 s,
    then the channel instance sends heartbeats in both periods (at least one in each: a busy
    machine may delay the second) and the connection survives (nobody times out).
    spec: aliases-channels-storage 4.13 (heartbeats outside MQGET)"""
    env.define("CHANNEL", CHANNEL, CHLTYPE="SVRCONN", HBINT=1)
    qm = env.client(HeartbeatInterval=1)
    assert qm.connection().heartbeat_interval == 1
    queue = mqpy.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)

    def sent() -> int:
        return env.chinit.svrconn_statuses()[0]["BUFSSENT"]

    before = sent()
    with pytest.raises(mqpy.MQMIError) as err:
        queue.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=2600))
    assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    during_wait = sent() - before - 1  # less the MQGET reply
    assert during_wait >= 1
    def flows() -> int:
        status = env.chinit.svrconn_statuses()[0]
        return status["BUFSSENT"] + status["BUFSRCVD"]

    before = flows()
    time.sleep(2.6)
    assert flows() - before >= 2  # heartbeats and their answers, no MQI call
    queue.put(b"still connected")
    assert queue.get() == b"still connected"
    assert not env.chinit.messages("AMQ9259E")
    qm.disconnect()
