"""Hostile dead letters against the dead-letter queue handler (runmqdlq): any application that
may put to the dead-letter queue can put a message with an MQDLH of its own making, and a
rule's ``&DESTQ`` / ``&REPLYQ`` take the names the message carries. What such a message holds
never forges a line of the handler's output, and the handler goes on with the next one."""

from __future__ import annotations

import io

import pytest

import mqpy
from mqpy import CMQC
from mqpy.dlq import RulesTable, parse_rules
from mqpy.dlq.handler import DeadLetterHandler
from mqpy.structs.tables import DLH
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

DLQ = "DLQ"
FORGED = "AMQ8709I: Dead-letter queue handler ending."


@pytest.fixture
def qmgr(tmp_path):
    q = EmbeddedQMgr("QMDLQ", str(tmp_path))
    q.eng.define("QLOCAL", DLQ, {})
    q.eng.define("QLOCAL", "GOOD", {})
    q.eng.alter_qmgr({"DEADQ": DLQ})
    yield from ended_at_teardown(q)


def _dead_letter(qm: mqpy.QueueManager, dest_q: bytes, reply_q: bytes = b"") -> None:
    """A message with an MQDLH naming ``dest_q``, put to the DLQ as an application may."""
    dlh = DLH(Reason=CMQC.MQRC_Q_FULL, DestQName=dest_q, DestQMgrName=b"QMDLQ",
              Format=CMQC.MQFMT_STRING)
    md = mqpy.MD(Format=CMQC.MQFMT_DEAD_LETTER_HEADER, ReplyToQ=reply_q)
    qm.put1(DLQ, dlh.pack() + b"body", md)


def _run(qm: mqpy.QueueManager, rules: str) -> str:
    table = parse_rules(rules)
    assert isinstance(table, RulesTable)
    out = io.StringIO()
    DeadLetterHandler(qm, table, out=out).run()
    return out.getvalue()


def test_a_destination_name_with_a_line_break_forges_no_line_of_the_output(qmgr):
    """Given a dead letter whose MQDLH DestQName holds a line break and an AMQ line, and a
    rule forwarding to &DESTQ, when the forward fails, then the failure is reported on one
    line, the name escaped, and the only AMQ8709I line is the handler's own."""
    qm = qmgr.connect()
    _dead_letter(qm, ("X\n" + FORGED)[:48].encode("latin-1"))
    out = _run(qm, f"INPUTQ({DLQ}) WAIT(NO)\nACTION(FWD) FWDQ(&DESTQ) RETRY(1)\n")
    assert [line for line in out.splitlines() if line.startswith("AMQ8709I")] == [FORGED]
    assert "X\\nAMQ8709I" in out


def test_a_reply_queue_name_with_control_characters_forges_no_line(qmgr):
    """Given a dead letter whose ReplyToQ holds an escape sequence and a carriage return,
    and a rule forwarding to &REPLYQ, then the failure line shows them escaped."""
    qm = qmgr.connect()
    _dead_letter(qm, b"GONE", reply_q=b"R\x1b[2J\rFORGED")
    out = _run(qm, f"INPUTQ({DLQ}) WAIT(NO)\nACTION(FWD) FWDQ(&REPLYQ) RETRY(1)\n")
    assert "\x1b" not in out and "\r" not in out
    assert "R\\x1b[2J\\rFORGED" in out
