"""PING CHANNEL reaching a partner whose receiver still runs (the sending end saw the link
fail, the receiving end never did): the ping is answered, and the running receiver is neither
replaced (adopt MCA) nor ended, whether adopt is on or off."""

from __future__ import annotations

import pytest
import trio

from tests.support.channel_pair import CHANNEL, finish, mqsc

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
