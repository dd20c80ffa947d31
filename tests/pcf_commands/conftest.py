"""A queue manager with its channel initiator (tests/client's ``env``) and its command
server, administered by PCF over a bindings connection."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqpy
from mqpy import cmdserver
from tests.client.conftest import QMGR, Env, env  # noqa: F401 - env is a fixture

__all__ = ["QMGR"]


@pytest.fixture
def admin(env: Env) -> Iterator[mqpy.PCFExecute]:  # noqa: F811
    """A PCFExecute over a bindings connection, the command server running."""
    cmdserver.start_command_server(QMGR, env.root)
    qm = env.bindings()
    executor = mqpy.PCFExecute(qm)
    try:
        yield executor
    finally:
        executor.disconnect()
        qm.disconnect()
        cmdserver.stop_command_server(QMGR, env.root)


def reason_of(call) -> int:
    """The reason of the MQMIError a PCF call raises."""
    with pytest.raises(mqpy.MQMIError) as err:
        call()
    return err.value.reason
