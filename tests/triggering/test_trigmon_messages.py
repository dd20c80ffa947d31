"""What the trigger monitor (runmqtrm) says of a message on its initiation queue that is no
trigger message: IBM's runmqtrm puts it on the dead-letter queue with MQFB_TM_ERROR and has no
AMQ message of its own for it, so the monitor says so in a line of its own that carries no
AMQ id -- never AMQ8708, the dead-letter queue handler's start message, which monitoring
scripts match to see runmqdlq start."""

from __future__ import annotations

import io
import re
import threading

import pytest

import mqpy
from mqpy import CMQC, inprocess
from mqpy.dlq.rules import MESSAGES as DLQ_MESSAGES
from mqpy.mqsc.processor import MQSCProcessor
from mqpy.structs.tables import DLH
from mqpy.trigmon import DEFAULT_INITQ, TriggerMonitor
from tests.support.waiting import came_true

DLQ = "TRIG.DLQ"
_AMQ_ID = re.compile(r"\bAMQ\d{4}")


@pytest.fixture
def qm(tmp_path):
    """TRIGQM embedded, its dead-letter queue TRIG.DLQ."""
    root = str(tmp_path)
    qmgr = mqpy.embedded("TRIGQM", data_path=root)
    proc = MQSCProcessor(inprocess.running("TRIGQM", root))
    for text in (f"DEFINE QLOCAL({DLQ})", f"ALTER QMGR DEADQ({DLQ})"):
        assert proc.execute_text(text).ok
    yield qmgr
    inprocess.stop_all()


def _dead_letter(qmgr: mqpy.QueueManager) -> tuple[DLH, bytes]:
    md = mqpy.MD()
    data = mqpy.Queue(qmgr, DLQ, CMQC.MQOO_INPUT_AS_Q_DEF).get(None, md)
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    return DLH().unpack(data), data[CMQC.MQDLH_LENGTH_1:]


@pytest.mark.parametrize("fmt, data", [
    (CMQC.MQFMT_TRIGGER, b"XXXX" + bytes(CMQC.MQTM_LENGTH_1 - 4)),  # a wrong StrucId
    (CMQC.MQFMT_TRIGGER, b"TM  "),  # shorter than an MQTM
    (CMQC.MQFMT_STRING, b"not a trigger message at all"),
], ids=["wrong-strucid", "short", "string-format"])
def test_a_message_that_is_no_trigger_message_is_said_without_an_amq_id(qm, fmt, data):
    """Given a message on the initiation queue that is no MQTM, when the monitor takes it,
    then its output says the trigger message is not in the expected format in a line with
    no AMQ id (not runmqdlq's AMQ8708), and the message is on the dead-letter queue with
    MQFB_TM_ERROR, as it came."""
    out = io.StringIO()
    monitor = TriggerMonitor(qm, out=out, runner=lambda argv, background: 0)
    md = mqpy.MD(Format=fmt)
    monitor.handle(md, data)
    said = [line for line in out.getvalue().splitlines() if "expected format" in line]
    assert said == ["Trigger message not in the expected format (no MQTM)."]
    assert not _AMQ_ID.search(out.getvalue()), out.getvalue()
    assert monitor.started == 0
    dlh, body = _dead_letter(qm)
    assert dlh.Reason == CMQC.MQFB_TM_ERROR and body == data
    assert dlh.DestQName.rstrip(b" \x00") == DEFAULT_INITQ.encode()


def test_no_line_of_the_monitor_carries_the_dead_letter_handlers_start_id(qm):
    """Given the dead-letter queue handler's start message AMQ8708, when the monitor starts,
    takes a message that is no MQTM and ends, then no line it writes carries AMQ8708."""
    assert DLQ_MESSAGES["AMQ8708"].startswith("Dead-letter queue handler started")
    out = io.StringIO()
    monitor = TriggerMonitor(qm, out=out, runner=lambda argv, background: 0)
    qm.put1(DEFAULT_INITQ, b"junk", mqpy.MD(Format=CMQC.MQFMT_TRIGGER))
    stop = threading.Event()
    worker = threading.Thread(target=monitor.serve, args=(stop, 50))
    worker.start()
    try:
        assert came_true(lambda: "expected format" in out.getvalue())
    finally:
        stop.set()
        worker.join(10)
    assert "AMQ8708" not in out.getvalue(), out.getvalue()
