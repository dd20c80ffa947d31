"""The sustained run's load and what its report says of it, shown on doctored histories: the
rate measured in calibration counts only committed units of work in its window, the
maximum is the slowest side's (a consumer's over its share of the puts), each
committed message's put latency is charted per minute, and a p99 put latency that doubled
after warm-up is flagged."""

from __future__ import annotations

from tests.chaos import report
from tests.chaos.apps import _by_place
from tests.chaos.pacing import committed_messages, maximum, role_apps
from tests.chaos.run import PLACES

HISTORIES = {
    "prodA1": ["p 1 DEST.B prodA1.1 prodA1.2", "C 1", "L 5.0 100.5", "M 100.5 4.0 2.0",
               "p 2 CQ prodA1.3", "B 2",
               "p 3 CQ prodA1.4 prodA1.5 prodA1.6", "C 3", "L 7.0 101.5",
               "M 101.5 9.0 8.0 7.0",
               "p 4 CQ prodA1.7", "C 4", "L 3.0 130.0", "M 130.0 3.0"],
    "consB1": ["g 1 QMB/DEST.B prodA1.1", "g 1 QMB/PARKED#2085 prodA1.9", "C 1",
               "L 2.0 100.7", "g 2 QMB/CQ prodA1.4", "U 2"],
}


def test_calibration_counts_the_messages_of_units_of_work_committed_in_its_window():
    assert committed_messages(HISTORIES, role_apps("producer"), 100, 110) == 5
    assert committed_messages(HISTORIES, role_apps("producer"), 100, 200) == 6
    assert committed_messages(HISTORIES, role_apps("consumer"), 100, 110) == 2
    assert committed_messages(HISTORIES, role_apps("requester"), 0, 200) == 0


def test_the_maximum_is_the_slowest_consumers_rate_over_its_share_of_the_puts():
    """Given 94 puts a second (45 to DEST.B, 45 to the clustered CQ, 4 dead-lettered to
    PARKED), QMB's consumer (DEST.B, its CQ, PARKED) able to get 65 a second and QMC's (its
    CQ) 130, then QMB's consumer, which must take 71.5 of every 94, sets the maximum."""
    puts = {"DEST.B": 450, "CQ": 450, "NOSUCH.Q": 40}
    assert round(maximum(puts, {"consB": 650, "consC": 1300}, PLACES, 10), 1) == \
        round(65 / (71.5 / 94), 1)
    assert maximum(puts, {"consB": 6500, "consC": 13000}, PLACES, 10) == 94  # producers


def test_put_latencies_are_reported_per_minute_with_the_committed_puts_a_second():
    rows = report.per_minute([], [], {}, 60, report.puts(HISTORIES, 90, 60))
    assert [row["minute"] for row in rows] == [0]
    assert rows[0]["puts_per_s"] == round(6 / 60, 1)
    assert rows[0]["put_latency_ms"] == {"p50": 4.0, "p95": 9.0, "p99": 9.0, "n": 6}


def test_a_p99_put_latency_that_doubled_after_warm_up_is_flagged():
    def minute(index: int, p99: float) -> dict:
        return {"minute": index, "rss": {}, "latency_ms": {},
                "put_latency_ms": {"p50": 1.0, "p95": 2.0, "p99": p99, "n": 10}}
    steady = [minute(i, 20.0) for i in range(12)]
    assert report.growth(steady) == []
    assert report.growth([*steady, minute(12, 45.0)]) == ["p99 put: 20 ms -> 45 ms"]


def test_a_dead_lettered_message_got_by_a_consumer_counts_where_its_header_says():
    assert _by_place("QMB/PARKED", ["a.1#2085", "a.2#2085", "b.1"]) == {
        "QMB/PARKED#2085": ["a.1", "a.2"], "QMB/PARKED": ["b.1"]}
