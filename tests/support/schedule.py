"""The order in which `make test`'s workers take the test files: the longest first.

pytest-xdist's ``--dist loadfile`` hands out files by their number of tests, or, with
``--no-loadscope-reorder`` (the Makefile's), in collection order: either way a long file with
few tests (the chaos run has one) went last and ran alone while the other workers sat idle. Files listed here (the
longest in a ``--durations`` run of the whole suite; a stale entry only costs its place) are
collected first; every other file keeps its place, and a file's tests keep their order."""

from __future__ import annotations

import pytest

#: longest first; each a path from the repository's root
LONGEST = (
    "tests/chaos/test_short_run.py",
    "tests/operator_day/test_operators_day.py",
    "tests/spark/test_report.py",
    "tests/spark/test_report_content.py",
    "tests/daemon/test_trace.py",
    "tests/spark/test_inputs.py",
    "tests/channels/test_pipelining.py",
    "tests/cluster/test_four_qmgrs.py",
    "tests/client/test_fastpath.py",
    "tests/daemon/test_lifecycle.py",
    "tests/security/test_strmqm_security.py",
    "tests/channels/test_kill.py",
    "tests/spark/test_short_run.py",
    "tests/daemon/test_dmpmqcfg.py",
    "tests/web/test_control_commands.py",
    "tests/web/test_console_browser.py",
    "tests/stats/test_exporter.py",
    "tests/robustness/test_admin_refusals.py",
)


def long_files_first(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place: the files of :data:`LONGEST` first, in its order."""
    rank = {path: i for i, path in enumerate(LONGEST)}
    last = len(LONGEST)
    # a stable sort: each file's tests stay together and in their order
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], last))
