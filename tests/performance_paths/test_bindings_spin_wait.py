"""A wait on a bindings socket spins (reads without blocking) for a budget before it blocks,
while the recent waits of its kind fit in the budget (``mqpy.spinwait``): the strategy with a
fake clock and fake sockets."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from mqpy import spinwait
from mqpy.spinwait import OUTLIER_FACTOR, SpinWait, spin_budget_us

_US = 1000


class _Clock:
    """Nanoseconds that move only when told (or by ``step`` at each reading)."""

    def __init__(self, step: int = 0) -> None:
        self.now = 0
        self.step = step

    def __call__(self) -> int:
        self.now += self.step
        return self.now


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


def _waited(wait: SpinWait, ns: int, times: int = 1) -> None:
    for _ in range(times):
        wait.observe(ns)


def test_given_no_waits_yet_then_the_whole_budget_is_spun():
    wait = SpinWait(50, clock=_Clock())
    assert wait.budget_ns() == 50 * _US


def test_given_short_waits_then_the_budget_stays_whole():
    wait = SpinWait(50, clock=_Clock())
    _waited(wait, 10 * _US, 100)
    assert wait.budget_ns() == 50 * _US


def test_given_waits_longer_than_the_budget_then_it_stops_spinning_within_a_few():
    """A spin that did not pay off (the reply came after the budget) backs off: after a few
    such waits the next do not spin at all."""
    wait = SpinWait(50, clock=_Clock())
    _waited(wait, 10 * _US, 100)
    spins = 0
    for _ in range(10):
        spins += wait.budget_ns() > 0
        wait.observe(1_000_000 * _US)  # (a pause of a second: counted as OUTLIER_FACTOR budgets)
    assert 1 <= spins <= 4
    assert wait.budget_ns() == 0


def test_given_it_stopped_spinning_when_the_waits_are_short_again_then_it_spins_again():
    """One long pause is forgotten after a few short waits (those blocked for are timed)."""
    wait = SpinWait(50, clock=_Clock())
    _waited(wait, 1_000_000 * _US, 50)
    assert wait.budget_ns() == 0
    _waited(wait, 20 * _US, 20)
    assert wait.budget_ns() == 50 * _US


def test_given_waits_of_one_and_a_half_budgets_then_it_never_spins():
    wait = SpinWait(50, clock=_Clock())
    _waited(wait, 75 * _US, 60)
    assert wait.budget_ns() == 0


def test_given_a_budget_of_zero_then_no_wait_spins_nor_is_counted():
    sock = _Socket(ready=1)
    wait = SpinWait(0, clock=_Clock())
    assert wait.recv(sock, 100) == b"late"
    assert sock.flags == [0]
    assert wait.average_ns == 0


def test_given_the_reply_comes_during_the_spin_then_it_is_read_without_blocking():
    clock = _Clock(step=1 * _US)
    sock = _Socket(ready=3)
    wait = SpinWait(50, clock=clock)
    assert wait.recv(sock, 100) == b"early"
    assert sock.flags == [socket.MSG_DONTWAIT] * 3


def test_given_the_reply_comes_after_the_budget_then_the_read_blocks_and_the_wait_counts():
    clock = _Clock(step=1 * _US)
    sock = _Socket(clock=clock, blocked_ns=400 * _US)
    wait = SpinWait(50, clock=clock)
    assert wait.recv(sock, 100) == b"late"
    assert sock.flags[-1] == 0
    assert 40 <= len(sock.flags) <= 52  # a read tried each microsecond of the budget
    assert wait.average_ns > 0


def test_given_the_token_is_held_elsewhere_then_the_read_blocks_at_once():
    """Only one of the queue manager's threads spins at a time."""
    sock = _Socket(ready=1)
    token = threading.Lock()
    wait = SpinWait(50, clock=_Clock())
    with token:
        assert wait.recv(sock, 100, token) == b"late"
    assert sock.flags == [0]
    assert wait.recv(sock, 100, token) == b"early"
    assert not token.locked()


def test_given_the_read_fails_then_it_counts_as_a_long_wait_and_the_error_goes_up():
    class Broken(_Socket):
        def recv(self, size: int, flags: int = 0) -> bytes:
            raise ConnectionResetError

    wait = SpinWait(50, clock=_Clock())
    with pytest.raises(ConnectionResetError):
        wait.recv(Broken(), 100)
    assert wait.average_ns == (50 * _US * OUTLIER_FACTOR) >> spinwait.AVERAGE_SHIFT


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
        assert SpinWait(50).recv(mine, 100) == b"slow"
        assert time.monotonic() - started >= 0.04
        timer.join()
