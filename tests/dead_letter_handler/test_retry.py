"""Retry bookkeeping: RETRY attempts spaced by RETRYINT, then the next matching rule, then IGNORE."""

from __future__ import annotations

import attrs
import pytest

from mqpy import CMQC
from mqpy.dlq import (
    Action,
    DLQMessageFields,
    IgnoreReason,
    RetryBook,
    RulesTable,
    parse_rules,
)

VERBATIM = (
    "RETRYINT(30)\n"
    "PERSIST (MQPER_PERSISTENT) REASON (MQRC_PUT_INHIBITED) +\n"
    "ACTION (RETRY) RETRY (3)\n"
)


def table(text: str) -> RulesTable:
    result = parse_rules(text)
    assert isinstance(result, RulesTable), "\n".join(str(e) for e in result)
    return result


def message(n: int = 1, **kw: object) -> DLQMessageFields:
    kw.setdefault("reason", CMQC.MQRC_PUT_INHIBITED)
    kw.setdefault("persistence", CMQC.MQPER_PERSISTENT)
    kw.setdefault("dest_q_name", "TARGET")
    return DLQMessageFields(msg_id=n.to_bytes(24, "big"), **kw)  # type: ignore[arg-type]


def fail(book: RetryBook, msg: DLQMessageFields, now: float):
    plan = book.next_plan(msg, now)
    assert plan is not None, f"not due at {now}"
    book.record_outcome(msg, plan, succeeded=False, now=now)
    return plan


def test_verbatim_rule_three_attempts_retryint_apart_then_ignore() -> None:
    """Given the verbatim rule, RETRYINT 30 and a persistent 2051 message whose puts keep
    failing, then attempts at t=0, 30, 60 (none before they are due), then IGNORE.

    spec: operations-dlq-clusters 7.36
    """
    book = RetryBook(table(VERBATIM))
    msg = message()
    attempts = []
    for now in range(0, 200, 5):
        plan = book.next_plan(msg, float(now))
        if plan is None:
            continue
        if plan.action is Action.IGNORE:
            assert plan.ignore_reason is IgnoreReason.EXHAUSTED
            break
        attempts.append((now, plan.attempt, plan.action))
        book.record_outcome(msg, plan, succeeded=False, now=float(now))
    assert attempts == [(0, 1, Action.RETRY), (30, 2, Action.RETRY), (60, 3, Action.RETRY)]
    assert now == 90
    assert book.attempts(msg) == 3


def test_exhausted_rule_hands_over_to_the_next_matching_rule() -> None:
    """Given rule 1 RETRY(2) and a matching FWD rule RETRY(2), when every attempt fails, then
    two RETRYs, two FWDs, each RETRYINT after the last, then IGNORE; a non-matching rule
    between them is skipped.

    spec: operations-dlq-clusters 7.36
    """
    book = RetryBook(
        table(
            "RETRYINT(10)\n"
            "REASON(MQRC_PUT_INHIBITED) ACTION(RETRY) RETRY(2)\n"
            "REASON(MQRC_Q_FULL) ACTION(DISCARD)\n"
            "ACTION(FWD) FWDQ(DEADQ.MANUAL) RETRY(2)\n"
        )
    )
    msg = message()
    seen = [
        (p.rule.number if p.rule else None, p.attempt, p.action)
        for p in (fail(book, msg, t) for t in (0.0, 10.0, 20.0, 30.0))
    ]
    assert seen == [
        (1, 1, Action.RETRY),
        (1, 2, Action.RETRY),
        (3, 1, Action.FWD),
        (3, 2, Action.FWD),
    ]
    assert book.next_plan(msg, 39.9) is None
    final = book.next_plan(msg, 40.0)
    assert final is not None and final.action is Action.IGNORE and final.rule is None
    assert final.ignore_reason is IgnoreReason.EXHAUSTED


def test_success_removes_the_message_from_the_book() -> None:
    """Given a failure then a success, then counts are forgotten and counters record one retry."""
    book = RetryBook(table(VERBATIM))
    msg = message()
    fail(book, msg, 0.0)
    plan = book.next_plan(msg, 30.0)
    assert plan is not None and plan.attempt == 2
    book.record_outcome(msg, plan, succeeded=True, now=30.0)
    assert (book.attempts(msg), book.due_at(msg)) == (0, None)
    s = book.summary
    assert (s.seen, s.retried, s.failed_attempts) == (1, 1, 1)
    assert (s.rules[1].attempts, s.rules[1].succeeded, s.rules[1].failed) == (2, 1, 1)


def test_matching_ignore_rule_is_chosen_at_once() -> None:
    """Given an ACTION(IGNORE) rule that matches, then IGNORE with that rule, no attempt
    booked, and later rules never reached."""
    book = RetryBook(table("REASON(MQRC_PUT_INHIBITED) ACTION(IGNORE)\nACTION(DISCARD)\n"))
    msg = message()
    plan = book.next_plan(msg, 0.0)
    assert plan is not None and plan.action is Action.IGNORE
    assert plan.rule is not None and plan.rule.number == 1
    book.record_outcome(msg, plan, succeeded=True, now=0.0)
    assert book.attempts(msg) == 0
    assert book.next_plan(msg, 1.0).action is Action.IGNORE  # type: ignore[union-attr]
    assert book.summary.ignored == 1  # one message, however often it is looked at


def test_no_matching_rule_means_ignore() -> None:
    """Given no rule matches, then IGNORE with reason NO_MATCH."""
    book = RetryBook(table("REASON(MQRC_Q_FULL) ACTION(DISCARD)\n"))
    plan = book.next_plan(message(), 0.0)
    assert plan is not None and plan.ignore_reason is IgnoreReason.NO_MATCH


def test_messages_are_counted_separately_by_msgid_and_correlid() -> None:
    """Given two messages differing only in CorrelId, then each has its own count."""
    book = RetryBook(table(VERBATIM))
    a = message(1)
    b = message(1, correl_id=b"\x01" * 24)
    fail(book, a, 0.0)
    fail(book, a, 30.0)
    plan = book.next_plan(b, 30.0)
    assert plan is not None and plan.attempt == 1
    assert book.attempts(a) == 2 and book.summary.seen == 2


def test_blank_substitution_counts_as_a_failed_attempt() -> None:
    """Given FWDQ(&REPLYQ), a blank ReplyToQ and a catch-all after it, then the failed attempt
    is booked (even if the caller says it succeeded) and the next rule follows.

    spec: operations-dlq-clusters 7.38
    """
    book = RetryBook(table("ACTION(FWD) FWDQ(&REPLYQ)\nACTION(DISCARD)\n"))
    msg = message(reply_to_q="")
    plan = book.next_plan(msg, 0.0)
    assert plan is not None and plan.error is not None
    book.record_outcome(msg, plan, succeeded=True, now=0.0)
    nxt = book.next_plan(msg, 60.0)
    assert nxt is not None and nxt.action is Action.DISCARD


def test_restart_resets_counts_and_table_is_frozen() -> None:
    """Given a book with attempts made, when the handler restarts (a new book), then counts
    start at zero; the table object the book holds cannot be edited in place.

    spec: operations-dlq-clusters 7.40
    """
    t = table(VERBATIM)
    book = RetryBook(t)
    msg = message()
    fail(book, msg, 0.0)
    fail(book, msg, 30.0)
    restarted = RetryBook(t)
    plan = restarted.next_plan(msg, 31.0)
    assert plan is not None and plan.attempt == 1
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        t.rules[0].retry = 99  # type: ignore[misc]
    assert t.rules[0].retry == 3


def test_messages_without_dlh_are_counted_once() -> None:
    """Given a message with no MQDLH seen on two scans, then AMQ8721 is due only the first
    time and the summary counts it once.

    spec: operations-dlq-clusters 7.37
    """
    book = RetryBook(table("ACTION(DISCARD)\n"))
    assert book.note_no_dlh(b"\x07" * 24) is True
    assert book.note_no_dlh(b"\x07" * 24) is False
    assert book.summary.no_dlh == 1


def test_summary_counts_and_renders() -> None:
    """Given a discard, a forward, a retry and an ignore, then each counter is one and the
    report shows totals and one line per rule in KEYWORD(value) style."""
    t = table(
        "REASON(2051) ACTION(RETRY)\nREASON(2053) ACTION(DISCARD)\n"
        "REASON(2085) ACTION(FWD) FWDQ(X)\nREASON(2052) ACTION(IGNORE)\n"
    )
    book = RetryBook(t)
    for n, reason in enumerate((2051, 2053, 2085, 2052), start=1):
        msg = message(n, reason=reason)
        plan = book.next_plan(msg, 0.0)
        assert plan is not None
        book.record_outcome(msg, plan, succeeded=True, now=0.0)
    s = book.summary
    assert (s.seen, s.retried, s.discarded, s.forwarded, s.ignored) == (4, 1, 1, 1, 1)
    text = s.render(t)
    assert "SEEN(4)  DISCARDED(1)  FORWARDED(1)  RETRIED(1)  IGNORED(1)" in text
    assert "RULE(3)  LINE(3)  ACTION(FWD)  ATTEMPTS(1)  SUCCEEDED(1)  FAILED(0)" in text
