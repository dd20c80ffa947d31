"""Fixtures for the daemon suite: queue managers started with strmqm in temporary data paths
(``tests.support.installation``); every daemon is killed by pid at teardown."""

from __future__ import annotations

import pytest

from tests.support.installation import Installation, started


@pytest.fixture
def install(tmp_path, monkeypatch):
    inst = Installation(str(tmp_path))
    monkeypatch.setenv("MQPY_DATA_PATH", inst.root)
    try:
        yield inst
    finally:
        inst.kill_all()


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """QM1 created with the test queues and started by strmqm, shared by a module."""
    inst = Installation(str(tmp_path_factory.mktemp("daemon")))
    inst.create()
    yield from started(inst)
