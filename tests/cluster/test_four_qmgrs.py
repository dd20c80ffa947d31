"""A cluster of four real queue managers (two full repositories): join, advertise, balance,
suspend, a full repository killed and restarted, REFRESH CLUSTER, FORCEREMOVE.

The tests share one cluster (module fixture) and run in file order; each leaves the cluster
as it found it (restoring, in ``finally``, what it changed: a killed queue manager is started
again, a suspension resumed, a definition put back), except the last (FORCEREMOVE), and each
first waits for the state it needs (``_settled``), so one failure does not cascade. Arrival is
judged by messages got, never by CURDEPTH, which counts a receiving channel's batch before it
commits (a full test run on a loaded machine once drained nothing after seeing the depth).
"""

from __future__ import annotations

import json
import os
import re
import time

import pytest

import mqpy
from mqpy import CMQC
from tests.support.daemon_pair import mqsc_here
from tests.support.ports import free_port

from .conftest import ADMIT_CHANNELS, DEADLINE, NAMES, wait_for


def _clusqmgrs(out: str) -> dict[str, dict[str, str]]:
    """DISPLAY CLUSQMGR output: CLUSQMGR name -> its attributes."""
    rows: dict[str, dict[str, str]] = {}
    for block in out.split("AMQ8441I")[1:]:
        attrs = dict(re.findall(r"(\w+)\(([^)]*)\)", block))
        rows[attrs["CLUSQMGR"]] = attrs
    return rows


def _members(cluster, qmgr: str) -> dict[str, dict[str, str]]:
    return _clusqmgrs(cluster.command(qmgr, "DISPLAY CLUSQMGR(*) QMTYPE DEFTYPE STATUS "
                                            "SUSPEND QMID"))


def _cache_of(cluster, qmgr: str) -> dict:
    """What the repository manager last told its engine (mqpy_chinit.cluster.directory)."""
    try:
        with open(os.path.join(cluster.site.qmdir(qmgr), "cluster.cache")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"channels": {}}


def _cached(cluster, qmgr: str, host: str, queue: str = "INVQ") -> dict:
    """The instance of ``queue`` at ``host`` as ``qmgr``'s engine sees it ({} if none)."""
    found = [i for i in _cache_of(cluster, qmgr).get("queues", {}).get(queue, [])
             if i["qmgr"] == host]
    return found[0] if found else {}


def _put_many(cluster, qmgr: str, queue: str, n: int, options: int) -> None:
    qm, q = cluster.open_output(qmgr, queue, options)
    try:
        for i in range(n):
            q.put(b"msg %02d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    finally:
        q.close()
        qm.disconnect()


def _arrived(cluster, n: int, queue: str = "INVQ",
             qmgrs: tuple[str, ...] = ("QM2", "QM4")) -> dict[str, list[bytes]]:
    """Get ``n`` messages from ``queue`` on ``qmgrs`` between them: where each arrived."""
    got = cluster.collect(queue, n, qmgrs)
    counts = {name: len(v) for name, v in got.items()}
    assert sum(counts.values()) == n, f"{counts}, wanted {n} in all\n{cluster.diagnose()}"
    return got


def _settled(cluster) -> None:
    """The module's cluster as its tests expect it: QM3 knows both instances of INVQ, put
    enabled and not suspended, and every cluster command has been delivered."""
    qm, q = cluster.open_output("QM3", "INVQ")  # asks for INVQ if QM3 forgot it
    q.close()
    qm.disconnect()
    wait_for("both instances usable in QM3's cache", lambda: all(
        (i := _cached(cluster, "QM3", host)) and i["put_enabled"] and not i["suspended"]
        for host in ("QM2", "QM4")))
    cluster.quiet()


def test_members_join_and_full_repositories_know_everyone(cluster):
    """Given QM1 and QM2 full repositories with explicit CLUSSDRs to each other, and QM3,
    QM4 partial repositories each with a CLUSRCVR and one CLUSSDR to QM1, when the cluster
    settles, then DISPLAY CLUSQMGR on both full repositories lists all four members with
    QMTYPE REPOS for QM1/QM2 and NORMAL for QM3/QM4, and a partial repository knows both
    full repositories (auto-defined CLUSSDR to QM2); QM1's CLUSRCVR runs one instance per
    partner.  spec: dqm-intercommunication 5;
    operations-dlq-clusters 4 (DISPLAY CLUSQMGR)"""
    for full in ("QM1", "QM2"):
        rows = wait_for(f"four members at {full}",
                        lambda full=full: (r := _members(cluster, full)) and
                        set(r) == set(NAMES) and r)
        assert {n: rows[n]["QMTYPE"] for n in NAMES} == {
            "QM1": "REPOS", "QM2": "REPOS", "QM3": "NORMAL", "QM4": "NORMAL"}
        assert rows[full]["DEFTYPE"] == "CLUSRCVR"
        assert rows["QM3"]["DEFTYPE"] == "CLUSSDRA"
    rows = wait_for("both repositories at QM3",
                    lambda: (r := _members(cluster, "QM3")) and {"QM1", "QM2"} <= set(r) and r)
    assert rows["QM1"]["DEFTYPE"] == "CLUSSDRB"  # explicit, and known by its record
    assert rows["QM2"]["DEFTYPE"] == "CLUSSDRA"
    assert rows["QM1"]["QMID"].startswith("QM1_")
    # QM3's auto-defined CLUSSDR to QM2 is made from QM2's CLUSRCVR (SHORTRTY(900)), not
    # from SYSTEM.DEF.CLUSSDR (IBM's SHORTRTY(10))
    qm, q = cluster.open_output("QM3", "INVQ")  # QM3 needs QM2, and its channel starts
    q.close()
    qm.put1(mqpy.OD(ObjectName=b"INVQ", ObjectQMgrName=b"QM2"), b"start TO.QM2")
    qm.disconnect()
    assert cluster.collect("INVQ", 1, ("QM2",))["QM2"] == [b"start TO.QM2"]
    out = cluster.command("QM3", "DISPLAY CHSTATUS(TO.QM2) SHORTRTS")
    assert "SHORTRTS(900)" in out, out
    # QM1's one CLUSRCVR serves every member: an instance (and a sequence) per partner
    out = wait_for("three partners on TO.QM1", lambda: (o := cluster.command(
        "QM1", "DISPLAY CHSTATUS(TO.QM1)")).count("AMQ8417I") >= 3 and o)
    assert {"RQMNAME(QM2)", "RQMNAME(QM3)", "RQMNAME(QM4)"} <= set(
        re.findall(r"RQMNAME\(\w+\)", out))


def test_queue_advertised_and_round_robin_from_a_partial_repository(cluster):
    """Given INVQ hosted on QM2 and QM4 with CLUSTER(INV), when an application on partial
    repository QM3 (which defines no INVQ and no channel to QM2 or QM4) opens INVQ with
    MQOO_BIND_NOT_FIXED and puts 10 messages, then QM2 and QM4 share them (round robin), and
    DISPLAY QCLUSTER(INVQ) on QM1 shows both instances.  spec: operations-dlq-clusters 7.22;
    dqm-intercommunication 5"""
    out = wait_for("two instances at QM1", lambda: (o := cluster.command(
        "QM1", "DISPLAY QCLUSTER(INVQ)")).count("TYPE(QCLUSTER)") == 2 and o)
    assert "CLUSQMGR(QM2)" in out and "CLUSQMGR(QM4)" in out
    # QM3 learns INVQ, then one message to each host by name (no balancing) starts both
    # channels: a channel still starting ranks below a running one (workload step 6)
    qm, q = cluster.open_output("QM3", "INVQ")
    q.close()
    for host in ("QM2", "QM4"):
        qm.put1(mqpy.OD(ObjectName=b"INVQ", ObjectQMgrName=host.encode()), b"warm-up")
    qm.disconnect()
    got = _arrived(cluster, 2)
    assert got == {"QM2": [b"warm-up"], "QM4": [b"warm-up"]}, got
    # ... as the engine sees them: the repository manager's cache lags the channels a little
    wait_for("both channels running in QM3's cluster cache", lambda: all(
        _cache_of(cluster, "QM3")["channels"].get(f"TO.{h}") == "RUNNING"
        for h in ("QM2", "QM4")))
    _put_many(cluster, "QM3", "INVQ", 10, CMQC.MQOO_BIND_NOT_FIXED)
    got = _arrived(cluster, 10)
    # 5 and 5 when both channels stay RUNNING; a channel seen in another state for a moment
    # (a loaded machine) ranks lower for that put (workload step 6)
    assert len(got["QM2"]) >= 3 and len(got["QM4"]) >= 3, {k: len(v) for k, v in got.items()}
    assert sorted(got["QM2"] + got["QM4"]) == [b"msg %02d" % i for i in range(10)]


def test_bind_on_open_pins_one_handle_to_one_instance(cluster):
    """Given the two instances of INVQ, when QM3 opens INVQ with MQOO_BIND_ON_OPEN and puts
    6 messages, then all 6 arrive at one instance; a second such handle goes to the other
    instance.  spec: operations-dlq-clusters 7.22"""
    _put_many(cluster, "QM3", "INVQ", 6, CMQC.MQOO_BIND_ON_OPEN)
    got = _arrived(cluster, 6)
    first = next(name for name, msgs in got.items() if msgs)
    assert len(got[first]) == 6, {k: len(v) for k, v in got.items()}
    _put_many(cluster, "QM3", "INVQ", 6, CMQC.MQOO_BIND_ON_OPEN)
    other = "QM4" if first == "QM2" else "QM2"
    got = _arrived(cluster, 6)
    assert len(got[other]) == 6, {k: len(v) for k, v in got.items()}


def test_local_definitions_that_lead_into_the_cluster(cluster):
    """Given on partial repository QM3 (no transmission queue named QM4, no DEFXMITQ)
    QREMOTE(INV.AT.QM4) RNAME(INVQ) RQMNAME(QM4) and QALIAS(INV.ALIAS) TARGET(INVQ), when
    an application puts to each, then the first arrives at QM4's INVQ through the cluster
    (not 2087) and the second at an instance of INVQ (not 2082).
    spec: aliases-channels-storage 1; operations-dlq-clusters 4"""
    _settled(cluster)
    out = mqsc_here(cluster.site, "QM3", """
        DEFINE QREMOTE(INV.AT.QM4) RNAME(INVQ) RQMNAME(QM4)
        DEFINE QALIAS(INV.ALIAS) TARGET(INVQ)
    """)
    assert out.returncode == 0, out.stdout
    try:
        qm = cluster.bind("QM3")
        try:
            qm.put1("INV.AT.QM4", b"by remote definition")
            qm.put1("INV.ALIAS", b"by alias")
        finally:
            qm.disconnect()
        got = _arrived(cluster, 2)
        assert b"by remote definition" in got["QM4"], got
        assert sorted(got["QM2"] + got["QM4"]) == [b"by alias", b"by remote definition"]
    finally:
        mqsc_here(cluster.site, "QM3", """
            DELETE QREMOTE(INV.AT.QM4)
            DELETE QALIAS(INV.ALIAS)
        """)


def test_queue_manager_alias_is_used_by_others_only_once_clustered(cluster):
    """Given on QM1 the queue-manager alias DEFINE QREMOTE(YORK) RNAME(' ') RQMNAME(QM4)
    without CLUSTER, when QM3 puts to Q at queue manager YORK, then QM1's alias is not
    applied: QM3 knows no YORK (2087). When QM1 adds CLUSTER(INV) to the alias, then QM3's
    puts to Q at YORK go to QM1 and on, by the alias, to QM4's Q.
    spec: aliases-channels-storage 1 use 1; aliases-channels-storage 4.2"""
    _settled(cluster)
    out = mqsc_here(cluster.site, "QM4", "DEFINE QLOCAL(YORK.TARGET)")
    assert out.returncode == 0, out.stdout
    out = mqsc_here(cluster.site, "QM1", "DEFINE QREMOTE(YORK) RNAME(' ') RQMNAME(QM4)")
    assert out.returncode == 0, out.stdout
    od = mqpy.OD(ObjectName=b"YORK.TARGET", ObjectQMgrName=b"YORK")
    try:
        cluster.quiet()
        qm = cluster.bind("QM3")
        try:
            with pytest.raises(mqpy.MQMIError) as e:
                qm.put1(od, b"not clustered")
            assert e.value.reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
        finally:
            qm.disconnect()
        out = mqsc_here(cluster.site, "QM1", "ALTER QREMOTE(YORK) CLUSTER(INV)")
        assert out.returncode == 0, out.stdout
        deadline = time.monotonic() + DEADLINE
        qm = cluster.bind("QM3")
        try:
            while True:
                try:
                    qm.put1(od, b"via the clustered alias",
                            mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
                    break
                except mqpy.MQMIError as e:  # 2087 until QM3 has learned YORK
                    assert e.reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
                    assert time.monotonic() < deadline, "YORK never became known at QM3"
                    time.sleep(0.2)
        finally:
            qm.disconnect()
        assert _arrived(cluster, 1, "YORK.TARGET", ("QM4",)) == {
            "QM4": [b"via the clustered alias"]}
    finally:
        mqsc_here(cluster.site, "QM1", "DELETE QREMOTE(YORK)")
        mqsc_here(cluster.site, "QM4", "DELETE QLOCAL(YORK.TARGET) PURGE")


def test_suspended_queue_manager_is_avoided_and_resume_restores_it(cluster):
    """Given the two instances, when QM4 issues SUSPEND QMGR CLUSTER(INV), then QM3 sees
    QM4 SUSPEND(YES) and its BIND_NOT_FIXED puts all go to QM2; after RESUME QMGR, QM4, now the least
    recently used destination, gets the next ones.  spec: operations-dlq-clusters 7.23"""
    _settled(cluster)
    try:
        out = mqsc_here(cluster.site, "QM4", "SUSPEND QMGR CLUSTER(INV)\n")
        assert "AMQ8559I" in out.stdout, out.stdout
        wait_for("QM4 suspended at QM3",
                 lambda: _members(cluster, "QM3").get("QM4", {}).get("SUSPEND") == "YES")
        wait_for("... and in QM3's cache",
                 lambda: _cached(cluster, "QM3", "QM4")["suspended"])
        _put_many(cluster, "QM3", "INVQ", 6, CMQC.MQOO_BIND_NOT_FIXED)
        got = _arrived(cluster, 6)
        assert len(got["QM2"]) == 6, {k: len(v) for k, v in got.items()}
    finally:
        out = mqsc_here(cluster.site, "QM4", "RESUME QMGR CLUSTER(INV)\n")
    assert "AMQ8560I" in out.stdout, out.stdout
    wait_for("QM4 resumed at QM3",
             lambda: _members(cluster, "QM3").get("QM4", {}).get("SUSPEND") == "NO")
    wait_for("... and in QM3's cache",
             lambda: not _cached(cluster, "QM3", "QM4").get("suspended", True))
    # QM4 is now the least recently used destination: it is chosen first
    _put_many(cluster, "QM3", "INVQ", 2, CMQC.MQOO_BIND_NOT_FIXED)
    got = _arrived(cluster, 2)
    assert len(got["QM4"]) == 2, {k: len(v) for k, v in got.items()}


def _ints(msg) -> dict[int, object]:
    return {k: (v.rstrip(b" \x00").decode() if isinstance(v, bytes) else v)
            for k, v in msg.to_dict().items()}


def test_pcf_cluster_inquiries_and_commands(cluster):
    """Given the cluster, when an administration tool sends PCF to the command servers:
    Inquire Cluster Queue Manager at QM1 lists the four members (QMgrType, definition type,
    QMID, channel status; ClusterQMgrAttrs limits the rest); Inquire Queue with QType
    MQQT_CLUSTER lists INVQ's instances at QM2 and QM4; Suspend then Resume Queue Manager
    Cluster at QM4 shows MQSUS_YES then MQSUS_NO; Reset Cluster on partial repository QM3
    is refused; Refresh Cluster at QM3 works and QM3 relearns.
    spec: operations-dlq-clusters 4 (commands)"""
    from mqpy import CMQCFC, pcf

    _settled(cluster)
    name = pcf.CFST(CMQC.MQCA_CLUSTER_Q_MGR_NAME, b"*")
    replies = cluster.pcf("QM1", CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR, [name])
    rows = {r[CMQC.MQCA_CLUSTER_Q_MGR_NAME]: r for r in map(_ints, replies)}
    assert set(rows) == set(NAMES), rows
    assert {n: rows[n][CMQCFC.MQIACF_Q_MGR_TYPE] for n in NAMES} == {
        "QM1": CMQCFC.MQQMT_REPOSITORY, "QM2": CMQCFC.MQQMT_REPOSITORY,
        "QM3": CMQCFC.MQQMT_NORMAL, "QM4": CMQCFC.MQQMT_NORMAL}
    assert rows["QM1"][CMQCFC.MQIACF_Q_MGR_DEFINITION_TYPE] == CMQCFC.MQQMDT_CLUSTER_RECEIVER
    assert rows["QM3"][CMQC.MQCA_CLUSTER_NAME] == "INV"
    assert rows["QM3"][CMQCFC.MQCACH_CHANNEL_NAME] == "TO.QM3"
    assert str(rows["QM3"][CMQC.MQCA_Q_MGR_IDENTIFIER]).startswith("QM3_")
    assert CMQCFC.MQIACH_CHANNEL_STATUS in rows["QM3"]
    only = cluster.pcf("QM1", CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR, [
        pcf.CFST(CMQC.MQCA_CLUSTER_Q_MGR_NAME, b"QM4"),
        pcf.CFIL(CMQCFC.MQIACF_CLUSTER_Q_MGR_ATTRS, [CMQCFC.MQIACF_SUSPEND])])
    assert len(only) == 1 and set(only[0].to_dict()) == {
        CMQC.MQCA_CLUSTER_Q_MGR_NAME, CMQC.MQCA_CLUSTER_NAME, CMQCFC.MQCACH_CHANNEL_NAME,
        CMQCFC.MQIACF_SUSPEND}
    queues = [_ints(r) for r in cluster.pcf("QM1", CMQCFC.MQCMD_INQUIRE_Q, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"INVQ"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_CLUSTER)])]
    assert sorted(q[CMQC.MQCA_CLUSTER_Q_MGR_NAME] for q in queues) == ["QM2", "QM4"]
    assert {(q[CMQC.MQIA_Q_TYPE], q[CMQC.MQIA_CLUSTER_Q_TYPE], q[CMQC.MQIA_DEF_BIND])
            for q in queues} == {(CMQC.MQQT_CLUSTER, CMQC.MQCQT_LOCAL_Q,
                                  CMQC.MQBND_BIND_NOT_FIXED)}
    with_local = [_ints(r) for r in cluster.pcf("QM2", CMQCFC.MQCMD_INQUIRE_Q, [
        pcf.CFST(CMQC.MQCA_Q_NAME, b"INVQ"), pcf.CFIN(CMQC.MQIA_Q_TYPE, CMQC.MQQT_ALL),
        pcf.CFIN(CMQCFC.MQIACF_CLUSTER_INFO, 1)])]  # the local queue and the instances
    assert sorted((q[CMQC.MQIA_Q_TYPE], q.get(CMQC.MQCA_CLUSTER_Q_MGR_NAME, ""))
                  for q in with_local) == [(CMQC.MQQT_LOCAL, ""), (CMQC.MQQT_CLUSTER, "QM2"),
                                           (CMQC.MQQT_CLUSTER, "QM4")]
    inv = pcf.CFST(CMQC.MQCA_CLUSTER_NAME, b"INV")

    def suspended() -> int:
        [row] = cluster.pcf("QM4", CMQCFC.MQCMD_INQUIRE_CLUSTER_Q_MGR, [
            pcf.CFST(CMQC.MQCA_CLUSTER_Q_MGR_NAME, b"QM4")])
        return row.get(CMQCFC.MQIACF_SUSPEND)

    try:
        [done] = cluster.pcf("QM4", CMQCFC.MQCMD_SUSPEND_Q_MGR_CLUSTER, [inv])
        assert done.header.CompCode == CMQC.MQCC_OK, done.header
        assert suspended() == CMQCFC.MQSUS_YES
    finally:
        [done] = cluster.pcf("QM4", CMQCFC.MQCMD_RESUME_Q_MGR_CLUSTER, [inv])
    assert done.header.CompCode == CMQC.MQCC_OK, done.header
    assert suspended() == CMQCFC.MQSUS_NO
    [refused] = cluster.pcf("QM3", CMQCFC.MQCMD_RESET_CLUSTER, [
        inv, pcf.CFIN(CMQCFC.MQIACF_ACTION, CMQCFC.MQACT_FORCE_REMOVE),
        pcf.CFST(CMQC.MQCA_Q_MGR_NAME, b"QM4")])
    assert refused.header.CompCode == CMQC.MQCC_FAILED and refused.header.Reason, \
        refused.header
    [bad] = cluster.pcf("QM3", CMQCFC.MQCMD_REFRESH_CLUSTER, [
        pcf.CFST(CMQC.MQCA_CLUSTER_NAME, b"IN'V")])
    assert bad.header.Reason == CMQCFC.MQRCCF_OBJECT_NAME_ERROR
    [done] = cluster.pcf("QM3", CMQCFC.MQCMD_REFRESH_CLUSTER, [
        inv, pcf.CFIN(CMQCFC.MQIACF_REFRESH_REPOSITORY, CMQCFC.MQCFO_REFRESH_REPOSITORY_NO)])
    assert done.header.CompCode == CMQC.MQCC_OK, done.header
    _settled(cluster)  # QM3 relearns INVQ and both its instances


def test_put_disabled_instance_is_published_and_avoided(cluster):
    """Given the two instances of INVQ, when QM4 issues ALTER QLOCAL(INVQ) PUT(DISABLED) (the
    first step of seed 001's "remove a queue"), then QM3 learns it (DISPLAY QCLUSTER shows
    PUT(DISABLED) for QM4's instance) and its puts all go to QM2; PUT(ENABLED) restores it.
    spec: operations-dlq-clusters 4 (put-disabled cluster queue; remove a queue)"""
    _settled(cluster)
    try:
        cluster.command("QM4", "ALTER QLOCAL(INVQ) PUT(DISABLED)")
        wait_for("QM4's INVQ put-disabled at QM3", lambda: "PUT(DISABLED)" in cluster.command(
            "QM3", "DISPLAY QCLUSTER(INVQ) WHERE(CLUSQMGR EQ QM4) PUT"))
        wait_for("... and in QM3's cache",
                 lambda: _cached(cluster, "QM3", "QM4").get("put_enabled") is False)
        _put_many(cluster, "QM3", "INVQ", 4, CMQC.MQOO_BIND_NOT_FIXED)
        got = _arrived(cluster, 4)
        assert len(got["QM2"]) == 4, {k: len(v) for k, v in got.items()}
    finally:
        cluster.command("QM4", "ALTER QLOCAL(INVQ) PUT(ENABLED)")
    wait_for("QM4's INVQ enabled at QM3", lambda: "PUT(ENABLED)" in cluster.command(
        "QM3", "DISPLAY QCLUSTER(INVQ) WHERE(CLUSQMGR EQ QM4) PUT"))
    wait_for("... and in QM3's cache", lambda: _cached(cluster, "QM3", "QM4").get("put_enabled"))


def test_full_repository_killed_and_restarted(cluster):
    """Given the settled cluster, when full repository QM1 is killed with SIGKILL, then QM3
    still reaches INVQ on QM2 and QM4 (what it learned is its own), a queue defined on QM4
    meanwhile is learned through QM2; and when QM1 is restarted it knows every member again
    from SYSTEM.CLUSTER.REPOSITORY.QUEUE and learns the new queue.
    spec: operations-dlq-clusters 4 (repository as messages); dqm-intercommunication 5"""
    _settled(cluster)
    try:
        cluster.kill("QM1")
        _put_many(cluster, "QM3", "INVQ", 4, CMQC.MQOO_BIND_NOT_FIXED)
        _arrived(cluster, 4)
        out = mqsc_here(cluster.site, "QM4", "DEFINE QLOCAL(NEWQ) CLUSTER(INV)\n")
        assert out.returncode == 0, out.stdout
        _put_many(cluster, "QM3", "NEWQ", 1, 0)
        assert _arrived(cluster, 1, "NEWQ", ("QM4",)) == {"QM4": [b"msg 00"]}
    finally:
        cluster.ensure_running("QM1")
    rows = wait_for("members at restarted QM1",
                    lambda: (r := _members(cluster, "QM1")) and set(r) == set(NAMES) and r)
    assert rows["QM1"]["QMTYPE"] == "REPOS"
    wait_for("NEWQ known at QM1", lambda: "CLUSQMGR(QM4)" in cluster.command(
        "QM1", "DISPLAY QCLUSTER(NEWQ)"))


def test_refresh_cluster_relearns(cluster):
    """Given QM3 knows QM4 and INVQ, when QM3 issues REFRESH CLUSTER(INV), then its
    auto-defined channels and learned records go (DISPLAY CLUSQMGR shows only itself and the
    full repositories at first) and it learns INVQ again when it is next used.
    spec: operations-dlq-clusters 7.24"""
    _settled(cluster)
    assert "QM4" in _members(cluster, "QM3")
    out = mqsc_here(cluster.site, "QM3", "REFRESH CLUSTER(INV)\n")
    assert "AMQ8598I" in out.stdout, out.stdout
    rows = _members(cluster, "QM3")  # right after the command: nothing learned is left
    assert {"QM1", "QM2", "QM3"} <= set(rows) and "QM4" not in rows, sorted(rows)
    assert "CLUSQMGR(QM4)" not in cluster.command("QM3", "DISPLAY QCLUSTER(*)")
    _put_many(cluster, "QM3", "INVQ", 2, CMQC.MQOO_BIND_NOT_FIXED)
    _arrived(cluster, 2)
    wait_for("QM4 known again at QM3", lambda: "QM4" in _members(cluster, "QM3"))


def test_gateway_to_a_queue_manager_outside_and_balancing_from_outside(cluster):
    """Given PALERMO outside cluster INV, joined to gateway QM1 by ordinary SDR/RCVR channels
    both ways, and on QM1 the seed's definition DEFINE QREMOTE(ROME) RNAME(' ')
    RQMNAME(PALERMO) XMITQ(PALXQ) CLUSTER(INV), when partial repository QM3 puts to Q at
    queue manager ROME, then the message goes QM3 -> QM1 (cluster) -> PALXQ -> PALERMO's Q
    (multi-hop); and when PALERMO sends 4 messages for INVQ to the gateway, which hosts no
    instance, they are shared between the instances on QM2 and QM4.
    spec: aliases-channels-storage 1 uses 2 and 5;
    aliases-channels-storage 4.3; aliases-channels-storage 4.9"""
    site = cluster.site
    _settled(cluster)
    assert site.run("crtmqm", "-u", "SYSTEM.DEAD.LETTER.QUEUE", "PALERMO").returncode == 0
    cluster.start("PALERMO")
    cluster.ports["PALERMO"] = port = free_port()
    out = mqsc_here(cluster.site, "PALERMO", f"""
        {ADMIT_CHANNELS}
        DEFINE LISTENER(L) TRPTYPE(TCP) PORT({port}) CONTROL(QMGR)
        START LISTENER(L)
        DEFINE QLOCAL(Q)
        DEFINE CHANNEL(QM1.TO.PAL) CHLTYPE(RCVR) TRPTYPE(TCP)
        DEFINE QLOCAL(QM1) USAGE(XMITQ) TRIGGER INITQ(SYSTEM.CHANNEL.INITQ) +
               TRIGDATA(PAL.TO.QM1)
        DEFINE CHANNEL(PAL.TO.QM1) CHLTYPE(SDR) TRPTYPE(TCP) XMITQ(QM1) +
               CONNAME({cluster.conname("QM1")})
        DEFINE QREMOTE(INVQ) RNAME(INVQ) RQMNAME(QM1) XMITQ(QM1)
    """)
    assert out.returncode == 0, out.stdout
    out = mqsc_here(cluster.site, "QM1", f"""
        DEFINE CHANNEL(PAL.TO.QM1) CHLTYPE(RCVR) TRPTYPE(TCP)
        DEFINE QLOCAL(PALXQ) USAGE(XMITQ) TRIGGER INITQ(SYSTEM.CHANNEL.INITQ) +
               TRIGDATA(QM1.TO.PAL)
        DEFINE CHANNEL(QM1.TO.PAL) CHLTYPE(SDR) TRPTYPE(TCP) XMITQ(PALXQ) +
               CONNAME({cluster.conname("PALERMO")})
        DEFINE QREMOTE(ROME) RNAME(' ') RQMNAME(PALERMO) XMITQ(PALXQ) CLUSTER(INV)
    """)
    assert out.returncode == 0, out.stdout
    deadline = time.monotonic() + DEADLINE
    qm = cluster.bind("QM3")
    try:
        while True:
            try:
                qm.put1(mqpy.OD(ObjectName=b"Q", ObjectQMgrName=b"ROME"), b"via ROME",
                        mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
                break
            except mqpy.MQMIError as e:  # 2087 until QM3 has learned ROME
                assert e.reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
                assert time.monotonic() < deadline, "ROME never became known at QM3"
                time.sleep(0.2)
    finally:
        qm.disconnect()
    assert _arrived(cluster, 1, "Q", ("PALERMO",)) == {"PALERMO": [b"via ROME"]}
    qm = cluster.bind("PALERMO")
    try:
        for i in range(4):
            qm.put1("INVQ", b"outside %d" % i, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
    finally:
        qm.disconnect()
    got = _arrived(cluster, 4)
    assert got["QM2"] and got["QM4"], got
    assert sorted(got["QM2"] + got["QM4"]) == [b"outside %d" % i for i in range(4)]
    cluster.palermo = True  # for the next test


def test_balancing_from_outside_through_a_gateway_with_its_own_instance(cluster):
    """Given PALERMO outside cluster INV sending to gateway QM1 with IBM's definitions
    (on PALERMO QREMOTE(EDINBURGH) RNAME(EDINBURGH) RQMNAME(ANY.CLUSTER) XMITQ(QM1), on QM1
    the queue-manager alias QREMOTE(ANY.CLUSTER) RNAME(' ') RQMNAME(' ')), EDINBURGH on QM1
    itself and on QM2 with DEFBIND(NOTFIXED), and ALTER QMGR CLWLUSEQ(ANY) on QM1, when
    PALERMO sends 6 messages, then both QM1's own instance and QM2's get some (with the
    default CLWLUSEQ(LOCAL) the gateway would keep them all).
    spec: aliases-channels-storage 1 use 5; aliases-channels-storage 4.9"""
    if not getattr(cluster, "palermo", False):
        pytest.skip("needs PALERMO from the previous test")
    try:
        out = mqsc_here(cluster.site, "QM1", """
            ALTER QMGR CLWLUSEQ(ANY)
            DEFINE QREMOTE(ANY.CLUSTER) RNAME(' ') RQMNAME(' ')
            DEFINE QLOCAL(EDINBURGH) CLUSTER(INV) DEFBIND(NOTFIXED)
        """)
        assert out.returncode == 0, out.stdout
        out = mqsc_here(cluster.site, "QM2", "DEFINE QLOCAL(EDINBURGH) CLUSTER(INV) DEFBIND(NOTFIXED)")
        assert out.returncode == 0, out.stdout
        out = mqsc_here(cluster.site, "PALERMO", "DEFINE QREMOTE(EDINBURGH) RNAME(EDINBURGH) "
                                      "RQMNAME(ANY.CLUSTER) XMITQ(QM1)")
        assert out.returncode == 0, out.stdout
        wait_for("QM2's EDINBURGH in QM1's cache",
                 lambda: _cached(cluster, "QM1", "QM2", "EDINBURGH"))
        qm = cluster.bind("PALERMO")
        try:
            for i in range(6):
                qm.put1("EDINBURGH", b"edinburgh %d" % i,
                        mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
        finally:
            qm.disconnect()
        got = cluster.collect("EDINBURGH", 6, ("QM1", "QM2"))
        assert sum(map(len, got.values())) == 6, f"{got}\n{cluster.diagnose()}"
        assert got["QM1"] and got["QM2"], got
    finally:
        mqsc_here(cluster.site, "QM1", """
            ALTER QMGR CLWLUSEQ(LOCAL)
            DELETE QREMOTE(ANY.CLUSTER)
            DELETE QLOCAL(EDINBURGH) PURGE
        """)
        mqsc_here(cluster.site, "QM2", "DELETE QLOCAL(EDINBURGH) PURGE")


def test_gateway_between_two_clusters(cluster):
    """Given gateway QM1 in clusters INV and CL2 (CLUSNL, full repository of both), PALERMO
    joining CL2 only, and on QM1 a queue-manager alias for QM3 clustered in both clusters
    (QREMOTE(QM3) RNAME(' ') RQMNAME(QM3) CLUSNL(BOTH) DEFBIND(NOTFIXED)), when PALERMO puts a
    reply to RQ (not clustered) at queue manager QM3 with BIND_NOT_FIXED, then it goes
    PALERMO -> QM1 (the alias's host, in CL2) -> QM3 (resolved in INV); opened with
    BIND_ON_OPEN the header names QM1, which has no RQ: the message ends on QM1's dead-letter
    queue.  spec: aliases-channels-storage 1 use 4;
    aliases-channels-storage 4.8"""
    if not getattr(cluster, "palermo", False):
        pytest.skip("needs PALERMO from the previous test")
    try:
        _gateway_between_two_clusters(cluster)
    finally:
        cluster.kill("PALERMO")
        out = mqsc_here(cluster.site, "QM1", """
            ALTER QMGR REPOSNL(' ') REPOS(INV)
            ALTER CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CLUSNL(' ') CLUSTER(INV)
            DELETE QREMOTE(QM3)
            DELETE NAMELIST(BOTH)
        """)
        mqsc_here(cluster.site, "QM3", "DELETE QLOCAL(RQ)\n")
    assert "AMQ8147E" not in out.stdout, out.stdout


def _gateway_between_two_clusters(cluster) -> None:
    out = mqsc_here(cluster.site, "QM1", """
        DEFINE NAMELIST(BOTH) NAMES(INV, CL2)
        ALTER QMGR REPOS(' ') REPOSNL(BOTH)
        ALTER CHANNEL(TO.QM1) CHLTYPE(CLUSRCVR) CLUSTER(' ') CLUSNL(BOTH)
        DEFINE QREMOTE(QM3) RNAME(' ') RQMNAME(QM3) CLUSNL(BOTH) DEFBIND(NOTFIXED)
    """)
    assert out.returncode == 0, out.stdout
    out = mqsc_here(cluster.site, "QM3", "DEFINE QLOCAL(RQ)\n")
    assert out.returncode == 0, out.stdout
    out = mqsc_here(cluster.site, "PALERMO", f"""
        DEFINE CHANNEL(TO.PALERMO) CHLTYPE(CLUSRCVR) TRPTYPE(TCP) SHORTTMR(1) SHORTRTY(900) +
               CONNAME({cluster.conname("PALERMO")}) CLUSTER(CL2)
        DEFINE CHANNEL(TO.QM1) CHLTYPE(CLUSSDR) TRPTYPE(TCP) SHORTTMR(1) SHORTRTY(900) +
               CONNAME({cluster.conname("QM1")}) CLUSTER(CL2)
    """)
    assert out.returncode == 0, out.stdout
    dlq = "SYSTEM.DEAD.LETTER.QUEUE"
    dead_before = cluster.depth("QM1", dlq)
    deadline = time.monotonic() + DEADLINE
    qm = cluster.bind("PALERMO")
    try:
        while True:
            try:
                q = mqpy.Queue(qm, mqpy.OD(ObjectName=b"RQ", ObjectQMgrName=b"QM3"),
                               CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED)
                break
            except mqpy.MQMIError as e:  # 2087 until PALERMO has learned the alias
                assert e.reason == CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
                assert time.monotonic() < deadline, "alias QM3 never known at PALERMO"
                time.sleep(0.2)
        q.put(b"reply", mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT))
        q.close()
        q = mqpy.Queue(qm, mqpy.OD(ObjectName=b"RQ", ObjectQMgrName=b"QM3"),
                       CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_ON_OPEN)
        bound = mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT)
        q.put(b"bound reply", bound)
        q.close()
    finally:
        qm.disconnect()
    assert _arrived(cluster, 1, "RQ", ("QM3",)) == {"QM3": [b"reply"]}
    # the bound reply, found by its MsgId among whatever else QM1's DLQ holds
    wait_for("the bound reply on QM1's DLQ",
             lambda: cluster.depth("QM1", dlq) > dead_before)
    qm = cluster.bind("QM1")
    try:
        md = mqpy.MD(MsgId=bound.MsgId)
        data = mqpy.Queue(qm, dlq, CMQC.MQOO_INPUT_AS_Q_DEF).get(None, md, mqpy.GMO(
            Options=CMQC.MQGMO_WAIT, WaitInterval=int(DEADLINE * 1000),
            MatchOptions=CMQC.MQMO_MATCH_MSG_ID))
    finally:
        qm.disconnect()
    dlh = mqpy.DLH().unpack(data)
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME and data.endswith(b"bound reply")


def test_remove_a_queue_manager_and_add_it_back(cluster):
    """Given QM4 in the cluster, when it follows seed 001's "remove a queue manager" (SUSPEND
    QMGR, then ALTER its CLUSRCVR CLUSTER(' '), which notifies the repositories), then QM4
    and its INVQ disappear from the full repositories' DISPLAY CLUSQMGR and QCLUSTER; naming
    the cluster again ("add a queue manager") and RESUME bring both back.
    spec: operations-dlq-clusters 4 (procedures)"""
    _settled(cluster)
    try:
        out = mqsc_here(cluster.site, "QM4", """
            SUSPEND QMGR CLUSTER(INV)
            ALTER CHANNEL(TO.QM4) CHLTYPE(CLUSRCVR) CLUSTER(' ')
        """)
        assert out.returncode == 0, out.stdout
        for full in ("QM1", "QM2"):
            wait_for(f"QM4 gone at {full}",
                     lambda full=full: "QM4" not in _members(cluster, full))
        wait_for("QM4's INVQ gone at QM1", lambda: "CLUSQMGR(QM4)" not in cluster.command(
            "QM1", "DISPLAY QCLUSTER(INVQ)"))
    finally:
        out = mqsc_here(cluster.site, "QM4", """
            ALTER CHANNEL(TO.QM4) CHLTYPE(CLUSRCVR) CLUSTER(INV)
            RESUME QMGR CLUSTER(INV)
        """)
    assert out.returncode == 0, out.stdout
    wait_for("QM4 back at QM1", lambda: _members(cluster, "QM1").get("QM4", {}).get(
        "SUSPEND") == "NO")
    wait_for("QM4's INVQ back at QM3", lambda: "CLUSQMGR(QM4)" in cluster.command(
        "QM3", "DISPLAY QCLUSTER(INVQ)"))


def test_messages_of_a_failed_channel_are_rerouted(cluster):
    """Given the two instances of INVQ and QM3's channel to QM4 ended (INACTIVE, so nothing
    is in doubt on it), when QM4 is killed (SIGKILL) and QM3 puts 6 messages with
    BIND_NOT_FIXED, then the round robin sends some towards QM4, its channel fails, and those
    messages, neither bound nor in doubt, are re-routed: all 6 arrive at QM2.
    spec: operations-dlq-clusters 7.28"""
    _settled(cluster)
    try:
        out = mqsc_here(cluster.site, "QM3", "STOP CHANNEL(TO.QM4) MODE(FORCE) STATUS(INACTIVE)\n")
        assert "AMQ8019I" in out.stdout, out.stdout
        wait_for("TO.QM4 inactive at QM3", lambda: "STATUS(RUNNING)" not in cluster.command(
            "QM3", "DISPLAY CHSTATUS(TO.QM4)"))
        cluster.kill("QM4")
        _put_many(cluster, "QM3", "INVQ", 6, CMQC.MQOO_BIND_NOT_FIXED)
        got = _arrived(cluster, 6, qmgrs=("QM2",))
        assert sorted(got["QM2"]) == [b"msg %02d" % i for i in range(6)]
        with open(os.path.join(cluster.site.qmdir("QM3"), "errors", "AMQERR01.LOG")) as f:
            assert "re-routed" in f.read()
    finally:
        cluster.ensure_running("QM4")


def test_forceremove_only_on_a_full_repository(cluster):
    """Given the cluster, when RESET CLUSTER(INV) QMNAME(QM4) ACTION(FORCEREMOVE) is issued
    on partial repository QM3, then it is refused; issued on full repository QM1 (after QM4
    has ended) with QUEUES(YES), QM4 disappears from DISPLAY CLUSQMGR on QM1 and QM2 and
    its INVQ from DISPLAY QCLUSTER.  spec: operations-dlq-clusters 7.25"""
    out = mqsc_here(cluster.site, "QM3", "RESET CLUSTER(INV) QMNAME(QM4) ACTION(FORCEREMOVE)\n")
    assert out.returncode != 0 and "AMQ8101S" in out.stdout, out.stdout
    cluster.kill("QM4")
    out = mqsc_here(cluster.site, "QM1", "RESET CLUSTER(INV) QMNAME(QM4) ACTION(FORCEREMOVE) "
                              "QUEUES(YES)\n")
    assert "AMQ8599I" in out.stdout, out.stdout
    for full in ("QM1", "QM2"):
        wait_for(f"QM4 gone at {full}",
                 lambda full=full: "QM4" not in _members(cluster, full))
    wait_for("INVQ at QM4 gone at QM2", lambda: "CLUSQMGR(QM4)" not in cluster.command(
        "QM2", "DISPLAY QCLUSTER(INVQ)"))


def test_move_a_full_repository(cluster):
    """Seed 001 2.3.7, with the queue managers as they are (QM1, QM2 full repositories, QM3
    partial; QM4 may have been removed): ALTER QMGR REPOS(INV) on QM3, an explicit CLUSSDR
    from QM3 to QM2 and from QM1 and QM2 to QM3, ALTER QMGR REPOS(' ') on QM2, then the
    explicit CLUSSDRs that pointed to QM2 deleted (QM1's and QM3's). Then QM1 and QM3 show
    QM3 as REPOS and QM2 as NORMAL, and a queue QM2 then advertises reaches the new full
    repository QM3 unasked, and messages for it arrive from QM3.
    spec: operations-dlq-clusters 4 (procedures: move a repository)"""
    for name in ("QM1", "QM2", "QM3"):
        cluster.ensure_running(name)
    cluster.quiet(("QM1", "QM2", "QM3"))
    sdr = "CHLTYPE(CLUSSDR) TRPTYPE(TCP) SHORTTMR(1) SHORTRTY(900) CLUSTER(INV)"
    out = mqsc_here(cluster.site, "QM3", f"""
        ALTER QMGR REPOS(INV)
        DEFINE CHANNEL(TO.QM2) {sdr} CONNAME({cluster.conname("QM2")})
    """)
    assert out.returncode == 0, out.stdout
    for name in ("QM1", "QM2"):
        out = mqsc_here(cluster.site, name, f"DEFINE CHANNEL(TO.QM3) {sdr} "
                                 f"CONNAME({cluster.conname('QM3')})\n")
        assert out.returncode == 0, out.stdout
    wait_for("QM3 a full repository at QM1", lambda: _members(cluster, "QM1").get(
        "QM3", {}).get("QMTYPE") == "REPOS")
    out = mqsc_here(cluster.site, "QM2", "ALTER QMGR REPOS(' ')\n")
    assert out.returncode == 0, out.stdout
    for name in ("QM1", "QM3"):
        out = mqsc_here(cluster.site, name, """
            STOP CHANNEL(TO.QM2) MODE(FORCE) STATUS(INACTIVE)
            DELETE CHANNEL(TO.QM2)
        """)
        assert "AMQ8015I" in out.stdout, out.stdout  # channel deleted
    for name in ("QM1", "QM3"):
        rows = wait_for(f"QM2 NORMAL and QM3 REPOS at {name}", lambda name=name: (
            r := _members(cluster, name)) and r.get("QM2", {}).get("QMTYPE") == "NORMAL"
            and r.get("QM3", {}).get("QMTYPE") == "REPOS" and r)
        assert rows["QM1"]["QMTYPE"] == "REPOS", rows
    out = mqsc_here(cluster.site, "QM2", "DEFINE QLOCAL(MOVEDQ) CLUSTER(INV) DEFBIND(NOTFIXED)\n")
    assert out.returncode == 0, out.stdout
    # a full repository holds every queue record: nobody at QM3 asks for MOVEDQ
    wait_for("MOVEDQ known at QM3", lambda: "CLUSQMGR(QM2)" in cluster.command(
        "QM3", "DISPLAY QCLUSTER(MOVEDQ)"))
    _put_many(cluster, "QM3", "MOVEDQ", 2, CMQC.MQOO_BIND_NOT_FIXED)
    got = cluster.collect("MOVEDQ", 2, ("QM2",))
    assert len(got["QM2"]) == 2, f"{got}\n{cluster.diagnose()}"
