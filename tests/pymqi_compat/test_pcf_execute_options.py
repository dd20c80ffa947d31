"""PCFExecute's options as pymqi and ibmmq 2.x use them: ``response_wait_interval`` is how
long each reply is waited for (no command server: MQRC_NO_MSG_AVAILABLE once it has passed)
and the request's expiry (in tenths of a second); ``convert=True`` gets each reply with
MQGMO_CONVERT."""

from __future__ import annotations

import time

import pytest

import mqpy
from mqpy import CMQC, cmdserver
from mqpy.structs.tables import GMO, MD, OD
from tests.pymqi_compat.conftest import QMGR

pytestmark = pytest.mark.timeout(60)


def test_no_reply_within_the_interval_is_no_msg_available(qmgr):
    """Given no command server running, when a PCFExecute with response_wait_interval 400 ms
    sends Inquire Queue Manager, then MQMIError 2033 comes after about that long (not the
    default 5 seconds), and the request it left on the command queue has expired by then
    (MQMD Expiry: the interval in tenths of a second), so no stale request waits there."""
    executor = mqpy.PCFExecute(qmgr, response_wait_interval=400)
    started = time.monotonic()
    with pytest.raises(mqpy.MQMIError) as err:
        executor.MQCMD_INQUIRE_Q_MGR()
    waited = time.monotonic() - started
    assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    assert 0.3 <= waited < 3.0
    command_queue = mqpy.Queue(qmgr, OD(ObjectName=b"SYSTEM.ADMIN.COMMAND.QUEUE"),
                               CMQC.MQOO_BROWSE)
    with pytest.raises(mqpy.MQMIError) as left:
        command_queue.get(None, MD(), GMO(Options=CMQC.MQGMO_BROWSE_FIRST
                                          | CMQC.MQGMO_NO_WAIT))
    assert left.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    command_queue.close()
    executor.disconnect()


def test_convert_gets_the_replies_with_mqgmo_convert(qmgr, env, monkeypatch):
    """Given a command server, when a PCFExecute made with convert=True sends Inquire Queue,
    then every reply is got with MQGMO_CONVERT (and without it when convert is False), and
    the answer is the queue's."""
    cmdserver.start_command_server(QMGR, env.root)
    options: list[int] = []
    real_get = mqpy.Queue.get
    executors: list[mqpy.PCFExecute] = []

    def recording_get(self, max_length=None, *opts, **kw):
        if executors and self is executors[-1].reply_queue:
            options.append(opts[1].Options)
        return real_get(self, max_length, *opts, **kw)

    monkeypatch.setattr(mqpy.Queue, "get", recording_get)
    try:
        for convert in (True, False):
            options.clear()
            executor = mqpy.PCFExecute(qmgr, convert=convert)
            executors.append(executor)
            (reply,) = executor.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.Q"})
            executor.disconnect()
            assert reply[CMQC.MQCA_Q_NAME].strip() == b"APP.Q"
            assert options and all(bool(o & CMQC.MQGMO_CONVERT) is convert for o in options)
    finally:
        cmdserver.stop_command_server(QMGR, env.root)



def test_command_timeout_sets_the_request_expiry(qmgr):
    """Given no command server, when a PCFExecute with response_wait_interval 300 ms and
    ibmmq's command_timeout 5000 ms sends a command, then 2033 comes after the wait and
    the request still waits on the command queue with an expiry of at most 50 tenths of a
    second (not the wait interval's 3)."""
    executor = mqpy.PCFExecute(qmgr, response_wait_interval=300, command_timeout=5000)
    assert executor.command_timeout == 5000
    with pytest.raises(mqpy.MQMIError) as err:
        executor.MQCMD_PING_Q_MGR()
    assert err.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    command_queue = mqpy.Queue(qmgr, OD(ObjectName=b"SYSTEM.ADMIN.COMMAND.QUEUE"),
                               CMQC.MQOO_INPUT_SHARED)
    md = MD()
    command_queue.get(None, md, GMO(Options=CMQC.MQGMO_NO_WAIT))
    assert 3 < md.Expiry <= 50
    command_queue.close()
    executor.disconnect()


def test_an_unlimited_wait_is_an_hour(qmgr):
    """Given ibmmq's rule that a negative response_wait_interval is not forever, when it is
    -1, then the interval used is an hour (3,600,000 ms)."""
    executor = mqpy.PCFExecute(qmgr, response_wait_interval=-1)
    assert executor.response_wait_interval == 3_600_000
    executor.disconnect()


def test_a_named_reply_queue_and_a_pre_opened_command_queue(qmgr, env):
    """Given a local queue PCF.REPLY and the command queue opened by the program, when a
    PCFExecute is made with reply_queue_name PCF.REPLY (model_queue_name None) and that
    command_queue, then Inquire Queue is answered through them; naming both a model and a
    reply queue is ibmmq's PYIFError."""
    env.define("QLOCAL", "PCF.REPLY")
    cmdserver.start_command_server(QMGR, env.root)
    try:
        command_queue = mqpy.Queue(qmgr, OD(ObjectName=b"SYSTEM.ADMIN.COMMAND.QUEUE"),
                                   CMQC.MQOO_OUTPUT)
        executor = mqpy.PCFExecute(qmgr, model_queue_name=None, reply_queue_name=b"PCF.REPLY",
                                   command_queue=command_queue)
        assert executor.reply_queue_name == b"PCF.REPLY"
        (reply,) = executor.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.Q"})
        assert reply[CMQC.MQCA_Q_NAME].strip() == b"APP.Q"
        executor.disconnect()
        command_queue.close()
        with pytest.raises(mqpy.PYIFError):
            mqpy.PCFExecute(qmgr, reply_queue_name=b"PCF.REPLY")
    finally:
        cmdserver.stop_command_server(QMGR, env.root)


def test_max_length_limits_the_reply_buffer(qmgr, env):
    """Given ibmmq's max_length 16, when Inquire Queue's reply is longer, then the get of
    it fails MQRC_TRUNCATED_MSG_FAILED; without max_length the whole reply is read."""
    cmdserver.start_command_server(QMGR, env.root)
    try:
        short = mqpy.PCFExecute(qmgr, max_length=16)
        assert short.max_length == 16
        with pytest.raises(mqpy.MQMIError) as err:
            short.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.Q"})
        assert err.value.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
        short.disconnect()
        assert mqpy.PCFExecute(qmgr).max_length is None
    finally:
        cmdserver.stop_command_server(QMGR, env.root)
