"""Group commit: how long a round waits for the forcers of the round before it."""

from __future__ import annotations

import pytest

from mqpy.engine import groupcommit
from mqpy.engine.log import LogConfig
from mqpy.engine.recoverylog import RecoveryLog


class _Clock:
    """perf_counter for the log module: a time the test sets."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class _Wake:
    """A holder's lock that records how long it is asked to wait, and times out at once."""

    def __init__(self) -> None:
        self.timeouts: list[float] = []

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        self.timeouts.append(timeout)
        return False


def _log(tmp_path, monkeypatch, *, sync_us: float, back_us: float) -> RecoveryLog:
    """A log whose rounds took ``sync_us`` each and whose forcers of the last held rounds
    took ``back_us`` to come back, the last round having ended now (a fixed clock)."""
    monkeypatch.setattr(groupcommit, "perf_counter", _Clock(100.0))
    log = RecoveryLog(str(tmp_path), LogConfig(LogFilePages=256))
    list(log.scan(0))
    log.stats.forces = 10
    log.stats.sync_seconds = 10 * sync_us * 1e-6
    log._back = back_us * 1e-6
    log._round_end = 100.0
    return log


@pytest.mark.parametrize(("sync_us", "back_us", "limit_us"), [
    (100, 300, 450),  # they take longer to come back than a sync: 1.5 times that
    (200, 50, 200),  # a sync takes longer: one sync's time
    (200, 5000, 1000),  # at most 1 ms, however long they took
])
def test_a_held_round_waits_as_long_as_the_forcers_took_to_come_back(
        tmp_path, monkeypatch, sync_us, back_us, limit_us):
    """Given rounds syncing in ``sync_us`` and forcers that came back ``back_us`` after the
    rounds they were in, when a forcer holds the next round for them, then it waits up to
    ``limit_us`` from the last round's end: the longer of a sync's time and 1.5 times the
    time they took to come back, and at most 1 ms."""
    log = _log(tmp_path, monkeypatch, sync_us=sync_us, back_us=back_us)
    hold = groupcommit._Forcer(0)
    hold.wake = _Wake()
    log._flushing, log._holder = True, hold
    assert log._hold(hold)  # (the wait timed out: the holder writes the round)
    assert hold.wake.timeouts == [pytest.approx(limit_us * 1e-6)]
    log.close()


def test_the_last_forcer_back_tells_how_long_they_take_to_come_back(tmp_path, monkeypatch):
    """Given a round held for one more forcer of the round before, when that forcer comes
    back 400 us after that round ended, then the time the forcers take to come back moves
    an eighth of the way from 0 to 400 us, and the round makes both records durable."""
    log = _log(tmp_path, monkeypatch, sync_us=100, back_us=0)
    hold = groupcommit._Forcer(log.append(1, b"held"))
    log._flushing, log._holder, log._expect = True, hold, 1
    groupcommit.perf_counter.now = 100.0004
    log.force(log.append(1, b"last"))
    assert log._back == pytest.approx(50e-6)
    assert log.flushed_lsn == log.end_lsn and hold.wake.acquire(False)  # (woken: durable)
    log.close()
