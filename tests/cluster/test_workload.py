"""The cluster workload management algorithm (workload.py; spec operations-dlq-clusters §4
Binding / Failures, acceptance 7.21-7.23 and 7.28; spec aliases-channels-storage 4.9)."""

from __future__ import annotations

from collections import Counter

import pytest

from mqpy import CMQC
from mqpy.errors import MQMIError
from mqpy_chinit.cluster import (
    QueueInstance,
    RoundRobinState,
    choose_destination,
    effective_bind,
    may_reroute,
    reroute,
)

from .sim import CLUSTER, four_qmgr_cluster

NOT_FIXED = CMQC.MQBND_BIND_NOT_FIXED
ON_OPEN = CMQC.MQBND_BIND_ON_OPEN


def inst(qmgr: str, **kw) -> QueueInstance:
    local = kw.pop("local", False)
    return QueueInstance("Q1", qmgr, f"{qmgr}_ID", CLUSTER, "" if local else f"TO.{qmgr}",
                         local=local, **kw)


def put_many(instances, n, states=None, local_qmgr="GW", clwluseq="QMGR", **kw):
    """n MQPUTs with BIND_NOT_FIXED, returning the queue managers chosen in order."""
    state = RoundRobinState()
    chosen = []
    for _ in range(n):
        choice = choose_destination(instances, states or {}, local_qmgr, clwluseq, NOT_FIXED,
                                    None, state, **kw)
        state = choice.state
        chosen.append(choice.destination.qmgr)
    return chosen


def test_round_robin_across_three_instances():
    """dqm-intercommunication §5: "the workload algorithm is round-robin" over the available
    queue managers. Given three equal instances, then 9 puts go A B C A B C A B C."""
    assert put_many([inst("A"), inst("B"), inst("C")], 9) == list("ABCABCABC")


def test_clwlprty_highest_wins_and_lower_is_the_reserve():
    """CLWLPRTY (channel or queue): the highest priority instance gets everything while it is
    available; when its channel is STOPPED the next priority takes over."""
    instances = [inst("A", channel_priority=5), inst("B"), inst("C", queue_priority=0)]
    assert set(put_many(instances, 5)) == {"A"}
    assert set(put_many(instances, 5, states={"TO.A": "STOPPED"})) == {"B", "C"}
    by_queue = [inst("A"), inst("B", queue_priority=3)]
    assert set(put_many(by_queue, 4)) == {"B"}


def test_clwlrank_is_taken_before_channel_status():
    """CLWLRANK: the highest rank wins even when its channel is STOPPED (rank is read before
    status, so the message waits on the transmission queue for it)."""
    instances = [inst("A", channel_rank=2), inst("B", channel_rank=1), inst("C")]
    assert set(put_many(instances, 4, states={"TO.A": "STOPPED"})) == {"A"}
    by_queue = [inst("A"), inst("B", queue_rank=4)]
    assert set(put_many(by_queue, 4, states={"TO.B": "RETRYING"})) == {"B"}


def test_clwlwght_skews_the_distribution():
    """CLWLWGHT: weight 80 against 20 gives about four messages to one; equal weights even."""
    counts = Counter(put_many([inst("A", channel_weight=80), inst("B", channel_weight=20)],
                              500))
    assert 3.5 < counts["A"] / counts["B"] < 4.5
    counts = Counter(put_many([inst("A", channel_weight=99), inst("B", channel_weight=99)],
                              100))
    assert counts["A"] == counts["B"] == 50


def test_clwluseq_local_keeps_puts_on_the_local_instance():
    """spec: aliases-channels-storage 4.9 (gateway with an instance). CLWLUSEQ(LOCAL), or
    QMGR with the queue manager's LOCAL (the default), sends every put to the local instance."""
    instances = [inst("GW", local=True), inst("QM2"), inst("QM3")]
    assert set(put_many(instances, 6, clwluseq="LOCAL")) == {"GW"}
    assert set(put_many(instances, 6, clwluseq="QMGR", qmgr_clwluseq="LOCAL")) == {"GW"}


def test_clwluseq_any_spreads_across_local_and_remote_instances():
    """spec: aliases-channels-storage 4.9: "Gateway with an instance: spread only with
    CLWLUSEQ(ANY)" (queue attribute, or QMGR with ALTER QMGR CLWLUSEQ(ANY))."""
    instances = [inst("GW", local=True), inst("QM2"), inst("QM3")]
    assert Counter(put_many(instances, 9, clwluseq="ANY")) == {"GW": 3, "QM2": 3, "QM3": 3}
    assert len(set(put_many(instances, 9, clwluseq="QMGR", qmgr_clwluseq="ANY"))) == 3


def test_the_local_instance_step_comes_before_rank():
    """IBM's algorithm (MQ 6/7 order): the local-instance step comes before CLWLRANK. Given
    a local instance and a remote one of higher channel and queue rank, with CLWLUSEQ LOCAL
    every put stays local; with ANY the local instance (no channel) survives the channel
    rank step and only queue rank sets it aside.  spec: aliases-channels-storage 4.9"""
    instances = [inst("GW", local=True), inst("QM2", channel_rank=5, queue_rank=5)]
    assert set(put_many(instances, 4, clwluseq="LOCAL")) == {"GW"}
    assert set(put_many(instances, 4, clwluseq="ANY")) == {"QM2"}
    by_channel = [inst("GW", local=True), inst("QM2", channel_rank=5)]
    assert Counter(put_many(by_channel, 4, clwluseq="ANY")) == {"GW": 2, "QM2": 2}


def test_gateway_without_an_instance_spreads():
    """spec: aliases-channels-storage 4.9: EDINBURGH on QM2 and QM3, arriving at a gateway
    without an instance: both get messages."""
    assert set(put_many([inst("QM2"), inst("QM3")], 4, local_qmgr="GW")) == {"QM2", "QM3"}


def test_a_message_from_a_cluster_channel_goes_to_the_local_instance():
    """IBM: the local instance is chosen for a message that arrived over a cluster channel,
    whatever CLWLUSEQ says (no ping-pong between instances)."""
    instances = [inst("GW", local=True), inst("QM2")]
    assert set(put_many(instances, 4, clwluseq="ANY", put_by_cluster_channel=True)) == {"GW"}


def test_put_disabled_instances_are_avoided():
    """Seed 001 2.1.3: "attempts when possible to send messages to destinations that are
    put-enabled"."""
    instances = [inst("A", put_enabled=False), inst("B"), inst("C")]
    assert set(put_many(instances, 6)) == {"B", "C"}
    local = [inst("GW", local=True, put_enabled=False), inst("B")]
    assert set(put_many(local, 3, clwluseq="LOCAL")) == {"B"}


def test_all_put_disabled_bind_on_open_fails_mqopen_2268():
    """spec: operations-dlq-clusters 7.21: put-disabled everywhere, no local copy:
    BIND_ON_OPEN -> MQOPEN MQRC_CLUSTER_PUT_INHIBITED (2268)."""
    instances = [inst("A", put_enabled=False), inst("B", put_enabled=False)]
    with pytest.raises(MQMIError) as info:
        choose_destination(instances, {}, "GW", "QMGR", ON_OPEN, None, RoundRobinState(),
                           opening=True)
    assert info.value.reason == CMQC.MQRC_CLUSTER_PUT_INHIBITED == 2268
    assert info.value.comp == CMQC.MQCC_FAILED


def test_all_put_disabled_bind_not_fixed_opens_then_put_fails_2051():
    """spec: operations-dlq-clusters 7.21: BIND_NOT_FIXED -> MQOPEN OK, MQPUT
    MQRC_PUT_INHIBITED (2051)."""
    instances = [inst("A", put_enabled=False), inst("B", put_enabled=False)]
    opened = choose_destination(instances, {}, "GW", "QMGR", NOT_FIXED, None,
                                RoundRobinState(), opening=True)
    assert opened.destination is None
    with pytest.raises(MQMIError) as info:
        choose_destination(instances, {}, "GW", "QMGR", NOT_FIXED, None, opened.state)
    assert info.value.reason == CMQC.MQRC_PUT_INHIBITED == 2051


def test_all_put_disabled_with_a_local_instance_opens_bound_to_it():
    """Seed 001 2.1.3: "or there is a local instance of the queue, an MQOPEN call succeeds"
    (and the put to the inhibited local queue fails 2051 in the engine)."""
    instances = [inst("GW", local=True, put_enabled=False), inst("B", put_enabled=False)]
    opened = choose_destination(instances, {}, "GW", "QMGR", ON_OPEN, None, RoundRobinState(),
                                opening=True)
    assert opened.destination.local


def test_suspended_queue_managers_are_avoided_while_there_is_an_alternative():
    """spec: operations-dlq-clusters 7.23: traffic goes to alternatives, but a queue only the
    suspended queue manager hosts still gets messages."""
    assert set(put_many([inst("A", suspended=True), inst("B"), inst("C")], 6)) == {"B", "C"}
    assert set(put_many([inst("A", suspended=True)], 2)) == {"A"}


def test_running_and_inactive_channels_are_preferred_to_retrying_and_stopped():
    """IBM's status groups: {INACTIVE, RUNNING} before {BINDING, STARTING, ...} before
    {RETRYING} before {STOPPED, PAUSED, ...}."""
    states = {"TO.A": "RETRYING", "TO.B": "STOPPED", "TO.C": "INACTIVE", "TO.D": "RUNNING"}
    instances = [inst(q) for q in "ABCD"]
    assert set(put_many(instances, 4, states=states)) == {"C", "D"}
    assert set(put_many(instances[:2], 2, states=states)) == {"A"}
    assert set(put_many([inst("A"), inst("B")], 2,
                        states={"TO.A": "STOPPED", "TO.B": "BINDING"})) == {"B"}


def test_netprty_picks_the_channel_to_a_queue_manager():
    """NETPRTY: of two channels to one queue manager, the higher network priority is used."""
    a1 = QueueInstance("Q1", "A", "A_ID", CLUSTER, "TO.A.SLOW", netprty=1)
    a2 = QueueInstance("Q1", "A", "A_ID", CLUSTER, "TO.A.FAST", netprty=5)
    state = RoundRobinState()
    for _ in range(3):
        choice = choose_destination([a1, a2], {}, "GW", "QMGR", NOT_FIXED, None, state)
        state = choice.state
        assert choice.destination.channel == "TO.A.FAST"


def test_bind_on_open_sticks_and_bind_not_fixed_chooses_again():
    """spec: operations-dlq-clusters 7.22: NOT_FIXED spreads puts; ON_OPEN pins one handle to
    one instance (the MQOPEN's choice is used for every put)."""
    instances = [inst("A"), inst("B")]
    opened = choose_destination(instances, {}, "GW", "QMGR", ON_OPEN, None, RoundRobinState(),
                                opening=True)
    state = opened.state
    puts = []
    for _ in range(4):
        choice = choose_destination(instances, {}, "GW", "QMGR", ON_OPEN, opened.destination,
                                    state)
        state = choice.state
        puts.append(choice.destination.qmgr)
    assert puts == [opened.destination.qmgr] * 4
    assert set(put_many(instances, 4)) == {"A", "B"}


def test_a_queue_manager_name_in_the_mqod_bypasses_balancing():
    """Spec §4 Binding: "A QM name in the MQOD bypasses balancing"."""
    assert set(put_many([inst("A"), inst("B")], 4, target_qmgr="B")) == {"B"}


def test_no_instance_is_unknown_object_name():
    """No instance known (yet): MQRC_UNKNOWN_OBJECT_NAME 2085 (seed 001 2.3.8)."""
    with pytest.raises(MQMIError) as info:
        choose_destination([], {}, "GW", "QMGR", NOT_FIXED, None, RoundRobinState())
    assert info.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_round_robin_restarts_when_a_destination_appears_or_changes():
    """IBM: the sequence factors go back to zero when a new destination becomes available or
    a destination's workload attributes change."""
    state = RoundRobinState()
    for _ in range(10):
        state = choose_destination([inst("A", channel_weight=10), inst("B")], {}, "GW", "QMGR",
                                   NOT_FIXED, None, state).state
    assert state.factors["TO.A"] > 0 and state.factors["TO.B"] > 0
    state = choose_destination([inst("A", channel_weight=10), inst("B"), inst("C")], {}, "GW",
                               "QMGR", NOT_FIXED, None, state).state
    assert sorted(state.factors.values()) == [0, 0, 20]


def test_clwlmruc_limits_the_channels_in_use():
    """CLWLMRUC: only the most recently used channels stay candidates."""
    instances = [inst(q) for q in "ABCD"]
    first = put_many(instances, 2)  # A then B are the most recently used
    state = RoundRobinState()
    for q in first:
        state = choose_destination([inst(q)], {}, "GW", "QMGR", NOT_FIXED, None, state).state
    chosen = set()
    for _ in range(6):
        choice = choose_destination(instances, {}, "GW", "QMGR", NOT_FIXED, None, state,
                                    clwlmruc=2)
        state = choice.state
        chosen.add(choice.destination.qmgr)
    assert chosen == {"A", "B"}


def test_effective_bind_follows_the_open_options_then_defbind():
    """MQOO_BIND_ON_OPEN / NOT_FIXED win; MQOO_BIND_AS_Q_DEF takes the queue's DEFBIND."""
    assert effective_bind(CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED, ON_OPEN) == NOT_FIXED
    assert effective_bind(CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_ON_OPEN, NOT_FIXED) == ON_OPEN
    assert effective_bind(CMQC.MQOO_OUTPUT, NOT_FIXED) == NOT_FIXED


def test_messages_of_a_failed_channel_are_rerouted_only_if_unbound_and_not_in_doubt():
    """spec: operations-dlq-clusters 7.28 and seed 001 2.1.1: unbound, not-in-doubt messages
    backed out to the cluster transmission queue go to another instance; bound or in-doubt
    ones, or those with no alternative, wait."""
    instances = [inst("A"), inst("B")]
    states = {"TO.A": "RETRYING"}
    assert may_reroute(NOT_FIXED, False) and not may_reroute(ON_OPEN, False)
    assert not may_reroute(NOT_FIXED, True)
    moved = reroute("TO.A", NOT_FIXED, False, instances, states, "GW", RoundRobinState())
    assert moved.destination.qmgr == "B"
    assert reroute("TO.A", ON_OPEN, False, instances, states, "GW", RoundRobinState()) is None
    assert reroute("TO.A", NOT_FIXED, True, instances, states, "GW", RoundRobinState()) is None
    assert reroute("TO.A", NOT_FIXED, False, [inst("A")], states, "GW",
                   RoundRobinState()) is None
    assert reroute("TO.A", NOT_FIXED, False, [inst("A"), inst("B", put_enabled=False)],
                   states, "GW", RoundRobinState()) is None


def test_instances_from_the_repository_feed_the_algorithm():
    """End to end in the core: Q1 on P2 and FR2, P1 resolves it and round-robins; after P2
    is suspended every put goes to FR2 (spec 7.22, 7.23)."""
    net = four_qmgr_cluster()
    for name in ("P2", "FR2"):
        net.do(name, net.repos[name].advertise_queue("Q1", [CLUSTER]))
    net.do("P1", list(net.repos["P1"].resolve_queue("Q1").actions))
    instances = net.repos["P1"].queue_instances("Q1")
    assert put_many(instances, 4, local_qmgr="P1") == ["FR2", "P2", "FR2", "P2"]
    net.do("P2", net.repos["P2"].suspend(CLUSTER))
    instances = net.repos["P1"].queue_instances("Q1")
    assert set(put_many(instances, 4, local_qmgr="P1")) == {"FR2"}


def test_a_message_is_rerouted_only_to_a_better_channel_status():
    """spec: operations-dlq-clusters 7.28 with workload step 6: a message of a RETRYING
    channel moves to an instance whose channel is RUNNING or INACTIVE, or to the local
    instance, never to another RETRYING one (it would only go back and forth); a message of
    a STOPPED channel may move to a RETRYING one."""
    instances = [inst("A"), inst("B")]
    both_retrying = {"TO.A": "RETRYING", "TO.B": "RETRYING"}
    assert reroute("TO.A", NOT_FIXED, False, instances, both_retrying, "GW",
                   RoundRobinState()) is None
    assert reroute("TO.B", NOT_FIXED, False, instances, both_retrying, "GW",
                   RoundRobinState()) is None
    moved = reroute("TO.A", NOT_FIXED, False, instances, {"TO.A": "RETRYING",
                                                          "TO.B": "RUNNING"},
                    "GW", RoundRobinState())
    assert moved.destination.qmgr == "B"
    moved = reroute("TO.A", NOT_FIXED, False, instances, {"TO.A": "STOPPED",
                                                          "TO.B": "RETRYING"},
                    "GW", RoundRobinState())
    assert moved.destination.qmgr == "B"
    local = [inst("A"), inst("GW", local=True)]
    moved = reroute("TO.A", NOT_FIXED, False, local, both_retrying, "GW", RoundRobinState())
    assert moved.destination.local


def test_a_resumed_queue_manager_is_the_least_recently_used_not_a_new_destination():
    """spec: operations-dlq-clusters 7.23. Given A and B, both known from the start, and B
    suspended, when six puts go to A and B is resumed, then B, the least recently used
    destination, gets the next puts: resuming a known queue manager is not a new destination
    (which would reset every destination's round-robin count and split the puts A/B)."""
    state = RoundRobinState()

    def put(instances):
        nonlocal state
        choice = choose_destination(instances, {}, "GW", "QMGR", NOT_FIXED, None, state)
        state = choice.state
        return choice.destination.qmgr

    suspended = [inst("A"), inst("B", suspended=True)]
    assert [put(suspended) for _ in range(6)] == ["A"] * 6
    resumed = [inst("A"), inst("B")]
    assert [put(resumed) for _ in range(3)] == ["B", "B", "B"]
