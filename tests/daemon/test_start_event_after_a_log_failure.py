"""A queue manager whose log fails while it is still starting (an application connected as
soon as the bindings socket listened) ends "unexpectedly" as it would later: the start event
it can no longer put is lost, as IBM's events are when they cannot be put, and the start-up
goes on to that end instead of failing with MQRC_Q_MGR_NOT_AVAILABLE."""

from __future__ import annotations

from mqpy import daemon, events, inprocess
from mqpy.engine.log import LogError


def test_given_an_engine_stopped_by_its_log_when_the_start_event_is_made_then_it_is_lost(
        tmp_path, monkeypatch):
    monkeypatch.setenv("MQPY_NO_CHINIT", "1")
    inprocess.create("EVQM", str(tmp_path))
    eng = inprocess.start("EVQM", str(tmp_path))
    try:
        assert events.start_stop_enabled(eng.catalog.qmgr)
        eng._log_failed(LogError("the log device failed"))  # (as a failed log write calls it)
        assert eng.stopped
        daemon._start_stop_event(eng, events.queue_manager_active(eng.name))
    finally:
        inprocess.stop("EVQM", str(tmp_path))
