"""The progress of a restart's log replay, in IBM's words: when replay takes longer than
``after`` seconds, ``AMQ7229I: N log records accessed on queue manager 'QM1' during the log
replay phase.`` every ``every`` seconds, then the total and ``AMQ7230I: Log replay for queue
manager 'QM1' complete.``; a quick replay says nothing.

:class:`ReplayProgress` decides what to say and when; the recovery log's scan tells it how
many records it has read (:func:`mqpy.engine.recoverylog.watching_replay`), and whoever
restarts the queue manager (the daemon, for strmqm) says it: error log and console.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import attrs

from mqpy import amqmsgs

#: seconds of replay before progress is shown, and between two progress lines
PROGRESS_AFTER = 2.0
PROGRESS_EVERY = 2.0
#: the environment variable that changes PROGRESS_AFTER (seconds; tests use 0)
ENV_PROGRESS_AFTER = "MQPY_PROGRESS_AFTER"
#: how many records the scan reads between two looks at the clock
RECORDS_BETWEEN_CHECKS = 1000

Say = Callable[[amqmsgs.AMQMessage, Mapping[str, object]], None]


def progress_after(environ: Mapping[str, str]) -> float:
    """PROGRESS_AFTER, or the environment's MQPY_PROGRESS_AFTER when it is a number."""
    try:
        return max(0.0, float(environ.get(ENV_PROGRESS_AFTER, PROGRESS_AFTER)))
    except ValueError:
        return PROGRESS_AFTER


@attrs.define
class ReplayProgress:
    """One replay's progress lines, said through ``say(message, inserts)``."""

    say: Say
    after: float = PROGRESS_AFTER
    every: float = PROGRESS_EVERY
    clock: Callable[[], float] = time.monotonic
    began: float = 0.0
    last: float | None = None  # when the last progress line was said

    def begin(self) -> None:
        self.began, self.last = self.clock(), None

    def records(self, count: int) -> None:
        """``count`` records read so far."""
        now = self.clock()
        if now - self.began >= self.after and (self.last is None
                                               or now - self.last >= self.every):
            self.last = now
            self.say(amqmsgs.AMQ7229, {"records": count})

    def done(self, count: int) -> None:
        """The replay read ``count`` records in all: the total and AMQ7230I, if it was long."""
        if self.last is not None or self.clock() - self.began >= self.after:
            self.say(amqmsgs.AMQ7229, {"records": count})
            self.say(amqmsgs.AMQ7230, {})
