"""A local queue's messages in memory: 20 subqueues, MsgId/CorrelId indexes, get-waiters.

"A queue is implemented as 20 subqueues" (seed 004): priority 0-9 x persistent/non-persistent,
each in arrival order. Arrival order is a queue-manager-wide sequence number assigned at put, so
FIFO delivery (MSGDLVSQ(FIFO)) merges subqueues by sequence and priority delivery scans 9 -> 0,
merging the persistent and non-persistent subqueue of each priority by sequence.

A message is an :class:`Entry`; its state says who may see it:
- AVAILABLE: committed, visible to every getter and browser;
- PUT_PENDING: put in a unit of work not yet committed, visible only to that unit of work;
- GET_PENDING: got in a unit of work not yet committed, invisible to everybody (backout makes it
  AVAILABLE again in its old place, with its backout count raised).

Gets by MsgId or CorrelId go through dictionaries, never a scan. This module holds no lock and
does no I/O: the engine calls it under its own lock, and reads evicted bodies itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from sortedcontainers import SortedDict

AVAILABLE = 0
PUT_PENDING = 1
GET_PENDING = 2
REMOVED = 3  # its queue was deleted under it; units of work holding it skip it


class Entry:
    """One message on a queue. Slots keep a million of them affordable."""

    __slots__ = ("seq", "priority", "persistent", "msgid", "correlid", "expiry_at", "length",
                 "state", "owner", "record", "backout_count", "on_pageset", "put_time", "report")

    def __init__(self, seq: int, priority: int, persistent: bool, msgid: bytes, correlid: bytes,
                 expiry_at: float, length: int, record: bytes | None, put_time: float,
                 backout_count: int = 0, state: int = AVAILABLE, owner: object = None,
                 on_pageset: bool = False) -> None:
        self.seq = seq
        self.priority = priority
        self.persistent = persistent
        self.msgid = msgid
        self.correlid = correlid
        self.expiry_at = expiry_at
        self.length = length
        self.record = record
        self.put_time = put_time
        self.backout_count = backout_count
        self.state = state
        self.owner = owner
        self.on_pageset = on_pageset
        self.report = 0  # MQMD.Report, known from the put or from the last get of it

    def visible_to(self, uow: object) -> bool:
        return self.state == AVAILABLE or (self.state == PUT_PENDING and self.owner is uow
                                           and uow is not None)

    def expired(self, now: float) -> bool:
        return 0 < self.expiry_at <= now

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return (f"Entry(seq={self.seq}, prio={self.priority}, pers={self.persistent}, "
                f"state={self.state}, len={self.length})")


NONE_ID = b"\x00" * 24  # MQMI_NONE / MQCI_NONE: never a selection, so never indexed


def _index_add(index: dict, key: bytes, entry: Entry) -> None:
    """Index by MsgId/CorrelId: a unique id maps to its entry, a repeated one to {seq: entry}."""
    if key == NONE_ID:
        return
    found = index.get(key)
    if found is None:
        index[key] = entry
    elif isinstance(found, Entry):
        index[key] = {found.seq: found, entry.seq: entry}
    else:
        found[entry.seq] = entry


def _index_remove(index: dict, key: bytes, entry: Entry) -> None:
    found = index.get(key)
    if found is None:
        return
    if isinstance(found, Entry):
        if found is entry:
            del index[key]
        return
    found.pop(entry.seq, None)
    if len(found) == 1:
        index[key] = next(iter(found.values()))


def _bucket(index: dict, key: bytes) -> dict[int, Entry]:
    found = index.get(key)
    if found is None:
        return {}
    if isinstance(found, Entry):
        return {found.seq: found}
    return found


def _subqueue(priority: int, persistent: bool) -> int:
    return priority * 2 + (1 if persistent else 0)


class MessageQueue:
    """The messages of one local queue."""

    def __init__(self, qid: int) -> None:
        self.qid = qid
        self.psid = 1
        self.subqueues: list[SortedDict] = [SortedDict() for _ in range(20)]
        self.by_msgid: dict[bytes, Entry | dict[int, Entry]] = {}
        self.by_correlid: dict[bytes, Entry | dict[int, Entry]] = {}
        self.count = 0  # every entry, whatever its state
        self.getting = 0  # entries in GET_PENDING
        self.uncommitted = 0  # entries in PUT_PENDING or GET_PENDING
        self.waiters: list[Callable[[], None]] = []
        self.last_put: float = 0.0
        self.last_get: float = 0.0
        self.last_trigger: float | None = None  # ms, for TRIGINT

    @property
    def depth(self) -> int:
        """CURDEPTH: uncommitted puts count, messages got under syncpoint do not (as IBM)."""
        return self.count - self.getting

    # ------------------------------------------------------------------ membership

    def add(self, entry: Entry) -> None:
        self.subqueues[_subqueue(entry.priority, entry.persistent)][entry.seq] = entry
        _index_add(self.by_msgid, entry.msgid, entry)
        _index_add(self.by_correlid, entry.correlid, entry)
        self.count += 1
        if entry.state != AVAILABLE:
            self.uncommitted += 1
            if entry.state == GET_PENDING:
                self.getting += 1

    def remove(self, entry: Entry) -> None:
        sq = self.subqueues[_subqueue(entry.priority, entry.persistent)]
        if sq.pop(entry.seq, None) is None:
            return
        _index_remove(self.by_msgid, entry.msgid, entry)
        _index_remove(self.by_correlid, entry.correlid, entry)
        self.count -= 1
        if entry.state != AVAILABLE:
            self.uncommitted -= 1
            if entry.state == GET_PENDING:
                self.getting -= 1

    def set_state(self, entry: Entry, state: int, owner: object = None) -> None:
        if (entry.state != AVAILABLE) != (state != AVAILABLE):
            self.uncommitted += 1 if state != AVAILABLE else -1
        if (entry.state == GET_PENDING) != (state == GET_PENDING):
            self.getting += 1 if state == GET_PENDING else -1
        entry.state = state
        entry.owner = owner

    def get(self, seq: int) -> Entry | None:
        for sq in self.subqueues:
            e = sq.get(seq)
            if e is not None:
                return e
        return None

    def find(self, seq: int, priority: int, persistent: bool) -> Entry | None:
        return self.subqueues[_subqueue(priority, persistent)].get(seq)

    # ------------------------------------------------------------------ delivery order

    @staticmethod
    def order_key(entry: Entry, by_priority: bool) -> tuple[int, int]:
        return ((9 - entry.priority) if by_priority else 0, entry.seq)

    def iter_order(self, by_priority: bool, after: tuple[int, int] | None = None
                   ) -> Iterator[Entry]:
        """Entries in delivery order, optionally strictly after a browse cursor key."""
        if by_priority:
            for prio in range(9, -1, -1):
                band = 9 - prio
                if after is not None and band < after[0]:
                    continue
                np_sq, p_sq = self.subqueues[prio * 2], self.subqueues[prio * 2 + 1]
                if not np_sq and not p_sq:
                    continue
                start = after[1] if after is not None and band == after[0] else None
                yield from self._merge((np_sq, p_sq), start)
        else:
            yield from self._merge(self.subqueues, after[1] if after is not None else None)

    @staticmethod
    def _merge(subqueues, after_seq: int | None) -> Iterator[Entry]:
        iters = []
        for sq in subqueues:
            if not sq:
                continue
            keys = sq.irange(minimum=after_seq, inclusive=(False, True)) \
                if after_seq is not None else iter(sq)
            iters.append((keys, sq))
        if len(iters) == 1:
            keys, sq = iters[0]
            for k in keys:
                e = sq.get(k)
                if e is not None:
                    yield e
            return
        # k-way merge by sequence; subqueues may change while we iterate, so re-read lazily.
        heads: list[list] = []
        for keys, sq in iters:
            k = next(keys, None)
            if k is not None:
                heads.append([k, keys, sq])
        while heads:
            best = min(heads, key=lambda h: h[0])
            e = best[2].get(best[0])
            k = next(best[1], None)
            if k is None:
                heads.remove(best)
            else:
                best[0] = k
            if e is not None:
                yield e

    def candidates(self, msgid: bytes | None, correlid: bytes | None, by_priority: bool,
                   after: tuple[int, int] | None = None) -> Iterator[Entry]:
        """Entries that match the selection, in delivery order (index lookups, no scan)."""
        if msgid is None and correlid is None:
            yield from self.iter_order(by_priority, after)
            return
        if msgid is not None and correlid is not None:
            a = _bucket(self.by_msgid, msgid)
            b = _bucket(self.by_correlid, correlid)
            small, other = (a, b) if len(a) <= len(b) else (b, a)
            pool = [e for s, e in small.items() if s in other]
        elif msgid is not None:
            pool = list(_bucket(self.by_msgid, msgid).values())
        else:
            pool = list(_bucket(self.by_correlid, correlid).values())
        pool.sort(key=lambda e: self.order_key(e, by_priority))
        for e in pool:
            if after is None or self.order_key(e, by_priority) > after:
                yield e

    # ------------------------------------------------------------------ waiters

    def add_waiter(self, callback: Callable[[], None]) -> None:
        self.waiters.append(callback)

    def remove_waiter(self, callback: Callable[[], None]) -> None:
        try:
            self.waiters.remove(callback)
        except ValueError:
            pass

    def wake(self) -> None:
        """A message became available: every waiter retries its get."""
        waiters, self.waiters = self.waiters, []
        for cb in waiters:
            cb()

    def entries(self) -> Iterator[Entry]:
        for sq in self.subqueues:
            yield from list(sq.values())

    def clear(self) -> list[Entry]:
        """Remove every message (queue deleted or purged); returns them, marked REMOVED."""
        gone = list(self.entries())
        for e in gone:
            self.remove(e)
            e.state = REMOVED
            e.owner = None
        self.wake()
        return gone
