"""Message channels through a controlled end (endmqm -c) of either queue manager.

IBM: the channel initiator ends with its queue manager, its sender and server channels as
STOP CHANNEL MODE(QUIESCE) STATUS(INACTIVE) ends them -- "the current batch of messages is
completed and the sync point procedure is carried out with the other end of the channel" --
and its other channels as MODE(FORCE); and a queue manager's controlled end "stops after all
applications are disconnected", the receiving MCAs its partners started among them.

Given QM1's sender C moving 1200 persistent messages in batches of 10 to QM2 (daemons started
by strmqm, each with its channel initiator), when endmqm -c is issued to QM1 (the sending
end) while batches flow, then QM1 ends within seconds, at a batch boundary; when it is issued
to QM2 (the receiving end), then QM2 ends within seconds and C goes RETRYING at QM1. Either
way, once the ended queue manager is started again, every message arrives, once and in
order.
"""

from __future__ import annotations

import time

import pytest

from mqpy import inprocess
from tests.support import daemon_pair
from tests.support.daemon_pair import all_arrive_once_in_order, command_server
from tests.support.endings import came
from tests.support.installation import Installation

pytestmark = [pytest.mark.system, pytest.mark.timeout(300)]

#: how long a controlled end may take with a batch in flight (the batch finishes, its
#: confirmation comes back, the channel ends)
PROMPTLY = 10.0


def _flowing(site: Installation) -> None:
    """QM1 and QM2 started, C triggered, the messages put and the batches flowing."""
    daemon_pair._two_daemons_and_a_triggered_channel(site, batchsz=10)
    daemon_pair._put_persistent(site, 0, daemon_pair.N)
    daemon_pair._wait_progress(site, 0)


def _ended(site: Installation, name: str, timeout: float) -> bool:
    return came(lambda: not inprocess.is_locked(site.qmdir(name)), timeout)


def _status(site: Installation, qmgr: str) -> str:
    return "\n".join(command_server(site, qmgr, "DISPLAY CHSTATUS(C) STATUS\n"))


def test_a_controlled_end_of_the_sending_queue_manager_ends_its_sender_between_batches(site):
    """Given C's batches flowing, when endmqm -c ends QM1, then QM1 ends within seconds
    (its sender ends at the end of its batch, not waiting for the messages left), and once
    QM1 is started again every message arrives at QM2 once and in order."""
    _flowing(site)
    assert site.run("endmqm", "-c", "QM1").returncode == 0
    started = time.monotonic()
    assert _ended(site, "QM1", PROMPTLY), "QM1's controlled end waited for its sender"
    assert time.monotonic() - started < PROMPTLY
    assert daemon_pair._progress(site) < daemon_pair.N, "(the batches did not flow)"
    daemon_pair._start(site, "QM1")
    all_arrive_once_in_order(site)


def test_a_controlled_end_of_the_receiving_queue_manager_leaves_the_sender_retrying(site):
    """Given C's batches flowing, when endmqm -c ends QM2, then QM2 ends within seconds (its
    receiver, started by its partner, does not hold the end), C goes RETRYING at QM1, and
    once QM2 is started again every message arrives once and in order."""
    _flowing(site)
    assert site.run("endmqm", "-c", "QM2").returncode == 0
    assert _ended(site, "QM2", PROMPTLY), "QM2's controlled end waited for its receiver"
    assert came(lambda: "STATUS(RETRYING)" in _status(site, "QM1"), 30), _status(site, "QM1")
    daemon_pair._start(site, "QM2")
    all_arrive_once_in_order(site)
