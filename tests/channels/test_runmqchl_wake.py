"""runmqchl's run of one channel (``mqpy_chinit.runmqchl``) ends as the channel does: the run
waits on the channel's own task, not on a poll of whether it is still running."""

from __future__ import annotations

import trio

from mqpy_chinit.runmqchl import run_channel
from mqpy_chinit.states import ChannelState

#: far longer than the channel takes to fail: the run must end with the channel, whenever
WITHIN = 30.0


def _sender_with_no_partner(qm) -> None:
    qm.define("QLOCAL", "XQ", USAGE="XMITQ")
    qm.define("CHANNEL", "TO.NOWHERE", CHLTYPE="SDR", CONNAME="127.0.0.1(1)", XMITQ="XQ",
              SHORTRTY=0, LONGRTY=0)


async def test_the_run_ends_when_its_channel_ends(qm1):
    """Given a sender whose partner is not there and that has no retries, when runmqchl
    runs it, then the run ends once the channel has ended in error (STOPPED, no longer
    running), and the channel initiator's own nursery is its own again."""
    _sender_with_no_partner(qm1)
    chinit = qm1.make_chinit()
    async with trio.open_nursery() as outer:
        chinit.nursery = outer
        with trio.fail_after(WITHIN):
            err = await run_channel(chinit, "TO.NOWHERE")
        assert err is None
        assert "TO.NOWHERE" not in chinit.running
        assert chinit.status_of("TO.NOWHERE").state is ChannelState.STOPPED
        assert chinit.nursery is outer


async def test_a_channel_that_cannot_start_is_its_error(qm1):
    """Given no channel of that name, when runmqchl runs it, then the run ends at once with
    the error that kept it from starting."""
    chinit = qm1.make_chinit()
    async with trio.open_nursery() as outer:
        chinit.nursery = outer
        with trio.fail_after(WITHIN):
            err = await run_channel(chinit, "NO.SUCH.CHANNEL")
    assert err is not None and "NO.SUCH.CHANNEL" in err
