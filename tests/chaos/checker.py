"""The one checker of a chaos run: given every application's history (tests.chaos.apps) and
the final drain's, whether every message whose put was committed arrived at its final
destination exactly once (or on a dead-letter queue with the reason expected), whether any
message of a unit of work that was backed out was ever seen, and whether each channel kept
its messages in order.

A unit of work's outcome is C (committed), B (backed out) or unknown: U (MQCMIT failed) or
no resolution line (its process was killed). A put of unknown outcome may arrive at most
once; a get of unknown outcome may have consumed its message, so a committed message whose
only gets are of unknown outcome is counted ``ambiguous``, not lost.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Mapping

import attrs

COMMITTED, BACKED_OUT, UNKNOWN = "C", "B", "U"


@attrs.define
class Entry:
    """One put or get of one message, in one unit of work of one history."""

    kind: str  # "p" or "g"
    ident: str
    place: str  # a put's final destination name; a get's qmgr/queue[#reason]
    history: str
    uow: str
    index: int  # position in its history


@attrs.define
class Verdict:
    lost: list[str] = attrs.Factory(list)
    duplicated: list[str] = attrs.Factory(list)
    uncommitted_seen: list[str] = attrs.Factory(list)
    misplaced: list[str] = attrs.Factory(list)
    stranded: list[str] = attrs.Factory(list)  # committed, still on a transmission queue
    phantom: list[str] = attrs.Factory(list)
    out_of_order: list[str] = attrs.Factory(list)
    counts: dict[str, int] = attrs.Factory(dict)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.uncommitted_seen or self.misplaced
                    or self.stranded or self.phantom or self.out_of_order)

    def summary(self) -> dict[str, object]:
        """The counts, and the first few ids of each kind of failure."""
        out: dict[str, object] = dict(self.counts)
        for name in ("lost", "duplicated", "uncommitted_seen", "misplaced", "stranded",
                     "phantom", "out_of_order"):
            found = getattr(self, name)
            out[name] = len(found)
            if found:
                out[f"{name}_examples"] = sorted(found)[:10]
        return out


def parse(histories: Mapping[str, Iterable[str]]) -> tuple[list[Entry], dict[tuple, str]]:
    """Every put and get entry, and each unit of work's outcome, from the histories (history
    name -> its lines)."""
    entries: list[Entry] = []
    outcomes: dict[tuple, str] = {}
    for name, lines in histories.items():
        for line in lines:
            words = line.split()
            if len(words) >= 4 and words[0] in ("p", "g"):
                for ident in words[3:]:
                    entries.append(Entry(words[0], ident, words[2], name, words[1],
                                         len(entries)))
            elif len(words) == 2 and words[0] in (COMMITTED, BACKED_OUT, UNKNOWN):
                outcomes[(name, words[1])] = words[0]
    return entries, outcomes


def stream_and_seq(ident: str) -> tuple[str, int]:
    stream, _, seq = ident.rpartition(".")
    return stream, int(seq) if seq.isdigit() else -1


def check(histories: Mapping[str, Iterable[str]], places: Mapping[str, set[str]],
          ordered: set[str] = frozenset(), transmission: set[str] = frozenset()) -> Verdict:
    """``places``: each final destination name (as producers write it) -> where its messages
    may be got (``qmgr/queue``, or ``qmgr/queue#reason`` for a dead-letter queue);
    ``ordered``: the destinations reached through one channel, whose order is checked;
    ``transmission``: the transmission queues (``qmgr/queue``) the final drain emptied: a
    message got there never arrived (stranded, not lost: a channel did not converge)."""
    entries, outcomes = parse(histories)
    verdict = Verdict()
    puts: dict[str, tuple[str, str]] = {}  # id -> (destination, outcome)
    gets: dict[str, list[tuple[Entry, str]]] = collections.defaultdict(list)
    for e in entries:
        outcome = outcomes.get((e.history, e.uow), UNKNOWN)
        if e.kind == "p":
            puts[e.ident] = (e.place, outcome)
        else:
            gets[e.ident].append((e, outcome))
    counts = collections.Counter()
    for ident, (dest, outcome) in puts.items():
        counts[f"puts_{_word(outcome)}"] += 1
        seen = gets.get(ident, [])
        certain = [e for e, o in seen if o == COMMITTED]
        if outcome == BACKED_OUT:
            if seen:
                verdict.uncommitted_seen.append(ident)
            continue
        if any(e.place in transmission for e in certain):
            verdict.stranded.append(ident)
            continue
        for e in certain:
            if e.place not in places.get(dest, ()):
                verdict.misplaced.append(f"{ident}@{e.place}")
        if len(certain) > 1:
            verdict.duplicated.append(ident)
        elif certain:
            counts["delivered"] += 1
            counts["dead_lettered"] += "#" in certain[0].place
        elif outcome == COMMITTED and seen:
            counts["ambiguous"] += 1  # got only in units of work of unknown outcome
        elif outcome == COMMITTED:
            verdict.lost.append(ident)
    verdict.phantom = sorted(set(gets) - set(puts))
    counts["gets_committed"] = sum(o == COMMITTED for g in gets.values() for _, o in g)
    verdict.out_of_order = _order_breaks(entries, puts, ordered)
    verdict.counts = dict(counts)
    return verdict


def _word(outcome: str) -> str:
    return {COMMITTED: "committed", BACKED_OUT: "backed_out"}.get(outcome, "unknown")


def _order_breaks(entries: list[Entry], puts: Mapping[str, tuple[str, str]],
                  ordered: set[str]) -> list[str]:
    """Ids got, by one reader, before an earlier message of the same stream to the same
    ordered destination (each id's first get counts: a backed-out get returns the message
    to its place)."""
    breaks = []
    last: dict[tuple[str, str], int] = {}
    first_seen: set[tuple[str, str]] = set()
    for e in entries:
        if e.kind != "g" or puts.get(e.ident, ("", ""))[0] not in ordered:
            continue
        if (e.history, e.ident) in first_seen:
            continue
        first_seen.add((e.history, e.ident))
        stream, seq = stream_and_seq(e.ident)
        key = (e.history, stream)
        if seq < last.get(key, -1):
            breaks.append(e.ident)
        last[key] = max(seq, last.get(key, -1))
    return breaks
