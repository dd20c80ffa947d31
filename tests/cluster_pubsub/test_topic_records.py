"""Cluster topic records in the repository (sans-IO, through the simulated network): a TOPIC
with CLUSTER is pushed by the full repositories to every member, with, for direct routing,
every member's queue-manager record (IBM: "knowledge of the object, and knowledge of all
other queue managers in the cluster, is automatically pushed to all queue managers in the
cluster by the full repository queue managers")."""

from __future__ import annotations

from mqpy_chinit.cluster import ClusterTopicRecord, decode, encode
from tests.cluster.sim import CLUSTER, clusqmgrs, four_qmgr_cluster


def _topics(net, name: str) -> set[tuple[str, str, str]]:
    return {(r.topic, r.topicstr, r.qmgr) for r in net.repos[name].cluster_topics()}


def test_a_topic_record_survives_its_byte_form():
    record = ClusterTopicRecord(CLUSTER, "SPORTS", "sports", "P1", "P1_id", "DIRECT",
                                published=5.0, sequence=3, expiry=9.0)
    assert decode(encode(record)) == record


def test_given_a_cluster_topic_on_a_partial_repository_then_every_member_knows_it_and_all_members():
    """Given FR1, FR2, P1, P2 (partials know only the full repositories), when P1 defines
    TOPIC(SPORTS) CLUSTER(INVENTORY), then every member holds its record and P2 knows P1
    (and P1 P2), with an auto cluster-sender to it."""
    net = four_qmgr_cluster()
    assert "P1" not in clusqmgrs(net, "P2")
    net.do("P1", net.repos["P1"].advertise_topic("SPORTS", "sports", [CLUSTER]))
    for name in ("FR1", "FR2", "P1", "P2"):
        assert _topics(net, name) == {("SPORTS", "sports", "P1")}, name
    assert set(clusqmgrs(net, "P2")) == {"FR1", "FR2", "P1", "P2"}
    assert set(clusqmgrs(net, "P1")) == {"FR1", "FR2", "P1", "P2"}
    assert "TO.P1" in net.auto_channels("P2") and "TO.P2" in net.auto_channels("P1")


def test_given_a_cluster_topic_when_a_member_joins_later_then_it_learns_the_topic_and_members():
    net = four_qmgr_cluster()
    net.do("P1", net.repos["P1"].advertise_topic("SPORTS", "sports", [CLUSTER]))
    net.add("P3")
    net.join("P3", "FR1")
    assert _topics(net, "P3") == {("SPORTS", "sports", "P1")}
    assert set(clusqmgrs(net, "P3")) == {"FR1", "FR2", "P1", "P2", "P3"}
    assert "P3" in clusqmgrs(net, "P2")  # and the others learn of it


def test_given_a_cluster_topic_when_its_host_deletes_it_then_no_member_uses_it():
    net = four_qmgr_cluster()
    net.do("P1", net.repos["P1"].advertise_topic("SPORTS", "sports", [CLUSTER]))
    net.do("P1", net.repos["P1"].withdraw_topic("SPORTS"))
    for name in ("FR1", "FR2", "P1", "P2"):
        assert _topics(net, name) == set(), name


def test_given_a_cluster_topic_when_altered_out_of_the_cluster_then_it_is_withdrawn():
    net = four_qmgr_cluster()
    net.do("FR2", net.repos["FR2"].advertise_topic("NEWS", "news", [CLUSTER]))
    assert _topics(net, "P1") == {("NEWS", "news", "FR2")}
    net.do("FR2", net.repos["FR2"].advertise_topic("NEWS", "news", [" "]))
    assert _topics(net, "P1") == set()


def test_a_topic_defined_before_joining_is_published_at_join():
    net = four_qmgr_cluster()
    net.add("P3")
    p3 = net.repos["P3"]
    net.do("P3", p3.advertise_topic("LATE", "late/news", [CLUSTER]))
    assert _topics(net, "FR1") == set()
    net.join("P3", "FR1")
    assert _topics(net, "P2") == {("LATE", "late/news", "P3")}


def test_display_tcluster_shows_each_cluster_topic_on_every_member():
    net = four_qmgr_cluster()
    net.do("P1", net.repos["P1"].advertise_topic("SPORTS", "sports", [CLUSTER]))
    rows = net.repos["P2"].display_tcluster("SP*")
    assert [(r["TOPIC"], r["TYPE"], r["CLUSTER"], r["CLUSQMGR"], r["TOPICSTR"], r["CLROUTE"])
            for r in rows] == [("SPORTS", "CLUSTER", CLUSTER, "P1", "sports", "DIRECT")]
    assert net.repos["P2"].display_tcluster("X*") == []
