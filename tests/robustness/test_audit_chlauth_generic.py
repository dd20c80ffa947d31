"""CHLAUTH's generic names are matched against what a peer sends before it has
authenticated (its channel name, its queue manager's name, its user id): the match takes
time bounded by the lengths, whatever ``*`` the operator's record holds, and means what it
meant (``*`` anywhere: any characters, none included)."""

from __future__ import annotations

import fnmatch

import pytest

from mqpy.security.chlauth import generic_matches

pytestmark = pytest.mark.timeout(10)


def test_a_pattern_of_many_asterisks_against_a_long_name_answers_at_once():
    """Given a QMNAME pattern of a dozen ``*`` (a record an operator may write), when a
    partner's 48-character queue-manager name that it does not match is judged, then the
    answer (no match) comes at once: a regular expression of ``.*`` runs backtracked over
    it for longer than the test's timeout (8 of them over 48 characters: minutes)."""
    pattern = "*." * 12 + "X"
    assert not generic_matches(pattern, "." * 48)
    assert not generic_matches(pattern, "." * 48, ignore_case=True)
    assert generic_matches(pattern, "." * 47 + "x", ignore_case=True)


@pytest.mark.parametrize("pattern, name", [
    ("*", ""), ("*", "ANY.CHANNEL"), ("A*", "A"), ("A*", "AB"), ("A*", "BA"),
    ("*A", "BA"), ("*A", "AB"), ("A*B", "AB"), ("A*B", "AXXB"), ("A*B", "ABA"),
    ("A*B*C", "ABC"), ("A*B*C", "AXBXC"), ("A*B*C", "ACB"), ("**", "X"), ("A**A", "A"),
    ("A*A", "A"), ("A*A", "AA"), ("*.SVRCONN", "APP.SVRCONN"), ("SYSTEM.*", "SYSTEM"),
    ("SYSTEM.*", "SYSTEM.DEF.SVRCONN"), ("*[*", "a[b"), ("*[b", "a[b"), ("a?c", "abc"),
    ("a?c", "a?c"), ("EXACT", "EXACT"), ("EXACT", "exact"),
])
def test_generic_names_mean_what_they_meant(pattern, name):
    """``*`` stands for any characters (none included), every other character for itself
    (``?`` and ``[`` too); case counts unless ignored."""
    literal = "".join("*" if c == "*" else f"[{c}]" for c in pattern)
    assert generic_matches(pattern, name) == fnmatch.fnmatchcase(name, literal)
    assert generic_matches(pattern, name, ignore_case=True) == \
        fnmatch.fnmatchcase(name.lower(), literal.lower())
