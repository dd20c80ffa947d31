"""Fixtures for the MQI behaviour suite: one queue manager per test (``qmgr``, ``qm``), or
queue managers named as the spec's examples (``qma``, ``qmb``, ``qm1``, ``make_qmgr(name)``).

Each test gets its own data path (``tmp_path``), so queue managers never share files, and the
engine is stopped at teardown whatever the test did to it (restarts included).

The worked resolution vectors of the Intercommunication book happen "at QMA" and "at QMB", so
a test asks for the queue manager by the name its vector uses. Creating a queue manager
(crtmqm's work, with its forced log writes) is the slowest step of every test, so each such
name is created once per session, stopped, and copied for each test like a restored backup;
the copy is then started normally (strmqm).
"""

from __future__ import annotations

import os
import shutil

import pytest

from mqpy import inprocess
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

# the three ways to connect (embedded, bindings of a daemon, client of its channel initiator),
# each reaching one queue manager for a module's tests
from ._modes import connect_to_one_per_module, embedded, embedded_for_module, site  # noqa: F401

QM = "QM1"


class QMgrHarness(EmbeddedQMgr):
    """The queue manager under test, seen from outside: connections, admin, restarts."""

    def __init__(self, root: str, *, create: bool = True) -> None:
        super().__init__(QM, root, create=create)

    def define(self, name: str, attributes: dict | None = None, objtype: str = "QLOCAL"):
        return self.eng.define(objtype, name, attributes or {})


@pytest.fixture
def qmgr(tmp_path, created_qmgr):
    """QM1 created in the test's own data path (``tmp_path``, a copy of crtmqm's) and
    started."""
    created_qmgr(QM, str(tmp_path))
    yield from ended_at_teardown(QMgrHarness(str(tmp_path), create=False))


@pytest.fixture
def qm(qmgr):
    """A connection to a fresh queue manager that has local queue Q1."""
    qmgr.define("Q1")
    return qmgr.qm


# -- queue managers named as the spec's examples --------------------------------------------


class QMgr(EmbeddedQMgr):
    """One queue manager under test, seen from outside: its engine, a connection, admin."""

    def define(self, objtype: str, name: str, **attributes: object):
        return self.eng.define(objtype, name, attributes)

    def xmitq(self, name: str, **attributes: object):
        return self.eng.define("QLOCAL", name, {"USAGE": "XMITQ", **attributes})


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
