"""A receiver holds a batch's syncpoint puts until the batch ends and puts them with its
sync record in one run; a PUTAUT refusal in the middle of such a batch is dead-lettered in
its place, and the batch still ends with exactly one sync record at its last sequence
number."""

from __future__ import annotations

import trio

import mqpy
from mqpy import CMQC, syncrecord
from tests.support.channel_pair import CHANNEL, DLQ, finish
from tests.support.putaut import _dead_letters, _grant, _put_as, _run
from tests.support.waiting import wait_until


def _put_all_as(qm1, messages) -> None:
    """Messages for TARGET at QM2, each with its user as context, in one unit of work: they
    reach the transmission queue together (one batch)."""
    qm = qm1.connect()
    try:
        for user, data in messages:
            qm.put1(mqpy.OD(ObjectName=b"TARGET", ObjectQMgrName=b"QM2"), data,
                    mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, UserIdentifier=user.encode()),
                    mqpy.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT | CMQC.MQPMO_SYNCPOINT))
        qm.commit()
    finally:
        qm.disconnect()


async def test_a_refusal_in_the_middle_of_a_held_batch_keeps_order_and_record(pair):
    """Given RCVR MCAUSER('bob') PUTAUT(ALTMCA), bob and carol with +put on TARGET and bob on
    the DLQ, and a first message moved (the receiver knows its sync record), when six
    messages reach QM1's transmission queue together (one unit of work: one batch): carol's,
    dave's (no authority), carol's x2, dave's, carol's (the batch's last run puts carol's
    last message and the sync record together), then carol's five are on TARGET in order,
    dave's two on the DLQ in order, each once, and QM2 holds one receiver record for the
    channel, at sequence number 7; an eighth message moves once too (record at 8)."""
    qm1, qm2 = pair()
    _grant(qm2, DLQ, "bob")
    _grant(qm2, "TARGET", "bob")
    _grant(qm2, "TARGET", "carol")
    async with trio.open_nursery() as nursery:
        r1, _ = await _run(qm1, qm2, nursery, "ALTMCA")
        _put_as(qm1, "carol", b"c0")
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == 1 and qm1.committed("QM2") == 0)
        _put_all_as(qm1, [("carol", b"c1"), ("dave", b"d1"), ("carol", b"c2"),
                          ("carol", b"c3"), ("dave", b"d2"), ("carol", b"c4")])
        await wait_until(lambda: qm2.committed("TARGET") == 5 and qm2.committed(DLQ) == 2
                         and qm1.committed("QM2") == 0)
        _put_as(qm1, "carol", b"c5")
        await wait_until(lambda: qm2.committed("TARGET") == 6 and qm1.committed("QM2") == 0)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"c0", b"c1", b"c2", b"c3", b"c4", b"c5"]
    assert [d for _, d in _dead_letters(qm2)] == [b"d1", b"d2"]
    conn = qm2.connect()
    try:
        records = syncrecord._records(conn, CHANNEL, "R")
    finally:
        conn.disconnect()
    assert [r.seq for _, r in records] == [8]
