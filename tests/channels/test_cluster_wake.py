"""The repository manager and the cluster pub/sub daemon end at once when their channel
initiator ends, however long their gets wait (in worker threads, which a cancel cannot
interrupt): each wakes its waiting get with a wake message (``mqpy_chinit.wakes``), which is
nothing to it: never carried out, dead-lettered or published, never left on the queue."""

from __future__ import annotations

import attrs
import pytest
import trio

import mqpy
from mqpy import inprocess, wake
from mqpy.engine.cluster import COMMAND_QUEUE
from mqpy.pubsub.interqmgr import CONTROL_QUEUE, PUBS_QUEUE
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.cluster import manager, pubsubdaemon
from mqpy_chinit.cluster.directory import cache_path
from mqpy_chinit.cluster.pubsubdaemon import PubSubDaemon
from mqpy_chinit.engineadmin import EngineAdmin
from tests.support.waiting import wait_until

#: the gets made to wait far longer than any test: a task that waited for one to pass would
#: never end within WITHIN
LONG_WAIT_MS = 600_000
WITHIN = 30.0
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


@pytest.fixture
def qm1(tmp_path):
    root = str(tmp_path / "QM1")
    inprocess.create("QM1", root, dead_letter_queue=DLQ)
    eng = inprocess.start("QM1", root)
    eng.root = root
    yield eng
    inprocess.stop_all()


def _connect(eng) -> mqpy.QueueManager:
    return mqpy.embedded("QM1", data_path=eng.root, create=False)


async def _running_manager(nursery: trio.Nursery, eng, log: list
                           ) -> tuple[ChannelInitiator, trio.CancelScope, trio.Event]:
    """A channel initiator of ``eng`` with its repository manager serving the cluster command
    queue, in a cancel scope of its own; the event is set once it has ended."""
    chinit = ChannelInitiator("QM1", lambda: _connect(eng), EngineAdmin(eng),
                              log=lambda msgid, text: log.append((msgid, text)),
                              cluster_cache=cache_path(eng.qmdir))
    scope, ended = trio.CancelScope(), trio.Event()

    async def run(task_status=trio.TASK_STATUS_IGNORED) -> None:
        try:
            with scope:
                await chinit.run([], task_status=task_status)
        finally:
            ended.set()

    await nursery.start(run)
    await wait_until(lambda: chinit.cluster is not None and chinit.cluster.repo is not None,
                     20)
    await wait_until(lambda: eng.queue_status(COMMAND_QUEUE)["IPPROCS"] >= 1, 10)
    return chinit, scope, ended


async def test_an_ending_repository_manager_wakes_its_waiting_get(qm1, monkeypatch):
    """Given a repository manager whose gets of SYSTEM.CLUSTER.COMMAND.QUEUE wait ten
    minutes, when its channel initiator is cancelled while one waits, then it ends at once
    (within 30 s, not ten minutes), its handles on the queue closed and nothing left on it."""
    monkeypatch.setattr(manager, "COMMAND_WAIT_MS", LONG_WAIT_MS)
    log: list = []
    async with trio.open_nursery() as nursery:
        _, scope, ended = await _running_manager(nursery, qm1, log)
        await trio.sleep(0.2)  # the get is waiting by now (or soon: either way it is woken)
        scope.cancel()
        with trio.fail_after(WITHIN):
            await ended.wait()
    status = qm1.queue_status(COMMAND_QUEUE)
    assert status["IPPROCS"] == 0 and status["CURDEPTH"] == 0


async def test_a_wake_message_is_nothing_to_the_repository_manager(qm1):
    """Given a running repository manager, when a wake message comes on its command queue
    (left by a manager that ended), then the manager takes it off the queue and does
    nothing with it: it is not dead-lettered, no error is logged, and the manager goes on
    serving."""
    log: list = []
    async with trio.open_nursery() as nursery:
        chinit, scope, _ = await _running_manager(nursery, qm1, log)
        qm = _connect(qm1)
        try:
            assert wake.put_wakes(qm, COMMAND_QUEUE) == 1
        finally:
            qm.disconnect()
        await wait_until(lambda: qm1.queue_status(COMMAND_QUEUE)["CURDEPTH"] == 0
                         and qm1.queue_status(COMMAND_QUEUE)["UNCOM"] == 0, 10)
        await trio.sleep(0.3)  # (a dead-letter would be committed with the get)
        scope.cancel()
    assert qm1.queue_status(DLQ)["CURDEPTH"] == 0
    assert not [msgid for msgid, _ in log if msgid in ("AMQ9430E", "AMQ9565E", "AMQ9409E")]


# --- the cluster pub/sub daemon -------------------------------------------------------------


@attrs.define
class _Repository:
    """A repository in cluster INV with no cluster topics: the daemon's gets run."""

    clusters: list = attrs.Factory(lambda: ["INV"])

    def cluster_topics(self) -> list:
        return []


@attrs.define
class _Chinit:
    admin: EngineAdmin

    def connect_mca(self, appl: str) -> mqpy.QueueManager:
        return self.admin.connect_as(appl)


@attrs.define
class _Manager:
    qmgr: str
    chinit: _Chinit
    repo: object = attrs.Factory(_Repository)
    lock: trio.Lock = attrs.Factory(trio.Lock)


async def test_an_ending_pubsub_daemon_wakes_its_waiting_gets(qm1, monkeypatch):
    """Given the cluster pub/sub daemon of a cluster member, its gets of SYSTEM.INTER.QMGR.
    CONTROL and SYSTEM.INTER.QMGR.PUBS waiting ten minutes, when it is cancelled while they
    wait, then it ends at once (within 30 s, not ten minutes), its handles closed and no wake
    message left on either queue."""
    monkeypatch.setattr(pubsubdaemon, "ARRIVAL_WAIT_MS", LONG_WAIT_MS)
    daemon = PubSubDaemon(_Manager("QM1", _Chinit(EngineAdmin(qm1))))
    ended = trio.Event()
    async with trio.open_nursery() as nursery:

        async def run() -> None:
            try:
                await daemon.run()
            finally:
                ended.set()

        nursery.start_soon(run)
        await wait_until(lambda: all(qm1.queue_status(q)["IPPROCS"] >= 1
                                     for q in (CONTROL_QUEUE, PUBS_QUEUE)), 10)
        await trio.sleep(0.2)  # the gets are waiting by now (or soon: they are woken)
        nursery.cancel_scope.cancel()
        with trio.CancelScope(shield=True), trio.fail_after(WITHIN):
            await ended.wait()
    for queue in (CONTROL_QUEUE, PUBS_QUEUE):
        status = qm1.queue_status(queue)
        assert status["IPPROCS"] == 0 and status["CURDEPTH"] == 0, queue
