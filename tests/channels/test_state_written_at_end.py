"""A channel state shown is a state remembered: a channel initiator that ends while the sync
record of a STOP CHANNEL's STOPPED is still being written finishes that write first, so the
channel is STOPPED after a restart (spec: dqm-intercommunication 9.40: STOPPED survives a
restart of either process)."""

from __future__ import annotations

import time

import trio

from mqpy import syncrecord
from mqpy_chinit.states import ChannelState
from tests.channels.pairs import remembered
from tests.support.channel_pair import finish, start_chinit
from tests.support.ports import free_port
from tests.support.waiting import wait_until


async def test_a_stop_shown_just_before_the_end_is_remembered(qm1, qm2, monkeypatch):
    """Given a sending channel that is not running and a sync queue slow to write (a loaded
    machine: each state write takes a second), when STOP CHANNEL shows it STOPPED and the
    channel initiator is ended at once, then the STOPPED state was written before it ended,
    and the channel initiator started again shows the channel STOPPED."""
    write_state = syncrecord.write_state

    def slow_write_state(*args, **kwargs):
        time.sleep(1.0)
        return write_state(*args, **kwargs)

    monkeypatch.setattr(syncrecord, "write_state", slow_write_state)
    qm1.define("QLOCAL", "XQ.S", USAGE="XMITQ")
    qm1.define("CHANNEL", "CH.S", CHLTYPE="SDR", CONNAME=f"127.0.0.1({free_port()})",
               XMITQ="XQ.S", HBINT=0)
    async with trio.open_nursery() as nursery:
        r1 = await start_chinit(nursery, qm1)
        assert r1.chinit.stop_channel("CH.S") is None
        assert r1.chinit.status_of("CH.S").state is ChannelState.STOPPED
        await r1.stop()
        assert remembered(qm1)[0] == {"CH.S": "STOPPED"}
        r1 = await start_chinit(nursery, qm1)
        await wait_until(lambda: (s := r1.chinit.status_of("CH.S")) is not None
                         and s.state is ChannelState.STOPPED)
        finish(nursery)
