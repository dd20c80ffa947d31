"""An embedded queue manager per test and its MQSC processor (``qmgr``, ``mqsc``); stopped at
teardown. The bindings and client modes come from tests/mqi/_modes (``connect``)."""

from __future__ import annotations

import pytest

from tests.support.embedded import EmbeddedQMgr, ended_at_teardown
from tests.support.fastpath import STANDARD
from tests.support.site_here import here_started_site

QM = "PSQM"


class Embedded(EmbeddedQMgr):
    """The queue manager under test: its engine, connections, MQSC and restarts."""

    def __init__(self, root: str, *, create: bool = True) -> None:
        super().__init__(QM, root, create=create)


@pytest.fixture
def qmgr(tmp_path, created_qmgr):
    created_qmgr(QM, str(tmp_path))
    yield from ended_at_teardown(Embedded(str(tmp_path), create=False))


class Mode:
    """One way to reach a queue manager (``connect()``) and its MQSC (``mqsc(script)``)."""

    def __init__(self, name: str, connect, mqsc) -> None:
        self.name, self.connect, self.mqsc = name, connect, mqsc


@pytest.fixture(scope="module")
def pubsub_site(tmp_path_factory):
    """A daemon started by strmqm with its channel initiator, shared by a module."""
    yield from here_started_site(str(tmp_path_factory.mktemp("pubsub")), STANDARD)


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
