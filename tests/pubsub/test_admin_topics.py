"""IBM MQ's administrative topic branch $SYS/MQ: its root SYSTEM.ADMIN.TOPIC (WILDCARD(BLOCK),
which cannot be altered), no application publishes in it (MQRC_ADMIN_TOPIC_STRING_ERROR), a
wildcard subscription made above it matches nothing in it -- live or retained publications,
DISPLAY TPSTATUS -- and a character-based wildcard subscription within it is refused."""

from __future__ import annotations

import pytest

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.cmdserver import start_command_server, stop_command_server
from mqpy.mqsc import dump
from mqpy.pubsub import publication
from mqpy.pubsub.registry import registry_for
from mqpy.security.policy import set_authority
from tests.mqi._support import raises_mq
from tests.pubsub.test_publish_subscribe import _got, _nothing, _subscribe
from tests.pubsub.test_topic_authority import _sub, dave  # noqa: F401 - dave: a fixture

STATS = "$SYS/MQ/INFO/QMGR/PSQM/Monitor/CPU/SystemSummary"


def _text(lines: list[str]) -> str:
    return "\n".join(lines)


def test_given_a_new_queue_manager_then_system_admin_topic_roots_the_branch_and_blocks(qmgr):
    out = _text(qmgr.mqsc("DISPLAY TOPIC(SYSTEM.ADMIN.TOPIC) ALL\n"))
    assert "TOPICSTR($SYS/MQ)" in out and "WILDCARD(BLOCK)" in out, out


def test_given_system_admin_topic_when_its_wildcard_is_altered_then_3377(qmgr):
    out = _text(qmgr.mqsc("ALTER TOPIC(SYSTEM.ADMIN.TOPIC) WILDCARD(PASSTHRU)\n"))
    assert f"({CMQCFC.MQRCCF_TOPIC_RESTRICTED:X})" in out, out
    assert "WILDCARD(BLOCK)" in _text(qmgr.mqsc("DISPLAY TOPIC(SYSTEM.ADMIN.TOPIC) WILDCARD\n"))
    # what is not restricted may still change
    assert qmgr.mqsc("ALTER TOPIC(SYSTEM.ADMIN.TOPIC) DESCR('admin')\n") == [
        "AMQ8691I: IBM MQ topic changed."]
    out = _text(qmgr.mqsc("DEFINE TOPIC(SYSTEM.ADMIN.TOPIC) TOPICSTR('$SYS/MQ') "
                          "WILDCARD(PASSTHRU) REPLACE\n"))
    assert f"({CMQCFC.MQRCCF_TOPIC_RESTRICTED:X})" in out, out


def test_given_pcf_change_topic_of_its_wildcard_then_3377_and_its_dump_replays(qmgr):
    start_command_server(qmgr.eng.name, qmgr.root)
    try:
        pcf = mqpy.PCFExecute(qmgr.qm)
        with pytest.raises(mqpy.MQMIError) as refused:
            pcf.MQCMD_CHANGE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"SYSTEM.ADMIN.TOPIC",
                                    CMQC.MQIA_WILDCARD_OPERATION: CMQC.MQTA_PASSTHRU})
        assert refused.value.reason == CMQCFC.MQRCCF_TOPIC_RESTRICTED
    finally:
        stop_command_server(qmgr.eng.name, qmgr.root)
    shown = dump.parse_display(_text(qmgr.mqsc("DISPLAY TOPIC(SYSTEM.ADMIN.TOPIC) ALL\n")))
    replay = next(dump.object_definitions("TOPIC", shown)).mqsc(one_line=True)
    assert "WILDCARD(BLOCK)" in replay, replay
    assert qmgr.mqsc(replay + "\n") == ["AMQ8690I: IBM MQ topic created."]


def test_given_an_admin_topic_string_when_opened_for_output_then_2598(mode):
    qm = mode.connect()
    try:
        with raises_mq(CMQC.MQRC_ADMIN_TOPIC_STRING_ERROR):
            mqpy.Topic(qm, topic_string=STATS).open(open_opts=CMQC.MQOO_OUTPUT)
        with raises_mq(CMQC.MQRC_ADMIN_TOPIC_STRING_ERROR):  # the object and a string under it
            mqpy.Topic(qm, topic_name="SYSTEM.ADMIN.TOPIC", topic_string="INFO/x").open(
                open_opts=CMQC.MQOO_OUTPUT)
        od = mqpy.OD(Version=CMQC.MQOD_VERSION_4, ObjectType=CMQC.MQOT_TOPIC)
        od.set_vs("ObjectString", STATS)
        with raises_mq(CMQC.MQRC_ADMIN_TOPIC_STRING_ERROR):
            qm.put1(od, b"fake", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        # a topic merely beginning alike is no administrative topic
        sub = _subscribe(qm, "$SYS/MQX/t")[0]
        t = mqpy.Topic(qm, topic_string="$SYS/MQX/t")
        t.open(open_opts=CMQC.MQOO_OUTPUT)
        t.pub(b"ok", mqpy.MD(), mqpy.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT))
        t.close()
        assert _got(sub) == b"ok"
    finally:
        qm.disconnect()


def test_given_a_character_wildcard_subscription_within_the_branch_then_2598(mode):
    qm = mode.connect()
    try:
        with raises_mq(CMQC.MQRC_ADMIN_TOPIC_STRING_ERROR):
            _subscribe(qm, "$SYS/MQ/INFO/*", CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                       | CMQC.MQSO_WILDCARD_CHAR)
        # topic-based wildcards within the branch are allowed, as IBM's examples use them
        sub = _subscribe(qm, "$SYS/MQ/INFO/QMGR/PSQM/ActivityTrace/ChannelName/#")[0]
        sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
    finally:
        qm.disconnect()


def test_given_define_sub_with_a_character_wildcard_within_the_branch_then_refused(qmgr):
    out = _text(qmgr.mqsc("DEFINE SUB(ADMIN.CHAR) TOPICSTR('$SYS/MQ/INFO/*') WSCHEMA(CHAR) "
                          "DESTCLAS(MANAGED)\n"))
    assert "AMQ8094I" not in out and f"({CMQC.MQRC_ADMIN_TOPIC_STRING_ERROR:X})" in out, out
    assert "AMQ8147E" in _text(qmgr.mqsc("DISPLAY SUB(ADMIN.CHAR)\n"))


def test_given_wildcards_above_the_branch_then_publications_in_it_do_not_reach_them(qmgr):
    qm = qmgr.connect()
    try:
        subs = {t: _subscribe(qm, t)[0] for t in ("#", "$SYS/#", "+/MQ/#", "$SYS/MQ/#")}
        reg = registry_for(qmgr.eng)
        with qmgr.eng.lock:
            tree = reg.tree()
            reached = {s.topic for s in reg.subs.values()
                       if publication.reaches(reg, tree, s, STATS, None, 0)}
        assert reached == {"$SYS/MQ/#"}
        for sub in subs.values():
            sub.close(sub_close_options=CMQC.MQCO_REMOVE_SUB)
    finally:
        qm.disconnect()


def test_given_no_system_admin_topic_then_wildcards_above_the_branch_still_match_nothing(qmgr):
    """A queue manager made before SYSTEM.ADMIN.TOPIC was a default object (or one whose
    object was deleted): the branch stays isolated."""
    qmgr.mqsc("DELETE TOPIC(SYSTEM.ADMIN.TOPIC)\n")
    qm = qmgr.connect()
    try:
        subs = [_subscribe(qm, topic)[0] for topic in ("#", "$SYS/#", "$SYS/MQ/#")]
        reg = registry_for(qmgr.eng)
        with qmgr.eng.lock:
            tree = reg.tree()
            reached = {s.topic for s in reg.subs.values()
                       if publication.reaches(reg, tree, s, STATS, None, 0)}
        assert reached == {"$SYS/MQ/#"}, subs
    finally:
        qm.disconnect()


def test_given_a_retained_publication_in_the_branch_then_only_subscriptions_within_get_it(qmgr):
    with qmgr.eng.lock:
        registry_for(qmgr.eng).retain(STATS, mqpy.MD(Priority=0, Persistence=0), b"retained",
                                       persistent=False)
    qm = qmgr.connect()
    try:
        for above in ("#", "$SYS/#", "$SYS/+/INFO/#"):
            _nothing(_subscribe(qm, above)[0])
        assert _got(_subscribe(qm, "$SYS/MQ/#")[0]) == b"retained"
        assert _got(_subscribe(qm, STATS)[0]) == b"retained"
    finally:
        qm.disconnect()


def test_given_tpstatus_with_wildcards_above_the_branch_then_its_nodes_are_not_shown(qmgr):
    out = _text(qmgr.mqsc("DISPLAY TPSTATUS('#')\n"))
    assert "$SYS/MQ" not in out, out
    assert "TOPICSTR($SYS/MQ)" in _text(qmgr.mqsc("DISPLAY TPSTATUS('$SYS/MQ/#')\n"))


def test_given_sub_granted_above_the_branch_then_it_does_not_reach_into_it(dave):  # noqa: F811
    set_authority(dave.eng, "topic", "SYSTEM.BASE.TOPIC", ["+sub"], principal="dave")
    with raises_mq(CMQC.MQRC_NOT_AUTHORIZED):
        _sub(dave.conn, STATS)
    set_authority(dave.eng, "topic", "SYSTEM.ADMIN.TOPIC", ["+sub"], principal="dave")
    hobj, hsub = _sub(dave.conn, STATS)
    dave.conn.close(hsub, 0)
    dave.conn.close(hobj, 0)


def test_given_attributes_set_above_the_branch_then_its_topics_do_not_inherit_them(qmgr):
    qmgr.mqsc("ALTER TOPIC(SYSTEM.BASE.TOPIC) MDURMDL(SYSTEM.NDURABLE.MODEL.QUEUE) "
              "PUB(DISABLED)\n")
    qmgr.mqsc("DEFINE TOPIC(SYS.ROOT) TOPICSTR('$SYS') DEFPRTY(7) "
              "MNDURMDL(SYSTEM.DURABLE.MODEL.QUEUE)\n")
    qmgr.mqsc("DELETE TOPIC(SYSTEM.ADMIN.TOPIC)\n")  # not even its own values in between
    out = _text(qmgr.mqsc(f"DISPLAY TPSTATUS('{STATS}') MDURMDL MNDURMDL PUB DEFPRTY\n"))
    for shown in ("MDURMDL(SYSTEM.DURABLE.MODEL.QUEUE)", "MNDURMDL(SYSTEM.NDURABLE.MODEL.QUEUE)",
                  "PUB(ENABLED)", "DEFPRTY(0)"):
        assert shown in out, out
