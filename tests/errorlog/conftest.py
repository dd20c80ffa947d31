"""Shared fixtures: a fixed clock and UTC local time, so every line of an entry is known."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from mqpy.errorlog import ErrorLog

T0 = dt.datetime(2024, 5, 14, 9, 12, 7, 123456, tzinfo=dt.timezone.utc)


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def log_factory(tmp_path, utc):
    """ErrorLog with a fixed host, user and program, and a clock that ticks a second a write."""

    def make(directory=None, **kw) -> ErrorLog:
        ticks = iter(range(10**9))
        kw.setdefault("qmgr", "QM1")
        kw.setdefault("program", "amqzxma0")
        return ErrorLog(str(directory or tmp_path / "errors"), host="box1", user="mqm",
                        clock=lambda: T0 + dt.timedelta(seconds=next(ticks)), **kw)

    return make
