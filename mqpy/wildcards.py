"""Matching a string against a pattern whose only runs are "any characters" wildcards (a
selector's LIKE ``%``, a character-based subscription's ``*``), in time bounded by the
lengths. A regular expression of ``.*`` runs would backtrack: such a pattern is an
application's text, the string another application's."""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["matcher"]


def matcher(pieces: list[tuple[str, int]]) -> Callable[[str], bool]:
    """Whether a string matches the pattern cut at its "any characters" runs into ``pieces``:
    each a regular expression of fixed length (literal characters, ``.`` for one) and that
    length. Each piece is found at its leftmost place after the one before (the first at the
    start, the last at the end), which is where any match can put it."""
    compiled = [(re.compile(text, re.DOTALL), n) for text, n in pieces]
    if len(compiled) == 1:
        whole = compiled[0][0].fullmatch
        return lambda v: whole(v) is not None
    (first, first_len), middle, (last, last_len) = compiled[0], compiled[1:-1], compiled[-1]
    least = sum(n for _, n in compiled)

    def matches(v: str) -> bool:
        end = len(v) - last_len
        if len(v) < least or first.match(v) is None or last.fullmatch(v, end) is None:
            return False
        at = first_len
        for piece, n in middle:
            if n:
                found = piece.search(v, at, end)
                if found is None:
                    return False
                at = found.end()
        return True
    return matches
