"""Topic strings and wildcard matching (mqpy.pubsub.topicstrings): IBM's topic-based and
character-based schemes, case by case."""

from __future__ import annotations

import pytest

from mqpy import CMQC
from mqpy.pubsub.topicstrings import fixed_prefix_levels, full_topic_string, has_wildcard, matches

CHAR = CMQC.MQWS_CHAR


@pytest.mark.parametrize(("subscribed", "published", "expected"), [
    ("IBM/+/Results", "IBM/Software/Results", True),
    ("IBM/+/Results", "IBM/Software/Sub/Results", False),
    ("USA/Alaska/#", "USA/Alaska", True),  # '#' is zero levels too
    ("USA/Alaska/#", "USA/Alaska/Juneau", True),
    ("USA/#", "USA/Alaska/Juneau", True),
    ("USA/#", "USAX", False),
    ("#", "anything/at/all", True),
    ("#/Results", "IBM/Software/Results", True),  # '#' in the middle or first
    ("a/#/z", "a/z", True),
    ("a/#/z", "a/b/c/z", True),
    ("a/#/z", "a/b/c", False),
    ("+", "a", True),
    ("+", "a/b", False),
    ("/+", "/finance", True),
    ("sport+", "sport+", True),  # beside other characters: literal
    ("sport+", "sports", False),
    ("a/b", "a/b", True),
    ("a/b", "A/b", False),  # case-sensitive
    ("a/b", "a/b/c", False),
])
def test_given_a_topic_based_subscription_when_a_topic_is_published_then_it_matches_as_ibm(
        subscribed, published, expected):
    assert matches(subscribed, published) is expected


@pytest.mark.parametrize(("subscribed", "published", "expected"), [
    ("Sport*", "Sport/Football/Results", True),  # '*' crosses levels
    ("Sport/?ootball", "Sport/Football", True),
    ("Sport/?ootball", "Sport/Fotball", False),
    ("Price%*", "Price*", True),  # escaped: literal
    ("Price%*", "Prices", False),
    ("a/#", "a/b", False),  # '#' is literal in the character scheme
    ("a/#", "a/#", True),
])
def test_given_a_character_based_subscription_when_a_topic_is_published_then_it_matches(
        subscribed, published, expected):
    assert matches(subscribed, published, CHAR) is expected


def test_given_a_topic_object_and_an_object_string_then_the_full_topic_joins_them_with_a_slash():
    assert full_topic_string("dev", "orders") == "dev/orders"
    assert full_topic_string("", "orders") == "orders"
    assert full_topic_string("dev", "") == "dev"


def test_given_a_subscription_topic_then_its_wildcards_and_fixed_levels_are_known():
    assert has_wildcard("a/+/c") and has_wildcard("#") and not has_wildcard("a/b+")
    assert has_wildcard("a*", CHAR) and not has_wildcard("a%*", CHAR)
    assert fixed_prefix_levels("a/b/#") == 2
    assert fixed_prefix_levels("+/b") == 0
    assert fixed_prefix_levels("a/b*", CHAR) == 1
