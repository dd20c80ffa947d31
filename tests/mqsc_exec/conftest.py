"""An embedded queue manager per test, and its MQSC processor; stopped at teardown."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import inprocess
from mqpy.cmdserver import stop_command_server
from mqpy.mqsc.processor import MQSCProcessor


@pytest.fixture
def qmgr(tmp_path):
    qm = mqpy.embedded("QM1", data_path=str(tmp_path))
    eng = inprocess.running("QM1", str(tmp_path))
    yield qm, eng, str(tmp_path)
    stop_command_server("QM1", str(tmp_path))
    try:
        qm.disconnect()
    except Exception:  # noqa: BLE001 - the test may have disconnected already
        pass
    mqpy.stop_embedded("QM1", data_path=str(tmp_path))


@pytest.fixture
def proc(qmgr):
    return MQSCProcessor(qmgr[1])


def run(proc: MQSCProcessor, text: str) -> list[str]:
    """The response lines of a script (no heading, no echo, no summary)."""
    lines, _ = proc.run_script(text, echo=False)
    return lines[4:-3]
