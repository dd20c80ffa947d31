"""An idle queue manager in a cluster sleeps: its channel initiator's repository manager waits
for its command queue and its cluster transmission queue (a get or a browse that a message
ends), not a fraction of a second at a time, and yet serves a cluster command as it comes.

Wakes are counted, not timed (``test_idle_wakeups``): each thread's voluntary context
switches, whatever the load of the machine."""

from __future__ import annotations

import os
import time

import pytest
import trio

import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine.cluster import COMMAND_QUEUE
from mqpy_chinit.chinit import ChannelInitiator
from mqpy_chinit.cluster import manager
from mqpy_chinit.cluster.directory import cache_path
from mqpy_chinit.engineadmin import EngineAdmin
from tests.daemon.test_idle_wakeups import _per_minute, _wakes
from tests.support.installation import QM, Installation, cli
from tests.support.waiting import wait_until

SETTLE_S = 3.0
WINDOW_S = 12.0
CLUSTER = "IDLECL"
#: wakes a minute the channel initiator of an idle cluster member may take, its threads
#: together, with room for a loaded machine: one whose repository manager looked at its
#: command queue four times a second and its transmission queue three times took 1500
CHINIT_WAKES_PER_MIN = 300
#: the same for its daemon, which answered those looks: 1000 then
DAEMON_WAKES_PER_MIN = 400
#: how soon a definition made idle is in the repository (the command queue's message served)
PROMPT_S = 3.0


def mqsc(install: Installation, text: str) -> str:
    proc = cli(install, "runmqsc", "runmqsc", QM, stdin=text)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def cluster_member(install: Installation) -> tuple[int, int]:
    """A queue manager started by strmqm (its channel initiator running), made the full
    repository of a cluster of its own, and settled: (daemon pid, channel initiator pid)."""
    if not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/status"):
        pytest.skip("no /proc/PID/task/TID/status here: the wakes cannot be counted")
    install.env = {k: v for k, v in install.env.items() if k != "MQPY_NO_CHINIT"}
    install.create(queues=())
    daemon = install.start()
    chinit = install.chinit_pid()
    assert chinit is not None, "strmqm started no channel initiator"
    mqsc(install, f"ALTER QMGR REPOS({CLUSTER})\n"
                  f"DEFINE CHANNEL(TO.{QM}) CHLTYPE(CLUSRCVR) CONNAME('127.0.0.1(1)') "
                  f"CLUSTER({CLUSTER})\n")
    deadline = time.monotonic() + 30
    while f"CLUSQMGR({QM})" not in mqsc(install, f"DISPLAY CLUSQMGR({QM})\n"):
        assert time.monotonic() < deadline, "the queue manager did not join its cluster"
        time.sleep(0.2)
    time.sleep(SETTLE_S)
    return daemon, chinit


def idle_window(pids: tuple[int, ...]) -> list[tuple[float, dict[str, int]]]:
    """Each process's wakes a minute over WINDOW_S of idleness, and its threads' wakes."""
    before = [_wakes(pid) for pid in pids]
    began = time.monotonic()
    time.sleep(WINDOW_S)
    after = [_wakes(pid) for pid in pids]
    seconds = time.monotonic() - began
    return [_per_minute(b, a, seconds) for b, a in zip(before, after, strict=True)]


def test_an_idle_cluster_member_sleeps_and_serves_a_definition_at_once(install: Installation):
    """Given a queue manager that is the full repository of its own cluster, started by
    strmqm, when it is left idle for 12 s, then its channel initiator wakes fewer than 300
    times a minute and its daemon fewer than 400 (a repository manager that looked at its
    command queue every 250 ms and its transmission queue every 0.3 s took 1500 and 1000);
    and when a clustered queue is then defined, DISPLAY QCLUSTER shows it within 3 s (the
    command queue is served as its message comes)."""
    daemon, chinit = cluster_member(install)
    (daemon_rate, daemon_threads), (chinit_rate, chinit_threads) = idle_window(
        (daemon, chinit))
    assert chinit_rate < CHINIT_WAKES_PER_MIN, (round(chinit_rate), chinit_threads)
    assert daemon_rate < DAEMON_WAKES_PER_MIN, (round(daemon_rate), daemon_threads)
    defined = time.monotonic()
    mqsc(install, f"DEFINE QLOCAL(IDLE.CLUSTERED) CLUSTER({CLUSTER})\n")
    while "QUEUE(IDLE.CLUSTERED)" not in mqsc(install, "DISPLAY QCLUSTER(IDLE.CLUSTERED)\n"):
        assert time.monotonic() - defined < PROMPT_S, "the definition was not served"
        time.sleep(0.05)


async def test_an_operator_command_does_not_wait_for_the_command_queues_wait(tmp_path,
                                                                            monkeypatch):
    """Given a repository manager whose wait for SYSTEM.CLUSTER.COMMAND.QUEUE lasts ten
    minutes, when REFRESH CLUSTER is issued while it waits, then it is carried out within
    5 s (the wait holds no lock: one made under the manager's lock held every operator
    command until it ended); and a message that then comes on the queue is served (taken
    off, as not a repository message) within 5 s."""
    monkeypatch.setattr(manager, "COMMAND_WAIT_MS", 600_000)
    root = str(tmp_path / "QMW")
    inprocess.create("QMW", root)
    eng = inprocess.start("QMW", root)
    try:
        def connect() -> mqpy.QueueManager:
            return mqpy.embedded("QMW", data_path=root, create=False)

        chinit = ChannelInitiator("QMW", connect, EngineAdmin(eng),
                                  cluster_cache=cache_path(eng.qmdir))
        async with trio.open_nursery() as nursery:
            await nursery.start(chinit.run, [])
            await wait_until(lambda: chinit.cluster is not None
                             and chinit.cluster.repo is not None, 20)
            await wait_until(lambda: eng.queue_status(COMMAND_QUEUE)["IPPROCS"] >= 1, 10)
            await trio.sleep(0.5)  # the wait has begun
            with trio.fail_after(5):
                answer = await chinit.cluster.command({"command": "CLUSTER_REFRESH",
                                                       "cluster": CLUSTER})
            # carried out, under the lock: a queue manager in no cluster answers 2189
            assert answer.get("reason") == CMQC.MQRC_CLUSTER_RESOLUTION_ERROR, answer
            qm = connect()
            try:
                qm.put1(COMMAND_QUEUE, b"not a repository message", mqpy.MD())
            finally:
                qm.disconnect()
            await wait_until(lambda: eng.queue_status(COMMAND_QUEUE)["CURDEPTH"] == 0
                             and eng.queue_status(COMMAND_QUEUE)["UNCOM"] == 0, 5)
            nursery.cancel_scope.cancel()
    finally:
        inprocess.stop_all()
