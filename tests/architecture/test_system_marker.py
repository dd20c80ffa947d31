"""The system marker: a test that starts processes or opens TCP sockets is marked system
(tests/support/system.py), and one that does so unmarked fails, naming the rule."""

from __future__ import annotations

import attrs
import pytest

from tests.architecture import system_samples as samples
from tests.support import system


@attrs.define
class _Item:
    """What the marker's rule reads of a collected test."""

    function: object
    marked: bool = False
    nodeid: str = "tests/x/test_y.py::test_z"
    _fixtureinfo: None = None

    def get_closest_marker(self, name: str):
        return name if self.marked and name == "system" else None


@attrs.define
class _Report:
    when: str = "call"
    outcome: str = "passed"
    longrepr: object = None

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"

    @property
    def skipped(self) -> bool:
        return self.outcome == "skipped"


@pytest.mark.parametrize(("name", "expected"), [
    ("runs_a_subprocess", True),
    ("calls_a_helper_that_starts_a_daemon", True),
    ("listens_on_a_port", True),
    ("adds", False),
])
def test_a_test_is_system_when_it_or_a_helper_it_calls_starts_a_process(name, expected):
    """Given test bodies that run a subprocess, call a helper of the suite that starts a
    daemon, listen on 127.0.0.1, or only compute, when the rule reads them, then all but the
    last are system."""
    assert system.is_system(_Item(getattr(samples, name))) is expected


def test_a_test_marked_system_stays_system():
    """Given a test whose module marks it system, then it is system whatever its body."""
    assert system.is_system(_Item(samples.adds, marked=True))


def test_an_unmarked_test_that_started_a_process_fails_naming_the_rule():
    """Given the guard saw a test start a process, when the test passed unmarked, then its
    report is a failure that says to mark it system; marked, it passes."""
    guard = system.SpawnGuard.__new__(system.SpawnGuard)
    guard.current, guard.spawned = None, {}
    recording = guard._recording(lambda obj: None, "starts a process")
    item = _Item(samples.adds)
    with guard.watching(item):
        recording(object())
    report = _Report()
    guard.check(item, report)
    assert report.outcome == "failed"
    assert "starts a process but is not marked system" in report.longrepr
    assert "done by thread MainThread: " in report.longrepr  # (where it was done)
    marked = _Report()
    guard.check(_Item(samples.adds, marked=True), marked)
    assert marked.outcome == "passed"
