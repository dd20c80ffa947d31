"""Rules tables that must be rejected as a whole, each error naming its line and keyword."""

from __future__ import annotations

import pytest

from mqpy.dlq import RuleError, RulesTable, format_errors, parse_rules
from mqpy.dlq.rules import printed_id


def errors(text: str) -> list[RuleError]:
    result = parse_rules(text)
    assert not isinstance(result, RulesTable), f"accepted: {result!r}"
    return result


def located(text: str) -> list[tuple[str, int, str]]:
    return [(e.msgid, e.line, e.keyword) for e in errors(text)]


# (table, [(msgid, line, keyword)]) - the should-reject list of spec §3 and behaviours 31/34,
# each placed after a valid first line so that the line number is tested too.
SPEC_REJECTS = [
    pytest.param("ACTION(FWD) FWDQ(' ')\n", [("AMQ8754", 2, "FWDQ")], id="fwdq-blank"),
    pytest.param("ACTION(DISCARD) HEADER(NO)\n", [("AMQ8759", 2, "HEADER")], id="header-discard"),
    pytest.param("ACTION(RETRY) RETRY(0)\n", [("AMQ8757", 2, "RETRY")], id="retry-0"),
    pytest.param("ACTION(RETRY) RETRY(1000000000)\n", [("AMQ8757", 2, "RETRY")], id="retry-1e9"),
    pytest.param("ACTION(FW*)\n", [("AMQ8754", 2, "ACTION")], id="action-wildcard"),
    pytest.param("PERSIST(1?) ACTION(DISCARD)\n", [("AMQ8754", 2, "PERSIST")], id="persist-1?"),
    pytest.param("PERSIST(1*) ACTION(DISCARD)\n", [("AMQ8754", 2, "PERSIST")], id="persist-1*"),
    pytest.param("PERSIST(?) ACTION(DISCARD)\n", [("AMQ8754", 2, "PERSIST")], id="persist-?"),
    pytest.param(
        "DESTQ(X) DESTQ(Y) ACTION(DISCARD)\n", [("AMQ8753", 2, "DESTQ")], id="duplicate-destq"
    ),
    pytest.param(
        "DESTQ(" + "A" * 49 + ") ACTION(DISCARD)\n", [("AMQ8752", 2, "DESTQ")], id="destq-49"
    ),
    pytest.param("DESTQ(X) RETRY(3)\n", [("AMQ8759", 2, "ACTION")], id="no-action"),
]


@pytest.mark.parametrize(("rule", "expected"), SPEC_REJECTS)
def test_spec_rejects_name_line_and_keyword(
    rule: str, expected: list[tuple[str, int, str]]
) -> None:
    """Given one bad rule on line 2 after a good one, when parsed, then the table is rejected
    with the error on line 2 naming the keyword.

    spec: operations-dlq-clusters 7.31; operations-dlq-clusters 7.34
    """
    assert located("ACTION(IGNORE)\n" + rule) == expected


def test_only_control_data_is_rejected() -> None:
    """Given a table with only control data, then AMQ8750 (no rule) naming ACTION.

    spec: operations-dlq-clusters 7.31
    """
    assert located("* only control data\nINPUTQ(Q) WAIT(NO)\n") == [("AMQ8750", 2, "ACTION")]


def test_empty_table_is_rejected() -> None:
    """Given an empty rules table, then AMQ8750."""
    assert [e.msgid for e in errors("")] == ["AMQ8750"]


def test_every_error_is_reported_and_nothing_accepted() -> None:
    """Given a table whose errors are spread over several lines, then every one is reported in
    line order and the AMQ8758 count closes the report; no table is returned.

    spec: operations-dlq-clusters 7.31
    """
    text = (
        "RETRYINT(10)\n"
        "REASON(MQRC_Q_FULL) ACTION(RETRY) RETRY(5)\n"
        "ACTION(FWD) FWDQ(' ')\n"
        "* a comment\n"
        "ACTION(DISCARD) HEADER(YES)\n"
        "ACTION(FWD) FWDQ(OK)\n"
        "PERSIST(1*) RETRY(0) ACTION(RETRY)\n"
    )
    assert located(text) == [
        ("AMQ8754", 3, "FWDQ"),
        ("AMQ8759", 5, "HEADER"),
        ("AMQ8754", 7, "PERSIST"),
        ("AMQ8757", 7, "RETRY"),
    ]
    report = format_errors(errors(text)).splitlines()
    assert report[-1] == "AMQ8758E: 4 errors detected in input to runmqdlq."
    assert report[1] == (
        "AMQ8759E: Invalid combination of parameters(HEADER) on line 5. "
        "HEADER is valid only with ACTION(FWD)."
    )


def test_error_line_is_where_the_keyword_was_written() -> None:
    """Given a rule continued over three lines with a bad RETRY on the third, then line 3."""
    assert located("DESTQ(A) +\n  ACTION(RETRY) +\n  RETRY(0)\n") == [("AMQ8757", 3, "RETRY")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("DESTQ(A) DISCARD\n", ("AMQ8754", 1, "DISCARD"), id="unknown-keyword"),
        pytest.param("DESTQ(A ACTION(DISCARD)\n", ("AMQ8754", 1, "DESTQ"), id="unbalanced"),
        pytest.param("DESTQ('A) ACTION(DISCARD)\n", ("AMQ8754", 1, "DESTQ"), id="open-quote"),
        pytest.param("DESTQ(A B) ACTION(DISCARD)\n", ("AMQ8754", 1, "DESTQ"), id="blank-unquoted"),
        pytest.param(
            "DESTQ(A#B) ACTION(DISCARD)\n", ("AMQ8754", 1, "DESTQ"), id="special-unquoted"
        ),
        pytest.param("DESTQ() ACTION(DISCARD)\n", ("AMQ8754", 1, "DESTQ"), id="empty-value"),
        pytest.param("DESTQ('') ACTION(DISCARD)\n", ("AMQ8754", 1, "DESTQ"), id="empty-quoted"),
        pytest.param("ACTION DISCARD\n", ("AMQ8754", 1, "ACTION"), id="no-parentheses"),
        pytest.param("ACTION(DELETE)\n", ("AMQ8754", 1, "ACTION"), id="bad-action"),
        pytest.param("ACTION(FWD) FWDQ(A*)\n", ("AMQ8754", 1, "FWDQ"), id="fwdq-wildcard"),
        pytest.param("ACTION(FWD) FWDQ(A) FWDQM(B?)\n", ("AMQ8754", 1, "FWDQM"), id="fwdqm-wild"),
        pytest.param("ACTION(FWD) FWDQ(&DESTQM)\n", ("AMQ8754", 1, "FWDQ"), id="fwdq-destqm"),
        pytest.param("ACTION(FWD) FWDQ(A) FWDQM(&REPLYQ)\n", ("AMQ8754", 1, "FWDQM"), id="fwdqm-q"),
        pytest.param("DESTQ(&DESTQ) ACTION(DISCARD)\n", ("AMQ8754", 1, "DESTQ"), id="amp-pattern"),
        pytest.param("ACTION(FWD)\n", ("AMQ8759", 1, "FWDQ"), id="fwd-without-fwdq"),
        pytest.param("ACTION(FWD) FWDQ(A) HEADER(MAYBE)\n", ("AMQ8754", 1, "HEADER"), id="header"),
        pytest.param("ACTION(RETRY) PUTAUT(ALT)\n", ("AMQ8754", 1, "PUTAUT"), id="putaut"),
        pytest.param("ACTION(RETRY) RETRY(*)\n", ("AMQ8754", 1, "RETRY"), id="retry-star"),
        pytest.param("ACTION(RETRY) RETRY(THREE)\n", ("AMQ8754", 1, "RETRY"), id="retry-word"),
        pytest.param("REASON(MQRC_NO_SUCH) ACTION(DISCARD)\n", ("AMQ8754", 1, "REASON"), id="sym"),
        pytest.param("REASON(MQFB_COA) ACTION(DISCARD)\n", ("AMQ8754", 1, "REASON"), id="family"),
        pytest.param(
            "PERSIST(MQRC_Q_FULL) ACTION(DISCARD)\n", ("AMQ8754", 1, "PERSIST"), id="fam2"
        ),
        pytest.param("REASON(1000000000) ACTION(DISCARD)\n", ("AMQ8757", 1, "REASON"), id="range"),
        pytest.param(
            "FORMAT(MQSTRINGX) ACTION(DISCARD)\n", ("AMQ8752", 1, "FORMAT"), id="format-9"
        ),
        pytest.param("USERID(ABCDEFGHIJKLM) ACTION(DISCARD)\n", ("AMQ8752", 1, "USERID"), id="uid"),
        pytest.param(
            "APPLNAME('" + "a" * 29 + "') ACTION(DISCARD)\n",
            ("AMQ8752", 1, "APPLNAME"),
            id="applname-29",
        ),
        pytest.param(
            "APPLIDAT(" + "A" * 33 + ") ACTION(DISCARD)\n",
            ("AMQ8752", 1, "APPLIDAT"),
            id="applidat-33",
        ),
        pytest.param("WAIT(SOMETIMES)\nACTION(IGNORE)\n", ("AMQ8754", 1, "WAIT"), id="wait"),
        pytest.param("RETRYINT(1000000000)\nACTION(IGNORE)\n", ("AMQ8757", 1, "RETRYINT"), id="ri"),
        pytest.param("INPUTQ(DLQ.*)\nACTION(IGNORE)\n", ("AMQ8754", 1, "INPUTQ"), id="inputq-wild"),
        pytest.param(
            "INPUTQM(" + "Q" * 49 + ")\nACTION(IGNORE)\n",
            ("AMQ8752", 1, "INPUTQM"),
            id="inputqm-49",
        ),
    ],
)
def test_other_rejects(text: str, expected: tuple[str, int, str]) -> None:
    """Given a malformed entry, then exactly one error with the right id, line and keyword."""
    assert located(text) == [expected]


def test_control_data_after_a_rule_is_rejected() -> None:
    """Given control data as the second entry, then AMQ8754 on its line: it must be first."""
    assert located("ACTION(IGNORE)\nRETRYINT(5)\n") == [("AMQ8754", 2, "RETRYINT")]


def test_control_data_mixed_with_a_rule_is_rejected() -> None:
    """Given INPUTQ and ACTION in one entry, then AMQ8754 naming the rule keyword."""
    assert located("INPUTQ(Q) ACTION(IGNORE)\nACTION(IGNORE)\n") == [("AMQ8754", 1, "ACTION")]


def test_table_ending_inside_a_continuation_is_rejected() -> None:
    """Given a last line ending in '+', then AMQ8754 on that line."""
    assert located("ACTION(IGNORE)\nDESTQ(A) +\n") == [("AMQ8754", 2, "DESTQ")]


def test_a_line_with_a_broken_item_does_not_hide_the_next_line() -> None:
    """Given two bad lines in a row, then both are reported (each entry is checked alone)."""
    assert located("DESTQ(A ACTION(DISCARD)\nACTION(FW?)\n") == [
        ("AMQ8754", 1, "DESTQ"),
        ("AMQ8754", 2, "ACTION"),
    ]


def test_messages_are_amq_style_and_name_line_and_keyword() -> None:
    """Given any error, then its text starts with its AMQ id and names keyword and line."""
    found = errors("ACTION(RETRY) RETRY(0)\nDESTQ(X) DESTQ(Y) ACTION(DISCARD)\n")
    assert len(found) == 2, found  # RETRY(0) on line 1, DESTQ twice on line 2
    for e in found:
        assert e.message.startswith(printed_id(e.msgid) + ": ")  # AMQ8757E: ...
        assert f"({e.keyword})" in e.message and f"line {e.line}" in e.message
        assert str(e) == e.message
