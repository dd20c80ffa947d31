"""The DLQ handler rules table's syntax rules, one test each, as IBM's runmqdlq documents them:
what a table must hold, how items are separated and continued, how values are quoted, folded,
padded and wildcarded."""

from __future__ import annotations

from mqpy.dlq import RulesTable, parse_rules
from mqpy.dlq.rules import Action


def table(text: str) -> RulesTable:
    result = parse_rules(text)
    assert isinstance(result, RulesTable), f"rejected: {result!r}"
    return result


def rejected(text: str) -> list[str]:
    result = parse_rules(text)
    assert not isinstance(result, RulesTable), f"accepted: {result!r}"
    return [e.keyword for e in result]


def test_given_a_table_without_rules_when_read_then_it_is_rejected():
    """Given only comments and blank lines, when read, then no rule means no table.

    spec: operations-dlq-clusters 3 item 1"""
    rejected("* nothing but a comment\n\n")


def test_given_keywords_in_any_order_and_case_when_read_then_one_rule_results():
    """Given a rule's keywords in lower case and any order, then they are read as upper case;
    given a keyword twice, then the rule is rejected.

    spec: operations-dlq-clusters 3 item 2"""
    rule = table("retry(3) Action(Retry) destq(Q1)\n").rules[0]
    assert (rule.action, rule.retry, rule.destq) == (Action.RETRY, 3, "Q1")
    assert "DESTQ" in rejected("DESTQ(A) destq(B) ACTION(DISCARD)\n")


def test_given_items_separated_by_commas_or_blanks_when_read_then_both_separate():
    """Given items separated by a comma, by blanks, and blanks around a keyword's value,
    then all are read.

    spec: operations-dlq-clusters 3 item 3"""
    rule = table("DESTQ (Q1),PERSIST( 1 ) ,  ACTION(DISCARD)\n").rules[0]
    assert (rule.destq, rule.persist, rule.action) == ("Q1", 1, Action.DISCARD)


def test_given_two_lines_when_read_then_each_starts_a_rule():
    """Given two lines without a continuation, then they are two rules.

    spec: operations-dlq-clusters 3 item 4"""
    rules = table("DESTQ(A) ACTION(DISCARD)\nDESTQ(B) ACTION(IGNORE)\n").rules
    assert [(r.destq, r.action) for r in rules] == [("A", Action.DISCARD), ("B", Action.IGNORE)]


def test_given_plus_and_minus_continuations_when_read_then_they_join_as_ibm_says():
    """Given ``+`` at a line's end, then the next line joins from its first non-blank; given
    ``-``, then it joins from column 1, even inside a keyword.

    spec: operations-dlq-clusters 3 item 5"""
    plus = table("DESTQ(A) +\n      ACTION(DISCARD)\n").rules[0]
    minus = table("DEST-\nQ(X.Y) ACTION(DISCARD)\n").rules[0]
    assert (plus.destq, plus.action, minus.destq) == ("A", Action.DISCARD, "X.Y")


def test_given_comments_and_blank_lines_anywhere_when_read_then_they_are_ignored():
    """Given ``*`` comments and blank lines between rules, then only the rules count.

    spec: operations-dlq-clusters 3 item 6"""
    rules = table("* first\nDESTQ(A) ACTION(DISCARD)\n\n* between\n\nACTION(IGNORE)\n").rules
    assert [r.action for r in rules] == [Action.DISCARD, Action.IGNORE]


def test_given_a_value_of_only_quotes_when_read_then_it_is_rejected():
    """Given a value with no significant character, then it is rejected; delimiting quotes
    are not part of the value.

    spec: operations-dlq-clusters 3 item 7"""
    assert "DESTQ" in rejected("DESTQ('') ACTION(DISCARD)\n")
    assert table("DESTQ('ABC') ACTION(DISCARD)\n").rules[0].destq == "ABC"


def test_given_wildcards_when_used_then_they_match_and_are_refused_where_ibm_forbids():
    """Given ``?`` and ``*`` in a pattern, then they are wildcards; in FWDQ, FWDQM, PUTAUT,
    HEADER or RETRY they are rejected.

    spec: operations-dlq-clusters 3 item 8"""
    assert table("DESTQ(A?C*) ACTION(DISCARD)\n").rules[0].destq == "A?C*"
    for bad in ("ACTION(FWD) FWDQ(Q*)", "ACTION(FWD) FWDQ(Q) FWDQM(QM?)",
                "ACTION(FWD) FWDQ(Q) PUTAUT(DE*)", "ACTION(FWD) FWDQ(Q) HEADER(Y*)",
                "ACTION(RETRY) RETRY(1*)"):
        assert rejected(bad + "\n"), bad


def test_given_trailing_blanks_in_quotes_when_read_then_only_leading_ones_count():
    """Given ``' AB  '`` then the value is `` AB`` (trailing blanks ignored, leading kept).

    spec: operations-dlq-clusters 3 item 9"""
    assert table("APPLNAME(' AB  ') ACTION(DISCARD)\n").rules[0].applname.rstrip() == " AB"


def test_given_numbers_when_read_then_range_and_wildcards_follow_ibm():
    """Given ``*`` as a whole numeric value, a symbolic name, and 999,999,999, then they are
    accepted; ``?`` or a number beyond the range is rejected.

    spec: operations-dlq-clusters 3 item 10"""
    rule = table("PERSIST(*) REASON(MQRC_Q_FULL) FEEDBACK(999999999) ACTION(DISCARD)\n").rules[0]
    assert (rule.persist, rule.reason, rule.feedback) == (None, 2053, 999999999)
    assert rejected("FEEDBACK(1000000000) ACTION(DISCARD)\n")
    assert rejected("FEEDBACK(?) ACTION(DISCARD)\n")


def test_given_a_value_longer_than_its_field_when_read_then_it_is_rejected():
    """Given a 48-character queue name it is accepted; 49 characters are rejected, but a
    trailing ``*`` does not count.

    spec: operations-dlq-clusters 3 item 11"""
    assert table("DESTQ(" + "A" * 48 + ") ACTION(DISCARD)\n").rules[0].destq == "A" * 48
    assert table("DESTQ(" + "A" * 48 + "*) ACTION(DISCARD)\n")
    assert "DESTQ" in rejected("DESTQ(" + "A" * 49 + ") ACTION(DISCARD)\n")


def test_given_quoted_and_unquoted_lowercase_when_read_then_only_unquoted_is_folded():
    """Given unquoted lower case it is folded to upper case; quoted it keeps its case, and an
    embedded ``''`` is one quote.

    spec: operations-dlq-clusters 3 item 12"""
    rules = table("DESTQ(abc) ACTION(DISCARD)\nAPPLNAME('it''s') ACTION(IGNORE)\n").rules
    assert (rules[0].destq, rules[1].applname) == ("ABC", "it's")
