"""Input rules of runmqsc: comments, blank lines, + and - continuation, ; and tokens."""

from mqpy.mqsc import MAX_COMMAND_LENGTH, parse_command, scan_lines, split_commands
from mqpy.mqsc.lexer import LexError, tokenize


def test_comment_and_blank_lines_are_ignored():
    """Given a script with '*' comment lines and blank lines, then only commands come out,
    numbered by their physical line."""
    script = "* a comment\n\nDEFINE QLOCAL(A)\n   \n* another\nDIS QL(A)\n"
    assert list(split_commands(script)) == [(3, "DEFINE QLOCAL(A)"), (6, "DIS QL(A)")]


def test_plus_continues_from_first_nonblank_of_next_line():
    """Given a line ending in '+', when the next line is indented, then its leading blanks
    are dropped and the text before '+' (its blank included) is kept."""
    script = "DEFINE QLOCAL(A) +\n      DESCR('x')\n"
    assert list(split_commands(script)) == [(1, "DEFINE QLOCAL(A) DESCR('x')")]


def test_minus_continues_from_start_of_next_line_keeping_blanks():
    """Given a line ending in '-', then the next line is appended from its first column."""
    script = "DEFINE QLOCAL(A) DESCR('ab-\n  cd')\n"
    assert list(split_commands(script)) == [(1, "DEFINE QLOCAL(A) DESCR('ab  cd')")]


def test_continuation_inside_quoted_string_ibm_fred_example():
    """IBM's example: 'Fr+ / ed' and 'Fr- / ed' (e in column 1) are both 'Fred'."""
    plus = list(split_commands("DEFINE QLOCAL(A) DESCR('Fr+\n    ed')"))
    minus = list(split_commands("DEFINE QLOCAL(A) DESCR('Fr-\ned')"))
    assert plus == minus == [(1, "DEFINE QLOCAL(A) DESCR('Fred')")]
    assert parse_command(plus[0][1]).params["DESCR"] == "Fred"


def test_trailing_blanks_after_continuation_character_are_ignored():
    """The continuation character is the last NONBLANK character of the line."""
    assert list(split_commands("DIS QL(A) +   \n CURDEPTH")) == [(1, "DIS QL(A) CURDEPTH")]


def test_comments_and_blank_lines_inside_a_continued_command_are_discarded():
    """IBM: comments or blank lines are discarded when the command is reassembled; the
    comment is reported after the command it interrupted."""
    items = list(scan_lines("DEFINE QLOCAL(A) +\n* note\n\n  MAXDEPTH(10)\nEND"))
    assert [(i.kind, i.line_no, i.text) for i in items] == [
        ("command", 1, "DEFINE QLOCAL(A) MAXDEPTH(10)"),
        ("comment", 2, "* note"),
        ("blank", 3, ""),
        ("command", 5, "END"),
    ]
    assert items[0].raw_lines == ("DEFINE QLOCAL(A) +", "  MAXDEPTH(10)")


def test_semicolon_ends_a_command_even_after_a_continuation():
    """IBM: ';' terminates a command even if '+' ended the previous line."""
    assert list(split_commands("DIS QMGR +\n;\nDIS QL(A);\nEND")) == [
        (1, "DIS QMGR "),
        (3, "DIS QL(A)"),
        (4, "END"),
    ]


def test_semicolon_is_not_a_separator_between_commands():
    """Given two commands on one line separated by ';', then it is one command and a syntax
    error, not two commands."""
    cmds = list(split_commands("DIS QL(A); DIS QL(B)"))
    assert len(cmds) == 1
    assert parse_command(cmds[0][1]).msgid == "AMQ8405I"


def test_semicolon_inside_quotes_is_text():
    """A ';' inside a quoted string at the end of a line is not a terminator."""
    assert list(split_commands("DEFINE QLOCAL(A) DESCR('a;+\nb')")) == [
        (1, "DEFINE QLOCAL(A) DESCR('a;b')")
    ]


def test_pending_continuation_at_end_of_input_is_returned():
    """Given input ending with a continued line, then the partial command is returned."""
    assert list(split_commands(["DIS QL(A) +"])) == [(1, "DIS QL(A) ")]


def test_lines_from_an_iterable_keep_working_with_newlines():
    """Lines read from a file keep their newline; it is not part of the command."""
    assert list(split_commands(["DIS QMGR\n", "END\r\n"])) == [(1, "DIS QMGR"), (2, "END")]


def test_tokens_quotes_doubled_quote_and_positions():
    """'' inside quotes is one quote; blanks and commas separate; positions index the text."""
    toks = tokenize("ALTER QLOCAL ('Account' ) , DESCR('it''s')")
    assert [(t.kind, t.value) for t in toks] == [
        ("WORD", "ALTER"), ("WORD", "QLOCAL"), ("(", "("), ("QUOTED", "Account"), (")", ")"),
        ("WORD", "DESCR"), ("(", "("), ("QUOTED", "it's"), (")", ")"),
    ]  # fmt: skip
    assert toks[3].start == 14 and toks[3].end == 23


def test_unterminated_quote_is_a_lex_error_pointing_after_the_quote():
    """Given an odd quote, then the error ends just after the opening quote (as runmqsc's
    segment ``RQMNAME (QMB'`` shows)."""
    err = tokenize("RQMNAME (QMB') XMITQ (QMB)")
    assert isinstance(err, LexError) and err.end == 13


def test_command_longer_than_32762_characters_is_refused():
    """The maximum length of an MQSC command is 32 762 characters."""
    ok = "DEFINE QLOCAL(A) DESCR(X)" + " " * (MAX_COMMAND_LENGTH - 25)
    assert len(ok) == MAX_COMMAND_LENGTH
    assert parse_command(ok).verb == "DEFINE"
    err = parse_command(ok + " ")
    assert err.msgid == "AMQ8405I" and "32762" in err.reason
