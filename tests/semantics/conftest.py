"""Fixtures for the MQI-semantics suite: queue managers named as the spec's examples.

The worked resolution vectors of the Intercommunication book happen "at QMA" and "at QMB", so
a test asks for the queue manager by the name its vector uses (``qma``, ``qmb``) or builds one
with ``make_qmgr(name)``. Each queue manager lives under the test's own ``tmp_path`` and is
stopped at teardown whatever the test did.

Creating a queue manager (crtmqm's work, with its forced log writes) is the slowest step of
every test, so each name is created once per session, stopped, and copied for each test like a
restored backup; the copy is then started normally (strmqm).
"""

from __future__ import annotations

import os
import shutil

import pytest

import mqpy
from mqpy import inprocess


class QMgr:
    """One queue manager under test, seen from outside: its engine, a connection, admin."""

    def __init__(self, name: str, root: str, *, create: bool = True) -> None:
        self.name = name
        self.root = root
        self.qm = mqpy.embedded(name, data_path=root, create=create)

    @property
    def eng(self):
        eng = inprocess.running(self.name, self.root)
        assert eng is not None, f"queue manager {self.name} is not running"
        return eng

    def define(self, objtype: str, name: str, **attributes: object):
        return self.eng.define(objtype, name, attributes)

    def xmitq(self, name: str, **attributes: object):
        return self.eng.define("QLOCAL", name, {"USAGE": "XMITQ", **attributes})

    def connect(self) -> mqpy.QueueManager:
        return mqpy.embedded(self.name, data_path=self.root)


@pytest.fixture(scope="session")
def _templates(tmp_path_factory):
    """name -> root of a freshly created, cleanly stopped queue manager of that name."""
    base = tmp_path_factory.mktemp("qmgr-templates")
    made: dict[str, str] = {}

    def template(name: str) -> str:
        if name not in made:
            root = os.path.join(str(base), name)
            os.makedirs(root)
            QMgr(name, root)
            inprocess.stop(name, root)
            made[name] = root
        return made[name]

    return template


def _restore(template_root: str, root: str) -> None:
    shutil.copytree(template_root, root)
    ini = os.path.join(root, "mqs.ini")
    if os.path.exists(ini):
        with open(ini) as f:
            text = f.read()
        with open(ini, "w") as f:
            f.write(text.replace(template_root, root))


@pytest.fixture
def make_qmgr(tmp_path, _templates):
    made: list[QMgr] = []

    def make(name: str) -> QMgr:
        root = os.path.join(str(tmp_path), name)
        _restore(_templates(name), root)
        q = QMgr(name, root, create=False)
        made.append(q)
        return q

    try:
        yield make
    finally:
        for q in made:
            inprocess.stop(q.name, q.root)


@pytest.fixture
def qma(make_qmgr) -> QMgr:
    return make_qmgr("QMA")


@pytest.fixture
def qmb(make_qmgr) -> QMgr:
    return make_qmgr("QMB")


@pytest.fixture
def qm1(make_qmgr) -> QMgr:
    """QM1 with a dead-letter queue and local queue Q1: the everyday test queue manager."""
    q = make_qmgr("QM1")
    q.define("QLOCAL", "Q1")
    q.define("QLOCAL", "DLQ")
    q.eng.alter_qmgr({"DEADQ": "DLQ"})
    return q
