"""An asynchronous put does not wait for the queue manager: with the daemon stopped (SIGSTOP)
a bindings or client application's asynchronous puts still return, and once it runs again
they are all done, counted and in order, before the application's next synchronous call."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC

from .conftest import ASYNC, OUT, drain, returns_while_stopped

pytestmark = [pytest.mark.system, pytest.mark.timeout(180)]


@pytest.mark.parametrize("mode", ["bindings", "client"])
def test_asynchronous_puts_return_while_the_queue_manager_does_not_answer(site, mode):
    """Given a connection (bindings, or client through the channel initiator) and its queue
    manager's daemon stopped by SIGSTOP, when the application puts 20 messages with
    MQPMO_ASYNC_RESPONSE, then every call returns MQCC_OK without the daemon; when the daemon
    runs again, MQSTAT counts 20 successes and the messages are there in order."""
    qm = site.bindings() if mode == "bindings" else site.client()
    drain(qm, "AP.Q")
    qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    q = mqpy.Queue(qm, "AP.Q", OUT)

    def puts() -> None:
        for i in range(20):
            q.put(b"%d" % i, mqpy.MD(), mqpy.PMO(Options=ASYNC))

    assert returns_while_stopped(site, puts, 30), \
        "an asynchronous put waited for the queue manager"
    try:
        assert qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR).PutSuccessCount == 20
        assert drain(qm, "AP.Q") == [b"%d" % i for i in range(20)]
    finally:
        q.close()
        qm.disconnect()


@pytest.mark.parametrize("mode", ["bindings", "client"])
def test_an_mqput1_to_a_defpresp_async_queue_does_not_wait(site, mode):
    """Given a connection (bindings, or client through the channel initiator) that opened
    the DEFPRESP(ASYNC) queues AP.DEFASYNC and AP.DEFASYNC.INHIBITED (their MQOPEN replies
    give DEFPRESP), and its daemon stopped by SIGSTOP, when the application puts a message
    to each with MQPUT1 and the default MQPMO (MQPMO_RESPONSE_AS_Q_DEF), then both calls
    return MQCC_OK without the daemon, as MQPUTs to those queues do; when it runs again,
    MQSTAT counts one success and the inhibited queue's failure, and the message is there."""
    qm = site.bindings() if mode == "bindings" else site.client()
    drain(qm, "AP.DEFASYNC")
    qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    for name in ("AP.DEFASYNC", "AP.DEFASYNC.INHIBITED"):
        mqpy.Queue(qm, name, OUT).close()

    def puts() -> None:
        qm.put1("AP.DEFASYNC", b"kept", mqpy.MD(), mqpy.PMO())
        qm.put1("AP.DEFASYNC.INHIBITED", b"refused", mqpy.MD(), mqpy.PMO())

    try:
        assert returns_while_stopped(site, puts, 30), \
            "an MQPUT1 to a DEFPRESP(ASYNC) queue waited for the queue manager"
        sts = qm.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
        assert (sts.PutSuccessCount, sts.PutFailureCount, sts.Reason) == \
            (1, 1, CMQC.MQRC_PUT_INHIBITED)
        assert drain(qm, "AP.DEFASYNC") == [b"kept"]
    finally:
        qm.disconnect()
