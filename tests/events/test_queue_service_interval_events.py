"""Queue Service Interval High and OK on SYSTEM.ADMIN.PERFM.EVENT (PERFMEV ENABLED and the
queue's QSVCIEV, QSVCINT), with IBM's service timer rules: the timer starts at a put to an
empty queue or a get that leaves messages and goes OFF when a get empties the queue; High
when it has run longer than QSVCINT at a put or get (QSVCIEV becomes OK), OK at a get within
QSVCINT after that (QSVCIEV becomes HIGH). IBM makes the check at the next put or get: the
clock here is the instrumentation module's, moved by the test, never slept on."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy.engine import fastpath, instrumentation
from mqpy.engine.instrumentation import service_rule

from ._support import get, perfm_events, put

HIGH, OK = CMQC.MQRC_Q_SERVICE_INTERVAL_HIGH, CMQC.MQRC_Q_SERVICE_INTERVAL_OK


# ------------------------------------------------------------------ the state machine


@pytest.mark.parametrize(("happened", "depth", "started", "now", "qsvciev", "expected"), [
    ("put", 1, None, 10.0, "HIGH", (None, "HIGH", 10.0)),
    ("put", 2, 10.0, 10.5, "HIGH", (None, "HIGH", 10.0)),
    ("put", 3, 10.0, 12.0, "HIGH", (HIGH, "OK", 10.0)),
    ("put", 3, 10.0, 12.0, "OK", (None, "OK", 10.0)),
    ("get", 0, 10.0, 12.0, "HIGH", (HIGH, "OK", None)),
    ("get", 1, 10.0, 10.5, "OK", (OK, "HIGH", 10.5)),
    ("get", 0, 10.0, 11.0, "OK", (OK, "HIGH", None)),
    ("get", 2, 10.0, 12.0, "OK", (None, "OK", 12.0)),
    ("get", 2, 10.0, 10.5, "HIGH", (None, "HIGH", 10.5)),
], ids=["put to empty starts the timer", "put within the interval",
        "put after the interval is High", "a put is never OK",
        "get after the interval is High and stops the timer",
        "get within the interval is OK and restarts the timer", "OK exactly at the interval",
        "late get with OK enabled restarts the timer only", "timely get with High enabled"])
def test_service_rules(happened, depth, started, now, qsvciev, expected):
    """Given QSVCINT 1000 ms and the service timer started at ``started`` (None: OFF), when a
    put or get leaves ``depth`` at ``now``, then the event, QSVCIEV and the timer are IBM's."""
    assert service_rule(happened, depth, started, now, 1000, qsvciev) == expected


# ------------------------------------------------------------------ in the queue manager


class _Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def serviced(qmev, monkeypatch):
    """PERFMEV(ENABLED) and an empty queue with QSVCIEV(HIGH) QSVCINT(1000), the service
    timer's clock the test's."""
    clock = _Clock()
    monkeypatch.setattr(instrumentation, "_clock", clock)
    eng = qmev.eng
    eng.alter_qmgr({"PERFMEV": "ENABLED"})
    eng.define("QLOCAL", "EV.SVC", {"QSVCIEV": "HIGH", "QSVCINT": 1000,
                                    "QDPHIEV": "DISABLED", "QDPMAXEV": "DISABLED"},
               replace=True)
    eng.clear("EV.SVC")
    return qmev, clock


def _qsvciev(qmev) -> str:
    return qmev.eng.lookup("QLOCAL", "EV.SVC").attributes["QSVCIEV"]


@pytest.mark.parametrize("fast", [True, False], ids=["fast paths", "general paths"])
def test_a_late_get_is_high_and_a_timely_one_after_it_ok(serviced, monkeypatch, fast):
    """Given the queue above (IBM's example 1), when a message put waits 1.5 s for its get,
    and the next waits 0.2 s, then the first get generates Queue Service Interval High
    (QSVCIEV becomes OK) and the second Queue Service Interval OK (QSVCIEV HIGH again), each
    with the queue's statistics since the last reset."""
    monkeypatch.setattr(fastpath, "ENABLED", fast)
    qmev, clock = serviced
    put(qmev.qm, "EV.SVC", 1)
    clock.now += 1.5
    get(qmev.qm, "EV.SVC", 1)
    got = perfm_events(qmev.qm)
    assert [r for r, _ in got] == [HIGH]
    assert got[0][1][CMQC.MQCA_BASE_Q_NAME] == "EV.SVC"
    assert (got[0][1][CMQC.MQIA_MSG_ENQ_COUNT], got[0][1][CMQC.MQIA_MSG_DEQ_COUNT],
            got[0][1][CMQC.MQIA_HIGH_Q_DEPTH]) == (1, 1, 1)
    assert _qsvciev(qmev) == "OK"
    put(qmev.qm, "EV.SVC", 1)
    clock.now += 0.2
    get(qmev.qm, "EV.SVC", 1)
    got = perfm_events(qmev.qm)
    assert [r for r, _ in got] == [OK]
    assert (got[0][1][CMQC.MQIA_MSG_ENQ_COUNT], got[0][1][CMQC.MQIA_MSG_DEQ_COUNT]) == (1, 1)
    assert _qsvciev(qmev) == "HIGH"


def test_a_put_to_a_queue_whose_messages_wait_too_long_is_high(serviced):
    """Given the queue above (IBM's example 3), when three messages are put, the third 1.5 s
    after the first with no get between, then that put generates Queue Service Interval
    High; a get 1.2 s later (late, and OK is what is enabled) generates nothing and restarts
    the timer, and a get 0.3 s after it generates OK."""
    qmev, clock = serviced
    put(qmev.qm, "EV.SVC", 2)
    clock.now += 1.5
    put(qmev.qm, "EV.SVC", 1)
    assert [r for r, _ in perfm_events(qmev.qm)] == [HIGH]
    clock.now += 1.2
    get(qmev.qm, "EV.SVC", 1)
    assert perfm_events(qmev.qm) == []
    clock.now += 0.3
    get(qmev.qm, "EV.SVC", 1)
    assert [r for r, _ in perfm_events(qmev.qm)] == [OK]
    get(qmev.qm, "EV.SVC", 1)


def test_no_service_interval_event_with_qsvciev_none_or_perfmev_disabled(serviced):
    """Given QSVCIEV(NONE), or QSVCIEV(HIGH) with PERFMEV(DISABLED), when a message waits 5 s
    for its get, then no event is put and QSVCIEV stays as it was."""
    qmev, clock = serviced
    qmev.eng.alter("QLOCAL", "EV.SVC", {"QSVCIEV": "NONE"})
    put(qmev.qm, "EV.SVC", 1)
    clock.now += 5
    get(qmev.qm, "EV.SVC", 1)
    qmev.eng.alter("QLOCAL", "EV.SVC", {"QSVCIEV": "HIGH"})
    qmev.eng.alter_qmgr({"PERFMEV": "DISABLED"})
    put(qmev.qm, "EV.SVC", 1)
    clock.now += 5
    get(qmev.qm, "EV.SVC", 1)
    assert perfm_events(qmev.qm) == []
    assert _qsvciev(qmev) == "HIGH"
