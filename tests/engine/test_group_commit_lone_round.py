"""Group commit: a round that nobody queued behind (one committer) wakes nobody, and a
forcer that queues just after it ended waits for a round of its own."""

from __future__ import annotations

import threading

from mqpy.engine.groupcommit import _Forcer
from mqpy.engine.log import LogConfig
from mqpy.engine.recoverylog import RecoveryLog


class _FlushLock:
    """The log's flush lock; once armed with ``releases``, the release that many later
    queues ``late`` behind the round that just ended (a committer arriving the moment the
    writer lets the lock go)."""

    def __init__(self, log: RecoveryLog, late: _Forcer) -> None:
        self.lock = threading.Lock()
        self.log, self.late = log, late
        self.releases = 0

    def __enter__(self) -> None:
        self.lock.acquire()

    def __exit__(self, *exc: object) -> None:
        if self.releases:
            self.releases -= 1
            if not self.releases:
                self.log._queue.append(self.late)
        self.lock.release()


def test_a_forcer_queued_as_a_lone_round_ends_is_not_woken_as_durable(tmp_path):
    """Given one committer forcing its record with nobody queued, when another forcer
    queues for a later record the moment the round's flush lock is let go, then the round
    wakes nobody: the late forcer is still waiting, and its record is not durable."""
    log = RecoveryLog(str(tmp_path), LogConfig(LogFilePages=256))
    list(log.scan(0))
    lsn = log.append(1, b"one")
    late = _Forcer(log.end_lsn + 1)  # (a record appended after this round took the buffer)
    lock = log._flush = _FlushLock(log, late)
    log.force(log.append(1, b"warm"))  # (a round before: no hold, nothing queued)
    lock.releases = 2  # (force's, as it takes the writing; then the round's, as it ends)
    log.force(log.append(1, b"two"))
    assert late in log._queue
    assert log.flushed_lsn > lsn
    assert not late.wake.acquire(False), "woken by a round that did not cover it"
    assert late.error is None and not late.lead
    log._queue.clear()
    log.close()
