"""Message channels through a controlled end (endmqm -c) of either queue manager.

IBM: the channel initiator ends with its queue manager, its sender and server channels as
STOP CHANNEL MODE(QUIESCE) STATUS(INACTIVE) ends them -- "the current batch of messages is
completed and the sync point procedure is carried out with the other end of the channel" --
and its other channels as MODE(FORCE); and a queue manager's controlled end "stops after all
applications are disconnected", the receiving MCAs its partners started among them.

Given QM1's sender C moving 600 persistent messages in batches of 10 to QM2 (daemons started
by strmqm, each with its channel initiator), when endmqm -c is issued to QM1 (the sending
end) while batches flow, then QM1 ends within seconds, at a batch boundary; when it is issued
to QM2 (the receiving end: C's receiver started by its channel initiator's listener or by a
runmqlsr), then QM2 ends within seconds and C goes RETRYING at QM1. Either
way, once the ended queue manager is started again, every message arrives, once and in
order.
"""

from __future__ import annotations

import pathlib
import time

import pytest

from mqpy import inprocess
from tests.support import daemon_pair
from tests.support.daemon_pair import command_server
from tests.support.endings import came
from tests.support.installation import Installation
from tests.support.ports import free_port
from tests.support.runmqlsr import Runmqlsr

pytestmark = [pytest.mark.system, pytest.mark.timeout(300)]

#: the messages moved (batches of 10)
COUNT = 600
#: how long a controlled end may take with a batch in flight (the batch finishes, its
#: confirmation comes back, the channel ends)
PROMPTLY = 10.0


def _flowing(site: Installation, tmp_path: pathlib.Path | None = None) -> Runmqlsr | None:
    """QM1 and QM2 started, C triggered, the messages put and the batches flowing; with
    ``tmp_path``, C's receiver served by a runmqlsr of QM2 (returned) rather than by its
    channel initiator's listener."""
    port = free_port()
    daemon_pair._two_daemons_and_a_triggered_channel(  # (HBINT 1: C, idle once every
        # message is across, sees its partner's end at its next heartbeat, not 300 s on)
        site, batchsz=10, through=None if tmp_path is None else lambda _listener: port,
        hbint=1)
    lsr = None
    if tmp_path is not None:
        lsr = Runmqlsr(site, str(tmp_path / "runmqlsr.out"), port=port, qmgr="QM2")
    daemon_pair._put_persistent(site, 0, COUNT)
    daemon_pair._wait_progress(site, 0)
    return lsr


def _all_arrive_once_in_order(site: Installation) -> None:
    """The COUNT messages arrive on QM2's TARGET, each once and in order, and nothing is
    left on QM1's transmission queue."""
    assert came(lambda: daemon_pair._progress(site) >= COUNT, 120), \
        f"only {daemon_pair._progress(site)} of {COUNT} arrived"
    time.sleep(1.0)  # a duplicate would arrive now, if there were one
    assert daemon_pair.drain(site) == [b"%05d" % i for i in range(COUNT)]
    assert daemon_pair.depth(site, "QM1", "QM2") == 0


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
    daemon_pair._start(site, "QM1")
    _all_arrive_once_in_order(site)


@pytest.mark.parametrize("receiver", ["listener", "runmqlsr"])
def test_a_controlled_end_of_the_receiving_queue_manager_leaves_the_sender_retrying(
        site, tmp_path, receiver):
    """Given C's batches flowing into a receiver that QM2's listener (its channel
    initiator's, or a runmqlsr) started, when endmqm -c ends QM2, then QM2 ends within
    seconds (the receiver, started by its partner, does not hold the end), C goes RETRYING
    at QM1, and once QM2 is started again every message arrives once and in order."""
    lsr = _flowing(site, tmp_path if receiver == "runmqlsr" else None)
    try:
        assert site.run("endmqm", "-c", "QM2").returncode == 0
        assert _ended(site, "QM2", PROMPTLY), "QM2's controlled end waited for its receiver"
        assert came(lambda: "STATUS(RETRYING)" in _status(site, "QM1"), 30), \
            _status(site, "QM1")
        daemon_pair._start(site, "QM2")
        _all_arrive_once_in_order(site)
    finally:
        if lsr is not None:
            lsr.end()
