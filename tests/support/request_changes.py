"""A request's bytes with one 4-byte field changed: how the hostile-input tests draw theirs."""

from __future__ import annotations

import random
import struct

#: the values a changed field is given: the edges of an MQLONG and small ones
VALUES = (0, 1, 2, -1, 3, 0x7FFFFFFF, -0x80000000)


def changed(raw: bytes, at: int, value: int) -> bytes:
    """``raw`` with the little-endian 4-byte field at ``at`` set to ``value``."""
    out = bytearray(raw)
    struct.pack_into("<i", out, at, value)
    return bytes(out)


def one_field_changes(raw: bytes, count: int, seed: int) -> list[tuple[int, int]]:
    """``count`` (offset, value) pairs, drawn with ``seed``: a 4-byte field of ``raw`` after
    its TSH's length given a value that changes it (the same draws every run)."""
    draw = random.Random(seed)
    changes: list[tuple[int, int]] = []
    while len(changes) < count:
        at = draw.randrange(8, len(raw) - 4, 4)
        value = draw.choice(VALUES)
        if changed(raw, at, value) != raw:
            changes.append((at, value))
    return changes
