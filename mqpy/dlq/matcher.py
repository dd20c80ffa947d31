"""Matching dead-lettered messages against a rules table, and the handler's retry bookkeeping.

Theory of operation
-------------------
For each message that begins with an MQDLH the processing loop builds a ``DLQMessageFields``
(MQDLH + MQMD fields, blank/NUL padding stripped) and asks a ``RetryBook`` for the next
``Plan``. The book keeps, per message (MsgId + CorrelId, as runmqdlq keys it), the number of
attempts made so far and when the next one is due; nothing survives the book, so a restarted
handler starts every count at zero.

Choosing a rule, as runmqdlq does: scan the rules in order; the first matching rule whose
RETRY allowance is not yet used up is applied. Allowances add up: with matching rules A
(RETRY 3) and B (RETRY 2), attempts 1-3 apply A, attempts 4-5 apply B. A matching
ACTION(IGNORE) rule is chosen at once, since ignoring cannot fail. When every matching rule
is used up, or none matches, ACTION(IGNORE) is assumed and the message stays on the DLQ.

After a failed attempt the message is due again RETRYINT seconds later; after a successful
DISCARD, FWD or RETRY it has left the DLQ and the book forgets it. The book never reads a
clock: the caller passes ``now`` (seconds, any monotonic origin).

Plans carry everything the loop needs to act: the target queue and queue manager (with
``&DESTQ``-style substitution done), whether to keep the MQDLH, and the put/open options
(always MQPMO_PASS_ALL_CONTEXT; PUTAUT(CTX) adds alternate-user authority).
"""

from __future__ import annotations

import enum
from functools import cache

import attrs

from mqpy import CMQC
from mqpy.dlq.rules import PATTERN_KEYWORDS, Action, PutAut, Rule, RulesTable

__all__ = [
    "DLQMessageFields",
    "IgnoreReason",
    "Plan",
    "RetryBook",
    "RuleCounters",
    "Summary",
    "first_match",
    "matching_rules",
    "plan_for",
    "rule_matches",
    "wildcard_match",
]


def _text(value: str | bytes) -> str:
    """MQ character fields arrive blank- or NUL-padded; only the significant part matters."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")  # byte-for-byte: patterns compare characters, not text
    return value.rstrip(" \0")


_NO_ID = b"\0" * 24  # MQMI_NONE / MQCI_NONE


@attrs.frozen(slots=True)
class DLQMessageFields:
    """The fields of a dead-lettered message that rules match and plans use.

    From the MQDLH: ``reason``, ``dest_q_name``, ``dest_q_mgr_name``, ``format`` (the format
    of the data after the MQDLH). From the MQMD: the rest. Character fields accept ``bytes``
    straight from the structures; padding is stripped.
    """

    reason: int
    dest_q_name: str = attrs.field(default="", converter=_text)
    dest_q_mgr_name: str = attrs.field(default="", converter=_text)
    format: str = attrs.field(default="", converter=_text)
    msg_type: int = CMQC.MQMT_DATAGRAM
    persistence: int = CMQC.MQPER_NOT_PERSISTENT
    feedback: int = CMQC.MQFB_NONE
    reply_to_q: str = attrs.field(default="", converter=_text)
    reply_to_q_mgr: str = attrs.field(default="", converter=_text)
    user_identifier: str = attrs.field(default="", converter=_text)
    appl_identity_data: str = attrs.field(default="", converter=_text)
    put_appl_type: int = CMQC.MQAT_NO_CONTEXT
    put_appl_name: str = attrs.field(default="", converter=_text)
    msg_id: bytes = _NO_ID
    correl_id: bytes = _NO_ID

    @property
    def key(self) -> tuple[bytes, bytes]:
        """How runmqdlq tells messages apart for its retry counts."""
        return (self.msg_id, self.correl_id)


#: Rule attribute -> DLQMessageFields attribute, one entry per pattern keyword.
_FIELD_OF = {
    "applidat": "appl_identity_data",
    "applname": "put_appl_name",
    "appltype": "put_appl_type",
    "destq": "dest_q_name",
    "destqm": "dest_q_mgr_name",
    "feedback": "feedback",
    "format": "format",
    "msgtype": "msg_type",
    "persist": "persistence",
    "reason": "reason",
    "replyq": "reply_to_q",
    "replyqm": "reply_to_q_mgr",
    "userid": "user_identifier",
}
assert set(_FIELD_OF) == {p.attr for p in PATTERN_KEYWORDS.values()}


def wildcard_match(pattern: str, value: str, length: int) -> bool:
    """Does ``pattern`` match a ``length``-byte, blank-padded MQ field holding ``value``?

    ``*`` matches zero or more characters, ``?`` exactly one character that is not part of
    the trailing blanks; every other character matches itself (case matters: folding was done
    when the table was read). Trailing blanks of the pattern and of the field do not count,
    leading and embedded ones do.
    """
    return _match(pattern.rstrip(" "), _text(value).ljust(length))


def _match(p: str, v: str) -> bool:
    @cache
    def m(i: int, j: int) -> bool:
        if j == len(v):
            return all(c == "*" for c in p[i:])
        if i == len(p):
            return not v[j:].strip(" ")
        c = p[i]
        if c == "*":
            return i + 1 == len(p) or any(m(i + 1, k) for k in range(j, len(v) + 1))
        if c == "?":
            return bool(v[j:].rstrip(" ")) and m(i + 1, j + 1)
        return v[j] == c and m(i + 1, j + 1)

    return m(0, 0)


def rule_matches(rule: Rule, fields: DLQMessageFields) -> bool:
    """True when every pattern keyword of ``rule`` matches the message."""
    for spec in PATTERN_KEYWORDS.values():
        want = getattr(rule, spec.attr)
        have = getattr(fields, _FIELD_OF[spec.attr])
        if spec.length is None:
            if want is not None and want != have:
                return False
        elif want != "*" and not wildcard_match(want, have, spec.length):
            return False
    return True


def matching_rules(table: RulesTable, fields: DLQMessageFields) -> list[Rule]:
    """All rules whose pattern matches, in table order."""
    return [rule for rule in table.rules if rule_matches(rule, fields)]


def first_match(table: RulesTable, fields: DLQMessageFields) -> Rule | None:
    """The first rule whose pattern matches the message, or None."""
    return next((rule for rule in table.rules if rule_matches(rule, fields)), None)


class IgnoreReason(enum.Enum):
    """Why a plan says IGNORE."""

    RULE = "RULE"  # a matching ACTION(IGNORE) rule
    NO_MATCH = "NO_MATCH"  # no rule matches the message
    EXHAUSTED = "EXHAUSTED"  # every matching rule has used up its RETRY attempts


@attrs.frozen(slots=True)
class Plan:
    """What to do with one message now.

    DISCARD: get it off the DLQ. IGNORE: leave it. RETRY: put it, without the MQDLH, to
    ``queue`` at ``qmgr`` (its original destination). FWD: put it to ``queue`` at ``qmgr``
    (``''`` = the local queue manager), with the MQDLH unless ``keep_dlh`` is False.
    Puts use ``put_options`` and ``open_options``; under PUTAUT(CTX) the queue is opened with
    ``alternate_user_id``. When ``error`` is set the put must not be tried (a substituted
    name came out blank) and the attempt counts as failed.
    """

    action: Action
    rule: Rule | None = None
    queue: str = ""
    qmgr: str = ""
    keep_dlh: bool = True
    putaut: PutAut = PutAut.DEF
    alternate_user_id: str | None = None
    attempt: int = 0  # attempt number of this rule for this message, from 1; 0 for IGNORE
    ignore_reason: IgnoreReason | None = None
    error: str | None = None

    @property
    def put_options(self) -> int:
        """MQPMO options: the handler never alters context, so it passes all of it."""
        return CMQC.MQPMO_PASS_ALL_CONTEXT | CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_FAIL_IF_QUIESCING

    @property
    def open_options(self) -> int:
        """MQOO options for the target queue of a RETRY or FWD."""
        options = CMQC.MQOO_OUTPUT | CMQC.MQOO_PASS_ALL_CONTEXT | CMQC.MQOO_FAIL_IF_QUIESCING
        if self.alternate_user_id is not None:
            options |= CMQC.MQOO_ALTERNATE_USER_AUTHORITY
        return options


_SUBSTITUTE = {
    "&DESTQ": "dest_q_name",
    "&REPLYQ": "reply_to_q",
    "&DESTQM": "dest_q_mgr_name",
    "&REPLYQM": "reply_to_q_mgr",
}


def plan_for(rule: Rule, fields: DLQMessageFields, attempt: int = 1) -> Plan:
    """The plan for applying ``rule`` to a message: targets resolved, header choice made."""
    if rule.action is Action.IGNORE:
        return Plan(Action.IGNORE, rule, ignore_reason=IgnoreReason.RULE)
    alternate = fields.user_identifier if rule.putaut is PutAut.CTX else None
    common = {"rule": rule, "putaut": rule.putaut, "alternate_user_id": alternate}
    if rule.action is Action.DISCARD:
        return Plan(Action.DISCARD, attempt=attempt, **common)  # type: ignore[arg-type]
    if rule.action is Action.RETRY:
        error = None
        if not fields.dest_q_name:
            error = f"ACTION(RETRY) of rule {rule.number} (line {rule.line}): DestQName is blank."
        return Plan(
            Action.RETRY,
            queue=fields.dest_q_name,
            qmgr=fields.dest_q_mgr_name,
            keep_dlh=False,
            attempt=attempt,
            error=error,
            **common,  # type: ignore[arg-type]
        )
    assert rule.fwdq is not None  # the parser insists on FWDQ with ACTION(FWD)
    queue = _resolve(rule.fwdq, fields)
    qmgr = _resolve(rule.fwdqm, fields)
    error = None
    if not queue:
        error = (
            f"FWDQ({rule.fwdq}) of rule {rule.number} (line {rule.line}) resolved to a blank name."
        )
    return Plan(
        Action.FWD,
        queue=queue,
        qmgr=qmgr,
        keep_dlh=rule.header,
        attempt=attempt,
        error=error,
        **common,  # type: ignore[arg-type]
    )


def _resolve(target: str, fields: DLQMessageFields) -> str:
    attr = _SUBSTITUTE.get(target)
    return getattr(fields, attr) if attr is not None else target


# --------------------------------------------------------------------------- bookkeeping


@attrs.define(slots=True)
class RuleCounters:
    """What one rule did during this handler instance."""

    attempts: int = 0
    succeeded: int = 0
    failed: int = 0


@attrs.define(slots=True)
class Summary:
    """Counters for one handler instance: messages, not attempts, except where named so."""

    seen: int = 0
    discarded: int = 0
    forwarded: int = 0
    retried: int = 0
    ignored: int = 0
    failed_attempts: int = 0
    no_dlh: int = 0
    rules: dict[int, RuleCounters] = attrs.field(factory=dict)

    def rule(self, number: int) -> RuleCounters:
        return self.rules.setdefault(number, RuleCounters())

    def render(self, table: RulesTable | None = None) -> str:
        """MQSC-style ``KEYWORD(value)`` report, one line for the totals and one per rule."""
        lines = [
            "Dead-letter queue handler summary.",
            f"   SEEN({self.seen})  DISCARDED({self.discarded})  FORWARDED({self.forwarded})"
            f"  RETRIED({self.retried})  IGNORED({self.ignored})",
            f"   FAILED({self.failed_attempts})  NODLH({self.no_dlh})",
        ]
        rules = {r.number: r for r in table.rules} if table is not None else {}
        for number in sorted(self.rules):
            c = self.rules[number]
            where = ""
            if number in rules:
                where = f"  LINE({rules[number].line})  ACTION({rules[number].action.value})"
            lines.append(
                f"   RULE({number}){where}  ATTEMPTS({c.attempts})"
                f"  SUCCEEDED({c.succeeded})  FAILED({c.failed})"
            )
        return "\n".join(lines)


@attrs.define(slots=True)
class _Track:
    attempts: int = 0
    due: float | None = None
    ignored: bool = False


class RetryBook:
    """Per-message attempt counts and retry timing for one handler instance (pure, no clock).

    Use: ``plan = book.next_plan(fields, now)``; if it is None the message is not due yet;
    otherwise act on it and report with ``book.record_outcome(fields, plan, succeeded=...,
    now=now)``. Call ``forget`` when a message leaves the DLQ by other means.
    """

    __slots__ = ("table", "summary", "_tracks", "_no_dlh")

    def __init__(self, table: RulesTable) -> None:
        self.table = table
        self.summary = Summary()
        self._tracks: dict[tuple[bytes, bytes], _Track] = {}
        self._no_dlh: set[tuple[bytes, bytes]] = set()

    def attempts(self, fields: DLQMessageFields) -> int:
        """Attempts made so far on this message, across all its rules."""
        track = self._tracks.get(fields.key)
        return track.attempts if track is not None else 0

    def due_at(self, fields: DLQMessageFields) -> float | None:
        """When the message may next be attempted; None if it may be attempted now."""
        track = self._tracks.get(fields.key)
        return track.due if track is not None else None

    def choose(self, fields: DLQMessageFields) -> Plan:
        """The plan for the message's next attempt, ignoring timing."""
        attempts = self.attempts(fields)
        allowance = 0
        matched = False
        for rule in self.table.rules:
            if not rule_matches(rule, fields):
                continue
            matched = True
            if rule.action is Action.IGNORE:
                return plan_for(rule, fields)
            if attempts < allowance + rule.retry:
                return plan_for(rule, fields, attempt=attempts - allowance + 1)
            allowance += rule.retry
        reason = IgnoreReason.EXHAUSTED if matched else IgnoreReason.NO_MATCH
        return Plan(Action.IGNORE, ignore_reason=reason)

    def next_plan(self, fields: DLQMessageFields, now: float) -> Plan | None:
        """The plan for this message now, or None while it waits out RETRYINT."""
        track = self._tracks.get(fields.key)
        if track is None:
            track = self._tracks[fields.key] = _Track()
            self.summary.seen += 1
        if track.due is not None and now < track.due:
            return None
        plan = self.choose(fields)
        if plan.action is Action.IGNORE and not track.ignored:
            track.ignored = True
            self.summary.ignored += 1
            if plan.rule is not None:
                self.summary.rule(plan.rule.number).succeeded += 1
        return plan

    def record_outcome(
        self, fields: DLQMessageFields, plan: Plan, *, succeeded: bool, now: float
    ) -> None:
        """Book one attempt of ``plan``. Success means the message has left the DLQ."""
        if plan.action is Action.IGNORE or plan.rule is None:
            return
        counters = self.summary.rule(plan.rule.number)
        counters.attempts += 1
        if succeeded and plan.error is None:
            counters.succeeded += 1
            if plan.action is Action.DISCARD:
                self.summary.discarded += 1
            elif plan.action is Action.FWD:
                self.summary.forwarded += 1
            else:
                self.summary.retried += 1
            self._tracks.pop(fields.key, None)
            return
        counters.failed += 1
        self.summary.failed_attempts += 1
        track = self._tracks.setdefault(fields.key, _Track())
        track.attempts += 1
        track.due = now + self.table.control.retryint

    def forget(self, fields: DLQMessageFields) -> None:
        """The message is no longer on the DLQ (another handler took it, it expired...)."""
        self._tracks.pop(fields.key, None)

    def note_no_dlh(self, msg_id: bytes, correl_id: bytes = _NO_ID) -> bool:
        """Count a message without an MQDLH (never matched, left on the DLQ).

        Returns True the first time this instance sees it, when AMQ8721 is due.
        """
        key = (msg_id, correl_id)
        if key in self._no_dlh:
            return False
        self._no_dlh.add(key)
        self.summary.no_dlh += 1
        return True
