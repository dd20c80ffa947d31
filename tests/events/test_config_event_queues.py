"""The command and configuration event queues as system objects: crtmqm makes them with the
others, strmqm adds them to a queue manager made before they existed (IBM's migration), and
strmqm -c recreates them. One queue manager as crtmqm leaves it (a copy), started for the
file."""

from __future__ import annotations

import pytest

from mqpy import inprocess
from mqpy.engine.defaultobjects import ADDED_OBJECTS, add_missing_objects, recreate_default_objects

EVENT_QUEUES = ["SYSTEM.ADMIN.COMMAND.EVENT", "SYSTEM.ADMIN.CONFIG.EVENT"]
QM = "QMEVQS"


@pytest.fixture(scope="module")
def started(tmp_path_factory, created_qmgr):
    root = str(tmp_path_factory.mktemp("qmevqs"))
    created_qmgr(QM, root)
    eng = inprocess.start(QM, root)
    try:
        yield eng, root
    finally:
        inprocess.stop(QM, root)


def _defined(eng) -> list[str]:
    return [name for name in EVENT_QUEUES if eng.lookup("QLOCAL", name) is not None]


def test_crtmqm_makes_the_command_and_configuration_event_queues(started):
    """Given a queue manager as crtmqm leaves it, when it starts, then both event queues are
    defined, local queues with IBM's descriptions."""
    eng, _ = started
    assert _defined(eng) == EVENT_QUEUES
    assert [eng.lookup("QLOCAL", n).attributes["DESCR"] for n in EVENT_QUEUES] == [
        a["DESCR"] for _, _, a in ADDED_OBJECTS]


def test_strmqm_adds_the_event_queues_a_queue_manager_lacks(started):
    """Given a running queue manager whose event queues were deleted, when it is ended and
    started again, then strmqm has defined them again."""
    eng, root = started
    with eng.lock:
        for name in _defined(eng):
            eng.delete("QLOCAL", name)
    inprocess.stop(QM, root)
    eng = inprocess.start(QM, root)
    assert _defined(eng) == EVENT_QUEUES


def test_adding_the_missing_objects_defines_only_those_missing(started):
    """Given a queue manager without the command event queue, when the missing objects are
    added, then it alone is defined; when added again, nothing is."""
    eng = inprocess.running(QM, started[1])
    for name in _defined(eng):
        eng.delete("QLOCAL", name)
    eng.define("QLOCAL", EVENT_QUEUES[1], {"DESCR": "kept"})
    assert add_missing_objects(eng) == [EVENT_QUEUES[0]]
    assert add_missing_objects(eng) == []
    assert eng.lookup("QLOCAL", EVENT_QUEUES[1]).attributes["DESCR"] == "kept"


def test_strmqm_c_recreates_the_event_queues(started):
    """Given a queue manager without its event queues, when strmqm -c recreates the default
    objects, then both are created (and counted)."""
    eng = inprocess.running(QM, started[1])
    for name in _defined(eng):
        eng.delete("QLOCAL", name)
    before = recreate_default_objects(eng)
    assert before.created >= 2 and _defined(eng) == EVENT_QUEUES
