"""One embedded queue manager per test module (creating one is the slow step); each test
drains the event queues it reads before it starts."""

from __future__ import annotations

import pytest

from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

from ._support import PERFM_EVENTS, QMGR_EVENTS, read_events


@pytest.fixture(scope="module")
def qmgr(tmp_path_factory):
    yield from ended_at_teardown(EmbeddedQMgr("QMEV", str(tmp_path_factory.mktemp("qmev"))))


@pytest.fixture
def qmev(qmgr):
    """The module's queue manager with its event queues empty and every switch as IBM's
    defaults leave it (DISABLED) at the end of the test."""
    read_events(qmgr.qm, QMGR_EVENTS)
    read_events(qmgr.qm, PERFM_EVENTS)
    yield qmgr
    qmgr.eng.alter_qmgr({"AUTHOREV": "DISABLED", "LOCALEV": "DISABLED",
                         "REMOTEEV": "DISABLED", "INHIBTEV": "DISABLED",
                         "PERFMEV": "DISABLED"})


@pytest.fixture
def depthq(qmev):
    """PERFMEV(ENABLED) and an empty queue of MAXDEPTH 10, QDEPTHHI 50, QDEPTHLO 20 with
    QDPHIEV and QDPMAXEV enabled."""
    eng = qmev.eng
    eng.alter_qmgr({"PERFMEV": "ENABLED"})
    eng.define("QLOCAL", "EV.DEPTH", {"MAXDEPTH": 10, "QDEPTHHI": 50, "QDEPTHLO": 20,
                                      "QDPHIEV": "ENABLED", "QDPLOEV": "DISABLED",
                                      "QDPMAXEV": "ENABLED"}, replace=True)
    eng.clear("EV.DEPTH")
    return qmev
