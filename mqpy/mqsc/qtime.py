"""Time on queue (DISPLAY QSTATUS QTIME, Inquire Queue Status OnQTime): a short-term and a
long-term indicator of how long the messages got from a queue had waited on it, in
microseconds, shown while the queue's monitoring (MONQ in effect) is not OFF.

IBM recalculates the pair "only when messages are processed": a value over the last few
messages and one over a larger sample, each a weighted average in which recent messages
count more in the short-term value. mqpy keeps the same pair from what its engine already
counts for queue statistics: each local queue's time on queue and number of gets over the
statistics interval (``QueueCounters.time_on_q_total`` / ``time_on_q_count``). Whenever the
status is asked for, the gets counted since the last time are taken as that many messages of
their average time, and folded into two exponentially weighted averages, the newest message
counting 1/8 in the short term and 1/64 in the long term (the weights mqpy's channel
monitoring uses); the first messages set both. No gets since: the pair stands. A
statistics interval's end starts the engine's counts again in new counters: the ended
interval's are read to their end first (one whole interval between two readings would be
missed). Read while the queue's monitoring is OFF, the pair is blank and forgotten; the gets
of a queue whose status nobody read between switching monitoring on and them count as
monitored.

This module owns those averages and never changes the engine: it reads its counters under
the engine's lock (the caller's).
"""

from __future__ import annotations

import weakref
from typing import Any

import attrs

__all__ = ["LONG_WEIGHT", "SHORT_WEIGHT", "QueueTimes", "on_queue_time"]

SHORT_WEIGHT = 1 / 8
LONG_WEIGHT = 1 / 64
#: IBM's largest displayable value
MAX_SHOWN = 999_999_999


@attrs.define
class QueueTimes:
    """One queue's time-on-queue averages and the engine counts last folded into them."""

    counters: Any = None  #: the engine's counters last read (a new interval: new ones)
    seconds: float = 0.0  #: their total time on queue when read
    gets: int = 0  #: their count when read
    short: float | None = None  #: microseconds; None before any message was got
    long: float | None = None

    def fold(self, counters: Any) -> None:
        """Take in the gets ``counters`` (a ``QueueCounters``) counted since last read; when
        they are a new interval's, the rest of the interval last read first."""
        if counters is not self.counters:
            if self.counters is not None:
                self._take(self.counters)  # (the ended interval's, no longer counted to)
            self.counters, self.seconds, self.gets = counters, 0.0, 0
        self._take(counters)

    def _take(self, counters: Any) -> None:
        seconds = sum(counters.time_on_q_total)
        gets = sum(counters.time_on_q_count)
        new_gets, new_seconds = gets - self.gets, seconds - self.seconds
        self.seconds, self.gets = seconds, gets
        if new_gets <= 0:
            return
        mean = max(0.0, new_seconds / new_gets * 1e6)
        if self.short is None or self.long is None:
            self.short = self.long = mean
            return
        self.short = mean + (self.short - mean) * (1 - SHORT_WEIGHT) ** new_gets
        self.long = mean + (self.long - mean) * (1 - LONG_WEIGHT) ** new_gets

    def shown(self) -> tuple[int, int] | tuple[str, str]:
        """The pair as QTIME shows it; blank before the first message got."""
        if self.short is None or self.long is None:
            return ("", "")
        return (min(MAX_SHOWN, round(self.short)), min(MAX_SHOWN, round(self.long)))


#: engine -> queue name -> its averages
_TIMES: weakref.WeakKeyDictionary[Any, dict[str, QueueTimes]] = weakref.WeakKeyDictionary()


def on_queue_time(engine: Any, qname: str, monitored: bool = True
                  ) -> tuple[int, int] | tuple[str, str]:
    """QTIME of local queue ``qname`` of ``engine`` (its lock held): the pair, blank when no
    message has been got from it while monitored. Read while the queue is not
    ``monitored`` (MONQ OFF), the gets counted so far are passed over and the averages
    forgotten, so that they begin again when monitoring is switched on."""
    times = _TIMES.setdefault(engine, {}).setdefault(qname, QueueTimes())
    counters = engine.stats.queues.get(qname)
    if counters is not None:
        times.fold(counters)
    if not monitored:
        times.short = times.long = None
    return times.shown()
