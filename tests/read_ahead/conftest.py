"""A queue manager started by strmqm with queues of each DEFREADA, for read ahead over its
bindings socket; helpers to fill a queue and look at its depth from another connection."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, inprocess
from tests.support.installation import QM, Installation, started

#: queue name -> DEFREADA
QUEUES = {"RA.NO": "NO", "RA.YES": "YES", "RA.DISABLED": "DISABLED", "RA.KILL": "NO",
          "RA.CLOSE": "NO", "RA.RULES": "NO", "RA.ORDER": "NO", "RA.WAIT": "NO"}
NP, P = CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT
IN = CMQC.MQOO_INPUT_SHARED
RA = IN | CMQC.MQOO_READ_AHEAD


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """QM1 with the read-ahead queues, started by strmqm; killed by pid at the end."""
    inst = Installation(str(tmp_path_factory.mktemp("readahead")))
    proc = inst.run("crtmqm", QM)
    assert proc.returncode == 0, proc.stderr
    eng = inprocess.start(QM, inst.root)
    try:
        for name, default in QUEUES.items():
            eng.define("QLOCAL", name, {"DEFREADA": default})
    finally:
        inprocess.stop(QM, inst.root)
    yield from started(inst)


@pytest.fixture
def qm(running):
    """A bindings connection of this test, its queues emptied first (a test that failed
    leaves nothing behind for the next), disconnected at its end."""
    conn = mqpy.QueueManager(None)
    conn.connect(QM, data_path=running.root)
    for name in QUEUES:
        drain(conn, name)
    try:
        yield conn
    finally:
        if conn.is_connected:
            conn.disconnect()


def fill(qm: mqpy.QueueManager, queue: str, bodies: list[bytes], persistence: list[int] | None = None
         ) -> None:
    """Put ``bodies`` on ``queue`` (non-persistent unless ``persistence`` says)."""
    out = mqpy.Queue(qm, queue, CMQC.MQOO_OUTPUT)
    for i, body in enumerate(bodies):
        out.put(body, mqpy.MD(Persistence=persistence[i] if persistence else NP))
    out.close()


def depth(qm: mqpy.QueueManager, queue: str) -> int:
    q = mqpy.Queue(qm, queue, CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        q.close()


def drain(qm: mqpy.QueueManager, queue: str) -> list[bytes]:
    """Every message left on ``queue``, got without read ahead."""
    q = mqpy.Queue(qm, queue, IN | CMQC.MQOO_NO_READ_AHEAD)
    out = []
    try:
        while True:
            out.append(q.get(None))
    except mqpy.MQMIError as e:
        assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE, e
    finally:
        q.close()
    return out
