"""Record and subscription lifetimes with an advanced clock (seed 001 2.1.4; spec
operations-dlq-clusters §4 "Objects and lifetimes")."""

from __future__ import annotations

from mqpy_chinit.cluster import ClusterQmgrRecord, DeleteAutoClussdr, RemoveRecord

from .sim import CLUSTER, clusqmgrs, four_qmgr_cluster


def _sent_by(net, name):
    return [(to, c.body) for frm, to, c in net.delivered if frm == name]


def test_own_records_are_published_again_after_27_days():
    """spec: operations-dlq-clusters 7.26 (re-sent at t+27d). Given P2 published at t, when
    the clock reaches t+26d nothing is re-sent; at t+27d P2 re-sends its queue-manager and
    queue records with a newer version, and the full repositories' copies now expire at
    t+27d+30d."""
    net = four_qmgr_cluster()
    net.do("P2", net.repos["P2"].advertise_queue("Q1", [CLUSTER]))
    t = net.clock.now
    net.clock.advance(26)
    net.delivered.clear()
    net.tick("P2")
    assert _sent_by(net, "P2") == []
    net.clock.advance(1)
    net.tick("P2")
    bodies = _sent_by(net, "P2")
    assert {type(b).__name__ for _, b in bodies} == {"ClusterQmgrRecord", "ClusterQueueRecord"}
    assert {to for to, _ in bodies} == {"FR1", "FR2"}
    held = net.repos["FR1"].records()[("QMGR", CLUSTER, net.repos["P2"].qmid)]
    assert held.published == t + 27 * 86400 and held.expiry == t + 57 * 86400


def test_a_record_not_refreshed_is_unused_after_30_days_and_removed_90_days_later():
    """spec: operations-dlq-clusters 7.26 (unused after 30d; removed 90d after expiry). Given
    P2 offline from t, then at t+30d its records are still held by FR1 but not used (no
    instance, not displayed); at t+30d+90d they are removed with the auto CLUSSDR to P2."""
    net = four_qmgr_cluster()
    net.do("P2", net.repos["P2"].advertise_queue("Q1", [CLUSTER]))
    qmid = net.repos["P2"].qmid
    net.offline.add("P2")
    fr1 = net.repos["FR1"]
    net.clock.advance(29.9)
    net.tick()
    assert [i.qmgr for i in fr1.queue_instances("Q1")] == ["P2"]
    net.clock.advance(0.1)
    net.tick()
    assert fr1.queue_instances("Q1") == ()  # expired data is never used
    assert "P2" not in clusqmgrs(net, "FR1")
    assert ("QMGR", CLUSTER, qmid) in fr1.records()
    assert "TO.P2" in net.auto_channels("FR1")
    net.clock.advance(89.9)
    net.tick()
    assert ("QMGR", CLUSTER, qmid) in fr1.records()
    net.clock.advance(0.1)
    net.actions["FR1"].clear()
    net.tick()
    assert ("QMGR", CLUSTER, qmid) not in fr1.records()
    assert RemoveRecord(("QMGR", CLUSTER, qmid)) in net.actions["FR1"]
    assert DeleteAutoClussdr("TO.P2", "P2") in net.actions["FR1"]


def test_a_queue_manager_gone_over_90_days_rejoins_when_it_comes_back():
    """Seed 001 2.1.4: "if it reconnects to the network it will become part of the cluster
    again": P2 back after 130 days publishes itself and is known again."""
    net = four_qmgr_cluster()
    net.offline.add("P2")
    net.clock.advance(130)
    net.tick()
    assert "P2" not in clusqmgrs(net, "FR2")
    net.offline.discard("P2")
    net.tick("P2")  # its own records are overdue: re-published at once
    assert clusqmgrs(net, "FR2")["P2"]["DEFTYPE"] == "CLUSSDRA"
    assert "P2" in clusqmgrs(net, "FR1")


def test_records_kept_alive_by_republication_never_expire():
    """Given every queue manager running its lifetimes daily for 200 days, then every
    record is still in use at the end (27 < 30)."""
    net = four_qmgr_cluster()
    net.do("P2", net.repos["P2"].advertise_queue("Q1", [CLUSTER]))
    net.do("P1", list(net.repos["P1"].resolve_queue("Q1").actions))
    for _ in range(200):
        net.clock.advance(1)
        net.tick()
        net.repos["P1"].resolve_queue("Q1")  # referenced: the subscription is remade
    assert set(clusqmgrs(net, "FR1")) == {"FR1", "FR2", "P1", "P2"}
    assert [i.qmgr for i in net.repos["P1"].queue_instances("Q1")] == ["P2"]


def test_a_subscription_is_remade_at_27_days_only_if_referenced():
    """Seed 001 2.1.4: a request lasts 30 days, is checked at 27 and remade only if it was
    referenced meanwhile; otherwise it is left to expire and made again when needed."""
    net = four_qmgr_cluster()
    net.do("P2", net.repos["P2"].advertise_queue("QA", [CLUSTER]))
    net.do("P2", net.repos["P2"].advertise_queue("QB", [CLUSTER]))
    p1 = net.repos["P1"]
    net.do("P1", list(p1.resolve_queue("QA").actions))
    net.do("P1", list(p1.resolve_queue("QB").actions))
    net.clock.advance(10)
    assert p1.resolve_queue("QA").actions == ()  # referenced, nothing sent
    net.clock.advance(17)
    net.delivered.clear()
    net.tick("P1")
    remade = [b.name for _, b in _sent_by(net, "P1") if type(b).__name__ == "Subscription"]
    assert remade and set(remade) == {"QA"}
    assert ("INVENTORY", "QUEUE", "QB") not in p1.subscriptions()
    net.clock.advance(3.5)
    net.tick("FR1")
    held = {s.name for s in net.repos["FR1"].subscribers() if s.subscriber == "P1"}
    assert "QA" in held and "QB" not in held  # FR1's copy of QB expired at 30 days
    assert p1.resolve_queue("QB").actions  # needed again: made again


def test_expired_records_are_not_given_to_new_subscribers():
    """Seed 001: "repositories do not use information that has expired to satisfy new
    requests from other queue managers"."""
    net = four_qmgr_cluster()
    net.do("P2", net.repos["P2"].advertise_queue("Q1", [CLUSTER]))
    net.offline.add("P2")
    net.clock.advance(31)
    net.tick()
    net.do("P1", list(net.repos["P1"].resolve_queue("Q1").actions))
    assert net.repos["P1"].queue_instances("Q1") == ()
    assert not any(isinstance(b, ClusterQmgrRecord) and b.qmgr == "P2"
                   for _, to, c in net.delivered if to == "P1" for b in [c.body])
