"""Channel start-up: what the two ends agree on, and the starts they must refuse."""

from __future__ import annotations

import pytest
import trio

from mqpy.fap.controlflows import Status
from mqpy.fap.statuscodes import StatusCode
from mqpy_chinit.states import ChannelState
from tests.support.channel_pair import CHANNEL, define_pair, finish, start_chinit
from tests.support.proxy import TapProxy
from tests.support.waiting import wait_until


async def _start(qm1, qm2, nursery, *, rcvr=None, **sdr):
    r2 = await start_chinit(nursery, qm2, listen=True)
    define_pair(qm1, qm2, r2.port, rcvr=rcvr, **sdr)
    r1 = await start_chinit(nursery, qm1)
    assert r1.chinit.start_channel(CHANNEL) is None
    return r1.chinit, r2.chinit


async def test_batch_size_is_the_lower_of_the_two_definitions(qm1, qm2):
    """Given SDR BATCHSZ(50) and RCVR BATCHSZ(20), when the channel starts, then both ends
    run with a batch size of 20, and 45 queued messages cross in batches of at most 20.
    spec: dqm-intercommunication 9.21"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, BATCHSZ=50, rcvr={"BATCHSZ": 20})
        for i in range(45):
            qm1.put("TARGET", b"m%02d" % i, qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        await wait_until(lambda: qm2.committed("TARGET") == 45)
        st1, st2 = r1.chinit.status_of(CHANNEL), r2.chinit.status_of(CHANNEL)
        await wait_until(lambda: st1.last_seqno == 45)
        assert st1.batchsz == 20 and st2.batchsz == 20
        assert st1.batches >= 3  # 45 messages, at most 20 in each batch
        finish(nursery)


@pytest.mark.parametrize(("sdr_hb", "rcvr_hb", "agreed"), [(60, 300, 300), (300, 60, 300),
                                                            (0, 300, 0), (300, 0, 0)])
async def test_heartbeat_interval_is_the_larger_and_zero_at_either_end_wins(
        qm1, qm2, sdr_hb, rcvr_hb, agreed):
    """Given SDR HBINT(a) and RCVR HBINT(b), when the channel starts, then both ends show the
    negotiated HBINT: the larger (the least frequent) of the two, or 0 if either is 0.
    spec: aliases-channels-storage 4.10; dqm-intercommunication 9.22"""
    async with trio.open_nursery() as nursery:
        c1, c2 = await _start(qm1, qm2, nursery, HBINT=sdr_hb, rcvr={"HBINT": rcvr_hb})
        await wait_until(lambda: (s := c2.status_of(CHANNEL)) is not None
                         and s.state is ChannelState.RUNNING)
        await wait_until(lambda: c1.status_of(CHANNEL).state is ChannelState.RUNNING)
        assert c1.status_of(CHANNEL).hbint == agreed
        assert c2.status_of(CHANNEL).hbint == agreed
        finish(nursery)


async def test_different_sequence_wrap_values_refuse_to_start(qm1, qm2):
    """Given SDR SEQWRAP(1000) and RCVR SEQWRAP(999999999), when the channel starts, then the
    start is refused (STATUS WRAP_VALUE_ERROR on the wire, AMQ9527 at the sender), the sender
    is STOPPED without retrying and nothing moves.
    spec: operations-dlq-clusters 7.18; operations-dlq-clusters 5 (different sequence wrap
    values); dqm-intercommunication §3 (sequence-wrap value negotiated)"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        proxy = TapProxy(r2.port)
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port, SEQWRAP=1000, SHORTRTY=3)
        qm1.put("TARGET", b"never", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st.state is ChannelState.STOPPED)
        assert ChannelState.RETRYING not in st.history
        assert any(m.startswith("AMQ9527") for m, _ in qm1.log)
        assert any(isinstance(e, Status) and e.code == StatusCode.WRAP_VALUE_ERROR
                   for e in proxy.events("r2s"))
        assert qm1.depth("QM2") == 1 and qm2.committed("TARGET") == 0
        finish(nursery)


async def test_no_receiver_of_that_name_fails_the_start(qm1, qm2):
    """Given SDR CH.A on QM1 and only RCVR CH.B on QM2, when CH.A starts, then QM2 refuses it
    (STATUS NO_CHANNEL, AMQ9519 'channel not found' in QM2's log), the sender never reaches
    RUNNING and the message stays on the xmitq.  spec: dqm-intercommunication 9.24"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, channel="CH.A", SHORTRTY=1)
        qm2.engine.delete("CHANNEL", "CH.A")
        qm2.define("CHANNEL", "CH.B", CHLTYPE="RCVR")
        qm1.put("TARGET", b"stays", qmgr="QM2")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel("CH.A")
        st = r1.chinit.status_of("CH.A")
        await wait_until(lambda: any(m.startswith("AMQ9519") for m, _ in qm2.log))
        await wait_until(lambda: st.state in (ChannelState.RETRYING, ChannelState.STOPPED))
        assert ChannelState.RUNNING not in st.history
        assert qm1.depth("QM2") == 1 and qm2.committed("TARGET") == 0
        finish(nursery)


async def test_sender_reports_channel_not_defined_remotely(qm1, qm2):
    """Given SDR CH.A and no RCVR CH.A at the partner, when CH.A starts, then the sending end
    logs AMQ9520 (channel not defined remotely).  spec: dqm-intercommunication 9.24"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        define_pair(qm1, qm2, r2.port, channel="CH.A", SHORTRTY=0, LONGRTY=0)
        qm2.engine.delete("CHANNEL", "CH.A")
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel("CH.A")
        st = r1.chinit.status_of("CH.A")
        await wait_until(lambda: st.state is ChannelState.STOPPED)
        finish(nursery)
    assert any(m.startswith("AMQ9520") for m, _ in qm1.log), qm1.log


async def test_a_sender_at_the_other_end_is_the_wrong_type(qm1, qm2):
    """Given SDR CH1 on QM1 and, on QM2, CH1 defined as another SDR, when CH1 starts, then QM2
    refuses it (STATUS CHANNEL_WRONG_TYPE, AMQ9502 in QM2's log) and the sender goes to
    STOPPED without retrying: retrying cannot cure a definition error.
    spec: dqm-intercommunication 9.24; operations-dlq-clusters 5 (wrong channel types)"""
    async with trio.open_nursery() as nursery:
        r2 = await start_chinit(nursery, qm2, listen=True)
        proxy = TapProxy(r2.port)
        await nursery.start(proxy.run)
        define_pair(qm1, qm2, proxy.port, SHORTRTY=3)
        qm2.engine.define("CHANNEL", CHANNEL, {"CHLTYPE": "SDR", "CONNAME": "127.0.0.1(1)",
                                                "XMITQ": "XQ"}, replace=True)
        r1 = await start_chinit(nursery, qm1)
        r1.chinit.start_channel(CHANNEL)
        st = r1.chinit.status_of(CHANNEL)
        await wait_until(lambda: st.state is ChannelState.STOPPED
                         or ChannelState.RETRYING in st.history, 5)
        assert st.state is ChannelState.STOPPED
        assert ChannelState.RETRYING not in st.history
        await wait_until(lambda: any(m.startswith("AMQ9502") for m, _ in qm2.log), 2)
        assert any(isinstance(e, Status) and e.code == StatusCode.CHANNEL_WRONG_TYPE
                   for e in proxy.events("r2s"))
        finish(nursery)
