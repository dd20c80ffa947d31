"""Channel statistics' intervals: each channel instance's cumulative counters (a
``ChannelStatus``'s, counted from the channel's start) turned into one interval's deltas.

Only the counting: the MQCMD_STATISTICS_CHANNEL messages made of these intervals are
``records``' (``channel_statistics``), so that a channel initiator keeps its baseline from its
start and loads the PCF records when an interval first has something to report.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

import attrs

__all__ = ["ChannelInterval", "ChannelIntervals"]


@attrs.frozen
class ChannelInterval:
    """One channel instance over one interval (deltas of the channel's cumulative counters)."""

    channel: str
    chltype: str
    conname: str = ""
    rqmname: str = ""
    msgs: int = 0
    bytes: int = 0
    full_batches: int = 0
    incomplete_batches: int = 0
    net_time_us: int = 0
    net_time_min_us: int = 0
    net_time_max_us: int = 0
    put_retries: int = 0
    batchsz: int = 0

    @property
    def batches(self) -> int:
        return self.full_batches + self.incomplete_batches


class ChannelIntervals:
    """Turns the channel initiator's cumulative ``ChannelStatus`` counters into intervals.

    ``ChannelStatus`` counts from the channel's start; statistics are per interval, so this
    keeps the counters it last reported for each channel instance.
    """

    def __init__(self) -> None:
        self._last: dict[tuple[str, str, str], tuple[int, int, int, int, int]] = {}
        self.interval_start = time.time()

    def intervals(self, statuses: Iterable[Any]) -> list[ChannelInterval]:
        """The channel instances that moved messages or batches since the last call; the
        counters of instances not among ``statuses`` are forgotten."""
        out = []
        seen = set()
        for s in statuses:
            key = (s.channel, s.conname, s.start_date + s.start_time)
            seen.add(key)
            now = (s.msgs, s.batches, s.full_batches, s.bytes_sent + s.bytes_received,
                   s.net_time_us)
            prev = self._last.get(key, (0, 0, 0, 0, 0))
            self._last[key] = now
            d = [a - b for a, b in zip(now, prev, strict=True)]
            if d[0] == 0 and d[1] == 0:
                continue
            msgs, batches, full, nbytes, net = d
            out.append(ChannelInterval(
                channel=s.channel, chltype=s.chltype, conname=s.conname, rqmname=s.rqmname,
                msgs=msgs, bytes=nbytes, full_batches=full, incomplete_batches=batches - full,
                net_time_us=net, batchsz=s.batchsz))
        for key in list(self._last):
            if key not in seen:
                del self._last[key]
        return out

    def end_interval(self, statuses: Iterable[Any], now: float | None = None
                     ) -> tuple[float, float, list[ChannelInterval]]:
        """(start, end, intervals) of the interval ending now (``now``: its end); the next
        begins."""
        end = time.time() if now is None else now
        start, self.interval_start = self.interval_start, end
        return start, end, self.intervals(statuses)
