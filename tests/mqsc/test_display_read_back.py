"""DISPLAY output read back into attributes (the channel initiator reads its channels so):
values are printed unquoted, so a quote or a parenthesis in one (a description an operator or
a partner wrote) must not swallow the item printed beside it."""

from hypothesis import given
from hypothesis import strategies as st

from mqpy.mqsc.display import format_attrs, parse_objects

_TEXT = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=64)


def _shown(pairs: list[tuple[str, object]]) -> list[str]:
    return ["AMQ8414I: Display Channel details.", *format_attrs(pairs)]


def test_a_description_with_one_quote_keeps_its_neighbour():
    """Given a RCVR whose DESCR is a'b (short enough to share its line with MCAUSER), then
    both read back as printed, and so do the other items."""
    rows = parse_objects(_shown([("CHANNEL", "C1"), ("CHLTYPE", "RCVR"), ("DESCR", "a'b"),
                                 ("MCAUSER", "app"), ("SEQWRAP", 999999999),
                                 ("NOTRIGGER", None)]))
    assert rows == [{"CHANNEL": "C1", "CHLTYPE": "RCVR", "DESCR": "a'b", "MCAUSER": "app",
                     "SEQWRAP": 999999999, "NOTRIGGER": True}]


@given(descr=_TEXT, user=st.from_regex(r"[a-z][a-z0-9]{0,11}", fullmatch=True))
def test_any_printable_description_leaves_mcauser_as_it_is(descr, user):
    """Given any printable DESCR, then MCAUSER (printed after it) reads back unchanged."""
    rows = parse_objects(_shown([("CHANNEL", "C1"), ("CHLTYPE", "RCVR"), ("DESCR", descr),
                                 ("MCAUSER", user)]))
    assert rows[0]["MCAUSER"] == user and rows[0]["CHLTYPE"] == "RCVR"
