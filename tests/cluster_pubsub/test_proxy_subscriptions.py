"""Which proxy subscriptions a queue manager sends (sans-IO, ``proxysubs``): one per topic
string under a cluster topic, to every other member of the cluster; withdrawn with the last
local subscription; sent to a member that joins."""

from __future__ import annotations

from mqpy import CMQC
from mqpy.pubsub.topicstrings import topic_based
from mqpy_chinit.cluster.proxysubs import (
    ProxySubscriptions,
    Resync,
    SendProxy,
    WithdrawProxy,
    proxy_topics,
)

TOPICS = [("INV", "sports")]
MEMBERS = {"INV": ["QM1", "QM2", "QM3"]}


def _run(machine: ProxySubscriptions, local, topics=TOPICS, members=MEMBERS) -> list:
    actions = machine.update(local, topics, members)
    for action in actions:
        machine.done(action)
    return actions


def _started(qmgr: str = "QM2") -> ProxySubscriptions:
    """A machine that has told the members of MEMBERS to resync (rule 5)."""
    machine = ProxySubscriptions(qmgr)
    assert _run(machine, []) == [Resync(m) for m in MEMBERS["INV"] if m != qmgr]
    return machine


def test_each_member_is_first_told_to_resync_then_sent_what_stands():
    qm2 = ProxySubscriptions("QM2")
    assert _run(qm2, ["sports/x"]) == [Resync("QM1"), Resync("QM3")]
    assert _run(qm2, ["sports/x"]) == [SendProxy("QM1", "INV", "sports/x"),
                                       SendProxy("QM3", "INV", "sports/x")]


def test_a_resync_not_carried_out_holds_back_the_sends_to_that_member():
    qm2 = ProxySubscriptions("QM2")
    first = qm2.update(["sports"], TOPICS, MEMBERS)
    qm2.done(first[0])  # QM1's went, QM3's did not
    assert qm2.update(["sports"], TOPICS, MEMBERS) == [Resync("QM3"),
                                                       SendProxy("QM1", "INV", "sports")]


def test_a_subscription_under_a_cluster_topic_is_sent_to_every_other_member():
    qm2 = _started()
    assert _run(qm2, ["sports/football", "weather"]) == [
        SendProxy("QM1", "INV", "sports/football"), SendProxy("QM3", "INV", "sports/football")]
    assert _run(qm2, ["sports/football", "sports/football", "weather"]) == []


def test_the_last_local_subscription_gone_withdraws_the_proxy_subscriptions():
    qm2 = _started()
    _run(qm2, ["sports/football", "sports/football"])
    assert _run(qm2, ["sports/football"]) == []
    assert _run(qm2, []) == [WithdrawProxy("QM1", "INV", "sports/football"),
                             WithdrawProxy("QM3", "INV", "sports/football")]


def test_a_member_joining_later_is_sent_what_stands():
    qm2 = _started()
    _run(qm2, ["sports"])
    four = {"INV": ["QM1", "QM2", "QM3", "QM4"]}
    assert _run(qm2, ["sports"], members=four) == [Resync("QM4")]
    assert _run(qm2, ["sports"], members=four) == [SendProxy("QM4", "INV", "sports")]


def test_a_cluster_topic_withdrawn_withdraws_its_proxy_subscriptions():
    qm2 = _started()
    _run(qm2, ["sports/x"])
    assert {type(a) for a in _run(qm2, ["sports/x"], topics=[])} == {WithdrawProxy}
    assert qm2.sent() == frozenset()


def test_an_action_not_carried_out_is_proposed_again():
    qm2 = _started()
    first = qm2.update(["sports"], TOPICS, MEMBERS)
    qm2.done(first[0])
    assert qm2.update(["sports"], TOPICS, MEMBERS) == first[1:]


def test_forget_sends_everything_to_that_member_again():
    qm2 = _started()
    _run(qm2, ["sports"])
    qm2.forget("QM3")
    assert _run(qm2, ["sports"]) == [Resync("QM3")]
    assert _run(qm2, ["sports"]) == [SendProxy("QM3", "INV", "sports")]


def test_proxy_topic_strings():
    assert proxy_topics("sports", "sports") == "sports"
    assert proxy_topics("sports/football/#", "sports") == "sports/football/#"
    assert proxy_topics("sports/#", "sports") == "sports/#"
    assert proxy_topics("sports/+/goals", "sports") == "sports/+/goals"
    assert proxy_topics("sportsman", "sports") is None
    assert proxy_topics("weather/#", "sports") is None


def test_a_wildcard_subscription_above_a_cluster_topic_sends_no_proxy_subscription():
    """IBM ("Defining cluster topics", wildcard subscriptions): proxy subscriptions are made
    for a subscription whose topic string resolves at or below a cluster topic object (the
    levels before its first wildcard); one made higher in the tree (``#``, ``+/+/goals``,
    ``sports/#`` above ``sports/football``) gets the local publications only."""
    assert proxy_topics("#", "sports/football") is None
    assert proxy_topics("sports/#", "sports/football") is None
    assert proxy_topics("+/+/goals", "sports") is None
    assert proxy_topics("+/football", "sports") is None
    qm2 = _started()
    assert _run(qm2, ["#", "+/+/goals", "+"]) == []
    assert _run(qm2, ["#", "sports/+/goals"]) == [
        SendProxy("QM1", "INV", "sports/+/goals"), SendProxy("QM3", "INV", "sports/+/goals")]


def test_a_character_wildcard_is_sent_as_a_topic_wildcard_back_to_the_nearest_separator():
    """IBM ("Wildcards in proxy subscriptions"): a proxy subscription uses topic-based
    wildcards; a character-based one is replaced by ``#`` back to the nearest ``/``."""
    assert topic_based("sports/foot*", CMQC.MQWS_CHAR) == "sports/#"
    assert topic_based("sports/*/goals", CMQC.MQWS_CHAR) == "sports/#"
    assert topic_based("sports/100%*", CMQC.MQWS_CHAR) == "sports/100*"  # escaped: literal
    assert topic_based("sports/+", CMQC.MQWS_TOPIC) == "sports/+"
    assert topic_based("*", CMQC.MQWS_CHAR) == "#"
