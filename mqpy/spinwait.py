"""Spin-then-block waits on a bindings socket: the idle strategy of both ends of a call.

A reply (or the next request) that comes within microseconds is cheaper to catch by reading
the socket without blocking, again and again, than by sleeping in ``recv``: a sleeping thread
costs the kernel's wake-up on each end of every round trip. So a wait first tries to read
without blocking (yielding the core between tries to a runnable peer on it) for up to a
budget, then blocks as before.

:class:`SpinWait` owns whether to spin and how long: the budget is SPIN_US while the recent
waits of that kind (an exponential average of how long they took, each counted up to
OUTLIER_FACTOR times the budget) fit in it, else nothing: a spin that did not pay off raises
the average, so an application that works between its calls, a slow reply (a log force) or
a loaded machine soon stops spinning, and starts again once its waits are short again
(those it blocked for are timed too). The environment variable ``MQPY_SPIN_US`` sizes the
budget; 0 turns spinning off.

:data:`SPINNER` is the token a queue manager's thread holds while it spins: the daemon is one
process, and threads spinning at once would fight for its interpreter lock.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable

__all__ = ["SPINNER", "SPIN_US", "SpinWait", "spin_budget_us", "spin_recv"]


def spin_budget_us(environ: dict[str, str] | os._Environ[str] = os.environ) -> int:
    """The budget in microseconds: ``MQPY_SPIN_US`` when it is a whole number (0: never
    spin), else DEFAULT_SPIN_US."""
    text = environ.get("MQPY_SPIN_US", "").strip()
    return int(text) if text.isdigit() else DEFAULT_SPIN_US


#: The longest a wait spins before it blocks, when none is set: about the time a Python
#: peer takes to serve a call, well under a log force's.
DEFAULT_SPIN_US = 50
#: The budget of the waits made from now on (``MQPY_SPIN_US``).
SPIN_US = spin_budget_us()
#: A wait counts in the average up to this many budgets: one long pause (an idle
#: application, a disk) does not stop spinning for long once the waits are short again.
OUTLIER_FACTOR = 4
#: The weight of one wait in the average (a power of two: a shift).
AVERAGE_SHIFT = 3

#: Held by the queue manager's thread that spins; the others block at once.
SPINNER = threading.Lock()

_NS = 1000
_DONTWAIT = socket.MSG_DONTWAIT


class SpinWait:
    """How long the next wait of one kind spins before it blocks (module docstring);
    ``clock`` gives nanoseconds."""

    __slots__ = ("average_ns", "clock", "limit_ns")

    def __init__(self, spin_us: int | None = None,
                 clock: Callable[[], int] = time.perf_counter_ns) -> None:
        self.limit_ns = (SPIN_US if spin_us is None else spin_us) * _NS
        self.average_ns = 0  # optimistic: the first waits spin
        self.clock = clock

    def budget_ns(self) -> int:
        """Nanoseconds to spin before blocking: the whole budget while the recent waits
        fit in it, else 0."""
        limit = self.limit_ns
        return limit if self.average_ns <= limit else 0

    def observe(self, waited_ns: int) -> None:
        """Count one wait that took ``waited_ns`` (spun or blocked)."""
        if self.limit_ns:
            waited_ns = min(waited_ns, self.limit_ns * OUTLIER_FACTOR)
            self.average_ns += (waited_ns - self.average_ns) >> AVERAGE_SHIFT

    def recv(self, sock: socket.socket, size: int,
             token: threading.Lock | None = None) -> bytes:
        """``sock.recv(size)``, first tried without blocking for the budget (yielding the
        core between tries); ``token``, when given, must be free for those tries (else
        none). The wait is counted, also when the receive fails (as a long one)."""
        clock = self.clock
        start = clock()
        budget = self.budget_ns()
        try:
            if budget and (token is None or token.acquire(blocking=False)):
                try:
                    data = spin_recv(sock, size, start + budget, clock)
                finally:
                    if token is not None:
                        token.release()
                if data is None:
                    data = sock.recv(size)
            else:
                data = sock.recv(size)
        except OSError:
            self.observe(self.limit_ns * OUTLIER_FACTOR)
            raise
        self.observe(clock() - start)
        return data


def spin_recv(sock: socket.socket, size: int, deadline_ns: int,
              clock: Callable[[], int] = time.perf_counter_ns) -> bytes | None:
    """``sock.recv(size)`` tried without blocking until it gives something or ``clock``
    passes ``deadline_ns`` (None then), yielding the core between tries."""
    recv, sched_yield = sock.recv, os.sched_yield
    while True:
        try:
            return recv(size, _DONTWAIT)
        except BlockingIOError:
            if clock() >= deadline_ns:
                return None
            sched_yield()
