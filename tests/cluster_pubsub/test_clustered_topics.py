"""Clustered topics with direct routing across real queue managers (strmqm, channels over
loopback): a publication on one member reaches the subscribers on the others through
proxy subscriptions and the cluster channels, exactly once; a subscriber gone stops the
flow there; a member that joins later learns the topic and the subscriptions."""

from __future__ import annotations

import os
import signal
import time

import mqpy
from mqpy import CMQC
from tests.cluster.conftest import wait_for
from tests.support.daemon_pair import mqsc_here

TOPIC = "sports/score"


def _publish(net, qmgr: str, data: bytes, topic: str = TOPIC) -> None:
    qm = net.bind(qmgr)
    try:
        t = mqpy.Topic(qm, topic_string=topic)
        t.open(open_opts=CMQC.MQOO_OUTPUT)
        t.pub(data, mqpy.MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING),
              mqpy.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        qm.commit()
        t.close()
    finally:
        qm.disconnect()


def _proxies(net, qmgr: str) -> set[str]:
    """The origins of the proxy subscriptions on ``qmgr`` (DISPLAY SUB SUBTYPE(PROXY))."""
    out = net.command(qmgr, "DISPLAY SUB(*) SUBTYPE(PROXY) TOPICSTR DESTQMGR")
    return {line.split("DESTQMGR(")[1].split(")")[0]
            for line in out.splitlines() if "DESTQMGR(" in line}


def _subscribe(net, qmgr: str) -> None:
    out = mqsc_here(net.site, qmgr, f"DEFINE QLOCAL(SCORES)\n"
                         f"DEFINE SUB(SCORES.SUB) TOPICSTR('{TOPIC}') DEST(SCORES)\n")
    assert out.returncode == 0, out.stdout


def test_a_publication_reaches_subscribers_on_every_member(pubsub_cluster):
    """Given TOPIC(SPORTS) CLUSTER(INV) defined on QM1 and a subscription to sports/score on
    QM2 and on QM3, when QM1 has their proxy subscriptions and an application publishes
    on QM1 (persistent, in syncpoint), then each subscriber gets it once."""
    net = pubsub_cluster
    out = mqsc_here(net.site, "QM1", "DEFINE TOPIC(SPORTS) TOPICSTR('sports') CLUSTER(INV)\n")
    assert out.returncode == 0, out.stdout
    for name in ("QM2", "QM3"):
        wait_for(f"{name} knows the cluster topic", lambda n=name: "CLUSQMGR(QM1)" in
                 net.command(n, "DISPLAY TCLUSTER(SPORTS) CLUSQMGR"))
        _subscribe(net, name)
    wait_for("QM1 holds proxy subscriptions of QM2 and QM3",
             lambda: _proxies(net, "QM1") >= {"QM2", "QM3"})
    _publish(net, "QM1", b"3-1")
    got = net.collect("SCORES", 2, qmgrs=("QM2", "QM3"))
    assert got == {"QM2": [b"3-1"], "QM3": [b"3-1"]}, net.diagnose()
    shown = net.command("QM3", f"DISPLAY TPSTATUS('{TOPIC}') CLUSTER CLROUTE")
    assert "CLUSTER(INV)" in shown and "CLROUTE(DIRECT)" in shown, shown
    shown = net.command("QM1", f"DISPLAY TPSTATUS('{TOPIC}') TYPE(SUB) SUBTYPE")
    assert shown.count("SUBTYPE(PROXY)") == 2, shown
    time.sleep(1)
    assert net.collect("SCORES", 1, qmgrs=("QM2", "QM3"), timeout=2) == {"QM2": [], "QM3": []}


def test_a_subscription_removed_stops_delivery_there(pubsub_cluster):
    """Given the subscriptions of the previous test, when QM2's is deleted, then QM1
    withdraws nothing but QM2's proxy subscription goes, and the next publication reaches
    QM3 only."""
    net = pubsub_cluster
    assert mqsc_here(net.site, "QM2", "DELETE SUB(SCORES.SUB)\n").returncode == 0
    wait_for("QM2's proxy subscription withdrawn", lambda: "QM2" not in _proxies(net, "QM1"))
    assert "QM3" in _proxies(net, "QM1")
    _publish(net, "QM1", b"3-2")
    got = net.collect("SCORES", 1, qmgrs=("QM2", "QM3"))
    assert got == {"QM2": [], "QM3": [b"3-2"]}, net.diagnose()
    time.sleep(2)
    assert net.collect("SCORES", 1, qmgrs=("QM2",), timeout=2) == {"QM2": []}


def test_a_member_joining_later_learns_the_topic_and_the_subscriptions(pubsub_cluster):
    """Given QM3's subscription, when QM4 joins the cluster (a CLUSSDR to QM2), then it
    learns the cluster topic and QM3's proxy subscription, and a publication on QM4 reaches
    QM3."""
    net = pubsub_cluster
    net.join("QM4")
    wait_for("QM4 knows the cluster topic", lambda: "TOPICSTR(sports)" in net.command(
        "QM4", "DISPLAY TCLUSTER(*) TOPICSTR"))
    wait_for("QM4 holds QM3's proxy subscription", lambda: "QM3" in _proxies(net, "QM4"))
    _publish(net, "QM4", b"from QM4")
    got = net.collect("SCORES", 1, qmgrs=("QM3",))
    assert got == {"QM3": [b"from QM4"]}, net.diagnose()


def test_a_subscription_to_a_cluster_queue_or_a_cluster_qmgr_s_queue_gets_its_copies(
        pubsub_cluster):
    """Given on QM1 a subscription whose DEST is the cluster queue NEWSQ hosted on QM3, and
    one whose DEST is PLAINQ at DESTQMGR(QM2) (no transmission queue for QM2: a cluster
    queue manager), when a persistent publication is made on QM1, then each copy goes
    through the cluster channels to its queue, once."""
    net = pubsub_cluster
    for name, script in (("QM3", "DEFINE QLOCAL(NEWSQ) CLUSTER(INV)\n"),
                         ("QM2", "DEFINE QLOCAL(PLAINQ)\n")):
        assert mqsc_here(net.site, name, script).returncode == 0
    # (not "NEWSQ" in it: AMQ8147E, object NEWSQ not found, names it too)
    wait_for("QM1 knows NEWSQ", lambda: "CLUSQMGR(QM3)" in net.command(
        "QM1", "DISPLAY QCLUSTER(NEWSQ) CLUSQMGR"))
    out = mqsc_here(net.site, "QM1", "DEFINE SUB(TO.CLUSQ) TOPICSTR('news/x') DEST(NEWSQ)\n"
                          "DEFINE SUB(TO.QM2) TOPICSTR('news/x') DEST(PLAINQ) DESTQMGR(QM2)\n")
    assert out.stdout.count("AMQ8094I") == 2, out.stdout
    _publish(net, "QM1", b"headline", topic="news/x")
    assert net.collect("NEWSQ", 1, qmgrs=("QM3",)) == {"QM3": [b"headline"]}, net.diagnose()
    assert net.collect("PLAINQ", 1, qmgrs=("QM2",)) == {"QM2": [b"headline"]}, net.diagnose()


def test_a_subscription_removed_while_the_channel_initiator_was_down_stops_its_flow(
        pubsub_cluster):
    """Given QM3's subscription and its proxy subscriptions on QM1 and QM4, when QM3's
    channel initiator is killed, the subscription deleted, and the channel initiator
    started again (by the queue manager), then QM3 tells the others to resync and its
    proxy subscriptions go from QM1 and QM4."""
    net = pubsub_cluster
    assert "QM3" in _proxies(net, "QM1")
    with open(os.path.join(net.site.qmdir("QM3"), "chinit.pid")) as f:
        os.kill(int(f.read().split()[0]), signal.SIGKILL)
    assert mqsc_here(net.site, "QM3", "DELETE SUB(SCORES.SUB)\n").returncode == 0
    wait_for("QM3's proxy subscriptions gone",
             lambda: "QM3" not in _proxies(net, "QM1") | _proxies(net, "QM4"))


def test_a_wildcard_subscription_under_the_cluster_topic_is_sent_one_above_it_is_not(
        pubsub_cluster):
    """Given the cluster topic at sports, when QM2 subscribes to # (above it) and then to
    sports/+/goals (resolving at it), then QM1 holds a proxy subscription for
    sports/+/goals only (none for # or sports/#); and a publication on QM1 to
    sports/united/goals reaches both subscriptions on QM2 (the one above gets its copy of
    what the other brings, as IBM documents)."""
    net = pubsub_cluster
    out = mqsc_here(net.site, "QM2", "DEFINE QLOCAL(GOALS)\nDEFINE QLOCAL(EVERYTHING)\n"
                          "DEFINE SUB(ALL.SUB) TOPICSTR('#') DEST(EVERYTHING)\n"
                          "DEFINE SUB(GOALS.SUB) TOPICSTR('sports/+/goals') DEST(GOALS)\n")
    assert out.stdout.count("AMQ8094I") == 2, out.stdout

    def proxies() -> str:
        return net.command("QM1", "DISPLAY SUB(*) SUBTYPE(PROXY) TOPICSTR")
    wait_for("QM1 holds QM2's proxy for sports/+/goals",
             lambda: "TOPICSTR(sports/+/goals)" in proxies())
    _publish(net, "QM1", b"1-0", topic="sports/united/goals")
    got = net.collect("GOALS", 1, qmgrs=("QM2",))
    assert got == {"QM2": [b"1-0"]}, net.diagnose()
    assert net.collect("EVERYTHING", 1, qmgrs=("QM2",)) == {"QM2": [b"1-0"]}, net.diagnose()
    shown = proxies()
    assert "TOPICSTR(#)" not in shown and "TOPICSTR(sports/#)" not in shown, shown
