"""An embedded queue manager per test, with statistics switched on."""

from __future__ import annotations

import itertools

import pytest

from tests.support.embedded import administered

_names = itertools.count(1)


@pytest.fixture
def qmgr(tmp_path):
    """(name, data path, QueueManager, engine) of a fresh embedded queue manager."""
    name = f"STQM{next(_names)}"
    with administered(name, str(tmp_path)) as (qm, eng, root):
        eng.alter_qmgr({"STATMQI": "ON", "STATQ": "ON"})
        yield name, root, qm, eng
