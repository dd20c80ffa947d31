"""A STOPPED channel stays stopped: triggers and partners cannot start it, and a restart of
the channel initiator remembers it (and a RETRYING one)."""

from __future__ import annotations

import trio

from mqpy.channelcommands import INITQ
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, chstatus, define_pair, finish, mqsc, start_chinit
from tests.support.ports import free_port
from tests.support.waiting import wait_until


def trigger_on(qm) -> None:
    qm.engine.alter("QLOCAL", "QM2", {"TRIGGER": "YES", "TRIGTYPE": "FIRST", "INITQ": INITQ,
                                      "TRIGDATA": CHANNEL})


async def test_a_trigger_does_not_start_a_channel_the_operator_stopped(qm1, qm2):
    """Given a triggered channel that ran and was then stopped with STOP CHANNEL (STOPPED),
    when a new message arrives on its xmitq, then the channel stays STOPPED and the message
    waits: a stopped channel must be restarted by the operator, an inactive one can be
    triggered.  spec: dqm-intercommunication §4 ('started' means enabled), 9.37;
    operations-dlq-clusters 5 (STOP moves the issuing side to STOPPED)"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        trigger_on(qm1)
        r1 = await start_chinit(nursery, qm1)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"first", "QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")).ok
        st = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st.state is ChannelState.STOPPED)
        await trio.to_thread.run_sync(qm1.put, "TARGET", b"second", "QM2")
        await trio.sleep(1.0)
        state, delivered = r1.chinit.status_of(CHANNEL).state, qm2.committed("TARGET")
        finish(nursery)
    assert state is ChannelState.STOPPED and delivered == 1


async def test_a_stopped_receiver_refuses_its_senders_start(qm1, qm2):
    """Given RCVR QM1.TO.QM2 stopped on QM2 with STOP CHANNEL, when the sender starts, then QM2
    refuses it (the sender retries, nothing is delivered) until START CHANNEL at QM2 resets
    the receiver's status.
    spec: operations-dlq-clusters 5 (why a channel will not run: receiver STOPPED)"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        assert (await mqsc(qm2, f"STOP CHANNEL({CHANNEL})")).ok
        qm1.put("TARGET", b"held", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await trio.sleep(1.0)
        history = list(r1.chinit.status_of(CHANNEL).history)
        delivered = qm2.committed("TARGET")
        finish(nursery)
    assert ChannelState.RUNNING not in history and delivered == 0


async def test_stopped_status_is_remembered_across_a_channel_initiator_restart(qm1, qm2):
    """Given a channel STOPPED by STOP CHANNEL, when the channel initiator is ended and started
    again, then DISPLAY CHSTATUS still shows it STOPPED.
    spec: dqm-intercommunication 9.40, §4 (status persistence); operations-dlq-clusters 5"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, HBINT=0)
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st.state is ChannelState.RUNNING)
        assert (await mqsc(qm1, f"STOP CHANNEL({CHANNEL})")).ok
        await wait_until(lambda: st.state is ChannelState.STOPPED)
        await r1.stop()
        await start_chinit(nursery, qm1)
        shown = await mqsc(qm1, f"DISPLAY CHSTATUS({CHANNEL})")
        finish(nursery)
    assert chstatus(shown.lines).get("STATUS") == "STOPPED", shown.lines


async def test_retrying_channel_resumes_retrying_with_reset_counts_after_a_restart(qm1, qm2):
    """Given a channel RETRYING against an unreachable partner (SHORTRTY(5), two retries
    used), when the channel initiator is ended and started again, then the channel is
    RETRYING again with its retry counts reset (SHORTRTS(4) after the first new attempt) and,
    once the partner is back, delivers its message.
    spec: dqm-intercommunication 9.40, §2 (LONGRTY: counts reset when the chinit restarts)"""
    port = free_port()
    async with trio.open_nursery() as nursery:
        define_pair(qm1, qm2, port, SHORTRTY=5, SHORTTMR=1)
        qm1.put("TARGET", b"retried", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st.short_retries_left == 3)
        await r1.stop()
        r1 = await start_chinit(nursery, qm1)
        await trio.sleep(0.5)
        st = r1.chinit.status_of(CHANNEL)
        assert st is not None and st.state is ChannelState.RETRYING
        assert st.short_retries_left == 4
        await start_chinit(nursery, qm2, listen=True, port=port)
        await wait_until(lambda: qm2.committed("TARGET") == 1, 3)
        finish(nursery)
