"""The 20 subqueues of a local queue: delivery order, browse cursors and indexed selection."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mqpy.engine.queues import AVAILABLE, GET_PENDING, Entry, MessageQueue

msg_st = st.tuples(st.integers(0, 9), st.booleans(), st.sampled_from([b"A", b"B", b"C"]))


def build(msgs):
    mq = MessageQueue(1)
    entries = []
    for seq, (prio, pers, cid) in enumerate(msgs, start=1):
        e = Entry(seq, prio, pers, seq.to_bytes(24, "big"), cid.ljust(24, b"\0"), 0.0, 1, b"",
                  0.0)
        mq.add(e)
        entries.append(e)
    return mq, entries


@given(st.lists(msg_st, max_size=60), st.sets(st.integers(1, 60)))
def test_priority_delivery_is_highest_first_then_arrival(msgs, removed):
    """Given messages of mixed priority and persistence, some removed, then MSGDLVSQ(PRIORITY)
    order is priority 9..0 and arrival order within a priority, whatever the persistence.
    spec: aliases-channels-storage 4.43"""
    mq, entries = build(msgs)
    for e in entries:
        if e.seq in removed:
            mq.remove(e)
    left = [e for e in entries if e.seq not in removed]
    assert [e.seq for e in mq.iter_order(True)] == \
        [e.seq for e in sorted(left, key=lambda e: (-e.priority, e.seq))]
    assert [e.seq for e in mq.iter_order(False)] == [e.seq for e in left]
    for by_priority in (True, False):  # the head a plain MQGET takes is the order's first
        first = next(iter(mq.iter_order(by_priority)), None)
        assert mq.head(by_priority) is first
    # head looks only at the subqueues marked occupied: the marks are exactly the non-empty ones
    assert mq.occupied == sum(1 << k for k, sq in enumerate(mq.subqueues) if sq.size)
    assert mq.depth == len(left)


@given(st.lists(msg_st, min_size=1, max_size=40), st.data())
def test_browse_next_continues_after_the_cursor(msgs, data):
    """Given a browse cursor on any message, then the messages after it are exactly those that
    follow it in delivery order, in both delivery sequences."""
    mq, entries = build(msgs)
    for by_priority in (True, False):
        order = list(mq.iter_order(by_priority))
        i = data.draw(st.integers(0, len(order) - 1))
        cursor = mq.order_key(order[i], by_priority)
        assert list(mq.iter_order(by_priority, cursor)) == order[i + 1:]


@given(st.lists(msg_st, max_size=40), st.sampled_from([b"A", b"B", b"C"]))
def test_selection_by_correlid_uses_the_index_in_delivery_order(msgs, cid):
    """Given messages with a few CorrelIds, then selecting one CorrelId returns exactly its
    messages in delivery order (no scan: the index bucket is the candidate set)."""
    mq, entries = build(msgs)
    key = cid.ljust(24, b"\0")
    want = sorted((e for e in entries if e.correlid == key), key=lambda e: (-e.priority, e.seq))
    assert list(mq.candidates(None, key, True)) == want
    assert len(mq.matching(None, key)) == len(want)


def test_uncommitted_state_is_counted_and_restored():
    """Given a message locked by a get in a unit of work, then it counts as uncommitted and
    goes back to its place, available, when the lock is released."""
    mq, entries = build([(0, True, b"A"), (0, True, b"A")])
    first = entries[0]
    mq.set_state(first, GET_PENDING, object())
    assert mq.uncommitted == 1 and not first.visible_to(None)
    mq.set_state(first, AVAILABLE)
    assert mq.uncommitted == 0
    assert next(iter(mq.iter_order(True))) is first
