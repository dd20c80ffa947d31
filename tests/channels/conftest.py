"""Queue managers in one process, each with its channel initiator, for channel tests:
``two_qmgrs`` (QM1 and QM2), ``make_qmgr(name, dlq, channels)``, ``qm1`` and ``qm2``; ``site``,
an installation whose queue managers run as daemons."""

from __future__ import annotations

import os
import shutil

import pytest

from mqpy import config, inprocess
from tests.support import channel_pair
from tests.support.channel_pair import DLQ
from tests.support.daemon_pair import killed_at_end
from tests.support.qmgr import QMgr


@pytest.fixture(scope="session")
def _created(tmp_path_factory):
    """created(name, root, dlq, channels): queue manager ``name`` in ``root`` as crtmqm
    leaves it (never started), with ``dlq`` as its dead-letter queue and ``channels`` as
    qm.ini's Channels stanza: made once per session for each such set, then copied (mqs.ini
    naming the copy's directory), so that crtmqm's forced writes are paid once, not by
    every test."""
    base = tmp_path_factory.mktemp("created")
    made: dict[tuple, str] = {}

    def created(name: str, root: str, dlq: str, channels: dict[str, str] | None) -> None:
        key = (name, dlq, tuple(sorted(channels.items())) if channels is not None else None)
        if key not in made:
            template = str(base / str(len(made)))
            cfg = None if channels is None else config.QMgrConfig(name, "", channels=channels)
            inprocess.create(name, template, dead_letter_queue=dlq, cfg=cfg)
            made[key] = template
        shutil.copytree(made[key], root)
        ini = os.path.join(root, "mqs.ini")
        with open(ini) as f:
            text = f.read()
        with open(ini, "w") as f:
            f.write(text.replace(made[key], root))

    return created


@pytest.fixture
def two_qmgrs(tmp_path, _created):
    made = []
    for name in ("QM1", "QM2"):
        root = str(tmp_path / name)
        _created(name, root, "SYSTEM.DEAD.LETTER.QUEUE", None)
        made.append(QMgr(name, root, inprocess.start(name, root)))
    yield made
    inprocess.stop_all()


#: an installation whose daemons and channel initiators are killed by pid at the end
#: (nothing is checked after it: no endmqm to wait for)
site = pytest.fixture(killed_at_end, name="site")


@pytest.fixture
def make_qmgr(tmp_path, _created):
    """make_qmgr(name, dlq=True, channels=None) -> QMgr: a fresh embedded queue manager
    (with SYSTEM.DEAD.LETTER.QUEUE as its DLQ unless dlq=False; ``channels`` is qm.ini's
    Channels stanza)."""
    def make(name: str, dlq: bool = True, channels: dict[str, str] | None = None) -> QMgr:
        root = str(tmp_path / name)
        _created(name, root, DLQ if dlq else "", channels)
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
