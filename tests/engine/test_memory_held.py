"""What the engine holds in memory under steady traffic stays bounded by what is on its
queues, not by how many messages have passed through it (the chaos harness's sustained run
saw the daemons' resident memory grow for 30 minutes while every queue kept draining)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.engine import datamgr

QMGR = "HELD"


@pytest.fixture
def engine(tmp_path, monkeypatch):
    monkeypatch.setattr(datamgr, "RESIDENT_SLACK", 64)  # (a few hundred messages show it)
    root = str(tmp_path)
    mqpy.embedded(QMGR, data_path=root).disconnect()
    eng = inprocess.running(QMGR, root)
    eng.define("QLOCAL", "FLOW", {})
    eng.define("QLOCAL", "KEPT", {})
    qm = mqpy.embedded(QMGR, data_path=root)
    yield eng, qm
    qm.disconnect()
    inprocess.stop(QMGR, root)


def _put(qm: mqpy.QueueManager, queue: str, data: bytes) -> None:
    mqpy.Queue(qm, queue, CMQC.MQOO_OUTPUT).put(
        data, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT), mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))


def test_bodies_got_are_forgotten_behind_a_message_that_stays(engine):
    """Given one persistent message that stays on a queue (a parked or dead-lettered one),
    when thousands of persistent messages are put and got on another queue, then the buffer
    pool's list of resident bodies holds about as many entries as there are messages on the
    queues, not one for every message put since the one that stays."""
    eng, qm = engine
    _put(qm, "KEPT", b"stays")
    qm.commit()
    flow = mqpy.Queue(qm, "FLOW", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    passed = 3 * datamgr.RESIDENT_SLACK
    for n in range(passed):
        flow.put(b"m%d" % n, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT),
                 mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        qm.commit()
        flow.get(None, mqpy.MD(), mqpy.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        qm.commit()
    assert eng.data.stats.evictions == 0  # (the buffer pool never filled)
    assert len(eng.data._resident) <= datamgr.RESIDENT_SLACK + 1, \
        f"{len(eng.data._resident)} entries kept after {passed} messages passed"
    assert mqpy.Queue(qm, "KEPT", CMQC.MQOO_INPUT_SHARED).get() == b"stays"
