"""Automatic client reconnection against a queue manager started by strmqm.

Given a client connection that reconnects (mqclient.ini's CHANNELS DefRecon, the MQCD's
DefReconnect, the MQCNO's MQCNO_RECONNECT), when its connection breaks -- the queue manager
ended with endmqm -r and started again, killed with SIGKILL and started again, its channel
stopped, its connection stopped -- then the program's calls go on over a new connection: its
object handles open again, a call made meanwhile waits, a unit of work in flight is backed
out (MQCMIT says MQRC_BACKED_OUT), the event handler is told MQRC_RECONNECTING then
MQRC_RECONNECTED, and once MQReconnectTimeout has passed without a queue manager the calls
fail with MQRC_RECONNECT_FAILED. Without reconnection the broken connection's calls fail
with MQRC_CONNECTION_BROKEN as before."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Iterator

import pytest

import mqpy
import mqpy as pymqi  # the programs below are written as pymqi programs are
from mqpy import CMQC, CMQXC, clientinstance
from tests.support.endings import client_ini, end_connections, made
from tests.support.installation import gone
from tests.support.site import CHANNEL, QM, QUEUE, Site
from tests.support.site_here import HereSite, started_site

pytestmark = [pytest.mark.system, pytest.mark.timeout(240)]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    yield from started_site(str(tmp_path_factory.mktemp("reconnect") / "data"), None, HereSite)


@pytest.fixture(autouse=True)
def running(site: Site, monkeypatch, tmp_path) -> Iterator[None]:
    """The queue manager running, QUEUE empty, and no mqclient.ini unless a test writes one."""
    monkeypatch.setenv("MQCLNTCF", str(tmp_path / "none.ini"))
    for var in ("MQSERVER", "MQCCDTURL", "MQ_CONNECT_TYPE"):
        monkeypatch.delenv(var, raising=False)
    _ensure_running(site)
    site.mqsc_here(f"CLEAR QLOCAL({QUEUE})\nSTART CHANNEL({CHANNEL})\n", ok=False)
    yield
    end_connections()


#: the connections a test made: disconnected at its end, whatever happened, so that none
#: goes on reconnecting (in the background) during the module's other tests or after it
def _ensure_running(site: Site) -> None:
    """The queue manager started (strmqm) unless it runs, and taking client connections."""
    if site.inst.pid(QM) is None or not _listening(site):
        proc = site.inst.run("strmqm", QM)
        assert proc.returncode in (0, 5), proc.stdout + proc.stderr  # 5: already running
        site._wait_listening()
    deadline = time.monotonic() + 60
    while True:
        try:
            site.client().disconnect()
            return
        except pymqi.MQMIError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _listening(site: Site) -> bool:
    try:
        socket.create_connection(("127.0.0.1", site.port), timeout=1).close()
        return True
    except OSError:
        return False


def _restart(site: Site, *end: str) -> None:
    """endmqm ``end`` (by default -i -r: reconnectable clients reconnect, as IBM's) then
    strmqm."""
    proc = site.inst.run("endmqm", *(end or ("-i", "-r")), QM)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _ensure_running(site)


def _kill_and_restart(site: Site) -> None:
    """The daemon and its channel initiator killed with SIGKILL, then strmqm."""
    pids = {site.inst.pid(QM), site.inst.chinit_pid(QM)} - {None}
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    site.inst.wait_ended(QM)
    deadline = time.monotonic() + 30
    while (not all(gone(pid) for pid in pids) or _listening(site)) \
            and time.monotonic() < deadline:
        time.sleep(0.1)  # (the listener's port free again before strmqm)
    _ensure_running(site)


def _pymqi_client(site: Site, **cd_fields) -> pymqi.QueueManager:
    """A pymqi program's client connection (``connect_tcp_client``)."""
    qmgr = made(pymqi.QueueManager(None))
    qmgr.connect_tcp_client(QM, pymqi.CD(**cd_fields), CHANNEL, site.conn_info)
    return qmgr


PERSISTENT = CMQC.MQPER_PERSISTENT
IN_OUT = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_FAIL_IF_QUIESCING


def test_a_program_goes_on_putting_and_getting_across_a_queue_manager_restart(
        site, tmp_path, monkeypatch):
    """Given mqclient.ini's DefRecon=YES and a pymqi program with a queue open, when the
    queue manager is ended (endmqm -i -r) and started again, then its next get gets the
    persistent message put before, over the same Queue, and it goes on putting and getting."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES")
    qmgr = _pymqi_client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    queue.put(b"before", pymqi.MD(Persistence=PERSISTENT))
    _restart(site)
    assert queue.get() == b"before"
    for i in range(3):
        queue.put(b"after%d" % i)
        assert queue.get() == b"after%d" % i
    assert qmgr.is_connected
    queue.close()
    qmgr.disconnect()


def test_without_reconnection_the_broken_connection_fails_2009(site):
    """Given a client connection made without any reconnect option, when the queue manager
    restarts, then its next call fails with MQRC_CONNECTION_BROKEN, as before."""
    qmgr = _pymqi_client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    _restart(site)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"x")
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN


def test_the_mqcd_defreconnect_reconnects_after_the_queue_manager_was_killed(site):
    """Given a pymqi program whose MQCD has DefReconnect MQRCN_YES (connect_with_options),
    when the queue manager and its channel initiator are killed with SIGKILL and started
    again, then its calls go on: the queue opened before is open again."""
    cd = pymqi.CD(ChannelName=CHANNEL.encode(), ConnectionName=site.conn_info.encode(),
                  DefReconnect=CMQXC.MQRCN_YES)
    qmgr = made(pymqi.QueueManager(None))
    qmgr.connect_with_options(QM, cd=cd)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    queue.put(b"kept", pymqi.MD(Persistence=PERSISTENT))
    _kill_and_restart(site)
    assert queue.get() == b"kept"
    qmgr.disconnect()


def test_reconnect_disabled_in_mqclient_ini_wins_over_the_channel(site, tmp_path, monkeypatch):
    """Given DefRecon=DISABLED in mqclient.ini, when the MQCD asks for reconnection, then
    the connection does not reconnect (2009)."""
    client_ini(tmp_path, monkeypatch, DefRecon="DISABLED")
    qmgr = _pymqi_client(site, DefReconnect=CMQXC.MQRCN_YES)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    _restart(site)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"x")
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN


def test_stop_conn_and_stop_channel_are_reconnected(site, tmp_path, monkeypatch):
    """Given a reconnecting connection, when its connection is stopped (STOP CONN), then its
    next call goes on over a new one; when its channel is stopped (STOP CHANNEL), then a call
    waits while new channels are refused, and goes on once the channel is started again."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(200,50)")
    qmgr = _pymqi_client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    queue.put(b"one")
    out = site.mqsc_here(f"DISPLAY CONN(*) WHERE(CHANNEL EQ {CHANNEL})\n")
    connids = [part.split(")")[0] for part in out.split("CONN(")[1:]]
    assert connids
    for connid in connids:
        site.mqsc_here(f"STOP CONN({connid})\n", ok=False)
    assert queue.get() == b"one"
    site.mqsc_here(f"STOP CHANNEL({CHANNEL}) MODE(FORCE)\n")
    threading.Timer(2.0, site.mqsc_here, (f"START CHANNEL({CHANNEL})\n",)).start()
    time.sleep(0.5)  # (its end seen by the client between calls)
    start = time.monotonic()
    queue.put(b"two", pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    assert time.monotonic() - start > 1.0  # it waited for the channel
    assert queue.get() == b"two"
    qmgr.disconnect()


def test_a_unit_of_work_in_flight_is_backed_out_and_mqcmit_says_so(site, tmp_path,
                                                                    monkeypatch):
    """Given a put under syncpoint not yet committed, when the connection is reconnected,
    then a put under syncpoint fails with MQRC_BACKED_OUT, MQCMIT answers MQRC_BACKED_OUT
    (MQCC_WARNING) and the message is not on the queue; the next unit of work commits."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES")
    qmgr = _pymqi_client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    sync = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    queue.put(b"lost", pymqi.MD(Persistence=PERSISTENT), sync)
    _restart(site)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"in the same unit", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    assert (e.value.comp, e.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_BACKED_OUT)
    with pytest.raises(pymqi.MQMIError) as e:
        qmgr.commit()
    assert (e.value.comp, e.value.reason) == (CMQC.MQCC_WARNING, CMQC.MQRC_BACKED_OUT)
    queue.put(b"next", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qmgr.commit()
    assert queue.get() == b"next"
    with pytest.raises(pymqi.MQMIError) as e:
        queue.get()
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    qmgr.disconnect()


def test_the_event_handler_is_told_reconnecting_then_reconnected(site, tmp_path, monkeypatch):
    """Given an event handler registered (MQCB, MQCBT_EVENT_HANDLER) on a reconnecting
    connection, when the queue manager restarts and the program makes a call, then the
    handler is called with MQRC_RECONNECTING (MQCC_WARNING) then MQRC_RECONNECTED."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES")
    qmgr = _pymqi_client(site)
    events: list[tuple[int, int]] = []

    def handler(queue_manager, queue, md, gmo, msg, cbc):
        events.append((cbc.CompCode, cbc.Reason))

    qmgr.cb(operation=CMQC.MQOP_REGISTER,
            cbd=pymqi.CBD(CallbackType=CMQC.MQCBT_EVENT_HANDLER, CallbackFunction=handler))
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    _restart(site)
    queue.put(b"x")
    assert events == [(CMQC.MQCC_WARNING, CMQC.MQRC_RECONNECTING),
                      (CMQC.MQCC_OK, CMQC.MQRC_RECONNECTED)]
    sts = qmgr.stat(CMQC.MQSTAT_TYPE_RECONNECTION)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)
    qmgr.disconnect()


def test_reconnect_failed_once_the_reconnect_timeout_has_passed(site, tmp_path, monkeypatch):
    """Given MQReconnectTimeout=2 in mqclient.ini, when the queue manager ends (endmqm -r)
    and does not come back, then the next call waits about that long and fails with
    MQRC_RECONNECT_FAILED, as do the later ones; the event handler is told, and MQSTAT says
    the connection failed to reconnect."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES", MQReconnectTimeout="2",
                ReconDelay="(300,0)")
    qmgr = _pymqi_client(site)
    events: list[int] = []
    qmgr.cb(operation=CMQC.MQOP_REGISTER, cbd=pymqi.CBD(
        CallbackType=CMQC.MQCBT_EVENT_HANDLER,
        CallbackFunction=lambda **kw: events.append(kw["cbc"].Reason)))
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    assert site.inst.run("endmqm", "-i", "-r", QM).returncode == 0
    start = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"x")
    assert e.value.reason == CMQC.MQRC_RECONNECT_FAILED
    assert 1.5 < time.monotonic() - start < 10
    with pytest.raises(pymqi.MQMIError) as e:
        queue.get()
    assert e.value.reason == CMQC.MQRC_RECONNECT_FAILED
    assert events == [CMQC.MQRC_RECONNECTING, CMQC.MQRC_RECONNECT_FAILED]
    sts = qmgr.stat(CMQC.MQSTAT_TYPE_RECONNECTION)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_RECONNECT_FAILED)


def test_a_waiting_get_goes_on_waiting_on_the_new_connection(site, tmp_path, monkeypatch):
    """Given a get waiting for a message, when the queue manager restarts, then the get
    goes on waiting over the new connection and gets the message put after the restart."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(200,50)")
    qmgr = _pymqi_client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    got: list[object] = []

    def wait_for_one() -> None:
        try:
            got.append(queue.get(None, pymqi.MD(), pymqi.GMO(
                Options=CMQC.MQGMO_WAIT, WaitInterval=60_000)))
        except pymqi.MQMIError as e:
            got.append(e.reason)

    waiter = threading.Thread(target=wait_for_one)
    waiter.start()
    time.sleep(0.5)
    _restart(site)
    other = made(site.client())
    time.sleep(1.5)  # (the waiting get is made again once reconnected)
    pymqi.Queue(other, QUEUE, CMQC.MQOO_OUTPUT).put(b"for the waiter")
    waiter.join(60)
    assert got == [b"for the waiter"]
    other.disconnect()
    qmgr.disconnect()


def test_a_persistent_put_cut_off_in_flight_is_call_interrupted(site, tmp_path, monkeypatch):
    """Given a reconnecting connection, when its socket is cut while a persistent put
    outside syncpoint waits for its reply (its outcome not known), then the put answers
    MQRC_CALL_INTERRUPTED, and the connection goes on (reconnected)."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(100,0)")
    qmgr = _pymqi_client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    conn = qmgr.connection()
    original = clientinstance.ChannelInstance._write
    original_receive = clientinstance.ChannelInstance._receive
    cut: list[bool] = []
    lost: list[bool] = []

    def write_then_cut(self, data):
        original(self, data)
        if not cut:
            cut.append(True)
            self.sock.shutdown(socket.SHUT_RDWR)

    def lost_after_the_cut(self):
        # (the reply may be in the socket's buffer before the cut: it is lost all the same)
        if cut and not lost:
            lost.append(True)
            raise clientinstance.InstanceLost()
        return original_receive(self)

    monkeypatch.setattr(clientinstance.ChannelInstance, "_write", write_then_cut)
    monkeypatch.setattr(clientinstance.ChannelInstance, "_receive", lost_after_the_cut)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"maybe", pymqi.MD(Persistence=PERSISTENT))
    assert e.value.reason == CMQC.MQRC_CALL_INTERRUPTED
    monkeypatch.setattr(clientinstance.ChannelInstance, "_write", original)
    monkeypatch.setattr(clientinstance.ChannelInstance, "_receive", original_receive)
    queue.put(b"sure")
    assert conn.connected
    got = [queue.get(), *([queue.get()] if site.inst.pid(QM) else [])][:2]
    assert b"sure" in got
    qmgr.disconnect()


def test_logical_order_is_reconnect_incompatible(site, tmp_path, monkeypatch):
    """Given a reconnecting connection, when a put asks for MQPMO_LOGICAL_ORDER, then it
    fails with MQRC_RECONNECT_INCOMPATIBLE (the queue manager's group state would be lost)."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES")
    qmgr = _pymqi_client(site)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"x", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    assert e.value.reason == CMQC.MQRC_RECONNECT_INCOMPATIBLE
    qmgr.disconnect()


# -- connecting with the MQCNO's options ---------------------------------------------------


def test_a_pymqi_program_with_mqcno_reconnect_goes_on_across_a_restart(site):
    """Given a pymqi program connecting with an MQCNO whose Options has MQCNO_RECONNECT
    (connect_with_options(cd=..., opts=...)), when the queue manager restarts, then its
    calls go on."""
    cd = pymqi.CD(ChannelName=CHANNEL.encode(), ConnectionName=site.conn_info.encode())
    qmgr = made(pymqi.QueueManager(None))
    qmgr.connect_with_options(QM, cd, CMQC.MQCNO_RECONNECT)
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    queue.put(b"before", pymqi.MD(Persistence=PERSISTENT))
    _restart(site)
    assert queue.get() == b"before"
    qmgr.disconnect()


def test_an_ibmmq_program_with_cno_options_reconnect_goes_on_across_a_restart(site):
    """The ibmmq shape: an MQCNO whose Options has MQCNO_RECONNECT_Q_MGR, passed as
    ``cno=``, with the MQCD; the queue manager restarts; its calls go on."""
    cno = mqpy.CNO()
    cno.Options = CMQC.MQCNO_RECONNECT_Q_MGR
    cd = mqpy.CD(ChannelName=CHANNEL.encode(), ConnectionName=site.conn_info.encode())
    qmgr = made(mqpy.QueueManager(None))
    qmgr.connect_with_options(QM, cd=cd, cno=cno)
    queue = mqpy.Queue(qmgr, QUEUE, IN_OUT)
    _restart(site)
    queue.put(b"after")
    assert queue.get() == b"after"
    qmgr.disconnect()


def test_mqcno_reconnect_is_refused_for_a_bindings_connection(site):
    """IBM: reconnection is for client connections; MQCONNX in bindings mode with
    MQCNO_RECONNECT fails (MQRC_OPTIONS_ERROR)."""
    qmgr = made(pymqi.QueueManager(None))
    with pytest.raises(pymqi.MQMIError) as e:
        qmgr.connect_with_options(QM, opts=CMQC.MQCNO_RECONNECT)
    assert e.value.reason == CMQC.MQRC_OPTIONS_ERROR


@pytest.fixture(scope="module")
def standard_site(tmp_path_factory) -> Iterator[Site]:
    """A second queue manager, its client calls relayed by its channel initiator
    (MQIBindType=STANDARD), where ``site``'s daemon serves them (FASTPATH)."""
    yield from started_site(str(tmp_path_factory.mktemp("reconnect_std") / "data"),
                            {"MQIBindType": "STANDARD"}, HereSite)


@pytest.fixture(params=["FASTPATH", "STANDARD"])
def either_site(request, site) -> Site:
    """``site`` (FASTPATH), then :func:`standard_site`, running with QUEUE empty."""
    if request.param == "FASTPATH":
        return site
    standard = request.getfixturevalue("standard_site")
    _ensure_running(standard)
    standard.mqsc_here(f"CLEAR QLOCAL({QUEUE})\nSTART CHANNEL({CHANNEL})\n", ok=False)
    return standard


@pytest.mark.parametrize("sharecnv", [10, 0])
def test_a_plain_endmqm_does_not_reconnect_reconnectable_clients(
        either_site, tmp_path, monkeypatch, sharecnv):
    """IBM: "If you issue endmqm to stop a queue manager, reconnectable clients do not try
    to reconnect" (unless -r). Given a reconnectable client with a queue open, on an
    instance that shares conversations (told by a SOCKET_ACTION QM_QUIESCE) or does not (a
    STATUS QM_TERMINATING), when the queue manager is ended by endmqm -i and started
    again, then the client's next call fails with MQRC_CONNECTION_BROKEN and it never
    reconnected."""
    site = either_site
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(100,0)")
    qmgr = _pymqi_client(site, SharingConversations=sharecnv)
    events: list[int] = []
    qmgr.cb(operation=CMQC.MQOP_REGISTER, cbd=pymqi.CBD(
        CallbackType=CMQC.MQCBT_EVENT_HANDLER,
        CallbackFunction=lambda **kw: events.append(kw["cbc"].Reason)))
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    _restart(site, "-i")
    with pytest.raises(pymqi.MQMIError) as e:
        queue.put(b"x")
    assert e.value.reason == CMQC.MQRC_CONNECTION_BROKEN
    assert CMQC.MQRC_RECONNECTED not in events


def test_endmqm_r_then_strmqm_lets_a_reconnectable_client_go_on(either_site, tmp_path,
                                                                 monkeypatch):
    """Given a reconnectable client with a queue open and a persistent message put, when
    the queue manager is ended with endmqm -i -r (told RECONNECT_CLIENTS) and started
    again, then the client's next get gets that message over the same Queue, its event
    handler was told MQRC_RECONNECTING then MQRC_RECONNECTED, and it goes on putting."""
    site = either_site
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(200,50)")
    qmgr = _pymqi_client(site)
    events: list[int] = []
    qmgr.cb(operation=CMQC.MQOP_REGISTER, cbd=pymqi.CBD(
        CallbackType=CMQC.MQCBT_EVENT_HANDLER,
        CallbackFunction=lambda **kw: events.append(kw["cbc"].Reason)))
    queue = pymqi.Queue(qmgr, QUEUE, IN_OUT)
    queue.put(b"before", pymqi.MD(Persistence=PERSISTENT))
    _restart(site, "-i", "-r")
    assert queue.get() == b"before"
    assert events[:2] == [CMQC.MQRC_RECONNECTING, CMQC.MQRC_RECONNECTED]
    queue.put(b"after")
    assert queue.get() == b"after"
    queue.close()
    qmgr.disconnect()


def test_a_managed_subscription_is_made_again(site, tmp_path, monkeypatch):
    """Given a managed non-durable subscription, when the queue manager restarts, then a
    publication made after it reaches the subscription's handle, as before."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(200,50)")
    qmgr = _pymqi_client(site)
    sd = pymqi.SD(Options=CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED | CMQC.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", "reconnect/news")
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_desc=sd)
    _restart(site)
    publisher = made(site.client())
    topic = pymqi.Topic(publisher, topic_string="reconnect/news")
    topic.open(open_opts=CMQC.MQOO_OUTPUT)
    sub_queue = sub.sub_queue
    with pytest.raises(pymqi.MQMIError) as e:  # (made once reconnected, by this call)
        sub_queue.get()
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    topic.pub(b"after the restart")
    assert sub_queue.get() == b"after the restart"
    topic.close()
    publisher.disconnect()
    sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    qmgr.disconnect()


def test_an_asynchronous_consumer_goes_on_consuming(site, tmp_path, monkeypatch):
    """Given a message consumer started with MQCTL (its queue's handle registered by MQCB),
    when the queue manager restarts, then a message put after it is given to the consumer,
    and the event handler was told of the reconnection."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(200,50)")
    qmgr = _pymqi_client(site)
    got: list[bytes] = []
    events: list[int] = []
    qmgr.cb(operation=CMQC.MQOP_REGISTER, cbd=pymqi.CBD(
        CallbackType=CMQC.MQCBT_EVENT_HANDLER,
        CallbackFunction=lambda **kw: events.append(kw["cbc"].Reason)))
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INPUT_SHARED)

    def consume(queue_manager, queue, md, gmo, msg, cbc):
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED:
            got.append(msg)

    queue.cb(operation=CMQC.MQOP_REGISTER, cbd=pymqi.CBD(CallbackFunction=consume),
             gmo=pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                           WaitInterval=CMQC.MQWI_UNLIMITED))
    qmgr.ctl(CMQC.MQOP_START)
    _restart(site)
    other = made(site.client())
    pymqi.Queue(other, QUEUE, CMQC.MQOO_OUTPUT).put(b"to the consumer")
    deadline = time.monotonic() + 30
    while not got and time.monotonic() < deadline:
        time.sleep(0.05)
    assert got == [b"to the consumer"]
    assert events[:2] == [CMQC.MQRC_RECONNECTING, CMQC.MQRC_RECONNECTED]
    qmgr.ctl(CMQC.MQOP_STOP)
    other.disconnect()
    qmgr.disconnect()


def test_an_idle_connection_reconnects_at_once_and_mqstat_says_so(site, tmp_path,
                                                                   monkeypatch):
    """Given a reconnecting connection making no call, when the queue manager ends, then
    its event handler is told MQRC_RECONNECTING at once and MQSTAT(MQSTAT_TYPE_RECONNECTION)
    says MQRC_RECONNECTING; when it is started again, then MQRC_RECONNECTED comes without
    any call of the program, and MQSTAT says the connection is connected."""
    client_ini(tmp_path, monkeypatch, DefRecon="YES", ReconDelay="(200,50)")
    qmgr = _pymqi_client(site)
    events: list[int] = []
    qmgr.cb(operation=CMQC.MQOP_REGISTER, cbd=pymqi.CBD(
        CallbackType=CMQC.MQCBT_EVENT_HANDLER,
        CallbackFunction=lambda **kw: events.append(kw["cbc"].Reason)))
    pymqi.Queue(qmgr, QUEUE, IN_OUT)
    assert site.inst.run("endmqm", "-i", "-r", QM).returncode == 0
    deadline = time.monotonic() + 10
    while not events and time.monotonic() < deadline:
        time.sleep(0.05)
    assert events == [CMQC.MQRC_RECONNECTING]
    sts = qmgr.stat(CMQC.MQSTAT_TYPE_RECONNECTION)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_WARNING, CMQC.MQRC_RECONNECTING)
    _ensure_running(site)
    deadline = time.monotonic() + 30
    while len(events) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert events == [CMQC.MQRC_RECONNECTING, CMQC.MQRC_RECONNECTED]
    sts = qmgr.stat(CMQC.MQSTAT_TYPE_RECONNECTION)
    assert (sts.CompCode, sts.Reason) == (CMQC.MQCC_OK, CMQC.MQRC_NONE)
    qmgr.disconnect()
