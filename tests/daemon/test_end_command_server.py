"""The command server ends at once when it is stopped (endmqcsv, endmqm), however long its
gets of SYSTEM.ADMIN.COMMAND.QUEUE wait: stopping it wakes each waiting get with a wake
message (``mqpy.wake``), which is nothing to a command server and never stays on the queue."""

from __future__ import annotations

import time

import pytest

import mqpy
from mqpy import CMQC, cmdserver, inprocess, wake
from mqpy.command import COMMAND_QUEUE

#: the command server's gets made to wait far longer than any test: a server that waited for
#: one to pass would still be running after its stop (which waits 10 s for each thread)
LONG_WAIT_MS = 600_000


@pytest.fixture
def qm1(tmp_path):
    root = str(tmp_path / "QM1")
    inprocess.create("QM1", root)
    eng = inprocess.start("QM1", root)
    eng.root = root
    yield eng
    cmdserver.stop_command_server("QM1", root)
    inprocess.stop_all()


def _until(check, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.02)


def _serving(eng) -> cmdserver.CommandServerHandle:
    """The command server of ``eng``, its threads all waiting in their gets."""
    handle = cmdserver.start_command_server("QM1", eng.root)
    _until(lambda: eng.queue_status(COMMAND_QUEUE)["IPPROCS"] == 1 + len(handle.workers))
    time.sleep(0.2)  # each thread is in its get by now
    return handle


def test_a_stopped_command_server_ends_while_its_gets_wait(qm1, monkeypatch):
    """Given a command server whose threads wait in gets of ten minutes, when it is stopped,
    then every thread has ended by the time the stop returns (not ten minutes later), its
    handles on the command queue are closed, and no wake message is left on the queue: a
    get there finds nothing."""
    monkeypatch.setattr(cmdserver, "REQUEST_WAIT_MS", LONG_WAIT_MS)
    handle = _serving(qm1)
    assert cmdserver.stop_command_server("QM1", qm1.root)
    assert not handle.thread.is_alive()
    assert not [t for t, _ in handle.workers if t.is_alive()]
    status = qm1.queue_status(COMMAND_QUEUE)
    assert status["IPPROCS"] == 0 and status["CURDEPTH"] == 0
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    try:
        with pytest.raises(mqpy.MQMIError) as got:
            mqpy.Queue(qm, COMMAND_QUEUE, CMQC.MQOO_INPUT_SHARED).get()
        assert got.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    finally:
        qm.disconnect()


def test_a_wake_message_is_nothing_to_a_command_server(qm1):
    """Given a wake message on the command queue (left by a command server that was busy
    when it stopped), even one naming a reply-to queue, when a command server starts, then
    it takes the message off the queue and answers nothing, and a PCF request after it is
    answered."""
    qm1.define("QLOCAL", "REPLY", {})
    qm = mqpy.embedded("QM1", data_path=qm1.root, create=False)
    try:
        md = wake.wake_md()
        md.ReplyToQ = b"REPLY"
        qm.put1(COMMAND_QUEUE, b"", md)
        cmdserver.start_command_server("QM1", qm1.root)
        _until(lambda: qm1.queue_status(COMMAND_QUEUE)["CURDEPTH"] == 0)
        pcf = mqpy.PCFExecute(qm)
        try:
            assert pcf.MQCMD_PING_Q_MGR() is not None
        finally:
            pcf.disconnect()
        assert qm1.queue_status("REPLY")["CURDEPTH"] == 0
    finally:
        qm.disconnect()
