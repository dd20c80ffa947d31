"""Channel pipelining: qm.ini ``Channels: PipeLineLength=2`` lets a sending MCA get and send
the next batch while the partner confirms the one before (sender_batch.SenderBatches, driven
by sender_mca.SenderMCA), with every message delivered once and in order, and no more than
one batch in doubt."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import attrs
import pytest
import trio

from mqpy import config, inprocess, syncrecord
from mqpy.browsing import browse
from mqpy.fap.controlflows import Status
from mqpy.fap.framing import SegmentReader
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH, MessageData
from mqpy.fap.tsh import ControlFlags1, SegmentType
from mqpy.mqsc.processor import MQSCProcessor
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.engineadmin import EngineAdmin
from mqpy_chinit.states import ChannelState
from tests.channels.pairs import _run_with_proxy, _svr_and_rqstr
from tests.support.daemon_pair import (
    N,
    _pid,
    _progress,
    _put_persistent,
    _start,
    _two_daemons_and_a_triggered_channel,
    _wait_progress,
    all_arrive_once_in_order,
    idle_then_killed,
    killed_at_end,
)
from tests.support.proxy import ThreadedProxy, nth_message, once
from tests.support.waiting import wait_until

from .pairs import CHANNEL, PIPELINED, hold_statuses, messages_passed_beyond, running_pair

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
site = pytest.fixture(killed_at_end, name="site")


# ------------------------------------------------------------------- qm.ini PipeLineLength


def test_pipeline_length_is_1_2_or_the_default():
    """Given qm.ini Channels: PipeLineLength absent, 1, 2, above 2, or spelt in capitals,
    then the sending MCAs run 1, 1, 2, 2 (IBM: "any value greater than 1 is treated as 2"),
    2; a value that is not a positive number is refused (strmqm and runmqchi: AMQ8940E)."""
    def length(values):
        return config.ChannelsConfig.parse(values).pipeline_length
    assert length(None) == 1
    assert length({"MaxChannels": "10"}) == 1
    assert length({"PipeLineLength": "1"}) == 1
    assert length({"PipeLineLength": "2"}) == 2
    assert length({"PipeLineLength": "7"}) == 2
    assert length({"PIPELINELENGTH": " 2 "}) == 2
    for bad in ("two", "0", "-1", ""):
        with pytest.raises(config.ConfigError) as err:
            length({"PipeLineLength": bad})
        assert (err.value.key, err.value.value) == ("PipeLineLength", bad)


def test_pipeline_length_written_into_qm_ini_is_read_back(two_qmgrs):
    """Given QM1's qm.ini as created, when Channels: PipeLineLength=2 is set in it
    (config.set_channels_value, as the kill tests and the benchmark do), then the stanza
    read back has it beside the values it had, and the other stanzas are unchanged."""
    qm1, _ = two_qmgrs
    before = config.QMgrConfig.load("QM1", qm1.root)
    config.set_channels_value("QM1", "PipeLineLength", "2", qm1.root)
    after = config.QMgrConfig.load("QM1", qm1.root)
    assert after.channels == {**before.channels, "PipeLineLength": "2"}
    assert after.channel_limits.pipeline_length == 2
    assert [st for st in after.raw if st[0] != "Channels"] == \
        [st for st in before.raw if st[0] != "Channels"]


def test_the_channel_initiator_pipelines_as_qm_ini_says(two_qmgrs):
    """Given PipeLineLength=3 (or the numbers QMgrConfig.load checked), when the channel
    initiator is made, then its channels pipeline 2 batches; PipeLineLength=x is refused
    with the ConfigError strmqm and runmqchi report as AMQ8940E."""
    qm1, _ = two_qmgrs
    assert ChannelInitiator("QM1", qm1.connect, EngineAdmin(qm1.engine),
                            channels_stanza={"PipeLineLength": "3"}).pipeline == 2
    assert ChannelInitiator("QM1", qm1.connect, EngineAdmin(qm1.engine),
                            channels=config.ChannelsConfig(pipeline_length=2)).pipeline == 2
    with pytest.raises(config.ConfigError):
        ChannelInitiator("QM1", qm1.connect, EngineAdmin(qm1.engine),
                         channels_stanza={"PipeLineLength": "x"})


# ------------------------------------------------------------------- flows


def _flows(recorded: list[tuple[str, bytes]]) -> list[tuple[str, object]]:
    """The proxy's recorded segments decoded, in the order it passed them."""
    readers = {"s2r": SegmentReader(), "r2s": SegmentReader()}
    out = []
    for direction, seg in recorded:
        out.extend((direction, ev) for ev in readers[direction].feed(seg))
    return out


def _overlaps(flows: list[tuple[str, object]]) -> int:
    """Messages the sender sent while a confirm request of its was still unanswered."""
    waiting = 0
    ahead = 0
    for direction, ev in flows:
        if direction == "s2r" and isinstance(ev, MessageData):
            ahead += waiting > 0
            if ev.flags & ControlFlags1.CONFIRM_REQUEST:
                waiting += 1
        elif direction == "r2s" and isinstance(ev, Status):
            waiting -= 1
    return ahead


async def _refused(qm1, qm2, names: list[bytes], bad: int, batchsz: int, policy=None,
                   release=None):
    """The pipelined channel (no retries) run until it stops, over ``names`` for TARGET at
    QM2 but for the ``bad``-th, for a queue QM2 does not have (its DLQ put-inhibited); the
    proxy between the two (with ``policy`` and ``release``; None: no proxy)."""
    qm2.engine.alter("QLOCAL", DLQ, {"PUT": "DISABLED"})
    messages = [("NO.SUCH.Q" if i == bad else "TARGET", body, True)
                for i, body in enumerate(names)]
    async with running_pair(qm1, qm2, messages, policy=policy, release=release,
                            BATCHSZ=batchsz, SHORTRTY=0, LONGRTY=0, HBINT=0) as pair:
        await wait_until(lambda: (s := pair.c1.status_of(CHANNEL)) is not None
                         and s.state is ChannelState.STOPPED, 20)
        await wait_until(lambda: qm1.committed("QM2") == len(names))
    return pair.proxy


def _on_xmitq(qm1) -> list[bytes]:
    """The application data of the messages on QM1's transmission queue QM2 (after their
    MQXQH), browsed: a channel's error stop disables the queue for gets."""
    qm = qm1.connect()
    try:
        return [data[XQH_WITH_MD_LENGTH:] for _md, data in browse(qm, "QM2")]
    finally:
        qm.disconnect()


def _delay_statuses(count: int):
    """Proxy policy: the first ``count`` STATUS flows from the receiver arrive late."""
    seen = []

    def policy(d, t, i):
        if d == "r2s" and t == SegmentType.STATUS_DATA and len(seen) < count:
            seen.append(i)
            return "delay"
        return "pass"
    return policy


async def _move(qm1, qm2, stanza, count=120, hold_max=30.0, **sdr):
    """``count`` messages, persistent and not in turn, across QM1.TO.QM2 (BATCHSZ 10)
    through a proxy that holds back the first three confirmations until the sender has
    sent a message beyond the batches they confirm (or for ``hold_max`` seconds): the
    proxy."""
    messages = [("TARGET", b"m%04d" % i, i % 2 == 0) for i in range(count)]
    async with running_pair(qm1, qm2, messages, policy=hold_statuses(3),
                            release=messages_passed_beyond(10), hold_max=hold_max,
                            stanza=stanza, BATCHSZ=10, **sdr) as pair:
        await wait_until(lambda: qm2.depth("TARGET") == count and qm1.depth("QM2") == 0, 30)
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: not st1.indoubt and st1.last_seqno == count)
        assert st1.msgs == count and st1.state is ChannelState.RUNNING
        assert not qm1.engine.indoubt()
    assert qm2.drain("TARGET") == [b"m%04d" % i for i in range(count)]
    return pair.proxy


async def test_a_pipelined_channel_sends_the_next_batch_before_the_confirmation(two_qmgrs):
    """Given PipeLineLength=2 and 120 messages (persistent and non-persistent in turn) on
    the transmission queue, BATCHSZ 10, the receiver's first three confirmations held back
    until the sender has sent a message of the next batch, when the channel runs, then the
    sender sends the next batch's messages, all but its last, while each held batch awaits
    its confirmation, and every message arrives once, in order, nothing left in doubt.
    spec: dqm-intercommunication 9.28; dqm-intercommunication 9.33"""
    qm1, qm2 = two_qmgrs
    proxy = await _move(qm1, qm2, PIPELINED)
    flows = _flows(proxy.recorded)
    assert _overlaps(flows) >= 3 * 9  # batch 2, 3 and 4's messages but their last
    # sequence numbers run on, batch after batch, whatever was in flight
    seqs = [ev.seqnum for d, ev in flows if d == "s2r" and isinstance(ev, MessageData)]
    assert seqs == list(range(1, 121))


async def test_without_pipelining_the_sender_waits_for_each_confirmation(two_qmgrs):
    """Given no PipeLineLength (the default 1), the same run, each held confirmation
    released after 1 s (nothing of the next batch comes to release it): no message of a
    batch goes before the confirmation of the batch before it (the flows of an unpipelined
    channel)."""
    qm1, qm2 = two_qmgrs
    proxy = await _move(qm1, qm2, None, hold_max=1.0)
    assert _overlaps(_flows(proxy.recorded)) == 0


async def test_a_batch_the_receiver_backs_out_leaves_both_batches_on_the_xmitq(two_qmgrs):
    """Given PipeLineLength=2, BATCHSZ 5, 15 messages of which the third cannot be put at
    QM2 (no such queue, the DLQ put-inhibited), the receiver's answer held back until the
    sender has sent a message of the second batch, when the channel runs, then the
    receiver backs the first batch out while the second is already sent, the
    sender backs out both: every message is back on QM1's transmission queue in order,
    nothing is in doubt, nothing reached QM2, and the channel stops (no retries).
    spec: operations-dlq-clusters 7.14; dqm-intercommunication 9.33"""
    qm1, qm2 = two_qmgrs
    names = [b"m%02d" % i for i in range(15)]
    proxy = await _refused(qm1, qm2, names, 2, 5, hold_statuses(1), messages_passed_beyond(5))
    flows = _flows(proxy.recorded)
    sent = [ev.seqnum for d, ev in flows if d == "s2r" and isinstance(ev, MessageData)]
    assert max(sent) > 5  # the second batch was on its way when the first was refused
    assert not qm1.engine.indoubt()
    assert qm2.depth("TARGET") == 0
    assert _on_xmitq(qm1) == names


# ------------------------------------------------------------------- SIGKILL, two daemons


HELD = 3  # the batch whose confirmation the proxy holds back in the kill tests


@attrs.define
class _InFlight:
    proxy: ThreadedProxy
    released: threading.Event  # set: the held confirmation may go


@pytest.fixture
def in_flight(site):
    """Two daemons, QM1's qm.ini with PipeLineLength=2, the triggered channel C (BATCHSZ
    20) moving N persistent messages through a proxy that holds back the receiver's
    confirmation of the third batch (first connection only, until ``released``): yielded
    once the sender has sent the fourth batch but its last message while the third is
    still in doubt -- two batches in flight, whatever the machine's speed."""
    released = threading.Event()
    statuses: list[int] = []
    made: list[ThreadedProxy] = []

    def policy(d, t, i):
        if d == "r2s" and t == SegmentType.STATUS_DATA and made[0].proxy.connections == 1:
            statuses.append(i)
            if len(statuses) == HELD:
                return "hold"
        return "pass"

    def through(port: int) -> int:
        made.append(ThreadedProxy(port, policy, release=lambda p: released.is_set(),
                                  hold_max=120.0))
        return made[0].start()

    try:
        _two_daemons_and_a_triggered_channel(site, batchsz=20, pipeline=2, through=through)
        _put_persistent(site, 0, N)
        proxy = made[0].proxy
        deadline = time.monotonic() + 60
        while not (proxy.holding == 1 and proxy.passed(
                "s2r", SegmentType.MESSAGE_DATA) >= HELD * 20 + 19):
            assert time.monotonic() < deadline, "the pipelined batches never got in flight"
            time.sleep(0.02)
        yield _InFlight(made[0], released)
    finally:
        released.set()
        if made:
            made[0].stop()


def test_sending_qmgr_killed_with_batches_in_flight(site, in_flight):
    """Given a pipelined SDR-RCVR channel between two daemons moving 1200 persistent
    messages in batches of 20, when the sending queue manager and its channel initiator are
    killed with SIGKILL with the third batch in doubt (its confirmation held back) and the
    fourth sent but its last message, then at restart exactly that batch is in doubt (the
    fourth's gets are simply backed out), and once restarted every message arrives exactly
    once and in order.
    spec: dqm-intercommunication 9.31; dqm-intercommunication 9.33;
    aliases-channels-storage 4.15; aliases-channels-storage 4.16"""
    os.kill(_pid(site, "QM1", "qm.lock"), signal.SIGKILL)
    os.kill(_pid(site, "QM1", "chinit.pid"), signal.SIGKILL)
    time.sleep(0.3)
    eng = inprocess.start("QM1", site.root)
    try:
        keys = [syncrecord.parse_prepare_key(key) for key in eng.indoubt()]
        assert [(k.channel, k.prev_seq, k.seq) for k in keys] == [("C", 40, 60)]
    finally:
        inprocess.stop("QM1", site.root)
    in_flight.released.set()
    _start(site, "QM1")
    all_arrive_once_in_order(site)


def test_sending_chinit_killed_with_batches_in_flight(site, in_flight):
    """Given the same pipelined transfer, when the sending channel initiator alone is
    killed with SIGKILL with two batches in flight, then again later in the transfer,
    then every message arrives exactly once and in order.
    spec: dqm-intercommunication 9.31; aliases-channels-storage 4.16"""
    os.kill(_pid(site, "QM1", "chinit.pid"), signal.SIGKILL)
    in_flight.released.set()
    seen = _wait_progress(site, _progress(site), 60)
    os.kill(_pid(site, "QM1", "chinit.pid"), signal.SIGKILL)
    _wait_progress(site, seen, 60)
    all_arrive_once_in_order(site)


def test_receiving_qmgr_killed_with_batches_in_flight(site, in_flight):
    """Given the same pipelined transfer, when the receiving queue manager is killed with
    SIGKILL with two batches in flight (the third committed there, its confirmation not yet
    at the sender; the fourth's messages arriving) and restarted, then every message
    arrives exactly once and in order.
    spec: dqm-intercommunication 9.31; aliases-channels-storage 4.16"""
    os.kill(_pid(site, "QM2", "qm.lock"), signal.SIGKILL)
    in_flight.released.set()
    time.sleep(0.3)
    _start(site, "QM2")
    all_arrive_once_in_order(site)


# ------------------------------------------------------------------- in doubt


async def test_confirmation_lost_with_the_next_batch_sent_resolves_at_restart(two_qmgrs):
    """Given PipeLineLength=2 and the link dropped after the receiver committed a batch but
    before its confirmation reached the sender (which was sending the next batch), when the
    channel retries, then the sender resynchronises its one in-doubt batch, commits it, and
    every message arrives once, in order.
    spec: dqm-intercommunication 9.31; dqm-intercommunication 9.33"""
    qm1, qm2 = two_qmgrs
    proxy, c1 = await _run_with_proxy(qm1, qm2, once("r2s", SegmentType.STATUS_DATA,
                                                     "drop-and-cut"),
                                      channels_stanza=PIPELINED)
    assert proxy.cuts == 1 and proxy.connections >= 2
    assert qm2.drain("TARGET") == [b"m%03d" % i for i in range(30)]


async def test_confirm_request_lost_with_the_next_batch_sent_backs_out(two_qmgrs):
    """Given PipeLineLength=2 and the link dropped with a batch's confirm request in flight,
    when the channel retries, then the sender backs out its in-doubt batch (the receiver
    never committed it) and re-sends: every message once, in order.
    spec: dqm-intercommunication 9.31"""
    qm1, qm2 = two_qmgrs
    proxy, _ = await _run_with_proxy(qm1, qm2, nth_message(10), channels_stanza=PIPELINED)
    assert proxy.cuts == 1
    assert qm2.drain("TARGET") == [b"m%03d" % i for i in range(30)]


async def test_link_cut_in_the_next_batch_backs_it_out(two_qmgrs):
    """Given PipeLineLength=2 and the link dropped in the middle of the second batch (the
    first one's confirmation perhaps not yet back), then the retry delivers every message
    once, in order."""
    qm1, qm2 = two_qmgrs
    proxy, _ = await _run_with_proxy(qm1, qm2, nth_message(15), channels_stanza=PIPELINED)
    assert proxy.cuts == 1
    assert qm2.drain("TARGET") == [b"m%03d" % i for i in range(30)]


async def test_a_stopped_pipelined_sender_has_one_batch_to_resolve(two_qmgrs):
    """Given PipeLineLength=2, BATCHSZ 3 and nine messages, the first confirmation lost
    after the second batch was sent, and no retries defined (the channel STOPPED), then one
    batch only is in doubt (the second was never prepared), DISPLAY CHSTATUS SAVED shows
    INDOUBT(YES) with the sender's CURLUWID the receiver's LSTLUWID, and RESOLVE CHANNEL
    ACTION(COMMIT) removes that batch alone: the six messages after it wait on the transmission queue, in
    order.  spec: dqm-intercommunication 9.32; dqm-intercommunication 9.33;
    operations-dlq-clusters 7.16"""
    qm1, qm2 = two_qmgrs
    # the confirmation is lost once the second batch has gone, all but its last message
    async with running_pair(qm1, qm2, [b"m%d" % i for i in range(9)],
                            policy=once("r2s", SegmentType.STATUS_DATA, "hold-drop-and-cut"),
                            release=lambda p: p.passed("s2r", SegmentType.MESSAGE_DATA) >= 5,
                            BATCHSZ=3, SHORTRTY=0, LONGRTY=0, HBINT=0) as pair:
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED)
        await wait_until(lambda: qm2.committed("TARGET") == 3)
    sent = [ev.seqnum for d, ev in _flows(pair.proxy.recorded)
            if d == "s2r" and isinstance(ev, MessageData)]
    # the second batch went, but for its last message (its confirm request): that waits
    # for the first batch's confirmation
    assert sent == [1, 2, 3, 4, 5]
    assert len(qm1.engine.indoubt()) == 1
    sender = _chstatus(MQSCProcessor(qm1.engine).execute_text(
        f"DISPLAY CHSTATUS({CHANNEL}) SAVED ALL").lines)
    receiver = _chstatus(MQSCProcessor(qm2.engine).execute_text(
        f"DISPLAY CHSTATUS({CHANNEL}) SAVED ALL").lines)
    assert sender["INDOUBT"] == "YES" and sender["CURSEQNO"] == "3"
    assert sender["CURLUWID"] == receiver["LSTLUWID"]
    result = MQSCProcessor(qm1.engine).execute_text(f"RESOLVE CHANNEL({CHANNEL}) ACTION(COMMIT)")
    assert result.ok, result.lines
    assert not qm1.engine.indoubt()
    assert [m[-2:] for m in qm1.drain("QM2")] == [b"m%d" % i for i in range(3, 9)]
    assert qm2.drain("TARGET") == [b"m0", b"m1", b"m2"]


def _chstatus(lines: list[str]) -> dict[str, str]:
    """The KEY(value) pairs of a DISPLAY CHSTATUS answer about one channel instance."""
    return {k: v.strip("' ") for k, v in re.findall(r"([A-Z]+)\(([^)]*)\)", " ".join(lines))}


async def test_a_refused_batch_is_backed_out_whatever_the_sender_was_doing(two_qmgrs):
    """Given PipeLineLength=2, BATCHSZ 50 and 300 messages of which the second cannot be put
    at QM2 (the DLQ put-inhibited), no proxy, when the channel runs, then wherever the
    sender was when the receiver refused the first batch and closed the connection (sending
    the next batch, or waiting for the confirmation), every message is back on QM1's
    transmission queue in order and nothing is in doubt.
    spec: operations-dlq-clusters 7.14"""
    qm1, qm2 = two_qmgrs
    names = [b"x" * 2000 + b"m%03d" % i for i in range(300)]
    await _refused(qm1, qm2, names, 1, 50)
    assert not qm1.engine.indoubt()
    assert qm2.depth("TARGET") == 0
    assert _on_xmitq(qm1) == names


# ------------------------------------------------------------------- waits and stops


async def test_batchint_does_not_hold_the_batch_in_flight(two_qmgrs):
    """Given PipeLineLength=2, BATCHSZ 5, BATCHINT 10 s and 12 messages, when the third
    batch (two messages) waits for more, then the batch before it is already confirmed and
    committed (not in doubt for the length of BATCHINT); three more messages fill the third
    batch, and all 15 arrive once, in order.  spec: dqm-intercommunication 9.30"""
    qm1, qm2 = two_qmgrs
    async with running_pair(qm1, qm2, [b"m%02d" % i for i in range(12)], BATCHSZ=5,
                            BATCHINT=10000) as pair:
        st1 = pair.c1.status_of(CHANNEL)
        # (the third batch's wait is 10 s; this state only exists within it)
        await wait_until(lambda: not st1.indoubt and st1.last_seqno == 10, 8)
        assert qm2.committed("TARGET") == 10 and not qm1.engine.indoubt()
        for i in range(12, 15):
            qm1.put("TARGET", b"m%02d" % i, qmgr="QM2")
        await wait_until(lambda: qm2.committed("TARGET") == 15, 20)
    assert qm2.drain("TARGET") == [b"m%02d" % i for i in range(15)]


async def test_stop_channel_with_a_batch_in_flight_ends_it_first(two_qmgrs):
    """Given PipeLineLength=2, BATCHSZ 10, 200 messages and every confirmation late (a batch
    is nearly always in flight), when STOP CHANNEL is issued mid-transfer, then the channel
    stops with nothing in doubt: the messages that left QM1's transmission queue are on
    QM2's TARGET, the others wait on the transmission queue, each once and in order.
    spec: dqm-intercommunication 9.39"""
    qm1, qm2 = two_qmgrs
    names = [b"m%03d" % i for i in range(200)]
    async with running_pair(qm1, qm2, names, policy=_delay_statuses(1000),
                            BATCHSZ=10) as pair:
        await wait_until(lambda: qm2.committed("TARGET") >= 10, 20)
        pair.c1.stop_channel(CHANNEL)
        st1 = pair.c1.status_of(CHANNEL)
        await wait_until(lambda: st1.state is ChannelState.STOPPED, 20)
    assert not qm1.engine.indoubt()
    arrived = qm2.drain("TARGET")
    waiting = _on_xmitq(qm1)
    assert 10 <= len(arrived) < 200
    assert arrived + waiting == names


def test_a_pipelined_channel_going_idle_is_not_left_in_doubt_by_a_crash(site):
    """Given a pipelined SDR-RCVR channel between two daemons that has just moved 25
    messages in batches of 10 (its transmission queue drained), when the sending queue
    manager is killed with SIGKILL, then at restart nothing is in doubt: the batch in flight
    when the queue drained was committed with its log force before the channel waited."""
    assert idle_then_killed(site, 25, pipeline=2) == []


async def test_a_pipelined_server_answering_a_requester(two_qmgrs):
    """Given QM1 with PipeLineLength=2 and a SVR (no CONNAME) with 95 messages in batches of
    10, when QM2's requester starts it, then the server sends pipelined on the requester's
    connection and every message arrives once, in order, nothing left in doubt.
    spec: dqm-intercommunication 9.27"""
    qm1, qm2 = two_qmgrs
    async with trio.open_nursery() as nursery:
        c1 = qm1.make_chinit(PIPELINED)
        await nursery.start(c1.run, [("127.0.0.1", 0)])
        _svr_and_rqstr(qm1, qm2, c1.ports[0])
        qm1.engine.alter("CHANNEL", "QM1.SVR", {"BATCHSZ": 10})
        qm2.engine.alter("CHANNEL", "QM1.SVR", {"BATCHSZ": 10})
        for i in range(95):
            qm1.put("TARGET", b"r%02d" % i, qmgr="QM2")
        c2 = qm2.make_chinit()
        await nursery.start(c2.run)
        assert c2.start_channel("QM1.SVR") is None
        await wait_until(lambda: qm2.committed("TARGET") == 95 and qm1.depth("QM2") == 0)
        st1 = c1.status_of("QM1.SVR")
        await wait_until(lambda: not st1.indoubt and st1.last_seqno == 95)
        assert st1.batches >= 10 and not qm1.engine.indoubt()
        nursery.cancel_scope.cancel()
    assert qm2.drain("TARGET") == [b"r%02d" % i for i in range(95)]
