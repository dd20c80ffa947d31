"""Creating a queue manager (crtmqm, an embedded queue manager's first start): its system
objects are logged and forced once together, then written to pageset 0 in one transaction,
not a force and a transaction for each; what it defined is there after a restart, and a
creation that fails writes none of them to pageset 0."""

from __future__ import annotations

import os

import pytest

from mqpy.engine import datamgr, pageset
from mqpy.engine.objects import SYSTEM_OBJECTS
from mqpy.engine.qmgr import QueueManagerEngine


def _counting(monkeypatch, cls, name: str) -> list:
    calls: list = []
    original = getattr(cls, name)

    def counted(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, counted)
    return calls


def test_a_new_queue_managers_objects_are_forced_once_and_stored_in_one_transaction(
        tmp_path, monkeypatch):
    """Given a queue manager being created with a dead-letter queue, when its system
    objects are defined, then the log is forced once for them and pageset 0 takes them
    in one write; after a restart every system object, the dead-letter queue and the
    queue manager's DEADQ are there."""
    qmdir = os.path.join(tmp_path, "QM")
    forces = _counting(monkeypatch, datamgr.DataManager, "force")
    writes = _counting(monkeypatch, pageset.Pageset, "store_objects")
    eng = QueueManagerEngine.create(qmdir, "QM", dead_letter_queue="DLQ")
    assert len(forces) == 1
    assert len(writes) == 1 and len(writes[0][0]) >= len(SYSTEM_OBJECTS) + 2
    eng.close()
    monkeypatch.undo()

    eng = QueueManagerEngine.open(qmdir, "QM")
    try:
        for objtype, name, _ in SYSTEM_OBJECTS:
            assert eng.catalog.lookup(objtype, name) is not None, (objtype, name)
        assert eng.catalog.lookup("QLOCAL", "DLQ") is not None
        assert eng.catalog.qmgr["DEADQ"] == "DLQ"
    finally:
        eng.close()


def test_a_define_after_creation_is_forced_and_stored_on_its_own(tmp_path, monkeypatch):
    """Given a created queue manager, when a queue is defined, then that definition is
    forced and written to pageset 0 before DEFINE returns, as before."""
    eng = QueueManagerEngine.create(os.path.join(tmp_path, "QM"), "QM")
    try:
        forces = _counting(monkeypatch, datamgr.DataManager, "force")
        writes = _counting(monkeypatch, pageset.Pageset, "store_objects")
        eng.define("QLOCAL", "APP.Q", {})
        assert len(forces) == 1
        assert [[change[:2] for change in w[0]] for w in writes] == [[("QUEUE", "APP.Q")]]
    finally:
        eng.close()


def test_a_creation_that_fails_writes_no_object_to_the_pageset(tmp_path, monkeypatch):
    """Given a queue manager whose creation fails at its dead-letter queue's DEFINE, then
    none of the objects it defined before is written to pageset 0."""
    writes = _counting(monkeypatch, pageset.Pageset, "store_objects")
    with pytest.raises(Exception):  # noqa: B017,PT011 - a name too long: any refusal will do
        QueueManagerEngine.create(os.path.join(tmp_path, "QM"), "QM",
                                  dead_letter_queue="D" * 49)
    assert writes == []
