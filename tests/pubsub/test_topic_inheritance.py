"""ASPARENT resolution up the topic tree to SYSTEM.BASE.TOPIC (mqpy.pubsub.topictree)."""

from __future__ import annotations

from mqpy.engine.objects import ObjectDef
from mqpy.pubsub import topictree


def _topic(name: str, topic: str, **attributes: object) -> ObjectDef:
    return ObjectDef("TOPIC", name, {"TOPICSTR": topic, **attributes})


def test_given_no_node_on_the_way_up_then_the_base_topic_decides():
    base = _topic("SYSTEM.BASE.TOPIC", "", DEFPSIST="YES", PUB="ENABLED")
    tree = topictree.nodes([base])
    assert tree == {}  # a blank TOPICSTR is no node of the tree
    assert topictree.resolve(tree, base, "a/b", "DEFPSIST") == "YES"


def test_given_nodes_then_the_closest_one_not_asparent_wins():
    sport = _topic("SPORT", "Sport", DEFPRTY=7, PUB="DISABLED")
    football = _topic("FOOTBALL", "Sport/Football", DEFPRTY="ASPARENT", PUB="ENABLED")
    tree = topictree.nodes([sport, football])
    assert topictree.resolve(tree, None, "Sport/Football/Results", "DEFPRTY") == 7
    assert topictree.resolve(tree, None, "Sport/Football/Results", "PUB") == "ENABLED"
    assert topictree.resolve(tree, None, "Sport/Tennis", "PUB") == "DISABLED"
    assert topictree.node_for(tree, "Sport/Football/x") is football


def test_given_everything_asparent_and_no_base_object_then_ibms_base_values_apply():
    tree = topictree.nodes([_topic("X", "x", DURSUB="ASPARENT", MDURMDL="")])
    assert topictree.resolve(tree, None, "x/y", "DURSUB") == "YES"
    assert topictree.resolve(tree, None, "x/y", "MDURMDL") == "SYSTEM.DURABLE.MODEL.QUEUE"
    assert topictree.resolve(tree, None, "x", "PMSGDLV") == "ALLDUR"


def test_given_a_blocking_node_then_less_qualified_wildcards_are_kept_out():
    tree = topictree.nodes([_topic("B", "a/b", WILDCARD="BLOCK")])
    assert topictree.blocked(tree, "a/b/c", qualified=1)  # a/# is less qualified
    assert not topictree.blocked(tree, "a/b/c", qualified=2)  # a/b/# is not
    assert not topictree.blocked(tree, "a/x", qualified=0)  # not under the node
