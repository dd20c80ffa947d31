"""Channels between the two in-process queue managers of the ``two_qmgrs`` fixture: one
SDR-RCVR channel QM1.TO.QM2 running, perhaps through a FaultProxy (the set-up the pipelining
and in-doubt tests share); the definitions of an SDR-RCVR and an SVR-RQSTR pair; channel
initiators listening or with a channel started; the receiver's messages as MessageData; the
channel states a queue manager remembers across restarts."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable

import attrs
import trio

import mqpy
from mqpy import CMQC, syncrecord
from mqpy.fap.messagedata import XQH_WITH_MD_LENGTH, MessageData
from mqpy.fap.tsh import ControlFlags1, SegmentType
from mqpy.structs.tables import XQH
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.receiver_batch import NO_LUWID
from mqpy_chinit.receiver_mca import ReceiverMCA
from mqpy_chinit.states import ChannelState
from tests.support.proxy import FaultProxy, Policy
from tests.support.waiting import wait_until

CHANNEL = "QM1.TO.QM2"
PIPELINED = {"PipeLineLength": "2"}


@attrs.define
class RunningPair:
    c1: ChannelInitiator  # QM1's, the sender's
    c2: ChannelInitiator  # QM2's, listening
    proxy: FaultProxy | None  # between them, when a policy was given


@contextlib.asynccontextmanager
async def running_pair(qm1, qm2, messages: Iterable[bytes | tuple[str, bytes, bool]], *,
                       policy: Policy | None = None,
                       release: Callable[[FaultProxy], bool] | None = None,
                       hold_max: float = 30.0, stanza: dict[str, str] | None = PIPELINED,
                       **sdr: object) -> AsyncIterator[RunningPair]:
    """QM2's channel initiator listening, a FaultProxy in front of it when ``policy`` is
    given (``release`` and ``hold_max``: its "hold"), the pair defined (``sdr``: the
    sender's attributes), ``messages`` put on QM1 for QM2 (a body for TARGET, or (queue,
    body, persistent)), then QM1's channel initiator (qm.ini Channels: ``stanza``, pipelined unless
    said) started with the channel: yielded running; everything stops on leaving."""
    async with trio.open_nursery() as nursery:
        c2 = qm2.make_chinit()
        await nursery.start(c2.run, [("127.0.0.1", 0)])
        port = c2.ports[0]
        proxy = None
        if policy is not None:
            proxy = FaultProxy(port, policy, release=release, hold_max=hold_max)
            await nursery.start(proxy.run)
            port = proxy.port
        define_pair(qm1, qm2, port, **sdr)
        for message in messages:
            queue, body, persistent = message if isinstance(message, tuple) \
                else ("TARGET", message, True)
            qm1.put(queue, body, qmgr="QM2", persistent=persistent)
        c1 = qm1.make_chinit(stanza)
        await nursery.start(c1.run)
        assert c1.start_channel(CHANNEL) is None
        yield RunningPair(c1, c2, proxy)
        nursery.cancel_scope.cancel()


def hold_statuses(count: int) -> Policy:
    """Proxy policy: the first ``count`` STATUS flows from the receiver are held (see
    FaultProxy's "hold": until its ``release`` says so)."""
    seen: list[int] = []

    def policy(d: str, t: int, i: int) -> str:
        if d == "r2s" and t == SegmentType.STATUS_DATA and len(seen) < count:
            seen.append(i)
            return "hold"
        return "pass"
    return policy


def messages_passed_beyond(batchsz: int) -> Callable[[FaultProxy], bool]:
    """A hold's release: once the sender has sent a message beyond the batches whose
    STATUS is held (the first of the next batch), i.e. once the channel has shown whether
    it sends ahead of a confirmation."""
    def release(proxy: FaultProxy) -> bool:
        held_batches = proxy.passed("r2s", SegmentType.STATUS_DATA) + proxy.holding
        return proxy.passed("s2r", SegmentType.MESSAGE_DATA) > held_batches * batchsz
    return release


def define_pair(qm1, qm2, port, channel="QM1.TO.QM2", **sdr):
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    qm1.define("CHANNEL", channel, CHLTYPE="SDR", CONNAME=f"127.0.0.1({port})", XMITQ="QM2",
               **sdr)
    qm2.define("CHANNEL", channel, CHLTYPE="RCVR")
    qm2.define("QLOCAL", "TARGET", MAXDEPTH=100000)


async def listening(nursery, qm):
    """``qm``'s channel initiator, listening on a free port (``.ports[0]``)."""
    chinit = qm.make_chinit()
    await nursery.start(chinit.run, [("127.0.0.1", 0)])
    return chinit


async def started(nursery, qm, channel):
    """``qm``'s channel initiator with ``channel`` started (the start must be accepted)."""
    chinit = qm.make_chinit()
    await nursery.start(chinit.run)
    assert chinit.start_channel(channel) is None
    return chinit


async def _run_with_proxy(qm1, qm2, policy, count=30, channels_stanza=None):
    async with running_pair(qm1, qm2, [b"m%03d" % i for i in range(count)], policy=policy,
                            stanza=channels_stanza, SHORTTMR=0, BATCHSZ=10) as pair:
        await wait_until(lambda: qm1.depth("QM2") == 0 and qm2.depth("TARGET") == count, 20)
        st = pair.c1.status_of("QM1.TO.QM2")
        await wait_until(lambda: st.state is ChannelState.RUNNING and not st.indoubt)
    return pair.proxy, pair.c1


def _svr_and_rqstr(qm1, qm2, port: int) -> None:
    """QM1's SVR QM1.SVR (no CONNAME) on xmitq QM2; QM2's RQSTR calling QM1's listener."""
    qm1.define("QLOCAL", "QM2", USAGE="XMITQ")
    qm1.define("CHANNEL", "QM1.SVR", CHLTYPE="SVR", XMITQ="QM2")
    qm2.define("CHANNEL", "QM1.SVR", CHLTYPE="RQSTR", CONNAME=f"127.0.0.1({port})")
    qm2.define("QLOCAL", "TARGET")


def _message(seq: int, *, confirm: bool = False, persistent: bool = False) -> MessageData:
    md = mqpy.MD(Persistence=int(persistent), MsgId=b"AMQ QM1 " + seq.to_bytes(16, "big"))
    xqh = mqpy.XQH(RemoteQName=b"TARGET", RemoteQMgrName=b"QM2", MsgDesc=md)
    return MessageData(seqnum=seq, xqh=xqh.pack(CMQC.MQENC_INTEGER_REVERSED),
                       data=b"%d" % seq, luwid=seq.to_bytes(8, "big") if confirm else bytes(8),
                       flags=ControlFlags1.CONFIRM_REQUEST if confirm else ControlFlags1.NONE)


def _arrivals(qm1) -> list[MessageData]:
    """Every message on QM1's transmission queue QM2, as the receiver's MessageData."""
    conn = qm1.connect()
    out = []
    try:
        xq = mqpy.Queue(conn, "QM2", CMQC.MQOO_INPUT_AS_Q_DEF)
        while True:
            try:
                data = xq.get()
            except mqpy.MQMIError as e:
                assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                return out
            out.append(MessageData.from_xqh(len(out) + 1, XQH().unpack(data),
                                            data[XQH_WITH_MD_LENGTH:]))
    finally:
        conn.disconnect()


async def put_held(rcv: ReceiverMCA, conn, pending: list[MessageData]) -> None:
    """``pending`` put as a receiving MCA puts the arrivals of a batch it holds (not ended)."""
    rcv.batch = rcv._new_batch(0, NO_LUWID)
    rcv.batch.pending.extend(pending)
    await rcv._put_held(None, conn)


def remembered(qm) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """The channel states ``qm``'s sync queue remembers (channel -> STOPPED | RETRYING), and
    the xmitqs error stops disabled (channel -> (xmitq, the TRIGGER it had)): what a
    channel initiator that starts now restores. A state is shown before it is remembered
    (the record is written in a worker thread): a test that ends a channel initiator to see
    what survives waits for this first."""
    conn = qm.connect()
    try:
        return syncrecord.read_states(conn), syncrecord.read_disabled_xmitqs(conn)
    finally:
        conn.disconnect()
