"""Given selection strings, when parsed, then IBM's grammar is accepted and anything else is
MQRC_SELECTOR_SYNTAX_ERROR at the offending offset, never a Python exception."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqpy import CMQC
from mqpy.properties.errors import PropertyError
from mqpy.selection.evaluate import compile_selector
from mqpy.selection.lexer import SelectorSyntaxError

VALID = [
    "colour = 'red'", "colour <> 'it''s'", "weight > 10 AND weight <= 20.5",
    "NOT (a = 1) OR b IS NOT NULL", "a BETWEEN 1 AND 5", "a NOT BETWEEN -1 AND +2e3",
    "c IN ('UK', 'US')", "c NOT IN ('x')", "n LIKE 'ab%' ESCAPE '!'", "n NOT LIKE '_x'",
    "x IS NULL", "(a + 1) * 2 / 3 - -4 > 0", "flag", "flag = TRUE", "true", "FALSE OR flag",
    "Root.MQMD.Priority >= 5", "JMSPriority > 3", "JMSDeliveryMode = 'PERSISTENT'",
    "mcd.Type = 'x'", "usr.colour = 'red'", "b = 0x0AFC23", "o = 0177", "n = 57L",
    "f = 7. AND g = .5 AND h = 7E3 AND i = 1.5f AND j = 2D", "a and b or not c",
    "$x = 1", "été = 'summer'", "mq_usr.a.b = 1"]


@pytest.mark.parametrize("text", VALID)
def test_given_ibms_grammar_then_accepted(text):
    compile_selector(text)


@pytest.mark.parametrize("text,offset", [
    ("5", 0), ("'a'", 0), ("a = ", 4), ("a = 1 b", 6), ("a LIKE b", 7), ("a IN (b)", 6),
    ("(a = 1", 6), ("a = 'x", 4), ("a # 1", 2), ("09 = a", 0), ("12ab = 1", 2),
    ("'a' < 'b'", 0), ("a > 'b'", 4), ("NOT 5", 4), ("1 + 'a' = 2", 4), ("a = 1 AND 5", 10),
    ("JMSFoo = 1", 0), ("Body.x = 1", 0), ("Root.MQMD.Nope = 1", 0), ("a.. = 1", 0),
    ("a LIKE 'x' ESCAPE 'ab'", 18), ("a LIKE 'x!' ESCAPE '!'", 2), ("2 * 3 AND a", 0), ("a AND 1 + 2", 6), ("(1 + 2) IS NULL", 1),
    ("a IS 1", 5), ("a NOT = 1", 6), ("a BETWEEN 1", 11), ("AND", 0), ("a = = 1", 4)])
def test_given_invalid_text_then_syntax_error_at_its_offset(text, offset):
    with pytest.raises(SelectorSyntaxError) as err:
        compile_selector(text)
    assert err.value.reason == CMQC.MQRC_SELECTOR_SYNTAX_ERROR == 2459
    assert err.value.comp == CMQC.MQCC_FAILED
    assert err.value.position == offset


def test_given_an_empty_or_blank_selector_then_everything_is_selected():
    assert compile_selector("").matches({}) and compile_selector("   ").matches({})
    assert compile_selector(None).matches({})


def test_given_a_selector_longer_than_ibms_limit_then_selection_string_error():
    with pytest.raises(PropertyError) as err:
        compile_selector("a = 1 OR " * 2000 + "a = 1")
    assert err.value.reason == CMQC.MQRC_SELECTION_STRING_ERROR


def test_given_deep_nesting_then_a_syntax_error_not_a_recursion_error():
    with pytest.raises(SelectorSyntaxError):
        compile_selector("(" * 3000 + "a" + ")" * 3000)
    with pytest.raises(SelectorSyntaxError):
        compile_selector("NOT " * 2000 + "a")
    with pytest.raises(SelectorSyntaxError):
        compile_selector("-" * 2000 + "a > 1")


def test_given_a_long_flat_chain_then_accepted():
    sel = compile_selector(" AND ".join(["a = 1"] * 1000))
    assert sel.matches({"a": 1})


_ALPHABET = st.sampled_from(list("ab1 0x.'()=<>+-*/%_!,eE") + [
    " AND ", " OR ", " NOT ", " LIKE ", " IN ", " IS ", " NULL ", " BETWEEN ", " ESCAPE ",
    "TRUE", "Root.MQMD.Priority", "JMSPriority", "0x0F", "1.5"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_ALPHABET, max_size=25).map("".join))
def test_given_random_selector_like_text_then_never_a_python_exception(text):
    try:
        sel = compile_selector(text)
    except SelectorSyntaxError as err:
        assert 0 <= err.position <= len(text)
        return
    sel.matches({"a": 1, "b": "x"}, None)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_given_any_text_then_a_selector_or_a_reason_code(text):
    try:
        compile_selector(text).matches({}, None)
    except PropertyError as err:
        assert err.reason in (CMQC.MQRC_SELECTOR_SYNTAX_ERROR, CMQC.MQRC_SELECTION_STRING_ERROR)


def test_given_selection_bytes_then_decoded_in_their_ccsid():
    sel = compile_selector("name = 'été'".encode("latin-1"), ccsid=819)
    assert sel.matches({"name": "été"})
    assert compile_selector("name = 'été'".encode("utf-8")).matches({"name": "été"})


def test_given_selection_bytes_in_an_unknown_ccsid_then_source_ccsid_error():
    with pytest.raises(PropertyError) as err:
        compile_selector(b"a = 1", ccsid=424242)
    assert err.value.reason == CMQC.MQRC_SOURCE_CCSID_ERROR
