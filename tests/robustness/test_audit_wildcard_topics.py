"""A subscription's topic string is an application's text, and so is a publication's: matching
one against the other (at every publication, under the engine's lock) must take a time bounded
by their lengths, whatever wildcards the subscription holds. A matcher that tries every split
of its many-wildcards (``#`` of levels, ``*`` of characters) takes a time exponential in
their number: ``*a*a*a*a*b`` against 200 ``a`` took 9 s of CPU, ``#/a/#/a/#/a/#/a/b``
against 200 levels 54 s, each during one MQPUT."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqpy import CMQC
from mqpy.pubsub.topicstrings import matches

#: far more CPU than any of the cases below takes (each a few milliseconds at most)
BUDGET_S = 2.0

HOSTILE = [
    pytest.param("*a" * 12 + "*b", "a" * 10240, CMQC.MQWS_CHAR, id="char *a*a...*b"),
    pytest.param("*?" * 50 + "*b", "a" * 10240, CMQC.MQWS_CHAR, id="char *?*?...*b"),
    pytest.param("/".join(["#", "a"] * 12) + "/b", "/".join(["a"] * 5000), CMQC.MQWS_TOPIC,
                 id="topic #/a/#/a/.../b"),
    pytest.param("/".join(["#", "+"] * 40) + "/b", "/".join(["a"] * 5000), CMQC.MQWS_TOPIC,
                 id="topic #/+/#/+/.../b"),
]


@pytest.mark.timeout(20)
@pytest.mark.parametrize(("subscribed", "published", "scheme"), HOSTILE)
def test_a_hostile_wildcard_subscription_is_matched_in_bounded_time(subscribed, published,
                                                                    scheme):
    """Given a subscription of many many-wildcards, when a long publication that almost
    matches it is matched, then the answer (no) comes within a small CPU budget."""
    started = time.process_time()
    assert matches(subscribed, published, scheme) is False
    assert time.process_time() - started < BUDGET_S


# --- the rules, as the backtracking matchers wrote them: the reference on small cases -------

def _reference_char(subscribed: str, published: str) -> bool:
    parts, escaped = [], False
    for c in subscribed:
        if escaped:
            parts.append(re.escape(c))
            escaped = False
        elif c == "%":
            escaped = True
        elif c == "*":
            parts.append(".*")
        elif c == "?":
            parts.append(".")
        else:
            parts.append(re.escape(c))
    return re.fullmatch("".join(parts), published, re.DOTALL) is not None


def _reference_levels(sub: tuple[str, ...], i: int, pub: tuple[str, ...], j: int) -> bool:
    while i < len(sub):
        if sub[i] == "#":
            return any(_reference_levels(sub, i + 1, pub, k) for k in range(j, len(pub) + 1))
        if j >= len(pub) or (sub[i] != "+" and sub[i] != pub[j]):
            return False
        i, j = i + 1, j + 1
    return j == len(pub)


_CHARS = st.text(alphabet="ab*?%/", max_size=8)
_TEXT = st.text(alphabet="ab?*%/", max_size=10)
_LEVEL = st.sampled_from(["a", "b", "#", "+", "", "a#", "+b"])
_PUB_LEVEL = st.sampled_from(["a", "b", "", "#", "+"])


@settings(max_examples=500, deadline=None)
@given(subscribed=_CHARS, published=_TEXT)
def test_the_character_scheme_answers_as_its_rules_say(subscribed, published):
    """Given any small subscription and publication of the character-based scheme, then the
    answer is the rules' (``*`` any characters, ``?`` one, ``%`` the next literal)."""
    assert matches(subscribed, published, CMQC.MQWS_CHAR) == \
        _reference_char(subscribed, published)


@settings(max_examples=500, deadline=None)
@given(sub=st.lists(_LEVEL, min_size=1, max_size=6),
       pub=st.lists(_PUB_LEVEL, min_size=1, max_size=7))
def test_the_topic_scheme_answers_as_its_rules_say(sub, pub):
    """Given any small subscription and publication of the topic-based scheme, then the
    answer is the rules' (a ``#`` level zero or more levels, a ``+`` level one)."""
    subscribed, published = "/".join(sub), "/".join(pub)
    assert matches(subscribed, published, CMQC.MQWS_TOPIC) == \
        _reference_levels(tuple(sub), 0, tuple(pub), 0)
