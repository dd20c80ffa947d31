"""Performance events on SYSTEM.ADMIN.PERFM.EVENT: Queue Depth High, Low and Full, with IBM's
enabling rules (the queue's QDPHIEV, QDPLOEV, QDPMAXEV change as the events fire) and the
queue's statistics since their last reset, which the event resets."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy.engine import fastpath
from mqpy.engine.instrumentation import DepthSwitches, depth_rule

from ._support import high_then_full, perfm_events, put

ALL = DepthSwitches(high=True, low=True, full=True)


# ------------------------------------------------------------------ the state machine


@pytest.mark.parametrize(("happened", "depth", "switches", "fired", "after"), [
    ("put", 8, DepthSwitches(True, False, False), CMQC.MQRC_Q_DEPTH_HIGH,
     DepthSwitches(False, True, True)),
    ("put", 7, DepthSwitches(True, False, False), None, DepthSwitches(True, False, False)),
    ("put", 9, DepthSwitches(False, True, True), None, DepthSwitches(False, True, True)),
    ("get", 2, DepthSwitches(False, True, True), CMQC.MQRC_Q_DEPTH_LOW,
     DepthSwitches(True, False, True)),
    ("get", 3, DepthSwitches(False, True, True), None, DepthSwitches(False, True, True)),
    ("full", 10, DepthSwitches(False, False, True), CMQC.MQRC_Q_FULL,
     DepthSwitches(False, True, False)),
    ("full", 10, DepthSwitches(True, True, False), None, DepthSwitches(True, True, False)),
], ids=["high fires", "below high", "high disabled", "low fires", "above low", "full fires",
        "full disabled"])
def test_depth_rules(happened, depth, switches, fired, after):
    """Given MAXDEPTH 10, QDEPTHHI 80 and QDEPTHLO 20, when a put, get or refused put leaves
    ``depth``, then the event fires only while enabled and at its limit, High enabling Low and
    Full and disabling itself, Low enabling High and Full, Full enabling Low and disabling
    itself."""
    assert depth_rule(happened, depth, 10, 80, 20, switches) == (fired, after)


# ------------------------------------------------------------------ in the queue manager


def test_queue_depth_high_then_full_on_the_general_put_path(depthq, monkeypatch):
    """Given the queue above and every put on the general path, when ten messages are put
    and an eleventh is refused 2053, then a Queue Depth High event (at the fifth: HighQDepth
    5, MsgEnqCount 5) and a Queue Full event (counted from the High event's reset) are on
    SYSTEM.ADMIN.PERFM.EVENT, and the queue now has QDPHIEV and QDPMAXEV disabled and QDPLOEV
    enabled."""
    monkeypatch.setattr(fastpath, "ENABLED", False)
    high_then_full(depthq)


def test_no_depth_event_while_perfmev_is_disabled(depthq, monkeypatch):
    """Given the queue above but PERFMEV(DISABLED), when it fills on the general put path,
    then no event is put and its switches stay as they were."""
    monkeypatch.setattr(fastpath, "ENABLED", False)
    depthq.eng.alter_qmgr({"PERFMEV": "DISABLED"})
    put(depthq.qm, "EV.DEPTH", 10)
    assert perfm_events(depthq.qm) == []
    a = depthq.eng.lookup("QLOCAL", "EV.DEPTH").attributes
    assert (a["QDPHIEV"], a["QDPMAXEV"]) == ("ENABLED", "ENABLED")
