"""STOP CHANNEL of an idle sender whose channel initiator is connected to its queue manager as
runmqchi is (bindings, to a queue manager started by strmqm): the MCA's MQGET of the
transmission queue, waiting in the queue manager for a message, is ended at once by the stop
in every mode (the connection's CONN_STATE wake), rather than left to the end of its wait. The
gets here wait far longer than any test (POLL_MS patched)."""

from __future__ import annotations

import pytest
import trio

import mqpy
from mqpy import CMQC
from mqpy_chinit import sender_mca
from mqpy_chinit.admin import MQSCAdmin
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, start_chinit
from tests.support.daemon_pair import bind, command_server, depth
from tests.support.installation import Installation
from tests.support.waiting import wait_until

#: the idle channel's get made to wait ten minutes
LONG_POLL_MS = 600_000
#: far less than LONG_POLL_MS: a stop that waited for the get would never be seen within it
WITHIN = 10.0


@pytest.fixture
def site(tmp_path):
    """An installation whose queue managers run as daemons without channel initiators (the
    test runs QM1's), killed by pid at the end."""
    inst = Installation(str(tmp_path / "site"))
    yield inst
    inst.kill_all()


def _input_handles(site: Installation, queue: str) -> int:
    qm = bind(site, "QM1")
    try:
        return mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE).inquire(CMQC.MQIA_OPEN_INPUT_COUNT)
    finally:
        qm.disconnect()


@pytest.mark.parametrize("mode", ["QUIESCE", "FORCE"])
async def test_stop_channel_of_an_idle_sender_over_bindings_is_prompt(site, qm2, monkeypatch,
                                                                      mode):
    """Given QM1 started by strmqm, its channel initiator connected over bindings (as
    runmqchi) running SDR QM1.TO.QM2, which has delivered a message and is idle, its MCA's
    get of the transmission queue lasting ten minutes, when STOP CHANNEL MODE(QUIESCE|FORCE)
    is issued, then the channel is STOPPED within seconds, its transmission queue is no
    longer open and nothing is left on it.  spec: dqm-intercommunication 9.39"""
    monkeypatch.setattr(sender_mca, "POLL_MS", LONG_POLL_MS)
    assert site.run("crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", "QM1").returncode == 0
    site.start("QM1")
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        qm2.define("CHANNEL", CHANNEL, CHLTYPE="RCVR")
        qm2.define("QLOCAL", "TARGET")
        await trio.to_thread.run_sync(command_server, site, "QM1", f"""
            DEFINE QLOCAL(QM2) USAGE(XMITQ)
            DEFINE CHANNEL({CHANNEL}) CHLTYPE(SDR) CONNAME('127.0.0.1({r2.port})') XMITQ(QM2) +
                   HBINT(0)
        """)
        admin_qm = await trio.to_thread.run_sync(bind, site, "QM1")
        chinit = ChannelInitiator("QM1", lambda: bind(site, "QM1"), MQSCAdmin(admin_qm))
        c1 = trio.CancelScope()

        async def run_chinit(task_status=trio.TASK_STATUS_IGNORED) -> None:
            with c1:
                await chinit.run([], task_status=task_status)

        await nursery.start(run_chinit)
        qm = await trio.to_thread.run_sync(bind, site, "QM1")
        await trio.to_thread.run_sync(qm.put1, mqpy.OD(ObjectName=b"TARGET",
                                                       ObjectQMgrName=b"QM2"), b"first")
        qm.disconnect()
        assert chinit.start_channel(CHANNEL) is None
        st = chinit.status_of(CHANNEL)
        await wait_until(lambda: st.state is ChannelState.RUNNING
                         and qm2.committed("TARGET") == 1, 10)
        await trio.sleep(0.3)  # the batch ended: the MCA is back in its idle get
        assert chinit.stop_channel(CHANNEL, mode) is None
        with trio.fail_after(WITHIN):
            await wait_until(lambda: st.state is ChannelState.STOPPED, WITHIN)
            await wait_until(lambda: _input_handles(site, "QM2") == 0, WITHIN)
        assert depth(site, "QM1", "QM2") == 0
        c1.cancel()
        admin_qm.disconnect()
        nursery.cancel_scope.cancel()
    assert qm2.drain("TARGET") == [b"first"]
