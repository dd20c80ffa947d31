"""QTIME / OnQTime as pure arithmetic on the engine's time-on-queue counts
(mqpy.mqsc.qtime): the first gets set both averages, later ones move the short-term value
more, a statistics interval's end loses nothing read before, and MONQ OFF forgets."""

from __future__ import annotations

import attrs

from mqpy.engine.stats import QueueCounters
from mqpy.mqsc import qtime


@attrs.define
class _Stats:
    queues: dict = attrs.Factory(dict)


@attrs.define(eq=False)
class _Engine:
    stats: _Stats = attrs.Factory(_Stats)


def _got(counters: QueueCounters, count: int, seconds_each: float) -> None:
    """``count`` non-persistent gets of messages that waited ``seconds_each``."""
    counters.time_on_q_total[0] += count * seconds_each
    counters.time_on_q_count[0] += count


def test_blank_before_any_get_then_the_first_gets_set_both_values():
    """Given a queue nothing was got from, its QTIME is blank; after two gets of messages
    that waited 2 ms each, both values are 2000 microseconds."""
    engine = _Engine()
    counters = engine.stats.queues["Q"] = QueueCounters()
    assert qtime.on_queue_time(engine, "Q") == ("", "")
    _got(counters, 2, 0.002)
    assert qtime.on_queue_time(engine, "Q") == (2000, 2000)


def test_later_gets_move_the_short_term_value_more_than_the_long_term_one():
    """Given QTIME 8000,8000, when one message that waited nothing is got, then the
    short-term value falls by 1/8 (7000) and the long-term by 1/64 (7875); a reading with
    no gets since leaves the pair as it is."""
    engine = _Engine()
    counters = engine.stats.queues["Q"] = QueueCounters()
    _got(counters, 1, 0.008)
    qtime.on_queue_time(engine, "Q")
    _got(counters, 1, 0.0)
    assert qtime.on_queue_time(engine, "Q") == (7000, 7875)
    assert qtime.on_queue_time(engine, "Q") == (7000, 7875)


def test_the_end_of_a_statistics_interval_loses_no_get_read_since():
    """Given gets counted in one interval after the last reading, when the interval ends
    (the engine counts in new counters) and more gets are counted, then the next reading
    takes in the ended interval's rest and the new ones: 3 + 1 gets, as if read once."""
    engine, alone = _Engine(), _Engine()
    first = engine.stats.queues["Q"] = QueueCounters()
    one = alone.stats.queues["Q"] = QueueCounters()
    _got(first, 1, 0.004)
    _got(one, 1, 0.004)
    assert qtime.on_queue_time(engine, "Q") == qtime.on_queue_time(alone, "Q")
    _got(first, 3, 0.001)
    second = engine.stats.queues["Q"] = QueueCounters()  # (Statistics.take)
    _got(second, 1, 0.001)
    _got(one, 4, 0.001)
    assert qtime.on_queue_time(engine, "Q") == qtime.on_queue_time(alone, "Q")


def test_read_with_monitoring_off_it_is_blank_and_begins_again_after():
    """Given QTIME measured, when the status is read with MONQ OFF, then it is blank, and
    the gets made while monitoring was off do not count once it is on again: only the
    later ones set the pair."""
    engine = _Engine()
    counters = engine.stats.queues["Q"] = QueueCounters()
    _got(counters, 1, 0.5)
    qtime.on_queue_time(engine, "Q")
    _got(counters, 5, 9.0)
    assert qtime.on_queue_time(engine, "Q", monitored=False) == ("", "")
    _got(counters, 1, 0.003)
    assert qtime.on_queue_time(engine, "Q") == (3000, 3000)


def test_a_value_beyond_what_display_shows_is_999999999():
    """Given a message that waited 20 minutes, QTIME shows IBM's largest value."""
    engine = _Engine()
    _got(engine.stats.queues.setdefault("Q", QueueCounters()), 1, 1200.0)
    assert qtime.on_queue_time(engine, "Q") == (999_999_999, 999_999_999)
