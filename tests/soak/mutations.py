"""Mutations of a recorded conversation's client side, each drawn from a ``random.Random``.

:func:`mutate` returns the turns to replay (``tests.soak.sessions.Turn``) and one line saying
what was done, for the report: bit flips, bytes inserted or deleted, a TSH length changed,
a structure's field (Version, a length) changed, the stream truncated, a segment written in
pieces or split into FIRST and LAST segments, a huge length claimed, FIRST segments repeated
without a LAST, continuation segments streamed without end (``flood``), a StrucId made
wrong, the first flow replaced by a flow of another type, or nothing (the recording as it
was, which the server must take as it did).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from mqpy.fap.tsh import ControlFlags1, SegmentType

from .sessions import Conversation, Turn, header_length, segment_type

_FIRST, _LAST = int(ControlFlags1.FIRST), int(ControlFlags1.LAST)
#: StrucIds found in recorded flows (segment headers, MQI structures, channel headers)
STRUC_IDS = (b"TSH ", b"TSHM", b"TSHC", b"ID  ", b"UID ", b"CSP ", b"MD  ", b"OD  ", b"PMO ",
             b"GMO ", b"MSH ", b"XQH ", b"CNO ")
WRONG_IDS = (b"XXXX", b"\x00\x00\x00\x00", b"md  ", b"OD  ", b"MD  ", b"TSH\x00", b"\xff\xff\xff\xff")
SMALL_LENGTHS = (0, 1, 8, 27, 28, 35, -1, -28)
HUGE_LENGTHS = (1 << 20, 100 << 20, 0x7FFFFFF0, 0x7FFFFFFF)
FIELD_VALUES = (0, 99, -1, 0x7FFFFFFF, -0x80000000, 1 << 20)
#: a continuation segment's length in a flood: TCP's default maximum transmission size
FLOOD_SEGMENT = 32766


def _flags(segment: bytes, first: bool, last: bool) -> bytes:
    at = header_length(segment) - 18
    flags = segment[at] & ~(_FIRST | _LAST) | (_FIRST if first else 0) | (_LAST if last else 0)
    return segment[:at] + bytes([flags]) + segment[at + 1:]


def _with_length(segment: bytes, length: int) -> bytes:
    return segment[:4] + (length & 0xFFFFFFFF).to_bytes(4, "big") + segment[8:]


def _spans(segment: bytes) -> bool:
    """A segment of a type a flow may span several segments with (a message, MQI)."""
    kind = segment_type(segment)
    return kind == SegmentType.MESSAGE_DATA or kind >= SegmentType.MQCONN


def _with_type(segment: bytes, kind: int) -> bytes:
    at = header_length(segment) - 19
    return segment[:at] + bytes([kind]) + segment[at + 1:]


def _little_endian(segment: bytes) -> bool:
    return segment[header_length(segment) - 20] == 2  # the TSH's byte order: 1 big, 2 little


class Mutator:
    """The mutations of one conversation; ``pool``: client segments of every recording
    (for a first flow of another type)."""

    def __init__(self, rng: random.Random, conv: Conversation, pool: list[bytes]) -> None:
        self.rng = rng
        self.conv = conv
        self.turns = conv.turns()
        self.pool = pool
        # (turn, write) of every client segment, in order
        self.places = [(t, w) for t, turn in enumerate(self.turns)
                       for w in range(len(turn.writes))]

    def _pick(self, where: Callable[[bytes], bool] = lambda s: True) -> tuple[int, int, bytes]:
        places = [p for p in self.places if where(self._at(p))] or self.places
        t, w = self.rng.choice(places)
        return t, w, self._at((t, w))

    def _at(self, place: tuple[int, int]) -> bytes:
        item = self.turns[place[0]].writes[place[1]]
        assert isinstance(item, bytes)
        return item

    def _put(self, t: int, w: int, *items: bytes | float) -> None:
        self.turns[t].writes[w:w + 1] = list(items)

    @staticmethod
    def _name(segment: bytes) -> str:
        return f"{segment_type(segment):#04x}"

    # -- the mutations: each changes self.turns and says what it did ----------------------

    def none(self) -> str:
        return "as recorded"

    def bitflip(self) -> str:
        t, w, seg = self._pick()
        data = bytearray(seg)
        bits = sorted(self.rng.randrange(len(data) * 8) for _ in range(self.rng.randint(1, 8)))
        for bit in bits:
            data[bit // 8] ^= 1 << (bit % 8)
        self._put(t, w, bytes(data))
        return f"segment {self._name(seg)} of {len(seg)} bytes: bits {bits} flipped"

    def insert(self) -> str:
        t, w, seg = self._pick()
        at = self.rng.randrange(len(seg) + 1)
        extra = self.rng.randbytes(self.rng.randint(1, 16))
        self._put(t, w, seg[:at] + extra + seg[at:])
        return f"segment {self._name(seg)}: {len(extra)} bytes inserted at {at}"

    def delete(self) -> str:
        t, w, seg = self._pick()
        at = self.rng.randrange(len(seg))
        n = self.rng.randint(1, 16)
        self._put(t, w, seg[:at] + seg[at + n:])
        return f"segment {self._name(seg)}: {min(n, len(seg) - at)} bytes deleted at {at}"

    def tsh_length(self) -> str:
        t, w, seg = self._pick()
        length = self.rng.choice(SMALL_LENGTHS + (len(seg) - 1, len(seg) + 1, len(seg) + 100))
        self._put(t, w, _with_length(seg, length))
        return f"segment {self._name(seg)} of {len(seg)} bytes: TSH length {length}"

    def struct_field(self) -> str:
        """An API header's ReplyLength, or a structure's Version or the field after it."""
        t, w, seg = self._pick()
        h = header_length(seg)
        fields = [(h, "API header ReplyLength")] if segment_type(seg) >= 0x81 else []
        for sid in STRUC_IDS[3:]:
            at = seg.find(sid, h)
            if at >= 0 and at + 16 <= len(seg):
                fields += [(at + 4, f"{sid.decode().strip()} Version"),
                           (at + 8, f"{sid.decode().strip()} field at +8")]
        if not fields:
            fields = [(max(h, len(seg) - 4), "last word")]
        at, name = self.rng.choice(fields)
        value = self.rng.choice(FIELD_VALUES)
        raw = (value & 0xFFFFFFFF).to_bytes(4, "little" if _little_endian(seg) else "big")
        self._put(t, w, seg[:at] + raw + seg[at + 4:])
        return f"segment {self._name(seg)}: {name} (offset {at}) = {value}"

    def truncate(self) -> str:
        t, w, seg = self._pick()
        cut = self.rng.randrange(1, len(seg))
        self._put(t, w, seg[:cut])
        del self.turns[t].writes[w + 1:]
        del self.turns[t + 1:]
        self.turns[t].answers = []
        return f"stream cut {cut} bytes into segment {self._name(seg)} (turn {t})"

    def split_writes(self) -> str:
        t, w, seg = self._pick()
        cuts = sorted({self.rng.randrange(1, len(seg)) for _ in range(self.rng.randint(1, 3))})
        pieces: list[bytes | float] = []
        for a, b in zip([0, *cuts], [*cuts, len(seg)], strict=True):
            pieces += [seg[a:b], self.rng.choice((0.01, 0.05))]
        self._put(t, w, *pieces[:-1])
        return f"segment {self._name(seg)} written in pieces at {cuts}"

    def split_segment(self) -> str:
        """One segment as a FIRST and a LAST segment (legal for MQI flows and messages)."""
        t, w, seg = self._pick()
        h = header_length(seg)
        if len(seg) <= h + 1:
            return self.bitflip()
        cut = self.rng.randrange(h + 1, len(seg))
        head = _with_length(_flags(seg[:cut], True, False), cut)
        tail = seg[:h] + seg[cut:]
        tail = _with_length(_flags(tail, False, True), len(tail))
        self._put(t, w, head, tail)
        return f"segment {self._name(seg)} split at {cut} into FIRST and LAST segments"

    def huge_claim(self) -> str:
        t, w, seg = self._pick()
        length = self.rng.choice(HUGE_LENGTHS)
        self._put(t, w, _with_length(seg, length))
        return f"segment {self._name(seg)} of {len(seg)} bytes claims {length}"

    def first_without_last(self) -> str:
        t, w, seg = self._pick()
        n = self.rng.randint(2, 20)
        self._put(t, w, *[_flags(seg, True, False)] * n)
        return f"segment {self._name(seg)} sent {n} times, FIRST without LAST"

    def flood(self, first: bool = False) -> str:
        """A FIRST segment without LAST of a type that may span segments (an MQI verb or a
        message), then continuation segments without end: as the first flow (``first``: no
        authentication yet) or later."""
        t, w, seg = (0, 0, self._at((0, 0))) if first else self._pick(_spans)
        if not _spans(seg):
            seg = _with_type(seg, SegmentType.MQPUT)
        h = header_length(seg)
        cont = _with_length(_flags(seg[:h], False, False), FLOOD_SEGMENT) \
            + bytes(FLOOD_SEGMENT - h)
        self._put(t, w, _flags(seg, True, False))
        del self.turns[t].writes[w + 1:]
        del self.turns[t + 1:]
        self.turns[t].answers = []
        self.turns[t].flood = cont
        return (f"segment {self._name(seg)} ({'first flow' if first else f'turn {t}'}) FIRST "
                f"without LAST, then {len(cont)}-byte continuations without end")

    def strucid(self) -> str:
        t, w, seg = self._pick(lambda s: any(sid in s for sid in STRUC_IDS))
        found = [(at, sid) for sid in STRUC_IDS for at in range(len(seg))
                 if seg.startswith(sid, at)] or [(0, seg[:4])]
        at, sid = self.rng.choice(found)
        wrong = self.rng.choice([x for x in WRONG_IDS if x != sid])
        self._put(t, w, seg[:at] + wrong + seg[at + 4:])
        return f"segment {self._name(seg)}: StrucId {sid!r} at {at} made {wrong!r}"

    def first_flow(self) -> str:
        own = segment_type(self._at((0, 0)))
        other = self.rng.choice([s for s in self.pool if segment_type(s) != own])
        self._put(0, 0, other)
        return f"first flow {own:#04x} replaced by a {self._name(other)} flow"


#: mutation name -> weight
MUTATIONS = {"none": 2, "bitflip": 6, "insert": 4, "delete": 4, "tsh_length": 5,
             "struct_field": 6, "truncate": 4, "split_writes": 3, "split_segment": 4,
             "huge_claim": 4, "first_without_last": 4, "flood": 1, "strucid": 6,
             "first_flow": 5}


def mutate(rng: random.Random, conv: Conversation, pool: list[bytes]
           ) -> tuple[str, str, list[Turn]]:
    """A mutation drawn by weight: (its name, what it did, the turns to replay)."""
    name = rng.choices(list(MUTATIONS), weights=list(MUTATIONS.values()))[0]
    mutator = Mutator(rng, conv, pool)
    detail = getattr(mutator, name)()
    return name, detail, mutator.turns


def flood_first(rng: random.Random, conv: Conversation) -> tuple[str, str, list[Turn]]:
    """The flood as the first flow, before any authentication."""
    mutator = Mutator(rng, conv, [])
    return "flood", mutator.flood(first=True), mutator.turns
