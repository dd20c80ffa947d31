"""PING CHANNEL reaching a partner whose receiver still runs (the sending end saw the link
fail, the receiving end never did): the ping is answered, and the running receiver is neither
replaced (adopt MCA) nor ended, whether adopt is on or off."""

from __future__ import annotations

import pytest
import trio

from mqpy.fap.controlflows import Ping
from tests.support.channel_pair import CHANNEL, define_pair, finish, mqsc, start_chinit
from tests.support.proxy import TapProxy

from .test_adopt_and_limits import ADOPT_OFF, ADOPT_ON, _orphaned_receiver


@pytest.mark.parametrize("adopt", ["ALL", "NO"])
async def test_ping_of_a_retrying_sender_answered_without_adopting_the_receiver(make_qmgr,
                                                                                 adopt):
    """Given channel QM1.TO.QM2 whose link died so that only QM1 noticed (QM1's sender
    RETRYING, QM2's receiver still RUNNING, orphaned) and ADOPTMCA(``adopt``) at QM2, when the
    operator issues PING CHANNEL(QM1.TO.QM2) on QM1, then the ping completes (AMQ8020I), QM2
    logs no adoption (AMQ9532I) and no refusal (AMQ9514E), and QM2's receiver is the same
    running instance: its socket was not closed, its status still shows it.
    spec: operations-dlq-clusters 7.19; aliases-channels-storage 2.11"""
    qm1 = make_qmgr("QM1")
    qm2 = make_qmgr("QM2", channels=ADOPT_ON if adopt == "ALL" else ADOPT_OFF)
    qm2.engine.alter_qmgr({"ADOPTMCA": adopt, "ADOPTCHK": "ALL"})
    async with trio.open_nursery() as nursery:
        _st1, proxy, orphan = await _orphaned_receiver(qm1, qm2, nursery, shorttmr=60)
        receiver = qm2.chinit.receivers[(CHANNEL, "QM1")][0]
        result = await mqsc(qm1, f"PING CHANNEL({CHANNEL})")
        await trio.sleep(0.3)
        still = qm2.chinit.receivers.get((CHANNEL, "QM1"), (None,))[0]
        shown = qm2.chinit.status_of(CHANNEL)
        closed = proxy.orphans_closed
        finish(nursery)
    assert result.ok and any("AMQ8020I" in line for line in result.lines), result.lines
    assert not [m for m, _ in qm2.log if m in ("AMQ9532I", "AMQ9514E")], qm2.log
    assert still is receiver and not receiver.cancel_called
    assert closed == 0
    assert shown is orphan


async def test_ping_sends_the_data_length_the_operator_asked(qm1, qm2):
    """Given channel QM1.TO.QM2 defined, QM2 listening through a recording proxy, when the
    operator issues PING CHANNEL(QM1.TO.QM2) DATALEN(20000), then it completes (AMQ8020I)
    and the PING flow carried 20,000 bytes of test data (IBM's DATALEN, 16 to 32768);
    with DATALEN(32768) as much as one transmission carries (IBM: "might be less than the
    amount requested"); without DATALEN, IBM's default of 16.
    spec: operations-dlq-clusters 7.19"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        tap = TapProxy(r2.port)
        await nursery.start(tap.run)
        define_pair(qm1, qm2, tap.port)
        await start_chinit(nursery, qm1)
        results = [await mqsc(qm1, f"PING CHANNEL({CHANNEL}){datalen}")
                   for datalen in (" DATALEN(20000)", " DATALEN(32768)", "")]
        finish(nursery)
    assert all(r.ok and r.lines == ["AMQ8020I: Ping IBM MQ channel complete."]
               for r in results), [r.lines for r in results]
    sent = [len(ev.data) for ev in tap.events("s2r") if isinstance(ev, Ping)]
    assert sent[0] == 20000 and 32000 < sent[1] <= 32768 and sent[2] == 16, sent
