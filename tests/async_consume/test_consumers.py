"""MQCB and MQCTL over embedded and bindings connections, in the shape of IBM's ibmmq package
(``Queue.cb``, ``QueueManager.cb`` / ``ctl``, functions called with keyword arguments)."""

from __future__ import annotations

import threading
import time

import pytest

import mqpy
from mqpy import CMQC
from mqpy.bindings import BindingsConnection
from tests.async_consume.conftest import Recorder, put

pytestmark = pytest.mark.system  # the bindings connections' queue manager: strmqm

IN = CMQC.MQOO_INPUT_SHARED
NOSYNC = mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
CALLS = CMQC.MQCBDO_START_CALL | CMQC.MQCBDO_STOP_CALL


def _register(qm, queue: str, fn, *, options: int = 0, gmo=None, open_options: int = IN):
    q = mqpy.Queue(qm, queue, open_options)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=fn, Options=options),
         md=mqpy.MD(), gmo=gmo if gmo is not None else NOSYNC)
    return q


def test_started_consumers_get_each_message_in_order_then_stop(qm):
    """Given a consumer registered with start and stop calls and ten messages, when the
    connection is started (MQOP_START), then the function is called with MQCBCT_START_CALL,
    then MQCBCT_MSG_REMOVED for each message in order (DataLength its length), and after
    MQOP_STOP from the application's thread with MQCBCT_STOP_CALL."""
    put(qm, "AC.Q1", [b"m%d" % i for i in range(10)])
    rec = Recorder()
    _register(qm, "AC.Q1", rec, options=CALLS)
    qm.ctl(CMQC.MQOP_START, mqpy.CTLO(ConnectionArea=b"area"))
    assert rec.wait_for(10) == [b"m%d" % i for i in range(10)]
    qm.ctl(CMQC.MQOP_STOP)
    types = [t for t, _r, _m in rec.calls]
    assert types[0] == CMQC.MQCBCT_START_CALL and types[-1] == CMQC.MQCBCT_STOP_CALL
    assert types[1:-1] == [CMQC.MQCBCT_MSG_REMOVED] * 10


def test_other_threads_calls_are_2500_while_started(qm):
    """Given a started connection, when the application's thread calls MQPUT on it, then
    MQRC_HCONN_ASYNC_ACTIVE (2500); after MQOP_STOP the call works."""
    rec = Recorder()
    _register(qm, "AC.Q1", rec)
    out = mqpy.Queue(qm, "AC.Q2", CMQC.MQOO_OUTPUT)
    qm.ctl(CMQC.MQOP_START)
    with pytest.raises(mqpy.MQMIError) as e:
        out.put(b"x")
    assert e.value.reason == CMQC.MQRC_HCONN_ASYNC_ACTIVE
    qm.ctl(CMQC.MQOP_STOP)
    out.put(b"x")


def test_a_callback_may_call_the_mqi_and_stop_start_wait(qm):
    """Given MQOP_START_WAIT, when the consumer puts each message it gets to another queue
    and issues MQOP_STOP at the fifth, then MQCTL returns to the caller after five, and the
    five are on the other queue."""
    def forward(*, queue_manager, queue, md, gmo, msg, cbc):
        if cbc.CallType != CMQC.MQCBCT_MSG_REMOVED:
            return
        mqpy.Queue(queue_manager, "AC.Q2", CMQC.MQOO_OUTPUT).put(msg)
        if msg == b"f4":
            queue_manager.ctl(CMQC.MQOP_STOP)

    put(qm, "AC.Q1", [b"f%d" % i for i in range(8)])
    rec = Recorder(then=forward)
    _register(qm, "AC.Q1", rec)
    qm.ctl(CMQC.MQOP_START_WAIT)
    assert rec.messages() == [b"f%d" % i for i in range(5)]
    q2 = mqpy.Queue(qm, "AC.Q2", IN)
    assert [q2.get(None) for _ in range(5)] == [b"f%d" % i for i in range(5)]


def test_start_wait_with_every_consumer_suspended_returns_2446(qm):
    """Given the only consumer suspended (MQCB MQOP_SUSPEND), when MQOP_START_WAIT is
    called, then it returns with MQRC_NO_CALLBACKS_ACTIVE (2446)."""
    q = _register(qm, "AC.Q1", Recorder())
    q.cb(operation=CMQC.MQOP_SUSPEND)
    with pytest.raises(mqpy.MQMIError) as e:
        qm.ctl(CMQC.MQOP_START_WAIT)
    assert e.value.reason == CMQC.MQRC_NO_CALLBACKS_ACTIVE


def test_suspend_and_resume_of_the_connection_and_of_a_consumer(qm):
    """Given a started connection, when it is suspended (MQCTL MQOP_SUSPEND) and a message
    is put, then it is not delivered until MQOP_RESUME; likewise a consumer suspended with
    MQCB MQOP_SUSPEND gets nothing until MQCB MQOP_RESUME."""
    rec = Recorder()
    q = _register(qm, "AC.Q1", rec)
    qm.ctl(CMQC.MQOP_START)
    qm.ctl(CMQC.MQOP_SUSPEND)
    time.sleep(0.3)  # (a get under way ends within the dispatcher's wait slice)
    other = threading.Thread(target=put, args=(qm, "AC.Q1", [b"s1"]))
    other.start()  # a suspended connection is the application's again
    other.join()
    time.sleep(0.3)
    assert rec.messages() == []
    qm.ctl(CMQC.MQOP_RESUME)
    assert rec.wait_for(1) == [b"s1"]
    qm.ctl(CMQC.MQOP_SUSPEND)
    q.cb(operation=CMQC.MQOP_SUSPEND)
    qm.ctl(CMQC.MQOP_RESUME)
    qm.ctl(CMQC.MQOP_STOP)
    put(qm, "AC.Q1", [b"s2"])
    qm.ctl(CMQC.MQOP_START)
    time.sleep(0.3)
    assert rec.messages() == [b"s1"]
    qm.ctl(CMQC.MQOP_SUSPEND)
    q.cb(operation=CMQC.MQOP_RESUME)
    qm.ctl(CMQC.MQOP_RESUME)
    assert rec.wait_for(2) == [b"s1", b"s2"]
    qm.ctl(CMQC.MQOP_STOP)


def test_deregister_makes_its_call_and_closing_deregisters(qm):
    """Given a consumer registered with MQCBDO_REGISTER_CALL and MQCBDO_DEREGISTER_CALL,
    when it is deregistered, then both calls were made; deregistering again is
    MQRC_CALLBACK_NOT_REGISTERED (2448), and a closed queue's consumer is deregistered."""
    rec = Recorder()
    q = _register(qm, "AC.Q1", rec,
                  options=CMQC.MQCBDO_REGISTER_CALL | CMQC.MQCBDO_DEREGISTER_CALL)
    q.cb(operation=CMQC.MQOP_DEREGISTER)
    assert [t for t, _r, _m in rec.calls] == [CMQC.MQCBCT_REGISTER_CALL,
                                               CMQC.MQCBCT_DEREGISTER_CALL]
    with pytest.raises(mqpy.MQMIError) as e:
        q.cb(operation=CMQC.MQOP_DEREGISTER)
    assert e.value.reason == CMQC.MQRC_CALLBACK_NOT_REGISTERED
    q2 = _register(qm, "AC.Q2", Recorder())
    q2.close()
    with pytest.raises(mqpy.MQMIError) as e:
        qm.ctl(CMQC.MQOP_START_WAIT)
    assert e.value.reason == CMQC.MQRC_NO_CALLBACKS_ACTIVE


@pytest.mark.parametrize(("operation", "reason"), [
    (CMQC.MQOP_RESUME, CMQC.MQRC_OPERATION_NOT_ALLOWED),
    (CMQC.MQOP_SUSPEND, CMQC.MQRC_OPERATION_NOT_ALLOWED),
    (CMQC.MQOP_REGISTER, CMQC.MQRC_OPERATION_ERROR),
])
def test_mqctl_operations_a_stopped_connection_refuses(qm, operation, reason):
    """Given a stopped connection, when MQCTL asks to resume or suspend it, then
    MQRC_OPERATION_NOT_ALLOWED (2534); an operation MQCTL does not have: MQRC_OPERATION_ERROR."""
    with pytest.raises(mqpy.MQMIError) as e:
        qm.ctl(operation)
    assert e.value.reason == reason


def test_registering_without_a_function_is_2486(qm):
    """Given an MQCBD without a function, when MQCB registers it, then
    MQRC_CALLBACK_ROUTINE_ERROR (2486)."""
    q = mqpy.Queue(qm, "AC.Q1", IN)
    with pytest.raises(mqpy.MQMIError) as e:
        q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD())
    assert e.value.reason == CMQC.MQRC_CALLBACK_ROUTINE_ERROR


def test_a_consumer_in_syncpoint_commits_from_its_callback(qm):
    """Given a consumer getting under MQGMO_SYNCPOINT that commits each message from its
    function, when the connection is stopped and then backs out, then every message it
    got is gone for good: the backout puts none back."""
    def commit(*, queue_manager, queue, md, gmo, msg, cbc):
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED:
            queue_manager.commit()

    put(qm, "AC.Q1", [b"c1", b"c2", b"c3"])
    rec = Recorder(then=commit)
    _register(qm, "AC.Q1", rec, gmo=mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qm.ctl(CMQC.MQOP_START)
    assert rec.wait_for(3) == [b"c1", b"c2", b"c3"]
    qm.ctl(CMQC.MQOP_STOP)
    qm.backout()
    with pytest.raises(mqpy.MQMIError) as e:
        mqpy.Queue(qm, "AC.Q1", IN).get(None)
    assert e.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE


def test_a_consumer_whose_wait_interval_passes_is_told_2033(qm):
    """Given a consumer with MQGMO_WAIT and a WaitInterval of 100 ms on an empty queue,
    when the connection is started, then its function is called with MQCBCT_EVENT_CALL and
    MQRC_NO_MSG_AVAILABLE."""
    rec = Recorder()
    _register(qm, "AC.Q1", rec, gmo=mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                                             WaitInterval=100))
    qm.ctl(CMQC.MQOP_START)
    deadline = time.monotonic() + 5
    while not rec.calls and time.monotonic() < deadline:
        time.sleep(0.02)
    qm.ctl(CMQC.MQOP_STOP)
    assert rec.calls[0][:2] == (CMQC.MQCBCT_EVENT_CALL, CMQC.MQRC_NO_MSG_AVAILABLE)


def test_a_read_ahead_consumer_is_told_when_the_buffer_is_empty(qm):
    """Given three messages and a consumer whose queue was opened with MQOO_READ_AHEAD,
    when the connection is started, then over bindings (which reads ahead) the last call
    has MQCBCF_READA_BUFFER_EMPTY in its MQCBC's Flags and the first not; over an embedded
    connection (no buffer) none has."""
    put(qm, "AC.Q1", [b"r1", b"r2", b"r3"])
    flags = []

    def note(*, queue_manager, queue, md, gmo, msg, cbc):
        if cbc.CallType == CMQC.MQCBCT_MSG_REMOVED:
            flags.append(cbc.Flags)

    _register(qm, "AC.Q1", Recorder(then=note),
              open_options=IN | CMQC.MQOO_READ_AHEAD)
    qm.ctl(CMQC.MQOP_START)
    deadline = time.monotonic() + 10
    while len(flags) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    qm.ctl(CMQC.MQOP_STOP)
    empty = CMQC.MQCBCF_READA_BUFFER_EMPTY
    if isinstance(qm.connection(), BindingsConnection):
        assert flags[0] == CMQC.MQCBCF_NONE and flags[2] == empty
    else:
        assert flags == [CMQC.MQCBCF_NONE] * 3
