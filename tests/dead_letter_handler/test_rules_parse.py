"""Rules tables that must be accepted, and what they are read as."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy.dlq import Action, ControlData, PutAut, RuleError, RulesTable, parse_rules

SPEC_TABLE = """\
* control data first
inputqm(' ') inputq(' ') retryint(5) wait(no)
REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)
MSGTYPE(MQMT_REQUEST) REPLYQ(?*) REPLYQM(AAAA.*) +
   ACTION(FWD) FWDQ(&REPLYQ) FWDQM(&REPLYQM)
DESTQM(bbbb.1) action(fwd) fwdq(&DESTQ) fwdqm(bbbb.2) header(no)
APPLNAME('my app*'),ACTION(DISCARD)
DEST-
Q(X.Y) ACTION(DISCARD)
ACTION(FWD) FWDQ(DEADQ.MANUAL)
"""


def table(text: str) -> RulesTable:
    result = parse_rules(text)
    assert isinstance(result, RulesTable), "\n".join(str(e) for e in result)
    return result


def errors(text: str) -> list[RuleError]:
    result = parse_rules(text)
    assert isinstance(result, list), f"expected errors, got {result!r}"
    return result


class TestSpecTable:
    """The test table of spec §3, written from IBM's rules."""

    def test_control_data_is_read(self) -> None:
        """Given the spec table, when parsed, then blank INPUTQ/INPUTQM, RETRYINT 5, WAIT(NO).

        spec: operations-dlq-clusters 7.30
        """
        t = table(SPEC_TABLE)
        assert t.control == ControlData(inputq="", inputqm="", retryint=5, wait=0, line=2)

    def test_six_rules_in_table_order_with_their_lines(self) -> None:
        """Given the spec table, then six rules numbered 1-6 starting on lines 3,4,6,7,8,10."""
        t = table(SPEC_TABLE)
        assert [(r.number, r.line) for r in t.rules] == [
            (1, 3),
            (2, 4),
            (3, 6),
            (4, 7),
            (5, 8),
            (6, 10),
        ]

    def test_symbolic_reason_resolves_through_cmqc(self) -> None:
        """Given REASON(MQRC_Q_FULL), then the rule holds 2053 and RETRY(5)."""
        rule = table(SPEC_TABLE).rules[0]
        assert rule.reason == CMQC.MQRC_Q_FULL == 2053
        assert (rule.action, rule.retry) == (Action.RETRY, 5)

    def test_plus_continuation_joins_one_rule(self) -> None:
        """Given a rule split with '+', then it is one FWD rule with both halves.

        spec: operations-dlq-clusters 7.35
        """
        rule = table(SPEC_TABLE).rules[1]
        assert rule.msgtype == CMQC.MQMT_REQUEST
        assert (rule.replyq, rule.replyqm) == ("?*", "AAAA.*")
        assert (rule.action, rule.fwdq, rule.fwdqm) == (Action.FWD, "&REPLYQ", "&REPLYQM")

    def test_unquoted_lowercase_is_folded(self) -> None:
        """Given DESTQM(bbbb.1) ... fwdqm(bbbb.2) header(no), then upper case names, no header.

        spec: operations-dlq-clusters 7.32
        """
        rule = table(SPEC_TABLE).rules[2]
        assert (rule.destqm, rule.fwdq, rule.fwdqm, rule.header) == (
            "BBBB.1",
            "&DESTQ",
            "BBBB.2",
            False,
        )

    def test_quoted_value_keeps_case_and_blank_and_comma_separates(self) -> None:
        """Given APPLNAME('my app*'),ACTION(DISCARD), then the name keeps case and blank."""
        rule = table(SPEC_TABLE).rules[3]
        assert (rule.applname, rule.action) == ("my app*", Action.DISCARD)

    def test_minus_continuation_splits_a_keyword(self) -> None:
        """Given DEST- / Q(X.Y), then the keyword is DESTQ.

        spec: operations-dlq-clusters 7.35
        """
        rule = table(SPEC_TABLE).rules[4]
        assert rule.destq == "X.Y"

    def test_action_only_catch_all_rule(self) -> None:
        """Given ACTION(FWD) FWDQ(DEADQ.MANUAL) alone, then every pattern is '*' and FWDQM local."""
        rule = table(SPEC_TABLE).rules[5]
        assert (rule.destq, rule.reason, rule.persist) == ("*", None, None)
        assert (rule.fwdq, rule.fwdqm) == ("DEADQ.MANUAL", "")


class TestVerbatimExample:
    def test_verbatim_rule_joined_with_plus(self) -> None:
        """Given the document's rule with '+', then PERSIST 1, REASON 2051, RETRY 3.

        spec: operations-dlq-clusters 7.36
        """
        t = table(
            "INPUTQ(ABC1.DLQ) INPUTQM(ABC1.QMGR)\n"
            "PERSIST (MQPER_PERSISTENT) REASON (MQRC_PUT_INHIBITED) +\n"
            "ACTION (RETRY) RETRY (3)\n"
        )
        assert (t.control.inputq, t.control.inputqm) == ("ABC1.DLQ", "ABC1.QMGR")
        (rule,) = t.rules
        assert (rule.persist, rule.reason, rule.action, rule.retry) == (
            1,
            CMQC.MQRC_PUT_INHIBITED,
            Action.RETRY,
            3,
        )

    def test_verbatim_rule_as_printed_is_two_entries(self) -> None:
        """Given the document's two lines without '+', then line 1 is a rule of its own and is
        rejected for lacking ACTION (each rule starts on a new line)."""
        errs = errors(
            "PERSIST (MQPER_PERSISTENT) REASON (MQRC_PUT_INHIBITED)\nACTION (RETRY) RETRY (3)\n"
        )
        assert [(e.msgid, e.line, e.keyword) for e in errs] == [("AMQ8759", 1, "ACTION")]


class TestDefaults:
    def test_defaults_of_control_data_and_rule(self) -> None:
        """Given no control data and a bare FWD rule, then RETRYINT 60, WAIT(YES),
        HEADER(YES), PUTAUT(DEF), RETRY(1), FWDQM local."""
        t = table("ACTION(FWD) FWDQ(Q)\n")
        assert t.control == ControlData()
        assert (t.control.retryint, t.control.wait) == (60, None)
        rule = t.rules[0]
        assert (rule.header, rule.putaut, rule.retry, rule.fwdqm) == (True, PutAut.DEF, 1, "")

    @pytest.mark.parametrize(
        ("wait", "expected"), [("YES", None), ("yes", None), ("NO", 0), ("5", 5), ("0", 0)]
    )
    def test_wait_values(self, wait: str, expected: int | None) -> None:
        """Given WAIT(YES|NO|nnn), then None (forever), 0, or nnn seconds.

        spec: operations-dlq-clusters 7.41
        """
        assert table(f"WAIT({wait})\nACTION(IGNORE)\n").control.wait == expected

    def test_putaut_ctx(self) -> None:
        """Given PUTAUT(ctx) on a RETRY rule, then the rule puts with context authority."""
        assert table("ACTION(RETRY) PUTAUT(ctx)\n").rules[0].putaut is PutAut.CTX


class TestSyntaxConventions:
    def test_comments_and_blank_lines_anywhere(self) -> None:
        """Given comments and blank lines before, between and inside a continued rule, then
        they are ignored and line numbers still count them.

        spec: operations-dlq-clusters 7.35
        """
        t = table(
            "* heading\n\n   \nRETRYINT(7)\n* between\n\nDESTQ(A) +\n* inside\n  ACTION(DISCARD)\n"
        )
        assert t.control.retryint == 7
        assert (t.rules[0].line, t.rules[0].destq) == (7, "A")

    def test_plus_continues_from_first_nonblank_inside_a_value(self) -> None:
        """Given APPLNAME('ABC+ / <blanks>D'), then the value is 'ABCD' (IBM's example)."""
        t = table("APPLNAME('ABC+\n      D') ACTION(DISCARD)\n")
        assert t.rules[0].applname == "ABCD"

    def test_minus_continues_from_column_one_inside_a_value(self) -> None:
        """Given APPLNAME('ABC- / ' D'), then the next line's leading blank is kept."""
        t = table("APPLNAME('ABC-\n D') ACTION(DISCARD)\n")
        assert t.rules[0].applname == "ABC D"

    def test_blanks_around_punctuation_and_commas(self) -> None:
        """Given blanks between keyword, parentheses and value, and commas, then accepted."""
        t = table("  DESTQ ( A.B ) ,, ACTION ( DISCARD ) ,RETRY( 2 )  \n")
        assert (t.rules[0].destq, t.rules[0].retry) == ("A.B", 2)

    def test_keywords_case_insensitive(self) -> None:
        """Given mixed-case keywords, then they are recognised."""
        assert table("DeStQ(a) AcTiOn(Discard)\n").rules[0].destq == "A"

    def test_embedded_quote_counts_as_one_character(self) -> None:
        """Given USERID('o''neil123456'): '' counts as one character, so 12 chars fit USERID."""
        assert table("USERID('o''neil123456') ACTION(DISCARD)\n").rules[0].userid == "o'neil123456"

    def test_trailing_blanks_in_quotes_are_insignificant(self) -> None:
        """Given DESTQ('A  '), then the pattern is 'A'; leading blanks are kept."""
        t = table("DESTQ('A  ') APPLNAME('  B') ACTION(DISCARD)\n")
        assert (t.rules[0].destq, t.rules[0].applname) == ("A", "  B")

    def test_specials_allowed_unquoted(self) -> None:
        """Given . / _ % unquoted, then no quotes are needed."""
        assert table("DESTQ(a.b/c_d%e) ACTION(DISCARD)\n").rules[0].destq == "A.B/C_D%E"

    def test_crlf_line_ends(self) -> None:
        """Given a table with CR LF line ends (Windows), then it parses the same."""
        t = table("RETRYINT(3)\r\nDESTQ(A) +\r\n ACTION(DISCARD)\r\n")
        assert (t.control.retryint, t.rules[0].destq) == (3, "A")


class TestFieldLengths:
    @pytest.mark.parametrize(
        ("keyword", "attr", "length"),
        [
            ("APPLIDAT", "applidat", 32),
            ("APPLNAME", "applname", 28),
            ("DESTQ", "destq", 48),
            ("DESTQM", "destqm", 48),
            ("FORMAT", "format", 8),
            ("REPLYQ", "replyq", 48),
            ("REPLYQM", "replyqm", 48),
            ("USERID", "userid", 12),
        ],
    )
    def test_exact_field_length_accepted_and_stars_not_counted(
        self, keyword: str, attr: str, length: int
    ) -> None:
        """Given a value as long as the field plus '*'s, then accepted (stars do not count)."""
        value = "A" * length + "**"
        rule = table(f"{keyword}({value}) ACTION(DISCARD)\n").rules[0]
        assert getattr(rule, attr) == value


class TestNumericPatterns:
    def test_symbolic_and_numeric_are_the_same_value(self) -> None:
        """Given PERSIST(MQPER_PERSISTENT) and PERSIST(1), then both hold 1.

        spec: operations-dlq-clusters 7.34
        """
        t = table("PERSIST(MQPER_PERSISTENT) ACTION(DISCARD)\nPERSIST(1) ACTION(DISCARD)\n")
        assert t.rules[0].persist == t.rules[1].persist == CMQC.MQPER_PERSISTENT

    def test_lowercase_symbolic_names_fold(self) -> None:
        """Given feedback(mqfb_coa), then 259."""
        assert table("feedback(mqfb_coa) action(discard)\n").rules[0].feedback == CMQC.MQFB_COA

    def test_star_alone_means_any(self) -> None:
        """Given REASON(*), then the rule has no REASON condition."""
        assert table("REASON(*) ACTION(DISCARD)\n").rules[0].reason is None

    def test_range_limits_accepted(self) -> None:
        """Given REASON(0) and RETRY(999999999), then accepted (range 0..999,999,999).

        spec: operations-dlq-clusters 7.34
        """
        rule = table("REASON(0) ACTION(RETRY) RETRY(999999999)\n").rules[0]
        assert (rule.reason, rule.retry) == (0, 999_999_999)

    def test_number_not_valid_for_field_still_accepted(self) -> None:
        """Given MSGTYPE(999999999), then accepted even though no such MsgType exists."""
        assert table("MSGTYPE(999999999) ACTION(DISCARD)\n").rules[0].msgtype == 999_999_999

    def test_feedback_accepts_reason_codes(self) -> None:
        """Given FEEDBACK(MQRC_Q_FULL) (exception reports carry a reason), then 2053."""
        assert table("FEEDBACK(MQRC_Q_FULL) ACTION(DISCARD)\n").rules[0].feedback == 2053

    def test_appltype_symbolic(self) -> None:
        """Given APPLTYPE(MQAT_UNIX), then CMQC's value."""
        assert table("APPLTYPE(MQAT_UNIX) ACTION(DISCARD)\n").rules[0].appltype == CMQC.MQAT_UNIX


class TestControlData:
    def test_resolve_input_command_line_wins(self) -> None:
        """Given runmqdlq Q1 QM1 and INPUTQ(Q2) in the table, then Q1 at QM1 is processed.

        spec: operations-dlq-clusters 7.30
        """
        t = table("INPUTQ(Q2) INPUTQM(QM2)\nACTION(IGNORE)\n")
        assert t.control.resolve_input("Q1", "QM1") == ("Q1", "QM1")
        assert t.control.resolve_input() == ("Q2", "QM2")

    def test_resolve_input_defaults(self) -> None:
        """Given no arguments and no control data, then the default QM's DLQ (None, None).

        spec: operations-dlq-clusters 7.30
        """
        assert table("ACTION(IGNORE)\n").control.resolve_input() == (None, None)

    def test_blank_command_line_queue_means_deadq(self) -> None:
        """Given runmqdlq ' ' with INPUTQ(Q2), then the QM's DEADQ (a blank name wins)."""
        t = table("INPUTQ(Q2)\nACTION(IGNORE)\n")
        assert t.control.resolve_input(" ", None) == (None, None)

    def test_blank_inputq_in_table(self) -> None:
        """Given INPUTQ(' ') INPUTQM(QMX), then the DEADQ of QMX."""
        t = table("INPUTQ(' ') INPUTQM(QMX)\nACTION(IGNORE)\n")
        assert t.control.resolve_input() == (None, "QMX")


def test_rule_text_round_trips() -> None:
    """Given a parsed rule, when its canonical text is parsed again, then the same rule."""
    t = table(SPEC_TABLE)
    again = table("\n".join(r.text() for r in t.rules) + "\n")
    assert [r.text() for r in again.rules] == [r.text() for r in t.rules]
    assert [attrs_without_line(r) for r in again.rules] == [attrs_without_line(r) for r in t.rules]


def attrs_without_line(rule: object) -> dict[str, object]:
    import attrs

    d = attrs.asdict(rule, recurse=False)
    d.pop("line")
    return d
