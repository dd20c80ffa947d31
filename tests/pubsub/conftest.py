"""An embedded queue manager per test and its MQSC processor (``qmgr``, ``mqsc``); stopped at
teardown. The bindings and client modes come from tests/mqi/_modes (``connect``)."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import inprocess
from mqpy.mqsc.processor import MQSCProcessor
from tests.mqi._modes import started_site
from tests.support.fastpath import STANDARD

QM = "PSQM"


class Embedded:
    """The queue manager under test: its engine, connections, MQSC and restarts."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.qm = mqpy.embedded(QM, data_path=root)

    @property
    def eng(self):
        eng = inprocess.running(QM, self.root)
        assert eng is not None
        return eng

    def connect(self) -> mqpy.QueueManager:
        return mqpy.embedded(QM, data_path=self.root)

    def mqsc(self, text: str) -> list[str]:
        """The response lines of an MQSC script (no heading, echo or summary)."""
        lines, _ = MQSCProcessor(self.eng).run_script(text, echo=False)
        return lines[4:-3]

    def restart(self) -> mqpy.QueueManager:
        mqpy.stop_embedded(QM, data_path=self.root)
        self.qm = mqpy.embedded(QM, data_path=self.root, create=False)
        return self.qm


@pytest.fixture
def qmgr(tmp_path):
    harness = Embedded(str(tmp_path))
    yield harness
    if inprocess.running(QM, str(tmp_path)) is not None:
        mqpy.stop_embedded(QM, data_path=str(tmp_path))


class Mode:
    """One way to reach a queue manager (``connect()``) and its MQSC (``mqsc(script)``)."""

    def __init__(self, name: str, connect, mqsc) -> None:
        self.name, self.connect, self.mqsc = name, connect, mqsc


@pytest.fixture(scope="module")
def pubsub_site(tmp_path_factory):
    """A daemon started by strmqm with its channel initiator, shared by a module."""
    yield from started_site(str(tmp_path_factory.mktemp("pubsub")), STANDARD)


@pytest.fixture(params=["embedded", pytest.param("bindings", marks=pytest.mark.system),
                        pytest.param("client", marks=pytest.mark.system)])
def mode(request, tmp_path) -> Mode:
    """Each of the three ways an application connects."""
    if request.param == "embedded":
        harness = request.getfixturevalue("qmgr")
        return Mode("embedded", harness.connect, harness.mqsc)
    site = request.getfixturevalue("pubsub_site")
    return Mode(request.param, site.bindings if request.param == "bindings" else site.client,
                site.mqsc)
