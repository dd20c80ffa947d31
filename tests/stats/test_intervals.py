"""Statistics intervals as the administrator changes them: ALTER QMGR STATINT applies to the
interval in progress, RESET QMGR TYPE(STATISTICS) writes it and starts a new one of the current
STATINT (ACCTINT: ``test_accounting_intervals``)."""

from __future__ import annotations

import time

from mqpy import CMQCFC
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.stats.collector import STATISTICS_QUEUE, start_statistics

from ._support import drain


def _arrivals(qm, queue: str, command: int, until: float) -> list[float]:
    """The times (time.monotonic) at which ``command`` messages arrive on ``queue``, polled
    every 0.1 s until ``until``."""
    seen = []
    while time.monotonic() < until:
        seen += [time.monotonic() for _, m in drain(qm, queue) if m.header.Command == command]
        time.sleep(0.1)
    return seen


def _after_command(eng, qm, command: str, queue: str, record: int, watch: float,
                   restore: dict) -> tuple[float, list[float]]:
    """Run the statistics task; 0.5 s in, the MQSC ``command``; the arrival times of
    ``record`` messages on ``queue`` over ``watch`` seconds after it; then ``restore``."""
    stop = start_statistics(eng, qm)
    try:
        time.sleep(0.5)
        issued = time.monotonic()
        result = MQSCProcessor(eng).execute_text(command)
        assert result.ok, result.lines
        return issued, _arrivals(qm, queue, record, issued + watch)
    finally:
        eng.alter_qmgr(restore)
        stop()


def test_a_shorter_statint_applies_to_the_interval_in_progress(qmgr):
    """Given STATINT(1800) and the statistics task running, when the administrator issues
    ALTER QMGR STATINT(2), then the next MQI statistics record comes within 2 s of the change
    (not after 1800 s), and the following one 2 s after it."""
    _, _, qm, eng = qmgr
    eng.alter_qmgr({"STATINT": 1800, "STATQ": "OFF"})
    changed, seen = _after_command(eng, qm, "ALTER QMGR STATINT(2)", STATISTICS_QUEUE,
                                   CMQCFC.MQCMD_STATISTICS_MQI, 4.6, {"STATINT": 1800})
    assert len(seen) == 2, [s - changed for s in seen]
    assert seen[0] - changed <= 2.3 and 1.6 <= seen[1] - seen[0] <= 2.4, \
        [s - changed for s in seen]


def test_reset_qmgr_statistics_starts_a_new_interval_of_the_current_statint(qmgr):
    """Given STATINT(3) and the statistics task running, when RESET QMGR TYPE(STATISTICS) is
    issued 2 s into an interval, then a record is written at once and the next one comes a
    whole STATINT (3 s) after the reset, not at the old interval's end 1 s later."""
    _, _, qm, eng = qmgr
    eng.alter_qmgr({"STATINT": 3, "STATQ": "OFF"})
    stop = start_statistics(eng, qm)
    try:
        time.sleep(2.0)
        reset = time.monotonic()
        result = MQSCProcessor(eng).execute_text("RESET QMGR TYPE(STATISTICS)")
        assert result.ok, result.lines
        seen = _arrivals(qm, STATISTICS_QUEUE, CMQCFC.MQCMD_STATISTICS_MQI, reset + 3.6)
    finally:
        stop()
    offsets = [round(s - reset, 1) for s in seen]
    assert len(seen) == 2 and offsets[0] <= 0.5 and 2.7 <= offsets[1] <= 3.5, offsets
