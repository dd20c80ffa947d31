"""An embedded queue manager per test, with statistics switched on."""

from __future__ import annotations

import itertools

import pytest

import mqpy
from mqpy import inprocess

_names = itertools.count(1)


@pytest.fixture
def qmgr(tmp_path):
    """(name, data path, QueueManager, engine) of a fresh embedded queue manager."""
    name = f"STQM{next(_names)}"
    qm = mqpy.embedded(name, data_path=str(tmp_path))
    eng = inprocess.running(name, str(tmp_path))
    eng.alter_qmgr({"STATMQI": "ON", "STATQ": "ON"})
    yield name, str(tmp_path), qm, eng
    try:
        qm.disconnect()
    except mqpy.Error:
        pass
    inprocess.stop(name, str(tmp_path))
