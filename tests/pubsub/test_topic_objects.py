"""TOPIC objects in MQSC: DEFINE / ALTER / DELETE / DISPLAY TOPIC with IBM's attributes, the
default objects SYSTEM.BASE.TOPIC and SYSTEM.DEFAULT.TOPIC and the managed-destination model
queues, kept over a restart like every definition."""

from __future__ import annotations

import mqpy
from mqpy import CMQC, CMQCFC
from mqpy.cmdserver import start_command_server, stop_command_server
from mqpy.mqsc import dump


def _text(lines: list[str]) -> str:
    return "\n".join(lines)


def test_given_a_new_queue_manager_then_it_has_ibms_topic_default_objects(qmgr):
    out = _text(qmgr.mqsc("DISPLAY TOPIC(SYSTEM.BASE.TOPIC) ALL\n"))
    assert "AMQ8633I: Display topic details." in out
    for shown in ("DURSUB(YES)", "PUB(ENABLED)", "SUB(ENABLED)", "DEFPSIST(NO)", "DEFPRTY(0)",
                  "MDURMDL(SYSTEM.DURABLE.MODEL.QUEUE)", "MNDURMDL(SYSTEM.NDURABLE.MODEL.QUEUE)",
                  "PMSGDLV(ALLDUR)", "NPMSGDLV(ALLAVAIL)", "WILDCARD(PASSTHRU)"):
        assert shown in out, shown
    out = _text(qmgr.mqsc("DISPLAY TOPIC(SYSTEM.DEFAULT.TOPIC) DURSUB DEFPRTY\n"))
    assert "DURSUB(ASPARENT)" in out and "DEFPRTY(ASPARENT)" in out
    out = _text(qmgr.mqsc("DISPLAY QMODEL(SYSTEM.DURABLE.MODEL.QUEUE) DEFTYPE\n"))
    assert "DEFTYPE(PERMDYN)" in out
    out = _text(qmgr.mqsc("DISPLAY QMODEL(SYSTEM.NDURABLE.MODEL.QUEUE) DEFTYPE\n"))
    assert "DEFTYPE(TEMPDYN)" in out


def test_given_define_topic_then_alter_display_and_delete_answer_as_ibm(qmgr):
    assert qmgr.mqsc("DEFINE TOPIC(SPORTS) TOPICSTR('Sport') DEFPRTY(5) PUB(DISABLED) "
                     "DESCR('sport') WILDCARD(BLOCK)\n") == ["AMQ8690I: IBM MQ topic created."]
    out = _text(qmgr.mqsc("DISPLAY TOPIC(SPORTS) ALL\n"))
    assert "TOPIC(SPORTS)" in out and "TYPE(LOCAL)" in out and "TOPICSTR(Sport)" in out
    assert "DEFPRTY(5)" in out and "PUB(DISABLED)" in out and "WILDCARD(BLOCK)" in out
    assert "SUB(ASPARENT)" in out  # from SYSTEM.DEFAULT.TOPIC
    assert qmgr.mqsc("ALTER TOPIC(SPORTS) PUB(ENABLED)\n") == ["AMQ8691I: IBM MQ topic changed."]
    assert "PUB(ENABLED)" in _text(qmgr.mqsc("DISPLAY TOPIC(SPORTS) PUB\n"))
    assert qmgr.mqsc("DELETE TOPIC(SPORTS)\n") == ["AMQ8692I: IBM MQ topic deleted."]
    assert "AMQ8147E" in _text(qmgr.mqsc("DISPLAY TOPIC(SPORTS)\n"))


def test_given_a_topic_string_in_use_then_another_topic_object_for_it_is_refused(qmgr):
    qmgr.mqsc("DEFINE TOPIC(A) TOPICSTR('x/y')\n")
    out = _text(qmgr.mqsc("DEFINE TOPIC(B) TOPICSTR('x/y')\n"))
    assert "AMQ8690I" not in out
    assert "AMQ8147E" in _text(qmgr.mqsc("DISPLAY TOPIC(B)\n"))


def test_given_define_topic_without_a_topic_string_then_it_is_refused(qmgr):
    out = _text(qmgr.mqsc("DEFINE TOPIC(NOSTR)\n"))
    assert "AMQ8690I" not in out


def test_given_topic_objects_then_they_survive_a_restart(qmgr):
    qmgr.mqsc("DEFINE TOPIC(KEPT) TOPICSTR('kept/here') DURSUB(NO)\n")
    qmgr.restart()
    out = _text(qmgr.mqsc("DISPLAY TOPIC(KEPT) TOPICSTR DURSUB\n"))
    assert "TOPICSTR(kept/here)" in out and "DURSUB(NO)" in out


def test_given_pcf_create_change_inquire_delete_topic_then_they_act_as_mqsc(qmgr):
    start_command_server(qmgr.eng.name, qmgr.root)
    try:
        pcf = mqpy.PCFExecute(qmgr.qm)
        pcf.MQCMD_CREATE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"PCF.TOPIC",
                                CMQC.MQCA_TOPIC_STRING: b"pcf/topic",
                                CMQC.MQIA_INHIBIT_PUB: CMQC.MQTA_PUB_INHIBITED,
                                CMQC.MQIA_DEF_PRIORITY: 4})
        pcf.MQCMD_CHANGE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"PCF.TOPIC",
                                CMQC.MQIA_DURABLE_SUB: CMQC.MQSUB_DURABLE_INHIBITED})
        (found,) = pcf.MQCMD_INQUIRE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"PCF.TOPIC"})
        assert found[CMQC.MQCA_TOPIC_STRING].strip() == b"pcf/topic"
        assert found[CMQC.MQIA_INHIBIT_PUB] == CMQC.MQTA_PUB_INHIBITED
        assert found[CMQC.MQIA_DURABLE_SUB] == CMQC.MQSUB_DURABLE_INHIBITED
        assert found[CMQC.MQIA_DEF_PRIORITY] == 4
        assert found[CMQC.MQIA_INHIBIT_SUB] == CMQC.MQTA_SUB_AS_PARENT
        names = pcf.MQCMD_INQUIRE_TOPIC_NAMES({CMQC.MQCA_TOPIC_NAME: b"*"})
        listed = [n.strip() for n in names[0][CMQCFC.MQCACF_TOPIC_NAMES]]
        assert b"PCF.TOPIC" in listed and b"SYSTEM.BASE.TOPIC" in listed
        pcf.MQCMD_DELETE_TOPIC({CMQC.MQCA_TOPIC_NAME: b"PCF.TOPIC"})
        assert "AMQ8147E" in _text(qmgr.mqsc("DISPLAY TOPIC(PCF.TOPIC)\n"))
    finally:
        stop_command_server(qmgr.eng.name, qmgr.root)


def test_given_a_topic_then_dmpmqcfg_dumps_what_differs_and_the_dump_replays(qmgr):
    qmgr.mqsc("DEFINE TOPIC(DUMPED) TOPICSTR('dump/me') PUB(DISABLED) DESCR('it''s dumped')\n")
    shown = dump.parse_display(_text(qmgr.mqsc("DISPLAY TOPIC(DUMPED) ALL\n")))
    (definition,) = dump.object_definitions("TOPIC", shown)
    text = definition.mqsc(one_line=True)
    assert text == ("DEFINE TOPIC('DUMPED') DESCR('it''s dumped') PUB(DISABLED) "
                    "TOPICSTR('dump/me') REPLACE")
    qmgr.mqsc("DELETE TOPIC(DUMPED)\n")
    assert qmgr.mqsc(text + "\n") == ["AMQ8690I: IBM MQ topic created."]
    base = dump.parse_display(_text(qmgr.mqsc("DISPLAY TOPIC(SYSTEM.BASE.TOPIC) ALL\n")))
    replay = next(dump.object_definitions("TOPIC", base)).mqsc(one_line=True)
    assert qmgr.mqsc(replay + "\n") == ["AMQ8690I: IBM MQ topic created."]  # (replaced)
