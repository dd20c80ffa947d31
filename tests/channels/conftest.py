"""Queue managers in one process, each with its channel initiator, for channel tests:
``two_qmgrs`` (QM1 and QM2), ``make_qmgr(name, dlq, channels)``, ``qm1`` and ``qm2``; ``site``,
an installation whose queue managers run as daemons."""

from __future__ import annotations

import pytest

from mqpy import inprocess
from tests.support import channel_pair
from tests.support.channel_pair import DLQ
from tests.support.daemon_pair import killed_at_end
from tests.support.qmgr import QMgr


@pytest.fixture
def two_qmgrs(tmp_path, created_qmgr):
    made = []
    for name in ("QM1", "QM2"):
        root = str(tmp_path / name)
        created_qmgr(name, root, "SYSTEM.DEAD.LETTER.QUEUE")
        made.append(QMgr(name, root, inprocess.start(name, root)))
    yield made
    inprocess.stop_all()


#: an installation whose daemons and channel initiators are killed by pid at the end
#: (nothing is checked after it: no endmqm to wait for)
site = pytest.fixture(killed_at_end, name="site")


@pytest.fixture
def make_qmgr(tmp_path, created_qmgr):
    """make_qmgr(name, dlq=True, channels=None) -> QMgr: a fresh embedded queue manager
    (with SYSTEM.DEAD.LETTER.QUEUE as its DLQ unless dlq=False; ``channels`` is qm.ini's
    Channels stanza)."""
    def make(name: str, dlq: bool = True, channels: dict[str, str] | None = None) -> QMgr:
        root = str(tmp_path / name)
        created_qmgr(name, root, DLQ if dlq else "", channels)
        return QMgr(name, root, inprocess.start(name, root))
    yield make
    inprocess.stop_all()


@pytest.fixture
def qm1(make_qmgr) -> QMgr:
    return make_qmgr("QM1")


@pytest.fixture
def qm2(make_qmgr) -> QMgr:
    return make_qmgr("QM2")


@pytest.fixture(autouse=True)
def _forget_live():
    """The channel initiators a test started are its own (channel_pair.finish wakes them)."""
    channel_pair._live.clear()
    yield
    channel_pair._live.clear()
