"""An embedded queue manager per test, and its MQSC processor; stopped at teardown."""

from __future__ import annotations

import pytest

from mqpy.mqsc.processor import MQSCProcessor
from tests.support.embedded import administered
from tests.support.embedded import mqsc_lines as run  # noqa: F401 - its tests import it


@pytest.fixture
def qmgr(tmp_path):
    with administered("QM1", str(tmp_path)) as made:
        yield made


@pytest.fixture
def proc(qmgr):
    return MQSCProcessor(qmgr[1])
