"""Suite-wide settings: small log segments (every queue manager a test makes preallocates its
first segment; 16 MB each would fill a small disk), and servers and subprocesses inherit it;
the ``system`` marker on every test that starts processes (tests/support/system.py); the
longest files collected first (tests/support/schedule.py)."""

from __future__ import annotations

import os

import pytest

from tests.support.schedule import FilesAndSharedFolders, long_files_first
from tests.support.system import SpawnGuard, mark_system

os.environ.setdefault("MQPY_LOG_FILE_PAGES", "1024")  # 4 MB segments

_guard: SpawnGuard | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _guard
    _guard = SpawnGuard()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_system(items)
    long_files_first(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadfile`` with tests/spark one work unit (tests/support/schedule.py)."""
    if config.getoption("dist") == "loadfile":
        return FilesAndSharedFolders(config, log)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    with _guard.watching(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    with _guard.watching(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    _guard.check(item, report)
    return report
