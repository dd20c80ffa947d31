"""Where a test cuts requests in two, to send them as two writes."""

from __future__ import annotations

from collections.abc import Sequence

#: Every byte of a request's first HEAD bytes (its TSH, its API header, the start of its
#: first structure) and of its last TAIL is a cut point whatever the step.
HEAD = 80
TAIL = 8


def cut_points(lengths: Sequence[int], step: int) -> list[int]:
    """Cut points in requests sent back to back (``lengths``, in order): every byte of each
    request's head and tail, and every ``step``th byte between (``step`` 1: every byte)."""
    points: set[int] = set()
    start = 0
    for length in lengths:
        end = start + length
        points.update(range(start, min(start + HEAD, end)))
        points.update(range(max(start, end - TAIL), end))
        points.update(range(start, end, step))
        start = end
    points.discard(0)
    return sorted(points)
