"""What each ACTION does to a real dead letter: DISCARD, RETRY, FWD (with and without the
MQDLH), IGNORE; context and MQMD kept as they were."""

from __future__ import annotations

import threading
import time

import mqpy
from mqpy import CMQC

from .conftest import DLQ, QM

DLH_LEN = 172


def _text(b: bytes) -> str:
    return b.rstrip(b" \0").decode("latin-1")


def test_discard_removes_the_message(dlq):
    """Given a message dead-lettered because its queue does not exist, when the rule for
    REASON(MQRC_UNKNOWN_OBJECT_NAME) says DISCARD, then the DLQ is empty and the summary counts
    one discard."""
    dlq.deliver("NO.SUCH.QUEUE", b"lost cause")
    assert dlq.depth(DLQ) == 1
    summary, out = dlq.run("WAIT(NO)\nREASON(MQRC_UNKNOWN_OBJECT_NAME) ACTION(DISCARD)\n")
    assert dlq.depth(DLQ) == 0
    assert (summary.seen, summary.discarded) == (1, 1)
    assert "DISCARDED(1)" in out


def test_retry_reaches_the_original_queue_once_put_is_enabled(dlq):
    """Given a message dead-lettered with 2051 by a PUT(DISABLED) queue, when the handler
    retries while the queue is still inhibited, then the attempt fails and the message stays;
    once PUT(ENABLED), the next attempt (RETRYINT later) puts it on its queue without the
    MQDLH, with the original Format, CCSID, MsgId and context, and the DLQ is empty."""
    dlq.define("TARGET", {"PUT": "DISABLED"})
    sent = dlq.deliver("TARGET", b"payload", CodedCharSetId=819)
    rules = "RETRYINT(0) WAIT(NO)\nREASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(1)\n"
    summary, _ = dlq.run(rules)
    assert dlq.depth(DLQ) == 1 and dlq.depth("TARGET") == 0
    assert summary.failed_attempts == 1 and summary.retried == 0
    [(still, _)] = dlq.browse(DLQ)
    assert still.BackoutCount == 0  # a failed attempt leaves the MQMD as it was

    dlq.eng.alter("QLOCAL", "TARGET", {"PUT": "ENABLED"})
    summary, _ = dlq.run("RETRYINT(0) WAIT(NO)\nREASON(MQRC_PUT_INHIBITED) ACTION(RETRY)\n")
    assert summary.retried == 1
    assert dlq.depth(DLQ) == 0
    [(md, data)] = dlq.browse("TARGET")
    assert data == b"payload"
    assert md.Format == CMQC.MQFMT_STRING and md.CodedCharSetId == 819
    assert md.MsgId == sent.MsgId
    for field in ("UserIdentifier", "PutApplName", "PutApplType", "PutDate", "PutTime",
                  "ApplIdentityData", "AccountingToken"):
        assert getattr(md, field) == getattr(sent, field), field


def test_retry_of_a_full_queue_succeeds_once_space_is_freed(dlq):
    """Given a queue at MAXDEPTH and a message dead-lettered with 2053 by it, when the handler
    retries every RETRYINT(1) and space is freed 1.5 s in, then the attempts at 0 s and 1 s
    fail (the message stays put), the one at 2 s puts it on its queue, and WAIT(NO) ends."""
    dlq.define("FULLQ", {"MAXDEPTH": 1})
    dlq.put_plain("FULLQ", b"occupant")
    dlq.deliver("FULLQ", b"latecomer")
    handler, _ = dlq.handler("RETRYINT(1) WAIT(NO)\nREASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)\n")
    done: dict = {}
    start = time.monotonic()
    worker = threading.Thread(target=lambda: done.update(summary=handler.run()), daemon=True)
    worker.start()
    time.sleep(1.5)
    assert dlq.depth(DLQ) == 1 and worker.is_alive()
    q = mqpy.Queue(dlq.qm, "FULLQ", CMQC.MQOO_INPUT_AS_Q_DEF)
    assert q.get(None) == b"occupant"
    q.close()
    worker.join(10)
    elapsed = time.monotonic() - start
    summary = done["summary"]
    assert summary.failed_attempts == 2 and summary.retried == 1
    assert 1.9 <= elapsed < 5
    assert [d for _, d in dlq.browse("FULLQ")] == [b"latecomer"]
    assert dlq.depth(DLQ) == 0


def test_forward_with_default_header_keeps_mqdlh_and_context(dlq):
    """Given a dead letter, when ACTION(FWD) with the default HEADER, then the forward queue
    holds the message with its MQDLH (reason, destination) and MQMD context unchanged.

    spec: operations-dlq-clusters 7.39
    """
    dlq.define("FULLQ", {"MAXDEPTH": 0})
    dlq.define("MANUAL")
    sent = dlq.deliver("FULLQ", b"keep my header", ApplIdentityData=b"ident-data")
    [(dead_md, dead_data)] = dlq.browse(DLQ)
    summary, _ = dlq.run("WAIT(NO)\nACTION(FWD) FWDQ(MANUAL)\n")
    assert summary.forwarded == 1 and dlq.depth(DLQ) == 0
    [(md, data)] = dlq.browse("MANUAL")
    assert data == dead_data
    dlh = mqpy.DLH().unpack(data)
    assert dlh.Reason == CMQC.MQRC_Q_FULL and _text(dlh.DestQName) == "FULLQ"
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    for field in ("MsgId", "CorrelId", "UserIdentifier", "PutApplName", "PutApplType",
                  "PutDate", "PutTime", "ApplIdentityData", "Persistence", "Priority"):
        assert getattr(md, field) == getattr(dead_md, field), field
    assert md.UserIdentifier == sent.UserIdentifier and md.ApplIdentityData == sent.ApplIdentityData


def test_forward_with_header_no_strips_the_mqdlh_and_restores_the_format(dlq):
    """Given a dead letter, when ACTION(FWD) HEADER(NO), then the forward queue holds the bare
    data with the Format and CCSID the MQDLH had saved.

    spec: operations-dlq-clusters 7.39
    """
    dlq.define("FULLQ", {"MAXDEPTH": 0})
    dlq.define("MANUAL")
    dlq.deliver("FULLQ", b"bare", CodedCharSetId=437)
    summary, _ = dlq.run("WAIT(NO)\nACTION(FWD) FWDQ(MANUAL) HEADER(NO)\n")
    [(md, data)] = dlq.browse("MANUAL")
    assert data == b"bare"
    assert md.Format == CMQC.MQFMT_STRING and md.CodedCharSetId == 437


def test_forward_to_destq_substitution_and_remote_qmgr_name(dlq):
    """Given FWDQ(&DESTQ) FWDQM(&DESTQM), when the message's destination now accepts puts,
    then the message (with its MQDLH) lands on its original queue at the named queue manager
    through name resolution."""
    dlq.define("ORDERS", {"PUT": "DISABLED"})
    dlq.deliver("ORDERS", b"order 1")
    dlq.eng.alter("QLOCAL", "ORDERS", {"PUT": "ENABLED"})
    summary, _ = dlq.run("WAIT(NO)\nACTION(FWD) FWDQ(&DESTQ) FWDQM(&DESTQM)\n")
    assert summary.forwarded == 1
    [(md, data)] = dlq.browse("ORDERS")
    assert data[DLH_LEN:] == b"order 1" and md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER


def test_putaut_ctx_keeps_user_identifier_and_put_appl_name(dlq):
    """Given a message put by user and application X, when PUTAUT(CTX) forwards it with
    HEADER(NO), then the target's UserIdentifier and PutApplName are X's, not the handler's."""
    dlq.define("FULLQ", {"MAXDEPTH": 0})
    dlq.define("MANUAL")
    md, body = dlq.original(b"from someone else")
    md.UserIdentifier = b"alice"
    md.PutApplName = b"payroll.exe"
    assert dlq.eng.dead_letter(md.copy(), body, CMQC.MQRC_Q_FULL, "FULLQ", QM)
    summary, _ = dlq.run("WAIT(NO)\nUSERID('alice') ACTION(FWD) FWDQ(MANUAL) HEADER(NO) "
                         "PUTAUT(CTX)\n")
    assert summary.forwarded == 1
    [(got, _data)] = dlq.browse("MANUAL")
    assert _text(got.UserIdentifier) == "alice"
    assert _text(got.PutApplName) == "payroll.exe"


def test_ignore_leaves_the_message_and_counts_it_once(dlq):
    """Given a matching ACTION(IGNORE) rule, then the message stays on the DLQ, is counted
    as ignored once, and WAIT(NO) still ends."""
    dlq.deliver("NO.SUCH.QUEUE", b"leave me")
    summary, _ = dlq.run("WAIT(NO)\nDESTQ('NO.SUCH.QUEUE') ACTION(IGNORE)\nACTION(DISCARD)\n")
    assert dlq.depth(DLQ) == 1
    assert (summary.seen, summary.ignored, summary.discarded) == (1, 1, 0)


def test_fwdq_replyq_with_blank_reply_queue_fails_and_replyq_pattern_avoids_it(dlq):
    """Given a message with a blank ReplyToQ, FWDQ(&REPLYQ) is an error (a failed attempt, the
    message stays); with REPLYQ(?*) in the pattern the rule no longer matches.

    spec: operations-dlq-clusters 7.38
    """
    dlq.deliver("NO.SUCH.QUEUE", b"no reply queue")
    summary, out = dlq.run("WAIT(NO)\nACTION(FWD) FWDQ(&REPLYQ)\n")
    assert summary.failed_attempts == 1 and dlq.depth(DLQ) == 1
    assert "FWDQ(&REPLYQ)" in out and "blank" in out
    summary, _ = dlq.run("WAIT(NO)\nREPLYQ(?*) ACTION(FWD) FWDQ(&REPLYQ)\n")
    assert summary.failed_attempts == 0 and summary.ignored == 1
    assert summary.rules == {}
