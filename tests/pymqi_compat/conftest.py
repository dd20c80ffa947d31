"""A queue manager reached the three ways a pymqi program reaches one: inside the process
(embedded), over the bindings socket, and as a client over a SVRCONN channel. The queue
manager and its channel initiator are tests/client's ``env``."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import mqpy
from mqpy import cmdserver
from tests.client.conftest import QMGR, QUEUE, Env, env, env_in  # noqa: F401 - env: a fixture

__all__ = ["QMGR", "QUEUE", "program_env"]


def program_env(tmp_path_factory: pytest.TempPathFactory, name: str,
                define: Callable[[Env], object] | None = None) -> Iterator[Env]:
    """QM1 for a module's programs: its channel initiator, what ``define`` makes, then its
    command server; MQPY_DATA_PATH is QM1's data path, so that a program's
    ``connect('QM1')`` finds it as its MQCONN does."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        for made in env_in(tmp_path_factory.mktemp(name), monkeypatch):
            monkeypatch.setenv("MQPY_DATA_PATH", made.root)
            if define is not None:
                define(made)
            cmdserver.start_command_server(QMGR, made.root)
            try:
                yield made
            finally:
                cmdserver.stop_command_server(QMGR, made.root)


@pytest.fixture(params=["embedded", "bindings", "client"])
def qmgr(request, env: Env) -> Iterator[mqpy.QueueManager]:  # noqa: F811
    """A connected pymqi QueueManager to QM1 (APP.Q defined, empty)."""
    if request.param == "embedded":
        qm = mqpy.embedded(QMGR, data_path=env.root, create=False)
    elif request.param == "bindings":
        qm = env.bindings()
    else:
        qm = env.client()
    try:
        yield qm
    finally:
        if qm.is_connected:
            qm.disconnect()


@pytest.fixture
def pcf_exec(qmgr, env: Env) -> Iterator[mqpy.PCFExecute]:  # noqa: F811
    """A PCFExecute over each connection type, with QM1's command server running."""
    cmdserver.start_command_server(QMGR, env.root)
    executor = mqpy.PCFExecute(qmgr)
    try:
        yield executor
    finally:
        executor.disconnect()
        cmdserver.stop_command_server(QMGR, env.root)
