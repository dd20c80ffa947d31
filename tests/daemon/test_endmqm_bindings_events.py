"""A bindings application's event handler told of a controlled end as it begins.

IBM: the event handler (MQCB of MQCBT_EVENT_HANDLER) is called for "conditions that affect
the whole callback environment", MQRC_CONNECTION_QUIESCING among them, whatever its message
consumers are doing; a client's is told by the channel's SOCKET_ACTION QM_QUIESCE.

Given a bindings connection with an event handler, its asynchronous consumption started,
when endmqm -c is issued, then the event handler is called with MQCBCT_EVENT_CALL and
MQRC_CONNECTION_QUIESCING within a second or two, also when no consumer of it gets (none
registered, one suspended, or the connection suspended); the application can then stop
and disconnect, and the queue manager ends.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy
from mqpy import CMQC, inprocess
from tests.async_consume.conftest import Recorder
from tests.support.endings import came
from tests.support.installation import QM, Installation

pytestmark = [pytest.mark.system, pytest.mark.timeout(120)]

#: how soon the event handler is told (a consumer's get would tell it within a slice)
TOLD_WITHIN = 3.0


@pytest.fixture(scope="module")
def install(tmp_path_factory) -> Iterator[Installation]:
    inst = Installation(str(tmp_path_factory.mktemp("endmqm_events")))
    inst.create(queues=("EV.Q",))
    try:
        yield inst
    finally:
        inst.kill_all()


@pytest.fixture
def running(install, monkeypatch) -> Installation:
    monkeypatch.setenv("MQPY_DATA_PATH", install.root)
    if not inprocess.is_locked(install.qmdir()):
        install.start()
    return install


def _quiescing(events: Recorder) -> bool:
    return (CMQC.MQCBCT_EVENT_CALL, CMQC.MQRC_CONNECTION_QUIESCING, None) in events.calls


@pytest.mark.parametrize("consumers", ["none", "suspended", "connection suspended"])
def test_the_event_handler_is_told_of_a_controlled_end_with_no_consumer_getting(
        running, consumers):
    """Given a bindings connection with an event handler and MQCTL START (no consumer, a
    consumer suspended, or the connection then suspended), when endmqm -c is issued, then
    the event handler is told MQRC_CONNECTION_QUIESCING at once; once the application
    stops and disconnects, the queue manager ends."""
    qm = mqpy.connect(QM)
    events = Recorder()
    qm.cb(operation=CMQC.MQOP_REGISTER,
          cbd=mqpy.CBD(CallbackType=CMQC.MQCBT_EVENT_HANDLER, CallbackFunction=events))
    if consumers != "none":
        queue = mqpy.Queue(qm, "EV.Q", CMQC.MQOO_INPUT_SHARED)
        queue.cb(operation=CMQC.MQOP_REGISTER, cbd=mqpy.CBD(CallbackFunction=Recorder()),
                 gmo=mqpy.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                              WaitInterval=CMQC.MQWI_UNLIMITED))
        if consumers == "suspended":
            queue.cb(operation=CMQC.MQOP_SUSPEND)
    qm.ctl(CMQC.MQOP_START)
    if consumers == "connection suspended":
        qm.ctl(CMQC.MQOP_SUSPEND)
    try:
        assert running.run("endmqm", "-c", QM).returncode == 0
        assert came(lambda: _quiescing(events), TOLD_WITHIN), events.calls
    finally:
        qm.ctl(CMQC.MQOP_STOP)
        qm.disconnect()
        running.wait_ended()
    assert [c for c in events.calls if c[0] == CMQC.MQCBCT_EVENT_CALL] == [
        (CMQC.MQCBCT_EVENT_CALL, CMQC.MQRC_CONNECTION_QUIESCING, None)]
