"""In-doubt batches: a link cut at the worst moment loses and duplicates nothing."""

from __future__ import annotations

from mqpy.fap.tsh import SegmentType
from tests.channels.pairs import _run_with_proxy
from tests.support.proxy import nth_message, once

STATUS = SegmentType.STATUS_DATA
MESSAGE = SegmentType.MESSAGE_DATA


async def test_reply_lost_after_receiver_commit_sender_commits_at_restart(two_qmgrs):
    """Given the link drops after the receiver committed a batch but before its confirmation
    reached the sender, when the channel retries, then the sender, in doubt, resynchronises,
    finds the receiver has its LUWID, commits: every message once.
    spec: dqm-intercommunication 9.31; aliases-channels-storage 4.15; aliases-channels-storage 4.16"""
    qm1, qm2 = two_qmgrs
    proxy, c1 = await _run_with_proxy(qm1, qm2, once("r2s", STATUS, "drop-and-cut"))
    assert proxy.cuts == 1 and proxy.connections >= 2
    assert qm2.drain("TARGET") == [b"m%03d" % i for i in range(30)]
    assert any(m == "AMQ9209E" or m == "AMQ9208E" for m, _ in qm1.log)


async def test_confirm_request_lost_sender_backs_out_and_resends(two_qmgrs):
    """Given the link drops with the batch's last message (its confirm request) in flight, when
    the channel retries, then the receiver has backed its batch out, the in-doubt sender backs
    out too, and re-sends: every message once, in order.  spec: dqm-intercommunication 9.31"""
    qm1, qm2 = two_qmgrs
    proxy, _ = await _run_with_proxy(qm1, qm2, nth_message(10))  # BATCHSZ 10: the 10th
    assert proxy.cuts == 1
    assert qm2.drain("TARGET") == [b"m%03d" % i for i in range(30)]


async def test_link_cut_in_the_middle_of_a_batch_backs_out_both_ends(two_qmgrs):
    """Given the link drops in the middle of a batch (before any confirm request), then both
    ends back the batch out and the retry delivers every message once, in order."""
    qm1, qm2 = two_qmgrs
    proxy, _ = await _run_with_proxy(qm1, qm2, nth_message(5))
    assert proxy.cuts == 1
    assert qm2.drain("TARGET") == [b"m%03d" % i for i in range(30)]
