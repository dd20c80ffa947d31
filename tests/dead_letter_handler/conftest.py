"""Fixtures for the DLQ handler suite: a queue manager with a DLQ and real dead letters.

Dead letters are made the way a channel's MCA makes them: an application's message (context
filled by the queue manager at its put) is delivered to its target; when that put really fails
(queue full, put inhibited, unknown queue), the message goes to DEADQ through
``eng.dead_letter`` with the failure's reason, its MQMD and data unchanged behind the MQDLH.
"""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner

import mqpy
from mqpy import CMQC, config
from mqpy.dlq import RulesTable, Summary, parse_rules
from mqpy.dlq.handler import DeadLetterHandler
from mqpy_cli.runmqdlq import runmqdlq
from tests.support.embedded import EmbeddedQMgr, ended_at_teardown

QM = "QMDLQ"
DLQ = "DLQ"


class DLQHarness(EmbeddedQMgr):
    """One embedded queue manager whose DEADQ is ``DLQ``, and helpers around it."""

    def __init__(self, root: str) -> None:
        super().__init__(QM, root)
        self.define(DLQ, {"MAXDEPTH": 100000})
        self.eng.alter_qmgr({"DEADQ": DLQ})
        self._seq = 0

    def define(self, name: str, attributes: dict | None = None) -> None:
        self.eng.define("QLOCAL", name, attributes or {})

    # -- making dead letters ----------------------------------------------------------

    def original(self, data: bytes, **md_fields) -> tuple[mqpy.MD, bytes]:
        """An application's message as it travels: put once (so the queue manager fills its
        MsgId and context), then taken off again with its MQMD."""
        self._seq += 1
        staging = f"STAGING.{self._seq}"
        self.define(staging)
        md = mqpy.MD(**md_fields)
        md.Format = md_fields.get("Format", CMQC.MQFMT_STRING)
        md.CodedCharSetId = md_fields.get("CodedCharSetId", 1208)
        q = mqpy.Queue(self.qm, staging, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        q.put(data, md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        got = mqpy.MD()
        body = q.get(None, got, mqpy.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
        q.close()
        return got, body

    def deliver(self, target: str, data: bytes, *, qmgr: str = QM, **md_fields) -> mqpy.MD:
        """Deliver as an MCA does: put to ``target``; if the put fails, dead-letter the
        message with the put's reason. Returns the message's MQMD (as first put)."""
        md, body = self.original(data, **md_fields)
        try:
            self.qm.put1(mqpy.OD(ObjectName=target.encode(), ObjectQMgrName=qmgr.encode()),
                         body, md.copy(), mqpy.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT
                                                   | CMQC.MQPMO_NO_SYNCPOINT))
        except mqpy.MQMIError as e:
            assert self.eng.dead_letter(md.copy(), body, e.reason, target, qmgr)
            return md
        raise AssertionError(f"the put to {target} did not fail")

    def put_plain(self, queue: str, data: bytes, **md_fields) -> mqpy.MD:
        md = mqpy.MD(**md_fields)
        mqpy.Queue(self.qm, queue, CMQC.MQOO_OUTPUT).put(
            data, md, mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        return md

    # -- looking at queues --------------------------------------------------------------

    def depth(self, queue: str) -> int:
        return int(self.eng.queue_status(queue)["CURDEPTH"])

    def browse(self, queue: str) -> list[tuple[mqpy.MD, bytes]]:
        """Every message on ``queue``, in order, without removing any."""
        q = mqpy.Queue(self.qm, queue, CMQC.MQOO_BROWSE)
        out = []
        opt = CMQC.MQGMO_BROWSE_FIRST
        try:
            while True:
                md = mqpy.MD()
                try:
                    data = q.get(None, md, mqpy.GMO(Options=opt))
                except mqpy.MQMIError as e:
                    assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                    return out
                out.append((md, data))
                opt = CMQC.MQGMO_BROWSE_NEXT
        finally:
            q.close()

    # -- running the handler --------------------------------------------------------------

    def handler(self, rules: str, **kw) -> tuple[DeadLetterHandler, io.StringIO]:
        out = io.StringIO()
        kw.setdefault("out", out)
        return DeadLetterHandler(self.connect(), table(rules), **kw), out

    def run(self, rules: str, **kw) -> tuple[Summary, str]:
        handler, out = self.handler(rules, **kw)
        summary = handler.run()
        return summary, out.getvalue()


def table(text: str) -> RulesTable:
    result = parse_rules(text)
    assert isinstance(result, RulesTable), "\n".join(str(e) for e in result)
    return result


@pytest.fixture
def dlq(tmp_path):
    yield from ended_at_teardown(DLQHarness(str(tmp_path)))


@pytest.fixture
def cli(dlq, monkeypatch):
    """The harness's queue manager, found by runmqdlq through $MQPY_DATA_PATH."""
    monkeypatch.setenv(config.ENV_DATA_PATH, dlq.root)
    dlq.define("Q1")
    dlq.define("Q2")
    for queue in ("Q1", "Q2"):  # one real dead letter on each of Q1, Q2 and DLQ
        dlq.eng.alter_qmgr({"DEADQ": queue})
        dlq.deliver("NO.SUCH.QUEUE", queue.encode())
    dlq.eng.alter_qmgr({"DEADQ": DLQ})
    dlq.deliver("NO.SUCH.QUEUE", b"DLQ")
    return dlq


def invoke(args: list[str], rules: str):
    """runmqdlq ARGS < rules, as the operator runs it."""
    return CliRunner().invoke(runmqdlq, args, input=rules, catch_exceptions=False)
