"""A message a receiving channel discards is never lost in silence: the queue manager's error
log names the queue, the reason and the channel, with IBM's message for what failed (AMQ9565E
when there is no dead-letter queue, AMQ9511E when a queue refused the put)."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, DLQ, define_pair, finish, start_chinit
from tests.support.waiting import wait_until


async def _discard_one(qm1, qm2, **rcvr: object) -> None:
    """Over NPMSPEED(FAST), a non-persistent message for NO.SUCH.Q then a persistent one for
    TARGET; returns once TARGET has the persistent one and the channel is RUNNING."""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, NPMSPEED="FAST", HBINT=0,
                    rcvr={"NPMSPEED": "FAST", **rcvr})
        qm1.put("NO.SUCH.Q", b"lost", qmgr="QM2", persistent=False)
        qm1.put("TARGET", b"kept", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm1.depth("QM2") == 0)
        assert r2.chinit.status_of(CHANNEL).state is ChannelState.RUNNING
        finish(nursery)


def _discards(qm) -> list[tuple[str, str]]:
    return [(m, t) for m, t in qm.log if "discarded" in t]


async def test_a_fast_message_discarded_for_want_of_a_dlq_is_logged(make_qmgr):
    """Given NPMSPEED(FAST) and QM2 without a dead-letter queue, when a non-persistent message
    for NO.SUCH.Q arrives, then it is discarded and QM2's error log says AMQ9565E (no
    dead-letter queue defined), naming the channel, the queue NO.SUCH.Q and reason 2085."""
    qm1, qm2 = make_qmgr("QM1"), make_qmgr("QM2", dlq=False)
    await _discard_one(qm1, qm2)
    ((msgid, text),) = _discards(qm2)
    assert msgid == "AMQ9565E" and text.startswith("No dead-letter queue defined."), text
    assert f"'{CHANNEL}'" in text and "'NO.SUCH.Q'" in text and "2085" in text, text


async def test_a_fast_message_the_dlq_refuses_is_logged(qm1, qm2):
    """Given NPMSPEED(FAST) and QM2's dead-letter queue PUT(DISABLED), when a non-persistent
    message for NO.SUCH.Q arrives, then it is discarded and QM2's error log says AMQ9511E
    (messages cannot be put to a queue) for the dead-letter queue with reason 2051, naming
    the channel and the queue NO.SUCH.Q with its own reason 2085."""
    qm2.engine.alter("QLOCAL", DLQ, {"PUT": "DISABLED"})
    await _discard_one(qm1, qm2)
    ((msgid, text),) = _discards(qm2)
    assert msgid == "AMQ9511E" and text.startswith("Messages cannot be put to a queue."), text
    assert f"queue '{DLQ}'" in text and "2051" in text, text
    assert f"'{CHANNEL}'" in text and "'NO.SUCH.Q'" in text and "2085" in text, text


async def test_a_fast_message_not_dead_lettered_under_usedlq_no_is_logged(qm1, qm2):
    """Given NPMSPEED(FAST) and a receiver with USEDLQ(NO), when a non-persistent message for
    NO.SUCH.Q arrives, then it is discarded, QM2's DLQ stays empty and QM2's error log says
    AMQ9511E for NO.SUCH.Q with reason 2085, naming the channel and USEDLQ(NO)."""
    await _discard_one(qm1, qm2, USEDLQ="NO")
    assert qm2.depth(DLQ) == 0
    ((msgid, text),) = _discards(qm2)
    assert msgid == "AMQ9511E" and "queue 'NO.SUCH.Q'" in text and "2085" in text, text
    assert f"'{CHANNEL}'" in text and "USEDLQ(NO)" in text, text
