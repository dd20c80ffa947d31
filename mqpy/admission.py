"""Connections not yet authenticated, counted in all and by peer address (sans-IO).

The TCP listener and the bindings socket let at most so many connections be in the phase
before authentication at once (``config.PeerLimits``): a peer that opens connections and
never completes its start cannot take more than its share of the queue manager. A connection
is *admitted* to that phase at its accept (:meth:`Admissions.admit`) and leaves it when it
authenticates or ends (:meth:`Admission.release`, idempotent).

:class:`LogLimiter` keeps what a flood of refused connections writes to the error log to a
few lines a minute.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import attrs

__all__ = ["LOG_LINES", "LOG_WINDOW", "Admission", "Admissions", "LogLimiter"]

#: At most this many lines about refused peers every LOG_WINDOW seconds (LogLimiter)
LOG_LINES = 10
LOG_WINDOW = 60.0


@attrs.define(eq=False)
class Admission:
    """One connection's place among the unauthenticated ones, until released."""

    owner: Admissions
    address: str
    released: bool = False

    def release(self) -> None:
        """It authenticated or ended: its place is free (once, however often called)."""
        if self.released:
            return
        self.released = True
        self.owner._leave(self.address)


class Admissions:
    """At most ``total`` unauthenticated connections, at most ``per_address`` (None: no
    such limit) from one address."""

    def __init__(self, total: int, per_address: int | None = None) -> None:
        self.total = total
        self.per_address = per_address
        self.count = 0
        self.by_address: dict[str, int] = {}

    def admit(self, address: str) -> Admission | str:
        """A place for a new connection from ``address``, or why there is none: the limit
        reached, as the log says it."""
        if self.count >= self.total:
            return f"{self.count} connections are not authenticated yet, the most allowed " \
                   f"in all"
        held = self.by_address.get(address, 0)
        if self.per_address is not None and held >= self.per_address:
            return f"{held} connections from {address} are not authenticated yet, the most " \
                   f"allowed from one address"
        self.count += 1
        self.by_address[address] = held + 1
        return Admission(self, address)

    def _leave(self, address: str) -> None:
        self.count -= 1
        held = self.by_address[address] - 1
        if held:
            self.by_address[address] = held
        else:
            del self.by_address[address]


class LogLimiter:
    """At most ``lines`` error-log lines every ``window`` seconds for one kind of refusal:
    a flood of bad connections cannot fill the log, and the first line after a quiet spell
    says how many were left out (:meth:`allow`)."""

    def __init__(self, lines: int = LOG_LINES, window: float = LOG_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.lines, self.window, self.clock = lines, window, clock
        self.started = -window  # the current window's start
        self.written = 0  # lines written in it
        self.left_out = 0  # refusals not written since the last line

    def allow(self) -> str | None:
        """Whether this refusal may be written: None if not (counted), else the text to add
        to its line ("" or how many were left out before it)."""
        now = self.clock()
        if now - self.started >= self.window:
            self.started, self.written = now, 0
        if self.written >= self.lines:
            self.left_out += 1
            return None
        self.written += 1
        left_out, self.left_out = self.left_out, 0
        return f" ({left_out} more like it were not logged.)" if left_out else ""
