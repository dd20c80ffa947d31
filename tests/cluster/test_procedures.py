"""Seed 001 2.3.4-2.3.7 procedures at the repository level: two full and two partial
repositories, each carrying out the others' actions (spec operations-dlq-clusters §4)."""

from __future__ import annotations

from mqpy import CMQC
from mqpy_chinit.cluster import DefineAutoClussdr, DeleteAutoClussdr, SendCommand

from .sim import CLUSTER, Network, clusqmgrs, four_qmgr_cluster


def test_adding_a_queue_manager_makes_it_known_to_every_full_repository():
    """Given FR1/FR2 and P1, P2 each with a CLUSRCVR and one CLUSSDR to a full repository
    (seed 001 2.3.6), when they have broadcast themselves, then DIS CLUSQMGR on each full
    repository lists all four, itself as CLUSRCVR, and the partial repositories know both
    full repositories; QMTYPE is REPOS | NORMAL, DEFTYPE CLUSSDRB for an explicit CLUSSDR that
    is also auto-defined, CLUSSDRA for auto only."""
    net = four_qmgr_cluster()
    for full in ("FR1", "FR2"):
        rows = clusqmgrs(net, full)
        assert set(rows) == {"FR1", "FR2", "P1", "P2"}
        assert rows[full]["DEFTYPE"] == "CLUSRCVR"
        assert rows["P1"]["QMTYPE"] == "NORMAL" and rows["FR1"]["QMTYPE"] == "REPOS"
        assert rows["P1"]["DEFTYPE"] == "CLUSSDRA"
        assert rows["P1"]["QMID"] == net.repos["P1"].qmid
        assert rows["P1"]["CHANNEL"] == "TO.P1" and rows["P1"]["CONNAME"] == "p1(1414)"
        assert rows["P1"]["CLUSTER"] == CLUSTER
    p1 = clusqmgrs(net, "P1")
    assert set(p1) == {"FR1", "FR2", "P1"}  # a partial repository holds only what it uses
    assert p1["FR1"]["DEFTYPE"] == "CLUSSDRB" and p1["FR2"]["DEFTYPE"] == "CLUSSDRA"
    assert net.auto_channels("P1") == {"TO.FR1", "TO.FR2"}
    assert net.auto_channels("FR1") == {"TO.FR2", "TO.P1", "TO.P2"}


def test_an_explicit_clussdr_before_its_partner_answers_shows_a_temporary_name():
    """Given a CLUSSDR to a full repository that has not answered yet, then DIS CLUSQMGR shows
    it as SYSTEM.TEMPQMGR.<conname> with DEFTYPE CLUSSDR (IBM's placeholder)."""
    net = Network()
    net.add("P1")
    net.add("FR1", repos=CLUSTER)
    net.offline.add("FR1")
    net.join("P1", "FR1")
    rows = clusqmgrs(net, "P1")
    assert rows["SYSTEM.TEMPQMGR.fr1(1414)"]["DEFTYPE"] == "CLUSSDR"
    sends = [a for _, a in net.held]
    assert sends and all(isinstance(a, SendCommand) and a.qmgr is None for a in sends)


def test_a_clussdr_defined_first_then_the_clusrcvr_also_joins():
    """Given the CLUSSDR defined before the CLUSRCVR, when the CLUSRCVR is defined, then the
    queue manager still broadcasts itself to the full repository."""
    net = Network()
    net.add("FR1", repos=CLUSTER)
    net.join("FR1")
    net.add("P1")
    p1 = net.repos["P1"]
    net.do("P1", p1.define_cluster_sender("TO.FR1", "fr1(1414)", [CLUSTER]))
    net.do("P1", p1.define_cluster_receiver("TO.P1", "p1(1414)", [CLUSTER]))
    assert "P1" in clusqmgrs(net, "FR1") and "FR1" in clusqmgrs(net, "P1")


def test_a_partial_repository_publishes_to_two_full_repositories_only():
    """Given three full repositories known to P1, when P1 changes its record (SUSPEND), then
    it sends it directly to two of them; the full repositories forward it to the third."""
    net = four_qmgr_cluster()
    net.add("FR3", repos=CLUSTER)
    net.join("FR3", "FR1")
    net.do("FR1", net.repos["FR1"].define_cluster_sender("TO.FR3", "fr3(1414)", [CLUSTER]))
    # P1 learns of FR3 through its REPOS subscription
    assert "FR3" in clusqmgrs(net, "P1")
    net.delivered.clear()
    net.do("P1", net.repos["P1"].suspend(CLUSTER))
    direct = {to for frm, to, _ in net.delivered if frm == "P1"}
    assert len(direct) == 2 and "FR1" in direct  # the explicit CLUSSDR comes first
    for full in ("FR1", "FR2", "FR3"):
        assert clusqmgrs(net, full)["P1"]["SUSPEND"] == "YES"


def test_a_cluster_queue_is_found_by_subscription_and_updates_follow():
    """Given Q1 advertised by P2, when P1 opens it (resolve_queue), then P1 subscribes at the
    full repositories, gets the instance and P2's record (auto CLUSSDR TO.P2 defined), and a
    later ALTER QL PUT(DISABLED) on P2 reaches P1 (seed 001 2.1.3: "reflected in the
    repository of each queue manager that is interested in that queue")."""
    net = four_qmgr_cluster()
    net.do("P2", net.repos["P2"].advertise_queue("Q1", [CLUSTER]))
    first = net.repos["P1"].resolve_queue("Q1")
    assert first.instances == ()  # 2085 now; a retry can succeed (seed 001 2.3.8)
    net.do("P1", list(first.actions))
    instances = net.repos["P1"].queue_instances("Q1")
    assert [(i.qmgr, i.channel, i.put_enabled) for i in instances] == [("P2", "TO.P2", True)]
    assert "TO.P2" in net.auto_channels("P1")
    assert any(isinstance(a, DefineAutoClussdr) and a.channel == "TO.P2"
               and a.conname == "p2(1414)" for a in net.actions["P1"])
    net.do("P2", net.repos["P2"].advertise_queue("Q1", [CLUSTER], put_enabled=False))
    assert [i.put_enabled for i in net.repos["P1"].queue_instances("Q1")] == [False]
    rows = net.repos["P1"].display_qcluster("Q*")
    assert rows[0]["PUT"] == "DISABLED" and rows[0]["CLUSQMGR"] == "P2"


def test_removing_a_queue_from_the_cluster():
    """Seed 001 2.3.5: ALTER QL PUT(DISABLED), then ALTER QL CLUSTER(' ') (or DELETE QL):
    the instance disappears from every repository that knew it."""
    net = four_qmgr_cluster()
    p2 = net.repos["P2"]
    net.do("P2", p2.advertise_queue("Q1", [CLUSTER]))
    net.do("P1", list(net.repos["P1"].resolve_queue("Q1").actions))
    net.do("P2", p2.advertise_queue("Q1", [CLUSTER], put_enabled=False))
    net.do("P2", p2.advertise_queue("Q1", [" "]))
    for name in ("FR1", "FR2", "P1"):
        assert net.repos[name].queue_instances("Q1") == ()
        assert net.repos[name].display_qcluster() == []
    net.do("P2", p2.advertise_queue("Q2", [CLUSTER]))
    net.do("P2", p2.withdraw_queue("Q2"))  # DELETE QL
    assert net.repos["FR1"].queue_instances("Q2") == ()


def test_removing_a_queue_manager_from_the_cluster():
    """Seed 001 2.3.4: SUSPEND QMGR, then ALTER CHL CLUSRCVR CLUSTER(' ') "will cause the
    queue manager to notify its repository that it has left the cluster": it and its queues
    leave every DIS CLUSQMGR / DIS QCLUSTER and the auto CLUSSDRs to it are deleted."""
    net = four_qmgr_cluster()
    p2 = net.repos["P2"]
    net.do("P2", p2.advertise_queue("Q1", [CLUSTER]))
    net.do("P1", list(net.repos["P1"].resolve_queue("Q1").actions))
    net.do("P2", p2.suspend(CLUSTER))
    assert net.repos["P1"].queue_instances("Q1")[0].suspended
    net.do("P2", p2.define_cluster_receiver("TO.P2", "p2(1414)", [" "]))
    for name in ("FR1", "FR2", "P1"):
        assert "P2" not in clusqmgrs(net, name)
        assert net.repos[name].queue_instances("Q1") == ()
        assert "TO.P2" not in net.auto_channels(name)
    assert any(isinstance(a, DeleteAutoClussdr) and a.channel == "TO.P2"
               for a in net.actions["P1"])
    net.do("P2", p2.delete_cluster_sender("TO.FR2"))
    net.do("P2", p2.delete_cluster_receiver("TO.P2"))
    assert p2.clusters == frozenset()


def test_moving_a_full_repository():
    """Seed 001 2.3.7: ALTER QMGR REPOS on P2, explicit CLUSSDRs both ways with the other
    full repositories, ALTER QMGR REPOS(' ') on FR1, replace P1's CLUSSDR to FR1. Then the new
    full repository holds everything, FR1 shows as NORMAL everywhere, and P1's later updates
    reach the new full repository directly."""
    net = four_qmgr_cluster()
    net.do("P1", net.repos["P1"].advertise_queue("QA", [CLUSTER]))
    p2 = net.repos["P2"]
    net.do("P2", p2.set_repos(CLUSTER))
    net.do("P2", p2.define_cluster_sender("TO.FR1", "fr1(1414)", [CLUSTER]))
    net.do("FR1", net.repos["FR1"].define_cluster_sender("TO.P2", "p2(1414)", [CLUSTER]))
    net.do("FR2", net.repos["FR2"].define_cluster_sender("TO.P2", "p2(1414)", [CLUSTER]))
    assert set(clusqmgrs(net, "P2")) == {"FR1", "FR2", "P1", "P2"}
    assert [i.qmgr for i in p2.queue_instances("QA")] == ["P1"]
    net.do("FR1", net.repos["FR1"].set_repos(""))
    net.do("P1", net.repos["P1"].delete_cluster_sender("TO.FR1"))
    net.do("P1", net.repos["P1"].define_cluster_sender("TO.P2", "p2(1414)", [CLUSTER]))
    for name in ("FR2", "P2", "P1"):
        rows = clusqmgrs(net, name)
        assert rows["FR1"]["QMTYPE"] == "NORMAL" and rows["P2"]["QMTYPE"] == "REPOS"
    net.delivered.clear()
    net.do("P1", net.repos["P1"].advertise_queue("QB", [CLUSTER]))
    assert {to for frm, to, _ in net.delivered if frm == "P1"} == {"FR2", "P2"}
    assert [i.qmgr for i in p2.queue_instances("QB")] == ["P1"]
    assert [i.qmgr for i in net.repos["FR2"].queue_instances("QB")] == ["P1"]


def test_rank_and_weight_come_from_the_clusrcvr():
    """Given CLWLPRTY/RANK/WGHT on P2's CLUSRCVR (IBM: set them there), then the instance P1
    sees carries them, and so does the auto CLUSSDR."""
    net = four_qmgr_cluster()
    p2 = net.repos["P2"]
    net.do("P2", p2.define_cluster_receiver("TO.P2", "p2(1414)", [CLUSTER], clwlprty=4,
                                            clwlrank=3, clwlwght=80))
    net.do("P2", p2.advertise_queue("Q1", [CLUSTER], defbind=CMQC.MQBND_BIND_NOT_FIXED))
    net.do("P1", list(net.repos["P1"].resolve_queue("Q1").actions))
    (inst,) = net.repos["P1"].queue_instances("Q1")
    assert (inst.channel_priority, inst.channel_rank, inst.channel_weight) == (4, 3, 80)
    assert inst.defbind == CMQC.MQBND_BIND_NOT_FIXED
    assert net.repos["P1"].auto_channels()["TO.P2"].clwlwght == 80


def test_an_auto_defined_clussdr_is_made_from_the_partners_clusrcvr():
    """Given P2's CLUSRCVR with BATCHSZ(20) HBINT(60) SHORTRTY(900) (and an attribute a
    sender does not take, MCAUSER), when P1 learns P2 through the full repositories, then
    P1's auto-defined CLUSSDR TO.P2 carries P2's sending attributes (IBM: an auto-defined
    cluster sender is made from the cluster-receiver definition), through the records'
    byte form; when P2 alters its CLUSRCVR, P1's channel follows.
    spec: dqm-intercommunication 5 (auto-defined CLUSSDRs)"""
    net = four_qmgr_cluster()
    p2 = net.repos["P2"]
    net.do("P2", p2.define_cluster_receiver(
        "TO.P2", "p2(1414)", [CLUSTER],
        channel_attrs={"BATCHSZ": 20, "HBINT": 60, "SHORTRTY": 900, "MCAUSER": "app"}))
    net.do("P2", p2.advertise_queue("Q1", [CLUSTER]))
    net.do("P1", list(net.repos["P1"].resolve_queue("Q1").actions))
    auto = net.repos["P1"].auto_channels()["TO.P2"]
    assert dict(auto.channel_attrs) == {"BATCHSZ": 20, "HBINT": 60, "SHORTRTY": 900}
    net.do("P2", p2.define_cluster_receiver("TO.P2", "p2(1414)", [CLUSTER],
                                            channel_attrs={"BATCHSZ": 50}))
    assert dict(net.repos["P1"].auto_channels()["TO.P2"].channel_attrs) == {"BATCHSZ": 50}


def test_duplicates_and_older_versions_change_nothing():
    """Given a record already applied, when the same command or an older version arrives
    again, then nothing changes and nothing is forwarded (newest version wins)."""
    net = four_qmgr_cluster()
    fr1 = net.repos["FR1"]
    (_, _, command) = next(d for d in net.delivered if d[0] == "P1" and d[1] == "FR1")
    assert fr1.receive(command) == []
