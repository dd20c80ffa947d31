"""A server channel (SVR) that the operator stopped is not served when its requester calls
(IBM: AMQ9534E, channel not enabled); START CHANNEL enables it again."""

from __future__ import annotations

import trio

from mqpy_chinit.states import ChannelState
from tests.support.waiting import wait_until

from .test_rqstr_svr import _svr_and_rqstr


async def test_a_stopped_server_is_not_served_to_its_requester(two_qmgrs):
    """Given QM1's SVR QM1.SVR stopped with STOP CHANNEL and a message for QM2 on its
    transmission queue, when QM2's requester QM1.SVR is started, then QM1 does not serve it
    (AMQ9534E in QM1's log, the message stays, the SVR stays STOPPED); after START CHANNEL on
    QM1 the requester's next start is served and the message arrives."""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1 = qm1.make_chinit()
        await nursery.start(c1.run, [("127.0.0.1", 0)])
        _svr_and_rqstr(qm1, qm2, c1.ports[0])
        qm1.put("TARGET", b"held", qmgr="QM2")
        assert c1.stop_channel("QM1.SVR") is None
        assert c1.status_of("QM1.SVR").state is ChannelState.STOPPED
        c2 = qm2.make_chinit()
        await nursery.start(c2.run)
        assert c2.start_channel("QM1.SVR") is None
        await wait_until(lambda: any(m == "AMQ9534E" for m, _ in qm1.log))
        await wait_until(lambda: "QM1.SVR" not in c2.running)
        assert c1.status_of("QM1.SVR").state is ChannelState.STOPPED
        assert qm2.committed("TARGET") == 0 and qm1.depth("QM2") == 1
        assert c1.start_channel("QM1.SVR") is None
        assert c1.status_of("QM1.SVR").state is ChannelState.INACTIVE
        assert c2.start_channel("QM1.SVR") is None
        await wait_until(lambda: qm2.committed("TARGET") == 1)
        nursery.cancel_scope.cancel()
