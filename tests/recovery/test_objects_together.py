"""Object definitions made together (``DataManager.objects_together``): crtmqm's system and
default objects, a first start's security defaults. Logged as they are made, then forced once
and written to pageset 0 in one transaction: the write-ahead rule holds, and they are all
there after a restart."""

from __future__ import annotations

from mqpy import inprocess
from mqpy.engine.objects import SYSTEM_OBJECTS, namespace
from mqpy.engine.qmgr import QueueManagerEngine
from mqpy.security import policy

DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def _on_pageset(eng: QueueManagerEngine) -> set[tuple[str, str]]:
    return {(o["objtype"], o["name"]) for o in eng.data.pageset(0).load_objects()}


def test_crtmqm_forces_its_objects_once_and_writes_them_all_to_pageset_0(tmp_path):
    """Given a queue manager being created with a dead-letter queue, when its system and
    default objects are defined, then the log is forced for them once (not once each), and
    pageset 0 holds every one of them and the queue manager object."""
    eng = QueueManagerEngine.create(str(tmp_path / "QMO"), "QMO", dead_letter_queue=DLQ)
    try:
        assert len(SYSTEM_OBJECTS) > 10
        assert eng.data.log.stats.forced <= 2  # the objects' force, the checkpoint's
        stored = _on_pageset(eng)
        for objtype, name, _ in SYSTEM_OBJECTS:
            assert (namespace(objtype), name) in {(namespace(t), n) for t, n in stored}
        assert ("QLOCAL", DLQ) in stored and ("QMGR", "QMO") in stored
    finally:
        eng.close()


def test_objects_made_together_reach_pageset_0_only_after_their_force(tmp_path):
    """Given a running queue manager, when objects are defined together, then until the
    block ends nothing of them is forced or on pageset 0 (the catalog has them, under the
    engine lock); at its end the log is forced past their records first, then pageset 0
    has them; an object defined alone is forced and written at once, as before."""
    eng = QueueManagerEngine.create(str(tmp_path / "QMO"), "QMO")
    try:
        with eng.lock:
            with eng.data.objects_together():
                forced = eng.data.log.flushed_lsn
                eng.define("QLOCAL", "TOGETHER.A", {})
                eng.define("QALIAS", "TOGETHER.B", {"TARGET": "TOGETHER.A"})
                assert eng.lookup("QLOCAL", "TOGETHER.A") is not None
                assert eng.data.log.flushed_lsn == forced
                assert not {n for _, n in _on_pageset(eng)} & {"TOGETHER.A", "TOGETHER.B"}
                end = eng.data.log.end_lsn
            assert eng.data.log.flushed_lsn >= end
            assert {n for _, n in _on_pageset(eng)} >= {"TOGETHER.A", "TOGETHER.B"}
        eng.define("QLOCAL", "ALONE", {})
        assert "ALONE" in {n for _, n in _on_pageset(eng)}
    finally:
        eng.close()


_TYPES = ("QLOCAL", "QMODEL", "CHANNEL", "AUTHINFO", "CHLAUTH")


def _objects(eng: QueueManagerEngine) -> set[tuple[str, str]]:
    return {(o.objtype, o.name) for t in _TYPES for o in eng.catalog.by_type(t)}


def test_created_objects_are_there_after_a_restart(tmp_path):
    """Given a queue manager created by crtmqm's code and started once, its security
    defaults made then (as a daemon's first start makes them, together), when it is
    restarted, then every system and default object, the dead-letter queue and the
    security defaults are there, and the defaults are not made again."""
    root = str(tmp_path)
    inprocess.create("QMR", root, dead_letter_queue=DLQ)
    first = inprocess.start("QMR", root)
    assert policy.ensure_defaults(first)
    made = _objects(first)
    assert any(t == "CHLAUTH" for t, _ in made) and ("AUTHINFO", policy.DEFAULT_AUTHINFO) in made
    inprocess.stop("QMR", root)
    again = inprocess.start("QMR", root)
    try:
        assert _objects(again) == made
        assert not policy.ensure_defaults(again)
        assert again.lookup("QLOCAL", DLQ) is not None
        assert again.catalog.qmgr["DEADQ"] == DLQ
        assert again.catalog.qmgr["CONNAUTH"] == policy.DEFAULT_AUTHINFO
    finally:
        inprocess.stop("QMR", root)
