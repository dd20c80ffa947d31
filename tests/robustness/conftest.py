"""Fixtures for the robustness suite: an embedded queue manager and a command server object
driven directly (``CommandServer.handle``: request bytes in, reply bytes out), so that many
bad requests cost milliseconds each."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import inprocess
from mqpy.cmdserver import CommandServer
from mqpy.mqi import attach
from mqpy.mqsc.processor import MQSCProcessor
from tests.support.installation import Installation, started


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("robust"))
    mqpy.embedded("QM1", data_path=root)
    try:
        yield inprocess.running("QM1", root)
    finally:
        mqpy.stop_embedded("QM1", data_path=root)


@pytest.fixture(scope="module")
def server(engine):
    """A command server whose unexpected faults are recorded, not only answered 3008."""
    srv = CommandServer(attach(engine), lambda: MQSCProcessor(engine))
    srv.faults = []
    srv.on_unexpected = srv.faults.append
    return srv


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """QM1 started by strmqm (no channel initiator: runmqlsr is the listener here)."""
    inst = Installation(str(tmp_path_factory.mktemp("control")))
    inst.create(queues=())
    yield from started(inst)

