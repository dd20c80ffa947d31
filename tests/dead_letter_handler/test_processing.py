"""How the handler works through the DLQ over time: retries RETRYINT apart, the next matching
rule, messages without an MQDLH, WAIT, rescans, one unit of work per message, the report."""

from __future__ import annotations

import io
import threading
import time

import mqpy
from mqpy import CMQC

from .conftest import DLQ

VERBATIM = ("PERSIST (MQPER_PERSISTENT) REASON (MQRC_PUT_INHIBITED) +\n"
            "ACTION (RETRY) RETRY (3)\n")


class StampedOut(io.StringIO):
    """An output stream that remembers when each line was written."""

    def __init__(self, tty: bool = False) -> None:
        super().__init__()
        self.lines: list[tuple[float, str]] = []
        self.tty = tty

    def write(self, s: str) -> int:
        for line in s.splitlines():
            if line.strip():
                self.lines.append((time.monotonic(), line))
        return super().write(s)

    def isatty(self) -> bool:
        return self.tty


def _in_thread(handler, stop: threading.Event | None = None) -> tuple[threading.Thread, dict]:
    done: dict = {}

    def run() -> None:
        try:
            done["summary"] = handler.run(stop)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            done["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, done


def test_verbatim_rule_three_attempts_retryint_apart_then_next_matching_rule(dlq):
    """Given the seed's verbatim rule (RETRY 3), RETRYINT(1), a catch-all FWD after it, and a
    persistent message dead-lettered with 2051 by a queue that stays put-inhibited, then three
    attempts about 1 s apart fail, then the next matching rule forwards it.

    spec: operations-dlq-clusters 7.36
    """
    dlq.define("TARGET", {"PUT": "DISABLED"})
    dlq.define("MANUAL")
    dlq.deliver("TARGET", b"important", Persistence=CMQC.MQPER_PERSISTENT)
    out = StampedOut()
    summary, _ = dlq.run("RETRYINT(1) WAIT(NO)\n" + VERBATIM + "ACTION(FWD) FWDQ(MANUAL)\n",
                         out=out)
    failures = [t for t, line in out.lines if "failed" in line and "ACTION(RETRY)" in line]
    assert len(failures) == 3
    gaps = [b - a for a, b in zip(failures, failures[1:], strict=False)]
    assert all(0.9 <= g < 2.0 for g in gaps), gaps
    assert summary.rules[1].failed == 3 and summary.rules[2].succeeded == 1
    assert summary.forwarded == 1 and dlq.depth(DLQ) == 0 and dlq.depth("MANUAL") == 1


def test_when_every_matching_rule_is_used_up_the_message_is_left(dlq):
    """Given the verbatim rule and no other, when its three attempts fail, then IGNORE is
    assumed: the message stays on the DLQ and WAIT(NO) ends the handler.

    spec: operations-dlq-clusters 7.36
    """
    dlq.define("TARGET", {"PUT": "DISABLED"})
    dlq.deliver("TARGET", b"important", Persistence=CMQC.MQPER_PERSISTENT)
    summary, _ = dlq.run("RETRYINT(0) WAIT(NO)\n" + VERBATIM)
    assert summary.failed_attempts == 3 and summary.ignored == 1
    assert dlq.depth(DLQ) == 1 and dlq.depth("TARGET") == 0


def test_non_persistent_message_does_not_match_the_verbatim_rule(dlq):
    """Given the verbatim rule, a non-persistent 2051 dead letter matches no rule: ignored."""
    dlq.define("TARGET", {"PUT": "DISABLED"})
    dlq.deliver("TARGET", b"light", Persistence=CMQC.MQPER_NOT_PERSISTENT)
    summary, _ = dlq.run("WAIT(NO)\n" + VERBATIM)
    assert (summary.ignored, summary.failed_attempts, summary.rules) == (1, 0, {})


def test_restarted_handler_starts_its_retry_counts_again(dlq):
    """Given a handler that used up RETRY(2) on a message, when a new handler instance runs,
    then it makes two fresh attempts (counts belong to one instance).

    spec: operations-dlq-clusters 7.40
    """
    dlq.define("TARGET", {"PUT": "DISABLED"})
    dlq.deliver("TARGET", b"again")
    rules = "RETRYINT(0) WAIT(NO)\nACTION(RETRY) RETRY(2)\n"
    first, _ = dlq.run(rules)
    second, _ = dlq.run(rules)
    assert first.failed_attempts == 2 and second.failed_attempts == 2
    assert dlq.depth(DLQ) == 1


def test_message_without_mqdlh_is_never_matched_reported_periodically_and_left(dlq):
    """Given a DLQ holding a plain message (no MQDLH) and a dead letter, when a catch-all
    DISCARD runs for 2 s, then the dead letter is discarded, the plain message stays, and
    AMQ8721 is reported at first sight and again on later rescans.

    spec: operations-dlq-clusters 7.37
    """
    dlq.put_plain(DLQ, b"no header here", Format=CMQC.MQFMT_STRING)
    dlq.deliver("NO.SUCH.QUEUE", b"with header")
    summary, out = dlq.run("RETRYINT(1) WAIT(2)\nACTION(DISCARD)\n", report_interval=0.5)
    assert summary.discarded == 1 and summary.no_dlh == 1 and summary.seen == 1
    [(_, data)] = dlq.browse(DLQ)
    assert data == b"no header here"
    assert out.count("AMQ8721") >= 2, out
    assert "NODLH(1)" in out


def test_a_header_that_is_not_a_valid_mqdlh_is_treated_as_no_header(dlq):
    """Given a message claiming Format MQDEAD but carrying junk, then it is left and reported.
    (An MQPUT of it fails MQRC_DLH_ERROR: it is stored as the queue manager stores its own
    messages, as one that came from elsewhere.)"""
    dlq.eng._system_put(DLQ, "", mqpy.MD(Format=CMQC.MQFMT_DEAD_LETTER_HEADER),
                        b"not a DLH at all", dead_letter=False)
    summary, out = dlq.run("WAIT(NO)\nACTION(DISCARD)\n")
    assert summary.no_dlh == 1 and summary.discarded == 0 and dlq.depth(DLQ) == 1
    assert "AMQ8721" in out


def test_wait_no_on_an_empty_dlq_ends_at_once_with_start_and_end_messages(dlq):
    """Given an empty DLQ and WAIT(NO), the handler starts (AMQ8708 naming the DEADQ), ends
    (AMQ8709) and reports a zero summary, promptly.

    spec: operations-dlq-clusters 7.41
    """
    start = time.monotonic()
    summary, out = dlq.run("WAIT(NO)\nACTION(DISCARD)\n")
    assert time.monotonic() - start < 1.0
    assert f"AMQ8708I: Dead-letter queue handler started to process INPUTQ({DLQ})." in out
    assert "AMQ8709" in out and "SEEN(0)" in out
    assert summary.seen == 0


def test_wait_nnn_ends_nnn_seconds_after_the_last_processable_message(dlq):
    """Given WAIT(2), a dead letter at the start and another arriving 1 s in, then both are
    discarded as they come and the handler ends about 2 s after the second one.

    spec: operations-dlq-clusters 7.41
    """
    dlq.deliver("NO.SUCH.QUEUE", b"first")
    handler, _ = dlq.handler("RETRYINT(5) WAIT(2)\nACTION(DISCARD)\n")
    start = time.monotonic()
    t, done = _in_thread(handler)
    time.sleep(1.0)
    dlq.deliver("NO.SUCH.QUEUE", b"second")
    t.join(10)
    elapsed = time.monotonic() - start
    assert not t.is_alive()
    assert done["summary"].discarded == 2
    assert 2.8 <= elapsed < 3.7, elapsed
    assert dlq.depth(DLQ) == 0


def test_wait_yes_keeps_running_and_handles_arrivals_until_stopped(dlq):
    """Given WAIT(YES), the handler keeps running on an empty DLQ, handles a message that
    arrives (within a fraction of a second, at the end of the queue), and ends when stopped.

    spec: operations-dlq-clusters 7.41
    """
    handler, out = dlq.handler("RETRYINT(60) WAIT(YES)\nACTION(DISCARD)\n")
    stop = threading.Event()
    t, done = _in_thread(handler, stop)
    time.sleep(0.5)
    assert t.is_alive()
    dlq.deliver("NO.SUCH.QUEUE", b"late")
    deadline = time.monotonic() + 2
    while dlq.depth(DLQ) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert dlq.depth(DLQ) == 0 and t.is_alive()
    stop.set()
    t.join(5)
    assert not t.is_alive() and done["summary"].discarded == 1
    assert "AMQ8709" in out.getvalue()


def test_periodic_rescan_finds_a_message_that_landed_behind_the_cursor(dlq):
    """Given a DLQ in priority order whose only message (priority 0) is ignored, when a
    priority-9 dead letter arrives (it sorts before the browse cursor), then browsing on from
    the cursor never reaches it; the rescan every RETRYINT(1) does, and it is discarded.

    spec: operations-dlq-clusters 7.42
    """
    dlq.deliver("KEEP.ME", b"ignored", Priority=0)
    rules = "RETRYINT({}) WAIT(YES)\nDESTQ('KEEP.ME') ACTION(IGNORE)\nACTION(DISCARD)\n"

    def late_arrival_handled_within(retryint: int, seconds: float) -> bool:
        handler, _ = dlq.handler(rules.format(retryint))
        stop = threading.Event()
        t, _done = _in_thread(handler, stop)
        time.sleep(0.3)  # the first pass is over: the cursor sits on the priority-0 message
        dlq.deliver("NO.SUCH.QUEUE", b"urgent", Priority=9)
        deadline = time.monotonic() + seconds
        while dlq.depth(DLQ) > 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        handled = dlq.depth(DLQ) == 1
        stop.set()
        t.join(5)
        return handled

    assert not late_arrival_handled_within(60, 1.0)  # from the cursor it is never seen
    assert late_arrival_handled_within(1, 2.5)  # the rescan finds it
    [(_, data)] = dlq.browse(DLQ)
    assert data.endswith(b"ignored")


def test_get_and_put_are_one_unit_of_work(dlq):
    """Given a DLQ that can be browsed but not got from (GET(DISABLED)), when a FWD rule runs,
    then the put to the forward queue is backed out with the failed get: nothing is forwarded
    and the message is still on the DLQ (no duplicate)."""
    dlq.define("MANUAL")
    dlq.deliver("NO.SUCH.QUEUE", b"once only")
    dlq.eng.alter("QLOCAL", DLQ, {"GET": "DISABLED"})
    summary, out = dlq.run("WAIT(NO)\nACTION(FWD) FWDQ(MANUAL)\n")
    assert summary.failed_attempts == 1 and summary.forwarded == 0
    assert str(CMQC.MQRC_GET_INHIBITED) in out
    assert dlq.depth("MANUAL") == 0 and dlq.depth(DLQ) == 1
    dlq.eng.alter("QLOCAL", DLQ, {"GET": "ENABLED"})
    summary, _ = dlq.run("WAIT(NO)\nACTION(FWD) FWDQ(MANUAL)\n")
    assert summary.forwarded == 1 and dlq.depth("MANUAL") == 1 and dlq.depth(DLQ) == 0


def test_live_status_line_is_rewritten_in_place_on_a_terminal(dlq):
    """Given a terminal for output, the handler rewrites one status line with carriage
    returns while it works, and the end report is still written on lines of its own."""
    for i in range(5):
        dlq.deliver("NO.SUCH.QUEUE", b"m%d" % i)
    out = StampedOut(tty=True)
    summary, _ = dlq.run("WAIT(NO)\nACTION(DISCARD)\n", out=out, status_interval=0)
    text = out.getvalue()
    assert text.count("\rINPUTQ(DLQ)  SEEN(") >= 2
    assert "\rDead-letter queue handler summary.\n" in text  # status line cleared first
    assert "DISCARDED(5)" in text and summary.discarded == 5


def test_progress_lines_are_plain_lines_when_not_on_a_terminal(dlq):
    """Given output to a file (not a terminal) and a run through 12 messages that lasts
    longer than the progress interval (a clock a second further at each look, the interval
    2 s), then runmqdlq writes its status as plain lines while it works (no carriage
    returns), the counts rising, before the end report."""
    for i in range(12):
        dlq.deliver("NO.SUCH.QUEUE", b"m%d" % i)
    ticks = iter(range(10_000))
    out = StampedOut(tty=False)
    summary, _ = dlq.run("WAIT(NO)\nACTION(DISCARD)\n", out=out, progress_interval=2,
                         clock=lambda: float(next(ticks)))
    text = out.getvalue()
    progress = [line for line in text.splitlines() if line.startswith("INPUTQ(DLQ)  SEEN(")]
    assert len(progress) >= 2 and "\r" not in text, text
    seen = [int(line.split("SEEN(")[1].split(")")[0]) for line in progress]
    assert seen == sorted(seen) and seen[0] < 12, progress
    assert text.index(progress[-1]) < text.index("Dead-letter queue handler summary.")
    assert summary.discarded == 12


def test_summary_counts_per_rule(dlq):
    """Given messages for three rules, the summary on exit counts each rule's work."""
    dlq.define("MANUAL")
    dlq.deliver("A.Q", b"a")
    dlq.deliver("B.Q", b"b1")
    dlq.deliver("B.Q", b"b2")
    dlq.deliver("C.Q", b"c")
    summary, out = dlq.run("WAIT(NO)\nDESTQ(A.Q) ACTION(DISCARD)\n"
                           "DESTQ(B.Q) ACTION(FWD) FWDQ(MANUAL)\nDESTQ(C.Q) ACTION(IGNORE)\n")
    assert (summary.seen, summary.discarded, summary.forwarded, summary.ignored) == (4, 1, 2, 1)
    assert "RULE(1)  LINE(2)  ACTION(DISCARD)  ATTEMPTS(1)  SUCCEEDED(1)" in out
    assert "RULE(2)  LINE(3)  ACTION(FWD)  ATTEMPTS(2)  SUCCEEDED(2)" in out
    assert "RULE(3)  LINE(4)  ACTION(IGNORE)" in out


def test_library_handler_on_a_named_queue(dlq):
    """Given a program's own handler on a queue other than DEADQ, only that queue is touched."""
    dlq.define("OTHER.DLQ")
    dlq.eng.alter_qmgr({"DEADQ": "OTHER.DLQ"})
    dlq.deliver("NO.SUCH.QUEUE", b"on other")
    dlq.eng.alter_qmgr({"DEADQ": DLQ})
    dlq.deliver("NO.SUCH.QUEUE", b"on dlq")
    handler, _ = dlq.handler("WAIT(NO)\nACTION(DISCARD)\n", queue="OTHER.DLQ")
    assert handler.queue_name == "OTHER.DLQ"
    assert handler.run().discarded == 1
    assert dlq.depth("OTHER.DLQ") == 0 and dlq.depth(DLQ) == 1
    assert isinstance(handler.qm, mqpy.QueueManager)
