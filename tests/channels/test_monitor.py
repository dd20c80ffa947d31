"""Channel monitoring figures (MONCHL), as pure functions: levels, averages, time on xmitq."""

from __future__ import annotations

import calendar

from mqpy import CMQC
from mqpy_chinit.monitor import Average, ChannelMonitor, effective_level, time_on_xmitq_us


def test_the_channels_own_monchl_wins_unless_it_defers_to_the_queue_manager():
    """spec: aliases-channels-storage 2.13 (channel-level MONCHL overrides either way)"""
    assert effective_level("QMGR", "HIGH") == "HIGH"
    assert effective_level("QMGR", CMQC.MQMON_MEDIUM) == "MEDIUM"
    assert effective_level("OFF", "HIGH") == "OFF"
    assert effective_level("LOW", "OFF") == "LOW"
    assert effective_level("QMGR", "NONE") == "OFF"
    assert effective_level(None, None) == "OFF"
    # the queue manager's MONCHL(NONE) turns monitoring off whatever the channels say
    assert effective_level("HIGH", "NONE") == "OFF"
    assert effective_level("HIGH", CMQC.MQMON_NONE) == "OFF"


def test_the_first_sample_sets_both_averages_and_later_ones_move_short_term_faster():
    avg = Average()
    avg.add(800)
    assert avg.shown() == "800,800"
    avg.add(0)
    assert avg.short == 700 and avg.long == 787.5


def test_a_monitor_that_is_off_collects_and_shows_nothing():
    mon = ChannelMonitor(level="OFF")
    mon.batch_done(50)
    mon.round_trip(1000)
    assert mon.xbatchsz.samples == 0 and mon.nettime.samples == 0
    assert mon.as_mqsc()["XBATCHSZ"] == "" and mon.as_mqsc()["MONCHL"] == "OFF"


def test_xqmsgsa_stops_counting_at_999():
    """spec: aliases-channels-storage 4.34 (backlog > 999: XQMSGSA = 999)"""
    mon = ChannelMonitor(level="HIGH", xqmsgsa=5000)
    assert mon.as_mqsc()["XQMSGSA"] == 999


def test_time_on_xmitq_from_put_date_and_time():
    now = calendar.timegm((2026, 11, 22, 10, 0, 1, 0, 0, 0)) + 0.5
    assert time_on_xmitq_us(b"20261122", b"10000025", now) == 1_250_000
    assert time_on_xmitq_us(b"        ", b"        ", now) is None  # context set blank
    assert time_on_xmitq_us(b"2026\xff122", b"10000025", now) is None
