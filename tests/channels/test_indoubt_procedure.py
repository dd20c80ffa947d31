"""The operator's procedure for an in-doubt sender, step by step as IBM's Intercommunication
book gives it: compare the saved LUWIDs, RESOLVE COMMIT when they are equal, RESOLVE BACKOUT
when they differ, after which the xmitq may serve another channel."""

from __future__ import annotations

import trio

from mqpy.fap.tsh import SegmentType
from tests.channels.test_indoubt_resolve import BATCH, _left_in_doubt, indoubt_keys
from tests.support.channel_pair import CHANNEL, browse, chstatus, finish, mqsc, start_chinit
from tests.support.proxy import nth_message, once
from tests.support.waiting import wait_until


async def test_given_an_in_doubt_sender_when_saved_status_is_shown_then_luwids_compare(
        qm1, qm2):
    """Given a sender in doubt after the receiver committed, when the operator runs DISPLAY
    CHSTATUS SAVED CURLUWID (with XMITQ and CONNAME) at the sender and SAVED LSTLUWID at the
    receiver, then the sender shows INDOUBT(YES), its xmitq, and a CURLUWID equal to the
    receiver's LSTLUWID.

    spec: dqm-intercommunication 3 item 1"""
    async with trio.open_nursery() as nursery:
        await _left_in_doubt(qm1, qm2, nursery,
                             once("r2s", SegmentType.STATUS_DATA, "drop-and-cut"))
        sender = chstatus((await mqsc(
            qm1, f"DISPLAY CHSTATUS({CHANNEL}) SAVED CURLUWID XMITQ CONNAME INDOUBT")).lines)
        receiver = chstatus((await mqsc(
            qm2, f"DISPLAY CHSTATUS({CHANNEL}) SAVED LSTLUWID")).lines)
        finish(nursery)
    assert (sender["INDOUBT"], sender["XMITQ"]) == ("YES", "QM2")
    assert sender["CURLUWID"] == receiver["LSTLUWID"] != "0" * 16


async def test_given_equal_luwids_when_resolve_commit_then_messages_leave_and_xmitq_enabled(
        qm1, qm2):
    """Given equal LUWIDs, when RESOLVE CHANNEL ACTION(COMMIT) runs, then the in-doubt messages
    are gone from the xmitq and it is GET(ENABLED) again.

    spec: dqm-intercommunication 3 item 2"""
    async with trio.open_nursery() as nursery:
        await _left_in_doubt(qm1, qm2, nursery,
                             once("r2s", SegmentType.STATUS_DATA, "drop-and-cut"))
        result = await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
        finish(nursery)
    assert result.ok, result.lines
    assert indoubt_keys(qm1) == [] and browse(qm1, "QM2") == []
    assert qm1.engine.lookup("QLOCAL", "QM2").attributes["GET"] == "ENABLED"


async def test_given_different_luwids_when_resolve_backout_then_another_channel_sends_them(
        qm1, qm2):
    """Given LUWIDs that differ (the receiver never had the batch), when RESOLVE CHANNEL
    ACTION(BACKOUT) runs, then the messages stay on the xmitq, and once the channel is deleted
    a second sender defined on the same xmitq delivers them, each once.

    spec: dqm-intercommunication 3 item 3"""
    async with trio.open_nursery() as nursery:
        r2, _sender, _receiver = await _left_in_doubt(qm1, qm2, nursery, nth_message(BATCH))
        assert (await mqsc(qm1, f"RESOLVE CHANNEL({CHANNEL}) ACTION(BACKOUT)")).ok
        assert len(browse(qm1, "QM2")) == BATCH
        assert (await mqsc(qm1, f"DELETE CHANNEL({CHANNEL})")).ok
        other = "QM1.TO.QM2.B"
        qm1.define("CHANNEL", other, CHLTYPE="SDR", CONNAME=f"127.0.0.1({r2.port})",
                   XMITQ="QM2", SHORTTMR=1)
        qm2.define("CHANNEL", other, CHLTYPE="RCVR")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(other)
        await wait_until(lambda: qm2.committed("TARGET") == BATCH and qm1.depth("QM2") == 0)
        finish(nursery)
    assert qm2.drain("TARGET") == [b"m%d" % i for i in range(BATCH)]
