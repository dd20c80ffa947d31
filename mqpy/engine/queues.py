"""A local queue's messages in memory: 20 subqueues, MsgId/CorrelId indexes, get-waiters.

"A queue is implemented as 20 subqueues" (seed 004; subqueue.py): priority 0-9 x
persistent/non-persistent, each in arrival order. Arrival order is a queue-manager-wide sequence number assigned at put, so
FIFO delivery (MSGDLVSQ(FIFO)) merges subqueues by sequence and priority delivery scans 9 -> 0,
merging the persistent and non-persistent subqueue of each priority by sequence.

A message the engine is working with is an :class:`Entry`; its state says who may see it:
- AVAILABLE: committed, visible to every getter and browser;
- PUT_PENDING: put in a unit of work not yet committed, visible only to that unit of work;
- GET_PENDING: got in a unit of work not yet committed, invisible to everybody (backout makes it
  AVAILABLE again in its old place, with its backout count raised).

A queue can hold millions of messages, most of them committed, persistent and with their body
only on a pageset. Those are *cold*: no Python object at all, just their sequence number in the
subqueue's array and a fixed 80-byte record beside it (the pageset's index entry, put time and
report options). Every other message is *live*: an Entry in ``live``, keyed by sequence. Reading
a cold message gives a fresh Entry each time (:meth:`MessageQueue.touch` writes back a change to
one); :meth:`MessageQueue.set_state` makes it live. The data manager freezes a live message back
when its body leaves the buffer pool (:meth:`MessageQueue.freeze`).

The queue's file size (DISPLAY QSTATUS CURFSIZE): mqpy keeps no file per queue, so it is what
the queue's messages occupy in the store, every message on it counted (uncommitted puts, and
gets not yet committed, included), each its data length and :data:`MESSAGE_OVERHEAD` (its stored record header, MQMD and index
entry): ``MessageQueue.stored``, changed where ``count`` is, by one addition. A put that would
take it past MAXFSIZE is refused, MQRC_Q_SPACE_NOT_AVAILABLE (:func:`file_room`).

Gets by MsgId or CorrelId go through indexes, never a scan: dictionaries for live messages, and
for cold ones a compact hash table (idindex.py). This module holds no lock and
does no I/O: the engine calls it under its own lock, and reads evicted bodies itself.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator, Sequence

from mqpy import CMQC
from mqpy.engine.idindex import IdIndex
from mqpy.engine.pageset import INDEX_SIZE
from mqpy.engine.records import MESSAGE_HEADER
from mqpy.engine.subqueue import (
    _COLD,
    _COLD_TAIL,
    _EXPIRY,
    _EXPIRY_IDS,
    _LENGTH,
    _LOAD,
    _PUT_TIME,
    COLD_SIZE,
    Subqueue,
    _subqueue,
)

#: what one message occupies in the store beside its data: the header of its stored record,
#: its MQMD (version 2) and its pageset index entry (CURFSIZE: ``MessageQueue.stored``)
MESSAGE_OVERHEAD = MESSAGE_HEADER.size + CMQC.MQMD_LENGTH_2 + INDEX_SIZE

#: MAXFSIZE(DEFAULT) in megabytes, IBM's (2 TB less IBM's own reserve): a queue's file may grow
#: to this much (CURMAXFS) unless MAXFSIZE says less
MAXFSIZE_DEFAULT_MB = 2_088_960
MEGABYTE = 1 << 20


def max_file_megabytes(maxfsize: object) -> int:
    """CURMAXFS of a queue whose MAXFSIZE is ``maxfsize`` (DEFAULT, or megabytes): mqpy's
    store has no blocks whose size would cap it below MAXFSIZE, as IBM's queue files do."""
    try:
        return int(maxfsize)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return MAXFSIZE_DEFAULT_MB


def file_room(maxfsize: object) -> int:
    """The most ``MessageQueue.stored`` may be before a put of ``length`` bytes of data to a
    queue whose MAXFSIZE is ``maxfsize``, less that length: a put is refused
    (MQRC_Q_SPACE_NOT_AVAILABLE) when ``stored + length > file_room(maxfsize)``, one
    comparison."""
    return max_file_megabytes(maxfsize) * MEGABYTE - MESSAGE_OVERHEAD


AVAILABLE = 0
PUT_PENDING = 1
GET_PENDING = 2
REMOVED = 3  # its queue was deleted under it; units of work holding it skip it


class Entry:
    """One message on a queue. Slots keep the live ones affordable."""

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
    """Index a live entry by MsgId/CorrelId: a unique id maps to its entry, a repeated one to
    {seq: entry}."""
    found = index.get(key)
    if found is None:
        index[key] = entry
    elif isinstance(found, Entry):
        index[key] = {found.seq: found, entry.seq: entry}
    else:
        found[entry.seq] = entry


def _index_remove(index: dict, key: bytes, seq: int) -> None:
    found = index.get(key)
    if found is None:
        return
    if isinstance(found, Entry):
        if found.seq == seq:
            del index[key]
        return
    found.pop(seq, None)
    if len(found) == 1:
        index[key] = next(iter(found.values()))


class MessageQueue:
    """The messages of one local queue."""

    def __init__(self, qid: int) -> None:
        self.qid = qid
        self.psid = 1
        self.subqueues: list[Subqueue] = [Subqueue() for _ in range(20)]
        #: bit k set while subqueue k holds a message: :meth:`head` looks at those only
        self.occupied = 0
        self.live: dict[int, Entry] = {}  # sequence -> Entry of every message that has one
        # live messages by id (an Entry, or {seq: Entry} for a repeated id)
        self.live_msgid: dict[bytes, Entry | dict[int, Entry]] = {}
        self.live_correlid: dict[bytes, Entry | dict[int, Entry]] = {}
        # messages that were cold when indexed (they may have become live since)
        self.by_msgid = IdIndex()
        self.by_correlid = IdIndex()
        self.count = 0  # every entry, whatever its state
        #: bytes the queue's messages occupy in the store, whatever their state (CURFSIZE)
        self.stored = 0
        self.getting = 0  # entries in GET_PENDING
        self.uncommitted = 0  # entries in PUT_PENDING or GET_PENDING
        self.expiring = 0  # entries with an expiry time (so expiry scans can skip the queue)
        self.waiters: list[Callable[[], None]] = []
        self.last_put: float = 0.0
        self.last_get: float = 0.0
        self.last_trigger: float | None = None  # ms, for TRIGINT
        #: (by_priority, order key): every message up to that key, in that delivery order,
        #: is got under syncpoint (GET_PENDING), so a get need not walk past them again
        #: (a channel's batch gets 50 messages before committing any). None: not known.
        self.got_prefix: tuple[bool, tuple[int, int]] | None = None
        #: how many times the hint was dropped: a get that wrote the log (which may back
        #: another unit of work out for log space, dropping it) sets it only if unchanged
        self.got_prefix_drops = 0

    def file_megabytes(self) -> int:
        """CURFSIZE: ``stored`` in megabytes, rounded up (IBM's rounding)."""
        return -(-self.stored // MEGABYTE)

    @property
    def depth(self) -> int:
        """CURDEPTH: uncommitted puts count, messages got under syncpoint do not (as IBM)."""
        return self.count - self.getting

    # ------------------------------------------------------------------ membership

    def add(self, entry: Entry) -> None:
        """A new live message (put, redo, restart of an in-doubt put)."""
        k = entry.priority * 2 + 1 if entry.persistent else entry.priority * 2
        seq = entry.seq
        self.subqueues[k].insert(seq, None)
        self.occupied |= 1 << k
        self.live[seq] = entry
        key = entry.msgid
        if key != NONE_ID:
            index = self.live_msgid
            if key not in index:  # a unique MsgId, the usual case
                index[key] = entry
            else:
                _index_add(index, key, entry)
        if entry.correlid != NONE_ID:
            _index_add(self.live_correlid, entry.correlid, entry)
        self.count += 1
        self.stored += entry.length + MESSAGE_OVERHEAD
        if entry.expiry_at > 0:
            self.expiring += 1
        if entry.state != AVAILABLE:
            self.uncommitted += 1
            if entry.state == GET_PENDING:
                self.getting += 1
        prefix = self.got_prefix
        if prefix is not None and self.order_key(entry, prefix[0]) < prefix[1]:
            self.forget_got()  # (a higher priority) before messages got: walk again

    def load(self, seq: int, index_entry: bytes) -> None:
        """A committed persistent message from the pageset index, kept cold (restart).

        The MsgId/CorrelId indexes and the expiry count are built by :meth:`loaded`."""
        prio = index_entry[0]
        k = (prio if prio < 10 else 9) * 2 + 1
        sq = self.subqueues[k]
        self.occupied |= 1 << k
        self.count += 1
        self.stored += _LENGTH.unpack_from(index_entry)[0] + MESSAGE_OVERHEAD
        maxes = sq.maxes
        if maxes and seq > maxes[-1]:  # the pageset index comes in order: append in place
            seqs = sq.seqs[-1]
            recs = sq.recs[-1]
            if len(seqs) < _LOAD and recs is not None:
                seqs.append(seq)
                recs += index_entry
                recs += _COLD_TAIL
                maxes[-1] = seq
                sq.size += 1
                sq.version += 1
                return
        sq.insert(seq, index_entry + _COLD_TAIL)

    def loaded(self) -> None:
        """Index the messages :meth:`load` brought in: call once, after the last load.

        One streaming pass, the MsgId table sized once, so restart builds no list per message."""
        live = self.live
        corr = self.by_correlid
        expiring = [0]

        def cold_ids() -> Iterator[tuple[int, int]]:
            for k, recs, seqs in self._cold_chunks():
                for pos, (expiry, msgid, correlid) in enumerate(_EXPIRY_IDS.iter_unpack(recs)):
                    seq = seqs[pos]
                    if seq in live:
                        continue
                    v = seq << 5 | k
                    if expiry > 0:
                        expiring[0] += 1
                    if correlid != NONE_ID:
                        corr.add(hash(correlid), v)
                    if msgid != NONE_ID:
                        yield hash(msgid), v

        ids = self.by_msgid
        known = [(h, v) for h, v in zip(ids._h, ids._v, strict=True) if v > 0]
        ids._reset(IdIndex.capacity_for(self.count - len(live) + len(known)))
        ids.extend(known)
        ids.extend(cold_ids())
        self.expiring += expiring[0]

    def max_seq(self) -> int:
        return max((sq.maxes[-1] for sq in self.subqueues if sq.maxes), default=0)

    def remove(self, entry: Entry) -> None:
        seq = entry.seq
        k = entry.priority * 2 + 1 if entry.persistent else entry.priority * 2
        sq = self.subqueues[k]
        seqs = sq.seqs
        if seqs and seqs[0][0] == seq:  # the first of its subqueue: what a get usually takes
            sq.delete(0, 0)
        else:
            where = sq.locate(seq)
            if where is None:
                return
            sq.delete(*where)
        if not sq.size:
            self.occupied &= ~(1 << k)
        current = self.live.pop(seq, None)
        if current is None:
            current = entry
        else:
            key = current.msgid
            if key != NONE_ID:
                index = self.live_msgid
                if index.get(key) is current:  # a unique MsgId, the usual case
                    del index[key]
                else:
                    _index_remove(index, key, seq)
            if current.correlid != NONE_ID:
                _index_remove(self.live_correlid, current.correlid, seq)
        v = seq << 5 | k
        if entry.msgid != NONE_ID and self.by_msgid._used:
            self.by_msgid.discard(hash(entry.msgid), v)
        if entry.correlid != NONE_ID and self.by_correlid._used:
            self.by_correlid.discard(hash(entry.correlid), v)
        self.count -= 1
        self.stored -= entry.length + MESSAGE_OVERHEAD
        if entry.expiry_at > 0:
            self.expiring -= 1
        if current.state != AVAILABLE:
            self.uncommitted -= 1
            if current.state == GET_PENDING:
                self.getting -= 1

    def set_state(self, entry: Entry, state: int, owner: object = None) -> None:
        if (entry.state != AVAILABLE) != (state != AVAILABLE):
            self.uncommitted += 1 if state != AVAILABLE else -1
        if (entry.state == GET_PENDING) != (state == GET_PENDING):
            self.getting += 1 if state == GET_PENDING else -1
            if state != GET_PENDING:
                self.forget_got()  # a get backed out: it may be had again
        entry.state = state
        entry.owner = owner
        if entry.seq not in self.live:
            self._thawed(entry)

    def _thawed(self, entry: Entry) -> None:
        """A cold message becomes live (its cold index slots stay; lookups find it live)."""
        self.live[entry.seq] = entry
        if entry.msgid != NONE_ID:
            _index_add(self.live_msgid, entry.msgid, entry)
        if entry.correlid != NONE_ID:
            _index_add(self.live_correlid, entry.correlid, entry)

    def touch(self, entry: Entry) -> None:
        """Keep a change to a cold message's backout count or report options."""
        if entry.seq in self.live:
            return
        sq = self.subqueues[_subqueue(entry.priority, entry.persistent)]
        where = sq.locate(entry.seq)
        if where is not None:
            self._pack(sq, where, entry)

    def freeze(self, entry: Entry) -> None:
        """Drop the Entry of a committed message whose body is only on the pageset now."""
        if (entry.state != AVAILABLE or entry.owner is not None or entry.record is not None
                or not entry.on_pageset or not entry.persistent
                or self.live.get(entry.seq) is not entry):
            return
        sq = self.subqueues[_subqueue(entry.priority, True)]
        where = sq.locate(entry.seq)
        if where is None:
            return
        self._pack(sq, where, entry)
        seq = entry.seq
        del self.live[seq]
        v = seq << 5 | _subqueue(entry.priority, True)
        if entry.msgid != NONE_ID:
            _index_remove(self.live_msgid, entry.msgid, seq)
            self._cold_index(self.by_msgid, entry.msgid, v)
        if entry.correlid != NONE_ID:
            _index_remove(self.live_correlid, entry.correlid, seq)
            self._cold_index(self.by_correlid, entry.correlid, v)

    @staticmethod
    def _cold_index(index: IdIndex, key: bytes, v: int) -> None:
        """Index a message going cold, unless it was cold (and so indexed) before."""
        h = hash(key)
        if v not in index.find(h):
            index.add(h, v)

    @staticmethod
    def _pack(sq: Subqueue, where: tuple[int, int], e: Entry) -> None:
        ci, pos = where
        _COLD.pack_into(sq.records(ci), pos * COLD_SIZE, e.priority, 1, 0, e.backout_count,
                        e.length, e.expiry_at, e.msgid, e.correlid, e.put_time, e.report)

    @staticmethod
    def _thaw(k: int, seq: int, recs: bytearray, pos: int) -> Entry:
        (_p, _ps, _f, backout, length, expiry_at, msgid, correlid, put_time,
         report) = _COLD.unpack_from(recs, pos * COLD_SIZE)
        if correlid == NONE_ID:
            correlid = NONE_ID
        e = Entry(seq, k >> 1, True, msgid, correlid, expiry_at, length, None, put_time,
                  backout, AVAILABLE, None, True)
        e.report = report
        return e

    def _at(self, k: int, seq: int) -> Entry | None:
        e = self.live.get(seq)
        if e is not None:
            return e if _subqueue(e.priority, e.persistent) == k else None
        sq = self.subqueues[k]
        where = sq.locate(seq)
        if where is None:
            return None
        return self._thaw(k, seq, sq.recs[where[0]], where[1])

    def get(self, seq: int) -> Entry | None:
        e = self.live.get(seq)
        if e is not None:
            return e
        for k in range(1, 20, 2):  # cold messages are persistent
            sq = self.subqueues[k]
            if sq.size:
                where = sq.locate(seq)
                if where is not None:
                    return self._thaw(k, seq, sq.recs[where[0]], where[1])
        return None

    def find(self, seq: int, priority: int, persistent: bool) -> Entry | None:
        return self._at(_subqueue(priority, persistent), seq)

    # ------------------------------------------------------------------ delivery order

    @staticmethod
    def order_key(entry: Entry, by_priority: bool) -> tuple[int, int]:
        return ((9 - entry.priority) if by_priority else 0, entry.seq)

    def _walk(self, k: int, after_seq: int | None) -> Iterator[Entry]:
        """One subqueue's messages in arrival order, strictly after ``after_seq``; re-seeks
        if the subqueue changes between two steps."""
        sq = self.subqueues[k]
        live = self.live
        last = -1 if after_seq is None else after_seq
        ci, pos = sq.after(last) if after_seq is not None else (0, 0)
        version = sq.version
        while True:
            if sq.version != version:
                ci, pos = sq.after(last)
                version = sq.version
            if ci >= len(sq.seqs):
                return
            chunk = sq.seqs[ci]
            if pos >= len(chunk):
                ci += 1
                pos = 0
                continue
            seq = chunk[pos]
            e = live.get(seq)
            if e is None:
                e = self._thaw(k, seq, sq.recs[ci], pos)
            last = seq
            pos += 1
            yield e

    def _merge(self, ks, after_seq: int | None) -> Iterator[Entry]:
        sqs = self.subqueues
        ks = [k for k in ks if sqs[k].size]
        if len(ks) == 1:
            yield from self._walk(ks[0], after_seq)
        elif ks:
            yield from heapq.merge(*(self._walk(k, after_seq) for k in ks), key=_seq_of)

    def head(self, by_priority: bool) -> Entry | None:
        """The first message in delivery order, whatever its state: what :meth:`iter_order`
        yields first, found without generators (a destructive get usually takes it). Only
        the subqueues :attr:`occupied` says hold messages are looked at."""
        occupied = self.occupied
        if not occupied:
            return None
        sqs = self.subqueues
        if by_priority:  # the highest band holding anything: its two subqueues by arrival
            best_k = (occupied.bit_length() - 1) & ~1
            np_sq, p_sq = sqs[best_k], sqs[best_k + 1]
            if np_sq.size:
                best_seq = np_sq.seqs[0][0]
                if p_sq.size and p_sq.seqs[0][0] < best_seq:
                    best_k, best_seq = best_k + 1, p_sq.seqs[0][0]
            else:
                best_k, best_seq = best_k + 1, p_sq.seqs[0][0]
        else:  # the earliest arrival of every subqueue holding anything
            best_k = -1
            best_seq = 0
            while occupied:
                low = occupied & -occupied
                k = low.bit_length() - 1
                occupied ^= low
                first = sqs[k].seqs[0][0]
                if best_k < 0 or first < best_seq:
                    best_k, best_seq = k, first
        e = self.live.get(best_seq)
        if e is not None:
            return e
        return self._thaw(best_k, best_seq, sqs[best_k].recs[0], 0)

    def iter_order(self, by_priority: bool, after: tuple[int, int] | None = None
                   ) -> Iterator[Entry]:
        """Entries in delivery order, optionally strictly after a browse cursor key."""
        if not by_priority:
            yield from self._merge(range(20), after[1] if after is not None else None)
            return
        sqs = self.subqueues
        for k in range(18, -1, -2):  # the non-persistent subqueue of priority 9, 8, ... 0
            np_size, p_size = sqs[k].size, sqs[k + 1].size
            if not (np_size or p_size):
                continue
            start = None
            if after is not None:
                band = 9 - (k >> 1)
                if band < after[0]:
                    continue
                if band == after[0]:
                    start = after[1]
            if np_size and p_size:
                yield from heapq.merge(self._walk(k, start), self._walk(k + 1, start),
                                       key=_seq_of)
            else:
                yield from self._walk(k if np_size else k + 1, start)

    def _matching(self, live: dict, index: IdIndex, key: bytes, field: str) -> dict[int, Entry]:
        found = live.get(key)
        if found is None:
            out = {}
        elif isinstance(found, Entry):
            out = {found.seq: found}
        else:
            out = dict(found)
        if index._used:
            for v in index.find(hash(key)):
                if v >> 5 in out:
                    continue
                e = self._at(v & 31, v >> 5)
                if e is not None and getattr(e, field) == key:
                    out[e.seq] = e
        return out

    def matching(self, msgid: bytes | None, correlid: bytes | None) -> list[Entry]:
        """The entries carrying ``msgid`` and/or ``correlid``, from the indexes."""
        if msgid is not None:
            found = self._matching(self.live_msgid, self.by_msgid, msgid, "msgid")
            if correlid is not None:
                found = {s: e for s, e in found.items() if e.correlid == correlid}
        elif correlid is not None:
            found = self._matching(self.live_correlid, self.by_correlid, correlid, "correlid")
        else:
            found = {}
        return list(found.values())

    def candidates(self, msgid: bytes | None, correlid: bytes | None, by_priority: bool,
                   after: tuple[int, int] | None = None) -> Iterator[Entry]:
        """Entries that match the selection, in delivery order (index lookups, no scan)."""
        if msgid is None and correlid is None:
            yield from self.iter_order(by_priority, after)
            return
        pool = self.matching(msgid, correlid)
        if len(pool) > 1:
            pool.sort(key=lambda e: self.order_key(e, by_priority))
        for e in pool:
            if after is None or self.order_key(e, by_priority) > after:
                yield e

    # ------------------------------------------------------------------ bulk questions

    def available_at_or_above(self, floor: int) -> int:
        """Committed, available messages of priority ``floor`` or higher (TRIGMPRI)."""
        n = sum(self.subqueues[k].size for k in range(max(0, floor) * 2, 20))
        return n - sum(1 for e in self.live.values()
                       if e.priority >= floor and e.state != AVAILABLE)

    def expired_entries(self, now: float) -> list[Entry]:
        """Available messages whose expiry time has passed."""
        if not self.expiring:
            return []
        out = [e for e in self.live.values() if e.state == AVAILABLE and e.expired(now)]
        for k, recs, seqs in self._cold_chunks():
            for pos, (expiry_at,) in enumerate(_EXPIRY.iter_unpack(recs)):
                if 0 < expiry_at <= now and seqs[pos] not in self.live:
                    out.append(self._thaw(k, seqs[pos], recs, pos))
        return out

    def oldest_put_time(self) -> float:
        """The earliest put time of any message (0.0 for an empty queue)."""
        times = [e.put_time for e in self.live.values()]
        for _k, recs, seqs in self._cold_chunks():
            times.extend(t for pos, (t,) in enumerate(_PUT_TIME.iter_unpack(recs))
                         if seqs[pos] not in self.live)
        return min(times, default=0.0)

    def _cold_chunks(self) -> Iterator[tuple[int, bytearray, Sequence[int]]]:
        """(subqueue key, cold records, their sequence numbers) of each chunk of the
        persistent subqueues that has records (one whose messages are all live has none; a
        live message's slot is blank, so the caller skips the numbers in ``live``)."""
        for k in range(1, 20, 2):  # cold messages are persistent
            sq = self.subqueues[k]
            for ci, recs in enumerate(sq.recs):
                if recs is not None:
                    yield k, recs, sq.seqs[ci]

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
        """Every message, subqueue by subqueue (each subqueue read before it is yielded)."""
        for k in range(20):
            if self.subqueues[k].size:
                yield from list(self._walk(k, None))

    def forget_got(self) -> None:
        """Drop the got-messages hint (:attr:`got_prefix`): gets walk from the head again."""
        self.got_prefix = None
        self.got_prefix_drops += 1

    def after_got(self, by_priority: bool) -> tuple[int, int] | None:
        """Where a get may start looking in ``by_priority`` order: strictly after the
        messages known to be got under syncpoint (:attr:`got_prefix`); None: from the head."""
        prefix = self.got_prefix
        return prefix[1] if prefix is not None and prefix[0] == by_priority else None

    def first_past_got(self, head: Entry | None, by_priority: bool) -> Entry | None:
        """A get from the head when ``head`` (:meth:`head`) is got under syncpoint: the first
        message behind those got, if it is available, learning how far they go
        (:attr:`got_prefix`); None for anything else (no head, or one in another state)."""
        if head is None or head.state != GET_PENDING:
            return None
        last_got = entry = None
        for e in self.iter_order(by_priority, self.after_got(by_priority)):
            if e.state != GET_PENDING:
                entry = e
                break
            last_got = e
        if last_got is not None:
            self.got_prefix = (by_priority, ((9 - last_got.priority) if by_priority else 0,
                                             last_got.seq))
        return entry if entry is not None and entry.state == AVAILABLE else None

    def clear(self) -> list[Entry]:
        """Remove every message (queue deleted or purged); returns them, marked REMOVED."""
        self.forget_got()
        gone = list(self.entries())
        for e in gone:
            self.remove(e)
            e.state = REMOVED
            e.owner = None
        self.wake()
        return gone


def _seq_of(entry: Entry) -> int:
    return entry.seq
