"""Once and once only under SIGKILL: channel initiators and queue managers killed mid-batch."""

from __future__ import annotations

import os
import signal
import time

import pytest

from mqpy import inprocess
from tests.support.daemon_pair import (
    N,
    _pid,
    _progress,
    _put_persistent,
    _start,
    _two_daemons_and_a_triggered_channel,
    _wait_progress,
    all_arrive_once_in_order,
    bind,
    depth,
    drain,
    idle_then_killed,
    killed_at_end,
)
from tests.support.waiting import wait_for

site = pytest.fixture(killed_at_end, name="site")


def test_every_message_arrives_once_whatever_is_killed(site):
    """Given a triggered SDR-RCVR channel between two daemons moving 1200 persistent
    messages in batches of 20, when the sending channel initiator, then the receiving queue
    manager, then the sending queue manager are each killed with SIGKILL in the middle of the
    transfer and restarted, then every message arrives exactly once and in order.
    spec: dqm-intercommunication 9.31; aliases-channels-storage 4.15; aliases-channels-storage 4.16"""
    _two_daemons_and_a_triggered_channel(site, batchsz=20)
    # a third of the messages before each kill, so that a fast channel has not already
    # moved them all when the next process dies
    third = N // 3
    _put_persistent(site, 0, third)
    seen = _wait_progress(site, 0)
    os.kill(_pid(site, "QM1", "chinit.pid"), signal.SIGKILL)       # sending chinit
    _put_persistent(site, third, third)
    seen = _wait_progress(site, seen)
    os.kill(_pid(site, "QM2", "qm.lock"), signal.SIGKILL)          # receiving qmgr
    time.sleep(0.3)
    _start(site, "QM2")
    _put_persistent(site, 2 * third, N - 2 * third)
    seen = _wait_progress(site, seen, 60)
    os.kill(_pid(site, "QM1", "qm.lock"), signal.SIGKILL)          # sending qmgr
    time.sleep(0.3)
    _start(site, "QM1")
    all_arrive_once_in_order(site)


def test_a_channel_going_idle_is_not_left_in_doubt_by_a_crash(site):
    """Given an SDR-RCVR channel between two daemons that has just moved a batch smaller
    than BATCHSZ (its transmission queue drained: the channel is about to wait), when the
    sending queue manager is killed with SIGKILL, then at restart nothing is in doubt: the
    commit of a batch that is not followed by another waits for its log force."""
    assert idle_then_killed(site, 4) == []


def test_sending_qmgr_killed_right_after_a_confirmed_batch(site):
    """Given an SDR-RCVR channel between two daemons that has just moved one full batch of
    persistent messages (the receiver committed it, the sender's transmission queue is
    empty: the sender committed its batch without waiting for that commit's log force),
    when the sending queue manager is killed with SIGKILL before anything else forces its
    log, then at restart the batch is in doubt rather than lost or sent again: the channel
    resynchronises, commits it from the receiver's sync record, and every message (those
    and the next batch's) arrives exactly once and in order.
    spec: dqm-intercommunication 9.31; aliases-channels-storage 4.15;
    aliases-channels-storage 4.16"""
    _two_daemons_and_a_triggered_channel(site, batchsz=10)
    _put_persistent(site, 0, 10)
    wait_for(lambda: _progress(site) == 10 and depth(site, "QM1", "QM2") == 0, 60)
    os.kill(_pid(site, "QM1", "qm.lock"), signal.SIGKILL)
    os.kill(_pid(site, "QM1", "chinit.pid"), signal.SIGKILL)
    time.sleep(0.3)

    # the log as the crash left it: the batch's commit record was never forced
    eng = inprocess.start("QM1", site.root)
    try:
        assert len(eng.indoubt()) == 1
    finally:
        inprocess.stop("QM1", site.root)

    _start(site, "QM1")
    _put_persistent(site, 10, 10)  # the trigger starts the channel again, if need be
    wait_for(lambda: _progress(site) >= 20 and depth(site, "QM1", "QM2") == 0, 60)
    time.sleep(1.0)  # a duplicate would arrive now, if there were one
    data = drain(site)
    assert data == [b"%05d" % i for i in range(20)]
    eng_qm = bind(site, "QM1")
    try:
        assert eng_qm.connection().indoubt() == []
    finally:
        eng_qm.disconnect()

