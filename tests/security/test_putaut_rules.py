"""PUTAUT's rules (who a receiving MCA puts as) and the modes the daemon test does not cover
(ONLYMCA, ALTMCA, no dead-letter queue), with two embedded queue managers and their channel
initiators in this process; QM2 has the security policy installed, so its OAM judges the
receiver's puts."""

from __future__ import annotations

import pytest
import trio

from mqpy import CMQC
from mqpy_chinit.putaut import PutAuthority
from tests.support.channel_pair import CHANNEL, DLQ, finish
from tests.support.putaut import _dead_letters, _grant, _put_as, _run
from tests.support.waiting import wait_until

# ------------------------------------------------------------------ pure rules


@pytest.mark.parametrize(("mode", "put_user", "also", "dlq_user"), [
    ("DEF", "bob", None, "bob"),
    ("ONLYMCA", "bob", None, "bob"),
    ("CTX", "carol", None, "bob"),
    ("ALTMCA", "carol", "bob", "bob"),
])
def test_putaut_names_the_user_each_put_is_judged_for(mode, put_user, also, dlq_user):
    """Given MCA user bob and a message from carol, then each PUTAUT names IBM's user(s)."""
    pa = PutAuthority.of({"PUTAUT": mode}, "bob")
    assert pa.put_user(b"carol       ") == put_user
    assert pa.also_checked() == also
    assert pa.dead_letter_user() == dlq_user


def test_blank_mca_user_is_the_channel_initiators_own_authority():
    """A requester with no MCAUSER (no CHLAUTH decision) puts with the channel initiator's
    own authority under DEF; under CTX a blank UserIdentifier is nobody ('' not None)."""
    pa = PutAuthority.of({"PUTAUT": "DEF", "MCAUSER": ""}, None)
    assert pa.put_user(b"carol") is None and pa.dead_letter_user() is None
    assert PutAuthority.of({"PUTAUT": "DEF", "MCAUSER": "rq"}, None).put_user(b"") == "rq"
    assert PutAuthority.of({"PUTAUT": "CTX"}, "").put_user(b" " * 12) == ""


# ------------------------------------------------------------------ channels


async def test_altmca_needs_both_the_mca_user_and_the_context_user(pair):
    """Given RCVR MCAUSER('bob') PUTAUT(ALTMCA), carol (the message's user) with +put on
    TARGET and bob with +put on the DLQ only, when carol's message arrives, then it is
    dead-lettered with reason 2035 (bob may not put to TARGET: z/OS's two checks); once bob
    has +put too, a message from dave (no authority) is dead-lettered and carol's next
    message is put to TARGET."""
    qm1, qm2 = pair()
    _grant(qm2, DLQ, "bob")
    async with trio.open_nursery() as nursery:
        r1, _ = await _run(qm1, qm2, nursery, "ALTMCA")
        _grant(qm2, "TARGET", "carol")
        _put_as(qm1, "carol", b"first")
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed(DLQ) == 1)
        _grant(qm2, "TARGET", "bob")
        _put_as(qm1, "dave", b"dave's")
        _put_as(qm1, "carol", b"second")
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm2.committed(DLQ) == 2)
        finish(nursery)
    dead = _dead_letters(qm2)
    assert [d for _, d in dead] == [b"first", b"dave's"]
    assert {h.Reason for h, _ in dead} == {CMQC.MQRC_NOT_AUTHORIZED}
    assert qm2.drain("TARGET") == [b"second"]
    assert any(m == "AMQ9544W" for m, _ in qm2.log)


async def test_onlymca_is_the_mca_user_alone(pair):
    """Given RCVR MCAUSER('bob') PUTAUT(ONLYMCA) and bob with +put on TARGET, when a message
    from carol (who has no authority at all on QM2) arrives, then it is put to TARGET."""
    qm1, qm2 = pair()
    _grant(qm2, "TARGET", "bob")
    async with trio.open_nursery() as nursery:
        r1, _ = await _run(qm1, qm2, nursery, "ONLYMCA")
        _put_as(qm1, "carol", b"as bob")
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"as bob"]


async def test_refused_put_with_no_dead_letter_queue_backs_the_batch_out(pair):
    """Given a QM2 with no dead-letter queue and RCVR MCAUSER('bob') PUTAUT(DEF), bob with no
    authority on TARGET, when a persistent message arrives, then the receiver backs the
    batch out and ends the channel (AMQ9565E: no dead-letter queue, reason 2035 named; then
    AMQ9999E, the channel's abnormal end; never AMQ9544, IBM's message for a message the
    dead-letter queue took): the message is still on QM1's
    transmission queue, nothing is on TARGET."""
    qm1, qm2 = pair(dlq=False)
    async with trio.open_nursery() as nursery:
        r1, _ = await _run(qm1, qm2, nursery, "DEF")
        _put_as(qm1, "carol", b"kept")
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: any(m == "AMQ9999E" for m, _ in qm2.log))
        finish(nursery)
    assert qm2.depth("TARGET") == 0 and qm1.committed("QM2") == 1
    [text] = [t for m, t in qm2.log if m == "AMQ9565E"]
    assert "reason 2035" in text and "No dead-letter queue defined." in text
    assert not [m for m, _ in qm2.log if m.startswith("AMQ9544")]
