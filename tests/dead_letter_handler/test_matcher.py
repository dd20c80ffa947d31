"""Matching dead-lettered messages against rules, and the plan for the matched rule."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy.dlq import (
    Action,
    DLQMessageFields,
    IgnoreReason,
    PutAut,
    RulesTable,
    first_match,
    matching_rules,
    parse_rules,
    plan_for,
    rule_matches,
    wildcard_match,
)


def table(text: str) -> RulesTable:
    result = parse_rules(text)
    assert isinstance(result, RulesTable), "\n".join(str(e) for e in result)
    return result


def message(**kw: object) -> DLQMessageFields:
    kw.setdefault("reason", CMQC.MQRC_Q_FULL)
    return DLQMessageFields(**kw)  # type: ignore[arg-type]


class TestWildcards:
    @pytest.mark.parametrize(
        "value", ["ABC", "AXCDEF", "ABC" + " " * 45, b"ABC" + b" " * 45, b"ABC\0\0\0", "A CD"]
    )
    def test_a_question_c_star_matches(self, value: str | bytes) -> None:
        """Given DESTQ(A?C*), then ABC, AXCDEF, blank- or NUL-padded ABC, and 'A CD' (an
        embedded blank is a character) match.

        spec: operations-dlq-clusters 7.33
        """
        rule = table("DESTQ(A?C*) ACTION(DISCARD)\n").rules[0]
        assert rule_matches(rule, message(dest_q_name=value))

    @pytest.mark.parametrize("value", ["AC", "A", "", "XBC", "ABD"])
    def test_a_question_c_star_does_not_match(self, value: str) -> None:
        """Given DESTQ(A?C*), then AC ('?' is not a trailing blank), A, blank, XBC, ABD do not.

        spec: operations-dlq-clusters 7.33
        """
        rule = table("DESTQ(A?C*) ACTION(DISCARD)\n").rules[0]
        assert not rule_matches(rule, message(dest_q_name=value))

    @pytest.mark.parametrize(
        ("pattern", "value", "expected"),
        [
            ("*", "", True),
            ("*", "ANY.THING", True),
            ("?*", "", False),  # REPLYQ(?*): needs at least one non-blank character
            ("?*", "Q", True),
            ("A*B*C", "AXXBYYC", True),
            ("A*B*C", "AXXBYY", False),
            ("*.DLQ", "QM1.DLQ", True),
            ("*.DLQ", "QM1.DLQ2", False),
            ("**", "X", True),
            ("", "", True),  # a blank pattern (' ') matches a blank field only
            ("", "A", False),
            ("ABC", "ABC", True),
            ("ABC", "ABCD", False),
            ("ABC", "AB", False),
            ("A?", "A ", False),
            ("A B", "A B", True),
            ("???", "AB", False),
            ("A *", "A", True),  # the field's padding blank matches the pattern's blank
        ],
    )
    def test_wildcard_match_table(self, pattern: str, value: str, expected: bool) -> None:
        """Given a pattern and a 48-byte field, then '*' = any run, '?' = one non-trailing char."""
        assert wildcard_match(pattern, value, 48) is expected

    def test_case_matters_after_folding(self) -> None:
        """Given destq(abc) (folded to ABC), then ABC matches; DESTQ('abc') does not match ABC.

        spec: operations-dlq-clusters 7.32
        """
        folded, quoted = table("destq(abc) action(discard)\nDESTQ('abc') ACTION(DISCARD)\n").rules
        msg = message(dest_q_name="ABC")
        assert rule_matches(folded, msg)
        assert not rule_matches(quoted, msg)
        assert rule_matches(quoted, message(dest_q_name="abc"))

    def test_quoted_pattern_with_leading_blank(self) -> None:
        """Given APPLNAME('  X*'), then the leading blanks must be in the field."""
        rule = table("APPLNAME('  X*') ACTION(DISCARD)\n").rules[0]
        assert rule_matches(rule, message(put_appl_name="  XYZ"))
        assert not rule_matches(rule, message(put_appl_name="XYZ"))


class TestNumericMatching:
    def test_symbolic_and_numeric_reason_match_the_same_messages(self) -> None:
        """Given REASON(MQRC_PUT_INHIBITED) and REASON(2051), then both match reason 2051 only.

        spec: operations-dlq-clusters 7.34
        """
        symbolic, numeric = table(
            "REASON(MQRC_PUT_INHIBITED) ACTION(RETRY)\nREASON(2051) ACTION(RETRY)\n"
        ).rules
        for rule in (symbolic, numeric):
            assert rule_matches(rule, message(reason=2051))
            assert not rule_matches(rule, message(reason=2053))

    def test_every_pattern_keyword_must_match(self) -> None:
        """Given a rule naming all thirteen pattern keywords, then a message matching all
        matches, and changing any one field breaks the match."""
        rule = table(
            "APPLIDAT(ID*) APPLNAME(APP) APPLTYPE(MQAT_UNIX) DESTQ(DQ) DESTQM(DQM) +\n"
            "FEEDBACK(MQFB_COA) FORMAT(MQSTR) MSGTYPE(MQMT_REPORT) +\n"
            "PERSIST(MQPER_PERSISTENT) REASON(MQRC_Q_FULL) REPLYQ(RQ) REPLYQM(RQM) +\n"
            "USERID(MQM) ACTION(DISCARD)\n"
        ).rules[0]
        good = dict(
            appl_identity_data="ID42",
            put_appl_name="APP",
            put_appl_type=CMQC.MQAT_UNIX,
            dest_q_name="DQ",
            dest_q_mgr_name="DQM",
            feedback=CMQC.MQFB_COA,
            format=b"MQSTR   ",
            msg_type=CMQC.MQMT_REPORT,
            persistence=1,
            reason=CMQC.MQRC_Q_FULL,
            reply_to_q="RQ",
            reply_to_q_mgr="RQM",
            user_identifier=b"mqm         ".upper(),
        )
        assert rule_matches(rule, message(**good))
        changes = dict(
            appl_identity_data="XX",
            put_appl_name="APQ",
            put_appl_type=CMQC.MQAT_WINDOWS,
            dest_q_name="DQ2",
            dest_q_mgr_name="DQM2",
            feedback=CMQC.MQFB_COD,
            format="MQHRF2",
            msg_type=CMQC.MQMT_DATAGRAM,
            persistence=0,
            reason=2051,
            reply_to_q="RQ2",
            reply_to_q_mgr="X",
            user_identifier="ROOT",
        )
        for field, value in changes.items():
            assert not rule_matches(rule, message(**{**good, field: value})), field


class TestFirstMatch:
    TABLE = (
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)\n"
        "DESTQ(APP.*) ACTION(FWD) FWDQ(APP.DLQ)\n"
        "ACTION(FWD) FWDQ(DEADQ.MANUAL)\n"
    )

    def test_first_matching_rule_wins(self) -> None:
        """Given a Q_FULL message for APP.IN, then rule 1 (not the DESTQ rule, not catch-all)."""
        t = table(self.TABLE)
        msg = message(reason=CMQC.MQRC_Q_FULL, dest_q_name="APP.IN")
        assert first_match(t, msg) is t.rules[0]
        assert [r.number for r in matching_rules(t, msg)] == [1, 2, 3]

    def test_catch_all_takes_the_rest(self) -> None:
        """Given a message no other rule matches, then the action-only last rule matches."""
        t = table(self.TABLE)
        assert first_match(t, message(reason=2085, dest_q_name="OTHER")) is t.rules[2]

    def test_no_match(self) -> None:
        """Given no catch-all and a message matching nothing, then None."""
        t = table("REASON(2051) ACTION(DISCARD)\n")
        assert first_match(t, message(reason=2053)) is None


class TestPlans:
    def test_retry_goes_to_original_destination_without_dlh(self) -> None:
        """Given ACTION(RETRY), then put to DestQName at DestQMgrName with the MQDLH removed."""
        rule = table("ACTION(RETRY)\n").rules[0]
        plan = plan_for(rule, message(dest_q_name=b"TARGET" + b" " * 42, dest_q_mgr_name="QM2"))
        assert (plan.action, plan.queue, plan.qmgr, plan.keep_dlh) == (
            Action.RETRY,
            "TARGET",
            "QM2",
            False,
        )
        assert plan.error is None

    def test_forward_substitutes_replyq_and_keeps_header(self) -> None:
        """Given FWDQ(&REPLYQ) FWDQM(&REPLYQM), then the reply-to queue at its QM, with MQDLH,
        context passed (MQPMO_PASS_ALL_CONTEXT).

        spec: operations-dlq-clusters 7.39
        """
        rule = table("ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)\n").rules[0]
        plan = plan_for(rule, message(reply_to_q="REPLY.Q", reply_to_q_mgr="AAAA.1"))
        assert (plan.queue, plan.qmgr, plan.keep_dlh) == ("REPLY.Q", "AAAA.1", True)
        assert plan.put_options & CMQC.MQPMO_PASS_ALL_CONTEXT
        assert plan.open_options & CMQC.MQOO_PASS_ALL_CONTEXT

    def test_forward_substitutes_destq_with_literal_qmgr_and_no_header(self) -> None:
        """Given fwdq(&DESTQ) fwdqm(bbbb.2) header(no), then DestQName at BBBB.2 without MQDLH.

        spec: operations-dlq-clusters 7.39
        """
        rule = table("action(fwd) fwdq(&DESTQ) fwdqm(bbbb.2) header(no)\n").rules[0]
        plan = plan_for(rule, message(dest_q_name="ORDERS", dest_q_mgr_name="BBBB.1"))
        assert (plan.queue, plan.qmgr, plan.keep_dlh) == ("ORDERS", "BBBB.2", False)

    def test_forward_destqm_and_default_local_qmgr(self) -> None:
        """Given FWDQM(&DESTQM), then DestQMgrName; given no FWDQM, then '' (the local QM)."""
        sub, local = table("ACTION(FWD) FWDQ(X) FWDQM(&DESTQM)\nACTION(FWD) FWDQ(X)\n").rules
        msg = message(dest_q_mgr_name="QM9")
        assert plan_for(sub, msg).qmgr == "QM9"
        assert plan_for(local, msg).qmgr == ""

    def test_blank_reply_to_q_is_an_error_and_replyq_pattern_avoids_it(self) -> None:
        """Given FWDQ(&REPLYQ) and a blank ReplyToQ, then the plan carries an error; with
        REPLYQ(?*) in the pattern the rule no longer matches.

        spec: operations-dlq-clusters 7.38
        """
        bare, guarded = table(
            "ACTION(FWD) FWDQ(&REPLYQ)\nREPLYQ(?*) ACTION(FWD) FWDQ(&REPLYQ)\n"
        ).rules
        msg = message(reply_to_q=b" " * 48)
        assert rule_matches(bare, msg)
        plan = plan_for(bare, msg)
        assert plan.error is not None and "FWDQ(&REPLYQ)" in plan.error
        assert not rule_matches(guarded, msg)

    def test_putaut_ctx_uses_the_message_user_id(self) -> None:
        """Given PUTAUT(CTX), then the plan opens with alternate-user authority as UserIdentifier."""
        ctx, dflt = table("ACTION(RETRY) PUTAUT(CTX)\nACTION(RETRY)\n").rules
        msg = message(dest_q_name="Q", user_identifier="alice")
        plan = plan_for(ctx, msg)
        assert (plan.putaut, plan.alternate_user_id) == (PutAut.CTX, "alice")
        assert plan.open_options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY
        plain = plan_for(dflt, msg)
        assert plain.alternate_user_id is None
        assert not plain.open_options & CMQC.MQOO_ALTERNATE_USER_AUTHORITY

    def test_ignore_and_discard_plans(self) -> None:
        """Given IGNORE and DISCARD rules, then plans with no target queue."""
        ignore, discard = table("ACTION(IGNORE)\nACTION(DISCARD)\n").rules
        plan = plan_for(ignore, message())
        assert (plan.action, plan.ignore_reason, plan.queue) == (
            Action.IGNORE,
            IgnoreReason.RULE,
            "",
        )
        assert plan_for(discard, message()).action is Action.DISCARD
