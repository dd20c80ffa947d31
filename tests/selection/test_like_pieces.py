"""A LIKE pattern is matched piece by piece (``like_matcher``), not by a regular expression of
``.*`` runs; the two must answer alike for every pattern and string. The reference here is the
plain translation, fine for the short strings drawn."""

from __future__ import annotations

import random
import re

import pytest

from mqpy.selection.evaluate import like_matcher

ESCAPE = "!"


def reference(pattern: str, escape: str | None) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == escape:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append({"%": ".*", "_": "."}.get(ch, re.escape(ch)))
        i += 1
    return re.compile("".join(out), re.DOTALL)


def drawn_pattern(draw: random.Random) -> tuple[str, str | None]:
    escape = ESCAPE if draw.random() < 0.3 else None
    tokens = ["a", "b", "%", "_", "\n", "."] + ([ESCAPE + "%", ESCAPE + "_"] if escape else [])
    return "".join(draw.choice(tokens) for _ in range(draw.randint(0, 7))), escape


@pytest.mark.parametrize("seed", range(20))
def test_piece_by_piece_answers_as_the_regular_expression(seed):
    """Given drawn patterns (with ``%``, ``_``, escapes, dots and line breaks) and strings,
    when each is matched both ways, then the answers are the same."""
    draw = random.Random(seed)
    for _ in range(200):
        pattern, escape = drawn_pattern(draw)
        fast, slow = like_matcher(pattern, escape), reference(pattern, escape)
        for _ in range(20):
            v = "".join(draw.choice("ab\n.%_") for _ in range(draw.randint(0, 9)))
            assert fast(v) is (slow.fullmatch(v) is not None), (pattern, escape, v)


@pytest.mark.parametrize(("pattern", "value", "expected"), [
    ("%", "", True), ("%%", "x", True), ("a%", "a", True), ("%a", "ba", True),
    ("a%a", "a", False), ("a%a", "aa", True), ("_%_", "x", False), ("%b%b%", "bab", True),
    ("%ab%ab%", "abab", True), ("%ab%ab%", "aba", False), ("!%%", "%x", True),
])
def test_pieces_at_the_edges(pattern, value, expected):
    """Given a pattern whose pieces meet at the string's edges or overlap, then the answer is
    LIKE's."""
    assert like_matcher(pattern, ESCAPE)(value) is expected
