"""Values put into MQSC text are quoted: whatever a string holds, it reads back as itself
and cannot add a keyword to the command it is put in."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqpy.mqsc import parse_command
from mqpy.mqsc.lexer import QUOTED, tokenize
from mqpy.mqsc.writer import command_text, keyword, quote


@given(st.text())
def test_any_string_is_one_quoted_token_with_its_own_value(value):
    """Given any string, when it is quoted, then the lexer reads one quoted token whose value
    is the string (a blank value reads back blank)."""
    tokens = tokenize(quote(value))
    assert len(tokens) == 1 and tokens[0].kind == QUOTED
    assert tokens[0].value == (value or " ")


@given(st.text(max_size=64))
def test_a_quoted_description_round_trips_through_the_parser(value):
    """Given any description of at most 64 characters, when DEFINE QLOCAL carries it
    quoted, then the parser finds that DESCR and no other parameter."""
    cmd = parse_command(f"DEFINE QLOCAL(A) DESCR({quote(value)})")
    assert not hasattr(cmd, "reason"), cmd
    assert dict(cmd.params) == {"DESCR": value if value.strip() else ""}
    assert not cmd.flags


def test_the_partner_name_of_a_chad_definition_stays_a_description():
    """Given the 28 characters a hostile partner sends as its queue-manager name, when they
    go into DESCR of a DEFINE CHANNEL, then the command defines no MCAUSER."""
    hostile = "x') MCAUSER('mqm') MSGDATA('"
    text = command_text("DEFINE", "CHANNEL", "AUTO.X", {
        "LIKE": "SYSTEM.AUTO.RECEIVER", "CHLTYPE": "RCVR",
        "DESCR": f"Auto-defined by {hostile}", "SEQWRAP": 999999999})
    cmd = parse_command(text)
    assert cmd.params["DESCR"] == f"Auto-defined by {hostile}"
    assert "MCAUSER" not in cmd.params and "MSGDATA" not in cmd.params
    assert cmd.params["SEQWRAP"] == 999999999 and cmd.name == "AUTO.X"


def test_lists_and_flags_are_written_as_mqsc_reads_them():
    """A list is quoted items separated by commas, a flag a bare keyword, an empty list a
    blank value."""
    text = command_text("SET", "AUTHREC", None, {"PROFILE": "a'b", "OBJTYPE": "QUEUE",
                                                 "PRINCIPAL": "bob", "AUTHADD": ["GET", "PUT"]})
    assert text == "SET AUTHREC PROFILE('a''b') OBJTYPE('QUEUE') PRINCIPAL('bob') " \
                   "AUTHADD('GET','PUT')"
    assert command_text("DISPLAY", "QLOCAL", "q*", flags=["CURDEPTH"]) == \
        "DISPLAY QLOCAL('q*') CURDEPTH"
    assert command_text("ALTER", "QLOCAL", "A", {"INITQ": []}) == "ALTER QLOCAL('A') INITQ(' ')"


@pytest.mark.parametrize("word", ["DESCR(", "x", "A B", "", "MCAUSER('mqm')"])
def test_a_keyword_is_only_letters_and_digits(word):
    with pytest.raises(ValueError):
        keyword(word)
