"""A distribution-list message arriving on a channel: which destinations share its one
distribution-list put and which go one by one as single arrivals (and so through message
retry, reports and the dead-letter queue on their own)."""

from __future__ import annotations

from mqpy import CMQC
from mqpy_chinit.distribution import failed_in_list, list_put

OK, WARNING, FAILED = CMQC.MQCC_OK, CMQC.MQCC_WARNING, CMQC.MQCC_FAILED


def test_given_three_local_queues_when_a_list_arrives_then_one_put_takes_them_all():
    """Given a list naming three queues, none a remote-queue definition, when it arrives,
    then all three go in the one list put and none alone.
    spec: dqm-intercommunication 9.48"""
    assert list_put(3, False, set()) == ([0, 1, 2], [])


def test_given_a_remote_queue_definition_in_a_list_then_it_goes_alone():
    """Given a list whose second destination names a local remote-queue definition, when it
    arrives, then the others share the list put and that one goes alone (undeliverable as a
    single arrival would be: rule 6)."""
    assert list_put(3, False, {1}) == ([0, 2], [1])


def test_given_altmca_when_a_list_arrives_then_every_destination_goes_alone():
    """Given PUTAUT(ALTMCA), when a list arrives, then every destination goes alone: the
    second user is judged per destination, as for single arrivals."""
    assert list_put(3, True, set()) == ([], [0, 1, 2])


def test_given_a_warning_with_responses_when_the_list_put_ends_then_the_failed_go_alone():
    """Given a list put of destinations 0, 2 and 3 that ended with a warning and a response
    record each, the middle one failed, then only destination 2 goes on alone."""
    assert failed_in_list([0, 2, 3], WARNING, [OK, FAILED, OK]) == [2]


def test_given_a_failed_list_put_when_it_ends_then_every_destination_goes_alone():
    """Given a list put that failed outright (or whose responses do not match), then every
    destination goes alone: nothing was put."""
    assert failed_in_list([0, 1], FAILED, []) == [0, 1]
    assert failed_in_list([0, 1], WARNING, [FAILED]) == [0, 1]
