"""Two queue managers in one process, each with its channel initiator, for channel tests."""

from __future__ import annotations

import os

import pytest

from mqpy import inprocess
from tests.support.qmgr import QMgr


@pytest.fixture
def two_qmgrs(tmp_path):
    made = []
    for name in ("QM1", "QM2"):
        root = str(tmp_path / name)
        inprocess.create(name, root, dead_letter_queue="SYSTEM.DEAD.LETTER.QUEUE")
        made.append(QMgr(name, root, inprocess.start(name, root)))
    yield made
    inprocess.stop_all()


@pytest.fixture
def site(tmp_path):
    from tests.support.installation import Installation

    inst = Installation(str(tmp_path))
    inst.env.pop("MQPY_NO_CHINIT", None)
    yield inst
    for name in ("QM1", "QM2"):
        inst.run("endmqm", "-i", name)
    for pid in inst.pids:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
