"""One SDR-RCVR channel QM1.TO.QM2 between the two in-process queue managers of the
``two_qmgrs`` fixture, running, perhaps through a FaultProxy: the set-up the pipelining and
in-doubt tests share."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable

import attrs
import trio

from mqpy.fap.tsh import SegmentType
from mqpy_chinit.chinit import ChannelInitiator
from tests.support.proxy import FaultProxy, Policy

from .test_sdr_rcvr import define_pair

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
