"""SUSPEND/RESUME QMGR, REFRESH CLUSTER, RESET CLUSTER ACTION(FORCEREMOVE), ALTER QMGR REPOS
(spec operations-dlq-clusters §4 Commands, acceptance 7.23-7.25)."""

from __future__ import annotations

import pytest

from mqpy import CMQC, CMQCFC
from mqpy_chinit.cluster import (
    ClusterCommandError,
    DeleteAutoClussdr,
    RemoveRecord,
    Repository,
    StopClusterReceivers,
)

from .sim import CLUSTER, clusqmgrs, four_qmgr_cluster


def _with_queue_everywhere():
    net = four_qmgr_cluster()
    for name in ("P2", "FR2"):
        net.do(name, net.repos[name].advertise_queue("Q1", [CLUSTER]))
    net.do("P1", list(net.repos["P1"].resolve_queue("Q1").actions))
    return net


def test_suspend_is_seen_by_users_of_the_queue_and_resume_undoes_it():
    """spec: operations-dlq-clusters 7.23. Given P1 using Q1 on P2 and FR2, when P2 is
    suspended, then P1 and the full repositories see it suspended (SUSPEND(YES)); RESUME
    restores it. P2 stays a member: it is still listed."""
    net = _with_queue_everywhere()
    net.do("P2", net.repos["P2"].suspend(CLUSTER))
    flags = {i.qmgr: i.suspended for i in net.repos["P1"].queue_instances("Q1")}
    assert flags == {"FR2": False, "P2": True}
    assert clusqmgrs(net, "FR1")["P2"]["SUSPEND"] == "YES"
    assert net.repos["P1"].display_qcluster("Q1")[1]["SUSPEND"] == "YES"
    net.do("P2", net.repos["P2"].resume(CLUSTER))
    assert not any(i.suspended for i in net.repos["P1"].queue_instances("Q1"))
    assert clusqmgrs(net, "FR2")["P2"]["SUSPEND"] == "NO"


def test_suspend_mode_force_stops_the_inbound_cluster_channels():
    """Seed 001 2.3.2: MODE(FORCE) "forcibly stops all incoming channels in the cluster"."""
    net = four_qmgr_cluster()
    actions = net.repos["P2"].suspend(CLUSTER, force=True)
    assert StopClusterReceivers(CLUSTER, ("TO.P2",)) in actions
    assert not any(isinstance(a, StopClusterReceivers)
                   for a in net.repos["P1"].suspend(CLUSTER))


def test_suspend_of_a_cluster_not_joined_is_refused():
    """Given P1 not in cluster OTHER, when SUSPEND QMGR CLUSTER(OTHER), then an error with an
    MQ reason code, and nothing is published."""
    net = four_qmgr_cluster()
    with pytest.raises(ClusterCommandError) as info:
        net.repos["P1"].suspend("OTHER")
    assert info.value.reason == CMQC.MQRC_CLUSTER_RESOLUTION_ERROR


def test_refresh_cluster_deletes_local_knowledge_and_republishes():
    """spec: operations-dlq-clusters 7.24. Given P1 knowing Q1 on P2 and FR2 with auto
    CLUSSDRs to them, when REFRESH CLUSTER, then the queue information is gone, the auto
    CLUSSDR to P2 is deleted unless it is in doubt, knowledge of the full repositories is
    kept (REPOS(NO)), and P1 re-publishes itself with a newer version."""
    net = _with_queue_everywhere()
    p1 = net.repos["P1"]
    assert net.auto_channels("P1") == {"TO.FR1", "TO.FR2", "TO.P2"}
    before = net.repos["FR1"].records()[("QMGR", CLUSTER, p1.qmid)].version
    in_doubt = p1.refresh(CLUSTER, in_doubt_channels={"TO.P2"})
    assert not any(isinstance(a, DeleteAutoClussdr) for a in in_doubt)
    assert "TO.P2" in net.auto_channels("P1")
    actions = p1.refresh(CLUSTER)
    assert p1.queue_instances("Q1") == ()
    assert [a for a in actions if isinstance(a, DeleteAutoClussdr)] == [
        DeleteAutoClussdr("TO.P2", "P2")]
    assert any(isinstance(a, RemoveRecord) for a in in_doubt)
    assert set(clusqmgrs(net, "P1")) == {"FR1", "FR2", "P1"}
    net.do("P1", actions)
    assert net.repos["FR1"].records()[("QMGR", CLUSTER, p1.qmid)].version > before
    net.do("P1", list(p1.resolve_queue("Q1").actions))  # used again: learned again
    assert {i.qmgr for i in p1.queue_instances("Q1")} == {"FR2", "P2"}


def test_refresh_repos_yes_forgets_the_full_repositories_too():
    """Given REFRESH CLUSTER REPOS(YES) on a partial repository, then it keeps only its own
    records and its explicit CLUSSDR, and learns the full repositories again through it."""
    net = four_qmgr_cluster()
    p1 = net.repos["P1"]
    net.offline.update({"FR1", "FR2"})
    net.do("P1", p1.refresh(CLUSTER, repos=True))
    rows = clusqmgrs(net, "P1")
    assert set(rows) == {"P1", "SYSTEM.TEMPQMGR.fr1(1414)"}
    net.offline.clear()
    for sender, action in net.held:
        net.do(sender, [action])
    assert {"FR1", "FR2"} <= set(clusqmgrs(net, "P1"))


def test_refresh_repos_yes_is_refused_on_a_full_repository():
    """IBM: REPOS(YES) cannot be used on a full repository."""
    net = four_qmgr_cluster()
    with pytest.raises(ClusterCommandError) as info:
        net.repos["FR1"].refresh(CLUSTER, repos=True)
    assert info.value.reason == CMQCFC.MQRCCF_REPOS_VALUE_ERROR


def test_reset_cluster_forceremove_on_a_partial_repository_is_rejected():
    """spec: operations-dlq-clusters 7.25 (first half): "repository only"."""
    net = four_qmgr_cluster()
    with pytest.raises(ClusterCommandError) as info:
        net.repos["P1"].reset_cluster(CLUSTER, qmname="P2")
    assert info.value.reason == CMQCFC.MQRCCF_ACTION_VALUE_ERROR
    assert "full repository" in str(info.value)


def test_reset_cluster_forceremove_removes_the_queue_manager_everywhere():
    """spec: operations-dlq-clusters 7.25 (second half). Given QM9 a member hosting Q1 (and
    dead), when RESET CLUSTER QMNAME(QM9) ACTION(FORCEREMOVE) on FR1, then QM9 is gone from
    every DIS CLUSQMGR, its queue from every repository, and every auto CLUSSDR to it is
    deleted ("the only way to delete all automatically defined channels")."""
    net = _with_queue_everywhere()
    net.add("QM9")
    net.join("QM9", "FR1")
    net.do("QM9", net.repos["QM9"].advertise_queue("Q1", [CLUSTER]))
    assert "QM9" in {i.qmgr for i in net.repos["P1"].queue_instances("Q1")}
    net.offline.add("QM9")
    for name in ("FR1", "FR2", "P1", "P2"):
        net.actions[name].clear()
    net.do("FR1", net.repos["FR1"].reset_cluster(CLUSTER, qmname="QM9", queues=True))
    for name in ("FR1", "FR2", "P1", "P2"):
        assert "QM9" not in clusqmgrs(net, name), name
        assert "QM9" not in {i.qmgr for i in net.repos[name].queue_instances("Q1")}
        assert "QM9" not in {r["CLUSQMGR"] for r in net.repos[name].display_qcluster()}
        assert "TO.QM9" not in net.auto_channels(name)
    assert any(isinstance(a, DeleteAutoClussdr) and a.channel == "TO.QM9"
               for a in net.actions["P1"])


def test_a_force_removed_queue_manager_that_publishes_again_rejoins():
    """IBM: RESET CLUSTER is not a ban: a removed queue manager still running rejoins when it
    next publishes itself (e.g. REFRESH CLUSTER); its newer records win."""
    net = four_qmgr_cluster()
    net.clock.advance(1)
    net.do("FR1", net.repos["FR1"].reset_cluster(CLUSTER, qmid=net.repos["P2"].qmid))
    assert "P2" not in clusqmgrs(net, "FR2")
    net.clock.advance(1)
    net.do("P2", net.repos["P2"].refresh(CLUSTER))
    assert "P2" in clusqmgrs(net, "FR2") and "P2" in clusqmgrs(net, "FR1")


def test_reset_cluster_needs_exactly_one_known_queue_manager():
    """QMNAME or QMID, one of them, naming a known member."""
    net = four_qmgr_cluster()
    fr1 = net.repos["FR1"]
    for kwargs in ({}, {"qmname": "P2", "qmid": "x"}, {"qmname": "NOPE"}):
        with pytest.raises(ClusterCommandError) as info:
            fr1.reset_cluster(CLUSTER, **kwargs)
        assert info.value.reason == CMQCFC.MQRCCF_Q_MGR_NAME_ERROR


def test_repos_and_reposnl_together_are_refused():
    """ALTER QMGR REPOS(x) REPOSNL(y): only one may be set."""
    with pytest.raises(ClusterCommandError) as info:
        Repository("QM1", "QM1_X", lambda: 0.0, repos="A", reposnl=["B"])
    assert info.value.reason == CMQCFC.MQRCCF_REPOS_NAME_CONFLICT


def test_reposnl_makes_a_full_repository_of_each_cluster_named():
    """ALTER QMGR REPOSNL(...) with clusters A and B: full for both, partial for others."""
    repo = Repository("QM1", "QM1_X", lambda: 0.0)
    repo.set_repos(reposnl=["A", "B"])
    assert repo.is_full("A") and repo.is_full("B") and not repo.is_full("C")


def test_reset_cluster_without_queues_keeps_the_queue_records():
    """spec: operations-dlq-clusters 7.25; IBM's QUEUES(NO), the default: the force-removed
    queue manager goes, its cluster queues stay known (DISPLAY QCLUSTER) but, with no way
    to their host, no put chooses them."""
    net = _with_queue_everywhere()
    net.add("QM9")
    net.join("QM9", "FR1")
    net.do("QM9", net.repos["QM9"].advertise_queue("Q1", [CLUSTER]))
    net.offline.add("QM9")
    net.do("FR1", net.repos["FR1"].reset_cluster(CLUSTER, qmname="QM9"))
    for name in ("FR1", "FR2"):
        assert "QM9" not in clusqmgrs(net, name), name
        assert "QM9" in {r["CLUSQMGR"] for r in net.repos[name].display_qcluster()}, name
        assert "QM9" not in {i.qmgr for i in net.repos[name].queue_instances("Q1")}
