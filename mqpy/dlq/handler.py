"""The dead-letter queue handler's processing loop (runmqdlq): an ordinary MQI application.

It owns the MQI side of runmqdlq: browsing the DLQ, moving messages in units of work, timing
retries, rescans and the WAIT end, and the report on its output. Which rule applies, with how
many attempts, is decided by ``matcher.RetryBook``; the table comes from ``rules.parse_rules``.
It never parses rules and never touches pagesets or logs: everything goes through the MQI.

Theory of operation
-------------------
**Passes.** A *pass* browses the DLQ from the first message to the last (MQGMO_BROWSE_FIRST,
then _NEXT). Each browsed message that begins with an MQDLH (MQMD Format MQFMT_DEAD_LETTER_HEADER)
is matched; one without is reported (AMQ8721) and left where it is.

**Moving a message, exactly once.** For DISCARD, RETRY and FWD the handler does, in ONE unit of
work: the put of the copy (RETRY/FWD; MQPMO_SYNCPOINT), then the destructive get of the browsed
message (MQGMO_MSG_UNDER_CURSOR + MQGMO_SYNCPOINT), then MQCMIT. If the put fails the unit of
work is backed out and nothing on the DLQ was touched, not even its BackoutCount, so a failed
attempt leaves the message exactly as it was; if the get fails (another handler took the
message) the put is backed out. A handler killed at any point leaves an uncommitted unit of
work that the queue manager backs out: no message is ever lost or duplicated.

**Never altering the message.** RETRY, and FWD with HEADER(NO), strip the 172-byte MQDLH and
put back into the MQMD the Format, Encoding and CodedCharSetId that the MQDLH saved; otherwise
data, MQDLH and MQMD go out as they were, MsgId and CorrelId included. All context goes with
the message: the MQMD from the browse already holds it, so the put uses MQPMO_SET_ALL_CONTEXT
with those fields, which gives the target exactly what MQPMO_PASS_ALL_CONTEXT (IBM's wording)
gives, without needing a destructive get before the put. PUTAUT(CTX) adds alternate-user
authority for the message's UserIdentifier (MQPMO_ALTERNATE_USER_AUTHORITY); PUTAUT(DEF) puts
with the handler's own authority. Context is the same under both.

**Time.** Retries of a message are RETRYINT apart (``RetryBook`` keeps the due times). A pass
that moved something is followed at once by another (messages that arrived behind the cursor
meanwhile are caught there). Otherwise the handler watches the end of the queue
(MQGMO_BROWSE_NEXT with a wait) and starts a new pass when a retry falls due or RETRYINT after
the last pass (the periodic rescan IBM describes: arrivals of higher priority land *before* the
cursor and only a rescan finds them).

**Ending (WAIT).** Work is *outstanding* while a message is waiting for a retry. WAIT(NO) ends
after a complete pass that moved nothing with nothing outstanding (that pass is the final
rescan). WAIT(nnn) ends once nothing was moved and nothing was outstanding for nnn seconds.
WAIT(YES) ends only when asked (``stop``) or when the queue manager ends. Either end is at
once: a browse waiting at the end of the queue is woken (``mqpy.waitingget``: by a thread of
the run that watches ``stop``; by the queue manager itself when it quiesces or ends).
"""

from __future__ import annotations

import enum
import math
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

import attrs

from mqpy import CMQC, constants
from mqpy.dlq.matcher import DLQMessageFields, Plan, RetryBook, Summary
from mqpy.dlq.rules import MESSAGES, Action, PutAut, RulesTable, printed_id
from mqpy.errors import MQMIError
from mqpy.mqi import Queue, QueueManager
from mqpy.printable import printable
from mqpy.structs.fields import StructError
from mqpy.structs.tables import DLH, GMO, MD, OD, PMO
from mqpy.waitingget import WaitingGets

__all__ = [
    "DeadLetterHandler",
    "PassResult",
    "dead_letter_queue_of",
    "DLH_LENGTH",
    "MIN_RESCAN_INTERVAL",
]

#: Bytes of an MQDLH v1 before the message data.
DLH_LENGTH = DLH().packed_size()
#: Shortest pause between idle passes, so RETRYINT(0) rescans promptly without spinning.
MIN_RESCAN_INTERVAL = 0.05
#: Longest single MQGET wait (the handler's clock is looked at that often); ``stop`` wakes it.
_WAIT_SLICE = 0.25
#: Seconds after which a wake is repeated while the browse it means to end has not ended
#: (the first reached the queue manager before the browse's request).
_WAKE_AGAIN = 0.1
#: How often the waker thread of a run looks whether the run has ended without a stop.
_WATCH_END = 1.0
#: Reasons after which the handler cannot go on: the connection or the queue is gone.
_FATAL = frozenset(
    {
        CMQC.MQRC_CONNECTION_BROKEN,
        CMQC.MQRC_Q_MGR_QUIESCING,
        CMQC.MQRC_Q_MGR_STOPPING,
        CMQC.MQRC_Q_MGR_NOT_AVAILABLE,
        CMQC.MQRC_HCONN_ERROR,
        CMQC.MQRC_HOBJ_ERROR,
        CMQC.MQRC_Q_DELETED,
    }
)
_GONE = frozenset({CMQC.MQRC_NO_MSG_UNDER_CURSOR, CMQC.MQRC_NO_MSG_AVAILABLE})


def dead_letter_queue_of(qm: QueueManager) -> str:
    """The queue manager's DEADQ (MQCA_DEAD_LETTER_Q_NAME), blank when it has none."""
    value = qm.inquire(CMQC.MQCA_DEAD_LETTER_Q_NAME)
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return str(value).rstrip(" \0")


def _text(value: bytes | str) -> str:
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return value.rstrip(" \0")


def _reason_text(reason: int) -> str:
    return f"{reason} ({constants.reason_name(reason)})"


class _Outcome(enum.Enum):
    MOVED = "MOVED"  # DISCARD/FWD/RETRY succeeded: the message left the DLQ
    FAILED = "FAILED"  # an attempt failed; the message is due again RETRYINT later
    WAITING = "WAITING"  # a retry is not due yet
    IGNORED = "IGNORED"  # IGNORE (a rule, no match, or all matching rules exhausted)
    NO_DLH = "NO_DLH"  # not prefixed by an MQDLH: reported, left
    GONE = "GONE"  # someone else removed it between the browse and our get


@attrs.define(slots=True)
class PassResult:
    """What one complete pass over the DLQ found."""

    browsed: int = 0
    moved: int = 0
    failed: int = 0
    ignored: int = 0
    no_dlh: int = 0
    waiting: int = 0  # messages whose next retry is not yet due
    next_due: float | None = None  # earliest due time among them (handler clock)

    @property
    def outstanding(self) -> bool:
        """True while some message still has attempts to come."""
        return self.failed > 0 or self.waiting > 0

    def add(self, outcome: _Outcome) -> None:
        if outcome is _Outcome.MOVED:
            self.moved += 1
        elif outcome is _Outcome.FAILED:
            self.failed += 1
        elif outcome is _Outcome.WAITING:
            self.waiting += 1
        elif outcome is _Outcome.IGNORED:
            self.ignored += 1
        elif outcome is _Outcome.NO_DLH:
            self.no_dlh += 1


#: seconds between two plain progress lines when the output is not a terminal (the first
#: comes that long after the run began)
PROGRESS_INTERVAL = 2.0


class DeadLetterHandler:
    """runmqdlq's engine, for programs that want their own DLQ handler.

    ``qm`` is a connected ``mqpy.QueueManager``; ``table`` a parsed ``RulesTable``. ``queue``
    names the DLQ to process (None: the table's INPUTQ, else the queue manager's DEADQ;
    ``''`` or blanks: the DEADQ, whatever INPUTQ says, as a blank command-line name does).
    ``run()`` processes until the table's WAIT says to end (or ``stop`` is set) and returns the
    ``Summary``. Report lines go to ``out``; with ``live`` (default: ``out`` is a terminal)
    a one-line status is rewritten in place every ``status_interval`` seconds, otherwise that
    status is written as a plain line every ``progress_interval`` seconds while messages are
    being seen, and the full summary every ``summary_interval`` seconds. Messages without an MQDLH are
    reported when first seen and then every ``report_interval`` seconds while they remain.
    ``clock`` is the monotonic clock used for RETRYINT and WAIT (replaceable in tests).
    """

    def __init__(
        self,
        qm: QueueManager,
        table: RulesTable,
        *,
        queue: str | None = None,
        out: TextIO | None = None,
        live: bool | None = None,
        status_interval: float = 1.0,
        summary_interval: float = 600.0,
        report_interval: float = 300.0,
        progress_interval: float = PROGRESS_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.qm = qm
        self.table = table
        self.book = RetryBook(table)
        self.out = out if out is not None else sys.stdout
        self.live = bool(live) if live is not None else _isatty(self.out)
        self.status_interval = status_interval
        self.summary_interval = summary_interval
        self.report_interval = report_interval
        self.progress_interval = progress_interval
        self.clock = clock
        if queue is None:
            queue = table.control.inputq  # the command line (``queue``) wins over the table
        self.queue_name = (queue or "").strip() or dead_letter_queue_of(qm)
        if not self.queue_name:
            # No DLQ named and the queue manager has no DEADQ: nothing to process.
            raise MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
        self._q: Queue | None = None
        self._gets: WaitingGets | None = None  # the browses that wait (see _browse)
        self._status_shown = 0  # length of the live status line on screen, 0 if none
        self._last_status = float("-inf")
        self._last_summary = float("-inf")
        self._last_no_dlh_report: float | None = None
        self._last_progress = 0.0  # when the last plain progress line was written (or the run began)
        self._progress_seen = 0  # SEEN at that line

    @property
    def summary(self) -> Summary:
        return self.book.summary

    # ------------------------------------------------------------------ life cycle

    def open(self) -> None:
        """MQOPEN the DLQ: input as the queue defines it (as IBM's handler) and browse."""
        if self._q is not None:
            return
        q = Queue(self.qm)
        q.open(
            OD(ObjectName=self.queue_name.encode("latin-1")),
            CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE | CMQC.MQOO_FAIL_IF_QUIESCING,
        )
        self._q = q

    def close(self) -> None:
        q, self._q = self._q, None
        if q is not None:
            try:
                q.close()
            except MQMIError:
                pass  # the connection is going anyway

    def run(self, stop: threading.Event | None = None) -> Summary:
        """Process the DLQ until WAIT says to end or ``stop`` is set; returns the summary.

        Fatal MQI errors (connection broken, queue manager ending, DLQ deleted) end the run
        with the summary written, then propagate as ``MQMIError``.
        """
        stop = stop if stop is not None else threading.Event()
        wait = self.table.control.wait
        self.open()
        ended = threading.Event()
        threading.Thread(target=self._wake_when_stopped, args=(stop, ended),
                         name="runmqdlq stop", daemon=True).start()
        self._say(MESSAGES["AMQ8708"].format(queue=self.queue_name), msgid="AMQ8708")
        self._last_progress, self._progress_seen = self.clock(), self.summary.seen
        try:
            idle_since: float | None = None
            while not stop.is_set():
                result = self.scan(stop)
                now = self.clock()
                self._periodic(result, now)
                if result.moved:
                    idle_since = None
                    continue  # rescan at once: arrivals behind the cursor are found now
                if result.outstanding:
                    idle_since = None
                else:
                    idle_since = now if idle_since is None else idle_since
                    if wait == 0 or (wait is not None and now - idle_since >= wait):
                        break
                rescan_at = now + max(float(self.table.control.retryint), MIN_RESCAN_INTERVAL)
                if result.next_due is not None:
                    rescan_at = min(rescan_at, max(result.next_due, now + MIN_RESCAN_INTERVAL))
                last_work = self._watch_tail(rescan_at, idle_since, stop)
                if last_work is not None:
                    idle_since = last_work
        finally:
            ended.set()
            self._end()
        return self.summary

    def _wake_when_stopped(self, stop: threading.Event, ended: threading.Event) -> None:
        """The run's waker thread: once ``stop`` is set, the browse waiting at the end of the
        queue (if one is) is woken, again every _WAKE_AGAIN seconds until the run has ended;
        a run that ends otherwise ends this thread within _WATCH_END seconds."""
        while not stop.wait(_WATCH_END):
            if ended.is_set():
                return
        while not ended.is_set():
            gets = self._gets
            if gets is not None:
                gets.wake()
            ended.wait(_WAKE_AGAIN)

    def _end(self) -> None:
        self._clear_status()
        try:
            self.qm.backout()  # nothing should be pending; never leave a half unit of work
        except MQMIError:
            pass
        self.close()
        self._write(self.summary.render(self.table))
        self._say(MESSAGES["AMQ8709"], msgid="AMQ8709")

    # ------------------------------------------------------------------ passes

    def scan(self, stop: threading.Event | None = None) -> PassResult:
        """One complete pass over the DLQ, first message to last."""
        self.open()
        result = PassResult()
        options = CMQC.MQGMO_BROWSE_FIRST
        while stop is None or not stop.is_set():
            got = self._browse(options, 0)
            if got is None:
                break
            options = CMQC.MQGMO_BROWSE_NEXT
            result.browsed += 1
            outcome = self._process(*got, result)
            result.add(outcome)
            self._tick()
        return result

    def _watch_tail(
        self, rescan_at: float, idle_since: float | None, stop: threading.Event
    ) -> float | None:
        """Wait at the end of the queue for arrivals, processing each, until the next rescan
        is due or (WAIT nnn) the handler has been idle for nnn seconds.

        Returns when an arrival last gave work (moved, or attempts still to come), else None.
        """
        wait = self.table.control.wait
        last_work: float | None = None
        while not stop.is_set():
            now = self.clock()
            until = rescan_at
            idle_from = last_work if last_work is not None else idle_since
            if wait is not None and idle_from is not None:
                until = min(until, idle_from + wait)
            if now >= until:
                break
            got = self._browse(CMQC.MQGMO_BROWSE_NEXT, min(until - now, _WAIT_SLICE))
            self._tick()
            if got is None:
                continue
            scratch = PassResult()
            outcome = self._process(*got, scratch)
            if outcome in (_Outcome.MOVED, _Outcome.FAILED, _Outcome.WAITING):
                last_work = self.clock()
            if scratch.next_due is not None:
                rescan_at = min(rescan_at, scratch.next_due)
        return last_work

    def _browse(self, options: int, wait_s: float) -> tuple[MD, bytes] | None:
        assert self._q is not None
        md = MD()
        gmo = GMO(Version=2, MatchOptions=CMQC.MQMO_NONE)
        gmo.Options = options | CMQC.MQGMO_FAIL_IF_QUIESCING
        if wait_s > 0:
            gmo.Options |= CMQC.MQGMO_WAIT
            gmo.WaitInterval = max(1, int(wait_s * 1000))
        try:
            if wait_s > 0:
                gets = self._gets
                if gets is None:
                    gets = self._gets = WaitingGets(self.qm)
                data = gets.get(self._q, md, gmo)
            else:
                data = self._q.get(None, md, gmo)
        except MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        return md, data

    # ------------------------------------------------------------------ one message

    def _process(self, md: MD, data: bytes, result: PassResult) -> _Outcome:
        dlh = _dead_letter_header(md, data)
        if dlh is None:
            if self.book.note_no_dlh(bytes(md.MsgId), bytes(md.CorrelId)):
                msgid = bytes(md.MsgId).hex().upper()
                self._say(
                    MESSAGES["AMQ8721"]
                    + f" INPUTQ({self.queue_name}) MsgId(X'{msgid}') is left on the queue.",
                    msgid="AMQ8721",
                )
            return _Outcome.NO_DLH
        fields = _fields(md, dlh)
        now = self.clock()
        plan = self.book.next_plan(fields, now)
        if plan is None:
            if self.book.choose(fields).action is Action.IGNORE:
                return _Outcome.IGNORED  # every matching rule is used up: nothing to wait for
            due = self.book.due_at(fields)
            if due is not None:
                result.next_due = due if result.next_due is None else min(result.next_due, due)
            return _Outcome.WAITING
        if plan.action is Action.IGNORE:
            return _Outcome.IGNORED
        outcome, reason = self._apply(plan, md, data)
        if outcome is _Outcome.GONE:
            self.book.forget(fields)
            return outcome
        succeeded = outcome is _Outcome.MOVED
        self.book.record_outcome(fields, plan, succeeded=succeeded, now=self.clock())
        if not succeeded:
            self._report_failure(plan, md, reason)
            if self.book.choose(fields).action is Action.IGNORE:
                # The last attempt of the last matching rule failed: IGNORE is assumed now,
                # not RETRYINT later, so that WAIT(NO) need not wait for it.
                self.book.next_plan(fields, math.inf)
                return _Outcome.IGNORED
            due = self.book.due_at(fields)
            if due is not None:
                result.next_due = due if result.next_due is None else min(result.next_due, due)
        return outcome

    def _apply(self, plan: Plan, md: MD, data: bytes) -> tuple[_Outcome, int | str]:
        """Carry out a DISCARD/RETRY/FWD plan in one unit of work; (outcome, failure reason)."""
        if plan.error is not None:
            return _Outcome.FAILED, plan.error
        try:
            if plan.action is not Action.DISCARD:
                out_md, payload = _outgoing(md, data, keep_dlh=plan.keep_dlh)
                od = OD(
                    ObjectName=plan.queue.encode("latin-1"),
                    ObjectQMgrName=plan.qmgr.encode("latin-1"),
                )
                pmo = PMO()
                pmo.Options = (
                    CMQC.MQPMO_SET_ALL_CONTEXT
                    | CMQC.MQPMO_SYNCPOINT
                    | CMQC.MQPMO_FAIL_IF_QUIESCING
                )
                if plan.putaut is PutAut.CTX and plan.alternate_user_id is not None:
                    od.AlternateUserId = plan.alternate_user_id.encode("latin-1")
                    pmo.Options |= CMQC.MQPMO_ALTERNATE_USER_AUTHORITY
                try:
                    self.qm.put1(od, payload, out_md, pmo)
                except MQMIError as e:
                    if e.comp != CMQC.MQCC_WARNING:
                        raise
            self._get_under_cursor()
            self.qm.commit()
        except MQMIError as e:
            self._backout()
            if e.reason in _FATAL:
                raise
            if e.reason in _GONE:
                return _Outcome.GONE, e.reason
            return _Outcome.FAILED, e.reason
        return _Outcome.MOVED, 0

    def _get_under_cursor(self) -> None:
        """The destructive get of the browsed message, in the unit of work, data not copied."""
        assert self._q is not None
        gmo = GMO(Version=2, MatchOptions=CMQC.MQMO_NONE)
        gmo.Options = (
            CMQC.MQGMO_MSG_UNDER_CURSOR
            | CMQC.MQGMO_SYNCPOINT
            | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG
            | CMQC.MQGMO_FAIL_IF_QUIESCING
        )
        try:
            self._q.get(0, MD(), gmo)
        except MQMIError as e:
            if e.reason != CMQC.MQRC_TRUNCATED_MSG_ACCEPTED:
                raise

    def _backout(self) -> None:
        try:
            self.qm.backout()
        except MQMIError as e:
            if e.reason in _FATAL:
                raise

    # ------------------------------------------------------------------ reporting

    def _report_failure(self, plan: Plan, md: MD, reason: int | str) -> None:
        rule = plan.rule
        assert rule is not None
        why = reason if isinstance(reason, str) else f"reason {_reason_text(reason)}"
        target = ""
        if plan.queue:  # a message's names (&DESTQ, &REPLYQ): shown printable, never a line
            target = f" to {printable(plan.queue)}" + (f" at {printable(plan.qmgr)}"
                                                       if plan.qmgr else "")
        self._say(
            f"Rule {rule.number} (line {rule.line}) ACTION({plan.action.value}){target}: attempt "
            f"{plan.attempt} of {rule.retry} failed for MsgId(X'{bytes(md.MsgId).hex().upper()}'),"
            f" {why}."
        )

    def _periodic(self, result: PassResult, now: float) -> None:
        """After a pass: re-report messages without an MQDLH, and the periodic summary."""
        if result.no_dlh:
            if self._last_no_dlh_report is None:
                self._last_no_dlh_report = now  # each was just reported on first sight
            elif now - self._last_no_dlh_report >= self.report_interval:
                self._last_no_dlh_report = now
                self._say(
                    MESSAGES["AMQ8721"]
                    + f" {result.no_dlh} such message(s) remain on INPUTQ({self.queue_name}).",
                    msgid="AMQ8721",
                )
        if not self.live and now - self._last_summary >= self.summary_interval:
            if self._last_summary != float("-inf"):
                self._write(self.summary.render(self.table))
            self._last_summary = now

    def status_line(self) -> str:
        s = self.summary
        return (
            f"INPUTQ({self.queue_name})  SEEN({s.seen})  DISCARDED({s.discarded})"
            f"  FORWARDED({s.forwarded})  RETRIED({s.retried})  IGNORED({s.ignored})"
            f"  FAILED({s.failed_attempts})  NODLH({s.no_dlh})"
        )

    def _tick(self) -> None:
        if not self.live:
            self._progress_line()
            return
        now = self.clock()
        if now - self._last_status < self.status_interval:
            return
        self._last_status = now
        line = self.status_line()
        pad = max(0, self._status_shown - len(line))
        self.out.write("\r" + line + " " * pad)
        self.out.flush()
        self._status_shown = len(line)

    def _progress_line(self) -> None:
        """Not on a terminal: the status as a plain line every ``progress_interval`` seconds
        while messages are being seen (none while the handler waits)."""
        now = self.clock()
        seen = self.summary.seen
        if now - self._last_progress >= self.progress_interval and seen != self._progress_seen:
            self._last_progress, self._progress_seen = now, seen
            self._write(self.status_line())

    def _clear_status(self) -> None:
        if self._status_shown:
            self.out.write("\r" + " " * self._status_shown + "\r")
            self._status_shown = 0
            self._last_status = float("-inf")

    def _say(self, text: str, *, msgid: str | None = None) -> None:
        self._write(f"{printed_id(msgid)}: {text}" if msgid else text)

    def _write(self, text: str) -> None:
        self._clear_status()
        self.out.write(text + "\n")
        self.out.flush()


# ---------------------------------------------------------------------- message helpers


def _isatty(out: Any) -> bool:
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError):
        return False


def _dead_letter_header(md: MD, data: bytes) -> DLH | None:
    """The message's MQDLH, or None when it does not begin with a valid one."""
    if bytes(md.Format).rstrip(b" \0") != CMQC.MQFMT_DEAD_LETTER_HEADER.rstrip(b" "):
        return None
    try:
        return DLH().unpack(data, md.Encoding)  # type: ignore[return-value]
    except (StructError, MQMIError, ValueError):
        return None


def _fields(md: MD, dlh: DLH) -> DLQMessageFields:
    return DLQMessageFields(
        reason=dlh.Reason,
        dest_q_name=dlh.DestQName,
        dest_q_mgr_name=dlh.DestQMgrName,
        format=dlh.Format,
        msg_type=md.MsgType,
        persistence=md.Persistence,
        feedback=md.Feedback,
        reply_to_q=md.ReplyToQ,
        reply_to_q_mgr=md.ReplyToQMgr,
        user_identifier=md.UserIdentifier,
        appl_identity_data=md.ApplIdentityData,
        put_appl_type=md.PutApplType,
        put_appl_name=md.PutApplName,
        msg_id=bytes(md.MsgId)[:24].ljust(24, b"\0"),
        correl_id=bytes(md.CorrelId)[:24].ljust(24, b"\0"),
    )


def _outgoing(md: MD, data: bytes, *, keep_dlh: bool) -> tuple[MD, bytes]:
    """The MQMD and data to put: as browsed, or with the MQDLH removed and the original
    Format, Encoding and CodedCharSetId (saved in the MQDLH) back in the MQMD."""
    out = md.copy()
    if keep_dlh:
        return out, data
    dlh = DLH().unpack(data, md.Encoding)
    out.Format = dlh.Format
    out.Encoding = dlh.Encoding
    out.CodedCharSetId = dlh.CodedCharSetId
    return out, data[DLH_LENGTH:]
