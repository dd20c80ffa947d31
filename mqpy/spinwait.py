"""Spin-then-block waits on a bindings socket: the idle strategy of both ends of a call.

A reply (or the next request) that comes within microseconds is cheaper to catch by reading
the socket without blocking, again and again, than by sleeping in ``recv``: a sleeping thread
costs the kernel's wake-up on each end of every round trip. So a wait first tries to read
without blocking, again and again (yielding the core between tries to a runnable peer on
it), for up to a budget, then blocks as before.

:class:`SpinWait` owns whether to spin: while most recent spins of that kind paid off (the
data came within the budget: a score, an exponential average of hits), every wait spins;
once they do not (an application that works between its calls, a slow reply such as a log
force, a loaded machine where the peer waits for a core), only one wait in PROBE_EVERY
does, to see whether spinning pays again. A spin that pays saves a wake-up; one that does
not costs its whole budget of CPU, hence a score that must stay high. No wait spins while
other tasks wait for a core (:class:`CpuPressure`): there a spin that catches its data
soon may still take the core its peer, or another program, needs. The environment
variable ``MQPY_SPIN_US`` sizes the budget; 0 turns spinning off (``MQPY_SPIN_PRESSURE``:
BUSY_PRESSURE).

:data:`SPINNER` is the token a queue manager's thread holds while it spins: the daemon is one
process, and threads spinning at once would fight for its interpreter lock.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable

__all__ = ["PRESSURE", "SPINNER", "SPIN_US", "CpuPressure", "SpinWait", "some_pressure",
           "spin_budget_us", "spin_recv"]


def spin_budget_us(environ: dict[str, str] | os._Environ[str] = os.environ) -> int:
    """The budget in microseconds: ``MQPY_SPIN_US`` when it is a whole number (0: never
    spin), else DEFAULT_SPIN_US."""
    text = environ.get("MQPY_SPIN_US", "").strip()
    return int(text) if text.isdigit() else DEFAULT_SPIN_US


def _env_number(name: str, default: float,
                environ: dict[str, str] | os._Environ[str] = os.environ) -> float:
    """The environment variable ``name`` as a number, ``default`` when unset or not one."""
    try:
        return float(environ.get(name, ""))
    except ValueError:
        return default


#: The longest a wait spins before it blocks, when none is set: about the time a Python
#: peer takes to serve a call, well under a log force's.
DEFAULT_SPIN_US = 50
#: The budget of the waits made from now on (``MQPY_SPIN_US``).
SPIN_US = spin_budget_us()
#: The score of a hit (a spin that paid off); a miss scores 0.
HIT = 256
#: Every wait spins while the score is at least this (three hits in four, about).
SPIN_SCORE = 192
#: The weight of one spin in the score (a power of two: a shift).
SCORE_SHIFT = 3
#: Below SPIN_SCORE, one wait in this many spins all the same.
PROBE_EVERY = 16

#: No wait spins while other tasks waited for a core at least this share of the time (per
#: cent, Linux's pressure stall information: "some", over the time since it was last read;
#: calm until the second reading, a process's first PRESSURE_EVERY_NS, rather than judged
#: by its ten-second average, which a program's start raises): a spinner there takes the
#: core its peer waits for. ``MQPY_SPIN_PRESSURE`` sets it (above 100: spin however busy the machine is).
BUSY_PRESSURE = _env_number("MQPY_SPIN_PRESSURE", 10.0)
#: How often the pressure is read again (nanoseconds).
PRESSURE_EVERY_NS = 100_000_000
PRESSURE_PATH = "/proc/pressure/cpu"

#: Held by the queue manager's thread that spins; the others block at once.
SPINNER = threading.Lock()

_NS = 1000
_DONTWAIT = socket.MSG_DONTWAIT


class CpuPressure:
    """Whether other tasks are waiting for a core: the share of time some did, by
    PRESSURE_PATH's "some" line, at least BUSY_PRESSURE; read again every PRESSURE_EVERY_NS
    at most (never, where the system has no such file: not busy then)."""

    __slots__ = ("busy_now", "fd", "last_ns", "last_total_us", "next_ns", "path")

    def __init__(self, path: str = PRESSURE_PATH) -> None:
        self.path = path
        self.fd: int | None = None  # opened at the first reading
        self.next_ns = 0
        self.last_ns = 0  # when last read (0: never), and its stalled time then
        self.last_total_us = 0
        self.busy_now = False

    def busy(self, now_ns: int) -> bool:
        """Whether it was busy when last read (read again when that was long ago)."""
        if now_ns < self.next_ns:
            return self.busy_now
        self.next_ns = now_ns + PRESSURE_EVERY_NS
        text = self._read()
        if text is None:
            self.busy_now = False
            return False
        total_us = some_pressure(text)[1]
        share = (total_us - self.last_total_us) * 100_000 / (now_ns - self.last_ns) \
            if self.last_ns and now_ns > self.last_ns else 0.0
        self.last_ns, self.last_total_us = now_ns, total_us
        self.busy_now = share >= BUSY_PRESSURE
        return self.busy_now

    def _read(self) -> bytes | None:
        try:
            if self.fd is None:
                self.fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            return os.pread(self.fd, 256, 0)
        except OSError:
            self.next_ns = 1 << 62  # none here: never read again
            return None


def some_pressure(text: bytes) -> tuple[float, int]:
    """The "some" line of a pressure file's text: its avg10 (per cent) and its total
    (microseconds stalled); 0.0 and 0 for what it lacks."""
    line = text.split(b"\n", 1)[0]
    avg10, total = 0.0, 0
    if line.startswith(b"some "):
        for field in line.split()[1:]:
            name, _, value = field.partition(b"=")
            try:
                if name == b"avg10":
                    avg10 = float(value)
                elif name == b"total":
                    total = int(value)
            except ValueError:
                pass
    return avg10, total


#: The machine's pressure, as this process last read it (shared by its waits).
PRESSURE = CpuPressure()


class SpinWait:
    """Whether the waits of one kind spin (module docstring); ``clock`` gives
    nanoseconds."""

    __slots__ = ("clock", "limit_ns", "pressure", "score", "skipped")

    def __init__(self, spin_us: int | None = None,
                 clock: Callable[[], int] = time.perf_counter_ns,
                 pressure: CpuPressure | None = None) -> None:
        self.limit_ns = (SPIN_US if spin_us is None else spin_us) * _NS
        self.score = HIT  # optimistic: the first waits spin
        self.skipped = 0  # waits that did not spin since the last that did
        self.clock = clock
        self.pressure = PRESSURE if pressure is None else pressure

    def next_budget_ns(self) -> int:
        """Nanoseconds the next wait spins before it blocks: the whole budget while spins
        pay off, and for one wait in PROBE_EVERY when they do not; else 0."""
        return self.limit_ns if self.score >= SPIN_SCORE or self._probes() else 0

    def _probes(self) -> bool:
        """Whether this wait, one that would not spin, spins all the same (one in
        PROBE_EVERY)."""
        self.skipped += 1
        if self.skipped < PROBE_EVERY:
            return False
        self.skipped = 0
        return True

    def observe(self, hit: bool) -> None:
        """Count one spin: ``hit`` when what it waited for came within the budget."""
        self.score += ((HIT if hit else 0) - self.score) >> SCORE_SHIFT

    def recv(self, sock: socket.socket, size: int,
             token: threading.Lock | None = None) -> bytes:
        """``sock.recv(size)``, first tried without blocking for the budget
        (:func:`spin_recv`) when the next wait spins (:meth:`next_budget_ns`, on every
        call's path: written out) and the machine is not busy (:class:`CpuPressure`);
        ``token``, when given, must be free for those tries (else none)."""
        limit = self.limit_ns
        if not limit:
            return sock.recv(size)
        clock = self.clock
        now = clock()
        pressure = self.pressure
        if (pressure.busy(now) if now >= pressure.next_ns else pressure.busy_now) \
                or not (self.score >= SPIN_SCORE or self._probes()) \
                or not (token is None or token.acquire(blocking=False)):
            return sock.recv(size)
        try:
            data = spin_recv(sock, size, now + limit, clock)
        finally:
            if token is not None:
                token.release()
        if data is None:
            self.observe(False)
            return sock.recv(size)
        if self.score < HIT:
            self.observe(True)
        return data


def spin_recv(sock: socket.socket, size: int, deadline_ns: int,
              clock: Callable[[], int] = time.perf_counter_ns) -> bytes | None:
    """``sock.recv(size)`` tried without blocking until it gives something or ``clock``
    passes ``deadline_ns`` (None then), yielding the core between tries (to a peer waiting
    for one, on a busy machine; in the queue manager, the interpreter lock too)."""
    recv, sched_yield = sock.recv, os.sched_yield
    while True:
        try:
            return recv(size, _DONTWAIT)
        except BlockingIOError:
            if clock() >= deadline_ns:
                return None
            sched_yield()
