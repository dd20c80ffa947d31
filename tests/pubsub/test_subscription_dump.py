"""dmpmqcfg of subscriptions: only administrative ones (DEFINE SUB or its PCF form), as the
DEFINE SUB that re-creates them; an application's MQSUB, even durable, is not configuration."""

from __future__ import annotations

from mqpy import CMQC
from mqpy.mqsc import dump
from mqpy_cli import dmpmqcfg

from .test_publish_subscribe import _subscribe


def _shown(qmgr) -> list[dict[str, str | None]]:
    return dump.parse_display("\n".join(qmgr.mqsc("DISPLAY SUB(*) ALL\n")))


def test_given_admin_and_api_subscriptions_then_only_the_admin_one_is_dumped_and_replays(qmgr):
    qmgr.mqsc("DEFINE QLOCAL(DUMP.SUBQ)\n"
              "DEFINE SUB(DUMPED.SUB) TOPICSTR('dump/sub') DEST(DUMP.SUBQ) USERDATA('kept')\n")
    api = _subscribe(qmgr.qm, "dump/api", CMQC.MQSO_CREATE | CMQC.MQSO_MANAGED
                     | CMQC.MQSO_DURABLE, "API.DURABLE")[0]
    (definition,) = dump.object_definitions("SUB", _shown(qmgr))
    text = definition.mqsc(one_line=True)
    assert text.startswith("DEFINE SUB('DUMPED.SUB') ") and text.endswith(" REPLACE")
    for item in ("DEST('DUMP.SUBQ')", "TOPICSTR('dump/sub')", "USERDATA('kept')"):
        assert item in text, item
    assert "SUBID" not in text and "SUBTYPE" not in text and "DURABLE" not in text
    qmgr.mqsc("DELETE SUB(DUMPED.SUB)\n")
    assert qmgr.mqsc(text + "\n") == ["AMQ8094I: IBM MQ subscription created."]
    assert "USERDATA(kept)" in "\n".join(qmgr.mqsc("DISPLAY SUB(DUMPED.SUB) USERDATA\n"))
    api.close()


def test_dmpmqcfg_dumps_subscriptions_with_t_sub_x_sub_and_in_all_but_not_x_object():
    assert dmpmqcfg._TYPES["sub"] == ("SUB",)
    assert dmpmqcfg._TYPES["all"][-1] == "SUB"
    assert dmpmqcfg._kinds("all", "sub") == ("SUB",)
    assert "SUB" not in dmpmqcfg._kinds("all", "object")
    assert "SUB" in dmpmqcfg._kinds("all", "all") and "QUEUE" in dmpmqcfg._kinds("all", "all")
