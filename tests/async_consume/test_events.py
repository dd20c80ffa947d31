"""The event handler (MQCB of MQCBT_EVENT_HANDLER on the connection) told of a quiescing
queue manager and of a broken connection, over bindings."""

from __future__ import annotations

import os
import signal
import time

import pytest

import mqpy
from mqpy import CMQC
from tests.async_consume.conftest import Recorder
from tests.support.installation import QM, Installation

pytestmark = pytest.mark.system


@pytest.fixture
def install(tmp_path, monkeypatch):
    inst = Installation(str(tmp_path))
    monkeypatch.setenv("MQPY_DATA_PATH", inst.root)
    inst.create(queues=("AC.EV",))
    try:
        yield inst
    finally:
        inst.kill_all()


def _started_with_handler(install: Installation, open_options: int = CMQC.MQOO_INPUT_SHARED
                          ) -> tuple[mqpy.QueueManager, Recorder]:
    install.start()
    qm = mqpy.connect(QM)
    events = Recorder()
    qm.cb(operation=CMQC.MQOP_REGISTER,
          cbd=mqpy.CBD(CallbackType=CMQC.MQCBT_EVENT_HANDLER, CallbackFunction=events))
    q = mqpy.Queue(qm, "AC.EV", open_options)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=Recorder()),
         gmo=mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                      WaitInterval=CMQC.MQWI_UNLIMITED))
    qm.ctl(CMQC.MQOP_START)
    return qm, events


def _event_reasons(events: Recorder, timeout: float = 10) -> list[int]:
    deadline = time.monotonic() + timeout
    while not events.calls and time.monotonic() < deadline:
        time.sleep(0.02)
    return [r for t, r, _m in events.calls if t == CMQC.MQCBCT_EVENT_CALL]


@pytest.mark.parametrize("read_ahead", [CMQC.MQOO_NO_READ_AHEAD, CMQC.MQOO_READ_AHEAD])
def test_the_event_handler_is_told_the_queue_manager_is_quiescing(install, read_ahead):
    """Given a started connection with an event handler and a consumer waiting (its queue
    opened with or without read ahead), when endmqm -c quiesces the queue manager, then the
    event handler is called with MQCBCT_EVENT_CALL and MQRC_CONNECTION_QUIESCING; the
    application can then stop and disconnect, and the queue manager ends."""
    qm, events = _started_with_handler(install, CMQC.MQOO_INPUT_SHARED | read_ahead)
    ended = install.run("endmqm", "-c", QM)
    assert ended.returncode == 0, ended.stderr
    assert _event_reasons(events) == [CMQC.MQRC_CONNECTION_QUIESCING]
    qm.ctl(CMQC.MQOP_STOP)
    qm.disconnect()
    install.wait_ended()


def test_the_event_handler_is_told_the_connection_broke(install):
    """Given a started connection with an event handler (its consumer's queue opened for
    read ahead), when the queue manager's process is killed, then the event handler is
    called with MQRC_CONNECTION_BROKEN and the connection's consumption stops (MQOP_STOP
    is then a stopped connection's)."""
    qm, events = _started_with_handler(
        install, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_READ_AHEAD)
    os.kill(install.pid(QM), signal.SIGKILL)
    assert _event_reasons(events) == [CMQC.MQRC_CONNECTION_BROKEN]
    consumers = qm._consumers
    deadline = time.monotonic() + 5
    while consumers.state != "STOPPED" and time.monotonic() < deadline:
        time.sleep(0.02)
    assert consumers.state == "STOPPED"
    qm.ctl(CMQC.MQOP_STOP)


def test_a_consumer_asking_to_fail_if_quiescing_is_told_and_suspended(install):
    """Given a consumer registered with MQCBDO_FAIL_IF_QUIESCING, when endmqm -c quiesces
    the queue manager, then it is called with MQCBCT_EVENT_CALL and MQRC_Q_MGR_QUIESCING
    (2161) and gets nothing more; the event handler hears MQRC_CONNECTION_QUIESCING."""
    install.start()
    qm = mqpy.connect(QM)
    events, consumer = Recorder(), Recorder()
    qm.cb(operation=CMQC.MQOP_REGISTER,
          cbd=mqpy.CBD(CallbackType=CMQC.MQCBT_EVENT_HANDLER, CallbackFunction=events))
    q = mqpy.Queue(qm, "AC.EV", CMQC.MQOO_INPUT_SHARED)
    q.cb(operation=CMQC.MQOP_REGISTER,
         cbd=mqpy.CBD(CallbackFunction=consumer, Options=CMQC.MQCBDO_FAIL_IF_QUIESCING),
         gmo=mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    qm.ctl(CMQC.MQOP_START)
    assert install.run("endmqm", "-c", QM).returncode == 0
    assert _event_reasons(events) == [CMQC.MQRC_CONNECTION_QUIESCING]
    assert _event_reasons(consumer) == [CMQC.MQRC_Q_MGR_QUIESCING]
    qm.ctl(CMQC.MQOP_STOP)
    qm.disconnect()
    install.wait_ended()
