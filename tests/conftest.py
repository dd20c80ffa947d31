"""Suite-wide settings: small log segments (every queue manager a test makes preallocates its
first segment; 16 MB each would fill a small disk), and servers and subprocesses inherit it;
the ``system`` marker on every test that starts processes (tests/support/system.py); the
longest files collected first (tests/support/schedule.py); ``created_qmgr``, a queue manager
as crtmqm leaves it, copied from one made once per session."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable

import pytest

from mqpy import config, inprocess
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


@pytest.fixture(scope="session")
def created_qmgr(tmp_path_factory) -> Callable[..., None]:
    """``created_qmgr(name, root, dead_letter_queue="", channels=None)``: queue manager
    ``name`` in data path ``root`` (which must not hold it yet) as crtmqm leaves it, never
    started: made once per session for each such name, dead-letter queue and qm.ini Channels
    stanza, then copied, mqs.ini naming the copy's directory (the one file that names its
    data path). crtmqm's forced writes are paid once, not by every test that starts a fresh
    queue manager."""
    base = tmp_path_factory.mktemp("created")
    made: dict[tuple, str] = {}

    def created(name: str, root: str, dead_letter_queue: str = "",
                channels: dict[str, str] | None = None) -> None:
        if os.path.exists(os.path.join(config.qmgr_dir(name, root), "pageset00")):
            raise FileExistsError(name)  # (as crtmqm's)
        key = (name, dead_letter_queue,
               None if channels is None else tuple(sorted(channels.items())))
        if key not in made:
            template = str(base / str(len(made)))
            cfg = None if channels is None else config.QMgrConfig(name, "", channels=channels)
            inprocess.create(name, template, dead_letter_queue=dead_letter_queue, cfg=cfg)
            made[key] = template
        shutil.copytree(made[key], root, dirs_exist_ok=True)
        ini = os.path.join(root, "mqs.ini")
        with open(ini) as f:
            text = f.read()
        with open(ini, "w") as f:
            f.write(text.replace(made[key], root))

    return created
