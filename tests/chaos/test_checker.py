"""The chaos checker catches what it is there to catch, shown on doctored histories: a
message dropped, a batch committed twice, an uncommitted message seen, a message out of
order, one put on the wrong queue; and it accepts what faults legitimately leave (a unit of
work of unknown outcome, a dead-lettered message where one is expected)."""

from __future__ import annotations

from tests.chaos.checker import check

PLACES = {"DEST.B": {"QMB/DEST.B"}, "NOSUCH.Q": {"QMB/PARKED#2085"}}
ORDERED = {"DEST.B"}


def _clean() -> dict[str, list[str]]:
    """A producer's two committed units of work and a backed-out one, a consumer that got
    them (backing out once, then committing) and the final drain."""
    return {
        "prod.1": ["p 1 DEST.B prod1.1 prod1.2 prod1.3", "C 1",
                   "p 2 DEST.B prod1.4", "B 2",
                   "p 3 DEST.B prod1.5 prod1.6", "C 3"],
        "cons.1": ["g 1 QMB/DEST.B prod1.1 prod1.2", "B 1",
                   "g 2 QMB/DEST.B prod1.1 prod1.2 prod1.3", "C 2",
                   "g 3 QMB/DEST.B prod1.5", "C 3"],
        "drain": ["g 1 QMB/DEST.B prod1.6", "C 1"],
    }


def test_given_a_clean_history_when_checked_then_it_passes():
    verdict = check(_clean(), PLACES, ORDERED)
    assert verdict.ok, verdict.summary()
    assert verdict.counts["delivered"] == 5
    assert verdict.counts["puts_backed_out"] == 1


def test_given_a_committed_message_never_got_then_it_is_lost():
    history = _clean()
    history["drain"] = []  # prod1.6 dropped
    verdict = check(history, PLACES, ORDERED)
    assert verdict.lost == ["prod1.6"] and not verdict.ok


def test_given_a_batch_committed_twice_then_its_messages_are_duplicated():
    history = _clean()
    history["drain"] += ["g 2 QMB/DEST.B prod1.1 prod1.2 prod1.3", "C 2"]
    verdict = check(history, PLACES, ORDERED)
    assert sorted(verdict.duplicated) == ["prod1.1", "prod1.2", "prod1.3"]


def test_given_a_backed_out_put_seen_by_a_get_then_an_uncommitted_message_was_seen():
    history = _clean()
    history["cons.1"] += ["g 4 QMB/DEST.B prod1.4", "B 4"]  # even a get later backed out
    verdict = check(history, PLACES, ORDERED)
    assert verdict.uncommitted_seen == ["prod1.4"]


def test_given_a_reader_that_sees_a_later_message_first_then_order_was_broken():
    history = _clean()
    history["cons.1"] = ["g 1 QMB/DEST.B prod1.2 prod1.1 prod1.3", "C 1",
                         "g 2 QMB/DEST.B prod1.5", "C 2"]
    verdict = check(history, PLACES, ORDERED)
    assert verdict.out_of_order == ["prod1.1"]


def test_given_a_message_got_from_the_wrong_queue_then_it_is_misplaced():
    history = _clean()
    history["drain"] = ["g 1 QMB/OTHER prod1.6", "C 1"]
    verdict = check(history, PLACES, ORDERED)
    assert verdict.misplaced == ["prod1.6@QMB/OTHER"]


def test_given_a_get_of_an_id_never_put_then_it_is_a_phantom():
    history = _clean()
    history["drain"] += ["g 2 QMB/DEST.B ghost.1", "C 2"]
    assert check(history, PLACES, ORDERED).phantom == ["ghost.1"]


def test_given_units_of_work_of_unknown_outcome_then_nothing_is_failed():
    """A producer killed before its resolution line (the put may have committed: it
    arrives once), or whose MQCMIT failed (it did not arrive); a consumer killed after
    its get (the message counts as consumed, ambiguously)."""
    history = _clean()
    history["prod.2"] = ["p 1 DEST.B prod2.1", "p 2 DEST.B prod2.2", "U 2",
                         "p 3 DEST.B prod2.3", "C 3"]
    history["cons.2"] = ["g 1 QMB/DEST.B prod2.1", "g 2 QMB/DEST.B prod2.3"]
    verdict = check(history, PLACES, ORDERED)
    assert verdict.ok, verdict.summary()
    assert verdict.counts["ambiguous"] == 1 and verdict.counts["puts_unknown"] == 2


def test_given_a_message_dead_lettered_with_the_expected_reason_then_it_arrived():
    history = _clean()
    history["prod.1"] += ["p 4 NOSUCH.Q prod1.7", "C 4"]
    history["drain"] += ["g 2 QMB/PARKED#2085 prod1.7", "C 2"]
    verdict = check(history, PLACES, ORDERED)
    assert verdict.ok and verdict.counts["dead_lettered"] == 1
    history["drain"][-2] = "g 2 QMB/PARKED#2053 prod1.7"  # another reason: not expected
    assert check(history, PLACES, ORDERED).misplaced == ["prod1.7@QMB/PARKED#2053"]


def test_given_a_committed_message_left_on_a_transmission_queue_then_it_is_stranded():
    """Not lost (it is there), but it never arrived: a channel did not converge."""
    history = _clean()
    history["drain"] = ["g 1 QMA/QMB prod1.6", "C 1"]
    verdict = check(history, PLACES, ORDERED, {"QMA/QMB"})
    assert verdict.stranded == ["prod1.6"] and not verdict.lost and not verdict.ok
