"""The compact in-memory index of a queue: cold messages (no Python object) and live ones.

Whatever mix of cold messages (loaded from the pageset index at restart, or frozen when their
body left the buffer pool) and live ones a queue holds, delivery order, MsgId/CorrelId
selection, browse cursors, removal, states, backout counts and expiry behave exactly as for a
queue of plain entries.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mqpy.engine.pageset import pack_index
from mqpy.engine.queues import AVAILABLE, GET_PENDING, NONE_ID, PUT_PENDING, Entry, MessageQueue

IDS = [NONE_ID] + [bytes([i]) * 24 for i in range(1, 4)]
msg_st = st.tuples(st.integers(0, 9), st.booleans(), st.sampled_from(IDS),
                   st.sampled_from(IDS), st.sampled_from([0.0, 5.0, 50.0]))


class Model:
    """The queue as a plain dict of what every message should look like."""

    def __init__(self) -> None:
        self.msgs: dict[int, dict] = {}

    def order(self, by_priority: bool) -> list[int]:
        key = (lambda s: (-self.msgs[s]["prio"], s)) if by_priority else (lambda s: s)
        return sorted(self.msgs, key=key)


def _entry(seq, prio, pers, msgid, correlid, expiry, state=AVAILABLE, owner=None):
    return Entry(seq, prio, pers, msgid, correlid, expiry, 10 + seq, b"r", 100.0 + seq,
                 state=state, owner=owner)


def _check(mq: MessageQueue, model: Model) -> None:
    for by_priority in (True, False):
        order = model.order(by_priority)
        assert [e.seq for e in mq.iter_order(by_priority)] == order
        head = mq.head(by_priority)  # what a plain MQGET looks at first, cold or live
        assert (head.seq if head is not None else None) == (order[0] if order else None)
    assert mq.count == len(model.msgs)
    assert mq.getting == sum(1 for m in model.msgs.values() if m["state"] == GET_PENDING)
    assert mq.uncommitted == sum(1 for m in model.msgs.values() if m["state"] != AVAILABLE)
    for seq, m in model.msgs.items():
        e = mq.get(seq)
        assert e is not None and e.seq == seq
        assert (e.priority, e.persistent, e.msgid, e.correlid, e.expiry_at, e.backout_count,
                e.state) == (m["prio"], m["pers"], m["msgid"], m["correlid"], m["expiry"],
                             m["backout"], m["state"])
        assert mq.find(seq, m["prio"], m["pers"]).seq == seq
    for key in IDS[1:]:
        for field in ("msgid", "correlid"):
            want = [s for s in model.order(True) if model.msgs[s][field] == key]
            args = (key, None) if field == "msgid" else (None, key)
            assert [e.seq for e in mq.candidates(*args, True)] == want
        both = [s for s in model.order(False)
                if model.msgs[s]["msgid"] == key and model.msgs[s]["correlid"] == IDS[1]]
        assert [e.seq for e in mq.candidates(key, IDS[1], False)] == both
    now = 20.0
    assert sorted(e.seq for e in mq.expired_entries(now)) == sorted(
        s for s, m in model.msgs.items()
        if m["state"] == AVAILABLE and 0 < m["expiry"] <= now)
    for floor in (0, 5, 9):
        assert mq.available_at_or_above(floor) == sum(
            1 for m in model.msgs.values() if m["prio"] >= floor and m["state"] == AVAILABLE)


@settings(max_examples=60, deadline=None)
@given(st.lists(msg_st, max_size=30), st.lists(msg_st, max_size=30), st.data())
def test_cold_and_live_messages_behave_as_one_queue(loaded, added, data):
    """Given messages loaded cold from the pageset index and others put live, some frozen,
    some locked by gets, some removed, some backed out, then order, selection, counts and
    expiry match a plain model after every step.
    spec: aliases-channels-storage 4.43"""
    mq, model = MessageQueue(1), Model()
    seq = 0
    for prio, _pers, msgid, correlid, expiry in loaded:
        seq += 1
        mq.load(seq, pack_index(prio, 0, 10 + seq, expiry, msgid, correlid))
        model.msgs[seq] = dict(prio=prio, pers=True, msgid=msgid, correlid=correlid,
                               expiry=expiry, backout=0, state=AVAILABLE)
    mq.loaded()
    _check(mq, model)
    uow = object()
    for prio, pers, msgid, correlid, expiry in added:
        seq += 1
        mq.add(_entry(seq, prio, pers, msgid, correlid, expiry))
        model.msgs[seq] = dict(prio=prio, pers=pers, msgid=msgid, correlid=correlid,
                               expiry=expiry, backout=0, state=AVAILABLE)
        if not model.msgs:
            continue
        victim = data.draw(st.sampled_from(sorted(model.msgs)))
        action = data.draw(st.sampled_from(["freeze", "remove", "lock", "backout", "none"]))
        e = mq.get(victim)
        m = model.msgs[victim]
        if action == "freeze" and m["state"] == AVAILABLE:
            e.record, e.on_pageset = None, True
            mq.freeze(e)
        elif action == "remove":
            mq.remove(e)
            del model.msgs[victim]
        elif action == "lock" and m["state"] == AVAILABLE:
            mq.set_state(e, GET_PENDING, uow)
            m["state"] = GET_PENDING
        elif action == "backout":
            if m["state"] == GET_PENDING:
                mq.set_state(e, AVAILABLE)
                m["state"] = AVAILABLE
            e.backout_count += 1
            mq.touch(e)
            m["backout"] += 1
        _check(mq, model)


@given(st.lists(msg_st, min_size=1, max_size=40), st.data())
def test_browse_cursor_on_a_cold_message_continues_after_it(msgs, data):
    """Given a queue of cold messages and a browse cursor taken from one of them, then the
    messages after it are exactly those that follow it in delivery order."""
    mq = MessageQueue(1)
    for seq, (prio, _p, msgid, correlid, expiry) in enumerate(msgs, start=1):
        mq.load(seq, pack_index(prio, 0, 1, expiry, msgid, correlid))
    mq.loaded()
    for by_priority in (True, False):
        order = [e.seq for e in mq.iter_order(by_priority)]
        i = data.draw(st.integers(0, len(order) - 1))
        cursor = mq.order_key(mq.get(order[i]), by_priority)
        assert [e.seq for e in mq.iter_order(by_priority, cursor)] == order[i + 1:]


def test_a_frozen_message_keeps_its_fields_and_thaws_into_a_live_lock():
    """Given a committed persistent message whose body went to the pageset, when it is frozen
    then it has no Entry, and reading it gives back every field; locking it makes it live."""
    mq = MessageQueue(1)
    e = _entry(7, 4, True, IDS[1], IDS[2], 0.0)
    e.report, e.backout_count = 0x100, 3
    mq.add(e)
    e.record, e.on_pageset = None, True
    mq.freeze(e)
    assert 7 not in mq.live
    back = mq.get(7)
    assert back is not e
    assert (back.priority, back.msgid, back.correlid, back.length, back.put_time, back.report,
            back.backout_count, back.on_pageset, back.record) == \
        (4, IDS[1], IDS[2], 17, 107.0, 0x100, 3, True, None)
    mq.set_state(back, PUT_PENDING, object())
    assert mq.live[7] is back and mq.uncommitted == 1


def test_the_oldest_put_time_counts_cold_and_live_messages_alike():
    """Given persistent messages put live, the two oldest frozen (cold: only their records
    left), then the oldest put time (DISPLAY QSTATUS MSGAGE) is the earliest of the queue's
    messages, cold or live, and moves on when the oldest is removed; a message loaded cold at
    restart (whose put time the pageset index does not keep) counts as 0.0."""
    mq = MessageQueue(1)
    entries = [_entry(seq, 3, True, NONE_ID, NONE_ID, 0.0) for seq in range(1, 6)]
    for e in entries:
        mq.add(e)
    for e in entries[:2]:
        e.record, e.on_pageset = None, True
        mq.freeze(e)
    assert 1 not in mq.live and 2 not in mq.live
    assert mq.oldest_put_time() == 101.0
    mq.remove(mq.get(1))
    assert mq.oldest_put_time() == 102.0
    restarted = MessageQueue(2)
    restarted.load(1, pack_index(3, 0, 10, 0.0, NONE_ID, NONE_ID))
    restarted.loaded()
    restarted.add(_entry(2, 3, True, NONE_ID, NONE_ID, 0.0))
    assert restarted.oldest_put_time() == 0.0
    assert MessageQueue(3).oldest_put_time() == 0.0


def test_many_ids_grow_and_shrink_the_index():
    """Given thousands of distinct MsgIds, then each is found by lookup after growth, and after
    most are removed the rest are still found."""
    mq = MessageQueue(1)
    entries = [_entry(s, 0, False, s.to_bytes(24, "big"), NONE_ID, 0.0) for s in range(1, 5001)]
    for e in entries:
        mq.add(e)
    assert all([x.seq for x in mq.candidates(e.msgid, None, True)] == [e.seq] for e in entries)
    for e in entries[:4900]:
        mq.remove(e)
    assert all([x.seq for x in mq.candidates(e.msgid, None, True)] == [e.seq]
               for e in entries[4900:])
    assert list(mq.candidates(entries[0].msgid, None, True)) == []
    assert len(mq.live_msgid) == 100


def test_many_cold_ids_are_found_after_removals_and_refreezing():
    """Given thousands of cold messages with distinct MsgIds, when most are removed and one is
    thawed by a lock, released and frozen again, then every remaining one is found exactly
    once by its MsgId and the removed ones are not."""
    mq = MessageQueue(1)
    ids = [s.to_bytes(24, "big") for s in range(1, 5001)]
    for seq, msgid in enumerate(ids, start=1):
        mq.load(seq, pack_index(0, 0, 1, 0.0, msgid, NONE_ID))
    mq.loaded()
    for seq in range(1, 4901):
        mq.remove(mq.get(seq))
    e = mq.get(4950)
    mq.set_state(e, GET_PENDING, object())
    mq.set_state(e, AVAILABLE)
    e.on_pageset = True
    mq.freeze(e)
    assert 4950 not in mq.live
    assert all([x.seq for x in mq.candidates(ids[s - 1], None, True)] == [s]
               for s in range(4901, 5001))
    assert list(mq.candidates(ids[0], None, True)) == []
    assert len(mq.by_msgid) == 100


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.sampled_from(["keep", "freeze",
                                                                         "remove"])),
                min_size=1, max_size=60, unique_by=lambda t: id(t)),
       st.randoms(use_true_random=False))
def test_small_chunks_split_and_fill_in_any_arrival_order(ops, rnd):
    """Given chunks of 4 (so they split often), when messages arrive in any sequence order
    (redo at restart inserts behind later ones), cold or live, and some are frozen or removed,
    then every subqueue stays in sequence order and each message reads back as it was."""
    from unittest import mock

    from mqpy.engine import queues

    with mock.patch.object(queues, "_LOAD", 4):
        mq, model = MessageQueue(1), {}
        seqs = list(range(1, len(ops) + 1))
        rnd.shuffle(seqs)
        for seq, (cold, persistent, _) in zip(seqs, ops, strict=True):
            prio = seq % 3
            if cold:
                mq.load(seq, pack_index(prio, 0, seq, 0.0, IDS[1], NONE_ID))
                model[seq] = (prio, True, seq, IDS[1])
            else:
                mq.add(_entry(seq, prio, persistent, IDS[2], NONE_ID, 0.0))
                model[seq] = (prio, persistent, 10 + seq, IDS[2])
        mq.loaded()
        for seq, (_, _, action) in zip(seqs, ops, strict=True):
            e = mq.get(seq)
            if action == "freeze" and e.persistent:
                e.record, e.on_pageset = None, True
                mq.freeze(e)
            elif action == "remove":
                mq.remove(e)
                del model[seq]
        want = sorted(model, key=lambda s: (-model[s][0], s))
        assert [e.seq for e in mq.iter_order(True)] == want
        assert [e.seq for e in mq.iter_order(False)] == sorted(model)
        for seq, (prio, persistent, length, msgid) in model.items():
            e = mq.get(seq)
            assert (e.seq, e.priority, e.persistent, e.length, e.msgid) == \
                (seq, prio, persistent, length, msgid)
        for msgid in IDS[1:3]:
            assert sorted(e.seq for e in mq.candidates(msgid, None, False)) == \
                sorted(s for s, m in model.items() if m[3] == msgid)
        for by_priority in (True, False):  # head, from the occupied marks, is the order's first
            first, head = next(iter(mq.iter_order(by_priority)), None), mq.head(by_priority)
            assert (head and head.seq) == (first and first.seq)
        assert mq.occupied == sum(1 << k for k, sq in enumerate(mq.subqueues) if sq.size)
        for sq in mq.subqueues:
            flat = [s for chunk in sq.seqs for s in chunk]
            assert flat == sorted(flat) and len(flat) == sq.size
            assert sq.maxes == [chunk[-1] for chunk in sq.seqs]
            for chunk, recs in zip(sq.seqs, sq.recs, strict=True):
                assert recs is None or len(recs) == len(chunk) * 80
