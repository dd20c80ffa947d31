"""pymqi's PCFExecute, as pymqi programs use it (``import mqpy as pymqi``), over a client
connection and a bindings connection, against the queue manager's command server.

what pymqi users rely on: "PCFExecute for the command server"; "a test suite of pymqi-style programs
(... PCF inquire) runs against a client and a bindings connection".
"""

from __future__ import annotations

import pytest

import mqpy as pymqi
from mqpy import CMQC, CMQCFC, cmdserver
from tests.client.conftest import CHANNEL, QMGR, QUEUE


@pytest.fixture(params=["client", "bindings"])
def qmgr(request, env):
    """A connected pymqi QueueManager, with the queue manager's command server running."""
    cmdserver.start_command_server(QMGR, env.root)
    qm = pymqi.connect(QMGR, CHANNEL, env.conn_info) if request.param == "client" \
        else env.bindings()
    try:
        yield qm
    finally:
        if qm.is_connected:
            qm.disconnect()
        cmdserver.stop_command_server(QMGR, env.root)


def test_ping_and_inquire_queue_depth(qmgr):
    """Given two messages on a queue, when a program pings the queue manager and inquires
    local queues by a generic name through PCFExecute, then the ping answers one empty
    response and the inquiry returns one dict per queue, keyed by parameter id, with the
    queue's depth."""
    queue = pymqi.Queue(qmgr, QUEUE)
    queue.put(b"one")
    queue.put(b"two")
    queue.close()
    pcf = pymqi.PCFExecute(qmgr)
    assert pcf.MQCMD_PING_Q_MGR() == [{}]
    found = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"APP.*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL})
    depths = {q[CMQC.MQCA_Q_NAME].strip(): q[CMQC.MQIA_CURRENT_Q_DEPTH] for q in found}
    assert depths[QUEUE.encode()] == 2
    assert all(name.startswith(b"APP.") for name in depths)
    pcf.disconnect()
    assert qmgr.is_connected  # the program's own connection is left to the program


def test_a_filter_command_returns_only_the_queues_that_pass(qmgr):
    """Given one queue with messages and others without, when a program inquires with
    Filter(MQIA_CURRENT_Q_DEPTH).greater(0), then only that queue comes back; with a string
    filter on the name, only the names that match."""
    pymqi.Queue(qmgr, QUEUE).put(b"deep")
    pcf = pymqi.PCFExecute(qmgr)
    args = {CMQC.MQCA_Q_NAME: b"*", CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}
    deep = pcf.MQCMD_INQUIRE_Q(args, [pymqi.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0)])
    assert [q[CMQC.MQCA_Q_NAME].strip() for q in deep] == [QUEUE.encode()]
    named = pcf.MQCMD_INQUIRE_Q(args, [pymqi.Filter(CMQC.MQCA_Q_NAME).like(b"SYSTEM.DEAD*")])
    assert [q[CMQC.MQCA_Q_NAME].strip() for q in named] == [b"SYSTEM.DEAD.LETTER.QUEUE"]
    pcf.disconnect()


def test_a_failed_command_raises_its_reason(qmgr):
    """Given no queue of that name, when a program inquires it through PCFExecute, then
    MQMIError carries the command server's completion code and reason (2085), and the next
    command on the same PCFExecute still works."""
    pcf = pymqi.PCFExecute(qmgr)
    with pytest.raises(pymqi.MQMIError) as e:
        pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"NO.SUCH.QUEUE"})
    assert (e.value.comp, e.value.reason) == (CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    assert pcf.MQCMD_PING_Q_MGR() == [{}]
    with pytest.raises(pymqi.MQMIError) as e:  # two filters: IBM allows one
        pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: b"*"},
                            [pymqi.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0),
                             pymqi.Filter(CMQC.MQCA_Q_NAME).like(b"A*")])
    assert e.value.reason == CMQCFC.MQRCCF_TOO_MANY_FILTERS
    pcf.disconnect()


def test_pcfexecute_by_name_makes_and_ends_its_own_connection(env, monkeypatch):
    """Given a queue manager name instead of a connection, when PCFExecute is made, then it
    connects itself (bindings), runs commands, and disconnect() ends that connection."""
    cmdserver.start_command_server(QMGR, env.root)
    monkeypatch.setenv("MQPY_DATA_PATH", env.root)
    try:
        pcf = pymqi.PCFExecute(QMGR)
        assert pcf.is_connected
        names = pcf.MQCMD_INQUIRE_Q_NAMES({CMQC.MQCA_Q_NAME: b"APP.*"})
        assert QUEUE.encode() in [n.strip() for n in names[0][CMQCFC.MQCACF_Q_NAMES]]
        pcf.disconnect()
        assert not pcf.is_connected
    finally:
        cmdserver.stop_command_server(QMGR, env.root)
