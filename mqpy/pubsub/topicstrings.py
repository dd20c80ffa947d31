"""Topic strings: their levels, the full topic string an MQOPEN or MQSUB names, and how a
subscription's topic string matches a publication's (IBM's two wildcard schemes). Pure.

The rules (IBM MQ, "Topic strings", "Topic-based wildcard scheme", "Character-based
wildcard scheme"):

1. A topic string is any characters; ``/`` separates its levels (a leading or trailing
   ``/`` makes an empty level). Topic strings are case-sensitive.
2. The full topic string of an MQOD or MQSD is the TOPICSTR of the topic object named by
   ObjectName, then ``/`` if both are non-empty, then ObjectString.
3. Publications never have wildcards: ``#`` and ``+`` in a publication's topic are literal.
4. Topic-based scheme (the default, MQSO_WILDCARD_TOPIC): a level that is exactly ``#``
   matches zero or more levels, one that is exactly ``+`` exactly one level; ``#`` or ``+``
   beside other characters in a level is literal.
5. Character-based scheme (MQSO_WILDCARD_CHAR): ``*`` matches any characters (``/``
   included), ``?`` any one character; ``%`` makes the next character literal.
6. A subscription whose topic string has no wildcard matches only the same string.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from mqpy import CMQC, wildcards

__all__ = ["full_topic_string", "has_wildcard", "levels", "matches", "fixed_prefix_levels"]

SEPARATOR = "/"
MULTI_LEVEL = "#"
SINGLE_LEVEL = "+"
#: the character-based scheme's wildcards and escape
_CHAR_ANY, _CHAR_ONE, _CHAR_ESCAPE = "*", "?", "%"


def levels(topic: str) -> tuple[str, ...]:
    """The levels of a topic string (rule 1)."""
    return tuple(topic.split(SEPARATOR))


def full_topic_string(object_topic: str, object_string: str) -> str:
    """The topic string an MQOD or MQSD names (rule 2)."""
    if object_topic and object_string:
        return object_topic + SEPARATOR + object_string
    return object_topic or object_string


def has_wildcard(topic: str, scheme: int = CMQC.MQWS_TOPIC) -> bool:
    """Whether a subscription's topic string has a wildcard in its scheme (rules 4, 5)."""
    if scheme == CMQC.MQWS_CHAR:
        return any(c in (_CHAR_ANY, _CHAR_ONE) for c in _unescaped(topic))
    return any(level in (MULTI_LEVEL, SINGLE_LEVEL) for level in levels(topic))


def fixed_prefix_levels(topic: str, scheme: int = CMQC.MQWS_TOPIC) -> int:
    """How many leading levels of a subscription's topic string have no wildcard: how
    qualified it is, which a topic object's WILDCARD(BLOCK) compares with."""
    if scheme == CMQC.MQWS_CHAR:
        text = []
        for c, literal in _unescaped_marked(topic):
            if not literal and c in (_CHAR_ANY, _CHAR_ONE):
                break
            text.append(c)
        return max(len(levels("".join(text))) - 1, 0)
    count = 0
    for level in levels(topic):
        if level in (MULTI_LEVEL, SINGLE_LEVEL):
            break
        count += 1
    return count


def topic_based(topic: str, scheme: int = CMQC.MQWS_TOPIC) -> str:
    """A subscription's topic string in the topic-based scheme, as a proxy subscription
    carries it: a character-based wildcard becomes ``#`` back to the nearest separator
    (IBM: "/aaa/bbb/c*d is converted to /aaa/bbb/#"), its escapes made plain."""
    if scheme != CMQC.MQWS_CHAR:
        return topic
    text: list[str] = []
    for c, literal in _unescaped_marked(topic):
        if not literal and c in (_CHAR_ANY, _CHAR_ONE):
            kept = "".join(text)
            cut = kept.rfind(SEPARATOR)
            return kept[:cut + 1] + MULTI_LEVEL if cut >= 0 else MULTI_LEVEL
        text.append(c)
    return "".join(text)


def matches(subscribed: str, published: str, scheme: int = CMQC.MQWS_TOPIC) -> bool:
    """Whether a publication on ``published`` reaches a subscription to ``subscribed``."""
    if scheme == CMQC.MQWS_CHAR:
        return _char_matcher(subscribed)(published)
    if MULTI_LEVEL not in subscribed and SINGLE_LEVEL not in subscribed:
        return subscribed == published
    return _levels_match(levels(subscribed), levels(published))


# Both schemes are globs: a many-wildcard (``#`` of levels, ``*`` of characters) between
# pieces of a fixed length (levels or characters, each literal or a one-wildcard ``+`` /
# ``?``). Such a glob matches when its first piece matches at the start, its last at the
# end, and each piece between at its leftmost place after the one before (the leftmost
# place leaves the most for the rest, so no other need be tried): a time of the lengths'
# product at worst, where trying every split of the many-wildcards, as a backtracking
# search does, takes a time exponential in their number (a subscriber's ``*a*a*a*a*b``
# against a publication of 200 ``a`` took seconds, one more ``*a`` minutes, under the
# engine's lock).


def _levels_match(sub: tuple[str, ...], pub: tuple[str, ...]) -> bool:
    """Rule 4: ``#`` takes zero or more levels, ``+`` one."""
    pieces: list[tuple[str, ...]] = [()]
    for level in sub:
        if level == MULTI_LEVEL:
            pieces.append(())
        else:
            pieces[-1] += (level,)
    if len(pieces) == 1:
        return _piece_at(pieces[0], pub, 0) and len(pieces[0]) == len(pub)
    first, *middle, last = pieces
    end = len(pub) - len(last)
    if end < len(first) or not _piece_at(first, pub, 0) or not _piece_at(last, pub, end):
        return False
    at = len(first)
    for piece in middle:
        found = next((i for i in range(at, end - len(piece) + 1) if _piece_at(piece, pub, i)),
                     None)
        if found is None:
            return False
        at = found + len(piece)
    return True


def _piece_at(piece: tuple[str, ...], pub: tuple[str, ...], at: int) -> bool:
    """Whether levels ``piece`` (``+`` any one) match ``pub`` from level ``at`` on."""
    if at + len(piece) > len(pub):
        return False
    return all(level == SINGLE_LEVEL or level == pub[at + k] for k, level in enumerate(piece))


def _unescaped_marked(topic: str) -> list[tuple[str, bool]]:
    """The characters of a character-scheme topic, each with whether ``%`` made it literal."""
    out: list[tuple[str, bool]] = []
    escaped = False
    for c in topic:
        if escaped:
            out.append((c, True))
            escaped = False
        elif c == _CHAR_ESCAPE:
            escaped = True
        else:
            out.append((c, False))
    return out


def _unescaped(topic: str) -> str:
    return "".join(c for c, literal in _unescaped_marked(topic) if not literal)


@lru_cache(maxsize=1024)
def _char_matcher(subscribed: str) -> Callable[[str], bool]:
    """Rule 5: each piece between ``*`` a fixed-length regular expression (``?`` is ``.``),
    put together as the comment above says."""
    pieces: list[list[str]] = [[]]
    for c, literal in _unescaped_marked(subscribed):
        if not literal and c == _CHAR_ANY:
            pieces.append([])
        else:
            pieces[-1].append("." if not literal and c == _CHAR_ONE else re.escape(c))
    return wildcards.matcher([("".join(p), len(p)) for p in pieces])
