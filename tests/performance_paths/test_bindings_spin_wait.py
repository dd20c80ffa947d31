"""A wait on a bindings socket spins (reads without blocking) for a budget before it blocks,
while the recent spins of its kind paid off and no other task waits for a core (``mqpy.spinwait``): the strategy with a
fake clock and fake sockets."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from mqpy import spinwait
from mqpy.spinwait import (
    HIT,
    PRESSURE_EVERY_NS,
    PROBE_EVERY,
    SPIN_SCORE,
    CpuPressure,
    some_pressure,
    spin_budget_us,
)

_US = 1000


class _Clock:
    """Nanoseconds that move only when told (or by ``step`` at each reading)."""

    def __init__(self, step: int = 0) -> None:
        self.now = 0
        self.step = step

    def __call__(self) -> int:
        self.now += self.step
        return self.now


@pytest.fixture(autouse=True)
def usual_pressure(monkeypatch) -> None:
    """The pressure that stops spinning is the default, whatever MQPY_SPIN_PRESSURE says."""
    monkeypatch.setattr(spinwait, "BUSY_PRESSURE", 10.0)


#: A machine whose other tasks never wait for a core.
_CALM = CpuPressure("/nonexistent/pressure")


def _calm_wait(spin_us: int, clock: _Clock) -> spinwait.SpinWait:
    """A SpinWait on a calm machine."""
    return spinwait.SpinWait(spin_us, clock, _CALM)


def _pressure_file(tmp_path, avg10: str, total_us: int = 5) -> str:
    path = tmp_path / "cpu"
    path.write_text(f"some avg10={avg10} avg60=1.00 avg300=1.00 total={total_us}\n"
                    "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
    return str(path)


class _Socket:
    """A socket whose non-blocking reads find nothing until the ``ready``-th, and whose
    blocking read gives ``b"late"``; it records the flags of each read."""

    def __init__(self, ready: int | None = None, clock: _Clock | None = None,
                 blocked_ns: int = 0) -> None:
        self.ready, self.clock, self.blocked_ns = ready, clock, blocked_ns
        self.flags: list[int] = []

    def recv(self, size: int, flags: int = 0) -> bytes:
        self.flags.append(flags)
        if flags & socket.MSG_DONTWAIT:
            if self.ready is not None and len(self.flags) >= self.ready:
                return b"early"
            raise BlockingIOError
        if self.clock is not None:
            self.clock.now += self.blocked_ns
        return b"late"


def _spun(wait: spinwait.SpinWait, hit: bool, times: int = 1) -> list[int]:
    """The budgets of ``times`` waits, each spin counted a ``hit`` or not."""
    budgets = []
    for _ in range(times):
        budgets.append(wait.next_budget_ns())
        if budgets[-1]:
            wait.observe(hit)
    return budgets


def test_given_no_waits_yet_then_the_whole_budget_is_spun():
    wait = _calm_wait(50, clock=_Clock())
    assert wait.next_budget_ns() == 50 * _US


def test_given_spins_that_pay_off_then_every_wait_spins_its_whole_budget():
    wait = _calm_wait(50, clock=_Clock())
    assert _spun(wait, True, 100) == [50 * _US] * 100


def test_given_spins_that_do_not_pay_off_then_it_stops_within_a_few_and_only_probes():
    """A spin that did not pay off (what it waited for came after the budget) backs off:
    after a few misses, one wait in PROBE_EVERY spins."""
    wait = _calm_wait(50, clock=_Clock())
    _spun(wait, True, 100)
    budgets = _spun(wait, False, 10 + 10 * PROBE_EVERY)
    first_off = budgets.index(0)
    assert 2 <= first_off <= 4
    assert sum(1 for b in budgets[first_off:] if b) == 10


def test_given_it_only_probes_when_the_probes_pay_off_then_every_wait_spins_again():
    wait = _calm_wait(50, clock=_Clock())
    _spun(wait, False, 200)
    assert wait.score < SPIN_SCORE
    budgets = _spun(wait, True, 20 * PROBE_EVERY)
    assert budgets[-PROBE_EVERY:] == [50 * _US] * PROBE_EVERY


def test_given_one_miss_in_ten_then_every_wait_still_spins():
    wait = _calm_wait(50, clock=_Clock())
    budgets = []
    for i in range(300):
        budgets += _spun(wait, i % 10 != 0)
    assert 0 not in budgets


def test_given_one_miss_in_two_then_most_waits_do_not_spin():
    wait = _calm_wait(50, clock=_Clock())
    budgets = []
    for i in range(320):
        budgets += _spun(wait, i % 2 == 0)
    assert budgets[-160:].count(0) > 140


def test_given_a_budget_of_zero_then_no_wait_spins_nor_is_counted():
    sock = _Socket(ready=1)
    wait = _calm_wait(0, clock=_Clock())
    assert wait.recv(sock, 100) == b"late"
    assert sock.flags == [0]
    assert wait.score == HIT


def test_given_the_reply_comes_during_the_spin_then_it_is_read_without_blocking():
    clock = _Clock(step=1 * _US)
    sock = _Socket(ready=3)
    wait = _calm_wait(50, clock=clock)
    assert wait.recv(sock, 100) == b"early"
    assert sock.flags == [socket.MSG_DONTWAIT] * 3


def test_given_the_reply_comes_after_the_budget_then_the_read_blocks_and_counts_a_miss():
    clock = _Clock(step=1 * _US)
    sock = _Socket(clock=clock, blocked_ns=400 * _US)
    wait = _calm_wait(50, clock=clock)
    assert wait.recv(sock, 100) == b"late"
    assert sock.flags[-1] == 0
    assert 20 <= len(sock.flags) <= 52  # a read tried each microsecond or two of the budget
    assert wait.score < HIT


def test_given_a_spin_then_it_yields_the_core_between_tries(monkeypatch):
    clock = _Clock(step=1 * _US)
    sock = _Socket()
    yields: list[int] = []
    monkeypatch.setattr(spinwait.os, "sched_yield", lambda: yields.append(len(sock.flags)))
    assert spinwait.spin_recv(sock, 100, 50 * _US, clock) is None
    assert yields == list(range(1, len(sock.flags)))


def test_given_the_token_is_held_elsewhere_then_the_read_blocks_at_once():
    """Only one of the queue manager's threads spins at a time."""
    sock = _Socket(ready=1)
    token = threading.Lock()
    wait = _calm_wait(50, clock=_Clock())
    with token:
        assert wait.recv(sock, 100, token) == b"late"
    assert sock.flags == [0]
    assert wait.recv(sock, 100, token) == b"early"
    assert not token.locked()


def test_given_the_read_fails_then_the_error_goes_up():
    class Broken(_Socket):
        def recv(self, size: int, flags: int = 0) -> bytes:
            raise ConnectionResetError

    with pytest.raises(ConnectionResetError):
        _calm_wait(50, clock=_Clock()).recv(Broken(), 100)


@pytest.mark.parametrize(("value", "budget"), [
    ("0", 0), ("120", 120), ("", spinwait.DEFAULT_SPIN_US), ("lots", spinwait.DEFAULT_SPIN_US)])
def test_the_budget_is_sized_by_the_environment(value, budget):
    assert spin_budget_us({"MQPY_SPIN_US": value}) == budget


def test_given_a_real_socket_and_a_slow_peer_then_the_reply_is_still_read():
    """A reply that comes long after the budget is read by the blocking read."""
    mine, peer = socket.socketpair()
    with mine, peer:
        timer = threading.Timer(0.05, peer.sendall, (b"slow",))
        timer.start()
        started = time.monotonic()
        assert _calm_wait(50, time.perf_counter_ns).recv(mine, 100) == b"slow"
        assert time.monotonic() - started >= 0.04
        timer.join()


@pytest.mark.parametrize(("text", "figures"), [
    (b"some avg10=33.23 avg60=43.20 avg300=55.23 total=36\nfull avg10=0.00", (33.23, 36)),
    (b"some avg10=0.00", (0.0, 0)), (b"full avg10=9.00 total=5", (0.0, 0)),
    (b"some avg10=x total=y", (0.0, 0))])
def test_the_time_tasks_waited_for_a_core_is_read_from_the_pressure_text(text, figures):
    assert some_pressure(text) == figures


def _busy_pressure(tmp_path) -> CpuPressure:
    """A pressure read twice, other tasks having waited for a core half the time between."""
    pressure = CpuPressure(_pressure_file(tmp_path, "1.00", 1_000_000))
    assert not pressure.busy(1)  # calm at the first reading: nothing to compare with
    _pressure_file(tmp_path, "1.00", 1_000_000 + PRESSURE_EVERY_NS // 1000 // 2)
    assert pressure.busy(PRESSURE_EVERY_NS + 1)
    return pressure


def test_given_tasks_waiting_for_a_core_then_no_wait_spins(tmp_path):
    """On a busy machine a spin that catches its data soon may still take the core its
    peer needs: the wait blocks at once."""
    sock = _Socket(ready=1)
    wait = spinwait.SpinWait(50, lambda: PRESSURE_EVERY_NS + 2, _busy_pressure(tmp_path))
    assert wait.recv(sock, 100) == b"late"
    assert sock.flags == [0]


def test_given_a_calm_machine_then_waits_spin(tmp_path):
    sock = _Socket(ready=1)
    wait = spinwait.SpinWait(50, _Clock(), CpuPressure(_pressure_file(tmp_path, "2.00")))
    assert wait.recv(sock, 100) == b"early"


def test_the_pressure_is_the_share_of_the_time_since_it_was_last_read(tmp_path):
    """Calm at the first reading, whatever the ten-second average says (a program's start
    raises it); then the share of the time since the reading before (the stalled
    microseconds' growth), read again every PRESSURE_EVERY_NS."""
    pressure = CpuPressure(_pressure_file(tmp_path, "80.00", 1_000_000))
    assert not pressure.busy(1)
    _pressure_file(tmp_path, "80.00", 1_000_000 + PRESSURE_EVERY_NS // 1000 // 2)
    assert not pressure.busy(PRESSURE_EVERY_NS // 2)  # not read again yet
    assert pressure.busy(PRESSURE_EVERY_NS + 1)  # half of the time since: busy
    _pressure_file(tmp_path, "80.00", 1_000_000 + PRESSURE_EVERY_NS // 1000 // 2
                   + PRESSURE_EVERY_NS // 1000 // 100)
    assert not pressure.busy(2 * PRESSURE_EVERY_NS + 1)  # 1% of it: calm


def test_given_no_pressure_file_then_the_machine_counts_as_calm_and_is_not_read_again():
    pressure = CpuPressure("/nonexistent/pressure")
    assert not pressure.busy(1)
    assert not pressure.busy(10 * PRESSURE_EVERY_NS)
    assert pressure.fd is None


@pytest.mark.parametrize(("value", "threshold"), [("25", 25.0), ("101", 101.0), ("", 10.0),
                                                  ("busy", 10.0)])
def test_the_pressure_that_stops_spinning_is_set_by_the_environment(value, threshold):
    assert spinwait._env_number("MQPY_SPIN_PRESSURE", 10.0,
                                {"MQPY_SPIN_PRESSURE": value}) == threshold
