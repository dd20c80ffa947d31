"""An authority record's generic profile is matched against the name an application opens
(any name it likes, up to 48 characters): in time bounded by the lengths whatever ``*`` the
operator's profile holds, with IBM's meaning (``*`` any characters within a qualifier,
``?`` one, ``**`` any whole qualifiers)."""

from __future__ import annotations

import pytest

from mqpy.security.authority import profile_matches

pytestmark = pytest.mark.timeout(10)


def test_a_profile_of_many_asterisks_against_a_long_name_answers_at_once():
    """Given a profile of ten ``*`` between letters, when a 48-character name it does not
    match is judged, then the answer (no match) comes at once: a regular expression of
    ``[^.]*`` runs backtracked over it for longer than the test's timeout (8 of them: 3 s
    on an idle machine, at every MQOPEN of such a name)."""
    assert not profile_matches("A*" * 10 + "B", "A" * 48)
    assert profile_matches("A*" * 10 + "B", "A" * 47 + "B")
    assert not profile_matches("**.A*A*A*A*A*A*A*A*A*A*B", "X." + "A" * 46)


@pytest.mark.parametrize("profile, name, expected", [
    ("**", "ANY.THING", True), ("**", "", True), ("A.**", "A", True), ("A.**", "A.B.C", True),
    ("A.**", "AB", False), ("**.Q", "Q", True), ("**.Q", "X.Y.Q", True), ("**.Q", "XQ", False),
    ("A.**.Z", "A.Z", True), ("A.**.Z", "A.B.C.Z", True), ("A.**.Z", "A.BZ", False),
    ("A*", "ABC", True), ("A*", "A.B", False), ("*.B", "A.B", True), ("*.B", ".B", True),
    ("A?C", "ABC", True), ("A?C", "A.C", False), ("A?C", "AC", False),
    ("PAY.*", "PAY.IN", True), ("PAY.*", "PAY.IN.X", False), ("PAY.*", "PAY.", True),
    ("A*B*C", "AXBYC", True), ("A*B*C", "AXB.C", False),
    ("Q1", "Q1", True), ("Q1", "Q2", False), ("A..B", "A..B", True), ("A.*.B", "A..B", True),
])
def test_generic_profiles_mean_what_they_meant(profile, name, expected):
    assert profile_matches(profile, name) is expected
